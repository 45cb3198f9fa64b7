"""Dumps of bytes in the layouts the tools print them, built in Python so the tests need none of the tools:
`xxd -p`, `od -An -tx1` and `hexdump -C`."""

from __future__ import annotations


def xxd_plain(data: bytes) -> str:
    digits = data.hex()
    return "".join(digits[at:at + 60] + "\n" for at in range(0, len(digits), 60))


def od_bytes(data: bytes) -> str:
    return "".join(" " + " ".join(f"{b:02x}" for b in data[at:at + 16]) + "\n" for at in range(0, len(data), 16))


def hexdump_canonical(data: bytes) -> str:
    """`hexdump -C`: offset, 16 bytes in two groups of 8, the character column between bars, the end offset."""
    lines = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        cells = [f"{b:02x}" for b in row] + ["  "] * (16 - len(row))
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{at:08x}  {' '.join(cells[:8])}  {' '.join(cells[8:])}  |{shown}|\n")
    return "".join(lines) + f"{len(data):08x}\n"
