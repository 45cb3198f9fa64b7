"""Hex, od, xxd and separated-byte dumps: each kind's line, decoding a run of lines back to text (so a secret in
a dump is found), and mapping a found piece back to the dump's columns."""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from typing import Callable

from .spans import CSI


# ---- secrets inside dumps ---------------------------------------------------------------------------------------
# A dump shows a secret's bytes as hex and again as characters, 16 or so to a line, so neither column holds the
# secret as text: `hexdump -C` / `hd` (|ascii|), `od -A x -t x1z` (>ascii<), `od -t x1` (no column), `xxd`
# (groups of bytes, the characters last), `od -c` / `hexdump -c` (a character per 4-wide cell). A secret's bytes
# also show as hex or decimal with separators (`68 66 5f`, `68:66`, `0x68, 0x66`, `[104, 102, 95]`).
# Each block of consecutive dump lines of one kind, and each separated run, is decoded (by whole-text string
# operations, not line by line), all of them into one text that is searched with the same rules as any text;
# what is found there goes in every column that shows those bytes (only those lines are looked at one by one).
_HEX_LINE = (r"(?P<offset>[0-9a-fA-F]{4,16})(?P<hex>(?: {1,2}[0-9a-fA-F]{2}){1,64})"
             r"(?: {1,64}(?:\|(?P<pipe>[^\n]{0,64})\||>(?P<angle>[^\n]{0,64})<))?[ \t]*\r?")
_XXD_LINE = r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: (?:[0-9a-fA-F]{2}){1,16}){1,32})  (?P<text>[^\n]{1,256})"
# `xxd -e`: 4-byte groups, each in little-endian order, the last one shorter and set to the right (also read as xxd)
_XXD_LE_LINE = (r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: [0-9a-fA-F]{8}){0,8}"
                r"(?: {3}[0-9a-fA-F]{6}| {5}[0-9a-fA-F]{4}| {7}[0-9a-fA-F]{2}| [0-9a-fA-F]{8}))  (?P<text>[^\n]{1,256})")
# `xxd -b`: bytes as 8 bits
_XXD_BITS_LINE = r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: [01]{8}){1,32})  (?P<text>[^\n]{1,256})"
# plain `hexdump`, `hexdump -x`, `od -x`, and `od -An -tx2` (no offset: two words at least): 2-byte words, each in
# little-endian order (6668 is "hf")
_WORDS_LINE = r"(?P<offset>[0-9a-fA-F]{7})(?P<hex>(?: {1,4}[0-9a-fA-F]{4}){1,8})[ \t]*\r?"   # (od's octal offset is hex too)
_BARE_WORDS_LINE = r"(?P<hex>(?: {1,4}[0-9a-fA-F]{4}){2,8})[ \t]*\r?"
# `od -c` / `hexdump -c` (a character per 4-wide cell, octal for the others), `od -b` / `hexdump -b` (octal bytes)
_OD_LINE = r"(?P<offset>[0-7]{7}|[0-9a-fA-F]{6,8})(?P<cells>(?:   [^\s\\]|  \\[0abfnrtv\\]| [0-7]{3}|    ){1,32})\r?"
# `od -tu1` / `od -td1`: decimal bytes after an offset (-128 to 255)
_DECIMAL_LINE = r"(?P<offset>[0-7]{7})(?P<cells>(?: {1,4}-?[0-9]{1,3}){1,32})[ \t]*\r?"
# `od -An -tu1` / `od -An -td1`: decimal bytes without offsets, each in a cell 4 (or 5, signed) wide; a line of 5 to 32
# cells, or of 1 to 4 right after a line ending in a digit (a dump's last line). A line of numbers spaced otherwise
# (a table's columns) is none.
_U1_CELL = r"(?: {3}[0-9]| {2}[0-9]{2}| [0-9]{3})"
_D1_CELL = r"(?: {4}[0-9]| {3}(?:[0-9]{2}|-[0-9])| {2}(?:[0-9]{3}|-[0-9]{2})| -[0-9]{3})"
_BARE_DECIMAL_LINE = (rf"(?P<cells>{_U1_CELL}{{5,32}}|{_D1_CELL}{{5,32}}|(?<=[0-9]\n)(?:{_U1_CELL}{{1,4}}|{_D1_CELL}{{1,4}}))"
                      r"[ \t]*\r?")
BARE_DECIMAL_HINT = re.compile(r"\n(?: {1,4}-?[0-9]{1,3}){5}")
# 5 or more hex pairs with ":" or "-" between, or "0x" pairs with ", " between (`xxd -i`), a whole line each (a
# separator may end it): a block of such lines is one text, so a secret wrapped over them is read whole (a time,
# "12:30:45", is no such line)
_SEPARATED_LINE = (r"(?P<hex>[ \t]{0,8}(?:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){4,4095}:?|[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2}){4,4095}-?"
                   r"|0[xX][0-9a-fA-F]{2}(?:, ?0[xX][0-9a-fA-F]{2}){4,4095},?))[ \t]*\r?")
