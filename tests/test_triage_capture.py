"""The workload's nsys trace survives every ending, with a stand-in nsys that behaves as the real one
did on an H100 (tests/standin/nsys.py): it keeps collecting after the application ends, writes nothing
when signalled while collecting, and flushes kernels only when the application exits on its own or the
collection is stopped properly."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from conftest import REPO

STANDIN = REPO / "tests" / "standin" / "nsys.py"
FAST_GRACE = "app=3,term=1,settle=0.3,stop=3,write=15"


@pytest.fixture
def env(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "nsys"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN}" "$@"\n')
    wrapper.chmod(0o755)
    state = tmp_path / "sessions"
    state.mkdir()
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "STANDIN_NSYS_STATE": str(state), "AIPERF_TRIAGE_GRACE": FAST_GRACE}


def app(tmp_path: Path, seconds: float, ignore_sigint: bool = False) -> list[str]:
    pid_file = tmp_path / "app.pid"
    code = ("import os, signal, time\n"
            + ("signal.signal(signal.SIGINT, signal.SIG_IGN)\n" if ignore_sigint else "")
            + f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep({seconds})\n")
    return [sys.executable, "-c", code]


def start(tmp_path, env, duration, command, *extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", str(duration), "--progress",
                             "--output", str(tmp_path / "out"), *extra, "--", *command],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_app(tmp_path: Path, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if (tmp_path / "app.pid").exists() and (tmp_path / "app.pid").read_text():
            return
        time.sleep(0.05)
    raise AssertionError("the application never started")


def bundle(proc: subprocess.Popen, tmp_path: Path, timeout: float = 60) -> tuple[int, dict, str]:
    out, err = proc.communicate(timeout=timeout)
    archive = Path(out.strip().splitlines()[-1])
    unpacked = tmp_path / "unpacked"
    with tarfile.open(archive, "r:gz") as tar:
        try:
            tar.extractall(unpacked, filter="data")
        except TypeError:  # a Python without extraction filters (before 3.10.12): our own archive
            tar.extractall(unpacked)
    (root,) = unpacked.iterdir()
    return proc.returncode, {"root": root, "workload": json.loads((root / "workload/workload.json").read_text()),
                             "manifest": json.loads((root / "manifest.json").read_text())}, err


def rows(root: Path, table: str) -> int:
    con = sqlite3.connect(root / "nsys/workload.sqlite")
    try:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        con.close()


def assert_trace_kept(found: dict) -> None:
    root, workload = found["root"], found["workload"]
    assert (root / "nsys/workload.sqlite").exists(), workload
    assert rows(root, "CUPTI_ACTIVITY_KIND_KERNEL") > 0 and rows(root, "NVTX_EVENTS") > 0
    assert (root / "nsys/stats/cuda_gpu_kern_sum.csv").exists() and (root / "nsys/stats/nvtx_sum.csv").exists()
    # exported with --include-blobs=true (this nsys lists it): NVTX payloads (NCCL's message sizes) kept
    assert rows(root, "NVTX_EVENTS WHERE binaryData IS NOT NULL") == rows(root, "NVTX_EVENTS")
    coverage = workload["coverage"]
    assert coverage["written"] and coverage["kernels"] > 0 and coverage["nvtx_ranges"] > 0
    assert coverage["source"] == "export" and 0 <= coverage["start_s"] < coverage["end_s"] <= coverage["telemetry_s"] + 1
    assert coverage["text"].startswith("trace covers ") and found["manifest"]["capture"]["text"] == coverage["text"]
    assert "report written" in workload["capture"]["outcome"]


def test_workload_shorter_than_the_duration_while_nsys_keeps_collecting(tmp_path, env):
    began = time.monotonic()
    proc = start(tmp_path, env, 30, app(tmp_path, 1.0))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert time.monotonic() - began < 20          # not held until the 30 s duration ends, as on the H100
    assert_trace_kept(found)
    capture = found["workload"]["capture"]
    assert capture["collection_stopped_by"] == "nsys stop" and found["workload"]["stopped_by"] is None
    assert found["workload"]["signals_sent"] == []  # the application ended on its own: nobody was signalled


def test_duration_ends_while_the_workload_runs_and_nsys_ends_its_own_collection(tmp_path, env):
    proc = start(tmp_path, env, 3, app(tmp_path, 120))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert_trace_kept(found)
    workload = found["workload"]
    assert "--duration" in workload["argv"] and workload["stopped_by"] == "duration"
    assert workload["capture"]["collection_stopped_by"] == "nsys --duration" and workload["signals_sent"] == []


def test_duration_ends_while_the_workload_runs_and_nsys_overruns_its_duration(tmp_path, env):
    env = {**env, "STANDIN_NSYS_IGNORE_DURATION": "1"}
    proc = start(tmp_path, env, 3, app(tmp_path, 120))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert_trace_kept(found)
    workload = found["workload"]
    assert workload["stopped_by"] == "duration" and workload["signals_sent"] == ["SIGINT (application)"]
    assert any("SIGINT to the application" in e["what"] for e in workload["capture"]["events"])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])   # SIGHUP: the SSH session dropped
def test_an_interrupt_keeps_the_trace(tmp_path, env, sig):
    proc = start(tmp_path, env, 60, app(tmp_path, 120))
    wait_for_app(tmp_path)
    time.sleep(0.5)
    proc.send_signal(sig)
    code, found, err = bundle(proc, tmp_path)
    assert code == 130, err
    assert_trace_kept(found)
    assert found["workload"]["stopped_by"] == "interrupt" and found["manifest"]["interrupted"] is True
    assert found["manifest"]["interrupted_by"] == sig.name


def test_a_second_ctrl_c_has_nsys_stop_the_collection_and_still_keeps_the_kernels(tmp_path, env):
    env = {**env, "AIPERF_TRIAGE_GRACE": "app=60,term=1,settle=0.3,stop=3,write=15"}
    proc = start(tmp_path, env, 60, app(tmp_path, 120, ignore_sigint=True))
    wait_for_app(tmp_path)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.0)
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)               # do not wait out the application's 60 s grace
    code, found, err = bundle(proc, tmp_path)
    assert code == 130, err
    assert time.monotonic() - began < 20
    assert_trace_kept(found)
    assert found["workload"]["capture"]["collection_stopped_by"] == "nsys stop"
    assert "nsys stops its collection now" in err


def test_a_second_ctrl_c_after_the_application_ended_waits_for_nsys_instead_of_signalling_it(tmp_path, env):
    # The H100 run: the application ended on the first Ctrl-C; nsys, still ending its collection,
    # refused `nsys stop`, and a SIGINT to nsys then lost the whole report.
    env = {**env, "STANDIN_NSYS_LINGER_S": "2", "STANDIN_NSYS_REFUSE_AFTER_APP": "1",
           "AIPERF_TRIAGE_GRACE": "app=10,term=1,settle=5,stop=5,write=15"}
    proc = start(tmp_path, env, 60, app(tmp_path, 120))
    wait_for_app(tmp_path)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    code, found, err = bundle(proc, tmp_path)
    assert code == 130, err
    assert_trace_kept(found)
    assert "SIGINT (nsys)" not in found["workload"]["signals_sent"]


def test_duration_ends_while_nsys_writes_the_report(tmp_path, env):
    env = {**env, "STANDIN_NSYS_LINGER_S": "0", "STANDIN_NSYS_WRITE_S": "4"}
    proc = start(tmp_path, env, 2, app(tmp_path, 0.5))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert_trace_kept(found)
    assert "aiperf-triage: nsys writing report, 2 s" in err
    assert not any(f["id"] == "trace_partial" for f in json.loads((found["root"] / "findings.json").read_text()))
    assert found["workload"]["signals_sent"] == []     # nsys was never signalled while it wrote


def test_when_nsys_stop_fails_nsys_own_duration_still_ends_the_collection(tmp_path, env):
    env = {**env, "STANDIN_NSYS_STOP_FAILS": "1"}
    proc = start(tmp_path, env, 5, app(tmp_path, 0.5))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert_trace_kept(found)
    assert found["workload"]["capture"]["collection_stopped_by"] == "nsys --duration"


def test_a_report_that_cannot_be_written_is_explained(tmp_path, env):
    env = {**env, "STANDIN_NSYS_STOP_FAILS": "1", "STANDIN_NSYS_IGNORE_DURATION": "1"}
    proc = start(tmp_path, env, 4, app(tmp_path, 0.5))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    workload, manifest = found["workload"], found["manifest"]
    assert not (found["root"] / "nsys").exists()
    capture = workload["capture"]
    assert "nsys stop --session" in " ".join(e["what"] for e in capture["events"])
    assert capture["outcome"].startswith("nsys wrote no report after SIGINT (nsys)")
    assert "Signal 2 received while collecting" in capture["outcome"]     # what nsys printed
    assert capture["nsys_said"][0] == "Collecting data..." and capture["nsys_said"][-1].startswith("Signal 2")
    assert workload["coverage"]["written"] is False and manifest["capture"]["written"] is False
    record = next(c for c in manifest["collectors"] if c["name"] == "workload")
    assert "no trace" in record["error"]
    findings = json.loads((found["root"] / "findings.json").read_text())
    assert any(f["id"] == "trace_missing" for f in findings)


def test_a_third_ctrl_c_abandons_the_trace_and_still_writes_the_archive(tmp_path, env):
    env = {**env, "AIPERF_TRIAGE_GRACE": "app=60,term=1,settle=0.3,stop=3,write=60", "STANDIN_NSYS_WRITE_S": "60"}
    proc = start(tmp_path, env, 60, app(tmp_path, 120, ignore_sigint=True))
    wait_for_app(tmp_path)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)               # nsys stops its collection, then writes for 60 s
    time.sleep(1.5)
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)
    code, found, err = bundle(proc, tmp_path)
    assert code == 130, err
    assert time.monotonic() - began < 15
    capture = found["workload"]["capture"]
    assert any("abandoned at the third interrupt" in e["what"] for e in capture["events"])
    assert capture["outcome"].startswith("nsys wrote no report") and "SIGKILL (nsys group)" in capture["outcome"]
    assert found["manifest"]["capture"]["written"] is False


def test_the_gpu_check_script_tabulates_each_ending(tmp_path, env, monkeypatch):
    """benchmarks/verify_issue12.py's own logic, with the stand-in nsys and a sleeping workload."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import verify_issue12 as check
    finally:
        sys.path.pop(0)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(check, "WORKLOAD", [sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))"])
    monkeypatch.setattr(check, "ENDINGS", [("shorter", ["--duration", "20"], 0.5, []),
                                           ("Ctrl-C at 1 s", ["--duration", "30"], 60, [(1.5, signal.SIGINT)])])
    monkeypatch.setattr(sys, "argv", ["verify_issue12.py", str(tmp_path / "result")])
    assert check.main() == 0
    rows = json.loads((tmp_path / "result" / "verify_issue12.json").read_text())
    assert [r["exit"] for r in rows] == [0, 130]
    assert all(r["archive"] and r["export"] and r["kernel_rows"] > 0 and r["nvtx_rows"] > 0 for r in rows)
    assert all("cuda_gpu_kern_sum" in r["stats_tables"] and r["coverage"].startswith("trace covers") for r in rows)
    text = (tmp_path / "result" / "verify_issue12.md").read_text()
    assert "| Ctrl-C at 1 s | 130 | yes | yes (" in text and "standin" in text


def test_an_application_that_ignores_sigint_is_ended_by_nsys_with_its_trace_flushed(tmp_path, env):
    env = {**env, "STANDIN_NSYS_IGNORE_DURATION": "1", "AIPERF_TRIAGE_GRACE": "app=1,term=1,settle=0.3,stop=3,write=15"}
    proc = start(tmp_path, env, 3, app(tmp_path, 120, ignore_sigint=True))
    code, found, err = bundle(proc, tmp_path)
    assert code == 0, err
    assert_trace_kept(found)                      # SIGTERM to the application would have lost it
    workload = found["workload"]
    assert workload["signals_sent"] == ["SIGINT (application)"]
    assert workload["capture"]["collection_stopped_by"] == "nsys stop"
