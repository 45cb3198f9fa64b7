"""GitHub Actions' `::add-mask::VALUE` names VALUE a secret: it goes whatever its shape, bare, behind a log prefix and
through a stream read in small pieces; a reference (`$TOKEN`, `${{ secrets.X }}`) and the line's other words stay."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads

from aiperf_lab.triage.redact import Redactor

VALUES = ["Winter2024!blue", "bluebird", "correct horse battery staple", "8675309"]
PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.1234567Z ", "echo "]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("value", VALUES)
def test_the_masked_value_goes(prefix: str, value: str) -> None:
    text = f"{prefix}::add-mask::{value}\nnext line stays\n"
    out = Redactor({}).text(text)
    assert value not in out and out == f"{prefix}::add-mask::[REDACTED]\nnext line stays\n"
    for size in (1, 4, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=8) == out


@pytest.mark.parametrize("text", ['echo "::add-mask::$TOKEN"\n', "echo ::add-mask::${{ secrets.HF_TOKEN }}\n",
                                  "::add-mask::\n", "see ::add-mask:: in the docs\n"])
def test_references_and_empty_masks_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
