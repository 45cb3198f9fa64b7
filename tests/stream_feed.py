"""A text fed to a StreamRedactor as triage's pipe would feed it, for tests that compare the stream's bytes with
Redactor.text on the whole: in reads of one size, or cut at given places (flushed after each read or not)."""

from __future__ import annotations

from aiperf_lab.triage.redact import Redactor, StreamRedactor


def fed_in_reads(redactor: Redactor, text: str, size: int, piece: int) -> str:
    stream = StreamRedactor(redactor, piece=piece)
    return "".join(stream.feed(text[k:k + size]) for k in range(0, len(text), size)) + stream.close()


def fed_at_cuts(redactor: Redactor, text: str, cuts: list[int], flush: bool, piece: int) -> str:
    stream = StreamRedactor(redactor, piece=piece)
    out, at = [], 0
    for cut in [*cuts, len(text)]:
        out.append(stream.feed(text[at:cut]))
        if flush:
            out.append(stream.flush())
        at = cut
    return "".join(out) + stream.close()
