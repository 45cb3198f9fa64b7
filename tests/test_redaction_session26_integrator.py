"""Issue 11, session 26 (integrator): printed_rows.env_continuation_spans (h26a's multi-line env values) looked for the
ends of a match's line at every match: on one long line of `DB_PASSWORD="a\\"` pieces (benchmarks/redaction_speed.py's
`tool form: shell quotes`) that is n^2 in the line (1 MB: 0.31 -> 1.57 s/MB through the stream, this VM). Now each
line's ends are searched for once; the spans are main's (a copy of its loop below) on random texts."""

from __future__ import annotations

import random

import pytest

from aiperf_lab.triage.redaction import printed_rows
from aiperf_lab.triage.redaction.printed_rows import ENV_CONTINUATION, ENV_LINE, ENV_SECRET_WORD, MOST_CONTINUED, _view
from aiperf_lab.triage.redaction.spans import REDACTED


class CountedText(str):
    """A text that counts its searches for a line's ends."""
    searches = 0

    def find(self, *args):  # type: ignore[override]
        CountedText.searches += 1
        return str.find(self, *args)

    def rfind(self, *args):  # type: ignore[override]
        CountedText.searches += 1
        return str.rfind(self, *args)


@pytest.mark.parametrize("unit", ['DB_PASSWORD="a\\"', "DB_PASSWORD=$'\\", "API_TOKEN=x "])
@pytest.mark.parametrize("lines", [1, 20])
def test_each_lines_ends_are_searched_for_once(unit, lines):
    text = CountedText(("".join([unit] * 2000) + "\n") * lines)
    CountedText.searches = 0
    printed_rows.env_continuation_spans(text)
    assert CountedText.searches <= 10 * lines, CountedText.searches   # (main's: 2 a match, 4,000 a line)


def _main_env_continuation_spans(text: str) -> list:
    """e19ce8c's loop after h26a (the reference: same spans)."""
    spans = []
    read_to = -1
    for m in ENV_SECRET_WORD.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        if start <= read_to or end < 0:
            continue
        read_to = start
        if not printed_rows._env_secret_line(_view(text, start, end)):
            continue
        rest = []
        at = end + 1
        for _ in range(MOST_CONTINUED + 1):
            if at >= len(text):
                rest = []
                break
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            view = _view(text, at, line_end)
            if ENV_LINE.match(view) is not None:
                break
            if ENV_CONTINUATION.fullmatch(view) is None:
                rest = []
                break
            rest.append((at, line_end, view))
            at = line_end + 1
        else:
            rest = []
        for line_start, line_end, view in rest:
            where = text.find(view, line_start, line_end)
            first, last = (where, where + len(view)) if where >= 0 else (line_start, line_end)
            spans.append((first, last, REDACTED, "secret-named value", start))
        read_to = max(read_to, at - 1)
    return spans


PIECES = ["DB_PASSWORD=", "API_TOKEN=abc", "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCD", "PASS=1", "USER=root",
          "Zq8Wm3Kx7Lp2", "Qw9Er8Ty7Ui6", "# c", "----", "\n", "\n", "\n", " ", "[rank0]: ", '{"message": "', '"}', "x",
          "LANG=C.UTF-8", "WANDB_API_KEY=partone", "parttwoZq8Wm3", 'DB_PASSWORD="a\\"', "SECRET_KEY=s3cr3tv4lue", "ok",
          "2026-11-25T10:00:00Z ", "a" * 600, "\r\n"]


def test_the_spans_are_mains_on_random_texts():
    rng = random.Random(2611)
    found = 0
    for _ in range(4000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))
        spans = printed_rows.env_continuation_spans(text)
        assert spans == _main_env_continuation_spans(text), text
        found += bool(spans)
    assert found > 100   # (the texts reach the rule: values' rests are found in 151 of them)


def test_long_lines_are_not_kept_in_the_line_caches():
    printed_rows._line_view.cache_clear()
    printed_rows._env_secret_line_cached.cache_clear()
    spans = printed_rows.env_continuation_spans("DB_PASSWORD=" + "x" * 5000 + "\nZq8Wm3Kx7Lp2\nUSER=root\n")
    assert len(spans) == 1   # (the long line's value still continues on the next line)
    assert printed_rows._env_secret_line_cached.cache_info().currsize == 0
    assert printed_rows._line_view.cache_info().currsize == 2   # (the two short lines' views only)
