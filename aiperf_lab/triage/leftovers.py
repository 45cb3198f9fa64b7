"""What the workload started and left running ends with it, including what left its session.

A workload's process group is killed when it is stopped (workload.py), but a child that called
setsid() (`setsid sleep 600 &`, a daemon that double-forks) is in no group of the workload's: when
its parent exits it used to be re-parented to init and outlive triage, holding the output pipe open.
Two things catch it:

- triage makes itself a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER), so such orphans are
  re-parented to triage instead of init, and triage can reap them (no zombies left behind);
- every process of the workload carries RUN_VARIABLE=<token> in its environment (inherited by
  everything it starts), so at the workload's end every live process holding this run's token is
  found in /proc and ended: SIGTERM, then SIGKILL after a short grace. The guardian does the same
  (SIGKILL at once) when triage itself is killed.

A process that drops its environment (`env -i`) after leaving the session escapes both; on systems
without /proc or prctl (not Linux) only the process-group kill applies.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import secrets
import signal
import sys
import time

RUN_VARIABLE = "AIPERF_TRIAGE_RUN"
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37
TERM_GRACE_S = 1.0


def new_token() -> str:
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def become_subreaper() -> tuple[bool, str | None]:
    """Make this process a child subreaper. Returns (whether it was one before, why it could not:
    None when it now is one)."""
    prctl = _prctl()
    if prctl is None:
        return False, f"no child subreaper on {sys.platform}: children that leave the workload's session are " \
                      "found by their environment only"
    was = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return bool(was.value), f"prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}"
    return bool(was.value), None


def stop_being_subreaper() -> None:
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def marked(token: str) -> list[int]:
    """Live processes (not zombies) whose environment holds RUN_VARIABLE=token."""
    needle = f"{RUN_VARIABLE}={token}".encode()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:      # gone, or another user's
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie child is reaped here and counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
    except OSError:
        return False
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        _reap(pid)
        return False
    return True


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):   # not our child: init or its parent reaps it
        pass


def end_marked(token: str, grace_s: float = TERM_GRACE_S, spare: int | None = None) -> list[int]:
    """SIGTERM every live process marked with token, SIGKILL those still alive after grace_s, reap the
    ones that are triage's children (re-parented to it as subreaper). Returns the pids found.

    `spare` is the workload's own process: it is stopped by its group and waited for by its Popen, and
    reaping it here would take its exit status from the Popen (which then reports 0)."""
    pids = [pid for pid in marked(token) if pid != spare]
    if not pids:
        return []
    for pid in pids:
        _signal(pid, signal.SIGTERM)
        _signal(pid, signal.SIGCONT)   # a stopped process gets SIGTERM only once continued (process_group.escalate)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.02)
    late = [pid for pid in marked(token) if pid != spare]   # again: one may have started another before it ended
    for pid in late:
        _signal(pid, signal.SIGKILL)
    pids = sorted(set(pids) | set(late))
    for pid in pids:
        for _ in range(50):
            if not _alive(pid):
                break
            time.sleep(0.01)
    return pids


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass
