"""write_csv writes a chunk column by column; the bytes must be the csv module's, row by row, for any cells
a report holds (text that needs quoting or escaping, None, floats, Fixed3, scaled times, mixed columns)."""

from __future__ import annotations

import csv
import io
import random

from aiperf_lab.inputs import printable
from aiperf_lab.metrics.tables import ColumnRows, Fixed3, ScaledTime, Table, write_csv

CELLS = [0, -7, 2**62, 2**70, 1.5, float("nan"), 0.1 + 0.2, Fixed3(30.72), True, None, "", "plain", "a,b",
         'say "hi"', "line\nbreak", "cr\rhere", "tab\tand\x1bescape", " lead", "trail ", "\u202eback",
         ScaledTime("168.944"), "void f<int, float>(int*)", "ünïcode"]


def _row_by_row(columns: list[str], rows: list[list]) -> str:
    """What write_csv wrote before it went column by column: the csv module, one row at a time."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([printable(v) if v.__class__ is str else v for v in row])
    return out.getvalue()


def _written(table: Table) -> str:
    out = io.StringIO()
    write_csv(table, out)
    return out.getvalue()


def test_columns_written_at_once_match_the_csv_module_row_by_row():
    rng = random.Random(17)
    for case in range(150):
        width = rng.choice([1, 2, 3, 7])
        kinds = [rng.choice(["int", "text", "any", "float"]) for _ in range(width)]

        def cell(kind):
            if kind == "int":
                return rng.choice([0, 5, -3, 10**12, None])
            if kind == "float":
                return rng.choice([0.5, Fixed3(2.0), None, 3])
            if kind == "text":
                return rng.choice([c for c in CELLS if c is None or isinstance(c, str)])
            return rng.choice(CELLS)

        # (4,100 rows once in a while: past a chunk of 4,096, with the text forms kept between chunks)
        rows = [[cell(k) for k in kinds] for _ in range(4100 if case % 50 == 7 else rng.choice([0, 1, 5, 200]))]
        columns = [f"c{i}" for i in range(width)]
        want = _row_by_row(columns, rows)
        assert _written(Table("t", "T", columns, rows)) == want, (case, kinds)
        assert _written(Table("t", "T", columns, iter(rows))) == want, (case, kinds)  # a streamed trace
        if rows:
            held = ColumnRows([list(column) for column in zip(*rows)])
            assert _written(Table("t", "T", columns, held)) == want, (case, kinds)
            assert list(held) == rows and held[0] == rows[0] and len(held) == len(rows)
