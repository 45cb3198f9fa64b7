"""What the workload leaves running outside its process group ends with it (issue 11, red team W1):
`setsid sleep 34 &` used to outlive triage and hold its output pipe for 10 s more."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from conftest import REPO

from aiperf_lab.triage import leftovers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")

# Starts a child in a session of its own (as `setsid cmd &` does), writes its pid, and exits at once.
ESCAPE = ("import subprocess, sys\n"
          "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
          "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'], start_new_session=True)\n"
          "open(sys.argv[1], 'w').write(str(child.pid))\nprint('bye', flush=True)\n")


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _read_pid(path: Path) -> int:
    assert _wait_for(lambda: path.exists() and path.read_text(), 20)
    return int(path.read_text())


def test_a_subreaper_adopts_the_orphan_and_end_marked_kills_and_reaps_it(tmp_path):
    was, missing = leftovers.become_subreaper()
    assert missing is None
    try:
        token = leftovers.new_token()
        pid_file = tmp_path / "pid"
        subprocess.run([sys.executable, "-c", ESCAPE, str(pid_file)], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, leftovers.RUN_VARIABLE: token})   # no pipe: the orphan would hold it
        orphan = _read_pid(pid_file)
        # its parent exited: re-parented to us, not to init
        assert int(Path(f"/proc/{orphan}/stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid()
        unmarked = subprocess.Popen(["sleep", "30"])
        assert leftovers.marked(token) == [orphan]
        started = time.monotonic()
        assert leftovers.end_marked(token, grace_s=0.3) == [orphan]   # it ignores SIGTERM: SIGKILL after 0.3 s
        assert time.monotonic() - started < 3
        assert not Path(f"/proc/{orphan}").exists()                  # reaped, not a zombie
        assert unmarked.poll() is None                                # what is not the workload's is left alone
        unmarked.kill()
        unmarked.wait()
    finally:
        if not was:
            leftovers.stop_being_subreaper()


def test_a_child_that_left_the_session_ends_with_the_workload(tmp_path):
    pid_file = tmp_path / "escaped.pid"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "1", "--no-nsys", "--output",
                           str(tmp_path / "out"), "--", sys.executable, "-c", ESCAPE, str(pid_file)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    escaped = _read_pid(pid_file)
    alive = _running(escaped)
    if alive:
        os.kill(escaped, signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    assert not alive, "a child in a session of its own outlived triage"
    assert elapsed < 10, elapsed   # it held the output pipe: 5 s of waiting for it, and more, before
    with tarfile.open(done.stdout.strip().splitlines()[-1]) as tar:
        workload = json.load(tar.extractfile(next(m for m in tar.getmembers() if m.name.endswith("workload.json"))))
    assert workload["leftovers_ended"] == 1 and workload["subreaper"].startswith("yes")


def test_sigkill_of_triage_ends_an_orphan_that_left_the_session(tmp_path):
    # the workload runs on; the escaped child's parent has exited, so it belongs to no process of the workload
    pid_file = tmp_path / "escaped.pid"
    workload = ["bash", "-c", f'"$0" -c "$1" {pid_file}; sleep 300', sys.executable, ESCAPE]
    proc = subprocess.Popen([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "120", "--no-nsys",
                             "--output", str(tmp_path / "out"), "--", *workload], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    escaped = None
    try:
        escaped = _read_pid(pid_file)
        time.sleep(0.3)
        proc.kill()
        proc.wait(10)
        assert _wait_for(lambda: not _running(escaped), 10), "the orphan outlived a SIGKILLed triage"
    finally:
        if proc.poll() is None:
            proc.kill()
        if escaped is not None and _running(escaped):
            os.kill(escaped, signal.SIGKILL)


def test_the_workload_s_own_process_is_spared_so_its_popen_keeps_its_exit_status():
    # Reaping the leader here would take its status from Popen.wait, which then says 0.
    token = leftovers.new_token()
    leader = subprocess.Popen(["sleep", "30"], env={**os.environ, leftovers.RUN_VARIABLE: token})
    try:
        assert leftovers.end_marked(token, grace_s=0.1, spare=leader.pid) == []
        assert leader.poll() is None
        leader.kill()
        assert leader.wait(5) == -signal.SIGKILL
    finally:
        if leader.poll() is None:
            leader.kill()
            leader.wait()