# `xxd -p` (bare hex, 60 digits a line) and `od -An -tx1` (spaced pairs, 16 a line, no offset): a block of such lines
# is decoded whole, so a secret wrapped over lines is found as it is in one line. A line of 1 to 4 bytes (shorter
# than any secret) counts only beside another dump line: after a line that ends in 5 such bytes (a wrapped dump's
# last line), after a whole line of 1 to 4 (`xxd -p -c 4`, `od -An -tx1 -w4`), or before any bare hex line. Alone
# it is a number or a word ("1234", "cafe") on a log line of its own, and a log of them in turn with words was a
# million blocks in 20 MiB.
_AFTER_BARE_LINE = "|".join(rf"(?<={end}{newline})" for end in (
    "[0-9a-fA-F]{10}", "(?:[ \t][0-9a-fA-F]{2}){5}", "(?:[ \t]{2}[0-9a-fA-F]{2}){5}",
    *(rf"\n[0-9a-fA-F]{{{2 * n}}}" for n in (1, 2, 3, 4)),
    *(rf"\n(?:[ \t][0-9a-fA-F]{{2}}){{{n}}}" for n in (1, 2, 3, 4))) for newline in (r"\n", r"\r\n"))
# (pairs apart by nothing, one or two spaces or tabs: `od -An -tx1 | tr ' ' '\t'`, paste's joins; up to 4096 bytes a
# line: `xxd -p -c 40`, `basenc --base16` at 76 columns)
_SHORT_BARE = r"[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){0,3}"
_BEFORE_BARE_LINE = r"(?=[ \t]*\r?\n[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){0,4095}[ \t]*\r?(?![^\n]))"
# (a line that starts with od's 7-digit offset or a hexdump -C line's offset fails before the pairs and the
# lookbehinds are tried)
_BARE_GUARD = r"(?![0-9a-fA-F]{7} |[0-9a-fA-F]{8}  [0-9a-fA-F])"
_BARE_HEX_LINE = (_BARE_GUARD + 
                  r"(?P<hex>[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){4,4095}"
                  rf"|(?:(?<=[0-9a-fA-F]\n)|(?<=[0-9a-fA-F]\r\n))(?:{_AFTER_BARE_LINE}){_SHORT_BARE}"   # (a hex digit before
                  rf"|{_SHORT_BARE}{_BEFORE_BARE_LINE})[ \t]*\r?")   # the line break first: most lines end otherwise)
# What a text holds somewhere when it holds a bare dump line: a line of 5 bare bytes, or two bare lines in a row
# (nested, each pair's way on tried once: an alternation of the two shapes was tried again from the first pair).
# A text of none (most; "loss" and "1234" lines in turn too) is spared the splitter's lookbehinds at every line.
_PAIR_ON = r"[ \t]{0,2}[0-9a-fA-F]{2}"
_LINE_ENDS = r"|[ \t]*\r?\n[ \t]{0,8}[0-9a-fA-F]{2})"
BARE_HINT = re.compile(r"\n[ \t]{0,8}[0-9a-fA-F]{2}" + f"(?:{_PAIR_ON}" * 4 + _LINE_ENDS * 4)
# a line of 1 to 4 bare bytes at a stream's end may begin such a dump: the stream holds it until the next line
SHORT_BARE_LINE = re.compile(_SHORT_BARE + r"[ \t]*\r?")
# kind -> one dump line (its fields named), to find where a byte shows once something was found in it
DUMP_KINDS = (("hex", _HEX_LINE, "hex"), ("xxd", _XXD_LINE, "hex"), ("od", _OD_LINE, "cells"), ("words", _WORDS_LINE, "hex"),
              ("bare", _BARE_HEX_LINE, "hex"), ("xxd-le", _XXD_LE_LINE, "hex"), ("bits", _XXD_BITS_LINE, "hex"),
              ("decimal-od", _DECIMAL_LINE, "cells"), ("bare-words", _BARE_WORDS_LINE, "hex"),
              ("separated", _SEPARATED_LINE, "hex"), ("bare-decimal", _BARE_DECIMAL_LINE, "cells"))
# (the common kinds first: _dump_line_at tries them in turn)
# What a line of each kind starts with (a hex offset, then ":" or a space; or, bare, BARE_HINT): a text holding
# none is spared that kind's splitter (one scan for each start instead of one per kind)
OFFSET_STARTS = {":": re.compile(r"\n[0-9a-fA-F]{4,16}:"), " ": re.compile(r"\n[0-9a-fA-F]{4,16} ")}
KIND_START = {"hex": " ", "xxd": ":", "xxd-le": ":", "bits": ":", "od": " ", "decimal-od": " ", "words": " ",
              "bare": "bare", "bare-words": "bare", "separated": "separated", "bare-decimal": "bare-decimal"}
DUMP_LINES = {kind: re.compile(line + r"(?![^\n])") for kind, line, _ in DUMP_KINDS}
# the same, to read the fields of a line known to be one (without the guards that only make other lines fail sooner)
DUMP_LINE_FIELDS = {**DUMP_LINES, "bare": re.compile(_BARE_HEX_LINE[len(_BARE_GUARD):] + r"(?![^\n])")}
# kind -> a newline and the line after it, the line and its hex (or cells) field captured: split gives every dump
# line of a text, what lies between them and their fields without Python per line
DUMP_SPLITTERS = {kind: re.compile(r"\n(" + re.sub(r"[(][?]P<([a-z]+)>", lambda g: "(" if g.group(1) == field else "(?:", line)
                                   + r")(?![^\n])")
                  for kind, line, field in DUMP_KINDS}
