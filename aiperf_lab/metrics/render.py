"""Show tables on a terminal (rich) or as plain text; write them as CSV, JSON or text files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence, TextIO

from aiperf_lab.metrics.tables import Table, format_value, to_csv, to_json

TEXT_COLUMNS_WRAP_LIMIT = 100  # long kernel names are cut like `nsys stats` column output does


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def render_terminal(tables: Sequence[Table], stream: TextIO = sys.stdout, limit: int | None = None) -> None:
    """Rich tables: numbers right-aligned, text columns cut with an ellipsis, notes underneath."""
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable

    interactive = stream.isatty()
    console = Console(file=stream, width=None if interactive else 240, highlight=False,
                      no_color=not interactive, soft_wrap=False)
    for table in tables:
        shown = table.rows if limit is None else table.rows[:limit]
        title = f"{table.title} ({table.name})"
        if limit is not None and len(table.rows) > limit:
            title += f": top {limit} of {len(table.rows)} rows"
        grid = RichTable(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        numeric = [bool(shown) and all(_is_number(r[i]) or r[i] is None for r in shown)
                   for i in range(len(table.columns))]
        text_width = max(24, TEXT_COLUMNS_WRAP_LIMIT // max(1, numeric.count(False)))
        for i, column in enumerate(table.columns):
            if numeric[i]:
                grid.add_column(column, justify="right", no_wrap=True, min_width=len(column))
            else:
                grid.add_column(column, overflow="ellipsis", no_wrap=True, max_width=text_width)
        for row in shown:
            grid.add_row(*(format_value(v) for v in row))
        console.print(grid)
        for note in table.notes:
            console.print(f"  note: {note}", style="dim", soft_wrap=True)
        console.print()


def write_tables(tables: Sequence[Table], directory: Path, stem: str, fmt: str) -> list[Path]:
    """One file per table, named like nsys does: ``<stem>_<report>.<ext>``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        if fmt == "json":
            path, text = directory / f"{stem}_{table.name}.json", to_json([table])
        elif fmt == "table":
            import io
            buffer = io.StringIO()
            render_terminal([table], buffer)
            path, text = directory / f"{stem}_{table.name}.txt", buffer.getvalue()
        else:
            path, text = directory / f"{stem}_{table.name}.csv", to_csv(table)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
