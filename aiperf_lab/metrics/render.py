"""Show tables on a terminal (rich) or as plain text; write them as CSV, JSON or text files."""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import sys
from itertools import repeat
from operator import and_, contains, ge, gt, itemgetter, not_, sub
from pathlib import Path
from typing import Sequence, TextIO

from aiperf_lab.cli_support import make_folders
from aiperf_lab.inputs import printable
from aiperf_lab.replaced_file import write_replacing
from aiperf_lab.metrics.tables import ScaledTime, Table, format_value, write_csv, write_json

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
    # ScaledTime: a time already scaled by --timeunit
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or isinstance(value, ScaledTime)


def _numeric_column(values: list) -> bool:
    """Every value a number (_is_number) or None, decided once per type present (in C), not per value:
    a 200,000-row table has a handful of types per column."""
    return all(t is type(None) or (issubclass(t, (int, float)) and not issubclass(t, bool)) or issubclass(t, ScaledTime)
               for t in set(map(type, values)))


def _number_cells(values: Sequence, has_none: bool) -> list[str]:
    """_cell of a column of floats, ints and None, in C but for the final pick: repr, or two decimals
    for a float whose repr has more than two and no exponent."""
    texts = list(map(repr, values))
    dots = list(map(str.find, texts, repeat(".")))
    shorten = map(and_, map(and_, map(ge, dots, repeat(0)), map(gt, map(sub, map(len, texts), dots), repeat(3))),
                  map(not_, map(contains, texts, repeat("e"))))
    cells = [format(value, ".2f") if cut else text for cut, value, text in zip(shorten, values, texts)]
    return ["" if value is None else cell for value, cell in zip(values, cells)] if has_none else cells


def _cells(rows: list) -> list[list[str]]:
    """_cell of every value, a column at a time: where a column holds only ints (str), text that needs
    no escaping (printable), or None, without a Python call per value."""
    if not rows or len(set(map(len, rows))) != 1:  # (rows of one length: a column at a time)
        return [[_cell(v) for v in row] for row in rows]
    columns = []
    for values in zip(*rows):
        types = set(map(type, values))
        if types <= {int}:
            columns.append(list(map(str, values)))
        elif types <= {str} and "".join(values).isprintable():
            columns.append(list(values))
        elif types <= {float, int, type(None)}:
            columns.append(_number_cells(values, type(None) in types))
        else:
            columns.append(list(map(_cell, values)))
    return list(map(list, zip(*columns)))


def _wrap_header(header: str, width: int) -> str:
    """The header broken at spaces into lines no wider than `width` where its words allow."""
    lines: list[str] = []
    for word in header.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def _column_widths(headers: list[str], cells: list[list[str]], numeric: list[bool], available: int) -> list[int]:
    """Each column's width; number headers wrap onto lines when the table is wider than `available`."""
    widths = [max(len(h), max(map(len, map(itemgetter(i), cells)), default=0)) for i, h in enumerate(headers)]
    if sum(widths) + COLUMN_GAP * len(widths) + 2 <= available:
        return widths
    for i, header in enumerate(headers):
        if numeric[i]:
            data = max([len(row[i]) for row in cells] + [max(len(w) for w in header.split(" "))])
            headers[i] = _wrap_header(header, data)
            widths[i] = max([len(line) for line in headers[i].split("\n")] + [len(row[i]) for row in cells])
    return widths


def _piped_width() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return 240
    return columns if columns > 0 else 240


TEXT_COLUMN_MIN = 16   # a text column (kernel name) is not cut below this while the terminal allows
TEXT_COLUMN_FLOOR = 8  # ... and gives way down to this on a narrow one before the table overflows
COLUMN_GAP = 3         # what rich's SIMPLE_HEAD box puts between columns
NARROW_COLUMN_GAP = 2  # the same box with no left padding: tried before a table goes one block per row


