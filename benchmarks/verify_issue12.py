"""Issue 12 on the GPU machine: does aiperf-triage keep the workload's nsys trace for every ending?

    python3 benchmarks/verify_issue12.py OUT_DIR          (benchmarks/verify_issue12.sh runs it)

For each ending it runs aiperf-triage with benchmarks/triage_workload.py under the real nsys, sends the
signals the ending calls for, then reads the archive: exit code, archive present, SQLite export present,
kernel and NVTX rows in the export, stats tables, the capture's coverage and outcome. Writes
verify_issue12.md (the table), verify_issue12.json and verify_issue12_runs.log into OUT_DIR. Never fails:
a run that goes wrong is a row that says so. Expected runtime: about 5 to 6 minutes (7 runs).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

BUDGET_S = 330          # no run starts after this, so the whole stays under 7 minutes
TOTAL_S = 430           # a run still going at this point is killed (and its row says so)
RUN_LIMIT_S = 150       # one run is killed after this
WORKLOAD = [sys.executable, "benchmarks/triage_workload.py", "--seconds"]

# (name, triage options, workload seconds, [(at seconds, signal), ...]); the most telling first
ENDINGS = [
    ("duration ends during nsys's collection (the H100 failure: 12 s workload, 30 s, --bench)",
     ["--duration", "30", "--bench"], 12, []),
    ("workload shorter than the duration", ["--duration", "25"], 6, []),
    ("workload longer than the duration", ["--duration", "15"], 300, []),
    ("Ctrl-C at 5 s", ["--duration", "60"], 300, [(5, signal.SIGINT)]),
    ("Ctrl-C at 12 s", ["--duration", "60"], 300, [(12, signal.SIGINT)]),
    ("SIGTERM at 12 s", ["--duration", "60"], 300, [(12, signal.SIGTERM)]),
    ("Ctrl-C twice (14 s, 15 s)", ["--duration", "60"], 300, [(14, signal.SIGINT), (15, signal.SIGINT)]),
]


def export_rows(path: Path) -> dict:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        out = {}
        for key, table in (("kernel_rows", "CUPTI_ACTIVITY_KIND_KERNEL"), ("nvtx_rows", "NVTX_EVENTS"),
                           ("runtime_rows", "CUPTI_ACTIVITY_KIND_RUNTIME")):
            out[key] = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] if table in tables else 0
        return out
    finally:
        con.close()


def read_bundle(archive: Path, scratch: Path) -> dict:
    with tarfile.open(archive, "r:gz") as tar:
        try:
            tar.extractall(scratch, filter="data")
        except TypeError:  # a Python without extraction filters (before 3.10.12): our own archive
            tar.extractall(scratch)
    (root,) = [p for p in scratch.iterdir() if p.is_dir()]
    workload = json.loads((root / "workload/workload.json").read_text())
    manifest = json.loads((root / "manifest.json").read_text())
    export = root / "nsys/workload.sqlite"
    stats = sorted(p.stem for p in (root / "nsys/stats").glob("*.csv")) if (root / "nsys/stats").exists() else []
    found = {"export": export.exists(), "stats_tables": stats, **(export_rows(export) if export.exists() else {}),
             "coverage": (workload.get("coverage") or {}).get("text"),
             "outcome": (workload.get("capture") or {}).get("outcome") or (workload.get("nsys") or {}).get("error"),
             "signals_sent": workload.get("signals_sent"), "stopped_by": workload.get("stopped_by"),
             "capture_events": [e["what"] for e in (workload.get("capture") or {}).get("events", [])],
             "interrupted": manifest.get("interrupted"),
             "export_mb": round(export.stat().st_size / 1e6, 1) if export.exists() else None}
    findings = json.loads((root / "findings.json").read_text()) if (root / "findings.json").exists() else []
    found["trace_findings"] = [f["id"] for f in findings if f["id"].startswith("trace_")]
    return found


def run_one(name: str, options: list[str], seconds: float, signals: list, work: Path, log, limit_s: float) -> dict:
    row = {"ending": name}
    out_dir = work / "out"
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", *options, "--progress", "--output", str(out_dir), "--",
            *WORKLOAD, str(seconds)]
    log.write(f"\n===== {name}\n$ {' '.join(argv)}\n")
    log.flush()
    began = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    try:
        for at, sig in signals:
            time.sleep(max(0.0, began + at - time.monotonic()))
            if proc.poll() is None:
                proc.send_signal(sig)
                log.write(f"----- sent {sig.name} to triage at {time.monotonic() - began:.1f} s\n")
                log.flush()
        out, _ = proc.communicate(timeout=max(1.0, limit_s - (time.monotonic() - began)))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        row["error"] = f"killed after {limit_s:.0f} s"
    row["exit"] = proc.returncode
    row["wall_s"] = round(time.monotonic() - began, 1)
    lines = (out or "").strip().splitlines()
    archive = Path(lines[-1]) if lines and lines[-1].endswith(".tar.gz") else None
    row["archive"] = bool(archive and archive.exists())
    if row["archive"]:
        try:
            row.update(read_bundle(archive, work / "unpacked"))
        except Exception as exc:  # a broken bundle is a finding of this check, not a crash of it
            row["error"] = f"cannot read the archive: {type(exc).__name__}: {exc}"
    return row


def gpu_name() -> str:
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20)
        return done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else "unknown GPU"
    except (OSError, subprocess.SubprocessError):
        return "unknown GPU (nvidia-smi failed)"


def nsys_version() -> str:
    try:
        done = subprocess.run(["nsys", "--version"], capture_output=True, text=True, timeout=30)
        return done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"nsys not runnable: {exc}"


def table(rows: list[dict], header: str) -> str:
    lines = [header, "", "| ending | exit | archive | SQLite export | kernel rows | NVTX rows | stats tables | coverage | "
             "capture outcome | wall s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(" | ".join([
            f"| {r['ending']}", str(r.get("exit")), "yes" if r.get("archive") else "**no**",
            (f"yes ({r.get('export_mb')} MB)" if r.get("export") else "**no**"),
            str(r.get("kernel_rows", "-")), str(r.get("nvtx_rows", "-")),
            str(len(r.get("stats_tables") or [])) + (f" ({', '.join(r['stats_tables'])})" if r.get("stats_tables") else ""),
            str(r.get("coverage") or "-"), str(r.get("error") or r.get("outcome") or "-").replace("|", "/"),
            f"{r.get('wall_s')} |"]))
    return "\n".join(lines) + "\n"


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    header = (f"# Issue 12: the nsys trace for every ending of aiperf-triage\n\nGPU: {gpu_name()}; "
              f"{nsys_version().splitlines()[0] if nsys_version() else 'nsys ?'}; workload: "
              f"benchmarks/triage_workload.py (PyTorch training loop with NVTX ranges)")
    rows: list[dict] = []
    started = time.monotonic()
    with open(out / "verify_issue12_runs.log", "w") as log, tempfile.TemporaryDirectory() as scratch:
        only = os.environ.get("VERIFY12_ONLY", "")   # run only the endings whose name holds this
        for i, (name, options, seconds, signals) in enumerate(ENDINGS):
            if only and only not in name:
                continue
            if time.monotonic() - started > BUDGET_S:
                rows.append({"ending": name, "error": "not run: the time budget was spent"})
                continue
            work = Path(scratch) / f"run{i}"
            work.mkdir()
            try:
                limit = min(RUN_LIMIT_S, TOTAL_S - (time.monotonic() - started))
                rows.append(run_one(name, options, seconds, signals, work, log, limit))
            except Exception as exc:
                rows.append({"ending": name, "error": f"{type(exc).__name__}: {exc}"})
            (out / "verify_issue12.json").write_text(json.dumps(rows, indent=2) + "\n")
            (out / "verify_issue12.md").write_text(table(rows, header))
    print(table(rows, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
