"""Stopping a child started in its own process group (start_new_session=True), and all it started."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Callable, Sequence


def signal_group(proc: subprocess.Popen, sig: signal.Signals) -> bool:
    """Send sig to the child's group; False when the group is already gone (or not ours)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_group(proc: subprocess.Popen) -> None:
    signal_group(proc, signal.SIGKILL)


def escalate(proc: subprocess.Popen, steps: Sequence[tuple[signal.Signals, float]],
             exited_within: Callable[[float], bool]) -> list[str]:
    """Send each signal in turn, giving the child its grace period to exit before the next one (each one
    but SIGKILL followed by SIGCONT, so that a stopped group gets it now).

    exited_within(seconds) waits up to that long and says whether the child exited. Returns the names
    of the signals sent, so a caller can record how far it had to go.
    """
    sent: list[str] = []
    for sig, grace in steps:
        if not signal_group(proc, sig):
            break
        sent.append(sig.name)
        if sig != signal.SIGKILL:
            # A stopped process (SIGSTOP, Ctrl-Z, a debugger) keeps SIGINT and SIGTERM pending until it is
            # continued: without SIGCONT each grace ran out in full and only SIGKILL ended it.
            signal_group(proc, signal.SIGCONT)
        if exited_within(grace):
            break
    return sent


def waits_for(proc: subprocess.Popen) -> Callable[[float], bool]:
    """exited_within for a caller that waits on the Popen itself."""
    def exited_within(seconds: float) -> bool:
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True
    return exited_within