def _fixed_widths(widths: list[int], numeric: list[bool], width: int, gap: int) -> list[int]:
    """Fixed widths, so rich never squeezes a column away: numbers in full, text columns share the rest
    (narrow ones keep their width, wide ones share what is left)."""
    fixed = list(widths)
    remaining = width - (sum(w for w, n in zip(widths, numeric) if n) + gap * len(widths) + 2)
    text = sorted((i for i in range(len(widths)) if not numeric[i]), key=lambda i: widths[i])
    for left, i in enumerate(text):
        share = remaining // (len(text) - left)
        floor = TEXT_COLUMN_MIN if share >= TEXT_COLUMN_MIN else TEXT_COLUMN_FLOOR
        fixed[i] = max(min(widths[i], floor), min(widths[i], share, TEXT_COLUMNS_WRAP_LIMIT))
        remaining -= fixed[i]
    return fixed


def render_terminal(tables: Sequence[Table], stream: TextIO = sys.stdout, limit: int | None = None) -> None:
    """Rich tables: numbers right-aligned and never cut, text columns cut with an ellipsis, notes under.

    On a narrow terminal number headers wrap onto lines and text columns give way; a table still wider
    than the terminal loses its rightmost number columns (a note names them) while that keeps a table,
    else (a 27-column launch summary on 80 columns) is shown one row per block, one "column: value" line
    each, so nothing is cut and nothing wraps. COLUMNS sets the width of piped output, which has no
    trailing blanks.
    """
    interactive = stream.isatty()
    if not interactive:
        stream = _TrimmedLines(stream)   # piped: no line padded with blanks to the table's width
    try:
        _render_terminal(tables, stream, limit, interactive)
    finally:
        if isinstance(stream, _TrimmedLines):
            stream.close()


class _TrimmedLines:
    """A text stream that writes each line without its trailing blanks (rich pads every line of a table
    to the table's width; in a file or a pipe that is noise, and diff and grep see it)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.pending = stream, ""

    _TRAILING = re.compile(r" +$", re.MULTILINE)   # in C: 200,000 rows of a table cost no Python call a line

    def write(self, text: str) -> int:
        whole = self.pending + text
        cut = whole.rfind("\n") + 1
        if cut:
            self.stream.write(self._TRAILING.sub("", whole[:cut]))
        self.pending = whole[cut:]
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def close(self) -> None:   # the last line, when it had no newline; the stream itself stays open
        if self.pending:
            self.stream.write(self.pending.rstrip(" "))
            self.pending = ""
        self.stream.flush()


def _title_lines(title: str, width: int, aside: str = "") -> list[str]:
    """The title (and `aside`, a parenthesis said after it) on one line where it fits `width`; else broken at
    words on purpose: the title first, then the aside on its own line, so neither is split mid-phrase by the
    terminal or by a narrower table's own width."""
    import textwrap

    from rich.cells import cell_len

    whole = f"{title} {aside}" if aside else title
    if cell_len(whole) <= width:
        return [whole]
    wrap = functools.partial(textwrap.wrap, width=max(20, width), break_on_hyphens=False)
    return (wrap(title) or [title]) + (wrap(aside) if aside else [])


def _print_title(console, lines: list[str]) -> None:
    from rich.text import Text

    for line in lines:
        console.print(Text(line), overflow="fold", crop=False)


def _print_note(console, note: str) -> None:
    """`  note: ...`, its further lines indented under its first word (rich's fold started them at column 0)."""
    import textwrap

    from rich.text import Text

    lead = "  note: "
    lines = textwrap.wrap(printable(note), max(20, console.width - len(lead)), break_on_hyphens=False) or [""]
    console.print(Text("\n".join([lead + lines[0], *(" " * len(lead) + line for line in lines[1:])]), style="dim"),
                  overflow="fold", crop=False)


