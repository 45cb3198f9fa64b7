"""Result tables whose header names a secret column: a CSV or TSV export (`user,password,role` then `bob,X,admin`), a
markdown table (`| user | password |`, `|---|---|`, rows), psql's (` username | password`, `-----+-----`, rows, `(1
row)`) and mysql's (`+---+---+` borders). The cells under a secret column go; every other cell and the layout stay.

A column is secret where its name is (is_secret_name, without the bare KEY or PIN; a name of when, `password_changed_at`,
is not; `token_count`, `num_tokens`, `tokens/s` never were). Under a password's, a secret's or a credential's column any
value goes but a setting, a number, nothing or a mask (`NULL`, `***`, `(none)`); under any other (`token`, `api_key`) a
value shaped as a password (looks_like_password: a tokenizer's `| 5 | hello |` stays).

A header is a line of 2 to 64 names apart by one delimiter (a tab, `|` or `,`), maybe behind a log prefix (`[rank0]: `,
a timestamp, srun's `0: `: the first cell is the first piece's last word, or the piece is dropped where it ends with no
name, a table's leading bar). Its rows are the lines after it with as many cells, separator lines (`|---|`, `+---+`,
`---+---`) passed over; the first line of another shape ends the table. Found from the secret words' places in the
lower-cased text, where such a word's cell ends at a delimiter or the line's
end (CELL_ENDS: led by the word, the engine skips to it): plain log text pays one scan (`ke`).

A stream holds a table's rows with its header (table_hold), up to TABLE_HOLD_LINES lines."""

from __future__ import annotations

import functools
import re

from .announced import announced_hold, announced_spans
from .distinct_lines import few_distinct_lines
from .line_views import LOG_PREFIX, without_log_prefix
from .names import (
    _names_a_when, _secret_name_cached, cannot_be_secret, looks_generated, looks_like_password, name_words, says_absent,
)
from .references import token_value_is_credential
from .spans import REDACTED, Span, has

# the words one of which a secret column's name holds, lower-cased: those the Redactor looked for already (its line views'
# and secret stores' gate words: free here), and `key` and `token` found in one scan (led by their common `ke`: api_key,
# access_key, hf_token). (`pw`, `cred` and `pass` alone are left out: one more scan each, about 1.5 ms per 2 MB, for
# names tables seldom have.)
GATE_TABLE_WORDS = ("passw", "secret", "auth")
# (the name's run is possessive: a character given back is [\w.-], which no blank, delimiter or line end can be, so no
# match is lost, and a word inside a long run (`key-key-...`, `tokenpassword_secret.` repeated) costs 48 steps, not 48 x 4)
_CELL_END = r"[\w.-]{0,48}+[ \t]{0,32}(?:[,\t|]|\r?$)"
CELL_ENDS = [(word, re.compile(re.escape(word) + _CELL_END, re.M)) for word in GATE_TABLE_WORDS] + [
    ("", re.compile(r"ke(?:y|(?<=toke)n)" + _CELL_END, re.M))]
HEADER_CELL = re.compile(r"[A-Za-z_][\w./-]{0,63}(?: [A-Za-z_][\w./-]{0,31}){0,2}")   # (three words at most: `api key`)
SEPARATOR_CHARACTERS = " \t|+:=-"
NAME_END = re.compile(r"[\w./-]")
MOST_CELLS = 64
TABLE_HOLD_LINES = 64   # rows a stream holds with their header (PRINTED_FORM_HOLD_LINES)
# a column whose every value is secret (no shape asked): a password's, a secret's, a credential's
ANY_VALUE_WORDS = frozenset({"password", "passwords", "passwd", "pass", "pw", "pwd", "passphrase", "passcode", "secret",
                             "secrets", "credential", "credentials", "creds", "cred", "dbpass"})


def _separator(line: str) -> bool:
    """Whether a line is a table's rule (`|---|---|`, `+---+`, `----+----`), maybe behind a log prefix."""
    end = len(line.rstrip(SEPARATOR_CHARACTERS))
    if line.startswith((": ", ":\t"), end):
        end += 1   # (a log prefix's colon: `0: ----+----`; a rule's own is before a dash: `|:---|`)
    return line.find("--", end) >= 0 and (not end or line[end - 1] in ":]" or line[end] in " \t")


