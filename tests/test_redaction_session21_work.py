"""Issue 11, redaction speed on adversarial text (h21p): line_view_windows' windows are made from the lines of the text's
stretch found by index in C (line_index: one split, sums of lengths), and each window's edits gathered in C where
LINE_EDITS knows the line; a window's plain lines that no neighbour can give a prefix (line_index.ALONE) are passed over
by a look-up. Each test counts the work on a prefixed text against a bound that does not grow with the text; the guards
compare the windows with those of the former code (copied here) on random texts of prefixed, quoted, plain and repeated
lines. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h21p)."""

from __future__ import annotations

import random

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import line_views
from aiperf_lab.triage.redaction.line_views import AFTER_LINES, BEFORE_LINES, _line_edits_in

# a marked line (`#`: a gate character) every 60 lines, the others behind the same prefix with no mark: every line is
# in a window, and a window's lines but its marked one were each read by a call a line
STEPS = [f"[rank0]: step {k} loss 2.38 lr 3.0e-04 grad_norm 0.84\n" for k in range(5)]
PREFIXED = ("[rank0]: # epoch 3\n" + "".join(STEPS[k % 5] for k in range(59))) * 34   # (2,040 lines)




def test_a_windows_lines_known_by_the_line_are_not_read_again(monkeypatch):
    line_views.line_view_windows(PREFIXED, PREFIXED.lower())   # (LINE_EDITS knows the lines after one reading)
    expected = _former_line_view_windows(PREFIXED, PREFIXED.lower())
    counted = Counted(_line_edits_in)
    monkeypatch.setattr(line_views, "_line_edits_in", counted)
    windows = line_views.line_view_windows(PREFIXED, PREFIXED.lower())
    assert windows == expected and len(windows) == 1 and len(windows[0][2]) == 2040
    assert counted.calls <= 100   # (main: 2,040, a call a line; here one a marked line: 34)


def test_a_prefixed_texts_windows_run_no_python_per_line(monkeypatch):
    line_views.line_view_windows(PREFIXED, PREFIXED.lower())
    # (the views per source, h21c's, read a window's prefixes a line; one prefix here, so none: left out of the count)
    monkeypatch.setattr(line_views, "_pod_views", lambda *args: [], raising=False)
    windows, lines = python_lines_run(line_views.line_view_windows, PREFIXED, PREFIXED.lower())
    assert len(windows) == 1 and len(windows[0][2]) == 2040
    assert lines <= 2000   # (main: 51,844: a find, a look-up and a list made a window's line; here 1,370)


def test_a_windows_plain_lines_are_passed_over_by_a_look_up(monkeypatch):
    # marked prefixed lines far apart, plain lines (no prefix) between them: each window's plain lines have no edits
    text = ("[rank0]: # epoch 3\n" + "".join(f"plain line {k % 3} of the run\n" for k in range(99))) * 20
    line_views.line_view_windows(text, text.lower())
    expected = _former_line_view_windows(text, text.lower())
    counted = Counted(_line_edits_in)
    monkeypatch.setattr(line_views, "_line_edits_in", counted)
    assert line_views.line_view_windows(text, text.lower()) == expected != []
    assert counted.calls <= 60   # (main: 1,376, a call a window's line; here 23)


@pytest.mark.parametrize("text, most", [
    ("[rank0]: password: |\n" * 2000, 10),   # a marked line with edits, repeated: its copies are candidates at once
    ("tokens: &t\n  - Zq8Das1xPa55w0rdQm7v\n  - <pad>\nspecial_tokens:\n  - </s>\n" * 400, 10),   # plain marked lines
])
def test_marked_lines_known_by_the_line_are_not_read_again(monkeypatch, text, most):
    line_views.line_view_windows(text, text.lower())
    expected = _former_line_view_windows(text, text.lower())
    counted = Counted(_line_edits_in)
    monkeypatch.setattr(line_views, "_line_edits_in", counted)
    assert line_views.line_view_windows(text, text.lower()) == expected
    assert counted.calls <= most   # (main: 2,000 and 1,200, a call a marked line)


def test_a_launchers_prefix_is_still_read_from_its_neighbour():
    # stern's `pod container ` prefix is read only where a neighbouring line has it too: such a line is never ALONE
    text = "trainer-0 main # set\ntrainer-0 main password: |\ntrainer-0 main   Zq8Das1xPa55\n" * 3
    windows = line_views.line_view_windows(text, text.lower())
    assert windows == _former_line_view_windows(text, text.lower()) != []
    out = Redactor({}).text(text)
    assert "Zq8Das1xPa55" not in out and out.count("trainer-0 main ") == 9


