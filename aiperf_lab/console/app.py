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

from aiperf_lab.console.context import ConsoleContext
from aiperf_lab.console.screens.labs import LabsScreen
from aiperf_lab.console.sessions import RunSession, TriageSession

SCREENS_IN_ORDER = [("labs", "Labs"), ("monitor", "Monitor"), ("run", "Run"), ("results", "Results"),
                    ("history", "History"), ("triage", "Triage")]


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


class LabConsole(App):
    CSS_PATH = "console.tcss"
    TITLE = "aiperf-console"
    MODES = {"labs": LabsScreen, "monitor": _screen("monitor", "MonitorScreen"), "run": _screen("run", "RunScreen"),
             "results": _screen("results", "ResultsScreen"), "history": _screen("history", "HistoryScreen"),
             "triage": _screen("triage", "TriageScreen")}
    DEFAULT_MODE = "labs"
    BINDINGS = [
        *[Binding(str(k), f"switch_mode('{mode}')", label, id=f"mode-{mode}")
          for k, (mode, label) in enumerate(SCREENS_IN_ORDER, 1)],
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, ctx: ConsoleContext, watch_tty: bool = False) -> None:
        super().__init__()
        self.ctx = ctx
        self._watch_tty = watch_tty
        if ctx.feed.status and ctx.feed.devices:
            self.sub_title = ctx.feed.status
        elif ctx.feed.devices:
            self.sub_title = f"{len(ctx.feed.devices)} GPU(s): {ctx.feed.devices[0].name}"
        else:
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
        from aiperf_lab.console.screens.run import RunScreen
        session = self.ctx.run
        if session is None:
            return
        if not isinstance(self.screen, RunScreen):
            if session.error:
                self.notify(session.error, severity="error", title="Run")
            elif session.record is not None:
                self.notify(f"{session.record.exercise} finished (exit {session.record.exit_code}); 3 shows it",
                            title="Run finished")

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

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        for mode, label in SCREENS_IN_ORDER:
            yield SystemCommand(f"Show {label}", f"Switch to the {label} screen",
                                lambda mode=mode: self.switch_mode(mode))
        yield SystemCommand("Keys", "Every key, by screen", self.action_help)
        if self.ctx.run is not None and self.ctx.run.running:
            yield SystemCommand("Cancel the run", "Stop the running workload", self.ctx.run.cancel.set)
