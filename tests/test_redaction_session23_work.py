"""Issue 11, redaction speed on adversarial text (h23q). Each test counts the work a rule does on a long text (scans
asked for, bytes copied) against a bound that does not grow with the text; the guards show on random texts that the
work left out could not have found anything. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h23q).

- printed_commands.printed_command_spans tries UNIX_LINE at every line break; every UNIX_TOOL form has a blank (a space
  or a tab) after its tool's name or its echo, so a text with neither (`empty lines`: "\\n" repeated, `rt many_short_lines`:
  "x\\n" repeated) is not scanned (main: a try a line, half of what `empty lines` cost).
- dumps._may_hold_dump: every dump hint holds a hex digit; a text with none is not scanned by the hints led by "\\n"
  (main: 8 scans, each a try at every line break).
- known_secrets._following passes over a run of empty lines by a search (main copied the text's rest at each cut:
  `text[at:].lstrip("\\r\\n")`).
- line_views.line_view_windows asks its prefix hints as spans.has does (a hint with a character the text lacks is not
  searched for; main searched the text for each of 17 hints), and passes over a run of copies of a marked line in
  blocks doubled (line_index.copies_end); line_index.window_edits finds the candidates that extend a window in C
  (_windows), and _pod_views knows a window of one line's copies as one source in C: main took a Python step a copy
  in each (20,000 copies of `[rank0]: password: |`: 280,331 Python lines, here 465)."""

from __future__ import annotations

import bisect
import random
import re
import tracemalloc

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import dumps, known_secrets, line_index, line_views, printed_commands


def _stream(redactor: Redactor, text: str, piece: int = 1 << 16) -> str:
    sink = StreamRedactor(redactor)
    out = [sink.feed(text[at:at + piece]) for at in range(0, len(text), piece)]
    out.append(sink.close())
    return "".join(out)


# ---- printed commands: no line-led scan where no line can hold a tool and a blank

@pytest.mark.parametrize("text", ["\n" * 200_000, "x\n" * 100_000, "head\n" + "\r\n" * 50_000, "step=1,loss=2\n" * 20_000,
                                  "+mysql\n" * 20_000],
                         ids=["newlines", "short-lines", "crlf", "no-blank-lines", "tool-without-blank"])
def test_printed_commands_do_not_scan_lines_without_a_blank(monkeypatch, text):
    line = Counted(printed_commands.UNIX_LINE, "finditer")
    first = Counted(printed_commands.UNIX_FIRST_LINE, "match")
    monkeypatch.setattr(printed_commands, "UNIX_LINE", line)
    monkeypatch.setattr(printed_commands, "UNIX_FIRST_LINE", first)
    assert printed_commands.printed_command_spans(text, text.lower()) == []
    assert line.calls + first.calls == 0   # (main: 2, UNIX_LINE's a try at every line break)


@pytest.mark.parametrize("seed", range(10))
def test_no_unix_line_matches_without_a_blank(seed):
    # (the gate's ground: random texts of tool names, prefixes, quotes, prompts and breaks, with no space or tab)
    rng = random.Random(seed)
    pieces = ["\n", "\r\n", "mysql", "sshpass", "echo", "printf", "|chpasswd", "[rank0]:", "$", "+", "'", '"', "-p", "x",
              "2026-11-24t00:01:02z", "(", "{", "net", "user", "zip", "-P", "htpasswd", "\x0b", "\x0c", "\xa0", "\u3000"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40))).lower()
        assert " " not in text and "\t" not in text
        assert printed_commands.UNIX_FIRST_LINE.match(text) is None, text
        assert list(printed_commands.UNIX_LINE.finditer(text)) == [], text


@pytest.mark.parametrize("text", ["+ mysql\t-uroot\t-pS3cr3tPa55\n", "x\n+ sshpass\t-p\tS3cr3t!x\tssh\th\n",
                                  "echo\tbob:S3cr3tPa55w0rd|chpasswd\n", "x\nmysql\t-uroot\t-pS3cr3tPa55\n"],
                         ids=["traced-tabs", "sshpass-tabs", "echo-tab", "bare-tabs"])
def test_command_lines_with_tabs_only_still_redacted(text):
    redactor = Redactor({})
    for out in (redactor.text(text), _stream(Redactor({}), text, 7)):
        assert "S3cr3t" not in out