@pytest.mark.parametrize("text", [
    "[rank0]: ? password\n[rank0]: : Zq8Das1x\n[rank0]: password: # the db\n[rank0]:   Pa55w0rd-2\n" * 50,
    "[rank0]: password: |\n[rank0]:   Zq8Das1x\n" * 200,
    "2026-11-24T00:01:02.123456Z 127.0.0.1:6379> AUTH default Zq8Das1x\n" * 100,
])
def test_prefixed_secrets_are_redacted_when_repeated(text):
    out = Redactor({}).text(text)
    assert "Zq8Das1x" not in out and "Pa55w0rd-2" not in out


# ---- guards: the windows are those of the former code ----------------------------------------------------------------

PREFIXES = ["[rank0]: ", "INFO:root:", "2026-11-24T00:01:02Z ", "app-1  | ", "pod/trainer-0 ", "trainer-0 main ", "", "",
            "E       ", "0: ", "node1: "]
BODIES = ["password: x", "? a", "# c", '"quo\\"ted\\n"', '{"msg": "x\\u0041", "a": 1}', "plain words", "", "secret: |",
          "  - Zq8", "<value>x</value>", "'repr\\x41'", "x" * 600, "[rank0]: " + "y" * 530 + " #", "auth default x",
          "eyJabc.def", "op://v/i", '{ "k": 1}', "  {", "a & b", "\\\\srv"]


def _random_text(rng: random.Random) -> str:
    lines: list[str] = []
    repeats = rng.random() < 0.3
    for _ in range(rng.choice([1, 2, 5, 30, 80, 200, 400])):
        if repeats and lines and rng.random() < 0.6:
            lines.append(lines[-1])
            continue
        lines.append(rng.choice(PREFIXES) + rng.choice(BODIES) + ("\r" if rng.random() < 0.05 else ""))
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")


@pytest.mark.parametrize("seed", range(40))
def test_the_windows_are_those_of_the_former_code(seed):
    rng = random.Random(seed)
    for _ in range(40):
        text = _random_text(rng)
        if rng.random() < 0.3:
            line_views.LINE_EDITS.clear()
        assert line_views.line_view_windows(text, text.lower()) == _former_line_view_windows(text, text.lower()), text


def _former_line_view_windows(text: str, lower: str):
    """line_view_windows as it was before h21p (the windows made and read a line at a time; h21c's views per source)."""
    prefixed = any(hint in text for hint in line_views.PREFIX_HINTS) or line_views._shared_prefix_hint(text)
    quoted = any(hint in text for hint in line_views.QUOTE_HINTS)
    if not (prefixed or quoted):
        return []
    found = [c for c in line_views.GATE_CHARACTERS if c in text] + [w for w in line_views.GATE_WORDS
                                                                    if line_views.has(lower, w)]
    if line_views.has(text, "eyJ"):
        found.append("eyj")
    if not found:
        return []
    read: dict[int, list] = {}
    candidates: list[int] = []
    marks = line_views._marks(tuple(found))
    m = marks.search(lower)
    while m is not None:
        at = m.start()
        line_start = text.rfind("\n", 0, at) + 1
        if m.group() == "{" and not text[line_start:at].strip(" \t"):
            m = marks.search(lower, at + 1)
            continue
        newline = text.find("\n", at)
        if line_start not in read:
            edits = read[line_start] = _line_edits_in(text, line_start, newline if newline >= 0 else len(text))
            if edits:
                candidates.append(line_start)
            elif newline >= 0 and text.startswith(line := text[line_start:newline + 1], newline + 1):
                after, folded = newline + 1, lower[line_start:newline + 1]
                while text.startswith(line, after) and lower.startswith(folded, after):
                    after += len(line)
                m = marks.search(lower, after)
                continue
        if newline < 0:
            break
        m = marks.search(lower, newline + 1)
    if not candidates:
        return []
    windows: list[list[int]] = []
    for line_start in candidates:
        if windows and line_start < windows[-1][1]:
            end = windows[-1][1]
            lines = text.count("\n", windows[-1][2], line_start)
            windows[-1][2] = line_start
        else:
            start = line_start
            for _ in range(BEFORE_LINES):
                if start == 0:
                    break
                start = text.rfind("\n", 0, start - 1) + 1
            if windows and start <= windows[-1][1]:
                start = windows[-1][0]
                windows.pop()
            end = line_start
            lines = AFTER_LINES + 1
            windows.append([start, end, line_start])
        for _ in range(lines):
            newline = text.find("\n", end)
            if newline < 0:
                end = len(text)
                break
            end = newline + 1
        windows[-1][1] = end
    out = []
    for start, end, _ in windows:
        edits: list = []
        lines: list = []
        at = start
        while at < end:
            newline = text.find("\n", at, end)
            line_end = end if newline < 0 else newline
            line = read.get(at)
            if line is None:
                line = _line_edits_in(text, at, line_end)
            lines.append((at, line_end, line))
            if line:
                shift = at - start
                edits += [(a + shift, b + shift, r) for a, b, r in line]
            at = line_end + 1
        if edits:
            views = line_views._pod_views(text, start, end, lines, read) if len(lines) > 2 else []
            out += views or [(start, end, edits)]
    return out
