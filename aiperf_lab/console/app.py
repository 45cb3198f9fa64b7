"""The Textual app: six screens as modes (Labs, Monitor, Run, Results, History, Triage), help, the
command palette, and the glue that starts runs and bundles. It only shows what the domain packages
compute; the feed, the runner and the run folders come in through ConsoleContext."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.scrollbar import ScrollBar, ScrollBarRender

from aiperf_lab.console.context import ConsoleContext
from aiperf_lab.console.screens.labs import LabsScreen
from aiperf_lab.console.sessions import RunSession, TriageSession

SCREENS_IN_ORDER = [("labs", "Labs"), ("monitor", "Monitor"), ("run", "Run"), ("results", "Results"),
                    ("history", "History"), ("triage", "Triage")]


# Every screen's actions, for the command palette: (title, help, screen, the action its key runs).
PALETTE_ACTIONS = [
    ("Run the exercise (plain)", "Labs, r: run the selected exercise without a profiler", "labs", "run('none')"),
    ("Run under nsys (Nsight Systems)", "Labs, n: run the selected exercise under Nsight Systems", "labs",
     "run('nsys')"),
    ("Run under ncu (Nsight Compute)", "Labs, c: run the selected exercise under Nsight Compute", "labs",
     "run('ncu')"),
    ("Run under the PyTorch profiler (torch)", "Labs, t: run the selected exercise with a Kineto trace", "labs",
     "run('torch')"),
    ("Next variant", "Labs, v: the exercise's next variant (baseline, optimized, ...)", "labs", "next_variant"),
    ("Problem size: full or tiny", "Labs, z: full (GPU) or tiny (CPU, for exercises marked \\[cpu])", "labs",
     "toggle_size"),
    ("Walkthrough answers", "Labs, a: the written answers, after a finished run (again: back)", "labs",
     "toggle_answers"),
    ("Cancel the run", "Run, x: stop the running workload (asks first)", "run", "cancel_run"),
    ("Open the run's tables", "Run, o: the finished run's tables in Results", "run", "open_results"),
    ("Filter table rows", "Results, /: show only rows containing a text", "results", "filter"),
    ("Sort by the column under the cursor", "Results, s: again sorts the other way", "results", "sort"),
    ("Export the table to CSV", "Results, e: what is shown, to a CSV file (the path is shown)", "results",
     "export"),
    ("Open a profile file", "Results, o: a .nsys-rep, .sqlite, ncu or PyTorch file's tables, as aiperf-stats FILE",
     "results", "open_file"),
    ("Mark the run as before", "History, m: the run to compare others with", "history", "mark"),
    ("Compare with the marked run", "History, c: time, energy, measurements, kernels", "history", "compare"),
    ("Reload the history", "History, g: read the run folders again", "history", "reload"),
    ("Start a triage bundle", "Triage, b: a bundle of the set duration", "triage", "start"),
    ("Stop the triage bundle", "Triage, x: stop early; the archive is still written", "triage", "stop"),
    ("Set the triage duration", "Triage, d: type the duration in seconds", "triage", "edit_duration"),
    ("Triage bench on or off", "Triage, k: copy and matmul probes in the bundle", "triage", "toggle_bench"),
]


class RunDone(Message):
    """Posted from the run's thread when the runner returns (thread-safe post_message)."""


class TriageDone(Message):
    pass


def _screen(module: str, name: str):
    """A mode's screen, imported when first shown: only the Labs screen is on the path to the first frame."""
    def make():
        import importlib
        return getattr(importlib.import_module(f"aiperf_lab.console.screens.{module}"), name)()
    return make


class PlainScrollBarRender(ScrollBarRender):
    """A scrollbar of whole cells: the thumb in reverse video, no eighth-block glyphs (`▁▇`) at its ends. NO_COLOR
    strips the colours that tell those glyphs from the track, leaving stray blocks; --ascii asks for plain text."""
    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