# ---- dumps: no "\n"-led hint scan where the text holds no hex digit

@pytest.mark.parametrize("text", ["\n" * 200_000, "x\n" * 100_000, "yo no why\n" * 20_000, "[rnk_x]: zzz\n" * 10_000],
                         ids=["newlines", "short-lines", "words", "prefixed"])
def test_dump_hints_not_scanned_without_a_hex_digit(monkeypatch, text):
    hints = tuple(Counted(hint, "search") for hint in dumps.DUMP_HINTS)
    bare, decimal = Counted(dumps.BARE_HINT, "search"), Counted(dumps.BARE_DECIMAL_HINT, "search")
    monkeypatch.setattr(dumps, "DUMP_HINTS", hints)
    monkeypatch.setattr(dumps, "BARE_HINT", bare)
    monkeypatch.setattr(dumps, "BARE_DECIMAL_HINT", decimal)
    assert dumps._may_hold_dump(text) is False
    assert sum(hint.calls for hint in hints) + bare.calls + decimal.calls == 0   # (main: 7 scans)


@pytest.mark.parametrize("seed", range(10))
def test_no_dump_hint_without_a_hex_digit(seed):
    rng = random.Random(seed)
    pieces = ["\n", " ", "\t", ":", "-", ",", "[", "]", "x", "0x"[1:], "|", "  ", "\r\n", "g", "z", "\u0660", "\uff10"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60)))
        assert re.search(r"[0-9a-fA-F]", text) is None
        assert not any(hint.search(text) or hint.search("\n" + text) for hint in (
            *dumps.DUMP_HINTS, dumps.BARE_HINT, dumps.BARE_DECIMAL_HINT)), text
        assert dumps.DUMP_HINT_START.match(text) is None


def test_dumps_still_found_where_a_hex_digit_is():
    secret = "S3cr3tP@ssw0rd!xyz"
    dump = "".join(f"{i * 16:08x}  " + " ".join(f"{b:02x}" for b in chunk) + "\n"
                   for i, chunk in enumerate([secret.encode()[k:k + 16] for k in range(0, len(secret), 16)]))
    redactor = Redactor({"DB_PASSWORD": secret})
    assert redactor.text("\n" * 5000 + dump) != "\n" * 5000 + dump


# ---- known_secrets._following: no copy of the text's rest at a cut before empty lines

@pytest.mark.parametrize("text", ["head\n" + "\n" * 2_000_000 + "abcdef\n", "head\n" + "\n" * 2_000_000,
                                  "head\n\n" + "abcdef\n" * 300_000],
                         ids=["newlines-then-a-line", "newlines-to-the-end", "one-empty-line-then-lines"])