def _delimiter(line: str) -> str | None:
    for delimiter in ("\t", "|", ","):
        if delimiter in line:
            return delimiter
    return None


def _cells(line: str, delimiter: str) -> list[tuple[int, int]] | None:
    """The cells of a line (offsets, blanks around them included), its log prefix and a table's outer bars left out:
    None where the line has fewer than 2 or more than MOST_CELLS."""
    pieces: list[tuple[int, int]] = []
    at = 0
    while True:
        next_at = line.find(delimiter, at)
        if next_at < 0:
            pieces.append((at, len(line)))
            break
        pieces.append((at, next_at))
        at = next_at + 1
        if len(pieces) > MOST_CELLS + 1:
            return None
    first_start, first_end = pieces[0]
    head = line[first_start:first_end].rstrip(" \t")
    if not head or NAME_END.fullmatch(head[-1]) is None:
        if delimiter != "|" or (head and head[-1] not in ":]"):
            return None   # (only a table's bar leads its row: `f(x), y, z` is code)
        pieces.pop(0)   # (a leading bar, maybe behind a log prefix: `| a | b |`, `[rank0]: | a | b |`)
    else:   # (the first cell is the piece's last word: what is before it is a log prefix, or an indent)
        word_start = max(head.rfind(" "), head.rfind("\t")) + 1
        pieces[0] = (first_start + word_start, first_end)
    if pieces and delimiter == "|" and not line[pieces[-1][0]:pieces[-1][1]].strip():
        pieces.pop()   # (a trailing bar)
    return pieces if 2 <= len(pieces) <= MOST_CELLS else None


@functools.lru_cache(maxsize=1024)
def _secret_column(name: str) -> int:
    """0: no secret column; 1: a secret column, its values judged by shape; 2: one whose every value is secret."""
    name = name.strip().replace(" ", "_")
    if not name or not _secret_name_cached(name) or _names_a_when(name):
        return 0
    return 2 if not ANY_VALUE_WORDS.isdisjoint(name_words(name)) else 1


def _secret_cell(value: str, kind: int) -> bool:
    value = value.strip().strip("'\"")
    if (len(value) < 3 or value == REDACTED or cannot_be_secret(value) or says_absent(value)
            or not any(c.isalnum() for c in value)):
        return False
    if kind == 3:   # (a column named only TOKEN or KEY: a tokenizer's `| 6 | world2 |` stays; a generated value goes)
        return _aligned_secret(value, kind)
    return kind == 2 or looks_like_password(value)


def _header(line: str) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]] | None:
    """A header's delimiter, its cells and its secret columns (index, kind); None where the line is no such header."""
    delimiter = _delimiter(line)
    if delimiter is None:
        return None
    cells = _cells(line, delimiter)
    if cells is None:
        return None
    secret = []
    for index, (start, end) in enumerate(cells):
        name = line[start:end].strip(" \t")
        if HEADER_CELL.fullmatch(name) is None or (delimiter == "," and len(name) != end - start):
            return None   # (a CSV header's names have no blanks around them: `a, b, c` is prose or code)
        if kind := _bare_column(name) or _secret_column(name):
            secret.append((index, kind))
    return (delimiter, cells, secret) if secret else None


def _row_end(text: str, at: int) -> int:
    newline = text.find("\n", at)
    return len(text) if newline < 0 else newline


def _table_spans(text: str, line_start: int) -> tuple[list[Span], int]:
    """The spans of the table whose header is the line at line_start, and where the table ends (its last row's end)."""
    line_end = _row_end(text, line_start)
    header = _header(text[line_start:line_end].rstrip("\r"))
    if header is None:
        return [], line_end
    delimiter, cells, secret = header
    names = [text[line_start + cells[index][0]:line_start + cells[index][1]].strip(" \t") for index, _ in secret]
    spans: list[Span] = []
    at = line_end + 1
    while at < len(text):
        end = _row_end(text, at)
        line = text[at:end].rstrip("\r")
        if not _separator(line):
            row = _cells(line, delimiter) if delimiter in line else None
            if row is None or len(row) != len(cells):
                break
            for (index, kind), name in zip(secret, names):
                start, stop = row[index]
                value = line[start:stop]
                if value.strip(" \t") != name and _secret_cell(value, kind):   # (not the header again)
                    first = start + len(value) - len(value.lstrip(" \t"))
                    spans.append((at + first, at + start + len(value.rstrip(" \t")), REDACTED, "secret-named value",
                                  line_start))
        line_end = end
        at = end + 1
    return spans, line_end


