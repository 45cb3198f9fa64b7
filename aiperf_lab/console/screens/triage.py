"""Triage: start an aiperf-triage bundle for a duration, watch its progress, see where the archive went."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, Header, Input, Log, Static

from aiperf_lab.console.view_model import elapsed
from aiperf_lab.console.widgets import Notice


class TriageScreen(Screen):
    AUTO_FOCUS = "#triage-log"  # not the duration box: there, digits and letters type instead of acting
    BINDINGS = [Binding("b", "start", "Start bundle"), Binding("x", "stop", "Stop")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Notice(id="notice")
        yield Static("A bundle of hardware, topology, snapshots and telemetry for a duration; secrets are redacted "
                     "before anything is written. tab to the duration (seconds), enter or b starts.", id="triage-help")
        with Horizontal(id="triage-form"):
            yield Input(value="60", id="triage-duration", type="number")
            yield Checkbox("bench (copy and matmul probes)", id="triage-bench")
        yield Static("", id="triage-status")
        yield Static("", id="triage-progress")
        yield Log(max_lines=5_000, id="triage-log")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.25, self.tick)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def action_start(self) -> None:
        ctx = self.app.ctx
        if ctx.triage is not None and ctx.triage.running:
            self.notify("a bundle is being made already", severity="warning")
            return
        text = self.query_one("#triage-duration", Input).value.strip()
        try:
            duration = float(text)
        except ValueError:
            duration = -1
        if not 1 <= duration <= 3600:
            self.notify(f"duration must be 1 to 3600 seconds, not {text!r}", severity="error")
            return
        extra = ["--bench"] if self.query_one("#triage-bench", Checkbox).value else []
        self.query_one("#triage-log", Log).clear()
        self.app.start_triage(duration, extra)

    def action_stop(self) -> None:
        triage = self.app.ctx.triage
        if triage is None or not triage.running:
            self.notify("no bundle is being made")
            return
        self.app.run_worker(triage.stop, thread=True, group="triage-stop", exit_on_error=False)
        self.notify("stopping: triage writes what it collected and marks the archive interrupted")

    def tick(self) -> None:
        triage = self.app.ctx.triage
        if triage is None:
            return
        lines = triage.lines.drain()
        if lines:
            self.query_one("#triage-log", Log).write_lines(lines)
        if triage.running:
            state = f"running {elapsed(triage.elapsed())} of {triage.duration_s:g} s"
        elif triage.archive:
            state = f"done: {triage.archive}"
        elif triage.error:
            state = triage.error
        else:
            state = f"ended with exit code {triage.exit_code} (see the log)"
        self.query_one("#triage-status", Static).update(state)
        # Text, not markup: paths and titles may hold brackets ("[REDACTED]")
        self.query_one("#triage-progress", Static).update(Text("\n".join(triage.progress_lines())))