OD_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
OD_ESCAPE_CELL = re.compile(r"  \\([0abfnrtv\\])")
# an od cell (4 characters) -> the byte it shows: "   h", "  \\n", " 303" (octal); another cell shows its last character
OD_CELLS = type("_OdCells", (dict,), {"__missing__": lambda self, cell: cell[3]})(
    {**{f" {n:03o}": chr(n) for n in range(512)}, **{"  \\" + e: c for e, c in OD_ESCAPES.items()}})
# od -td1 / -tu1 cells -> the byte (zero-padded too: an od -b line is read as decimal as well; any other, "-005")
DECIMAL_BYTE = type("_DecimalBytes", (dict,), {"__missing__": lambda self, cell: chr(int(cell) & 255)})(
    {f"{n:0{width}d}": chr(n & 255) for width in (1, 2, 3) for n in range(-128, 1000)})
# 8 or more bytes as hex pairs with one separator throughout, or as a list of decimals
SEPARATED_HEX = re.compile(r"(?<![0-9A-Za-z])(?:0[xX])?[0-9A-Fa-f]{2}(?P<sep>, ?0[xX]|[: -]|, ?)[0-9A-Fa-f]{2}"
                           r"(?:(?P=sep)[0-9A-Fa-f]{2}){6,4094}(?![0-9A-Za-z])")
_PAIR = "[0-9A-Fa-f]{2}"
# The same runs found from their first separator (a literal: the scan skips other characters), the first pair
# captured in a lookbehind: findall gives every run without Python per run.
SEPARATED_RUNS = [re.compile(rf"{sep}(?<=(?<![0-9A-Za-z])({_PAIR}){sep})(?<!{_PAIR}{sep}{_PAIR}{sep})((?:{_PAIR}{sep}){{6,4094}}{_PAIR})(?![0-9A-Za-z])")
                  for sep in " :-"]
SEPARATED_RUNS.append(re.compile(rf",(?:(?<=(?<![0-9A-Za-z])({_PAIR}),)((?: ?{_PAIR},){{6,4094}} ?{_PAIR})"
                                 rf"|(?<=(?<![0-9A-Za-z])0[xX]({_PAIR}),)((?: ?0[xX]{_PAIR},){{6,4094}} ?0[xX]{_PAIR}))"
                                 r"(?![0-9A-Za-z])"))
NOT_HEX_DIGITS = str.maketrans("", "", " :,-\t")
# What every dump, run or list above holds somewhere: a line starting with hex digits, two pairs with a separator
# after each, or "[" and a digit. Each searched alone, from its literal or separator (one alternation of all three
# tried every position: 0.04 s per MiB of text that holds none, a fifth of all the rules' time on such text).
DUMP_HINTS = (re.compile(r"\n[0-9a-fA-F]{4}"), re.compile(r"\[[0-9]"),
              re.compile(r"[ :,-](?<=[0-9A-Fa-f]{2}[ :,-]) ?(?:0[xX])?[0-9A-Fa-f]{2}[ :,-]"))
DUMP_HINT_START = re.compile(r"[0-9a-fA-F]{4}")


# (every hint above holds a hex digit, "[0-9]" too: a text with none, "\n" or "x\n" repeated, is not tried at each of its
# line breaks by the hints led by "\n")
HEX_DIGIT = re.compile(r"[0-9a-fA-F]")


def _may_hold_dump(text: str) -> bool:
    return HEX_DIGIT.search(text) is not None and (
        DUMP_HINT_START.match(text) is not None or DUMP_HINTS[0].search(text) is not None
            or DUMP_HINTS[1].search(text) is not None or DUMP_HINTS[2].search(text) is not None
            or BARE_HINT.search("\n" + text[:64]) is not None or BARE_HINT.search(text) is not None
            or BARE_DECIMAL_HINT.search("\n" + text[:64]) is not None or BARE_DECIMAL_HINT.search(text) is not None)


DECIMAL_BYTES = re.compile(r"\[(?P<body>[0-9]{1,3}(?:, ?[0-9]{1,3}){7,4095})\]")
HEX_PAIR = re.compile(r"[0-9A-Fa-f]{2}")
DECIMAL_CHARACTER = {f"{n:0{width}d}": chr(n) for width in (1, 2, 3) for n in range(10 ** width)}  # "104", "07": a look-up
DECIMAL = re.compile(r"[0-9]{1,3}")
# A dump line's character column (`hexdump -C`'s |...|, `od -A x -t x1z`'s >...<, xxd's last field): the dump's bytes,
# which the decoder reads (a secret's bytes found there go in both columns); read as text, random bytes spell
# `pw.ci.:5Nl..K` and what follows `:` would go as a value. Found only where a line starts with a hex offset.
# (found at a text's start by match and after each line break from the "\n", a literal: led by `(?<![^\n])` or
# `(?:^|\n)`, the engine tried every character of a text, 0.015 s/MB each)
_CHARACTER_COLUMN_LINE = (r"[0-9a-fA-F]{4,16}(?::(?: (?:[0-9a-fA-F]{2}){1,16}){1,32}  (?P<text>[^\n]{1,256})"
                          r"|(?: {1,2}[0-9a-fA-F]{2}){1,64} {1,64}(?:\|(?P<pipe>[^\n]{0,64})\||>(?P<angle>[^\n]{0,64})<))"
                          r"[ \t]*\r?(?![^\n])")