def test_following_copies_nothing_of_the_texts_rest(text):
    known_secrets._following(text, 5)   # (patterns compiled, caches warm)
    tracemalloc.start()
    try:
        got = known_secrets._following(text, 5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got in ("abc", None)
    assert peak < 100_000   # (main: the text's rest copied, 2,000,000 bytes and more)


@pytest.mark.parametrize("seed", range(10))
def test_following_at_every_cut_of_random_texts_is_unchanged(seed):
    def former(text: str, end: int) -> str | None:   # (the line-at-a-time reading that h22p's code replaced)
        got, at = "", end
        while len(got) < known_secrets.GOES_ON:
            newline = text.find("\n", at)
            if newline < 0:
                return None
            got += text[known_secrets._after_prefix(text, at):newline].rstrip("\r")
            at = newline + 1
        return got[:known_secrets.GOES_ON]

    rng = random.Random(seed)
    pieces = ["\n", "\r\n", "\r", "\n\n\n", "\r\r\n", "[rank0]: ", "ab", "x", " ", "0: ", "\n\r"]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        for end in range(len(text) + 1):
            assert known_secrets._following(text, end) == former(text, end), (text, end)


# ---- line_views.line_view_windows: the prefix hints asked by has

class _CountedScans(str):
    """A str that counts the substring scans made on it (`x in text` with x longer than one character)."""
    scans = 0

    def __contains__(self, item):
        if len(item) > 1:
            type(self).scans += 1
        return str.__contains__(self, item)


def test_line_view_windows_does_not_scan_for_hints_whose_characters_are_missing():
    text = _CountedScans("x y z\n" * 5_000)   # (no ":", "]", "|", "=", capitals or digits: no hint can be in it)
    _CountedScans.scans = 0
    assert line_views.line_view_windows(text, text.lower()) == []
    assert _CountedScans.scans == 0   # (main: 17, the text searched for each hint)


@pytest.mark.parametrize("text", ["[rank0]: password: |\n  Zq8Das1x\n" * 400, "[rank0]: ? password\n[rank0]: : Zq8Das1x\n" * 400,
                                  "app-1  | password = <<EOT\napp-1  | Pa55w0rd-2\napp-1  | EOT\n" * 300],
                         ids=["rank-block", "rank-key", "compose"])
def test_line_views_still_read_prefixed_forms(text):
    redactor = Redactor({})
    for out in (redactor.text(text), _stream(Redactor({}), text, 4096)):
        assert "Zq8Das1x" not in out and "Pa55w0rd-2" not in out


# ---- line views: a marked line and its copies (each a candidate, or none) cost no Python step a copy

@pytest.mark.parametrize("unit", ['"password": "ab1\n', "[rank0]: password: |\n", "[rank0]: x?\n", "app-1  | ? password\n"],
                         ids=["quoted-no-edits", "rank-block-opener", "rank-mark", "compose-key"])
def test_line_view_windows_over_copies_run_few_python_lines(unit):
    text = unit * 20_000
    line_views.line_view_windows(text, text.lower())   # (LINE_EDITS knows the line now, as in a stream's later reads)
    _, lines = python_lines_run(line_views.line_view_windows, text, text.lower())
    assert lines <= 2_000   # (main: 40,280 for the quoted line, about 280,000 for the prefixed ones)


def _former_windows(candidates, starts, count, size, before, after):
    windows = []
    for line_start in candidates:
        j = bisect.bisect_left(starts, line_start)
        last = j + after + 1
        end = starts[last] if last < count else size
        if windows and line_start < windows[-1][2]:
            windows[-1][1:] = [last, end]
        else:
            first = max(0, j - before)
            if windows and starts[first] <= windows[-1][2]:
                first = windows.pop()[0]
            windows.append([first, last, end])
    return windows


@pytest.mark.parametrize("seed", range(10))
def test_window_edits_windows_are_what_they_were(seed):
    # (window_edits on random stretches and candidates, its windows made by the former loop: the same edits)
    rng = random.Random(seed)
    for _ in range(200):
        lines = [rng.choice(["[rank0]: a", "[rank1]: b?", "", "x", "[rank0]: password: |", "  Zq8Das1x", "app-1  | y"])
                 for _ in range(rng.randrange(1, 300))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        chosen = sorted(set(rng.sample(starts, rng.randrange(1, len(starts) + 1))))
        if rng.random() < 0.5:   # (a run of consecutive lines, as copies give)
            k = rng.randrange(len(starts))
            chosen = starts[k:k + rng.randrange(1, 200)]
        before, after = rng.choice([(4, 64), (1, 2), (0, 0)])
        edits_of = lambda at, end: line_views._line_edits_in(text, at, end)   # noqa: E731
        got = line_index.window_edits(text, chosen, before, after, {}, edits_of, line_views.SHARED_PREFIX.match,
                                      lambda start, end, lines: [])
        saved = getattr(line_index, "_windows", None)
        if saved is None:
            continue   # (main: window_edits makes its windows by the former loop itself)
        try:
            line_index._windows = _former_windows
            expected = line_index.window_edits(text, chosen, before, after, {}, edits_of, line_views.SHARED_PREFIX.match,
                                               lambda start, end, lines: [])
        finally:
            line_index._windows = saved
        assert got == expected


@pytest.mark.parametrize("unit", ["[rank0]: password: |\n[rank0]:   Zq8Das1x\n", "[rank0]: ? password\n[rank1]: x\n"
                                  "[rank0]: : Zq8Das1x\n", "app-1  | api_tokens: &t\napp-1  |   - Zq8Das1x\n"],
                         ids=["rank-block", "ranks-interleaved", "compose-anchor"])
def test_prefixed_copies_still_redacted(unit):
    text = unit * 3_000
    for out in (Redactor({}).text(text), _stream(Redactor({}), text)):
        assert "Zq8Das1x" not in out
