"""Run an external command (an argv list, never a shell string) with a time limit, and say what happened."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

from aiperf_lab.process_group import kill_group


@dataclass
class CommandResult:
    argv: list[str]
    returncode: int | None       # None: not run (missing) or killed at the time limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    missing: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe(self) -> str:
        if self.missing:
            return f"{self.argv[0]} is not installed"
        if self.timed_out:
            return f"{' '.join(self.argv[:3])} did not finish in {self.seconds:.0f} s"
        if self.returncode != 0:
            last = (self.stderr or self.stdout).strip().splitlines()
            return f"{' '.join(self.argv[:3])} exited {self.returncode}" + (f": {last[-1][:200]}" if last else "")
        return "ok"


def run_command(argv: list[str], timeout_s: float = 30.0, env: dict[str, str] | None = None,
                stop: "threading.Event | None" = None) -> CommandResult:
    """Run argv with stdin closed, in its own process group so a timeout (or `stop` being set) kills
    all it started."""
    if shutil.which(argv[0]) is None:
        return CommandResult(argv, None, "", "", 0.0, missing=True)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
    except OSError as exc:
        return CommandResult(argv, None, "", str(exc), time.monotonic() - start, missing=True)
    deadline = start + timeout_s
    while True:
        try:
            out, err = proc.communicate(timeout=min(0.25, max(deadline - time.monotonic(), 0.01)))
            return CommandResult(argv, proc.returncode, _text(out), _text(err), time.monotonic() - start)
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                kill_group(proc)
                out, err = proc.communicate()
                return CommandResult(argv, None, _text(out), _text(err), time.monotonic() - start, timed_out=True)


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data else ""
