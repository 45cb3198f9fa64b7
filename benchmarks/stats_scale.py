"""Memory and time of aiperf-stats on large inputs: a 2M-kernel nsys export and a 1M-event Kineto trace.

Goals (issue 11, deliver 5; issue 17, point 4):
  - the default overview and the big reports of a 2,000,334-kernel export under 400 MB RSS and within
    10x the bare SQL time;
  - a Kineto trace read in bounded memory (a 1 GB trace under 1.5 GB RSS), at least as fast as before.

"Bare SQL" is measured two ways, each in its own Python process with sqlite3 on the same file, timed
like the commands (whole process: wall time, CPU time from wait4, its own VmHWM):
  - "one GROUP BY": kernels grouped by name with count and total time, the least any kernel
    summary costs (the denominator of "x bare SQL");
  - "every table": the SQLite queries alone that compute the overview's numbers where SQL can: that
    GROUP BY with min, max and sum of squares, the memcpy one, the NVTX ranges grouped by text, type
    and domain, and the gaps per device as window functions over the kernels and memcpy in time order
    (gpu_idle's sweep: the running latest end before each op); what they leave out (medians, names,
    per-stream lanes) makes this a lower bound of the overview's SQL.

Each command runs as its own process, `--repeat` times, interleaved with the bare SQL (the machine's
load changes during a run); the table gives medians and the ratio of the medians. With --before DIR
(a checkout of the code to compare with, e.g. `git archive main | tar -x -C DIR`), the same commands
run on it too, in the same rounds.

    python benchmarks/stats_scale.py --workdir WORKDIR [--kernels 2000000] [--events 1000000] [--repeat 3]
        [--reports overview,gpu_idle,...] [--before DIR] [--skip-torch] [--skip-nsys]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

from process_measure import print_peak_rss, run_measured, stats_child
from trace_copies import shifted_event

REPO = Path(__file__).resolve().parent.parent
SOURCE_EXPORT = REPO / "tests" / "data" / "h200" / "lm_forward.sqlite"
SOURCE_TRACE = REPO / "tests" / "data" / "h200" / "torch_encoder_layer.pt.trace.json"
KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
GROUP_BY = f"SELECT demangledName, count(*), sum([end] - start) FROM {KERNEL} GROUP BY 1"
_SWEEP = ("SELECT deviceId, count(*), sum(start > reach), max(start - reach) FROM (SELECT deviceId, start, "
          "max([end]) OVER (PARTITION BY deviceId ORDER BY start, [end] ROWS BETWEEN UNBOUNDED PRECEDING AND "
          "1 PRECEDING) AS reach FROM (SELECT deviceId, start, [end] FROM {tables})) GROUP BY 1")
EVERY_TABLE = [
    f"SELECT demangledName, count(*), sum([end] - start), min([end] - start), max([end] - start), "
    f"sum(([end] - start) * ([end] - start)) FROM {KERNEL} GROUP BY 1",
    f"SELECT copyKind, count(*), sum([end] - start), min([end] - start), max([end] - start) FROM {MEMCPY} GROUP BY 1",
    "SELECT textId, text, eventType, domainId, count(*), sum(coalesce([end], start) - start), "
    "min(coalesce([end], start) - start), max(coalesce([end], start) - start) FROM NVTX_EVENTS "
    "WHERE eventType IN (59, 60, 70, 71) GROUP BY 1, 2, 3, 4",
    _SWEEP.format(tables=f"{KERNEL} UNION ALL SELECT deviceId, start, [end] FROM {MEMCPY}"),
]
BARE = {"one GROUP BY": [GROUP_BY], "every table": EVERY_TABLE}
NSYS_REPORTS = ["overview", "cuda_gpu_kern_sum", "kernel_breakdown", "gpu_idle", "nvtx_sum", "expert_findings"]
TORCH_RUNS = [[], ["--report", "gpu_idle"]]


def bare_child(export: str, which: str) -> int:
    """Run one bare SQL set in this process (each query fetched whole), then print its peak RSS."""
    con = sqlite3.connect(f"file:{export}?mode=ro", uri=True)
    for sql in BARE[which]:
        con.execute(sql).fetchall()
    con.close()
    print_peak_rss()
    return 0


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


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
                shifted = shifted_event(event, copy, span)
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


def nsys_table(export: Path, reports: list[str], codes: list[tuple[str, Path]], repeat: int) -> None:
    """Rounds of: each bare SQL set, then each report on each code; medians and ratios at the end."""
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    peaks: dict[tuple[str, str], list[float]] = {}
    exits: dict[tuple[str, str], set[int]] = {}
    for round_ in range(repeat):
        runs = [((which, ""), [sys.executable, str(Path(__file__).resolve()), "--bare", str(export), which],
                 dict(os.environ)) for which in BARE]
        for report in reports:
            extra = [] if report == "overview" else ["--report", report]
            for label, code in codes:
                runs.append(((report, label), *command(code, export, extra)))
        for key, argv, env in runs:
            run = run_measured(argv, env)
            wall, rss, rc, cpu = run.wall_s, run.peak_rss_mb, run.exit_code, run.cpu_s
            for record, value in ((walls, wall), (cpus, cpu), (peaks, rss)):
                record.setdefault(key, []).append(value)
            exits.setdefault(key, set()).add(rc)
            print(f"round {round_ + 1}: {key[0]} {key[1]} wall {wall:.2f} s cpu {cpu:.2f} s {rss:.0f} MB exit {rc}",
                  file=sys.stderr, flush=True)
    bare = {which: (median(walls[(which, "")]), median(cpus[(which, "")])) for which in BARE}
    print(f"\n{export.name}, {repeat} rounds: medians, the range of the wall times in brackets; each ratio "
          f"divides wall by wall and CPU by CPU time.\n")
    print("| command | code | wall s | CPU s | peak RSS MB | exit | x one GROUP BY, wall / CPU "
          f"({bare['one GROUP BY'][0]:.2f} / {bare['one GROUP BY'][1]:.2f} s) | x every table, wall / CPU "
          f"({bare['every table'][0]:.2f} / {bare['every table'][1]:.2f} s) |")
    print("|---|---|---|---|---|---|---|---|")
    for key, times in walls.items():
        wall, cpu = median(times), median(cpus[key])
        name = f"bare SQL: {key[0]}" if not key[1] else key[0]
        ratios = " | ".join(f"{wall / bare[which][0]:.1f} / {cpu / bare[which][1]:.1f}" for which in BARE)
        print(f"| {name} | {key[1]} | {wall:.2f} [{min(times):.2f}-{max(times):.2f}] | {cpu:.2f} | "
              f"{max(peaks[key]):.0f} | {','.join(map(str, sorted(exits[key])))} | {ratios} |", flush=True)


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return stats_child(sys.argv[2:])
    if sys.argv[1:2] == ["--bare"]:
        return bare_child(sys.argv[2], sys.argv[3])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--kernels", type=int, default=2_000_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds of each command, the codes in turn (medians reported; CPU range in brackets)")
    parser.add_argument("--reports", default=",".join(NSYS_REPORTS),
                        help=f"nsys commands to time, comma-separated (default: {','.join(NSYS_REPORTS)})")
    parser.add_argument("--before", type=Path, help="another checkout to run the same commands on")
    parser.add_argument("--skip-nsys", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    random.seed(0)
    codes = [("now", REPO)] + ([("before", args.before.resolve())] if args.before else [])
    if not args.skip_nsys:
        export = make_export(args.workdir / f"synthetic_{args.kernels}.sqlite", args.kernels)
        nsys_table(export, [r.strip() for r in args.reports.split(",") if r.strip()], codes, max(1, args.repeat))
    if not args.skip_torch:
        print("\n| input | command | code | wall s | CPU s | peak RSS MB | exit |")
        print("|---|---|---|---|---|---|---|")
        trace = make_trace(args.workdir / f"synthetic_{args.events}.pt.trace.json", args.events)
        size_mb = trace.stat().st_size / 1e6
        for extra in TORCH_RUNS:
            measured: dict[str, list] = {}
            for round_ in range(max(1, args.repeat)):   # the codes in turn, each round (the load changes)
                for label, code in codes:
                    argv, env = command(code, trace, extra)
                    run = run_measured(argv, env)
                    measured.setdefault(label, []).append(run)
                    print(f"round {round_ + 1}: {' '.join(extra) or 'overview'} {label} wall {run.wall_s:.2f} s cpu "
                          f"{run.cpu_s:.2f} s {run.peak_rss_mb:.0f} MB exit {run.exit_code}", file=sys.stderr, flush=True)
            for label, runs in measured.items():
                walls, cpus = [r.wall_s for r in runs], [r.cpu_s for r in runs]
                print(f"| {trace.name} ({size_mb:.0f} MB) | {' '.join(extra) or 'overview'} | {label} | "
                      f"{median(walls):.1f} | {median(cpus):.2f} [{min(cpus):.2f}-{max(cpus):.2f}] | "
                      f"{max(r.peak_rss_mb for r in runs):.0f} | "
                      f"{','.join(str(c) for c in sorted({r.exit_code for r in runs}))} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
