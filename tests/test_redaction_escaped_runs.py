"""A known secret printed with every character escaped (red team pass 3, S5): %XX, &#NN;, \\uXXXX, \\xNN, octal,
0xNN words, UTF-16 read as bytes. Each run of escapes is decoded and searched like any text; the run goes whole.
Ordinary escaped text stays."""

from __future__ import annotations

import html

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

SECRET = "Zk7QmXfipEKASvvf73xrD4hCUa9LmQ2rT"
ENV = {"MY_API_TOKEN": SECRET}

FORMS = {
    "every character %XX": "".join("%%%02X" % ord(c) for c in SECRET),
    "every character %xx": "".join("%%%02x" % ord(c) for c in SECRET),
    "HTML decimal": "".join("&#%d;" % ord(c) for c in SECRET),
    "HTML hex": "".join("&#x%x;" % ord(c) for c in SECRET),
    "JS \\u": "".join("\\u%04x" % ord(c) for c in SECRET),
    "\\x bytes": "".join("\\x%02x" % b for b in SECRET.encode()),
    "octal": "".join("\\%03o" % ord(c) for c in SECRET),
    "0xNN words": " ".join("0x%02X" % b for b in SECRET.encode()),
    "UTF-16LE as bytes": SECRET.encode("utf-16-le").decode("latin-1"),
    "UTF-16BE as bytes": SECRET.encode("utf-16-be").decode("latin-1"),
    # print(token.encode("utf-16-le")), and its bytes URL- or \x-escaped (red team rt4 F6)
    "UTF-16LE as Python prints the bytes": repr(SECRET.encode("utf-16-le"))[2:-1],
    "UTF-16LE bytes %XX": "".join("%%%02X" % b for b in SECRET.encode("utf-16-le")),
    "UTF-16LE bytes \\x": "".join("\\x%02x" % b for b in SECRET.encode("utf-16-le")),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_known_secret_with_every_character_escaped_goes(form):
    line = f"debug: payload={FORMS[form]} done\n"
    out = Redactor(environ=ENV).text(line)
    if form.startswith("UTF-16"):   # (which side of its NUL a character is on cannot be told at a run's ends:
        # the character next to the run may go with it)
        assert out.startswith("debug: payload") and out.endswith("done\n") and REDACTED in out and "\0" not in out
    else:
        assert out == f"debug: payload={REDACTED} done\n"
    stream = StreamRedactor(Redactor(environ=ENV))
    assert "".join(stream.feed(line[at:at + 7]) for at in range(0, len(line), 7)) + stream.close() == out


def test_a_token_shape_escaped_goes_without_being_known():
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    line = "x=" + "".join("%%%02X" % ord(c) for c in token) + "\n"
    assert REDACTED in Redactor(environ={}).text(line)


@pytest.mark.parametrize("text", [
    "GET /files/%2Fhome%2Fuser%2Fdata%2Fshard-0001.parquet HTTP/1.1",
    "progress 50% 60% 70% 80% 90% 100%",
    "caf&#233; &#8212; &#169;&#174;&#8482;&#8364;&#163; ok",
    "path C:\\\\Users\\\\bob\\\\train.py and \\\\u00e9t\\\\u00e9 \\\\u00e0 Paris",
    "bytes b'\\x7fELF\\x02\\x01\\x01\\x00\\x00' header",
    "regs 0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07",
    "step 100 loss 2.5".encode("utf-16-le").decode("latin-1"),
])
def test_ordinary_escaped_text_stays(text):
    assert Redactor(environ=ENV).text(text) == text


def test_a_secret_inside_a_longer_escaped_run_takes_the_run():
    run = html.escape("").join("&#%d;" % ord(c) for c in f"user=bob&token={SECRET}&x=1")
    out = Redactor(environ=ENV).text(f"<a href='{run}'>")
    assert out == f"<a href='{REDACTED}'>"


def test_an_escaped_nul_in_one_run_does_not_shift_which_run_goes():
    """Runs are decoded at once, a NUL after each: a run holding an escaped NUL must not make the secret's run
    count as the one after it (the wrong run would go, the secret stay)."""
    for escape in ("%{:02X}", "\\x{:02x}", "\\u{:04x}", "&#{};"):
        encode = (lambda text, e=escape: "".join(e.format(ord(c)) for c in text))
        text = f"a={encode('ab' + chr(0) + 'cdef')} b={encode(SECRET)} c={encode('plain-words')}\n"
        out = Redactor(environ=ENV).text(text)
        assert out.startswith("a=" + encode("ab" + chr(0) + "cdef")) and f"b={REDACTED} c=" in out, escape
