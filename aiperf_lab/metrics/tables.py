"""The one shape every reader produces: a named table of plain values (int, float, str or None)."""

from __future__ import annotations

import csv
import io
import math
import re
from itertools import islice
from typing import TextIO

from aiperf_lab.inputs import has_unprintable, printable

# Cells are int, float, str or None. Plain classes here, not dataclasses: this module is on the
# start-up path of every `aiperf-stats` run, where importing dataclasses costs more than the work.


class Table:
    """A report: `name` is the report id (e.g. ``cuda_gpu_kern_sum``), `title` its display name.

    `notes` are caveats a reader must see next to the numbers (e.g. "CUDA graphs traced as a whole").
    """

    __slots__ = ("name", "title", "columns", "rows", "notes")

    def __init__(self, name: str, title: str, columns: list[str], rows: list[list], notes: list[str] | None = None):
        self.name = name
        self.title = title
        self.columns = columns
        self.rows = rows
        self.notes = notes if notes is not None else []

    def __repr__(self) -> str:
        return f"Table({self.name!r}, {len(self.rows)} rows)"

    def column(self, name: str) -> list:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def as_dicts(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]


class ColumnRows:
    """A table's rows held as columns (lists of one length), as a report computes them: CSV is written
    from the columns; a row (a list) is made only where one is asked for."""

    __slots__ = ("columns", "_rows")

    def __init__(self, columns: list[list]):
        self.columns = columns
        self._rows: list[list] | None = None

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def __iter__(self):
        return iter(self._rows) if self._rows is not None else map(list, zip(*self.columns))

    def __getitem__(self, index):
        if self._rows is None:
            self._rows = list(map(list, zip(*self.columns)))
        return self._rows[index]


class Fixed3(float):
    """A float that prints with three decimals ("30.720", "0.000"), as nsys prints MB and scaled times."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{float(self):.3f}"

    __str__ = __repr__


def format_value(value) -> str:
    """Text form of a cell, as nsys's CSV writer prints it: None is empty, floats use Python's repr.

    Control characters in text from a file (ESC, newlines, ...) come out escaped (``\\x1b``), so no
    output of ours can drive a terminal; names without them keep nsys's exact bytes.
    """
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return printable(value)
    return str(value)


def json_cell(value):
    """A cell as JSON holds it: NaN and infinities (ncu writes "nan") become null; text stays exact
    (json escapes control characters itself)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_csv(table: Table, stream) -> None:
    """CSV written in chunks of rows as the table yields them: a streamed trace never sits in memory whole.

    Each chunk is written column by column (csv_lines): a column of numbers is one map(repr) in C, a
    column of text looks each distinct value up once; bytes as the csv module writes them row by row
    (which a chunk it cannot take goes through)."""
    writer = csv.writer(stream, lineterminator="\n")
    # (a column's name can hold what the user typed: --work-unit names the energy reports' per-unit column)
    writer.writerow([printable(c) if c.__class__ is str else c for c in table.columns])
    width = len(table.columns)
    forms: dict = {None: ""}
    if isinstance(table.rows, ColumnRows) and len(table.rows.columns) == width:
        columns = table.rows.columns
        for lo in range(0, len(table.rows), 4096):
            text = csv_columns([column[lo:lo + 4096] for column in columns], forms)
            if text is None:
                writer.writerows([[printable(v) if v.__class__ is str else v for v in row]
                                  for row in zip(*(column[lo:lo + 4096] for column in columns))])
            else:
                stream.write(text)
        return
    rows = iter(table.rows)
    while True:
        chunk = list(islice(rows, 4096))
        if not chunk:
            return
        text = csv_lines(chunk, width, forms)
        if text is not None:
            stream.write(text)
            continue
        # csv itself writes None as "", floats with repr() and other values with str(), as format_value
        # does: only text needs our escaping.
        writer.writerows([[printable(v) if v.__class__ is str else v for v in row] for row in chunk])


_NUMBER_CELLS = frozenset({int, float, bool, Fixed3, type(None)})
_QUOTED_CHARS = re.compile('[,"]')  # (line breaks and other controls are escaped by printable first)


def csv_lines(rows: list, width: int, forms: dict) -> str | None:
    """`rows` (each `width` cells of one kind per column: numbers and None, or text and None) as the
    csv module writes them, "\n" after each; None where a row or a column is not of that shape.
    `forms` caches the CSV form of text cells between calls (None -> "")."""
    if width < 2 or len(set(map(len, rows))) != 1 or len(rows[0]) != width:
        return None  # (a lone empty field is written '""' by csv)
    return csv_columns(list(zip(*rows)), forms)


def csv_columns(columns: list, forms: dict) -> str | None:
    """csv_lines for rows given as columns (sequences of one length, at least two of them)."""
    if len(columns) < 2 or len(set(map(len, columns))) != 1:
        return None
    cells = []
    for column in columns:
        kinds = set(map(type, column))
        if kinds <= _NUMBER_CELLS:
            texts = list(map(repr, column))  # csv: repr() of floats, str() of the rest (the same here)
            cells.append(list(map(forms.get, column, texts)) if type(None) in kinds else texts)
        elif all(issubclass(kind, str) for kind in kinds - {type(None)}):
            distinct = set(column)
            distinct.discard(None)
            joined = " ".join(distinct)
            if not _QUOTED_CHARS.search(joined) and not has_unprintable(joined):
                cells.append(list(map(forms.get, column, column)) if type(None) in kinds else column)
                continue
            if len(forms) > 8192:  # bounded: a column of distinct names (a trace's stacks) must not grow it
                forms.clear()
                forms[None] = ""
            for value in distinct - forms.keys():
                forms[value] = _csv_text(printable(value) if value.__class__ is str else value)
            cells.append(list(map(forms.__getitem__, column)))
        else:
            return None
    return "\n".join(map(",".join, zip(*cells))) + "\n"


