"""Work the console starts and must be able to stop: an exercise run (through the labs runner) and a
triage bundle (aiperf-triage as a child process). Plain threads and a line buffer the UI drains on its
own clock, so a chatty workload never floods the event loop. No Textual here."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from aiperf_lab.cli_support import make_folders
from aiperf_lab.process_group import escalate, waits_for

# The labs runner's signature: run_exercise(exercise_id, variant, profile, size, runs_dir, ..., on_line, cancel)
Runner = Callable[..., Any]
MAX_BUFFERED_LINES = 50_000


class LineBuffer:
    """Lines from a worker thread, drained by the UI in batches."""

    def __init__(self) -> None:
        self._lines: deque[str] = deque(maxlen=MAX_BUFFERED_LINES)
        self._lock = threading.Lock()

    def append(self, line: str) -> None:
        with self._lock:
            self._lines.append(line)

    def drain(self) -> list[str]:
        with self._lock:
            lines = list(self._lines)
            self._lines.clear()
        return lines


@dataclass
class RunSession:
    exercise_id: str
    variant: str
    profile: str
    size: str
    runs_dir: Path
    runner: Runner
    on_done: Callable[["RunSession"], None] = lambda session: None
    lines: LineBuffer = field(default_factory=LineBuffer)
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    record: Any = None
    error: str | None = None
    _thread: threading.Thread | None = None

    def start(self) -> "RunSession":
        self._thread = threading.Thread(target=self._run, name="aiperf-console-run", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        from aiperf_lab.errors import InputError
        try:
            self.record = self.runner(self.exercise_id, self.variant or None, self.profile, self.size, self.runs_dir,
                                      on_line=self.lines.append, cancel=self.cancel)
        except InputError as exc:
            self.error = str(exc)
        except Exception as exc:  # shown in the console; the console itself keeps running
            self.error = f"the run failed: {type(exc).__name__}: {exc}"
        finally:
            self.ended = time.monotonic()
            self.on_done(self)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def stop(self, wait_s: float = 15.0) -> None:
        """Cancel and wait for the runner to stop the workload's process group (Ctrl-C, TERM, KILL)."""
        self.cancel.set()
        if self._thread is not None:
            self._thread.join(timeout=wait_s)


# Ctrl-C first: triage stops the workload, lets nsys write its report, and marks the archive
# interrupted. A second Ctrl-C has nsys stop its collection at once; a third (SIGTERM) abandons the
# trace; SIGKILL only if triage itself hangs.
TRIAGE_STOP = ((signal.SIGINT, 30.0), (signal.SIGINT, 200.0), (signal.SIGTERM, 20.0), (signal.SIGKILL, 3.0))

PROGRESS_PREFIX = "aiperf-triage: "   # triage/progress.py writes these lines; keep the two in step
PROGRESS_KINDS = ("phase", "collector", "nsys", "coverage", "finding", "archive", "note")


@dataclass
class TriageEvent:
    """One progress line of the triage child, parsed."""
    kind: str                      # one of PROGRESS_KINDS
    text: str                      # the line after the kind
    name: str = ""                 # phase, collector name or finding id
    status: str = ""               # collector status or finding severity
    seconds: float | None = None   # collector seconds
    detail: str = ""               # collector error or finding title


def parse_progress(line: str) -> TriageEvent | None:
    """`aiperf-triage: collector hardware ok 0.4 s: error` and the like; None for any other line."""
    if not line.startswith(PROGRESS_PREFIX):
        return None
    kind, _, text = line[len(PROGRESS_PREFIX):].partition(" ")
    if kind not in PROGRESS_KINDS:
        return None
    event = TriageEvent(kind, text)
    if kind == "phase":
        event.name = text
    elif kind == "collector":
        head, _, detail = text.partition(" s: ")
        parts = head.removesuffix(" s").split(" ")
        if len(parts) != 3:
            return None
        event.name, event.status, detail_seconds = parts
        try:
            event.seconds = float(detail_seconds)
        except ValueError:
            return None
        event.detail = detail
    elif kind == "finding":
        head, _, title = text.partition(": ")
        severity, _, finding_id = head.partition(" ")
        event.status, event.name, event.detail = severity, finding_id, title
    return event


@dataclass
class TriageSession:
    duration_s: float
    output_dir: Path
    extra: list[str] = field(default_factory=list)
    on_done: Callable[["TriageSession"], None] = lambda session: None
    lines: LineBuffer = field(default_factory=LineBuffer)
    started: float = field(default_factory=time.monotonic)
    exit_code: int | None = None
    archive: str | None = None
    error: str | None = None
    phase: str = ""
    collectors: list[TriageEvent] = field(default_factory=list)   # as they finish
    findings: list[TriageEvent] = field(default_factory=list)
    capture: list[str] = field(default_factory=list)             # nsys progress and the coverage line
    _proc: subprocess.Popen | None = None
    _thread: threading.Thread | None = None

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", f"{self.duration_s:g}",
                "--output", str(self.output_dir), "--progress", *self.extra]

    def record(self, event: TriageEvent) -> None:
        if event.kind == "phase":
            self.phase = event.name
        elif event.kind == "collector":
            self.collectors = [c for c in self.collectors if c.name != event.name] + [event]
        elif event.kind == "finding":
            self.findings.append(event)
        elif event.kind in ("nsys", "coverage"):
            self.capture = (self.capture + [f"{event.kind}: {event.text}"])[-3:]
        elif event.kind == "archive":
            self.archive = event.text

    def progress_lines(self) -> list[str]:
        """What the Triage screen shows above the log: parts as they finish, then findings and the archive."""
        lines = [f"phase: {self.phase}"] if self.phase and self.running else []
        if self.collectors:
            # one line at 80 columns: the parts by status, those not ok named (each part's seconds are in the log)
            ok = [c for c in self.collectors if c.status == "ok"]
            others: dict[str, list[str]] = {}
            for c in self.collectors:
                if c.status != "ok":
                    others.setdefault(c.status, []).append(c.name)
            lines.append("; ".join([f"parts: {len(ok)} ok"] + [f"{status}: {', '.join(names)}"
                                                             for status, names in others.items()]))
        lines += self.capture
        lines += [f"{f.status}: {f.detail}" for f in self.findings]
        if self.archive and not self.running and self.exit_code is None:
            lines.append(f"archive: {self.archive}")   # the status line above says where it went once ended
        return lines

    def start(self) -> "TriageSession":
        try:
            make_folders(self.output_dir)
            self._proc = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True, errors="replace", bufsize=1,
                                          start_new_session=True)
        except OSError as exc:  # the output folder cannot be made, or Python cannot be started
            self.error = f"cannot start aiperf-triage: {exc.strerror or exc}"
            self.exit_code = 2
            self.on_done(self)
            return self
        self._thread = threading.Thread(target=self._pump, name="aiperf-console-triage", daemon=True)
        self._thread.start()
        return self

    def _pump(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        last = ""
        for line in self._proc.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            event = parse_progress(line)
            if event is not None:
                self.record(event)
            elif line.strip():
                last = line.strip()
        self.exit_code = self._proc.wait()
        if self.exit_code in (0, 130) and last.endswith(".tar.gz"):
            self.archive = last  # triage prints the archive's path as its last stdout line
        elif self.exit_code not in (0, 130):
            self.archive = None
        self.on_done(self)

    @property
    def running(self) -> bool:
        return self._proc is not None and self.exit_code is None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            escalate(self._proc, TRIAGE_STOP, waits_for(self._proc))
        if self._thread is not None:
            self._thread.join(timeout=5)