CHARACTER_COLUMN = re.compile(_CHARACTER_COLUMN_LINE)
CHARACTER_COLUMN_AFTER_BREAK = re.compile(r"\n(?:" + _CHARACTER_COLUMN_LINE + ")")
COLUMN_TEXT_START = re.compile(r"[0-9a-fA-F]{4,16}[ :]")
COLUMN_LINE_START = re.compile(r"\n[0-9a-fA-F]{4,16}[ :]")


def character_columns(text: str) -> list[tuple[int, int]]:
    """Where the dump lines' character columns lie in text (see CHARACTER_COLUMN), in order; none for most texts."""
    if COLUMN_TEXT_START.match(text) is None and COLUMN_LINE_START.search(text) is None:
        return []
    columns = []
    first = CHARACTER_COLUMN.match(text)
    for m in itertools.chain(() if first is None else (first,),
                             CHARACTER_COLUMN_AFTER_BREAK.finditer(text, 0 if first is None else first.end())):
        group = "text" if m.group("text") is not None else "pipe" if m.group("pipe") is not None else "angle"
        columns.append(m.span(group))
    return columns


DUMP_HOLD_LINES = 32    # dump lines a stream holds back at a piece's end, so a secret across the cut is decoded whole
KEY_HOLD = 1 << 16      # how much of a key block still open a stream holds back before going on piece by piece


class _DumpPart:
    """Every block of dump lines of one kind, or every separated run of one kind, decoded: where its bytes start
    in the decoded text and, per line (a run is one "line"), where it starts in the text and its first byte
    (computed only when something was found in it). Each block and each run is followed by `gap` NULs, counted
    in its last line's size, so no secret reads across two of them."""

    def __init__(self, kind: str, first: int, starts: Callable[[], list[int]] | list[int],
                 sizes: Callable[[], list[int]]):
        self.kind = kind            # a DUMP_KINDS kind, "run" (hex pairs) or "decimal"
        self.first = first
        self._starts = starts       # where each line (or run) starts in the text, or how to find that
        self._sizes = sizes         # how to find how many bytes each line stands for, its block's NULs included
        self._table: tuple[list[int], list[int]] | None = None
        self.columns: dict[tuple, list[tuple[int, int]]] = {}   # _dump_columns' answers by a line's text around it

    def lines(self) -> tuple[list[int], list[int]]:
        """(where each line starts in the text, each line's first byte from the part's first, and one past the last)"""
        if self._table is None:
            starts = self._starts if isinstance(self._starts, list) else self._starts()
            self._table = starts, list(itertools.accumulate(self._sizes(), initial=0))
        return self._table


def _field_size(kind: str, field: str) -> int:
    """Bytes one dump line's field shows (as _line_sizes counts them)."""
    kind = READ_AS.get(kind, kind)
    if kind in HEX_FIELD_KINDS:
        return (len(field) - field.count(" ") - field.count("\t")) >> 1
    if kind == "od":
        return len(field) >> 2
    if kind == "decimal-od":
        return len(field.split())
    if kind == "bits":
        return (len(field) - field.count(" ")) >> 3
    if kind == "separated":
        return len(field.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)) >> 1
    return (len(field) - field.count(" ") - field.count("\t")) >> 1


def _line_sizes(kind: str, fields: list[str], block_ends: list[int], gap: int) -> list[int]:
    """Bytes each dump line shows (an od cell is 4 characters, a decimal one a number, a bit byte 8 digits, a byte
    otherwise 2 hex digits), each block's NULs counted in its last line."""
    kind = READ_AS.get(kind, kind)
    if kind == "od":
        sizes = [len(f) >> 2 for f in fields]
    elif kind == "decimal-od":
        sizes = [len(f.split()) for f in fields]
    elif kind == "bits":
        sizes = [(len(f) - f.count(" ")) >> 3 for f in fields]
    elif kind == "separated":
        sizes = [len(f.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)) >> 1 for f in fields]
    else:
        sizes = [(len(f) - f.count(" ") - f.count("\t")) >> 1 for f in fields]
    for i in block_ends:
        sizes[i] += gap
    return sizes


