"""Dumps of a known secret in the layouts tools really print (issue 11, red team rt4 F7): separated hex wrapped over
lines, `od -An -tx1` with tabs or wider gaps, bare hex lines longer than 32 bytes (`xxd -p -c 40`, `basenc --base16`),
`hexdump -x` (4-space gaps), pasted `od`/`xxd -p` lines, and the octal, decimal, little-endian and binary dumps
(`od -b`, `od -td1`, `od -tu1`, `od -An -tx2`, `xxd -e`, `xxd -g 8`, `xxd -b`). tests/data/dump_forms.json holds each
tool's real output (the command is the key) for the secret at two offsets. A layout passes when no 6 consecutive
bytes of the secret can be read back from what redaction leaves, in any column, and a stream printing the dump line
by line gives the same bytes as Redactor.text on the whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

FORMS = json.loads((Path(__file__).parent / "data" / "dump_forms.json").read_text())
SECRET = FORMS["secret"]
OCTAL = ("od -b", "od -to1", "hexdump -b")
DECIMAL = ("od -td1", "od -tu1", "od -An -tu1", "od -An -td1", "od -An -tu1 -w8")
OFFSET = re.compile(r"(?m)^[0-9a-fA-F]{7,8}(?::|(?= )|$)")


def _numbers(out: str, pattern: str, base: int) -> bytes:
    cells = re.findall(pattern, OFFSET.sub("", out))
    return bytes(int(cell, base) & 255 for cell in cells)


def readable(out: str, command: str) -> list[bytes]:
    """The 6-byte pieces of the secret that can still be read from a dump: from its numbers (hex at either digit
    alignment, also as 2- and 4-byte little-endian words; octal, decimal or binary cells) or its character column."""
    if command in OCTAL:
        seen = [_numbers(out, r"(?<![\w\[])[0-7]{3}(?![\w\]])", 8)]
    elif command in DECIMAL:
        seen = [_numbers(out, r"(?<![\w\[])-?[0-9]{1,3}(?![\w\]])", 10)]
    elif command.startswith("xxd -b"):
        seen = [_numbers(out, r"(?<![\w\[])[01]{8}(?![\w\]])", 2)]
    else:
        lines = OFFSET.sub("", out).splitlines()
        if command.startswith("xxd") and not command.startswith(("xxd -p", "xxd -i")):   # the character column
            lines = [line.rsplit("  ", 1)[0] for line in lines]
        digits = re.sub(r"0x|[^0-9a-fA-F]", "", "".join(lines))
        seen = []
        for shift in (0, 1):
            data = bytes.fromhex(digits[shift:len(digits) - (len(digits) - shift) % 2])
            seen += [data, b"".join(data[k:k + 2][::-1] for k in range(0, len(data), 2)),
                     b"".join(data[k:k + 4][::-1] for k in range(0, len(data), 4))]
    flat = re.sub(r"[\s.|<>]", "", OFFSET.sub("", out)).encode("latin-1")
    secret = SECRET.encode()
    return [secret[k:k + 6] for k in range(len(secret) - 5) if any(secret[k:k + 6] in data for data in (*seen, flat))]


def _line_by_line(text: str) -> str:
    stream = StreamRedactor(Redactor({"HF_TOKEN": SECRET}))
    return "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()


def _cases(group: str) -> list[str]:
    return [key for key in FORMS["outputs"] if key.split(" | pre")[0] in FORMS[group]]


def test_the_checker_reads_every_unredacted_layout():
    for key, dump in FORMS["outputs"].items():
        if key.split(" | pre")[0] in FORMS["prefixed"]:
            continue   # (read by tests/test_redaction_prefixed_dumps.py, which knows their character columns)
        assert len(readable(dump, key.split(" | pre")[0])) == len(SECRET) - 5, key


@pytest.mark.parametrize("key", _cases("promised") + _cases("seen") + _cases("bare_decimal"))
def test_a_known_secret_dumped_in_a_tools_layout_goes(key):
    command = key.split(" | pre")[0]
    text = "step 1 loss 2.31\n" + FORMS["outputs"][key] + "step 2 loss 2.29\n"
    out = Redactor({"HF_TOKEN": SECRET}).text(text)
    assert readable(out, command) == [], out
    assert out.startswith("step 1 loss 2.31\n") and out.endswith("step 2 loss 2.29\n") and REDACTED in out
    assert _line_by_line(text) == out


def test_separated_hex_of_ordinary_bytes_over_lines_stays():
    data = b"model.safetensors: shard 3 of 8, sha256 verified, 1024 tensors\n"
    for separator in (":", "-"):
        text = "".join(separator.join(f"{b:02x}" for b in data[k:k + 16]) + "\n" for k in range(0, len(data), 16))
        assert Redactor({"HF_TOKEN": SECRET}).text(text) == text
    lines = ["12:30:45", "aa:bb:cc:dd:ee:ff", "2026-11-23", "\t10\t20\t30\t40\t50", " 120 104 102  95"]
    text = "\n".join(lines) + "\n"
    assert Redactor({"HF_TOKEN": SECRET}).text(text) == text


def test_decimal_numbers_in_columns_that_are_no_od_dump_stay():
    """`od -An -tu1` lines are cells 4 wide (5 signed): numbers spaced otherwise, or a short line alone, are no dump;
    ordinary numbers in those widths are read as one and hold nothing secret: all stay."""
    environ = {"HF_TOKEN": SECRET}
    data = SECRET.encode()
    for text in [" ".join(str(b) for b in data) + "\n",                       # one space apart: a list, not od
                 "".join(f"{b:6d}" for b in data[:16]) + "\n",                # 6 wide
                 "step 12\n 104 102  95\n",                                   # a short line after a number
                 "  12  34  56  78  90 100\n   1   2   3   4   5   6   7\n"]:   # ordinary numbers in od's widths
        assert Redactor(environ).text(text) == text, text
