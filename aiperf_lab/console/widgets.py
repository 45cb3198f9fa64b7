"""Widgets the screens share: the top bar of screens, the one-line notice, the one-line live status,
a run's grade, and a table view with filtering, column sorting and CSV export."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Callable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from rich.text import Text
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static

from aiperf_lab.metrics.tables import Table, format_value
from aiperf_lab.replaced_file import write_text_replacing


class Notice(Static):
    """The console's one-line situation (no driver, demo, replay): shown on every screen while it applies."""

    def on_mount(self) -> None:
        ctx = getattr(self.app, "ctx", None)
        self._said = ""
        self.display = bool(ctx is not None and ctx.notice)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The whole notice where it fits in one line, else its short form, else the file name in it
        shortened in the middle (the help names the whole path): always one line."""
        from aiperf_lab.console.view_model import fit_notice
        ctx = getattr(self.app, "ctx", None)
        if ctx is None or not ctx.notice:
            return
        room = (self.size.width or self.app.size.width) - 2      # padding 0 1
        notice = fit_notice(ctx.notice, room, ctx.notice_short, ctx.notice_name)
        if notice != self._said:
            self._said = notice
            # Text: it names files, whose names may hold brackets; one line, whatever is left cut at its end
            self.update(Text(notice, no_wrap=True, overflow="ellipsis"))


class TopBar(Widget):
    """One line: the six screens by key, the current one bracketed and reversed (no colour needed),
    then the app's subtitle (the feed) in what room is left."""

    DEFAULT_CSS = "TopBar { height: 1; background: $panel; }"

    def render(self) -> Text:
        from aiperf_lab.console.app import SCREENS_IN_ORDER
        current = self.app.current_mode
        text = Text(no_wrap=True, overflow="ellipsis")
        for key, (mode, label) in enumerate(SCREENS_IN_ORDER, 1):
            if mode == current:
                text.append(f"[{key} {label}]", style="bold reverse")
            else:
                text.append(f" {key} {label} ")
        if self.app.sub_title:
            text.append(f"  {self.app.sub_title}", style="dim")
        return text


def grade_text(word: str, reason: str, ascii_only: bool = False) -> Text:
    """`✗ failed: the workload exited 2`: the word styled (bold reverse for failed, bold for pass, italic
    for not graded) and marked, so the difference survives NO_COLOR."""
    from aiperf_lab.console.view_model import GRADE_STYLE, grade_label
    text = Text(grade_label(word, ascii_only), style=GRADE_STYLE.get(word, ""))
    if reason:
        text.append(f": {reason}")
    return text