def _drop_to_fit(headers: list[str], cells: list[list[str]], numeric: list[bool], width: int) -> list[int] | None:
    """The columns to keep so that a table wider than the terminal fits as a table: a summary's spread
    (StdDev, Max, Min, Med, the last first) goes, what a reader needs first stays (time share, total,
    count, average and the names: a kernel summary is read down, rows compared, which blocks of 11 lines
    a row defeat). None: no spread to leave out, or the table does not fit without it either (then one
    block per row, every column)."""
    keep = list(range(len(headers)))
    spread = [i for i in keep if numeric[i] and headers[i].split(" ")[0] in SPREAD_COLUMNS]
    if not spread or all(numeric):
        return None
    for drop in sorted(spread, key=lambda i: (SPREAD_COLUMNS.index(headers[i].split(" ")[0]), -i)):
        keep.remove(drop)
        kept_widths = _column_widths([headers[i] for i in keep], [[row[i] for i in keep] for row in cells],
                                     [numeric[i] for i in keep], width)
        for gap in (COLUMN_GAP, NARROW_COLUMN_GAP):
            fixed = _fixed_widths(kept_widths, [numeric[i] for i in keep], width, gap)
            # the names keep a third of the width: a kernel cut to 16 characters names nothing
            if sum(fixed) + gap * len(fixed) <= width and \
                    all(f >= min(w, max(TEXT_COLUMN_MIN, width // 3)) for f, w, n in
                        zip(fixed, kept_widths, [numeric[i] for i in keep]) if not n):
                return keep
    return None


SPREAD_COLUMNS = ("StdDev", "Max", "Min", "Med")   # nsys' summary columns, left out in this order to fit


def _render_terminal(tables: Sequence[Table], stream: TextIO, limit: int | None, interactive: bool) -> None:
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table as RichTable
    from rich.text import Text

    # COLUMNS where it is a positive number, else the terminal's width; piped output with neither is not
    # squeezed to 80 columns but made wide enough for kernel names. (rich alone would print nothing for
    # COLUMNS=0.)
    base_width = shutil.get_terminal_size((240, 24)).columns if interactive else _piped_width()
    for table in tables:
        shown = table.rows if limit is None else table.rows[:limit]
        cells = _cells(shown)
        title = printable(f"{table.title} ({table.name})")
        if limit is not None and len(table.rows) > limit:
            title += f": top {limit} of {len(table.rows)} rows"
        by_column = list(zip(*shown))
        numeric = [bool(shown) and _numeric_column(by_column[i]) for i in range(len(table.columns))]
        headers = list(table.columns)
        probe = _console_class()(file=stream, width=base_width, highlight=False, no_color=not interactive,
                                 soft_wrap=False)
        widths = _column_widths(headers, cells, numeric, probe.width)
        console = _console_class()(file=stream, width=base_width, highlight=False, no_color=not interactive,
                                   soft_wrap=False)
        notes, names = list(table.notes), list(table.columns)   # (headers may be wrapped onto lines below)
        for attempt in range(2):
            for gap in (COLUMN_GAP, NARROW_COLUMN_GAP):
                fixed = _fixed_widths(widths, numeric, console.width, gap)
                if sum(fixed) + gap * len(fixed) <= console.width:
                    why = None if not any(fixed[i] < widths[i] for i, name in enumerate(headers)
                                          if name in PROSE_COLUMNS) else PROSE_CUT
                    break
            else:
                why = WIDER_THAN_TERMINAL
            keep = _drop_to_fit(names, cells, numeric, console.width) \
                if why == WIDER_THAN_TERMINAL and attempt == 0 and not PROSE_COLUMNS & set(headers) else None
            if keep is None:
                break
            # a table with fewer columns, not blocks of 11 lines a row: rows are read down and compared
            left_out = [names[i] for i in range(len(names)) if i not in keep]
            headers, numeric, names = [names[i] for i in keep], [numeric[i] for i in keep], [names[i] for i in keep]
            cells = [[row[i] for i in keep] for row in cells]
            widths = _column_widths(headers, cells, numeric, probe.width)
            notes.append(f"{len(left_out)} columns left out to fit {console.width} columns: {', '.join(left_out)} "
                         "(a wider terminal or COLUMNS shows them; --format csv or json has every column)")
        if why is not None:
            direct = len(cells) > PLAIN_ROWS_FROM and not interactive
            _render_records(console, title, names, cells, notes, direct, why)
            continue
        headers = [printable(h) if "\n" not in h else h for h in headers]  # (wrapped headers are ours)
        table_width = sum(fixed) + gap * (len(fixed) - 1) + 2
        if len(cells) > PLAIN_ROWS_FROM and not interactive and len(title) <= table_width:  # rich wraps a longer title
            stream.write(_plain_table(title, headers, cells, numeric, fixed, gap))
        else:
            # Text objects throughout: a "[bold]" or "[/]" in a kernel name is shown, never read as markup.
            # rich wraps a title at the table's width: one longer than a narrow table is printed above it,
            # at the terminal's width, so that it stays one line where the terminal has room for it.
            in_table = cell_len(title) <= table_width
            if not in_table:
                _print_title(console, _title_lines(title, console.width))
            grid = RichTable(title=Text(title) if in_table else None, title_justify="left", box=box.SIMPLE_HEAD,
                             pad_edge=False, padding=(0, 1) if gap == COLUMN_GAP else (0, 1, 0, 0))
            for i, column in enumerate(headers):
                grid.add_column(Text(column), justify="right" if numeric[i] else "left", no_wrap=True,
                                overflow="ellipsis", width=fixed[i])
            for row in cells:
                grid.add_row(*(Text(_clip(cell, width)) for cell, width in zip(row, fixed)))
            console.print(grid)
        for note in notes:
            _print_note(console, note)
        console.print()


@functools.lru_cache(maxsize=None)
def _console_class():
    """rich's Console, but a reader going away (`| head`) is a BrokenPipeError, as for every other write of
    aiperf-stats (exit 0, nothing said), not rich's own way out of it (SystemExit(1))."""
    from rich.console import Console

    class QuietOnBrokenPipe(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    return QuietOnBrokenPipe


# Rich lays a table out at about 5,000 cells a second; a table longer than this is written directly,
# in the same layout (ncu_metrics of a full-section report has 15,000 rows: 8 s through rich, 0.1 s here).
PLAIN_ROWS_FROM = 200
PLAIN_BLOCK_ROWS = 8192  # rows padded at a time when written directly (the padded cells of 200,000 rows: 100 MB)


def _clip(text: str, width: int) -> str:
    """`text`, or a prefix of it that a column `width` cells wide cuts the same way: rich measures every
    character of a cell, and a kernel name can be 5 MB (three such names took the overview 2 s)."""
    limit = 4 * width + 8
    if len(text) <= limit:
        return text
    from rich.cells import cell_len

    prefix = text[:limit]
    return prefix if cell_len(prefix) > width else text  # (a run of zero-width characters: keep it whole)


# A value in a block is folded onto as many lines as it needs, up to this many characters (a kernel
# name of 5 MB printed 55,000 lines a row, and rich folds a long word at 3 us a character); CSV and
# JSON keep it whole. Real kernel names, deep C++ templates included, stay below it.
RECORD_VALUE_CHARS = 4096


def _record_value(value: str) -> str:
    if len(value) <= RECORD_VALUE_CHARS:
        return value
    return f"{value[:RECORD_VALUE_CHARS]}\u2026 (cut at {RECORD_VALUE_CHARS:,} of {len(value):,} characters: " \
           "--format csv or json shows it whole)"


def _write_records(console, columns: list[str], cells: list[list[str]], label_width: int, value_width: int) -> None:
    """_render_records' blocks, byte for byte as rich draws them, written straight to the console's file."""
    from rich.cells import cell_len
    from rich.text import Text

    width = label_width + value_width + 5
    blank, lines = " " * width, []
    labels = [printable(c).ljust(label_width) for c in columns]
    for n, row in enumerate(cells, 1):
        lines += [f"row {n}".ljust(width), blank]
        for label, value in zip(labels, row):
            if value.isascii() and len(value) <= value_width:
                folded = [value.ljust(value_width)]
            else:  # rich's own folding, padded as a table cell pads it
                folded = [line.plain + " " * (value_width - cell_len(line.plain))
                          for line in Text(value).wrap(console, value_width, justify="left", overflow="fold")]
            lines.append(f" {label}   {folded[0]} ")
            lines.extend(f" {' ' * label_width}   {more} " for more in folded[1:])
        lines.append(blank)
        if len(lines) > 4096:
            console.file.write("\n".join(lines) + "\n")
            lines = []
    if lines:
        console.file.write("\n".join(lines) + "\n")


def _fit(text: str, width: int, right: bool) -> str:
    """`text` in `width` terminal cells, cut with an ellipsis as rich cuts it (wide characters count 2)."""
    if text.isascii():
        if len(text) > width:
            return text[:width - 1] + "\u2026" if width > 0 else ""
        return text.rjust(width) if right else text.ljust(width)
    from rich.cells import cell_len, set_cell_size

    text = _clip(text, width)
    if cell_len(text) > width:
        text = set_cell_size(text, width - 1) + "\u2026" if width > 0 else ""
    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else text + pad


def _plain_table(title: str, columns: list[str], cells: list[list[str]], numeric: list[bool],
                 widths: list[int], gap: int = COLUMN_GAP) -> str:
    """What rich prints for a SIMPLE_HEAD table with fixed column widths and no colour, written directly."""
    inner = sum(widths) + gap * (len(widths) - 1)
    table_width = inner + 2
    between = " " * gap

    def line(values: list[str]) -> str:
        return " " + between.join(_fit(v, w, n) for v, w, n in zip(values, widths, numeric)) + " "

    # A number header wrapped onto lines (`Duration\n(ns)` on a narrow terminal) is aligned to the bottom, as rich
    # aligns a header row's cells; the other headers are blank above their one line.
    stacked = [column.split("\n") for column in columns]
    height = max(map(len, stacked), default=1)
    out = [_fit(title, table_width, False), " " * table_width,
           *(line([lines[k - height + len(lines)] if k >= height - len(lines) else "" for lines in stacked])
             for k in range(height)),
           " " + "\u2500" * inner + " "]
    for block in range(0, len(cells), PLAIN_BLOCK_ROWS):  # a column of a block of rows at a time: _fit of
        fitted = []                                      # each cell, by str.rjust/ljust in C where all are
        for values, width, right in zip(zip(*cells[block:block + PLAIN_BLOCK_ROWS]), widths, numeric):  # ASCII
            if "".join(values).isascii() and max(map(len, values)) <= width:                            # and fit
                fitted.append(list(map(str.rjust if right else str.ljust, values, repeat(width))))
            else:
                fitted.append(list(map(_fit, values, repeat(width), repeat(right))))
        out.extend(map(" {} ".format, map(between.join, zip(*fitted))))
    out.append(" " * table_width)
    return "\n".join(out) + "\n"


def write_tables(tables: Sequence[Table], directory: Path, stem: str, fmt: str) -> list[Path]:
    """One file per table, named like nsys does: ``<stem>_<report>.<ext>``."""
    make_folders(directory)
    written = []
    for table in tables:
        if fmt == "json":
            path = directory / f"{stem}_{table.name}.json"
            write_replacing(path, lambda handle: write_json([table], handle))   # streamed, as CSV
        elif fmt == "table":
            path = directory / f"{stem}_{table.name}.txt"
            write_replacing(path, lambda handle: render_terminal([table], handle))
        else:
            path = directory / f"{stem}_{table.name}.csv"
            write_replacing(path, lambda handle: write_csv(table, handle))  # streamed: a trace never sits in memory whole
        written.append(path)
    return written


# Sentences (a finding's evidence and advice) cut to a column's width say nothing ("53 of 53 host-device…",
# "pin the host buffers…" at 80 columns): where one would be cut, the table is shown one block per row.
PROSE_COLUMNS = frozenset({"Evidence", "Advice"})
WIDER_THAN_TERMINAL = "the table is wider than the terminal"
PROSE_CUT = "its sentences would be cut"


def _render_records(console, title: str, columns: list[str], cells: list[list[str]], notes: list[str],
                    direct: bool = False, why: str = WIDER_THAN_TERMINAL) -> None:
    """A table too wide for the terminal, one block per row: "column  value" lines, values folded.
    `direct`: the blocks are written as rich lays them out, without rich's table layout (3 ms a row:
    an ncu_summary of 3,000 kernels took 9 s of CPU)."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    _print_title(console, _title_lines(title, console.width, f"(one block per row: {why})"))
    cells = [[_record_value(value) for value in row] for row in cells]
    label_width = max(len(c) for c in columns)
    # rich fits the block in the terminal by taking one cell from the value column (4 cells of edges,
    # padding and divider were reserved; the block needs 5); the direct writer knows only that case.
    value_width = console.width - label_width - 5
    if direct and value_width >= 8 and all(c.isascii() and c.isprintable() for c in columns):
        _write_records(console, columns, cells, label_width, value_width)
        cells = []
    for n, row in enumerate(cells, 1):
        block = RichTable(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False, title=f"row {n}",
                          title_justify="left")
        block.add_column(width=label_width, no_wrap=True)
        block.add_column(overflow="fold", width=max(8, console.width - label_width - 4))
        for column, value in zip(columns, row):
            block.add_row(Text(printable(column)), Text(value))
        console.print(block)
    for note in notes:
        _print_note(console, note)
    console.print()
