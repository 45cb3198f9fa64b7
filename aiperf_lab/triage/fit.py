"""A bundle's summary.md fitted to a terminal's width: long lines wrapped, markdown tables as columns."""

from __future__ import annotations

import textwrap

MIN_NOTE_CHARS = 20  # a table whose last column would get less than this is printed row by row instead


def fit_markdown(text: str, columns: int | None) -> str:
    """text with every line at most columns wide (None: only the tables are laid out, nothing wrapped)."""
    out: list[str] = []
    table: list[list[str]] = []
    for line in text.split("\n"):
        if line.startswith("|") and line.rstrip().endswith("|"):
            if not set(line.strip()) <= set("|-: "):   # not the |---| separator
                table.append([cell.strip() for cell in line.strip()[1:-1].split(" | ")])
            continue
        if table:
            out += _table(table, columns)
            table = []
        out += _wrap(line, columns)
    if table:
        out += _table(table, columns)
    return "\n".join(out)


def _wrap(line: str, columns: int | None) -> list[str]:
    if columns is None or len(line) <= columns:
        return [line]
    indent = "  " if line.startswith("- ") else ""
    return textwrap.wrap(line, columns, subsequent_indent=indent, break_on_hyphens=False) or [line]


def _table(rows: list[list[str]], columns: int | None) -> list[str]:
    header, body = rows[0], rows[1:]
    body = [row[:len(header) - 1] + [" | ".join(row[len(header) - 1:])] for row in body]   # a '|' inside a note
    body = [row + [""] * (len(header) - len(row)) for row in body]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    fixed = sum(w + 2 for w in widths[:-1])
    if columns is None or fixed + widths[-1] <= columns:
        return [_row(r, widths) for r in [header, *body]]
    if columns - fixed >= MIN_NOTE_CHARS:   # the last column (a note) wrapped under itself
        last = columns - fixed
        lines = [_row(header, widths[:-1] + [last])]
        for row in body:
            parts = textwrap.wrap(row[-1], last, break_on_hyphens=False) or [""]
            lines.append(_row(row[:-1] + [parts[0]], widths))
            lines += [(" " * fixed + part).rstrip() for part in parts[1:]]
        return lines
    lines = []   # too many columns for the width: one block per row, "header value" pairs
    for row in body:
        pairs = "; ".join(f"{name} {value}" for name, value in zip(header[1:], row[1:]) if value)
        lines += _wrap(f"- {header[0]} {row[0]}: {pairs}", columns)
    return lines


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()