def header_table_spans(text: str, lower: str, words: frozenset[str]) -> list[Span]:
    """The cells under a secret column of every table in text (see the module's docstring); `words`: the Redactor's gate
    words that lower holds (GATE_TABLE_WORDS among them)."""
    starts: set[int] = set()   # (the lines that may be a header: a line may hold two secret words)
    if "," in text or "\t" in text or "|" in text:   # (a header holds a delimiter (_delimiter): none, no table)
        for word, cell_end in CELL_ENDS:
            if word and word not in words:
                continue
            starts.update(lower.rfind("\n", 0, m.start()) + 1 for m in cell_end.finditer(lower))
    spans: list[Span] = []
    read_to = -1   # (a line inside a table read already is one of its rows: each line is read once)
    for line_start in sorted(starts):
        if line_start > read_to:
            found, read_to = _table_spans(text, line_start)
            spans += found
    return spans + aligned_listing_spans(text, lower, words) + announced_spans(text, lower)


# ---- listings aligned by blanks: `user      password` then `bob       X` (a header of names two or more blanks apart, rows
# whose cells start in the header's columns) ----
# (not `token`: ML logs' word; each branch led by its letter, the look-behind after it, so that the engine skips to the
# letters c, p, s: the look-behind first made it try the whole alternation at every character, 0.03 s/MB of a hexdump)
ALIGNED_WORDS = re.compile(r"passw|secret|p(?<![a-z]p)(?:ass|wd)(?![a-z])|c(?<![a-z]c)redentials?(?![a-z])")
# ... and a column named only TOKEN or KEY (h22a: `NAME  TOKEN`, kubeadm's `TOKEN  TTL  EXPIRES`, `user  key`), each led
# by its word; the values under it must read as generated (a tokenizer's `NAME  TOKEN` / `eos  </s>`, a config's
# `key  value` / `lr  0.001` stay)
BARE_COLUMN_WORDS = [(word, re.compile(word + f"(?<![a-z0-9_]{word})(?![a-z0-9_/.-])")) for word in ("token", "key")]
BARE_COLUMNS = frozenset({"token", "key", "tokens", "keys"})
ALIGNED_GAP = re.compile(r"[ \t]{2,}|\t")
ALIGNED_HEADER_CELL = re.compile(r"[A-Za-z_][A-Za-z_./-]{0,31}(?: [A-Za-z_][A-Za-z_./-]{0,31})?")   # (no digits: a row's)
ALIGNED_MOST_COLUMNS = 12


def _aligned_line_header(line: str) -> tuple[list[int], list[tuple[int, int]], int] | None:
    """A line's header aligned by blanks (_aligned_header), maybe behind a log prefix: its columns' starts, its secret
    columns and the prefix's length (a log prefix every line of the listing has: `[rank0]: `, compose's `api-1  | `)."""
    header = _aligned_header(line)
    lead = 0
    if header is None and (prefix := LOG_PREFIX.match(line)) is not None:   # (LOG_PREFIX looks neither back nor past)
        lead = prefix.end()
        header = _aligned_header(line[lead:])
    return None if header is None else (header[0], header[1], lead)


