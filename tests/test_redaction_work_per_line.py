"""Issue 11, redaction speed on adversarial text (h18p): what a rule works out for a line that the line's own text
decides (a traced command's way of reading stdin, where a dump line shows a byte) is worked out once per distinct
line. Each test counts calls on a repeated form against a bound that does not grow with the text; the guards check
that the verdicts are those of before. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h18p),
not here."""

from __future__ import annotations

import random

import pytest

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import dumps, printed_commands

SECRET = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"


class _Counted:
    """Stands in for a compiled pattern or a function and counts the calls made on it."""

    def __init__(self, target, method=None):
        self.target, self.method, self.calls = target, method, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.target(*args, **kwargs)

    def __getattr__(self, name):
        attribute = getattr(self.target, name)
        if name != self.method:
            return attribute

        def counted(*args, **kwargs):
            self.calls += 1
            return attribute(*args, **kwargs)
        return counted


def test_traced_stdin_readers_are_read_once_a_distinct_line(monkeypatch):
    # `+ htpasswd -b /etc/x bob X` repeated: each line holds `passwd` (a stdin reader's word), so each was split into
    # shell words to learn whether it reads a password on stdin; the line alone decides that
    text = "+ htpasswd -b /etc/x bob A9RelOxOPbbNcRV7\n" * 2000
    marks = [m for m in printed_commands.TRACE_MARK.finditer(text)]
    expected = printed_commands._traced_pipe_spans(text, text.lower(), marks)
    counted = _Counted(printed_commands._shell_words)
    monkeypatch.setattr(printed_commands, "_shell_words", counted)
    for cached in ("_stdin_reading", "_line_secret_spans"):
        if hasattr(printed_commands, cached):
            getattr(printed_commands, cached).cache_clear()
    assert printed_commands._traced_pipe_spans(text, text.lower(), marks) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("text, gone, kept", [
    ("+ echo Zq8Das1xPa55\n+ docker login -u bob --password-stdin\n", ["Zq8Das1xPa55"], ["bob"]),
    ("+ docker login -u bob --password-stdin\n+ echo Zq8Das1xPa55\n", ["Zq8Das1xPa55"], ["bob"]),
    ("+ echo bob:Zq8Das1xPa55\n+ chpasswd\n", ["Zq8Das1xPa55"], ["bob:"]),
    ("+ echo Zq8Das1xPa55\n+ htpasswd -i /etc/x bob\n", ["Zq8Das1xPa55"], ["/etc/x"]),
    ("+ echo hello-world-x\n+ htpasswd -b /etc/x bob\n", [], ["hello-world-x"]),
    ("+ echo Zq8Das1xPa55\n+ cat -s file\n", [], ["Zq8Das1xPa55"]),
    ("+ echo Zq8Das1xPa55\n+ sort | passwd --stdin bob\n", [], []),
])
def test_traced_pipes_are_judged_as_before_when_repeated(text, gone, kept):
    for copies in (1, 3):
        out = Redactor({}).text(text * copies)
        for word in gone:
            assert word not in out
        for word in kept:
            assert word in out


def _hexdump_line(offset: int, data: bytes) -> str:
    hexes = " ".join(f"{b:02x}" for b in data)
    left, right = hexes[:23], hexes[24:]
    shown = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
    return f"{offset:08x}  {left:<23}  {right:<23}  |{shown}|\n"


def test_a_dump_of_a_secret_reads_each_distinct_line_once(monkeypatch):
    # a known secret's bytes dumped again and again (the same lines each time): where a byte shows on a line is read
    # from the line's fields once per distinct line, not once a line
    secret = SECRET.encode()
    text = "".join(f"\t{chr(9).join(f'{b:02x}' for b in secret[:16])}\n" for _ in range(2000))
    redactor = Redactor({"HF_TOKEN": SECRET})
    expected = redactor.text(text)
    counted = _Counted(dumps.DUMP_LINE_FIELDS["bare"], "match")
    monkeypatch.setitem(dumps.DUMP_LINE_FIELDS, "bare", counted)
    assert Redactor({"HF_TOKEN": SECRET}).text(text) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("seed", range(12))
def test_dump_columns_of_repeated_and_changing_lines_are_as_before(seed):
    # hexdump -C lines of a secret with offsets that change and that repeat, bare lines of 1 to 4 bytes after a
    # dump's last line (read by what is before them), ordinary bytes between: each byte of the secret goes in both
    # columns, nothing else does
    rng = random.Random(seed)
    secret = SECRET.encode()
    lines = []
    for _ in range(rng.randrange(20, 60)):
        kind = rng.randrange(5)
        if kind == 0:
            lines += [_hexdump_line(rng.choice((0, 16, 32 * rng.randrange(100))), secret[at:at + 16]) for at in (0, 16)]
        elif kind == 1:
            lines.append(_hexdump_line(16 * rng.randrange(1000), b"\x03\x00>\x00\x01\x00\x00\x00`a\x00\x00\x00\x00\x00\x00"))
        elif kind == 2:
            lines += [" ".join(f"{b:02x}" for b in secret[:20]) + "\n", " ".join(f"{b:02x}" for b in secret[20:]) + "\n"]
        elif kind == 3:
            lines.append("".join(f"{b:02x}" for b in secret) + "\n")
        else:
            lines.append(rng.choice(("step 12 loss 0.5\n", "cafe\n", "12:30:45\n", "00000010  ok\n")))
    text = "".join(lines)
    out = Redactor({"HF_TOKEN": SECRET}).text(text)
    assert "68 66 5f 51 77 33" not in out and "68665f5177" not in out and "|hf_Qw3rTy7uIoPa|" not in out
    assert out.count("\n") == text.count("\n")
    for line in set(lines):
        if "03 00 3e" in line:
            assert line in out
        if line in ("step 12 loss 0.5\n", "cafe\n", "12:30:45\n"):
            assert line in out
