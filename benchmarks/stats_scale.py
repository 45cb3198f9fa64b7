"""Memory and time of aiperf-stats on large inputs: a 2M-kernel nsys export and a 1M-event Kineto trace.

Goals (issue 11, deliver 5; issue 17, point 4):
  - the default overview and the big reports of a 2,000,334-kernel export under 400 MB RSS and within
    10x the bare SQL time (a `GROUP BY` over the kernel table, in the same Python's sqlite3);
  - a Kineto trace read in bounded memory (a 1 GB trace under 1.5 GB RSS), at least as fast as before.

Each command runs as its own process; its peak RSS comes from wait4(). With --before DIR (a checkout
of the code to compare with, e.g. `git archive main | tar -x -C DIR`), the same commands run on it too.

    python benchmarks/stats_scale.py --workdir WORKDIR [--kernels 2000000] [--events 1000000] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE_EXPORT = REPO / "tests" / "data" / "h200" / "lm_forward.sqlite"
SOURCE_TRACE = REPO / "tests" / "data" / "h200" / "torch_encoder_layer.pt.trace.json"
BARE_SQL = "SELECT demangledName, count(*), sum([end] - start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1"
NSYS_RUNS = [[], ["--report", "cuda_gpu_kern_sum"], ["--report", "kernel_breakdown"], ["--report", "gpu_idle"],
             ["--report", "nvtx_sum"], ["--report", "expert_findings"]]
TORCH_RUNS = [[], ["--report", "gpu_idle"]]


def run_measured(argv: list[str], env: dict[str, str], timeout: float = 3600) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of one process. The child reports its own VmHWM
    (wait4's ru_maxrss was seen to under-report on this sandboxed VM)."""
    began = time.monotonic()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=timeout,
                          text=True)
    wall = time.monotonic() - began
    peak = [line for line in done.stderr.splitlines() if line.startswith("peak_rss_kb=")]
    return wall, int(peak[-1].split("=")[1]) / 1024 if peak else float("nan"), done.returncode


def child(args: list[str]) -> int:
    """Run aiperf-stats in this process, then print its peak RSS (VmHWM) on stderr."""
    from aiperf_lab.metrics.cli import main as stats

    code = stats(args)
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    print(f"peak_rss_kb={int(hwm.split()[1])}", file=sys.stderr)
    return code


def bare_sql_seconds(export: Path, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        con = sqlite3.connect(f"file:{export}?mode=ro", uri=True)
        began = time.monotonic()
        con.execute(BARE_SQL).fetchall()
        times.append(time.monotonic() - began)
        con.close()
    return min(times)


def make_export(target: Path, kernels: int) -> Path:
    if not target.exists():
        subprocess.run([sys.executable, str(REPO / "benchmarks" / "make_synthetic_export.py"), str(SOURCE_EXPORT),
                        str(target), "--kernels", str(kernels)], check=True)
    return target


def make_trace(target: Path, events: int) -> Path:
    """A Kineto trace of about `events` events: the real H200 trace's events repeated, shifted in time
    and given fresh correlation ids, written as one JSON document."""
    if target.exists():
        return target
    document = json.loads(SOURCE_TRACE.read_text())
    base = [e for e in document["traceEvents"] if isinstance(e, dict)]
    stamps = [e["ts"] for e in base if isinstance(e.get("ts"), (int, float))]
    span = max(stamps) - min(stamps) + 1000
    with target.open("w") as out:
        out.write('{"schemaVersion": 1, "deviceProperties": ' + json.dumps(document.get("deviceProperties", []))
                  + ', "traceEvents": [\n')
        written, copy = 0, 0
        while written < events:
            for event in base:
                shifted = dict(event)
                if isinstance(shifted.get("ts"), (int, float)):
                    shifted["ts"] = shifted["ts"] + copy * span
                args = shifted.get("args")
                if isinstance(args, dict) and "correlation" in args:
                    shifted["args"] = dict(args, correlation=args["correlation"] + copy * 10_000_000)
                out.write(("," if written else "") + json.dumps(shifted) + "\n")
                written += 1
                if written >= events:
                    break
            copy += 1
        out.write("]}\n")
    return target


def command(code: Path, target: Path, extra: list[str]) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ, PYTHONPATH=str(code), COLUMNS="200")
    return [sys.executable, str(Path(__file__).resolve()), "--child", str(target), "--format", "csv", *extra], env


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--kernels", type=int, default=2_000_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--before", type=Path, help="another checkout to run the same commands on")
    parser.add_argument("--skip-nsys", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    random.seed(0)
    codes = [("now", REPO)] + ([("before", args.before.resolve())] if args.before else [])
    print("| input | command | code | wall s | peak RSS MB | exit | x bare SQL |")
    print("|---|---|---|---|---|---|---|")
    if not args.skip_nsys:
        export = make_export(args.workdir / f"synthetic_{args.kernels}.sqlite", args.kernels)
        bare = bare_sql_seconds(export)
        print(f"| {export.name} | bare sqlite3 GROUP BY | | {bare:.2f} | | | 1.0 |")
        for extra in NSYS_RUNS:
            for label, code in codes:
                argv, env = command(code, export, extra)
                wall, rss, rc = run_measured(argv, env)
                print(f"| {export.name} | {' '.join(extra) or 'overview'} | {label} | {wall:.1f} | {rss:.0f} | {rc} "
                      f"| {wall / bare:.1f} |", flush=True)
    if not args.skip_torch:
        trace = make_trace(args.workdir / f"synthetic_{args.events}.pt.trace.json", args.events)
        size_mb = trace.stat().st_size / 1e6
        for extra in TORCH_RUNS:
            for label, code in codes:
                argv, env = command(code, trace, extra)
                wall, rss, rc = run_measured(argv, env)
                print(f"| {trace.name} ({size_mb:.0f} MB) | {' '.join(extra) or 'overview'} | {label} | {wall:.1f} "
                      f"| {rss:.0f} | {rc} | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
