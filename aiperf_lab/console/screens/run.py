"""Run: the workload's output as it streams (wrapped to the screen), elapsed time, the run's energy so
far in the status line, cancel; when it ends, the run's grade with its reason and the checks, all read
from the run's record (what run.json holds), never from what was asked."""

from __future__ import annotations

import time
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Log, Static

from aiperf_lab.console.view_model import elapsed, run_energy, run_state, wrap_lines
from aiperf_lab.console.widgets import Confirm, chrome_top, grade_text, in_view

LOG_LINES = 10_000


class ConfirmCancel(Confirm):
    """Closes by itself, answering no, when the run ends while it is asking."""

    def __init__(self, still_running: Callable[[], bool] | None = None) -> None:
        super().__init__("Stop the running workload? (y / n)\nIt gets Ctrl-C first, so a profiler can still write "
                         "its report.", "Stop it", "Keep running", still_applies=still_running)


def no_run_yet(why_none_can_start: str | None) -> str:
    """The Run screen before any run: how to start one, or why none can start on this machine (the Labs
    footer then offers no run key to press)."""
    if why_none_can_start:
        return f"No run yet, and none can start here: {why_none_can_start}."
    return "No run yet: pick an exercise on the Labs screen (1) and press r (n, c, t: under a profiler)."


