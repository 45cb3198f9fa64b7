"""The one shape every reader produces: a named table of plain values (int, float, str or None)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any, Sequence

Value = Any  # int | float | str | None


@dataclass
class Table:
    """A report: `name` is the report id (e.g. ``cuda_gpu_kern_sum``), `title` its display name.

    `notes` are caveats a reader must see next to the numbers (e.g. "CUDA graphs traced as a whole").
    """

    name: str
    title: str
    columns: list[str]
    rows: list[list[Value]]
    notes: list[str] = field(default_factory=list)

    def column(self, name: str) -> list[Value]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def as_dicts(self) -> list[dict[str, Value]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


def format_value(value: Value) -> str:
    """Text form of a cell, as nsys's CSV writer prints it: None is empty, floats use Python's repr."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_csv(table: Table) -> str:
    """CSV with a header row, '\\n' line ends and minimal quoting (what `nsys stats --format csv` writes)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([format_value(v) for v in row])
    return buffer.getvalue()


def to_json_obj(table: Table) -> dict[str, Any]:
    return {"report": table.name, "title": table.title, "columns": table.columns,
            "rows": table.as_dicts(), "notes": table.notes}


def to_json(tables: Sequence[Table]) -> str:
    return json.dumps([to_json_obj(t) for t in tables], indent=2, allow_nan=False, default=str)