def _csv_text(value: str) -> str:
    """A text cell as csv writes it within a row (quoted where it holds a comma or a quote)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([value, ""])
    return buffer.getvalue()[:-2]  # (less the empty second cell's "," and the line end)


def to_csv(table: Table) -> str:
    """CSV with a header row, '\\n' line ends and minimal quoting (what `nsys stats --format csv` writes)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([format_value(v) for v in row])
    return buffer.getvalue()


# --timeunit: nsys's names, the header suffix, the divisor from nanoseconds and the decimals printed.
# Only usec is checked against nsys 2025.3.1's output; msec and sec follow the same rule.
TIME_UNITS = {"nsec": ("ns", 1, 0), "usec": ("us", 1_000, 3), "msec": ("ms", 1_000_000, 6),
              "sec": ("s", 1_000_000_000, 9)}


def in_time_unit(table: Table, unit: str) -> Table:
    """The table with every "(ns)" column in `unit` (nsys's --timeunit): "Avg (us)", 168.944."""
    suffix, divisor, decimals = TIME_UNITS[unit]
    if divisor == 1:
        return table
    scaled = [i for i, c in enumerate(table.columns) if c.endswith(" (ns)")]
    if not scaled:
        return table
    columns = list(table.columns)
    for i in scaled:
        columns[i] = columns[i][:-len("(ns)")] + f"({suffix})"
    factor = 1 / divisor  # nsys multiplies by the factor: 11105.5 ns * 0.001 prints 11.106, / 1000 11.105

    def text(value) -> str:
        return f"{value * factor:.{decimals}f}"

    def rows():
        for row in table.rows:
            row = list(row)
            for i in scaled:
                if row[i] is not None:
                    row[i] = ScaledTime(text(row[i]))
            yield row

    out = rows()
    return Table(table.name, table.title, columns, out if not isinstance(table.rows, list) else list(out), table.notes)


class ScaledTime(str):
    """A number already formatted (a scaled time); kept as text so every writer prints it as is."""

    __slots__ = ()


def to_json_obj(table: Table) -> dict:
    """A table as JSON: non-finite numbers as null (JSON has no NaN), everything else as is."""
    rows = [{column: json_cell(value) for column, value in zip(table.columns, row)} for row in table.rows]
    return {"report": table.name, "title": table.title, "columns": table.columns, "rows": rows,
            "notes": table.notes}


def to_json(tables: list[Table]) -> str:
    import json

    # ensure_ascii (the default) writes lone surrogates from a damaged trace as \\ud800 escapes, never raw.
    return json.dumps([to_json_obj(t) for t in tables], indent=2, allow_nan=False, default=str)


def write_json(tables: list[Table], out: TextIO) -> None:
    """What to_json gives, byte for byte, written as the rows come: a trace report's rows are never all in
    memory (one of 1,000-deep NVTX stacks is hundreds of MB of JSON from a few MB of export)."""
    import json
    import secrets
    from json.encoder import encode_basestring_ascii as quote   # (json's own quoting, in C)

    def cell_text(value) -> str:   # a cell as json.dumps writes it in to_json (json_cell first)
        if isinstance(value, str):
            return quote(value)
        if value is None or value is True or value is False:
            return "null" if value is None else "true" if value else "false"
        if isinstance(value, int):
            return int.__repr__(value)
        if isinstance(value, float):
            return float.__repr__(value) if math.isfinite(value) else "null"
        # (a list or dict in a cell: laid out over lines at its depth, as to_json does)
        return json.dumps(json_cell(value), indent=2, allow_nan=False, default=str).replace("\n", "\n        ")

    # The document without its rows, each table's rows a marker string, then cut at the markers: the rows go
    # between, each laid out as json.dumps(indent=2) lays it at its depth (6 spaces: list, table, rows). A row
    # is put together from its cells, not by json.dumps(indent=...): that encoder is the pure-Python one, whose
    # generators make reference cycles per call, which aiperf-stats (its cycle collector off) never frees.
    markers = [f"rows-{secrets.token_hex(16)}" for _ in tables]
    skeleton = json.dumps([{"report": t.name, "title": t.title, "columns": t.columns, "rows": marker, "notes": t.notes}
                           for t, marker in zip(tables, markers)], indent=2, allow_nan=False, default=str)
    for table, marker in zip(tables, markers):
        head, skeleton = skeleton.split(json.dumps(marker), 1)
        out.write(head)
        columns = table.columns
        plain = all(isinstance(column, str) for column in columns) and len(set(columns)) == len(columns)
        # (a row is a dict in to_json: a repeated column keeps its first place and last value, a key is text)
        keys = [f"\n        {json.dumps({column: 0})[1:-4]}: " for column in (columns if plain else dict.fromkeys(columns))]
        first = True
        for row in table.rows:
            values = row if plain else dict(zip(columns, row)).values()
            cells = ",".join(map(str.__add__, keys, map(cell_text, values)))
            out.write(("[\n      " if first else ",\n      ") + ("{" + cells + "\n      }" if keys else "{}"))
            first = False
        out.write("[]" if first else "\n    ]")
    out.write(skeleton)
