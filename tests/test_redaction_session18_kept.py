"""Words a secret's name is followed by that are no secret, found kept wrongly hidden after session 17:
openssl's key-size header and a password rule's sentence with a count in it. Each also behind a log prefix and
through the stream at every cut; the secrets beside them still go."""
from __future__ import annotations

from pathlib import Path

import pytest

from stream_feed import fed_at_cuts, fed_in_reads

from aiperf_lab.triage.redact import Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]

KEPT = [
    "Private-Key: (256 bit)\n",
    "RSA Private-Key: (2048 bit, 2 primes)\n",
    "Private-Key: (4096 bit, 2 primes)\n",
    "Private-Key: (521 bit)\n",
    "password: not 8 characters long\n",
    "Password: not 12 chars\n",
    "error: password must be at least 8 characters; password: not 10 characters long\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("line", KEPT)
def test_kept_whole(prefix: str, line: str) -> None:
    text = prefix + line
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("line", KEPT)
def test_kept_through_the_stream(line: str) -> None:
    text = "[rank0]: " + line
    for size in (1, 3, 7):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == text
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=7) == text


HIDDEN = [
    ("password: not 1234\n", "1234"),
    ("password: not Hunter2x9\n", "Hunter2x9"),
    ("password: not 8\n", "8"),
    ("private_key: (2048Zq8Das1x\n", "(2048Zq8Das1x"),
    ("password: (2048x\n", "(2048x"),
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "secret"), HIDDEN)
def test_secret_beside_still_goes(prefix: str, line: str, secret: str) -> None:
    out = Redactor({}).text(prefix + line)
    assert secret not in out and "[REDACTED]" in out


def test_openssl_text_still_hides_the_private_components() -> None:
    text = (Path(__file__).parent / "data" / "openssl_ec_text.txt").read_text()
    out = Redactor({}).text(text)
    assert "Private-Key: (256 bit)" in out
    assert "priv:" in out and "76:31:68:b0:f0:30" not in out and "76:31:68:b0:f0:30" in text
