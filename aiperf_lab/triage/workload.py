"""The workload after `--`: run under nsys when it is there, stopped when the duration ends.

Stopping escalates SIGINT, then SIGTERM, then SIGKILL, to the workload's whole process group, so
nothing it started is left behind. nsys gets longer after SIGINT: that is when it writes its report.
Its stdout and stderr are redacted as they stream (workload_output.RedactedLog): no raw output is
ever written. A Guard, when given, kills the group if triage itself is killed.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from aiperf_lab.metrics.config import nsys_profile_argv, resolve
from aiperf_lab.process_group import escalate, kill_group
from aiperf_lab.triage.guard import Guard
from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.workload_output import RedactedLog

GRACE_AFTER_SIGINT_S = {"nsys": 60.0, "plain": 10.0}
GRACE_AFTER_SIGTERM_S = 5.0


@dataclass
class WorkloadResult:
    argv: list[str]                 # what was run (nsys wrapper included)
    command: list[str]              # the user's command
    under_nsys: bool
    returncode: int | None = None
    started: float = 0.0
    ended: float = 0.0
    stopped_by: str | None = None   # None (exited), "duration", "interrupt"
    signals_sent: list[str] = field(default_factory=list)
    error: str | None = None
    pid: int | None = None

    @property
    def seconds(self) -> float:
        return max(self.ended - self.started, 0.0)


class Workload:
    def __init__(self, command: list[str], work_dir: Path, use_nsys: bool, log_stdout: Path, log_stderr: Path,
                 redactor: Redactor, log_cap_bytes: int, guard: Guard | None = None):
        self.command = command
        self.nsys = shutil.which("nsys") if use_nsys else None
        self.report_base = work_dir / "workload"
        # No OS-runtime trace: it multiplies the size of a triage capture (a 15 s training loop made a
        # 59 MB export with it) for little a first look needs.
        trace = resolve(None, "minimal", remove_trace=["osrt"])
        argv = nsys_profile_argv(command, str(self.report_base), trace, nsys=self.nsys) if self.nsys else list(command)
        self.result = WorkloadResult(argv, list(command), bool(self.nsys))
        self._logs = (RedactedLog(log_stdout, redactor, log_cap_bytes), RedactedLog(log_stderr, redactor, log_cap_bytes))
        self._guard = guard
        self.proc: subprocess.Popen | None = None
        self.exited = threading.Event()

    def start(self) -> None:
        self.result.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(self.result.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            self.result.error = f"cannot start {self.result.argv[0]}: {exc.strerror or exc}"
            self.result.ended = time.monotonic()
            self.exited.set()
            self._close_logs()
            return
        self.result.pid = self.proc.pid
        if self._guard is not None:
            self._guard.kill_on_kill(self.proc.pid)
        self._logs[0].attach(self.proc.stdout)
        self._logs[1].attach(self.proc.stderr)
        threading.Thread(target=self._wait, name="workload-wait", daemon=True).start()

    def _wait(self) -> None:
        assert self.proc is not None
        self.result.returncode = self.proc.wait()
        self.result.ended = time.monotonic()
        self.exited.set()

    def stop(self, reason: str) -> None:
        """SIGINT, then SIGTERM, then SIGKILL to the process group, each after a grace period."""
        if self.proc is None or self.exited.is_set():
            self._reap_group()
            self._close_logs()
            return
        self.result.stopped_by = reason
        steps = [(signal.SIGINT, GRACE_AFTER_SIGINT_S["nsys" if self.nsys else "plain"]),
                 (signal.SIGTERM, GRACE_AFTER_SIGTERM_S), (signal.SIGKILL, 5.0)]
        self.result.signals_sent += escalate(self.proc, steps, self.exited.wait)
        self._reap_group()
        self._close_logs()

    def _reap_group(self) -> None:
        """Whatever the workload started and left running goes too."""
        if self.proc is None:
            return
        kill_group(self.proc)
        if self.exited.wait(5.0) and self._guard is not None:
            self._guard.group_gone()

    def _close_logs(self) -> None:
        for log in self._logs:
            log.finish()

    @property
    def log_errors(self) -> list[str]:
        return [log.error for log in self._logs if log.error]

    def report_files(self) -> list[Path]:
        return [p for p in (self.report_base.with_suffix(".nsys-rep"), self.report_base.with_suffix(".qdrep"))
                if p.exists()]