def _aligned_header(line: str) -> tuple[list[int], list[tuple[int, int]]] | None:
    """The columns' starts of a header aligned by blanks and its secret columns (index, kind); None where the line is
    not one (2 to ALIGNED_MOST_COLUMNS names, each two or more blanks from the next, no other characters)."""
    if "\t" not in line and "  " not in line:
        return None
    body = line.rstrip(" \t\r")
    indent = len(body) - len(body.lstrip(" \t"))
    starts, cells = [], []
    at = indent
    for gap in ALIGNED_GAP.finditer(body, indent):
        cells.append(body[at:gap.start()])
        starts.append(at)
        at = gap.end()
        if len(cells) >= ALIGNED_MOST_COLUMNS:
            return None   # (a cell more is too many: a long line of blanks and words is read no further)
    cells.append(body[at:])
    starts.append(at)
    if not 2 <= len(cells) <= ALIGNED_MOST_COLUMNS or not all(ALIGNED_HEADER_CELL.fullmatch(cell) for cell in cells):
        return None
    if len(cells) == 2 and cells[0].lower() == "key" and cells[1].lower() == "value":
        return starts, [(1, 4)]   # (vault's `Key  Value`: a value goes where its row's key names a secret)
    secret = [(index, kind) for index, cell in enumerate(cells) if (kind := _bare_column(cell) or _secret_column(cell))]
    return (starts, secret) if secret and len(secret) < len(cells) else None   # (and a column of names: user, NAME)


def _bare_column(cell: str) -> int:
    """3 for a column named only TOKEN or KEY (its values judged as generated), else 0."""
    return 3 if cell.lower() in BARE_COLUMNS else 0


def _aligned_row(line: str, starts: list[int], lead: int = 0) -> list[tuple[int, int]] | None:
    """A row's cells, each starting in its header's column (after a blank) and ending at a blank: None where not
    (`lead`: the length of the log prefix before the row, the header's too)."""
    line = line.rstrip(" \t\r")
    if not line or len(line) <= lead or line[lead] in " \t" and starts[0] == lead or len(line) <= starts[-1]:
        return None
    cells = []
    for index, start in enumerate(starts):
        if line[start] in " \t" or (start > lead and line[start - 1] not in " \t"):
            return None
        end = start
        while end < len(line) and line[end] not in " \t":
            end += 1
        if index + 1 < len(starts) and end >= starts[index + 1]:
            return None
        cells.append((start, end))
    return cells


def _aligned_secret(value: str, kind: int) -> bool:
    if kind == 2:
        return _secret_cell(value, kind)
    if kind == 3:   # (a column named only TOKEN or KEY: a credential, not a tokenizer's piece; one rule with a JSON
        return token_value_is_credential(value)   # record's one `token` key: references.token_value_is_credential)
    return looks_generated(value)


def aligned_listing_spans(text: str, lower: str, words: frozenset[str]) -> list[Span]:
    """The cells under a secret column of listings aligned by blanks (see _aligned_header)."""
    spans: list[Span] = []
    if "  " not in text and "\t" not in text:
        return spans
    if (distinct := few_distinct_lines(text)) is not None and not any(map(_aligned_line_header, distinct)):
        return spans   # (a text of few distinct lines, none a header: each read once)
    read_to = -1
    found = [m.start() for m in ALIGNED_WORDS.finditer(lower)]
    for word, pattern in BARE_COLUMN_WORDS:
        if has(lower, word):
            found += [m.start() for m in pattern.finditer(lower)]
    headers: dict[str, tuple[list[int], list[tuple[int, int]], int] | None] = {}   # (each line read once: lines repeat)
    for at in sorted(found) if len(found) > 1 else found:
        line_start = lower.rfind("\n", 0, at) + 1
        if line_start <= read_to:
            continue
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        read_to = line_end
        line = text[line_start:line_end]
        if (header := headers.get(line, headers)) is headers:
            header = headers[line] = _aligned_line_header(line)
        if header is None:
            continue
        starts, secret, lead = header
        starts = [start + lead for start in starts]
        at = line_end + 1
        while at < len(text):
            end = _row_end(text, at)
            if lead and ((prefix := LOG_PREFIX.match(text, at, end)) is None or prefix.end() - at != lead):
                break
            cells = _aligned_row(text[at:end], starts, lead)
            if cells is None:
                break
            for index, kind in secret:
                start, stop = cells[index]
                value = text[at + start:at + stop]
                if kind == 4:   # (the row's key names a secret, its value is one: `password    X`, `api_key    X`)
                    kind = 2 if _secret_column(text[at + cells[0][0]:at + cells[0][1]]) else 0
                    if stop < len(text) and text[at + stop:end].strip(" \t\r"):
                        kind = 0   # (a value of words: the rules of prose)
                if kind and value != text[line_start + starts[index]:line_start + starts[index] + len(value)] and (
                        _aligned_secret(value, kind)):   # (not the header again)
                    spans.append((at + start, at + stop, REDACTED, "secret-named value", line_start))
            read_to = end
            at = end + 1
    return spans


