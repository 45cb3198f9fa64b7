"""A text fed to a StreamRedactor as triage's pipe would feed it, for tests that compare the stream's bytes with
Redactor.text on the whole: in reads of one size, or cut at given places (flushed after each read or not)."""

from __future__ import annotations

import json
from typing import Callable

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


def prefixed(text: str, prefix: str) -> str:
    """Every line of text behind prefix (a launcher's or a log's)."""
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def json_records(text: str) -> str:
    """Every line of text as a JSON log record's message (structlog, Docker's json-file)."""
    return "".join(json.dumps({"level": "info", "message": line.rstrip("\n")}) + "\n"
                   for line in text.splitlines(keepends=True))


def same_in_stream(redactor: Callable[[], Redactor], text: str, whole: str) -> None:
    """Asserts that a stream gives `whole` (what Redactor.text gave) at every cut, flushed or not, and in small reads;
    redactor makes a fresh Redactor for each feed."""
    for cut in range(1, len(text)):
        for flush, piece in ((False, 1 << 16), (True, 1)):
            assert fed_at_cuts(redactor(), text, [cut], flush, piece) == whole, (cut, flush, piece)
    for size in (3, 64):
        assert fed_in_reads(redactor(), text, size, piece=7) == whole, size


def hidden_everywhere(text: str, secret: str, redactor: Callable[[], Redactor] = lambda: Redactor({})) -> str:
    """Asserts that secret is in no output, whole or streamed; returns the whole output."""
    whole = redactor().text(text)
    assert secret not in whole, whole
    same_in_stream(redactor, text, whole)
    return whole


def kept_everywhere(text: str, redactor: Callable[[], Redactor] = lambda: Redactor({})) -> None:
    """Asserts that text comes out unchanged, whole or streamed."""
    assert redactor().text(text) == text
    same_in_stream(redactor, text, text)


def fed_as_triage(redactor: Redactor, text: str, rng, flush_chance: float = 0.5, most: int = 1 << 16) -> str:
    """text fed as triage's pipe reader feeds it (workload_output): its UTF-8 bytes in reads of random sizes, 1 byte to
    `most` (a read may end inside a character: the incremental decoder holds it), flush() called after a read with
    chance flush_chance (the pipe went quiet), the default piece; rng: a random.Random."""
    import codecs

    data = text.encode("utf-8")
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    stream = StreamRedactor(redactor)
    out, at = [], 0
    while at < len(data):
        size = min(most, int(2 ** rng.uniform(0, 16.01)))
        out.append(stream.feed(decoder.decode(data[at:at + size])))
        at += size
        if rng.random() < flush_chance:
            out.append(stream.flush())
    out.append(stream.feed(decoder.decode(b"", final=True)))
    return "".join(out) + stream.close()
