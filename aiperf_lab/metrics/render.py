"""Show tables on a terminal (rich) or as plain text; write them as CSV, JSON or text files."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence, TextIO

from aiperf_lab.inputs import printable
from aiperf_lab.metrics.tables import Table, format_value, to_csv, to_json

TEXT_COLUMNS_WRAP_LIMIT = 100  # long kernel names are cut like `nsys stats` column output does


def _cell(value) -> str:
    """Terminal text of a cell: floats with more than two decimals (ncu's raw page has six) are shortened;
    CSV and JSON keep every digit."""
    if isinstance(value, float):
        text = repr(value)
        if "." in text and "e" not in text and len(text.split(".")[1]) > 2:
            return f"{value:.2f}"
        return text
    return format_value(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


TEXT_COLUMN_MIN = 16   # a text column (kernel name) is never cut below this
COLUMN_GAP = 3         # what rich's SIMPLE_HEAD box puts between columns


def render_terminal(tables: Sequence[Table], stream: TextIO = sys.stdout, limit: int | None = None) -> None:
    """Rich tables: numbers right-aligned and never cut, text columns cut with an ellipsis, notes under.

    When the terminal is narrower than the numbers need, the table is drawn wider than the terminal
    (lines wrap) rather than dropping or squeezing a number column.
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    interactive = stream.isatty()
    # Piped output is not squeezed to 80 columns: COLUMNS if set, else wide enough for kernel names.
    base_width = None if interactive else int(os.environ.get("COLUMNS", "") or 240)
    for table in tables:
        shown = table.rows if limit is None else table.rows[:limit]
        cells = [[_cell(v) for v in row] for row in shown]
        title = printable(f"{table.title} ({table.name})")
        if limit is not None and len(table.rows) > limit:
            title += f": top {limit} of {len(table.rows)} rows"
        numeric = [bool(shown) and all(_is_number(r[i]) or r[i] is None for r in shown)
                   for i in range(len(table.columns))]
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(table.columns)]
        # Fixed widths, so rich never squeezes a column away: numbers in full, text columns share the rest.
        numbers_width = sum(w for w, n in zip(widths, numeric) if n) + COLUMN_GAP * len(widths) + 2
        text_columns = numeric.count(False)
        console = Console(file=stream, width=base_width, highlight=False, no_color=not interactive,
                          soft_wrap=False)
        fixed = list(widths)
        remaining = console.width - numbers_width
        text = sorted((i for i in range(len(widths)) if not numeric[i]), key=lambda i: widths[i])
        for left, i in enumerate(text):  # narrow text columns keep their width; wide ones share the rest
            share = remaining // (text_columns - left)
            fixed[i] = max(min(widths[i], TEXT_COLUMN_MIN), min(widths[i], share, TEXT_COLUMNS_WRAP_LIMIT))
            remaining -= fixed[i]
        total = sum(fixed) + COLUMN_GAP * len(fixed) + 2
        if console.width < total:
            console = Console(file=stream, width=total, highlight=False, no_color=not interactive, soft_wrap=False)
        if len(cells) > PLAIN_ROWS_FROM and not interactive and \
                len(title) <= sum(fixed) + COLUMN_GAP * (len(fixed) - 1) + 2:  # (rich wraps a longer title)
            stream.write(_plain_table(title, table.columns, cells, numeric, fixed, console.width, table.notes))
            continue
        # Text objects throughout: a "[bold]" or "[/]" in a kernel name is shown, never read as markup.
        grid = RichTable(title=Text(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for i, column in enumerate(table.columns):
            grid.add_column(Text(printable(column)), justify="right" if numeric[i] else "left", no_wrap=True,
                            overflow="ellipsis", width=fixed[i])
        for row in cells:
            grid.add_row(*(Text(cell) for cell in row))
        console.print(grid)
        for note in table.notes:
            console.print(Text(f"  note: {printable(note)}", style="dim"), soft_wrap=True)
        console.print()


# Rich lays a table out at about 5,000 cells a second; a table longer than this is written directly,
# in the same layout (ncu_metrics of a full-section report has 15,000 rows: 8 s through rich, 0.1 s here).
PLAIN_ROWS_FROM = 200


def _fit(text: str, width: int, right: bool) -> str:
    """`text` in `width` terminal cells, cut with an ellipsis as rich cuts it (wide characters count 2)."""
    if text.isascii():
        if len(text) > width:
            return text[:width - 1] + "\u2026" if width > 0 else ""
        return text.rjust(width) if right else text.ljust(width)
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) > width:
        text = set_cell_size(text, width - 1) + "\u2026" if width > 0 else ""
    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else text + pad


def _plain_table(title: str, columns: list[str], cells: list[list[str]], numeric: list[bool], widths: list[int],
                 console_width: int, notes: list[str]) -> str:
    """What rich prints for a SIMPLE_HEAD table with fixed column widths and no colour, written directly."""
    inner = sum(widths) + COLUMN_GAP * (len(widths) - 1)
    table_width = inner + 2

    def line(values: list[str]) -> str:
        return " " + "   ".join(_fit(v, w, n) for v, w, n in zip(values, widths, numeric)) + " "

    out = [_fit(title, table_width, False), " " * table_width, line([printable(c) for c in columns]),
           " " + "\u2500" * inner + " "]
    out.extend(line(row) for row in cells)
    out.append(" " * table_width)
    text = "\n".join(out) + "\n"
    for note in notes:
        text += f"  note: {printable(note)}\n"
    return text + "\n"


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
