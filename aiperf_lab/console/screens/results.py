"""Results: the tables of a run (kernels, NVTX ranges, API calls, ncu summary with verdicts, kernel
breakdown, ...) or of a comparison: pick one on the left; filter, sort and export it on the right."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from aiperf_lab.console.view_model import break_identifier
from aiperf_lab.console.widgets import TableView, chrome_top, grade_text
from aiperf_lab.metrics.tables import Table

# Shown first when present: the tables a learner reads first.
PREFERRED = ["cuda_gpu_kern_sum", "kernel_breakdown", "ncu_summary", "nvtx_sum", "cuda_api_sum", "gpu_idle",
             "expert_findings", "kernel_diff", "run_diff", "measurement_diff"]


class SavedTable:
    """A table a run folder holds (tables/NAME.csv), read when first shown: a run's trace tables hold a row
    per kernel or call, and converting every cell of all of them took 14 s for a 150,000-kernel run.
    `count`: its rows below the header (-1: not even a header, or unreadable), counted by the csv module
    without converting a cell (a quoted cell may hold a newline)."""

    def __init__(self, run, name: str) -> None:
        import csv

        self.run, self.name = run, name
        self._table: Table | None = None
        try:
            with (run.folder / "tables" / f"{name}.csv").open(newline="", encoding="utf-8") as f:
                self.count = sum(1 for _row in csv.reader(f)) - 1
        except (OSError, UnicodeDecodeError, csv.Error):
            self.count = -1

    def load(self) -> Table | None:
        if self._table is None:
            self._table = self.run.table(self.name)
        return self._table


def _shown(entry: Table | SavedTable | None) -> Table | None:
    return entry.load() if isinstance(entry, SavedTable) else entry


class ResultsScreen(Screen):
    # slash is a priority binding so that "/gemm" typed in one burst filters (see TableView.action_filter)
    BINDINGS = [Binding("slash", "filter", "Filter", priority=True), Binding("s", "sort", "Sort column"),
                Binding("e", "export", "Export CSV")]

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield Static("No results yet: run an exercise, or open a run from History (5).", id="results-title")
        with Horizontal():
            yield OptionList(id="results-tables")
            yield TableView(export_dir=self.app.ctx.runs_dir / "exports", id="results-view")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.tables: list[Table] = []
        self.sync()

    def on_screen_resume(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Show what the app asked for last (a run folder, or a comparison's tables)."""
        pending, self.app.ctx.results_pending = self.app.ctx.results_pending, None
        if pending is None:
            return
        if pending[0] == "run":
            self.load_run(pending[1])
        else:
            _kind, title, tables, export_name = pending
            self.show_tables(title, tables, Path(self.app.ctx.runs_dir) / "exports" / export_name)

    def load_run(self, folder: str | Path) -> None:
        from aiperf_lab.labs.history import load_run
        run = load_run(folder)
        names = sorted((p.stem for p in (run.folder / "tables").glob("*.csv")),
                       key=lambda n: (PREFERRED.index(n) if n in PREFERRED else len(PREFERRED), n))
        tables: list = [t for t in (SavedTable(run, name) for name in names) if t.count >= 0]
        checks = run.record.get("checks") or []
        if checks:
            tables.insert(0, Table("checks", "Checks", ["Result", "Check", "Numbers"],
                                   [[str(c.get("status", "")).upper(), c.get("text"), c.get("detail")] for c in checks]))
        title = Text(f"{run.label}\n")
        title.append_text(grade_text(run.grade.word, run.grade.reason, self.app.ctx.ascii_only))
        self.show_tables(title, tables, Path(self.app.ctx.runs_dir) / "exports" / run.folder.name)

    def show_tables(self, title: str | Text, tables: list, export_dir: Path) -> None:
        """`tables`: Tables, or SavedTables read when highlighted."""
        self.tables = tables
        title = Text(title) if isinstance(title, str) else title   # run labels are data, not markup
        if not tables:
            title = Text.assemble(title, "\nno tables (run with a profiler)")
        self.query_one("#results-title", Static).update(title)
        view = self.query_one(TableView)
        view.export_dir = export_dir
        options = self.query_one(OptionList)
        options.clear_options()
        self._labels_width = self._list_width()
        options.add_options([Option(self._label(t), id=str(i)) for i, t in enumerate(tables)])
        view.show(_shown(tables[0]) if tables else None)
        if tables:
            options.highlighted = 0
            options.focus()

    def _list_width(self) -> int:
        # before the first layout the list is at its narrowest (min-width 18, less border and padding)
        return self.query_one("#results-tables", OptionList).scrollable_content_region.width or 14

    def _label(self, table) -> Text:
        count = table.count if isinstance(table, SavedTable) else len(table.rows)
        return Text(break_identifier(f"{table.name} ({count})", self._list_width()))

    def on_resize(self) -> None:
        if getattr(self, "tables", None) and self._list_width() != self._labels_width:
            self._labels_width = self._list_width()
            options = self.query_one(OptionList)
            for i, table in enumerate(self.tables):
                options.replace_option_prompt_at_index(i, self._label(table))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_id is not None and self.tables:
            self.query_one(TableView).show(_shown(self.tables[int(event.option_id)]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#table-data").focus()

    # The table's keys, also reachable from the palette whatever has focus.
    def action_filter(self) -> None:
        self.query_one(TableView).action_filter()

    def action_sort(self) -> None:
        self.query_one(TableView).action_sort()

    def action_export(self) -> None:
        self.query_one(TableView).action_export()