class RunScreen(Screen):
    BINDINGS = [Binding("x", "cancel_run", "Cancel run"), Binding("o", "open_results", "Tables")]

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield Static(no_run_yet(self.app.ctx.cannot_start("none")), id="run-header", markup=False)
        yield Static("", id="run-grade")
        yield Log(max_lines=LOG_LINES, id="run-log", auto_scroll=True)
        yield DataTable(id="run-checks", zebra_stripes=True, cursor_type="row")
        yield Static("", id="run-check-detail")   # the highlighted check in full (rows are cut at 80 columns)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        checks = self.query_one("#run-checks", DataTable)
        checks.add_columns("Result", "Check", "Numbers")   # the result first: it must survive 80 columns
        checks.display = False
        self.query_one("#run-grade", Static).display = False
        # anchored: the last line stays in view while the reader has not scrolled up, also when the grade and
        # the checks appear around the log as the run ends and the log gets shorter (Log alone follows only
        # while already at its end, which a shorter log is not: the result went below the box)
        self.query_one("#run-log", Log).anchor()
        self._session = None          # the run this screen shows; a new one clears the log
        self._footer_running: tuple[bool, bool] | None = None
        self._shown_record = None
        self._timer = self.set_interval(1 / max(self.app.ctx.ui_hz, 8.0), self.tick)

    def on_screen_suspend(self) -> None:
        # A dialog over this screen (quit, cancel, help) leaves it in view: it keeps following the run,
        # so a run that ends under the question reads as ended, not "running". Another screen hides it.
        if not in_view(self):
            self._timer.pause()

    def on_screen_resume(self) -> None:
        self._timer.resume()
        self.tick()

    def tick(self) -> None:
        session = self.app.ctx.run
        if session is None:
            return
        if session is not self._session:
            self._session = session
            self._shown_record = None
            self.query_one("#run-log", Log).clear()
            self.query_one("#run-checks", DataTable).display = False
            self.query_one("#run-check-detail", Static).update("")
            self._checks = []
            self.query_one("#run-grade", Static).display = False
        lines = session.lines.drain()  # batched: one write per tick, not one per line
        if lines:
            self._write(lines)
        state = run_state(session.running, session.cancel.is_set(), session.error, session.record)
        self.query_one("#run-header", Static).update(
            f"{session.exercise_id} {session.variant or 'default'} · {session.profile} · size {session.size} · "
            f"{state} {elapsed(session.elapsed())}")
        if not session.running and session.ended is not None and self._shown_record is not session:
            self._shown_record = session
            self._show_outcome(session)
        offered = (session.running, session.record is not None)
        if offered != self._footer_running:
            self._footer_running = offered
            self.refresh_bindings()     # x (cancel) is offered only while the run goes, o once it has a record

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_run":
            session = self.app.ctx.run
            # hidden, not dimmed: a dimmed "x Cancel run" after the run read as offered, and x did nothing
            return bool(session is not None and session.running)
        if action == "open_results":
            # hidden until the run has a record: "o Tables" under "No run yet" or "did not start" did nothing
            session = self.app.ctx.run
            return bool(session is not None and session.record is not None)
        return True

    def _write(self, lines: list[str]) -> None:
        """Into the log, wrapped to its width: a long line is never cut off."""
        log = self.query_one("#run-log", Log)
        # before the first layout the log has no size yet: the screen's width less its border and scrollbar
        width = log.scrollable_content_region.width or self.app.size.width - 4
        log.write_lines(wrap_lines(lines, width - 1))

    def status_extra(self) -> str:
        """The status line's addition here: the shown run's GPU energy so far."""
        session = self.app.ctx.run
        if session is None:
            return "no run yet"
        if session.error and not session.running:
            return "no run: it did not start"   # nothing ran, so there is no energy to speak of, n/a or not
        return f"run energy {self._energy_so_far(session)}"

    def _energy_so_far(self, session) -> str:
        return run_energy(self.app.ctx.feed, session.started, session.ended, time.monotonic())

    def _show_outcome(self, session) -> None:
        """The run's grade and checks, from its record; the one toast comes from the app."""
        grade = self.query_one("#run-grade", Static)
        ascii_only = self.app.ctx.ascii_only
        if session.error:
            # the reason once on the screen (here) and once in the toast; the log stays for a run's own output
            # no run, so no grade: "✗ failed" read as the exercise failing, and History holds no such run
            grade.update(Text(f"{'!!' if ascii_only else '✗'} did not start: {session.error}"))
            grade.set_class(True, "-failed")
            grade.display = True
            return
        record = session.record
        if record is None:
            return
        word = record.grade or "not graded"
        grade.update(grade_text(word, record.grade_reason, ascii_only))
        grade.set_class(word == "failed", "-failed")
        grade.display = True
        self._write([f"== {record.outcome}, {record.seconds} s; folder {record.folder}"])
        if record.exit_code not in (0, None) and record.size == "full" and not self.app.ctx.gpu_here \
                and not record.cancelled:
            self._write(["== no GPU here: on Labs (1), z picks size tiny for exercises marked [cpu]"])
        checks = self.query_one("#run-checks", DataTable)
        checks.clear()
        limit = max(24, self.app.size.width // 2)   # the numbers stay on screen at 80 columns
        for check in record.checks:
            checks.add_row(Text(check.status.upper(), style="bold" if check.status == "pass" else "bold reverse"
                                if check.status in ("fail", "error") else "italic"),
                           Text(_cut(check.text, limit)), Text(check.detail))   # str cells would be markup
        checks.display = bool(record.checks)
        self._checks = list(record.checks)
        self._show_check(0)

    def _show_check(self, row: int) -> None:
        checks = getattr(self, "_checks", [])
        detail = self.query_one("#run-check-detail", Static)
        if not 0 <= row < len(checks):
            detail.update("")
            return
        check = checks[row]
        detail.update(Text(f"{check.status.upper()} {check.text}: {check.detail}"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "run-checks":
            self._show_check(event.cursor_row)

    def action_cancel_run(self) -> None:
        session = self.app.ctx.run
        if session is None or not session.running:
            self.notify("nothing is running")
            return

        def answered(stop: bool | None) -> None:
            if stop:
                session.cancel.set()   # the header says "stopping" until run.json says how it ended
                self.tick()

        def still_running() -> bool:
            if session.running:
                return True
            self.notify("the run ended before it was stopped")
            return False

        self.app.push_screen(ConfirmCancel(still_running), answered)

    def action_open_results(self) -> None:
        session = self.app.ctx.run
        if session is not None and session.record is not None:
            self.app.show_run(session.record.folder)
        else:
            self.notify("no finished run to show yet")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
