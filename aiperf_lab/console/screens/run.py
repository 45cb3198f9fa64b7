"""Run: the workload's output as it streams, elapsed time, a live telemetry strip, the run's energy
so far, cancel; when it ends, the checks with their numbers."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Header, Log, Static

from aiperf_lab.console.view_model import elapsed, fmt, per_gpu_history, series, sm_activity_text
from aiperf_lab.console.widgets import Notice
from aiperf_lab.metrics.telemetry.feed import energy_between

LOG_LINES = 10_000


class ConfirmCancel(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static("Stop the running workload? (y / n)\nIt gets Ctrl-C first, so a profiler can still write "
                         "its report.")
            with Horizontal():
                yield Button("Stop it (y)", id="yes", variant="error")
                yield Button("Keep running (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class RunScreen(Screen):
    BINDINGS = [Binding("x", "cancel_run", "Cancel run"), Binding("o", "open_results", "Results")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Notice(id="notice")
        yield Static("No run yet: pick an exercise on the Labs screen (1) and press r, n, c or t.", id="run-header")
        yield Static("", id="run-strip")
        yield Log(max_lines=LOG_LINES, id="run-log", auto_scroll=True)
        yield DataTable(id="run-checks", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        checks = self.query_one("#run-checks", DataTable)
        checks.add_columns("Check", "Result", "Numbers")
        checks.display = False
        self._session = None          # the run this screen shows; a new one clears the log
        self._shown_record = None
        self._timer = self.set_interval(1 / max(self.app.ctx.ui_hz, 8.0), self.tick)

    def on_screen_suspend(self) -> None:
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
        lines = session.lines.drain()  # batched: one write per tick, not one per line
        if lines:
            self.query_one("#run-log", Log).write_lines(lines)
        state = "running" if session.running else ("cancelled" if session.cancel.is_set() else "finished")
        energy = self._energy_so_far(session)
        self.query_one("#run-header", Static).update(
            f"{session.exercise_id}  variant {session.variant}  profile {session.profile}  size {session.size}   "
            f"{state}  {elapsed(session.elapsed())}   energy so far {energy}")
        self._strip()
        if not session.running and session.ended is not None and self._shown_record is not session:
            self._shown_record = session
            self._show_outcome(session)

    def _energy_so_far(self, session) -> str:
        """GPU energy between the run's start and its end (or now), from the console's feed (all GPUs)."""
        feed = self.app.ctx.feed
        if getattr(feed, "kind", "") != "nvml":
            return "n/a (not a live feed)"
        # The run's span on the feed's clock, so the figure stops moving once the run has ended.
        now, wall = feed.now(), time.monotonic()
        joules = energy_between(feed, now - (wall - session.started), now - (wall - (session.ended or wall)))
        return "n/a" if joules is None else f"{joules:.0f} J"

    def _strip(self) -> None:
        feed = self.app.ctx.feed
        _version, ticks = feed.ring.snapshot(60.0)
        history = per_gpu_history(ticks)
        width = max(10, self.size.width - 50)
        parts = []
        for info in feed.devices[:2]:
            samples = history.get(info.index, [])
            latest = samples[-1] if samples else None
            top = (latest.power_limit_w if latest and latest.power_limit_w else info.power_limit_w) or 1.0
            parts.append(f"GPU {info.index} {fmt(latest.power_w if latest else None, ' W'):>6} "
                         f"{sm_activity_text(info, latest):>7} util {fmt(latest.util_gpu_pct if latest else None, '%'):>4} "
                         f"{series([s.power_w for s in samples], width, top, self.app.ctx.ascii_only)}")
        if not parts:
            parts.append(f"no GPU telemetry ({feed.status})")
        self.query_one("#run-strip", Static).update("\n".join(parts))

    def _show_outcome(self, session) -> None:
        log = self.query_one("#run-log", Log)
        if session.error:
            log.write_line(f"!! {session.error}")
            self.notify(session.error, severity="error", title="Run")
            return
        record = session.record
        if record is None:
            return
        log.write_line(f"== exit code {record.exit_code}, {record.seconds} s; folder {record.folder}")
        checks = self.query_one("#run-checks", DataTable)
        checks.clear()
        for check in record.checks:
            checks.add_row(check.text, check.status.upper(), check.detail)
        checks.display = bool(record.checks)
        passed = sum(c.status == "pass" for c in record.checks)
        failed = sum(c.status in ("fail", "error") for c in record.checks)
        self.notify(f"{record.exercise}: {passed} passed, {failed} failed; o shows the tables",
                    severity="error" if failed or record.exit_code else "information", title="Run finished")

    def action_cancel_run(self) -> None:
        session = self.app.ctx.run
        if session is None or not session.running:
            self.notify("nothing is running")
            return

        def answered(stop: bool | None) -> None:
            if stop:
                session.cancel.set()
                self.notify("stopping the workload (Ctrl-C, then TERM, then KILL)")

        self.app.push_screen(ConfirmCancel(), answered)

    def action_open_results(self) -> None:
        session = self.app.ctx.run
        if session is not None and session.record is not None:
            self.app.show_run(session.record.folder)
