"""Read a Chrome-trace JSON document (PyTorch profiler output) one event at a time, in bounded memory.

The document is ``{"traceEvents": [event, ...], "deviceProperties": [...], ...}`` or a bare array of
events. Only the top level is walked here; each event and each other top-level value is decoded by
json's C decoder (``raw_decode``) from a window of the text, so memory holds one chunk plus the value
being decoded, never the whole document. Bounds: a single value may not exceed MAX_VALUE_CHARS, the
nesting depth is the interpreter's recursion limit (a deeper value is an InputError, not a crash),
numbers keep Python's 4300-digit limit, and a gzip input may expand at most MAX_GZIP_RATIO times
(plus a floor) before it is refused.

A document of at most SMALL_DOCUMENT_BYTES (after gzip) is decoded whole by json.loads, the C decoder
running once instead of once per event: small traces read as fast as they did before streaming, and
memory still has a fixed bound. Any document the fast path does not take exactly as the streaming walk
would (an error, a second traceEvents key, a top level that is not a trace) goes through the walk, so
results and messages are the walk's.
"""

from __future__ import annotations

import codecs
import gzip
import json
import re
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

from aiperf_lab.errors import InputError, NotAProfile
from aiperf_lab.inputs import check_regular, open_regular, shown_path, text_encoding

CHUNK_BYTES = 1 << 22
SMALL_DOCUMENT_BYTES = 16 << 20    # decoded whole (json.loads) up to this size
MAX_VALUE_CHARS = 64 << 20         # one event (or one top-level value) larger than this is refused
MAX_GZIP_RATIO = 100               # real traces compress 10-30x; a bomb compresses 1000x
GZIP_FLOOR_BYTES = 128 << 20
MAX_GZIP_BYTES = 32 << 30
_NON_BLANK = re.compile(r"[^ \t\n\r]")
_BLANKS = re.compile(r"[ \t\n\r]*")
_COMMA_AFTER = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")   # a comma between two array values, with the blanks around it


class _BoundedGzip:
    """A gzip stream that stops with an InputError once it has produced more than `limit` bytes."""

    def __init__(self, raw: BinaryIO, limit: int, path: Path):
        self._inner = gzip.GzipFile(fileobj=raw, mode="rb")
        self._raw = raw
        self._limit = limit
        self._path = path
        self._produced = 0

    def read(self, size: int) -> bytes:
        try:
            data = self._inner.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{shown_path(self._path)}: damaged or truncated gzip ({exc})") from None
        self._produced += len(data)
        if self._produced > self._limit:
            raise InputError(f"{shown_path(self._path)}: the gzip expands past {self._limit >> 20} MiB "
                             f"({MAX_GZIP_RATIO}x its size): refused as a decompression bomb")
        # The ratio so far, not only the total's: a bomb whose trailer lies (see declared_gzip_size) is
        # refused once the floor is inflated, not after 100x the file's size of events has been parsed.
        if self._produced > GZIP_FLOOR_BYTES and self._produced > self._raw.tell() * MAX_GZIP_RATIO:
            raise InputError(f"{shown_path(self._path)}: the gzip expands over {MAX_GZIP_RATIO}x what it has read "
                             f"so far ({self._produced >> 20} MiB): refused as a decompression bomb")
        return data

    def close(self) -> None:
        self._inner.close()
        self._raw.close()


def declared_gzip_size(raw: BinaryIO, size: int) -> int:
    """The inflated size a gzip file declares in its last 4 bytes (ISIZE, RFC 1952: the size modulo 2^32
    of its last member, which is the whole for the single member PyTorch writes). A lie or a wrap past
    4 GiB makes it smaller, never a false alarm for a true file of one member: _BoundedGzip's bounds stay."""
    if size < 18:  # (a 10-byte header and an 8-byte trailer at least: the inflate reports it damaged)
        return 0
    raw.seek(size - 4)
    tail = raw.read(4)
    raw.seek(0)
    return int.from_bytes(tail, "little") if len(tail) == 4 else 0


