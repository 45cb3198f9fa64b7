"""Dumps of binary data are kept; dumps of a secret by its shape still go (CI failure of the full-disk test).

A dump is decoded byte for byte and its text is read for secret shapes. Random bytes hold `pW=`, `Pw:` or
`x:y@` now and then (about 1 line in 35,000 of `offset hex` lines), and the bytes after them were hidden as a
password. A shape found in decoded bytes now counts only where its value reads as text: valid UTF-8, no control
characters. (hexdump -C's character column is text and is read as text: random bytes that show there as
`pw.ci.:5Nl..K` still lose what follows the colon, about 1 line in 40,000; the tests compare its hex cells.)
The dumps below are built in Python in the layouts of `xxd -p`, `od -An -tx1` and `hexdump -C`, so the
test needs none of those tools."""

from __future__ import annotations

import random

import pytest

from dump_layouts import hexdump_canonical, od_bytes, xxd_plain

from aiperf_lab.triage.redact import Redactor

# Lines of random bytes that were changed, found by redacting 208,000 such lines
SEEN_CHANGED = [
    "002778 a291976362064938ed46075572ed9f21deb7818eb0db1ca9aab7b03c1dab43d1c62b43856fe4be1e7f4070573d8e678f",
    "000387 32337ad149c43433063093c001437b23231d3c493a23536e9a90af9b955bef9cfd0ecd467640582febca13f67177c156",
    "003891 4070573a75f3b2921b979fbdfcae23aa56cb4a5d160ce3064c7ca6f174574b0512983addfe7bf1149e0c1a305ac03bfc",
    "003850 de5ad57e474a6e87fe371d7dc0df698b70773dc38b5cbc29eab7b91d62e887e93807477d24ff698d67c9609937011afd",
    "001050 773a85ab861175ddea739f9fc9e4438594ffc1e4299d321172774529701f1fda2931093923c3132eb6ed0f3bfcb65f68",
    "001253 7785a7bff5527e6238055cc003dc5e7b7d50773d76cdcbfb7d4867599f3dfca03abc11e36481f674bad4af3ccc9cfb8d",
]


def offset_hex(rng: random.Random, lines: int) -> str:
    return "".join(f"{i:06d} {rng.randbytes(48).hex()}\n" for i in range(lines))


LAYOUTS = {"xxd -p": xxd_plain, "od -An -tx1": od_bytes, "hexdump -C": hexdump_canonical}


@pytest.mark.parametrize("line", SEEN_CHANGED)
def test_a_line_of_random_bytes_that_held_a_secret_shape_is_kept(line):
    text = "".join(f"{i:06d} {random.Random(i).randbytes(48).hex()}\n" for i in range(3)) + line + "\n"
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("layout", ["offset hex", *LAYOUTS])
def test_dumps_of_random_bytes_are_kept_whole(layout):
    rng = random.Random(20261124)
    if layout == "offset hex":
        text = offset_hex(rng, 40_000)
    else:
        text = LAYOUTS[layout](rng.randbytes(640_000))
    out = Redactor({}).text(text)
    changed = [line for line, kept in zip(text.splitlines(), out.splitlines())
               if hex_cells(line, layout) != hex_cells(kept, layout)]
    assert changed == [] and out.count("\n") == text.count("\n")


SECRETS_BY_SHAPE = [
    ("DB_PASSWORD=Hunter2Xyz9\n", "Hunter2Xyz9"),
    ("export API_TOKEN=ghx9Kq2LmZp4Rt7Vw\n", "ghx9Kq2LmZp4Rt7Vw"),
    ("postgres://app:S3cr3tPw@db:5432/x\n", "S3cr3tPw"),
    ("password: Grüße-Straße-42\n", "Grüße-Straße-42"),
    ("password=Пароль-д-р-42\n", "Пароль-д-р-42"),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("printed, secret", SECRETS_BY_SHAPE, ids=[s for _, s in SECRETS_BY_SHAPE])
def test_a_secret_dumped_is_still_found_by_its_shape(layout, printed, secret):
    dump = LAYOUTS[layout](b"\x00\x01 some header bytes\n" + printed.encode())
    out = Redactor({}).text(dump)
    assert out != dump
    digits = "".join(hex_cells(line, layout) for line in out.splitlines())
    assert secret.encode().hex()[:12] not in digits   # the value's first 6 bytes cannot be read back


def hex_cells(line: str, layout: str) -> str:
    """A dump line's hex digits alone (hexdump -C: without its offset and character column)."""
    if layout == "hexdump -C":
        line = line[10:58]
    elif layout == "offset hex":
        line = line[7:]
    return line.replace(" ", "")
