"""Issue 11, redaction speed on adversarial text (h22p). Each test counts the work on a long text against a bound that
does not grow with the text; the guards compare the changed function with its former code (copied here) on random
texts. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h22p).

- known_secrets._following (a stream's hold asks it at every cut: the first characters of the lines after the cut)
  passes over a run of empty lines in C: main read them a line at a time, to the buffer's end where the rest is empty
  (`empty lines`, 20 MB of "\\n": 13 s/MB of CPU on the stream, where plain log text costs 0.3), and over a run of
  copies of a line that is a log prefix alone (`[rank0]: `), which gives nothing either: main read each copy with a
  LOG_PREFIX match (1.2 s/MB at 0.3 MB, growing with the text); also a run of copies of several such lines
  (`[rank0]: ` and `[rank1]: ` in turn, empty lines between)."""

from __future__ import annotations

import random

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import known_secrets
from aiperf_lab.triage.redaction.known_secrets import GOES_ON, _after_prefix


def _former_following(text: str, end: int) -> str | None:
    got = ""
    at = end
    while len(got) < GOES_ON:
        newline = text.find("\n", at)
        if newline < 0:
            return None
        got += text[_after_prefix(text, at):newline].rstrip("\r")
        at = newline + 1
    return got[:GOES_ON]


@pytest.mark.parametrize("text", [
    "head\n" + "\n" * 100_000 + "abcdef\n",
    "head\n" + "\r\n" * 50_000 + "\r\rab\n",
    "head\n" + "\n\r" * 50_000,
    "head\n" + "[rank0]: \n" * 50_000 + "[rank0]: abcdef\n",
    "head\n" + "INFO:root:\r\n" * 30_000 + "\n" * 1_000 + "0: \n" * 20_000,
    "head\n" + "[rank0]: \n" * 50_000,
    "head\n" + "[rank0]: \n[rank1]: \n" * 30_000 + "[rank0]: abcdef\n",
    "head\n" + "\n\n[rank0]: \r\n" * 30_000,
], ids=["newlines", "crlf", "lf-cr", "prefix-lines", "mixed-prefix-lines", "prefix-lines-to-the-end", "ranks-in-turn",
        "empty-and-prefix-lines"])
def test_following_passes_over_empty_lines_in_c(monkeypatch, text):
    expected = _former_following(text, 5)
    counted = Counted(_after_prefix)
    monkeypatch.setattr(known_secrets, "_after_prefix", counted)
    assert known_secrets._following(text, 5) == expected
    assert counted.calls <= 4   # (main: a call an empty line, 50,000 to 100,000)


@pytest.mark.parametrize("line", ["\n", "[rank0]: \n", "INFO:root:\n", "[rank0]: \n[rank1]: \n", "\n\n0: \n"],
                         ids=["empty", "rank-prefix", "logging-prefix", "ranks-in-turn", "empty-and-prefix"])
def test_a_streams_holds_over_empty_lines_run_no_python_per_line(line):
    redactor = Redactor({"DB_PASSWORD": "S3cr3tP@ssw0rd!xyz"})   # (a known secret: its head may be broken over lines)
    text = "x\n" * 3 + line * 60_000
    _, lines = python_lines_run(redactor.head_over_lines, text, 2)
    assert lines <= 400   # (main: 360,000 to 420,000, six or seven a line to the text's end)


@pytest.mark.parametrize("seed", range(20))
def test_following_is_what_it_was(seed):
    rng = random.Random(seed)
    pieces = ["\n", "\r\n", "\r", "", "[rank0]: ", "INFO:root:", "ab", "x", " ", "0: ", "\n\n\n", "\r\r\n"]
    lines = ["\n", "\r\n", "[rank0]: \n", "[rank0]: x\n", "INFO:root:\n", "0: \r\n", "ab\n", "\r\r\n", "[rank0]: "]
    for k in range(300):
        unit = "".join(rng.choice(lines) for _ in range(rng.randrange(1, 4)))   # (1 to 3 lines, repeated)
        text = ("".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30))) if k % 3 == 0 else
                "".join(rng.choice(lines) * rng.choice([1, 1, 2, 3, 7]) for _ in range(rng.randrange(0, 12)))
                if k % 3 == 1 else rng.choice(lines) + unit * rng.randrange(0, 9) + rng.choice(lines + pieces))
        for end in range(len(text) + 1):
            assert known_secrets._following(text, end) == _former_following(text, end), (text, end)


@pytest.mark.parametrize("line", ["\n", "[rank0]: \n"], ids=["empty", "rank-prefix"])
def test_empty_lines_stream_as_text(line):
    redactor = Redactor({"DB_PASSWORD": "S3cr3tP@ssw0rd!xyz"})
    text = "DB_PASSWORD=S3cr3tP@ssw0rd!xyz\n" + line * 70_000 + "S3cr3\ntP@ss\nw0rd!xyz\n" + line * 70_000
    sink = StreamRedactor(redactor)
    out = "".join(sink.feed(text[at:at + (1 << 16)]) for at in range(0, len(text), 1 << 16)) + sink.close()
    assert out == redactor.text(text) and "S3cr3tP@ss" not in out


@pytest.mark.parametrize("most", [16, 1 << 20])
def test_copies_end_finds_the_runs_end(monkeypatch, most):
    monkeypatch.setattr(known_secrets, "COPIES_BLOCK_MOST", most)
    for line in ("\n", "[rank0]: \n", "ab\n"):
        for count in [*range(40), 257, 1000, 4097]:
            for tail in ("", "x", line[:-1], "\r\n"):
                text = "h\n" + line * count + tail
                assert known_secrets._copies_end(text, line, 2) == 2 + len(line) * count
