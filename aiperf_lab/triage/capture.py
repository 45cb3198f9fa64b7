"""Ending an nsys capture so that the report is written, whatever ends it.

What the GPU machine showed (nsys 2025.3.1, H100): signalling nsys's whole process group while it
collects leaves no report, and an application killed by a signal takes its unflushed CUDA trace with
it. CUDA activity reaches the report only when the application exits on its own or nsys stops the
collection itself. nsys runs with its own `--duration` (the triage duration), so when the duration
ends nsys is first given the chance to end the collection itself (it then terminates the application).
Otherwise the stop goes in this order, each step bounded and written to the capture log:

  1. the application (nsys's descendants that are not nsys itself) gets SIGINT, as from a terminal;
  2. nsys gets `settle_s` to end its collection on its own once the application is gone (an
     application still running after its grace goes straight to step 3: SIGTERM or SIGKILL to it
     would lose its unflushed CUDA activity, while nsys's stop flushes it and then ends it);
  3. if it is still collecting: `nsys stop --session NAME` (nsys's own session control, which flushes
     the CUDA buffers); if that fails, nsys's own `--duration` is waited for; only then SIGINT to the
     nsys process alone;
  4. nsys gets `write_grace_s` to write the report, shown as progress ("aiperf-triage: nsys writing report, 14 s");
  5. only then SIGTERM and SIGKILL to what is left (nsys's process group).

A second Ctrl-C skips the application's grace (step 3 at once); a third abandons the capture.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

NORMAL, HURRY, ABANDON = 0, 1, 2
POLL_S = 0.1
PROGRESS_EVERY_S = 2.0


@dataclass
class StopPolicy:
    """Grace periods of the stop; tests and slow file systems set them (AIPERF_TRIAGE_GRACE)."""
    app_grace_s: float = 10.0      # after SIGINT to the application
    term_grace_s: float = 5.0      # after SIGTERM, before SIGKILL
    settle_s: float = 5.0          # for nsys to end its collection once the application is gone
    stop_grace_s: float = 10.0     # for nsys to leave "collecting" after `nsys stop`
    write_grace_s: float = 180.0   # for nsys to write its report

    KEYS = {"app": "app_grace_s", "term": "term_grace_s", "settle": "settle_s", "stop": "stop_grace_s",
            "write": "write_grace_s"}

    @classmethod
    def parse(cls, text: str | None) -> "StopPolicy":
        """'app=1,settle=0.5,write=5': unknown keys or bad numbers are refused (ValueError)."""
        policy = cls()
        for part in filter(None, (text or "").split(",")):
            key, _, value = part.partition("=")
            if key.strip() not in cls.KEYS:
                raise ValueError(f"unknown grace {key.strip()!r} (use {', '.join(cls.KEYS)})")
            seconds = float(value)
            if not 0 <= seconds <= 3600:
                raise ValueError(f"grace {key.strip()} must be 0 to 3600 s")
            setattr(policy, cls.KEYS[key.strip()], seconds)
        return policy


@dataclass
class CaptureEvent:
    t: float          # seconds since the workload started
    what: str


@dataclass
class CaptureLog:
    """What happened to the capture, for workload.json and the manifest."""
    session: str | None = None
    events: list[CaptureEvent] = field(default_factory=list)
    application_pids: list[int] = field(default_factory=list)
    application_ended_s: float | None = None    # when no application process was left
    collecting_from_s: float | None = None      # when nsys said "Collecting data..."
    collection_stopped_by: str | None = None    # "application exit", "nsys stop", "SIGINT to nsys", ...
    nsys_exit_s: float | None = None
    outcome: str | None = None                  # one line: how the capture ended
    nsys_said: list[str] = field(default_factory=list)   # nsys's own lines from the workload's output

    def as_dict(self) -> dict:
        return asdict(self)


# --- processes -----------------------------------------------------------------------------------

def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'
        rest = stat[stat.rfind(")") + 2:].split()
        if len(rest) >= 2 and rest[1].isdigit():
            children.setdefault(int(rest[1]), []).append(int(entry))
    return children


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("utf-8", "replace")
    except OSError:
        return True
    rest = stat[stat.rfind(")") + 2:].split()
    return bool(rest) and rest[0] in ("Z", "X")


def nsys_install_root(nsys: str | None) -> Path | None:
    """The folder nsys is installed in (its binaries and helpers live under it)."""
    if not nsys:
        return None
    real = Path(os.path.realpath(nsys))
    # <root>/bin/nsys or <root>/target-linux-x64/nsys: the helpers sit beside target-linux-x64
    return real.parent.parent if real.parent.name in ("bin", "target-linux-x64", "host-linux-x64") else real.parent


def _children(pid: int) -> list[int] | None:
    """pid's children from /proc/PID/task/*/children (a few reads), or None where the kernel lacks it."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(part) for part in handle.read().split()]
        except FileNotFoundError:
            return None if task == tasks[0] and not found else found
        except (OSError, ValueError):
            continue
    return found