class TextBlock(Widget):
    """Plain lines at a fixed height (set in CSS): new text repaints the widget without a layout pass
    and without parsing markup. Static.update does both, which was most of the Monitor's redraw cost."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text("")

    @property
    def plain(self) -> str:
        return self._text.plain

    def set_lines(self, lines: list[str]) -> None:
        text = "\n".join(lines)
        if text != self._text.plain:
            # a layout pass only when the line count changes: a card of auto height must grow with it,
            # or its last lines (the sm chart) are cut off under the border
            grew = text.count("\n") != self._text.plain.count("\n")
            self._text = Text(text, no_wrap=True, overflow="ellipsis")
            self.refresh(layout=grew)

    def render(self) -> Text:
        return self._text


def in_view(screen) -> bool:
    """The screen is shown: it is the current one, or only dialogs (modal screens) are over it."""
    stack = screen.app.screen_stack
    if screen not in stack:
        return False
    return all(isinstance(above, ModalScreen) for above in stack[stack.index(screen) + 1:])


class StatusLine(TextBlock):
    """The live one-liner on every screen: per GPU instant power and utilization from the feed the Monitor
    draws (view_model.status_line formats it), plus what the screen adds (the Run screen: its energy).
    Redrawn a few times a second, only while its screen is in view (a dialog over it leaves it in view)."""

    DEFAULT_CSS = "StatusLine { height: 1; padding: 0 1; }"

    def on_mount(self) -> None:
        self.set_interval(1 / max(1.0, self.app.ctx.ui_hz), self.update_now)
        self.update_now()

    def update_now(self) -> None:
        if not in_view(self.screen) and self.plain:
            return
        from aiperf_lab.console.view_model import status_line
        feed = self.app.ctx.feed
        extra_of = getattr(self.screen, "status_extra", None)
        width = (self.size.width or self.app.size.width) - 2   # before the first layout: the screen's width
        line = status_line(feed.devices, feed.ring.latest(), feed.status, max(10, width),
                           extra_of() if extra_of is not None else "", no_gpu_said=bool(self.app.ctx.notice))
        self.set_lines([line])


class InOrderInput(Input):
    """An Input that applies its own editing keys (backspace, delete, arrows, enter...) in the order they
    were typed. Textual inserts a printable key at once but runs a bound key's action only after the key
    has bubbled up to the app, so "backspace 4" typed in one burst (a fast typist over SSH) lost the 4:
    it was inserted first, then deleted."""

    async def _on_key(self, event) -> None:
        bindings = self._bindings.key_to_bindings.get(event.key)
        if bindings and not event.is_printable:
            event.stop()
            event.prevent_default()
            await self.run_action(bindings[0].action)
            return
        await super()._on_key(event)


class TableView(Vertical):
    """One Table: `/` filters rows by text, `s` sorts by the cursor's column (again: reversed),
    `e` exports what is shown to CSV."""

    # `/`, `s` and `e` are bound on the screen that holds the view, so they work wherever the focus is.
    BINDINGS = [Binding("escape", "clear_filter", "Clear filter", show=False)]

    def __init__(self, export_dir: Path, **kwargs) -> None:
        super().__init__(**kwargs)
        self.export_dir = export_dir
        self.said_above = ""    # what the screen's title already says: a table titled the same is named only
        self.table: Table | None = None
        self._rows: list[list] = []
        self._sort: tuple[int, bool] | None = None
        self._filter = ""

    def compose(self) -> ComposeResult:
        # markup=False: titles, notes and cells are data (kernel names, paths, "[REDACTED]")
        yield Static("", id="table-title", markup=False)
        yield InOrderInput(placeholder="filter rows (enter to apply, escape to clear)", id="table-filter")
        yield DataTable(id="table-data", zebra_stripes=True, cursor_type="cell")
        # Under the table, at most part of the view and scrolled when longer (tab, then the arrows): the notes
        # of a triage bundle's telemetry_summary took every line of it at 80x24 and left the table none.
        with VerticalScroll(id="table-below"):
            yield Static("", id="table-cell", markup=False)  # the cursor's cell in full: cells are cut at narrow widths
            yield Static("", id="table-notes", markup=False)

    def on_mount(self) -> None:
        self.query_one("#table-filter", Input).display = False
        self._shown_width = 0

    def on_resize(self) -> None:
        # the cut depends on the width: a table filled before the first layout (or a resized terminal) is redone
        if self.table is not None and self.size.width != self._shown_width:
            self._refill()

    def show(self, table: Table | None) -> None:
        self.table = table
        self._sort = None
        self._filter = ""
        self._refill()

    def visible_rows(self) -> list[list]:
        return list(self._rows)

    def _refill(self) -> None:
        data = self.query_one("#table-data", DataTable)
        data.clear(columns=True)
        title = self.query_one("#table-title", Static)
        notes = self.query_one("#table-notes", Static)
        if self.table is None:
            title.update("no table")
            notes.update("")
            self._rows = []
            return
        rows = [r for r in self.table.rows
                if not self._filter or self._filter.lower() in " ".join(format_value(c) for c in r).lower()]
        if self._sort is not None:
            column, reverse = self._sort
            rows.sort(key=lambda r: _sort_key(r[column]), reverse=reverse)
        self._rows = rows
        # long text (kernel names, check sentences) is cut with an ellipsis so that the numbers, the columns
        # a reader compares, stay on screen at 80 columns; the filter and the CSV export keep the whole text
        self._limits = column_limits(self.table.columns, rows, self.size.width)
        self._shown_width = self.size.width
        self._offscreen_text = offscreen_text_columns(self.table.columns, rows, self._limits, self.size.width)
        cells = [[_cell(c, limit) for c, limit in zip(r, self._limits)] for r in rows]
        # Each column's width is given, not measured later by DataTable: refilled on a resize, the table was
        # drawn before its idle-time measuring and that drawing was kept, so 80x24 -> 200x60 cut every number
        # to its header's width (849.233 read 849.23).
        for k, name in enumerate(self.table.columns):
            label = Text(name)
            data.add_column(label, width=max([label.cell_len, *(r[k].cell_len for r in cells if k < len(r))]))
        data.add_rows(cells)
        shown = f"{len(rows)} of {len(self.table.rows)} {_rows(len(self.table.rows))}" if self._filter \
            else f"{len(rows)} {_rows(len(rows))}"
        order = f", sorted by {self.table.columns[self._sort[0]]}{' (descending)' if self._sort[1] else ''}" \
            if self._sort else ""
        # a table read back from a run's CSV is titled by its name: "cuda_gpu_kern_sum (cuda_gpu_kern_sum)" once
        # and a compare's run_diff, titled with both runs as the screen's title is, by its name alone (the
        # two runs in five lines at 80x24 otherwise)
        named = self.table.title if self.table.title.lower() == self.table.name.lower() \
            else self.table.name if self.table.title and self.table.title == self.said_above \
            else f"{self.table.title} ({self.table.name})"
        title.update(f"{named}: {shown}{order}"
                     + (f", filter '{self._filter}'" if self._filter else ""))
        # said now for the cursor's cell, as the new widths cut it: a refill that leaves the cursor where it was
        # announces no move, and the pane kept what a fill at another width (or before the first layout) cut
        cursor = data.cursor_coordinate
        self._say_cell(cursor.row, cursor.column)
        notes.update("\n".join(f"note: {n}" for n in self.table.notes))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        self._say_cell(event.coordinate.row, event.coordinate.column)

    def _say_cell(self, row: int, column: int) -> None:
        if self.table is None or not (0 <= row < len(self._rows)) or not (0 <= column < len(self.table.columns)):
            self.query_one("#table-cell", Static).update("")
            return
        value = format_value(self._rows[row][column])
        limits = getattr(self, "_limits", [])
        shown = _cell(self._rows[row][column], limits[column] if column < len(limits) else MAX_CELL).plain
        lines = [f"{self.table.columns[column]}: {value}"] if shown != value else []   # the value cut in the table
        # which row this is and what it says, without scrolling right: the row's text cut in the table (an ncu
        # summary at 80 columns: 'void eleme…' and 'latency…'; a check's sentence), else its name where the
        # numbers push its column past the view's right edge (a kernel summary: eight number columns, the Name
        # last); two at most, so the table keeps its lines
        cut = [k for k in range(len(self.table.columns)) if k != column and k < len(limits)
               and k < len(self._rows[row]) and isinstance(self._rows[row][k], str)
               and len(format_value(self._rows[row][k])) > limits[k]]
        hidden = [k for k in getattr(self, "_offscreen_text", []) if k != column and k not in cut]
        lines += [f"{self.table.columns[k]}: {format_value(self._rows[row][k])}" for k in (cut + hidden[:1])[:2]]
        self.query_one("#table-cell", Static).update(Text("\n".join(lines)))

    def action_filter(self) -> None:
        box = self.query_one("#table-filter", Input)
        if box.has_focus:                 # the key is priority-bound: inside the box it is just a "/"
            box.insert_text_at_cursor("/")
            return
        box.display = True
        box.value = self._filter
        # Focus moves now, not at the next idle (box.focus()): the rest of a burst such as "/kernel" is
        # already queued and must be typed into the box, not taken as keys (e exports, s sorts).
        self.screen.set_focus(box)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "table-filter":
            self._filter = event.value.strip()
            event.input.display = False
            self._refill()
            self.query_one("#table-data", DataTable).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#table-filter", Input).display = False
        if self._filter:
            self._filter = ""
            self._refill()
        self.query_one("#table-data", DataTable).focus()

    def action_sort(self) -> None:
        if self.table is None or not self.table.columns:
            return
        column = self.query_one("#table-data", DataTable).cursor_column
        column = max(0, min(column, len(self.table.columns) - 1))
        reverse = not self._sort[1] if self._sort and self._sort[0] == column else _numeric(self.table, column)
        self._sort = (column, reverse)
        self._refill()

    def action_export(self) -> None:
        if self.table is None:
            return
        self.export_dir.mkdir(parents=True, exist_ok=True)
        path = self.export_dir / f"{self.table.name}.csv"
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.table.columns)
        writer.writerows([[format_value(c) for c in r] for r in self._rows])
        write_text_replacing(path, buffer.getvalue())
        self.app.notify(f"wrote {len(self._rows)} rows to {path}", title="Export")


def _numeric(table: Table, column: int) -> bool:
    """Numbers sort largest first, text A to Z."""
    return any(isinstance(r[column], (int, float)) for r in table.rows)


def _sort_key(value):
    if isinstance(value, (int, float)):
        return (0, value, "")
    return (1, 0, "" if value is None else str(value))


def _rows(count: int) -> str:
    return "row" if count == 1 else "rows"


def _cell(value, limit: int = 60):
    from rich.text import Text
    text = format_value(value)
    if isinstance(value, (int, float)):
        return Text(text, justify="right")
    return Text(text if len(text) <= limit else text[:limit - 1] + "…")   # a str cell would be markup


MAX_CELL = 60   # before the view has a size
MIN_TEXT = 8    # a text column is never cut narrower than this (nor than its header, up to 12)


def offscreen_text_columns(columns: Sequence[str], rows: Sequence[Sequence], limits: Sequence[int],
                           width: int) -> list[int]:
    """The text columns (names) that start past the right edge of a view `width` wide, laid out with
    `limits` (each column padded by one cell either side, the scrollbar taking two)."""
    if not width:
        return []
    start, hidden = 0, []
    for k, limit in enumerate(limits):
        text = not any(isinstance(r[k], (int, float)) for r in rows if k < len(r))
        if text and start + 2 >= width - 2:
            hidden.append(k)
        start += limit + 2
    return hidden


def column_limits(columns: Sequence[str], rows: Sequence[Sequence], width: int) -> list[int]:
    """The most characters each column shows in a view `width` wide. A column's numbers (and its header)
    are never cut, so the compared columns stay whole and on screen; what is left goes to the text,
    shared evenly but never more than a column needs (the name column takes what the others leave).
    Text is cut with an ellipsis (`_cell`). Before the view has a size: MAX_CELL everywhere."""
    if not width:
        return [MAX_CELL] * len(columns)
    floors, needs = [], []
    for k, name in enumerate(columns):
        cells = [r[k] for r in rows if k < len(r)]
        numbers = [len(format_value(c)) for c in cells if isinstance(c, (int, float))]
        need = max([len(name), *(len(format_value(c)) for c in cells)])
        floor = max([len(name), *numbers]) if numbers else min(need, max(MIN_TEXT, min(len(name), 12)))
        floors.append(min(floor, need))
        needs.append(need)
    # each column is padded by one cell either side; the vertical scrollbar takes two
    spare = width - 2 - 2 * len(columns) - sum(floors)
    limits = list(floors)
    growing = [k for k in range(len(columns)) if needs[k] > limits[k]]
    while spare > 0 and growing:
        share = max(1, spare // len(growing))
        for k in list(growing):
            step = min(share, needs[k] - limits[k], spare)
            limits[k] += step
            spare -= step
            if limits[k] >= needs[k]:
                growing.remove(k)
            if spare <= 0:
                break
    return [max(limit, 2) for limit in limits]


class Confirm(ModalScreen[bool]):
    """A yes/no question: y or the first button says yes; n, escape or the second says no.

    `still_applies` (polled four times a second) says whether the question is still true; once it is
    not (the run ended under the dialog), the question becomes `when_over`, or the dialog closes
    answering no when there is nothing left to ask."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str, yes: str, no: str, still_applies: Callable[[], bool] | None = None,
                 when_over: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no
        self._still_applies, self._when_over = still_applies, when_over
        self._answered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question, id="confirm-question", markup=False)
            with Horizontal():
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        if self._still_applies is not None:
            self._watch = self.set_interval(0.25, self._recheck)

    def _recheck(self) -> None:
        if self._answered or self._still_applies is None or self._still_applies():
            return
        self._still_applies = None
        self._watch.stop()
        if self._when_over is None:
            self._answer(False)
            return
        question, yes = self._when_over
        self.query_one("#confirm-question", Static).update(question)
        button = self.query_one("#yes", Button)
        button.label, button.variant = f"{yes} (y)", "primary"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._answer(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self._answer(value)

    def _answer(self, value: bool) -> None:
        """One answer: a key and the watch's recheck in the same moment (the run ending as y is pressed) gave two,
        the second dismissing a dialog already gone, with a toast saying the run ended before it was stopped."""
        if self._answered:
            return
        self._answered = True
        if self._still_applies is not None:
            self._still_applies = None
            self._watch.stop()
        self.dismiss(value)


def chrome_top() -> list[Widget]:
    """What every screen starts with: the screens bar, the notice (when one applies), the live status."""
    return [TopBar(id="top-bar"), Notice(id="notice"), StatusLine(id="status-line")]
