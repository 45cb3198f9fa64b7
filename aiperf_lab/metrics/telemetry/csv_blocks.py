"""CSV text read a column at a time: the records csv.reader (default dialect) gives, without a list
object per line for most of them.

A plain line (no quote, CR or NUL, no longer than csv's field limit, exactly `width - 1` commas) is
split at its commas, which is what csv.reader does with it. The plain lines of a piece of text are
split all at once: one str.split over the piece with each line end turned into a marked cell, the
marks checked to sit every `width + 1` cells (so every line had its width), and each column taken by a
slice. Every other line starts a record that csv.reader reads (a quoted cell may hold line ends and run
on into the next lines, also past the end of the piece: that record is read again with the next piece).
A CRLF line end is a plain line end, as csv.reader takes it.
"""

from __future__ import annotations

import csv
import io
from bisect import bisect_left
from itertools import chain, compress, islice, repeat
from operator import contains, itemgetter, or_
from typing import Iterator

_MARK = "\x00"  # a line end in a piece split at once (a line holding a NUL is never split that way)
_SPECIAL = ('"', "\r", "\x00")
# A record running past its piece is read again with the next; one running on past this many characters
# (an unclosed quote before the field limit: csv stops it there; a record of many quoted line ends):
# the rest of the text through csv.reader row by row, so that nothing is read more than twice.
_MAX_CARRIED = 1 << 21
_ROWS_PER_BLOCK = 4096  # records per block once the text is read row by row


class Cells:
    """The records of a piece of text that have at least `width` cells (in text order), a column at a
    time; `short`: the records with fewer (in text order)."""

    def __init__(self, width: int, flat: list[str], odd: list[list[str]], plain_before: list[int],
                 short: list[list[str]]):
        """`flat`: the plain lines' cells, each line's `width` cells then a mark (the last line's without);
        `odd`: the other records of at least `width` cells, `plain_before[i]` plain lines before odd[i]."""
        self.width = width
        self.short = short
        self._flat = flat
        self._odd = odd
        self._plain_before = plain_before
        plain = (len(flat) + 1) // (width + 1)
        self._count = plain + len(odd)
        self._odd_at = [before + i for i, before in enumerate(plain_before)]  # odd[i]'s place among all

    @classmethod
    def of_rows(cls, rows: list[list[str]], width: int) -> "Cells":
        full = [len(row) >= width for row in rows]
        odd = list(compress(rows, full))
        return cls(width, [], odd, [0] * len(odd), [row for row, ok in zip(rows, full) if not ok])

    def __len__(self) -> int:
        return self._count

    def column(self, index: int) -> list[str]:
        """Cell `index` (< width) of every record."""
        if not self._flat:
            return list(map(itemgetter(index), self._odd))
        cells = self._flat[index::self.width + 1]
        if not self._odd:
            return cells
        merged: list[str] = []
        taken = 0
        for before, row in zip(self._plain_before, self._odd):
            merged += cells[taken:before]
            merged.append(row[index])
            taken = before
        merged += cells[taken:]
        return merged

    def row(self, k: int) -> list[str]:
        """Record k (every cell csv.reader gives: at least `width`)."""
        i = bisect_left(self._odd_at, k)
        if i < len(self._odd_at) and self._odd_at[i] == k:
            return self._odd[i]
        start = (k - i) * (self.width + 1)
        return self._flat[start:start + self.width]


def blocks(pieces: Iterator[str], width: int) -> Iterator[Cells]:
    """The records of the text given in pieces that each end at a line end (the last one may not), a
    block of Cells per piece. csv.Error as csv.reader raises it."""
    pieces = iter(pieces)
    carried = ""
    piece = next(pieces, None)
    while piece is not None:
        following = next(pieces, None)
        text = carried + piece if carried else piece
        cells, carried = _read_piece(text, width, final=following is None)
        if len(cells) or cells.short:
            yield cells
        if len(carried) > _MAX_CARRIED:
            rest = chain([carried], [following] if following is not None else [], pieces)
            yield from _row_blocks(chain.from_iterable(map(io.StringIO, rest)), width)
            return
        piece = following


def _row_blocks(lines: Iterator[str], width: int) -> Iterator[Cells]:
    reader = csv.reader(lines)
    for rows in iter(lambda: list(islice(reader, _ROWS_PER_BLOCK)), []):
        yield Cells.of_rows(rows, width)