def _refuse_a_bomb_at_the_floor(raw: BinaryIO, path: Path) -> None:
    """Inflate the first GZIP_FLOOR_BYTES and drop them, then start again: a bomb whose trailer lies is
    refused here at zlib's speed (a fraction of a second) instead of after the floor's worth of events has
    been parsed (13 s). A true trace pays one more inflate of at most the floor; damage is left to the read,
    which reports it."""
    inner = gzip.GzipFile(fileobj=raw, mode="rb")  # (closing it would not close raw; it is dropped instead)
    produced = 0
    try:
        while produced <= GZIP_FLOOR_BYTES:
            data = inner.read(CHUNK_BYTES)
            if not data:
                break
            produced += len(data)
    except (OSError, EOFError, zlib.error):
        pass
    if produced > GZIP_FLOOR_BYTES and produced > raw.tell() * MAX_GZIP_RATIO:
        raw.close()
        raise InputError(f"{shown_path(path)}: the gzip expands over {MAX_GZIP_RATIO}x what it has read so far "
                         f"({produced >> 20} MiB): refused as a decompression bomb")
    raw.seek(0)


class TraceReader:
    """The top-level keys of a trace (but traceEvents) in `meta`, its events from `events()`."""

    def __init__(self, path: Path):
        self.path = path
        size = check_regular(path)
        raw = open_regular(path, max_bytes=1 << 62)
        encoding = text_encoding(raw.peek(2)[:2])   # UTF-16 behind its BOM (PowerShell's `>`), else UTF-8
        if raw.peek(2)[:2] == b"\x1f\x8b":
            limit = min(MAX_GZIP_BYTES, max(GZIP_FLOOR_BYTES, size * MAX_GZIP_RATIO))
            declared = declared_gzip_size(raw, size)
            if declared > limit:  # refused before anything is inflated (events were parsed as it inflated)
                raw.close()
                raise InputError(f"{shown_path(path)}: the gzip declares {declared >> 20} MiB once inflated, past "
                                 f"{limit >> 20} MiB ({MAX_GZIP_RATIO}x its size): refused as a decompression bomb")
            _refuse_a_bomb_at_the_floor(raw, path)
            self._stream: BinaryIO | _BoundedGzip = _BoundedGzip(raw, limit, path)
        else:
            self._stream = raw
        self._decoder = codecs.getincrementaldecoder(encoding)("replace")
        self._json = json.JSONDecoder()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self.meta: dict[str, object] = {}

    # --- buffer ---------------------------------------------------------------------------------

    def _more(self, at_least: int = CHUNK_BYTES, skip_blanks: bool = False) -> bool:
        """Append at least `at_least` bytes' worth of text (fewer at the end); False at the end.

        skip_blanks: the buffer holds nothing unread and blanks come next: runs of them are dropped as
        bytes, at C speed (a gigabyte of blanks between two events costs a second, not a minute).
        """
        if self._eof:
            return False
        data = self._stream.read(max(at_least, CHUNK_BYTES))
        while skip_blanks and data and not self._decoder.getstate()[0]:
            data = data.lstrip(b" \t\n\r")
            if data:
                break
            data = self._stream.read(CHUNK_BYTES)
        return self._feed(data)

    def _feed(self, data: bytes) -> bool:
        """Decode `data` onto the buffer (b"": the end of the input)."""
        if not data:
            self._eof = True
            tail = self._decoder.decode(b"", final=True)
        else:
            tail = self._decoder.decode(data)
        if self._pos:
            self._buf = self._buf[self._pos:]
            self._pos = 0
        if not self._buf and tail.startswith("\ufeff"):
            tail = tail[1:]
        self._buf += tail
        return bool(data) or bool(tail)

    def _peek(self) -> str:
        """The next non-blank character ('' at the end), without consuming it."""
        while True:
            found = _NON_BLANK.search(self._buf, self._pos)
            if found:
                self._pos = found.start()
                return found.group()
            self._pos = len(self._buf)
            if not self._more(skip_blanks=True):
                return ""

    def _expect(self, chars: str) -> str:
        found = self._peek()
        if not found or found not in chars:
            shown = repr(found) if found else "the end of the file"
            raise InputError(f"{shown_path(self.path)}: not valid JSON (truncated trace?): expected "
                             f"{' or '.join(repr(c) for c in chars)}, found {shown}")
        self._pos += 1
        return found

    def _value(self):
        """The next JSON value, decoded by the C decoder from the buffer (grown as needed)."""
        self._peek()
        while True:
            try:
                value, end = self._json.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                near_end = exc.pos >= len(self._buf) - 16 or exc.msg.startswith("Unterminated string")
                if near_end and self._grow():
                    continue
                raise InputError(f"{shown_path(self.path)}: not valid JSON (truncated trace?): {exc.msg}") from None
            except RecursionError:
                raise InputError(f"{shown_path(self.path)}: JSON nested too deeply to be a trace") from None
            except ValueError as exc:  # an integer past 4300 digits
                raise InputError(f"{shown_path(self.path)}: not a valid trace: {str(exc).splitlines()[0]}") from None
            if end < len(self._buf) or self._eof or not self._grow():
                self._pos = end
                return value

    def _grow(self) -> bool:
        """Read more for a value that does not fit yet; the buffer doubles, so one value costs O(its size)."""
        if len(self._buf) - self._pos > MAX_VALUE_CHARS:
            raise InputError(f"{shown_path(self.path)}: one JSON value is over {MAX_VALUE_CHARS >> 20} MiB: "
                             "not a trace event")
        return self._more(at_least=len(self._buf) - self._pos)

    # --- the document -----------------------------------------------------------------------------

    def _small_document(self) -> list | None:
        """The events of a document of at most SMALL_DOCUMENT_BYTES, decoded whole, with `meta` filled;
        None where the streaming walk must read it (bigger, or anything the walk would take differently).
        What was read stays in the buffer for the walk."""
        data = b""
        while len(data) <= SMALL_DOCUMENT_BYTES:
            chunk = self._stream.read(SMALL_DOCUMENT_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
        if len(data) > SMALL_DOCUMENT_BYTES:
            self._feed(data)
            return None
        self._feed(data)
        self._feed(b"")  # the end: the buffer holds the whole text
        text = self._buf
        if text.count('"traceEvents"') > 1:
            return None
        try:
            document = self._json.decode(text)
        except (ValueError, RecursionError):  # the walk says what is wrong, in its words
            return None
        if isinstance(document, list):
            return document
        events = document.get("traceEvents") if isinstance(document, dict) else None
        if not isinstance(events, list):
            return None
        self.meta["traceEvents"] = True
        for key in ("deviceProperties", "schemaVersion", "distributedInfo", "baseTimeNanoseconds"):
            if key in document:
                self.meta[key] = document[key]
        return events

    def events(self) -> Iterator[object]:
        """Every element of traceEvents (or of a bare top-level array), in order. Fills `meta` too."""
        try:
            small = self._small_document()
            if small is not None:
                yield from small
                return
            first = self._peek()
            if first == "[":
                self._pos += 1
                yield from self._array()
            elif first == "{":
                self._pos += 1
                found = False
                yield from self._object_members()
                found = "traceEvents" in self.meta
                if not found:
                    raise NotAProfile(f"{shown_path(self.path)}: JSON without traceEvents: not a PyTorch profiler trace")
            else:
                raise NotAProfile(f"{shown_path(self.path)}: not JSON")
            if self._peek():
                raise InputError(f"{shown_path(self.path)}: not valid JSON: data after the end of the document")
        finally:
            self._stream.close()

    def _object_members(self) -> Iterator[object]:
        if self._peek() == "}":
            self._pos += 1
            return
        while True:
            if self._peek() != '"':
                self._expect('"')
            key = self._value()
            self._expect(":")
            if key == "traceEvents" and self._peek() == "[":
                self._pos += 1
                self.meta["traceEvents"] = True
                yield from self._array()
            else:
                value = self._value()
                if key == "traceEvents":
                    raise NotAProfile(f"{shown_path(self.path)}: traceEvents is not a list: not a PyTorch "
                                      "profiler trace")
                if isinstance(key, str) and key in ("deviceProperties", "schemaVersion", "distributedInfo",
                                                    "baseTimeNanoseconds"):
                    self.meta[key] = value
            if self._expect(",}") == "}":
                return

    def _array(self) -> Iterator[object]:
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            yield from self._run_of_values()
            yield self._value()
            if self._expect(",]") == "]":
                return

    def _run_of_values(self) -> Iterator[object]:
        """The array's next values while each one and the comma after it lie whole in the buffer: one C decode
        and one separator match a value, none of _value's and _expect's steps (about a fifth of a 1M-event read).
        Stops before a value that is cut at the buffer's end, malformed or last (no comma after it): _value and
        _expect then read it, with their growing of the buffer and their messages."""
        scan = self._json.scan_once
        after = _COMMA_AFTER.match
        buf = self._buf
        pos = _BLANKS.match(buf, self._pos).end()
        while True:
            try:
                value, end = scan(buf, pos)
            except (StopIteration, ValueError, RecursionError):
                return   # _value says what is wrong with it, or grows the buffer for it
            comma = after(buf, end)
            if comma is None or comma.end() >= len(buf):
                return
            self._pos = pos = comma.end()
            yield value
