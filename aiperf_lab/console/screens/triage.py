"""Triage: start an aiperf-triage bundle for a duration, watch its progress, see where the archive went."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, Input, Log, Static

from aiperf_lab.console.view_model import elapsed, wrap_lines
from aiperf_lab.console.widgets import InOrderInput, chrome_top


BENCH_ON = "bench ON: copy and matmul probes (k)"
BENCH_OFF = "bench off (k)"
NO_BENCH = "the bench measures GPUs (copy and matmul probes, links, NCCL), and none is visible here"


class TriageScreen(Screen):
    # The duration box takes focus only after d: everywhere else digits and letters are the console's keys.
    AUTO_FOCUS = "#triage-log"
    BINDINGS = [Binding("b", "start", "Start bundle"), Binding("x", "stop", "Stop"),
                Binding("d", "edit_duration", "Duration", priority=True), Binding("k", "toggle_bench", "Bench"),
                # k shown dimmed without a GPU (check_action); pressed anyway, this one says why
                Binding("k", "why_no_bench", show=False),
                Binding("escape", "leave_duration", "Leave the field", show=False)]

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield Static("A bundle of hardware, topology, snapshots and telemetry for a duration; secrets are redacted "
                     "before anything is written. d sets the duration (enter or escape leaves it, kept), k the bench, b starts.",
                     id="triage-help")
        with Horizontal(id="triage-form"):
            yield Static("duration (s):", id="triage-duration-label")
            duration = InOrderInput(value="60", id="triage-duration", type="number")
            duration.can_focus = False
            yield duration
            bench = Checkbox(BENCH_OFF, id="triage-bench")
            bench.BUTTON_INNER = " "      # the box is empty when off (Textual draws an X either way)
            yield bench
        yield Static("", id="triage-status")
        yield Static("", id="triage-progress")
        yield Log(max_lines=5_000, id="triage-log")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._footer_running: bool | None = None
        self._timer = self.set_interval(0.25, self.tick)
        # anchored, as the Run screen's: the progress lines above the log appeared and it stopped following at
        # 'phase capture', with 'archive written' and the archive's path below the box
        self.query_one("#triage-log", Log).anchor()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            # offered only while a bundle is being made: "x Stop" on an idle screen read as a key that works
            triage = self.app.ctx.triage
            return bool(triage is not None and triage.running)
        if action == "toggle_bench" and not self.app.ctx.gpu_here:
            # the bench measures GPUs: "bench ON: copy and matmul probes" on a machine without one only ended in
            # "bench: asked, but it did not run" in the summary
            return None
        return True

    def action_why_no_bench(self) -> None:
        self.notify(NO_BENCH, severity="warning")

    def _offer_stop(self) -> None:
        triage = self.app.ctx.triage
        running = bool(triage is not None and triage.running)
        if running != self._footer_running:
            self._footer_running = running
            self.refresh_bindings()

    def action_edit_duration(self) -> None:
        box = self.query_one("#triage-duration", Input)
        box.can_focus = True
        # Keys typed in the same burst as d ("d120" over SSH) are already queued, and each is routed to
        # whatever has focus when the app takes it: so d is a priority binding (its action runs as the
        # app takes d, not after the old focus has had the next keys) and focus moves now, not at the
        # next idle as box.focus() would.
        self.set_focus(box)

    def action_leave_duration(self) -> None:
        box = self.query_one("#triage-duration", Input)
        box.can_focus = False
        self.query_one("#triage-log", Log).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_leave_duration()

    def action_toggle_bench(self) -> None:
        self.query_one("#triage-bench", Checkbox).toggle()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.checkbox.BUTTON_INNER = "X" if event.value else " "
        event.checkbox.label = BENCH_ON if event.value else BENCH_OFF

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
        self._offer_stop()
        triage = self.app.ctx.triage
        if triage is None:
            return
        lines = triage.lines.drain()
        if lines:
            log = self.query_one("#triage-log", Log)
            # wrapped at words to the log's width, as the Run screen's log: a long line is never cut off
            width = log.scrollable_content_region.width or self.app.size.width - 4
            log.write_lines(wrap_lines(lines, width - 1))
        if triage.running:
            state = f"running {elapsed(triage.elapsed())} of {triage.duration_s:g} s"
        elif triage.archive:
            how = "stopped early, archive marked interrupted" if triage.exit_code == 130 else "done"
            state = f"{how}: {triage.archive}\n(aiperf-triage show ARCHIVE prints its summary: what it captured, and why a part is missing)"
        elif triage.error:
            state = triage.error
        else:
            state = f"ended with exit code {triage.exit_code} (see the log)"
        self.query_one("#triage-status", Static).update(Text(state))   # a path may hold brackets
        # Text, not markup: paths and titles may hold brackets ("[REDACTED]")
        self.query_one("#triage-progress", Static).update(Text("\n".join(triage.progress_lines())))