def application_pids(nsys_pid: int, nsys_root: Path | None) -> list[int]:
    """Live processes under nsys that are not nsys's own binaries: the profiled application's tree."""
    direct = _children(nsys_pid)
    if direct is None:  # no children files: one scan of every process's parent instead
        table = _children_map()
        lookup = lambda pid: table.get(pid, [])  # noqa: E731
    else:
        lookup = lambda pid: _children(pid) or []  # noqa: E731
    found, queue = [], list(lookup(nsys_pid))
    while queue:
        pid = queue.pop(0)
        queue.extend(lookup(pid))
        if _zombie(pid):
            continue
        exe = _exe(pid)
        own = bool(exe) and (Path(exe).name.startswith(("nsys", "Qdstrm")) or
                             (nsys_root is not None and exe.startswith(str(nsys_root) + os.sep)))
        if not own:
            found.append(pid)
    return found


def signal_pids(pids: list[int], sig: signal.Signals) -> list[int]:
    sent = []
    for pid in pids:
        try:
            os.kill(pid, sig)
            sent.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return sent


# --- what nsys says ------------------------------------------------------------------------------

WRITING_MARKERS = ("Generating '", "Processing events", "Processing [", "Importing", "Writing report",
                   "Generated:")


def nsys_phase(output: str) -> str:
    """'starting', 'collecting', 'writing' or 'done', from the tail of what nsys printed."""
    collecting_at = output.rfind("Collecting data")
    after = output[collecting_at:] if collecting_at >= 0 else output
    if "Generated:" in after:
        return "done"
    if any(marker in after for marker in WRITING_MARKERS):
        return "writing"
    return "collecting" if collecting_at >= 0 else "starting"


NSYS_NOTICE = re.compile(r"^(?:Collecting data|Generat|Processing|Importing|Writing|WARNING|Error|ERROR|"
                         r"FATAL|Failed|The target application|nsys|Signal|Stopping|Capture|Process .* was "
                         r"terminated|\s+/.*\.nsys-rep|\[\d/\d\])", re.M)


def nsys_lines(output: str, limit: int = 40) -> list[str]:
    """The lines of the combined output that nsys printed (not the application), the last `limit`."""
    lines = [line.strip() for line in output.splitlines() if NSYS_NOTICE.match(line)]
    return lines[-limit:]


# --- the stop ------------------------------------------------------------------------------------