def _decode_blocks(kind: str, fields: list[str], block_ends: list[int]) -> str:
    """Every block of one kind's lines decoded at once, each block followed by its NULs (see _DumpPart): one
    join and one decode however many blocks, not Python per block (a log of "loss" and "1234" lines in turn
    is a million one-line blocks in 20 MiB)."""
    kind = READ_AS.get(kind, kind)
    marked = fields.copy()
    if kind == "od":  # a 4-character cell per byte, the character last; a NUL cell after each block
        for i in block_ends:
            marked[i] += "   \0"
        shown = "".join(marked)
        if "\\" in shown or shown[1::4].strip(" "):   # an escape or octal cell (od -c of plain text has neither: a slice)
            if len(shown) % 4 == 0:   # (the cells put together from four slices: half the time of a slice a cell)
                return "".join(map(OD_CELLS.__getitem__, map("".join, zip(shown[0::4], shown[1::4], shown[2::4],
                                                                          shown[3::4]))))
            return "".join(map(OD_CELLS.__getitem__, map(shown.__getitem__, map(slice, range(0, len(shown), 4),
                                                                                  range(4, len(shown) + 4, 4)))))
        return shown[3::4]
    if kind == "decimal-od":   # (each block's NUL a 0 after its last number)
        for i in block_ends:
            marked[i] += " 0"
        return "".join(map(DECIMAL_BYTE.__getitem__, " ".join(marked).split()))
    if kind == "bits":
        for i in block_ends:
            marked[i] += " 00000000"
        bits = "".join(marked).replace(" ", "")
        return int(bits, 2).to_bytes(len(bits) >> 3, "big").decode("latin-1")
    for i in block_ends:  # (every field is whole pairs of digits, so the join keeps them paired)
        marked[i] += "0000" if kind == "words" else " 00000000" if kind == "xxd-le" else "00"
    joined = "".join(marked)
    if kind == "separated":
        joined = joined.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)
    if kind == "xxd-le":   # each group's bytes the other way round (4 a group, the last of a line maybe fewer)
        groups = joined.split()
        if set(map(len, groups)) == {8}:
            data = bytes.fromhex("".join(groups))
            swapped = bytearray(data)
            swapped[0::4], swapped[1::4], swapped[2::4], swapped[3::4] = data[3::4], data[2::4], data[1::4], data[0::4]
            return bytes(swapped).decode("latin-1")
        return b"".join(bytes.fromhex(group)[::-1] for group in groups).decode("latin-1")
    data = bytes.fromhex(joined)
    if kind == "words":  # each word's two bytes the other way round (each block is whole words, its NULs too)
        swapped = bytearray(data)
        swapped[0::2], swapped[1::2] = data[1::2], data[0::2]
        data = bytes(swapped)
    return data.decode("latin-1")


READ_AS = {"bare-words": "words", "bare-decimal": "decimal-od"}
HEX_FIELD_KINDS = frozenset({"hex", "xxd", "bare", "words", "bare-words", "xxd-le"})   # hex digits and blanks only   # a kind read as another once its lines are found
BLOCK_GAP = {"words": 2, "bare-words": 2, "xxd-le": 4}   # NULs after each block: one, or a word's two, or a group's four


def _dump_parts(text: str) -> tuple[str, list[_DumpPart]]:
    """Every dump in text, decoded into one text (blocks and runs apart by NULs), and where each part is."""
    pieces: list[str] = []
    parts: list[_DumpPart] = []
    size = 0
    blocks: list[tuple[int, int]] = []
    padded = "\n" + text   # (every line then follows a newline, which leads each splitter: the scan skips to them)
    present = {"bare": BARE_HINT.search(padded) is not None, "": True,
               "bare-decimal": BARE_DECIMAL_HINT.search(padded) is not None,
               "separated": ":" in text or "-" in text or "0x" in text or "0X" in text}
    for kind, splitter in DUMP_SPLITTERS.items():
        start = KIND_START.get(kind, "")
        if start not in present:
            present[start] = OFFSET_STARTS[start].search(padded) is not None
        if not present[start]:
            continue
        found = splitter.split(padded)   # [before, line, field, between, line, field, ...]: no Python per line
        if len(found) == 1:
            continue
        betweens, lines, fields = found[0::3], found[1::3], found[2::3]
        count = len(lines)
        steps = [0] * (2 * count)   # what comes before each line: the text between, the lines before (in C, no loop)
        steps[0::2] = map(len, betweens[:count])
        steps[1::2] = map(len, lines)
        # each line's start in text: its start in padded (what is before it, and a newline a line), less one
        starts = list(map(operator.add, list(itertools.accumulate(steps))[0::2], range(count)))
        # blocks: lines with nothing between; each block's first and last line
        block_firsts = [0, *itertools.compress(range(1, count), betweens[1:count])]
        block_ends = [first - 1 for first in block_firsts[1:]] + [count - 1]
        gap = BLOCK_GAP.get(kind, 1)
        decoded = _decode_blocks(kind, fields, block_ends)
        parts.append(_DumpPart(kind, size, starts, functools.partial(_line_sizes, kind, fields, block_ends, gap)))
        pieces.append(decoded[:-1])   # (the last NUL is the one that joins the pieces)
        size += len(decoded)
        blocks += zip([starts[i] for i in block_firsts], [starts[i] + len(lines[i]) for i in block_ends])
    blocks.sort()
    # what lies between the blocks, one text (lines apart, as they were: a run or a list never spans a line)
    gaps = [(a, b) for a, b in zip([0] + [end for _, end in blocks], [start for start, _ in blocks] + [len(text)]) if a < b]
    between = "\n".join(text[a:b] for a, b in gaps) if blocks else text
    gap_starts = list(itertools.accumulate((b - a + 1 for a, b in gaps), initial=0)) if blocks else [0]
    gap_map = (gap_starts, [a for a, _ in gaps] if blocks else [0])
    for pattern in SEPARATED_RUNS:
        runs = ["".join(groups) for groups in pattern.findall(between)]
        if runs:
            hexes = "\n".join(runs).replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)
            pieces.append(bytes.fromhex(hexes.replace("\n", "00")).decode("latin-1"))
            parts.append(_DumpPart("run", size, functools.partial(_run_starts, between, pattern, gap_map),
                                   functools.partial(lambda h: [(len(x) >> 1) + 1 for x in h.split("\n")], hexes)))
            size += len(pieces[-1]) + 1
    bodies = DECIMAL_BYTES.findall(between)
    if bodies:
        pieces.append("".join(map(DECIMAL_CHARACTER.__getitem__, ",0,".join(bodies).replace(" ", "").split(","))))
        parts.append(_DumpPart("decimal", size, functools.partial(_run_starts, between, DECIMAL_BYTES, gap_map),
                               functools.partial(lambda f: [b.count(",") + 2 for b in f], bodies)))
        size += len(pieces[-1]) + 1
    return "\0".join(pieces), parts


