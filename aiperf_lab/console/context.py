"""Everything the console's screens share: the telemetry feed, the runner, where runs live, the
mode it started in, and the work in progress. No Textual here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from aiperf_lab.metrics.telemetry.feed import TelemetryFeed

from aiperf_lab.console.sessions import RunSession, Runner, TriageSession

DEMO_RUNS = Path(__file__).with_name("demo_runs")


def default_runner(*args, **kwargs):
    from aiperf_lab.labs.runner import run_exercise
    return run_exercise(*args, **kwargs)


def nothing_missing(profile: str) -> str | None:
    """A runner that needs nothing of this machine (tests' runners): every profiler can start."""
    return None


@dataclass
class ConsoleContext:
    feed: TelemetryFeed                        # Sampler, ReplayFeed or SyntheticFeed
    runs_dir: Path = Path("runs")              # where new runs go
    history_dirs: list[Path] = field(default_factory=list)   # where History looks (runs_dir first)
    runner: Runner = default_runner
    notice: str | None = None                  # one line shown on every screen (no driver, demo mode)
    notice_short: str | None = None            # the same in one line of 80 columns, where `notice` is longer
    notice_name: str | None = None             # a file name in `notice`, shortened in its middle where too long
    replay_path: Path | None = None            # the recording replayed (--replay, --demo): the help names it whole
    demo: bool = False
    ascii_only: bool = False                   # NO_COLOR terminals get plain characters too
    ui_hz: float = 4.0                         # redraws per second of what is visible
    gpu_here: bool = True                      # this machine can run workloads on a GPU (else: size tiny first)
    # why no run with a profiler (none, nsys, ncu, torch) can start here whatever the exercise, or None: for
    # the labs runner, labs.runner.cannot_start_here (PyTorch, nsys, ncu missing); the Labs footer asks it
    cannot_start: Callable[[str], str | None] = nothing_missing
    run: RunSession | None = None
    triage: TriageSession | None = None
    results_pending: tuple | None = None       # what Results shows next: ("run", folder) or ("tables", ...)

    def __post_init__(self) -> None:
        if not self.history_dirs:
            self.history_dirs = [self.runs_dir]

    def stop_work(self) -> None:
        """On any exit: stop the workload and the triage child, so none outlives the console."""
        if self.run is not None and self.run.running:
            self.run.stop()
        if self.triage is not None and self.triage.running:
            self.triage.stop()