class LabConsole(App):
    CSS_PATH = "console.tcss"
    TITLE = "aiperf-console"
    MODES = {"labs": LabsScreen, "monitor": _screen("monitor", "MonitorScreen"), "run": _screen("run", "RunScreen"),
             "results": _screen("results", "ResultsScreen"), "history": _screen("history", "HistoryScreen"),
             "triage": _screen("triage", "TriageScreen")}
    DEFAULT_MODE = "labs"
    # The screen keys 1-6 are in the top bar, so the footer has room for the screen's own keys, help and quit.
    BINDINGS = [
        *[Binding(str(k), f"switch_mode('{mode}')", label, id=f"mode-{mode}", show=False)
          for k, (mode, label) in enumerate(SCREENS_IN_ORDER, 1)],
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("escape", "leave_input", "Leave the field", show=False),
    ]

    def __init__(self, ctx: ConsoleContext, watch_tty: bool = False) -> None:
        super().__init__()
        self.ctx = ctx
        self._watch_tty = watch_tty
        # (a class attribute in Textual: set for every app made, so one made after an --ascii one draws its own way)
        ScrollBar.renderer = PlainScrollBarRender if ctx.ascii_only else ScrollBarRender
        if ctx.feed.status and ctx.feed.devices:
            self.sub_title = ctx.feed.status
        elif ctx.feed.devices:
            self.sub_title = f"{len(ctx.feed.devices)} GPU(s): {ctx.feed.devices[0].name}"
        elif not ctx.notice:                  # else the notice says so, and why, once
            self.sub_title = "no GPU telemetry"

    def on_mount(self) -> None:
        if self._watch_tty:
            # A dropped SSH connection: the shell gets SIGHUP and the terminal goes away. Leave either way,
            # so the app (and through stop_work its children) does not spin on a dead terminal.
            try:
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self.exit)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
            self.set_interval(2.0, self._check_terminal)

    def _check_terminal(self) -> None:
        try:
            alive = os.isatty(sys.__stdin__.fileno()) and os.getppid() != 1
        except (OSError, ValueError, AttributeError):
            alive = False
        if not alive:
            self.exit(return_code=129)

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast is plain text: messages carry paths, exercise ids, tool errors and "[cpu]", whose
        brackets markup would eat. (Screens' notify comes here with markup=True: it is ignored.)"""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # --- what screens ask the app to do ------------------------------------------------------------
    def start_run(self, exercise_id: str, variant: str | None, profile: str, size: str) -> None:
        ctx = self.ctx
        if ctx.run is not None and ctx.run.running:
            self.notify("a run is going already: cancel it on the Run screen (3, x) first", severity="warning")
            return
        ctx.run = RunSession(exercise_id, variant or "", profile, size, Path(ctx.runs_dir), ctx.runner,
                             on_done=lambda session: self.post_message(RunDone()))
        ctx.run.start()
        self.switch_mode("run")

    def on_run_done(self, message: RunDone) -> None:
        """The one toast a run gets: its grade and the reason, as run.json records them."""
        from aiperf_lab.console.view_model import grade_label
        session = self.ctx.run
        if session is None:
            return
        if session.error:
            self.notify(session.error, severity="error", title="Run did not start")
            return
        record = session.record
        if record is None:
            return
        self.ctx.results_pending = ("run", Path(record.folder))   # so 4 shows this run's tables, as the toast says
        word = record.grade or "not graded"
        severity = {"failed": "error", "pass": "information"}.get(word, "warning")
        self.notify(f"{grade_label(word, self.ctx.ascii_only)}: {record.grade_reason}\n"
                    f"3 shows the run, 4 its tables", severity=severity,
                    title=f"{record.exercise} {record.variant}", timeout=8)

    def show_run(self, folder) -> None:
        self.ctx.results_pending = ("run", Path(folder))
        self._show_results()

    def show_tables(self, title: str, tables: list, export_name: str) -> None:
        self.ctx.results_pending = ("tables", title, tables, export_name)
        self._show_results()

    def _show_results(self) -> None:
        from aiperf_lab.console.screens.results import ResultsScreen
        if isinstance(self.screen, ResultsScreen):
            self.screen.sync()
        else:
            self.switch_mode("results")

    def start_triage(self, duration_s: float, extra: list[str]) -> None:
        self.ctx.triage = TriageSession(duration_s, Path(self.ctx.runs_dir) / "triage", extra,
                                        on_done=lambda session: self.post_message(TriageDone()))
        self.ctx.triage.start()

    def on_triage_done(self, message: TriageDone) -> None:
        triage = self.ctx.triage
        if triage is not None and triage.archive:
            self.notify(f"bundle written: {triage.archive}", title="Triage", timeout=10)
        elif triage is not None:
            self.notify(triage.error or f"triage ended with exit code {triage.exit_code}", severity="error",
                        title="Triage")

    # --- keys and the palette ------------------------------------------------------------------------
    def action_help(self) -> None:
        from aiperf_lab.console.screens.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_leave_input(self) -> None:
        """Escape in a text field gives the keys back to the screen (1-6, q, ?...)."""
        from textual.widgets import Input
        if isinstance(self.focused, Input):
            self.screen.focus_next()
            if isinstance(self.focused, Input):
                self.screen.set_focus(None)

    def busy_with(self) -> tuple[str, str] | None:
        """What quitting would stop, and what stopping it does; None when nothing is going."""
        if self.ctx.run is not None and self.ctx.run.running:
            return (f"the run of {self.ctx.run.exercise_id}",
                    "It gets Ctrl-C first, so a profiler can still write its report.")
        if self.ctx.triage is not None and self.ctx.triage.running:
            return "the triage bundle", "It still writes its archive, marked interrupted."
        return None

    def exit(self, result=None, return_code: int = 0, message=None) -> None:
        """Every quit ends an `nsys export` that `o` still waits for: its worker thread, which a thread cannot
        stop, would otherwise hold the exit until nsys ended (minutes for a big report)."""
        from aiperf_lab.metrics.sources import stop_exports
        stop_exports()
        super().exit(result, return_code, message)

    async def action_quit(self) -> None:
        """Quit; while a run or a triage bundle is going, ask first (quitting stops it)."""
        from aiperf_lab.console.widgets import Confirm
        busy = self.busy_with()
        if busy is None:
            self.exit()
            return
        if isinstance(self.screen, Confirm):        # already asking
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()
        what, how = busy
        ended = f"{what[0].upper()}{what[1:]} has ended: nothing is left to stop. Quit? (y / n)"
        self.push_screen(Confirm(f"Quit and stop {what}? (y / n)\n{how}", "Quit", "Keep going",
                                 still_applies=lambda: self.busy_with() is not None,
                                 when_over=(ended, "Quit")), answered)

    def get_system_commands(self, screen):
        # Textual's "Keys" panel is left out: "Help: every key by screen" below is the one help entry
        yield from (command for command in super().get_system_commands(screen) if command.title != "Keys")
        for mode, label in SCREENS_IN_ORDER:
            yield SystemCommand(f"Show {label}", f"Switch to the {label} screen",
                                lambda mode=mode: self.switch_mode(mode))
        yield SystemCommand("Help: every key by screen", "The keys of every screen", self.action_help)
        for title, help_text, mode, action in PALETTE_ACTIONS:
            yield SystemCommand(title, help_text, lambda mode=mode, action=action: self._act_on(mode, action))

    async def _act_on(self, mode: str, action: str) -> None:
        """Run a screen's action from the palette: switch to that screen first, then act as its key would."""
        if self.current_mode != mode:
            await self.switch_mode(mode)
        if not await self.screen.run_action(action):   # the key is hidden then; the palette still lists it
            if action == "cancel_run":
                self.notify("nothing is running")
            elif action == "open_results":
                self.notify("no finished run to show yet")
            elif action == "stop":
                self.notify("no bundle is being made")