def _run_starts(between: str, pattern: re.Pattern[str], gap_map: tuple[list[int], list[int]]) -> list[int]:
    """Where each run a SEPARATED_RUNS pattern (or DECIMAL_BYTES) finds starts in the text: its first pair (or
    "0x", or "["), found in the text between the dump blocks and put back where that lies in the text."""
    if pattern is DECIMAL_BYTES:
        found = [m.start() for m in pattern.finditer(between)]
    else:
        found = [m.start(1) if m.group(1) else m.start(3) - 2 for m in pattern.finditer(between)]
    gap_starts, text_starts = gap_map
    return [at - gap_starts[g] + text_starts[g] for at in found for g in (bisect.bisect_right(gap_starts, at) - 1,)]


def _pair_start(hex_field: str, k: int) -> int:
    """Where byte k's two hex digits start in a field of hex pairs and blanks, read from its layout (pairs apart by
    one space, maybe one wider gap in the middle as hexdump -C has, or xxd's groups of pairs); -1 when the field is
    laid out otherwise (the digits before the place found are not 2k)."""
    lead = len(hex_field) - len(hex_field.lstrip(" "))
    if hex_field[lead + 2:lead + 3] in (" ", ""):
        at = lead + 3 * k  # pairs apart by one space
        gap = hex_field.find("  ", lead)
        if gap >= 0 and at > gap:
            at += 1
    else:  # xxd: groups of g bytes
        end = hex_field.find(" ", lead)
        group = ((end if end >= 0 else len(hex_field)) - lead) >> 1
        at = lead + k // group * (2 * group + 1) + 2 * (k % group)
    pair = hex_field[at:at + 2]
    if len(pair) != 2 or HEX_PAIR.fullmatch(pair) is None:
        return -1
    return at if at - hex_field.count(" ", 0, at) - hex_field.count("\t", 0, at) == 2 * k else -1


# where a dump line's field shows each byte, by kind (hex pairs at any spacing; words, groups, numbers, bits)
BYTE_CELLS = {"words": re.compile(r"[0-9a-fA-F]{4}"), "xxd-le": re.compile(r"[0-9a-fA-F]+"),
              "decimal-od": re.compile(r"-?[0-9]{1,3}"), "bits": re.compile(r"[01]{8}"),
              "separated": re.compile(r"(?:0[xX])?[0-9a-fA-F]{2}")}
BYTES_PER_CELL = {"words": 2, "xxd-le": 4}


def dump_span_columns(text: str, parts: list[_DumpPart], found: list[list]) -> list[tuple[int, int, str]]:
    """Where each of the decoded text's spans `found` ([start, end, label], in order, apart) shows in text: one
    (start, end, label) per column and line."""
    firsts = [part.first for part in parts]
    columns: list[tuple[int, int, str]] = []
    part_start = part_end = -1   # (the part the last span was in: the next one is most often in it too)
    for start, end, label in found:
        while start < end:
            if not part_start <= start < part_end:
                at = bisect.bisect_right(firsts, start) - 1
                part = parts[at]
                part_start, part_end = firsts[at], firsts[at + 1] if at + 1 < len(firsts) else 1 << 62
                starts, line_firsts = part.lines()
                count = len(starts)
                base = part.first
                run = part.kind in ("run", "decimal")
                kind = part.kind
                around = kind in LINES_READ_AROUND
                memo = part.columns
            index = bisect.bisect_right(line_firsts, start - base) - 1
            if index >= count:  # the NUL between two parts
                start += 1
                continue
            while True:   # the part's lines in turn (a dump of a secret: a span over many lines)
                line_first = base + line_firsts[index]
                stop = min(end, base + line_firsts[index + 1])
                k, j = start - line_first, stop - 1 - line_first
                line_start = starts[index]
                if run:
                    columns += [(first, last, label) for first, last in _run_columns(text, kind, line_start, k, j)]
                else:
                    columns += [(line_start + first, line_start + last, label)
                                for first, last in _memo_line_columns(text, kind, around, memo, line_start, k, j)]
                start = stop
                index += 1
                if start >= end or index >= count:
                    break
    return columns


def _memo_line_columns(text: str, kind: str, around: bool, memo: dict, line_start: int, k: int,
                       j: int) -> list[tuple[int, int]]:
    """_line_columns in the line's own offsets, remembered in memo (a part's) by the text the line's match can read:
    a dump of a secret repeats its lines. That text: LINE_FIELDS_BEHIND characters before the line, the line and the
    next line for the kinds whose lines are read with what is around them (`around`), the line alone for the others."""
    line_end = text.find("\n", line_start)
    if around:
        read_end = len(text) if line_end < 0 else text.find("\n", line_end + 1) + 1 or len(text)
        key = (text[max(0, line_start - LINE_FIELDS_BEHIND):read_end], min(line_start, LINE_FIELDS_BEHIND), k, j)
    else:
        read_end = len(text) if line_end < 0 else line_end
        key = (text[line_start:read_end], k, j)
    if read_end - line_start > LINE_FIELDS_MOST_READ:
        return [(a - line_start, b - line_start) for a, b in _line_columns(text, kind, line_start, k, j)]
    own = memo.get(key)
    if own is None:
        own = memo[key] = [(a - line_start, b - line_start) for a, b in _line_columns(text, kind, line_start, k, j)]
    return own


