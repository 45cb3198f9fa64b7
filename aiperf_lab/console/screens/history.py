"""History: past runs from the run folders, newest first. Enter opens a run's tables; `m` marks a run
as "before" and `c` compares it with the run under the cursor (time, energy, measurements, kernels)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from aiperf_lab.console.view_model import GRADE_STYLE, grade_label
from aiperf_lab.console.widgets import chrome_top


class HistoryScreen(Screen):
    BINDINGS = [Binding("m", "mark", "Mark before"), Binding("c", "compare", "Compare"),
                # m and c dimmed while there is no run (check_action): pressed anyway, these say so
                Binding("m", "no_runs", show=False), Binding("c", "no_runs", show=False),
                Binding("g", "reload", "Reload")]

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield Static("", id="history-status", markup=False)   # run labels and reasons are data
        yield DataTable(id="history-table", zebra_stripes=True, cursor_type="row")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.marked = None
        table = self.query_one(DataTable)
        # The grade first and the exercise next: both must survive 80 columns; the rest follows.
        table.add_columns("", "Grade", "Exercise", "Variant", "Profile", "Seconds", "Energy (J)", "Started (UTC)",
                          "Why")
        self.action_reload()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        from aiperf_lab.labs.history import list_runs
        self.runs = [run for folder in self.app.ctx.history_dirs for run in list_runs(folder)]
        self._bundled = {run.folder for run in self.runs if self._is_bundled(run)}
        self.runs.sort(key=lambda r: str(r.record.get("started_utc", "")), reverse=True)
        table = self.query_one(DataTable)
        table.clear()
        ascii_only = self.app.ctx.ascii_only
        cut = 24 if self.app.size.width < 120 else 48     # room for the columns after it at 80 columns
        for i, run in enumerate(self.runs):
            r = run.record
            grade = run.grade
            energy = (r.get("energy") or {}).get("joules")
            exercise = str(r.get("exercise", ""))
            mark = "*" if self.marked is not None and run.folder == self.marked.folder else ""
            cells = [mark + ("d" if run.folder in self._bundled else ""),
                     Text(grade_label(grade.word, ascii_only), style=GRADE_STYLE.get(grade.word, "")),
                     exercise[:cut] + ("…" if len(exercise) > cut else ""), r.get("variant", ""),
                     r.get("profile", ""), r.get("seconds", ""),
                     f"{energy:.0f}" if isinstance(energy, (int, float)) else "n/a",
                     str(r.get("started_utc", ""))[:19],
                     grade.reason[:80] + ("…" if len(grade.reason) > 80 else "")]
            # Text, not str: a str cell is markup, and these are data from run.json ("[cpu]", paths)
            table.add_row(*(Text(c) if isinstance(c, str) else c for c in cells), key=str(i))
        self._update_status()
        self.refresh_bindings()
        table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """m and c are shown dimmed while there is no run to mark or compare (pressed, they say so)."""
        if action in ("mark", "compare") and not getattr(self, "runs", None):
            return None
        return True

    def _is_bundled(self, run) -> bool:
        """A run shipped with --demo (made on the lent H200), not one made on this machine."""
        from aiperf_lab.console.context import DEMO_RUNS
        try:
            return run.folder.resolve().is_relative_to(DEMO_RUNS.resolve())
        except OSError:
            return False

    def _cursor_grade(self) -> str:
        run = self._current()
        if run is None:
            return ""
        where = " (bundled demo run, not from this machine)" if run.folder in self._bundled else ""
        return (f"\n{run.label}{where}: {grade_label(run.grade.word, self.app.ctx.ascii_only)}: "
                f"{run.grade.reason}")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_status()

    def _update_status(self) -> None:
        where = ", ".join(str(d) for d in self.app.ctx.history_dirs)
        self.query_one("#history-status", Static).update(
            f"{len(self.runs)} runs"
            + (f" ({len(self._bundled)} demo runs, marked d)" if self._bundled else "")
            # one line at 80 columns (it broke at "c:" / "compare")
            + ": enter opens, m marks before, c compares"
            + self._cursor_grade() if self.runs else f"no runs yet in {where}")

    def _current(self):
        table = self.query_one(DataTable)
        if not self.runs or table.cursor_row is None or table.cursor_row >= len(self.runs):
            return None
        return self.runs[table.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        run = self._current()
        if run is not None:
            self.app.show_run(run.folder)

    def action_no_runs(self) -> None:
        where = ", ".join(str(d) for d in self.app.ctx.history_dirs)
        # "run an exercise first" where none can start here (no PyTorch) sent the user to keys shown dimmed
        how = "run an exercise (Labs, 1) first" if self.app.ctx.cannot_start("none") is None else \
            "none can start here (Labs, 1, says why); aiperf-console --demo shows recorded runs"
        self.notify(f"no runs yet in {where}: {how}", severity="warning")

    def action_mark(self) -> None:
        run = self._current()
        if run is None:
            return
        self.marked = run
        row = self.query_one(DataTable).cursor_row
        self.action_reload()
        self.query_one(DataTable).move_cursor(row=row)
        self.notify(f"marked {run.label} as before; move to another run and press c")

    def action_compare(self) -> None:
        run = self._current()
        if self.marked is None or run is None:
            self.notify("mark a run with m first, then put the cursor on the other one", severity="warning")
            return
        if run.folder == self.marked.folder:
            self.notify("pick a different run to compare with", severity="warning")
            return
        from aiperf_lab.labs.history import compare_runs
        tables = compare_runs(self.marked, run)
        self.app.show_tables(f"{self.marked.label}  ->  {run.label}", tables, f"compare-{run.folder.name}")
