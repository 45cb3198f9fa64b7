"""A small guardian process that outlives a killed triage: the workload dies with triage, and no
half-written bundle, raw capture or partial archive stays behind.

Triage holds the write end of a pipe to the guardian and tells it, line by line, the workload's
process group and the paths to remove if triage ends without saying "done". When triage is
SIGKILLed or OOM-killed the pipe closes; the guardian then SIGKILLs the workload's group and removes
the paths, after killing every process below the workload's leader (nsys puts the application in
a process group of its own, which the group kill alone missed on an H100). The guardian runs in its own session, so a signal to triage's terminal or process group
does not reach it; it exits as soon as the pipe closes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GUARDIAN = r"""
import json, os, shutil, signal, sys

def descendants(root):
    # nsys starts the application in a process group of its own: walk /proc for every process below
    # the workload's leader before killing anything (a dead parent's children move to init)
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    stat = handle.read()
                children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found

def marked(token):
    # every live process whose environment holds this run's token (the workload and all it started,
    # also what left its session and was re-parented when triage died)
    needle = ("AIPERF_TRIAGE_RUN=" + token).encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle in handle.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                pass
    return found

group, token, paths, clean = None, None, [], False
for line in sys.stdin:
    try:
        kind, value = json.loads(line)
    except ValueError:
        continue
    if kind == "group":
        group = value
    elif kind == "reaped":
        group = None
    elif kind == "token":
        token = value
    elif kind == "path":
        paths.append(value)
    elif kind == "done":
        clean = True
if not clean:
    if group:
        for pid in descendants(group):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    if token:
        for _ in range(3):   # a process that forked between the scan and the kill: once more
            for pid in marked(token):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
"""


class Guard:
    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        try:
            self._proc = subprocess.Popen([sys.executable, "-c", GUARDIAN], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True)
        except OSError:
            self._proc = None  # no guardian: triage still cleans up on every exit it lives through

    def _tell(self, kind: str, value) -> None:
        if self._proc is None or self._proc.stdin is None:
            return
        try:
            self._proc.stdin.write((json.dumps([kind, value]) + "\n").encode())
            self._proc.stdin.flush()
        except (OSError, ValueError):
            pass

    def remove_on_kill(self, path: Path) -> None:
        self._tell("path", str(path))

    def kill_on_kill(self, process_group: int) -> None:
        self._tell("group", process_group)

    def kill_marked_on_kill(self, token: str) -> None:
        """Every process holding this run's token (leftovers.RUN_VARIABLE) in its environment."""
        self._tell("token", token)

    def group_gone(self) -> None:
        """The workload's group is reaped: its id may be reused, so the guardian must not kill it."""
        self._tell("reaped", None)

    def done(self) -> None:
        if self._proc is None:
            return
        self._tell("done", None)
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._proc = None