def _run_columns(text: str, kind: str, line_start: int, k: int, j: int) -> list[tuple[int, int]]:
    """Where bytes k..j of a run (hex pairs, or decimals) that starts at line_start show in text."""
    m = (DECIMAL_BYTES if kind == "decimal" else SEPARATED_HEX).match(text, line_start)
    if m is None:
        return []
    found = list((DECIMAL if kind == "decimal" else HEX_PAIR).finditer(text, m.start(), m.end()))
    j = min(j, len(found) - 1)  # (the NUL after it)
    return [(found[k].start(), found[j].end())] if k <= j else []


LINE_FIELDS_BEHIND = 24       # (the most a DUMP_LINE_FIELDS pattern reads before a line: bare's lookbehinds, 22)
LINE_FIELDS_MOST_READ = 8192  # (longer lines are read each time, not remembered)
LINES_READ_AROUND = frozenset({"bare", "bare-decimal"})   # (kinds whose line pattern reads before or after the line)


def _line_columns(text: str, line_kind: str, line_start: int, k: int, j: int) -> list[tuple[int, int]]:
    """_dump_columns of a dump line of a kind (not a run's) that starts at line_start."""
    m = DUMP_LINE_FIELDS[line_kind].match(text, line_start)
    if m is None:
        return []
    name = "cells" if line_kind in ("od", "decimal-od", "bare-decimal") else "hex"
    field = m.group(name)
    size = _field_size(line_kind, field)
    j = min(j, size - 1)  # (the NULs after a block's last line)
    if k > j:
        return []
    base = m.start(name)
    if line_kind == "od":
        return [(base + 4 * k + 1, base + 4 * j + 4)]
    kind = READ_AS.get(line_kind, line_kind)
    if k == 0 and j == size - 1:  # the whole line (a dump of a secret: most lines), whatever its layout
        columns = [(base + len(field) - len(field.lstrip(" \t")), base + len(field.rstrip(" \t:,-")))]
    elif kind in ("hex", "xxd", "bare") and min(first := _pair_start(field, k), last := _pair_start(field, j)) >= 0:
        columns = [(base + first, base + last + 2)]
    else:  # the cells that hold bytes k..j: a word holds 2, an xxd -e group 4, any other cell 1
        per_cell = BYTES_PER_CELL.get(kind, 1)
        cells = list(BYTE_CELLS.get(kind, HEX_PAIR).finditer(field))
        columns = [(base + cells[k // per_cell].start(), base + cells[min(j // per_cell, len(cells) - 1)].end())]
    column = -1
    if kind in ("bare", "words", "separated", "decimal-od"):  # no character column
        pass
    elif line_kind in ("xxd", "xxd-le", "bits"):
        shown = m.group("text").rstrip("\r")
        column = m.start("text") + len(shown) - size if len(shown) >= size else -1
    elif m.group("pipe") is not None and len(m.group("pipe")) == size:
        column = m.start("pipe")
    elif m.group("angle") is not None and len(m.group("angle")) == size:
        column = m.start("angle")
    if column >= 0:
        columns.append((column + k, column + j + 1))
    return columns


def _dump_lines_start(text: str, end: int, limit: int = DUMP_HOLD_LINES) -> int:
    """Where the dump lines that end at `end` (just after a newline) start, `limit` of them at most; `end` where
    the line before it is none."""
    while limit and end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        if not _dump_line_at(text, start, end - 1):
            break
        end = start
        limit -= 1
    return end


# A dump line behind a log prefix (`2026-11-23 12:00:01 INFO 00000000: 5375 7033 ...`, `[rank0]: 00000000  53 75 ...`,
# `svc-1  | 0000000 ...`, `INFO:root:00000000: ...`): any text before the dump's offset on its line, when the offset
# starts with 000 (od's first 4 KiB, hexdump's 64 KiB, xxd's 1 MiB) right after a blank, ":", "|", "]" or ">", and
# the rest of the line is a whole dump line of a kind with offsets. Found from the literal 000; Python runs only at
# such places.
PREFIXED_DUMP_HINT = re.compile(r"000(?<=[ \t:|\]>]000)[0-9a-fA-F]{0,13}(?::? {1,4}[0-9a-fA-F]{2}[0-9a-fA-F]{0,6} {1,4}"
                                r"[0-9a-fA-F]{2}|(?: {1,3}\S{1,3}){2} )")
OFFSET_KINDS = tuple(DUMP_LINES[kind] for kind in ("hex", "xxd", "od", "words", "xxd-le", "bits", "decimal-od"))


def _dump_prefix_edits(text: str) -> list[tuple[int, int, str]]:
    """Where dump lines sit behind a log prefix (PREFIXED_DUMP_HINT): each prefix, to be cut from the view the dump
    rules read (so the lines of a block, each with its own time, are one block there)."""
    edits: list[tuple[int, int, str]] = []
    done = -1
    for m in PREFIXED_DUMP_HINT.finditer(text):
        start = m.start()
        if start < done:
            continue
        line = text.rfind("\n", 0, start) + 1
        newline = text.find("\n", start)
        newline = len(text) if newline < 0 else newline
        if any((d := pattern.match(text, start)) is not None and d.end() == newline for pattern in OFFSET_KINDS):
            edits.append((line, start, ""))
            done = newline
    return edits


def _prefixed_dump_line(text: str, start: int, newline: int) -> bool:
    """Whether the line from start to newline is a dump line behind a log prefix (see _dump_prefix_edits)."""
    m = PREFIXED_DUMP_HINT.search(text, start, newline if newline >= 0 else len(text))
    return m is not None and bool(_dump_prefix_edits(text[start:newline if newline >= 0 else len(text)]))


DUMP_LINE_MOST = 16384   # no dump line is longer (4096 bytes as separated pairs)


def _dump_line_at(text: str, start: int, newline: int) -> bool:
    """Whether the line from start to its newline (or the text's end) is a dump line (see _dump_parts), read in
    its text: a short bare line is one only beside others. (A line's CR goes with the pattern's `\\r?`.)"""
    for pattern in DUMP_LINES.values():
        m = pattern.match(text, start)
        if m is not None and m.end() == newline:
            return True
    end = newline if newline >= 0 else len(text)
    if end - start > DUMP_LINE_MOST:
        return False
    if "\x1b" in text[start:end]:   # a coloured dump line (its offset in cyan) is read without its codes
        line = CSI.sub("", text[start:end])
        return any(pattern.fullmatch(line) is not None for pattern in DUMP_LINES.values()) or _prefixed_dump_line(
            line, 0, len(line))
    return _prefixed_dump_line(text, start, newline)


# Every character of a text escaped, as serializers, shells and HTML print it: runs of 5 or more (the shortest
# secret), each kind found from its literal (the scan skips to it), all runs of a kind decoded at once (C-level
# string and bytes operations) to the text they stand for, a NUL after each run. An escaped NUL inside a run
# (no secret holds one) is dropped, so the NULs count the runs and UTF-16 escaped reads as its text.
def _utf8(data: bytes) -> str:
    return data.decode("utf-8", "replace")


HTML_NUMERIC = re.compile(r"&#([xX]?)([0-9A-Fa-f]{1,7});|\0")
HTML_DECIMAL = re.compile(r"&#([0-9]{1,7});")
HTML_ZERO = re.compile(r"&#(?:[xX])?0+;")


def _html_numeric(runs: list[str]) -> str:
    joined = HTML_ZERO.sub("", "\0".join(runs))
    if "x" not in joined and "X" not in joined:   # decimal alone (the common case): numbers and characters in C
        codes = list(map(int, HTML_DECIMAL.findall(joined.replace("\0", "&#0;"))))
        if codes and max(codes) >= 0x110000:
            codes = [code if code < 0x110000 else 1 for code in codes]
        return "".join(map(chr, codes))
    out = []
    for x, digits in HTML_NUMERIC.findall(joined):
        if not digits:
            out.append("\0")
            continue
        code = int(digits, 16 if x else 10)
        out.append(chr(code) if code < 0x110000 else "\x01")
    return "".join(out)


ESCAPED_RUNS: list[tuple[str, re.Pattern[str], Callable[[list[str]], str]]] = [
    ("%", re.compile(r"(?:%[0-9A-Fa-f]{2}){5,4096}"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("%00", "").replace("%", "").replace("\n", "00")))),
    ("&#", re.compile(r"(?:&#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6});){5,4096}"), _html_numeric),
    ("\\u", re.compile(r"(?:\\u[0-9A-Fa-f]{4}){5,4096}"),
     lambda runs: "\n".join(runs).replace("\\u0000", "").replace("\n", "\\u0000").encode("latin-1")
     .decode("unicode_escape")),
    ("\\x", re.compile(r"(?:\\x[0-9A-Fa-f]{2}){5,4096}"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("\\x00", "").replace("\\x", "").replace("\n", "00")))),
    ("\\", re.compile(r"(?:\\[0-3][0-7]{2}){5,4096}"),
     lambda runs: _utf8("\n".join(runs).replace("\\000", "").replace("\n", "\\000").encode("latin-1")
                        .decode("unicode_escape").encode("latin-1"))),
    ("0x", re.compile(r"(?:0x[0-9A-Fa-f]{2} ){4,4095}0x[0-9A-Fa-f]{2}(?![0-9A-Za-z])"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("0x00", "").replace("0x", "").replace("\n", "00")))),
    # (UTF-16 either way round: which side of its NUL a character is on cannot be told at a run's ends)
    ("\0", re.compile(r"\x00?(?:[\x20-\x7e]\x00){4,4095}[\x20-\x7e]\x00?"),
     lambda runs: "\n".join(runs).replace("\0", "").replace("\n", "\0")),
    # ... and as Python prints its bytes: print(token.encode("utf-16-le")) gives b'h\x00f\x00_\x00...'
    ("\\x00", re.compile(r"(?:\\x00)?(?:[\x20-\x5b\x5d-\x7e]\\x00){4,4095}[\x20-\x5b\x5d-\x7e](?:\\x00)?"),
     lambda runs: "\n".join(runs).replace("\\x00", "").replace("\n", "\0")),
]