class NsysStop:
    """Runs steps 1-5 of the module doc for one `nsys profile` child (in its own process group)."""

    def __init__(self, proc: subprocess.Popen, nsys: str, session: str, output: Callable[[], str],
                 policy: StopPolicy, log: CaptureLog, started: float, exited: Callable[[float], bool],
                 urgency: Callable[[], int], say: Callable[[str], None], reason: str = "duration",
                 nsys_duration_s: int | None = None):
        self.proc, self.nsys, self.session = proc, nsys, session
        self.output, self.policy, self.log, self.started = output, policy, log, started
        self.exited, self.urgency, self.say, self.reason = exited, urgency, say, reason
        # when nsys's own --duration ends its collection (monotonic), once it said "Collecting data"
        self.expires_at = (started + log.collecting_from_s + nsys_duration_s
                           if nsys_duration_s and log.collecting_from_s is not None else None)
        self.root = nsys_install_root(nsys)
        self.signals: list[str] = []
        self.app_stuck = False

    def note(self, what: str) -> None:
        self.log.events.append(CaptureEvent(round(time.monotonic() - self.started, 3), what))

    def _wait(self, seconds: float, until: Callable[[], bool], at_least: int = NORMAL,
              progress: str | None = None) -> bool:
        """Wait up to `seconds` for until(); gives up early when urgency rises above at_least."""
        start = time.monotonic()
        next_note = start + PROGRESS_EVERY_S
        while True:
            if until():
                return True
            if self.urgency() > at_least or time.monotonic() - start >= seconds:
                return until()
            if progress and time.monotonic() >= next_note:
                self.say(f"{progress}, {time.monotonic() - start:.0f} s")
                next_note += PROGRESS_EVERY_S
            self.exited(POLL_S)

    def app(self) -> list[int]:
        pids = application_pids(self.proc.pid, self.root)
        for pid in pids:
            if pid not in self.log.application_pids:
                self.log.application_pids.append(pid)
        return pids

    def nsys_alive(self) -> bool:
        return self.proc.poll() is None

    def phase(self) -> str:
        return nsys_phase(self.output()) if self.nsys_alive() else "exited"

    def collecting(self) -> bool:
        return self.phase() in ("starting", "collecting")

    def _wait_for_nsys_duration(self, at_least: int) -> bool:
        """Let nsys's own --duration end the collection (it flushes, then terminates the application)."""
        if self.expires_at is None or not self.collecting():
            return False
        left = self.expires_at + self.policy.settle_s - time.monotonic()
        self.note(f"waiting up to {max(left, 0):.0f} s for nsys's own --duration to end the collection")
        if self._wait(left, lambda: not self.collecting(), at_least=at_least,
                      progress="waiting for nsys's --duration to end the collection"):
            self.log.collection_stopped_by = "nsys --duration"
            return True
        return False

    def run(self) -> list[str]:
        if self.reason == "duration" and self.urgency() == NORMAL and self.app():
            self._wait_for_nsys_duration(at_least=NORMAL)
        self._stop_application()
        if self.urgency() < ABANDON and self.nsys_alive():
            self._end_collection()
        if self.urgency() < ABANDON and self.nsys_alive():
            self._wait_for_report()
        self._last_resort()
        if self.log.nsys_exit_s is None and not self.nsys_alive():
            self.log.nsys_exit_s = round(time.monotonic() - self.started, 3)
        return self.signals

    def _stop_application(self) -> None:
        pids = self.app()
        if not pids:
            self._application_gone()
            return
        if self.urgency() >= HURRY:
            return  # a second Ctrl-C: nsys stops the collection itself (step 3), flushing the trace
        self.note(f"SIGINT to the application (pids {', '.join(map(str, pids))})")
        self.signals.append("SIGINT (application)")
        signal_pids(pids, signal.SIGINT)
        if self._wait(self.policy.app_grace_s, lambda: not self.app()):
            self._application_gone()
            return
        # Still running: SIGTERM or SIGKILL would lose its unflushed CUDA activity, so nsys stops the
        # collection instead (step 3), which flushes it and then ends the application itself.
        self.app_stuck = True
        if self.urgency() < HURRY:
            self.note(f"the application did not exit within {self.policy.app_grace_s:g} s of SIGINT: "
                      "nsys stops the collection, then ends it")

    def _application_gone(self) -> None:
        if self.log.application_ended_s is None and not self.app():
            self.log.application_ended_s = round(time.monotonic() - self.started, 3)
            self.note("no application process left")

    def _end_collection(self) -> None:
        # Once the application is gone nsys ends the collection by itself (`--wait primary`); nsys
        # 2025.3.1 then refuses `nsys stop` ("not allowed in this state") and a SIGINT loses the report
        # (seen on the H100), so only the third interrupt cuts this wait short.
        app_gone = not self.app()
        if (app_gone or self.urgency() < HURRY) and not self.app_stuck and self.collecting():
            if self._wait(self.policy.settle_s, lambda: not self.collecting(),
                          at_least=HURRY if app_gone else NORMAL, progress="waiting for nsys to end the collection"):
                if self.log.collection_stopped_by is None:
                    self.log.collection_stopped_by = "nsys (the application ended)"
                return
        if not self.collecting():
            return
        self.say(f"still collecting; stopping the collection (nsys stop --session {self.session})")
        result = self._nsys_stop()
        self.note(f"nsys stop --session {self.session}: {result}")
        refused = "not allowed in this state" in result    # nsys is already ending the collection
        if (result == "ok" or refused) and self._wait(self.policy.stop_grace_s, lambda: not self.collecting(),
                                                      at_least=HURRY, progress="waiting for nsys to end the collection"):
            self.log.collection_stopped_by = "nsys stop" if result == "ok" else "nsys (the application ended)"
            return
        if self.urgency() < ABANDON and self._wait_for_nsys_duration(at_least=HURRY):
            return
        if self.urgency() >= ABANDON or not self.nsys_alive():
            return
        self.note("nsys still collecting after nsys stop: SIGINT to the nsys process alone")
        self.signals.append("SIGINT (nsys)")
        try:
            os.kill(self.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            return
        if self._wait(self.policy.stop_grace_s, lambda: not self.collecting(), at_least=HURRY):
            self.log.collection_stopped_by = "SIGINT to nsys"

    def _nsys_stop(self) -> str:
        from aiperf_lab.triage.commands import run_command

        result = run_command([self.nsys, "stop", f"--session={self.session}"], timeout_s=30)
        return result.describe() if not result.ok else "ok"

    def _wait_for_report(self) -> None:
        if self.phase() == "exited":
            return
        self.note("nsys is writing the report")
        if self._wait(self.policy.write_grace_s, lambda: not self.nsys_alive(), at_least=HURRY,
                      progress="writing report"):
            return
        if self.nsys_alive() and self.urgency() < ABANDON:
            self.note(f"nsys did not finish within {self.policy.write_grace_s:g} s of writing")

    def _last_resort(self) -> None:
        from aiperf_lab.process_group import signal_group

        if not self.nsys_alive():
            return
        why = "abandoned at the third interrupt" if self.urgency() >= ABANDON else "nsys did not finish"
        for sig, grace in ((signal.SIGTERM, self.policy.term_grace_s), (signal.SIGKILL, self.policy.term_grace_s)):
            if not self.nsys_alive():
                break
            self.note(f"{why}: {sig.name} to nsys's process group")
            self.signals.append(f"{sig.name} (nsys group)")
            signal_group(self.proc, sig)
            self._wait(grace, lambda: not self.nsys_alive(), at_least=ABANDON)


def nsys_binary() -> str | None:
    return shutil.which("nsys")
