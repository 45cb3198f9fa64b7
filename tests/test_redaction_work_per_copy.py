"""Issue 11, redaction speed on adversarial text (h19p): what a rule works out for a line that repeats (a flow list's
text, a plain scalar's continued line, a block scalar's header behind a log prefix) is worked out once per distinct
one, or the copies are passed over. Each test counts calls on a repeated form against a bound that does not grow with
the text; the guards check that the verdicts are those of before (the former code copied here, or the rule with the
pass-over switched off, compared on random texts with runs of copies). The times are in
benchmarks/redaction_speed.py (docs/benchmarks.md, h19p), not here."""

from __future__ import annotations

import random
from typing import Callable

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import assignments, blocks
from aiperf_lab.triage.redaction.spans import REDACTED


def _assigned(text: str):
    return assignments._assignment_spans(text, text.lower())


# ---- flow lists: whether `[...]` says there is no secret, once a distinct list ----------------------------------------

def test_flow_lists_are_asked_whether_they_say_absent_once_a_distinct_list(monkeypatch):
    text = "secrets: [Zq8Das1x, Pa55w0rd-2]\npassword: [x!9Kq2]abc\napi_key: [not set]\n" * 2000
    expected = blocks._yaml_block_spans(text)
    counted = Counted(blocks.says_absent)
    monkeypatch.setattr(blocks, "says_absent", counted)
    assert blocks._yaml_block_spans(text) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("line, gone, kept", [
    ("secrets: [Zq8Das1x, Pa55w0rd-2]\n", ["Zq8Das1x", "Pa55w0rd-2"], []),
    ("password: [not set]\n", [], ["[not set]"]),
    ("token: [none]\n", [], ["[none]"]),
    ("api_key: [REDACTED]\n", [], []),
    ("passwords = [hunter2x, Zq8Das1x]\n", [], ["hunter2x, Zq8Das1x"]),   # (code: bare items are variables)
    ('passwords = ["Zq8Das1x", "Pa55w0rd-2"]\n', ["Zq8Das1x", "Pa55w0rd-2"], []),
    ("secret: {a: Zq8Das1x}\n", ["Zq8Das1x"], []),
])
def test_flow_lists_are_judged_as_before_when_repeated(line, gone, kept):
    for copies in (1, 4):
        out = Redactor({}).text(line * copies)
        for word in gone:
            assert word not in out
        for word in kept:
            assert out.count(word) >= copies


# ---- a plain scalar continued under its name: each continued line judged once a distinct line and indent ---------------

class _CountedHarmless(assignments._HarmlessValues):
    asked: list[str] = []

    def __getitem__(self, value):
        type(self).asked.append(value)
        return super().__getitem__(value)


def test_continued_scalar_lines_are_judged_once_a_distinct_line(monkeypatch):
    text = "password: |\n  Zq8Das1x\n  Pa55w0rd-2\n" * 2000
    expected = _assigned(text)
    _CountedHarmless.asked = []
    monkeypatch.setattr(assignments, "_HarmlessValues", _CountedHarmless)
    assert _assigned(text) == expected
    assert _CountedHarmless.asked.count("Pa55w0rd-2") <= 10


def _former_continued_scalar(text: str, start: int, value_end: int, harmless, append: Callable) -> None:
    """_continued_scalar as it was before h19p (each line judged at each match)."""
    line_start = text.rfind("\n", 0, start) + 1
    if assignments.NAME_OPENS_LINE.fullmatch(text, line_start, start) is None:
        return
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" \t"))
    at = text.find("\n", value_end) + 1
    for _ in range(assignments.CONTINUED_SCALAR_LINES):
        end = text.find("\n", at)
        line = text[at:end if end >= 0 else len(text)].rstrip("\r")
        content = line.lstrip(" \t")
        depth = len(line) - len(content)
        if (depth <= indent or not content or content[0] in "#-" or content.endswith(":") or ": " in content
                or any(c.isspace() for c in content) or harmless[content] or not any(c.isalnum() for c in content)):
            return
        append((at + depth, at + len(line), REDACTED, "secret-named value", start))
        if end < 0:
            return
        at = end + 1


CONTINUED_LINES = ["password: first\n", "  Zq8Das1x\n", "    Pa55w0rd-2\n", "  not a value\n", "  # note\n", "  - item\n",
                   "  key: value\n", "  ^\n", "  /etc/x\n", "\tTabbed9x\n", "token: abc123\n", "  - token: Zq8Das1x\n",
                   "    Zq8Das1x\r\n", "  x\n", "  False\n", "secret:\n", "  Zq8Das1x", "api_key: |\n", "pass: Qx\n", "\n"]


@pytest.mark.parametrize("seed", range(30))
def test_continued_scalars_are_judged_as_the_former_rule_did(monkeypatch, seed):
    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randrange(20, 80)):
        parts.append(rng.choice(CONTINUED_LINES) * rng.choice((1, 1, 2, 5)))
    text = "".join(parts)
    now = _assigned(text)
    monkeypatch.setattr(assignments, "_continued_scalar", _former_continued_scalar)
    assert now == _assigned(text)


# ---- a block scalar's header behind a log prefix, repeated: its copies passed over ----------------------------------

def test_prefixed_block_scalar_headers_repeated_are_passed_over(monkeypatch):
    text = "[rank0]: password: |\n" * 2000
    expected = _assigned(text)
    counted = Counted(assignments._value_is_log_prefix)
    monkeypatch.setattr(assignments, "_value_is_log_prefix", counted)
    assert _assigned(text) == expected
    assert counted.calls <= 10


PREFIXED_LINES = ["[rank0]: password: |\n", "[rank0]:   Zq8Das1x\n", "[rank1]: token: >-\n", "[rank0]: password: |  # c\n",
                  "password: |\n", "  Pa55w0rd-2\n", "[rank0]: a=1 password: |\n", "[rank0]: token=abcdef1 secret: |\n",
                  "app-1  | api_key: |\n", "app-1  |   Zq8Das1x\n", "[rank0]: password:\n", "[rank0]:   hunter2x9\n",
                  "[rank0]: password: |\r\n", "2026-11-24 10:00:01 secret: >\n", "2026-11-24 10:00:02 secret: >\n",
                  "[rank0]: password: | password: |\n", "[rank0]: pass: |\n", "x\n", "[rank0]: password: |"]


@pytest.mark.parametrize("seed", range(40))
def test_prefixed_headers_are_judged_as_without_the_pass_over(monkeypatch, seed):
    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randrange(10, 40)):
        parts.append(rng.choice(PREFIXED_LINES) * rng.choice((1, 2, 3, 4, 5, 6, 9, 30)))
    text = "".join(parts)
    now = _assigned(text)
    monkeypatch.setattr(assignments, "copies_passed", lambda *args: 0, raising=False)
    assert now == _assigned(text)


@pytest.mark.parametrize("copies", [1, 3, 4, 5, 8, 50])
def test_prefixed_headers_then_a_value_keep_it_redacted(copies):
    text = "[rank0]: password: |\n" * copies + "[rank0]:   Zq8Das1x-2\n[rank0]: done\n"
    out = Redactor({}).text(text)
    assert "Zq8Das1x-2" not in out and out.count("[rank0]: password: |\n") == copies
