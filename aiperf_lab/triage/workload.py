"""The workload after `--`: run under nsys when it is there, stopped when the duration ends.

Without nsys, stopping escalates SIGINT, then SIGTERM, then SIGKILL, to the workload's whole process
group. Under nsys the application is stopped and nsys is left to write its report: see capture.py.
Then whatever it started that is still alive, in any session, is ended too (leftovers.py).
Its stdout and stderr are redacted as they stream (workload_output.RedactedLog): no raw output is
ever written. A Guard, when given, kills the group if triage itself is killed.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from aiperf_lab.metrics.config import nsys_profile_argv, resolve
from aiperf_lab.process_group import escalate, kill_group
from aiperf_lab.triage.capture import (ABANDON, NORMAL, CaptureLog, NsysStop, StopPolicy, application_pids,
                                       nsys_install_root, nsys_lines, nsys_phase)
from aiperf_lab.triage.disk import DiskRoom
from aiperf_lab.triage.guard import Guard
from aiperf_lab.triage.leftovers import RUN_VARIABLE, end_marked, new_token
from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.workload_output import RedactedLog

OUTPUT_TAIL_BYTES = 64 * 1024


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
    capture: CaptureLog | None = None
    leftovers_ended: int = 0        # processes it left running outside its group, ended at its end

    @property
    def seconds(self) -> float:
        return max(self.ended - self.started, 0.0)


class Workload:
    def __init__(self, command: list[str], work_dir: Path, use_nsys: bool, log_stdout: Path, log_stderr: Path,
                 redactor: Redactor, log_cap_bytes: int, guard: Guard | None = None,
                 policy: StopPolicy | None = None, say: Callable[[str], None] = lambda message: None,
                 duration_s: float | None = None, room: DiskRoom | None = None,
                 interrupted: threading.Event | None = None):
        self.command = command
        self.interrupted = interrupted or threading.Event()   # triage's first interrupt: stop waiting on output
        self.nsys = shutil.which("nsys") if use_nsys else None
        self.report_base = work_dir / "workload"
        self.policy = policy or StopPolicy()
        self.say = say
        self.session = f"aiperf-triage-{os.getpid()}-{int(time.time())}"
        self.token = new_token()   # in the environment of everything the workload starts
        # No OS-runtime trace: it multiplies the size of a triage capture (a 15 s training loop made a
        # 59 MB export with it) for little a first look needs. --wait primary: nsys's default also waits
        # for processes the application re-parented, which can keep it collecting long after the end.
        # --duration: nsys ends the collection itself when the triage duration does (see capture.py).
        trace = resolve(None, "minimal", remove_trace=["osrt"])
        self.nsys_duration_s = max(1, math.ceil(duration_s)) if self.nsys and duration_s else None
        extra = ["--wait", "primary", "--session-new", self.session]
        if self.nsys_duration_s:
            extra += ["--duration", str(self.nsys_duration_s)]
        argv = nsys_profile_argv(command, str(self.report_base), trace, nsys=self.nsys, extra=extra) \
            if self.nsys else list(command)
        self.result = WorkloadResult(argv, list(command), bool(self.nsys))
        if self.nsys:
            self.result.capture = CaptureLog(session=self.session)
        self.log_paths = (log_stdout, log_stderr)
        self._logs = (RedactedLog(log_stdout, redactor, log_cap_bytes, room),
                      RedactedLog(log_stderr, redactor, log_cap_bytes, room))
        self._guard = guard
        self.proc: subprocess.Popen | None = None
        self.exited = threading.Event()
        self.urgency = NORMAL
        self._app_seen = False
        self._nsys_root = nsys_install_root(self.nsys)

    def start(self) -> None:
        self.result.started = time.monotonic()
        if self.interrupted.is_set():
            # a stop signal came before the workload started (triage was still starting): it is not started
            self._not_started("not started: a stop signal came before it started")
            return
        if self._guard is not None:
            # before the workload exists: one that kills triage at once (kill -KILL $PPID) is still found by
            # its token when the guardian wakes; its group is told once Popen returns (red team W4)
            self._guard.kill_marked_on_kill(self.token)
        try:
            self.proc = subprocess.Popen(self.result.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True,
                                         env={**os.environ, RUN_VARIABLE: self.token})
        except OSError as exc:
            self._not_started(f"cannot start {self.result.argv[0]}: {exc.strerror or exc}")
            return
        self.result.pid = self.proc.pid
        if self._guard is not None:
            self._guard.kill_on_kill(self.proc.pid)
        self._logs[0].attach(self.proc.stdout)
        self._logs[1].attach(self.proc.stderr)
        threading.Thread(target=self._wait, name="workload-wait", daemon=True).start()

    def _not_started(self, why: str) -> None:
        self.result.error = why
        self.result.ended = time.monotonic()
        self.exited.set()
        self._close_logs()

    def _wait(self) -> None:
        assert self.proc is not None
        self.result.returncode = self.proc.wait()
        self.result.ended = time.monotonic()
        self.exited.set()

    def _since_start(self) -> float:
        return round(time.monotonic() - self.result.started, 3)

    # --- watching ---------------------------------------------------------------------------------
    def output(self) -> str:
        """The tail of what the workload (and nsys) printed so far, redacted."""
        return "\n".join(log.tail()[-OUTPUT_TAIL_BYTES:] for log in self._logs)

    def poll(self) -> None:
        """Note when nsys starts collecting and whether the application has been seen (call often)."""
        if self.result.capture is None or self.proc is None or self.exited.is_set():
            return
        if self.result.capture.collecting_from_s is None and nsys_phase(self.output()) != "starting":
            self.result.capture.collecting_from_s = self._since_start()
        if not self._app_seen and application_pids(self.proc.pid, self._nsys_root):
            self._app_seen = True

    def finished(self) -> bool:
        """The workload is over: its process exited, or under nsys the application it ran is gone."""
        if self.exited.is_set():
            return True
        if self.result.capture is None or self.proc is None or not self._app_seen:
            return False
        if application_pids(self.proc.pid, self._nsys_root):
            return False
        log = self.result.capture
        if log.application_ended_s is None:
            log.application_ended_s = self._since_start()
            # gone when nsys's own --duration ran out: nsys ended it (the duration), not the application
            if self.nsys_duration_s and log.collecting_from_s is not None and \
                    log.application_ended_s >= log.collecting_from_s + self.nsys_duration_s - 0.5:
                self.result.stopped_by = "duration"
                log.collection_stopped_by = "nsys --duration"
        return True

    # --- stopping ---------------------------------------------------------------------------------
    def hurry(self) -> None:
        """Another interrupt: skip the application's grace (first time), then abandon the capture."""
        self.urgency = min(self.urgency + 1, ABANDON)

    def stop(self, reason: str) -> None:
        if self.proc is None:
            self._close_logs()
            return
        if self.result.capture is not None:
            self._stop_nsys(reason)
        elif not self.exited.is_set():
            self.result.stopped_by = reason
            steps = [(signal.SIGINT, self.policy.app_grace_s), (signal.SIGTERM, self.policy.term_grace_s),
                     (signal.SIGKILL, self.policy.term_grace_s)]
            self.result.signals_sent += escalate(self.proc, steps, self._exited_unless_abandoned)
        self._reap_group()
        self._close_logs()

    def _exited_unless_abandoned(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.urgency < ABANDON:
            if self.exited.wait(0.1):
                return True
        return self.exited.is_set()

    def _stop_nsys(self, reason: str) -> None:
        assert self.proc is not None and self.nsys is not None and self.result.capture is not None
        log = self.result.capture
        if self.exited.is_set():
            log.outcome = self._outcome()
            return
        if not self._app_seen or application_pids(self.proc.pid, self._nsys_root) or self.urgency:
            self.result.stopped_by = self.result.stopped_by or reason
        self.poll()
        stopper = NsysStop(self.proc, self.nsys, self.session, self.output, self.policy, log,
                           self.result.started, self.exited.wait, lambda: self.urgency, self.say, reason=reason,
                           nsys_duration_s=self.nsys_duration_s)
        self.result.signals_sent += stopper.run()
        self.exited.wait(1.0)
        log.outcome = self._outcome()

    def _outcome(self) -> str:
        log = self.result.capture
        assert log is not None
        if self.exited.is_set():  # what nsys printed last is still in the pipe: read it first
            for output in self._logs:
                output.drain()
        if log.nsys_exit_s is None and self.exited.is_set() and self.result.ended:
            log.nsys_exit_s = round(self.result.ended - self.result.started, 3)
        log.nsys_said = nsys_lines(self.output(), limit=20)
        if self.report_files():
            how = log.collection_stopped_by or "nsys (the application ended)"
            return f"report written; collection ended by {how}"
        said = nsys_lines(self.output(), limit=5)
        return ("nsys wrote no report" + (f" after {', '.join(self.result.signals_sent)}" if self.result.signals_sent
                                          else "") + (f"; nsys said: {' | '.join(said)}" if said else
                                                      "; nsys printed nothing"))

    def _reap_group(self) -> None:
        """Whatever the workload started and left running goes too: its group, then every process that
        still holds this run's token (a child that left the session with setsid: SIGTERM, SIGKILL 1 s later)."""
        if self.proc is None:
            return
        kill_group(self.proc)
        self.result.leftovers_ended += len(end_marked(self.token, spare=self.proc.pid))
        if self.exited.wait(5.0) and self._guard is not None:
            self._guard.group_gone()

    def kill_everything(self) -> None:
        """On a bug: the workload's group and all it left, at once."""
        if self.proc is not None:
            kill_group(self.proc)
            end_marked(self.token, grace_s=0.0, spare=self.proc.pid)

    def _close_logs(self) -> None:
        for log in self._logs:
            log.finish(stop=self.interrupted)

    def log_states(self) -> dict[str, dict]:
        """Per log (after stop): bytes received and kept, whether a full disk cut it, and the last bytes left
        out unredacted (never written) with why, for workload.json."""
        return {log.path.name: {"received_bytes": log.received_bytes, "kept_bytes": log.kept_bytes,
                                "cut_by_full_disk": log.cut_by_full_disk, "error": log.error,
                                "left_out_bytes": log.abandoned_bytes,
                                "left_out_because": log.abandoned_because if log.abandoned_bytes else None,
                                "redaction_failed_bytes": log.failed_bytes,
                                "redaction_failed_because": log.failed_because or None}
                for log in self._logs}

    def report_files(self) -> list[Path]:
        return [p for p in (self.report_base.with_suffix(".nsys-rep"), self.report_base.with_suffix(".qdrep"))
                if p.exists()]