def _read_piece(text: str, width: int, final: bool) -> tuple[Cells, str]:
    """The records of `text` (it starts at a record's start); and the text from the start of a record
    that runs past its end ("" when none does, always when `final`)."""
    lines = text.split("\n")
    if lines[-1] == "":  # the text ended with a line end
        lines.pop()
    limit = csv.field_size_limit()
    odd_lines = _odd_lines(text, lines, limit)   # line index -> the line as csv.reader must read it
    # a CRLF's CR is part of the line end (the other CRs are in odd lines)
    plain_lines = [line[:-1] if line.endswith("\r") else line for line in lines] if "\r" in text else lines
    records: list[tuple[int, list[str]]] = []    # (line index, record) of the lines that are not plain
    excluded: list[int] = []                     # the lines not in the flat split, ascending
    if odd_lines:
        resume = 0
        for index in odd_lines:
            if index < resume:
                continue  # inside a record read from an earlier line
            reader = csv.reader(_lines_from(lines, index, final, text.endswith("\n")))
            record = next(reader, None)
            used = reader.line_num
            if index + used > len(lines):  # it ran on past the text
                start = _offset(lines, index)
                return _read_piece(text[:start], width, True)[0], text[start:]
            records.append((index, record if record is not None else []))
            excluded.extend(range(index, index + used))
            resume = index + used
    flat = _split_plain(plain_lines, excluded, width)
    if flat is None:  # some plain line has another number of cells: each of those read by itself
        counts = map(str.count, plain_lines, repeat(","))
        wrong = [k for k, c in enumerate(counts) if c != width - 1 or not plain_lines[k]]
        taken = set(excluded)
        for k in wrong:
            if k not in taken:
                records.append((k, plain_lines[k].split(",") if plain_lines[k] else []))
                excluded.append(k)
        records.sort(key=itemgetter(0))
        excluded.sort()
        flat = _split_plain(plain_lines, excluded, width)
        assert flat is not None
    odd, plain_before, short = [], [], []
    for index, record in records:
        if len(record) >= width:
            odd.append(record)
            plain_before.append(index - bisect_left(excluded, index))
        else:
            short.append(record)
    return Cells(width, flat, odd, plain_before, short), ""


def _odd_lines(text: str, lines: list[str], limit: int) -> list[int]:
    """The lines csv.reader must read (a quote, a CR other than a CRLF's, a NUL, longer than the field
    limit), ascending."""
    flags = None
    for char in _SPECIAL:
        if char not in text:
            continue
        if char == "\r":
            # a CR only at the end (CRLF) is a line end; anywhere else csv.reader has its say
            has = map(contains, map(itemgetter(slice(None, -1)), lines), repeat("\r"))
        else:
            has = map(contains, lines, repeat(char))
        flags = list(has) if flags is None else list(map(or_, flags, has))
    if len(text) > limit and max(map(len, lines), default=0) > limit:
        long = map(int.__gt__, map(len, lines), repeat(limit))
        flags = list(long) if flags is None else list(map(or_, flags, long))
    return list(compress(range(len(lines)), flags)) if flags is not None else []


def _lines_from(lines: list[str], index: int, final: bool, ends_with_newline: bool) -> Iterator[str]:
    """The text's lines from `index` on as csv.reader reads them (each with its line end), then, unless
    the text is the last, one more line: a record that reads it ran on past the text."""
    last = len(lines) - 1
    for k in range(index, len(lines)):
        yield lines[k] + "\n" if k < last or ends_with_newline else lines[k]
    if not final:
        yield "\n"


def _offset(lines: list[str], index: int) -> int:
    """Where line `index` starts in the text."""
    return sum(map(len, islice(lines, index))) + index


def _split_plain(lines: list[str], excluded: list[int], width: int) -> list[str] | None:
    """The cells of the lines not excluded, each line's `width` then a mark, in one split; None where
    some line has another number of cells."""
    if excluded:
        keep = [True] * len(lines)
        for k in excluded:
            keep[k] = False
        lines = list(compress(lines, keep))
    if not lines:
        return []
    if width == 1 and "" in lines:  # an empty line is no record of one empty cell
        return None
    flat = f",{_MARK},".join(lines).split(",")
    stride = width + 1
    if len(flat) != len(lines) * stride - 1 or flat[width::stride].count(_MARK) != len(lines) - 1:
        return None
    return flat