# aligned_hold's verdict on a line, by the line (a stream's hold asks it of the same lines round after round, try after
# try: a listing's rows, a log's lines): whether it or its view (without_log_prefix) is an aligned header. Only short
# lines are kept, and the table is emptied when full.
ALIGNED_VERDICTS: dict[str, bool] = {}
ALIGNED_VERDICT_MOST_CHARS = 512
ALIGNED_VERDICT_MOST_LINES = 4096


def aligned_hold(buffer: str, start: int, cut: int) -> int:
    """Where a stream cuts so that a listing's rows are read with its header (TABLE_HOLD_LINES lines up at most)."""
    at = start
    verdicts = ALIGNED_VERDICTS
    for _ in range(TABLE_HOLD_LINES):
        line = buffer[at:end if (end := buffer.find("\n", at, cut)) >= 0 else cut]
        if "  " not in line and "\t" not in line:
            return cut   # (neither a header nor a row)
        if (header := verdicts.get(line)) is None:
            header = _aligned_header(line) is not None or _aligned_header(without_log_prefix(line)) is not None
            if len(line) <= ALIGNED_VERDICT_MOST_CHARS:
                if len(verdicts) >= ALIGNED_VERDICT_MOST_LINES:
                    verdicts.clear()
                verdicts[line] = header
        if header:
            return at
        if at == 0:
            return cut
        at = buffer.rfind("\n", 0, at - 1) + 1
    return cut


def table_hold(buffer: str, start: int, cut: int) -> int:
    """Where a stream cuts so that a table's rows are read with its header: before the header where the last line is
    the header or one of its rows (TABLE_HOLD_LINES lines up at most), else the cut; the same for a listing aligned by
    blanks (aligned_hold) and a line that announces a secret on the next (announced.announced_hold)."""
    return min(_delimited_table_hold(buffer, start, cut), aligned_hold(buffer, start, cut),
               announced_hold(buffer, start, cut))


def _delimited_table_hold(buffer: str, start: int, cut: int) -> int:
    line = buffer[start:cut].rstrip("\r\n")
    delimiter = _delimiter(line)
    if delimiter is None and not _separator(line):
        return cut
    count = None if delimiter is None else line.count(delimiter)
    at = start
    for _ in range(TABLE_HOLD_LINES):
        line = buffer[at:buffer.find("\n", at, cut) if buffer.find("\n", at, cut) >= 0 else cut].rstrip("\r")
        if not _separator(line):
            if delimiter is None:
                delimiter = _delimiter(line)
                if delimiter is None:
                    return cut
                count = line.count(delimiter)
            elif line.count(delimiter) != count:
                return cut
            if _header(line) is not None:
                return at
        if at == 0:
            return cut
        at = buffer.rfind("\n", 0, at - 1) + 1
    return cut


def open_table_header(text: str) -> str | None:
    """The header line (with its line break) of the secret table text ends in, its last line one of its rows; None where
    it ends in none. A stream reads its next piece after it (rows past TABLE_HOLD_LINES go on under their header)."""
    end = len(text)
    if not text.endswith("\n") or not _named_secret(text):
        return None   # (a header is a line that names a secret: a text with no such word has none)
    count = delimiter = None
    seen: dict[str, tuple[bool, bool]] = {}   # (a line read before: whether it is a rule, whether a secret header)
    while end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        line = text[start:end]
        if (known := seen.get(line)) is None:
            stripped = line.rstrip("\r\n")
            known = seen[line] = (_separator(stripped), _named_secret(stripped) and _header(stripped) is not None)
        if not known[0]:
            if delimiter is None:
                if (delimiter := _delimiter(line)) is None:
                    return None
                count = line.count(delimiter)
            elif line.count(delimiter) != count:
                return None
            if known[1]:
                return line
        end = start
    return None


def _named_secret(line: str) -> bool:
    lower = line.lower()
    return "ke" in lower or any(word in lower for word in GATE_TABLE_WORDS)
