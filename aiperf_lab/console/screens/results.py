"""Results: the tables of a run (kernels, NVTX ranges, API calls, ncu summary with verdicts, kernel
breakdown, ...), of a comparison, or of a profile file opened with o (the overview aiperf-stats prints
for it): pick one on the left; filter, sort and export it on the right."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from aiperf_lab.console.view_model import break_identifier
from aiperf_lab.console.widgets import InOrderInput, TableView, chrome_top, grade_text
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
        import io

        from aiperf_lab.errors import InputError
        from aiperf_lab.inputs import open_regular

        self.run, self.name = run, name
        self._table: Table | None = None
        try:   # a regular file only: a FIFO among the tables blocked the screen for ever
            with io.TextIOWrapper(open_regular(run.folder / "tables" / f"{name}.csv"), encoding="utf-8",
                                  newline="") as f:
                self.count = sum(1 for _row in csv.reader(f)) - 1
        except (OSError, InputError, UnicodeDecodeError, csv.Error):
            self.count = -1

    def load(self) -> Table | None:
        if self._table is None:
            self._table = self.run.table(self.name)
        return self._table


def _shown(entry: Table | SavedTable | None) -> Table | None:
    return entry.load() if isinstance(entry, SavedTable) else entry


OPEN_PLACEHOLDER = "a profile: .nsys-rep .sqlite .ncu-rep .csv .json[.gz], run folder, bundle"


class ResultsScreen(Screen):
    AUTO_FOCUS = "#results-tables"   # not the hidden path field, which would take the keys typed next
    # slash and o are priority bindings so that "/gemm" or "o~/x.sqlite" typed in one burst go into their box
    BINDINGS = [Binding("slash", "filter", "Filter", priority=True), Binding("s", "sort", "Sort column"),
                Binding("e", "export", "Export CSV"), Binding("o", "open_file", "Open file", priority=True),
                Binding("escape", "leave_open", "Leave the field", show=False)]

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield Static(self._nothing_yet(), id="results-title")
        yield InOrderInput(placeholder=OPEN_PLACEHOLDER, id="results-open")
        with Horizontal():
            yield OptionList(id="results-tables")
            yield TableView(export_dir=self.app.ctx.runs_dir / "exports", id="results-view")
        yield Footer(compact=True)

    def _nothing_yet(self) -> str:
        """What to do for tables here, where there are none yet: what o opens, and where a run's come from (an
        exercise's run only where one can start here, else --demo's recorded runs)."""
        runs = ("run an exercise (Labs, 1) and its tables show here" if self.app.ctx.cannot_start("none") is None
                else "aiperf-console --demo shows recorded runs")
        return (f"No results yet. o opens a profile ({OPEN_PLACEHOLDER.split(': ', 1)[1]}); History (5) opens a "
                f"run; {runs}.")

    def on_mount(self) -> None:
        self.tables: list[Table] = []
        self._opening = 0        # the latest file asked for (o): only its answer is shown
        self.query_one("#results-open", Input).display = False
        self._list_shown(False)  # no tables: no empty box under the words saying what to do
        self.sync()

    def _list_shown(self, shown: bool) -> None:
        self.query_one("#results-tables", OptionList).display = shown

    def on_screen_resume(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Show what the app asked for last (a run folder, or a comparison's tables)."""
        pending, self.app.ctx.results_pending = self.app.ctx.results_pending, None
        if pending is None:
            return
        self._opening += 1       # a file still being opened must not replace what was asked for since
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
        self._list_shown(bool(tables))
        view = self.query_one(TableView)
        view.export_dir = export_dir
        view.said_above = title.plain.strip()
        options = self.query_one(OptionList)
        options.clear_options()
        self._labels_width = self._list_width()
        options.add_options([Option(self._label(t), id=str(i)) for i, t in enumerate(tables)])
        view.show(_shown(tables[0]) if tables else None)
        self.refresh_bindings()   # / s e: offered once a table is shown
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
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # In a text field "/" and "o" are text: the priority bindings step aside, so the key reaches the field
        # in the order it was typed ("~/runs/foo.sqlite" typed in one burst, not "//o~runsfo.sqlite").
        if action in ("filter", "open_file") and isinstance(self.focused, Input):
            return False
        # no table shown yet: nothing to filter, sort or export (the keys did nothing), shown dimmed
        if action in ("filter", "sort", "export"):
            views = self.query(TableView)
            return True if views and views.first().table is not None else None
        return True

    def action_filter(self) -> None:
        self.query_one(TableView).action_filter()

    def action_sort(self) -> None:
        self.query_one(TableView).action_sort()

    def action_export(self) -> None:
        self.query_one(TableView).action_export()

    # --- o: a profile file's tables, as `aiperf-stats FILE` shows them --------------------------------
    def action_open_file(self) -> None:
        box = self.query_one("#results-open", Input)
        box.display = True
        self.set_focus(box)               # now, so the rest of a typed burst goes into the box

    def action_leave_open(self) -> None:
        box = self.query_one("#results-open", Input)
        if box.display:
            box.display = False
            self.query_one(OptionList).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "results-open":
            return
        event.stop()
        path = event.value.strip()
        if not path:
            self.action_leave_open()
            return
        self.query_one("#results-title", Static).update(Text(f"opening {path} ..."))
        # a thread cannot be stopped: an earlier open still going must not replace this one's tables later
        self._opening += 1
        asked = self._opening
        self.run_worker(lambda: self._open(path, asked), thread=True, group="open-file", exit_on_error=False)

    def _open(self, typed: str, asked: int) -> None:
        """In a worker thread: the file is read (and an .nsys-rep exported) by metrics, as aiperf-stats does."""
        from aiperf_lab.cli_support import short_path
        from aiperf_lab.console.view_model import one_line_error
        from aiperf_lab.metrics.sources import Overview

        path = str(Path(typed).expanduser())
        try:
            opened = Overview(path)
        except Exception as exc:   # one line, the screens stay: a bad file must not end the console
            said = one_line_error(exc)
            named = any(name in said for name in (typed, path, short_path(path)))   # metrics' messages name it
            self.app.call_from_thread(self._open_failed, said if named else f"{short_path(typed)}: {said}", asked)
            return
        self.app.call_from_thread(self._opened, opened, asked)

    def _open_failed(self, message: str, asked: int) -> None:
        if asked != self._opening:
            return
        self.query_one("#results-title", Static).update(Text(f"cannot open {message}"))
        box = self.query_one("#results-open", Input)
        box.display = True                # kept as typed, to fix and try again (escape leaves it)
        self.set_focus(box)

    def _opened(self, opened, asked: int) -> None:
        from aiperf_lab.cli_support import short_path
        from aiperf_lab.metrics.registry import KINDS

        if asked != self._opening:
            return
        self.query_one("#results-open", Input).display = False
        # At 80x24 the title took 6 lines for a bundle without a profile (its path said twice, the reports the list
        # beside the table names listed again): the path, then what is shown, in a line or two.
        bare = opened.no_profile_notice
        said = [*(n for n in opened.notices if n != bare), *(f"SKIPPED: {reason}" for reason in opened.skipped)]
        title = Text(short_path(opened.path.absolute()))
        what = ("it holds no profile (no profiler ran, or its export failed): aiperf-stats's overview of its "
                "telemetry.csv" if bare else f"{KINDS[opened.kind].split(' (')[0]}: aiperf-stats's overview")
        title.append(f"\n{what}; the others: aiperf-stats FILE --report NAME" + ("; " + "; ".join(said) if said else ""),
                     style="dim")
        stem = opened.path.name.split(".")[0] or "profile"
        self.show_tables(title, opened.tables, Path(self.app.ctx.runs_dir) / "exports" / stem)
