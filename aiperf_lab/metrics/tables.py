"""The one shape every reader produces: a named table of plain values (int, float, str or None)."""

from __future__ import annotations

import csv
import io
import math

from aiperf_lab.inputs import printable

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
    """CSV written row by row as the table yields them: a streamed trace never sits in memory whole."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(table.columns)
    batch = []
    # csv itself writes None as "", floats with repr() and other values with str(), as format_value
    # does: only text needs our escaping (a trace report's hundreds of thousands of cells).
    for row in table.rows:
        batch.append([printable(v) if v.__class__ is str else v for v in row])
        if len(batch) == 2048:
            writer.writerows(batch)
            batch.clear()
    writer.writerows(batch)


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
