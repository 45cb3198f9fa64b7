"""CPU time of aiperf-stats reports against a bare sqlite3 GROUP BY over the same kernel table, whole
process against whole process, measured in one run (issue 17: "within 3x of the bare GROUP BY").

CPU time (user + system of each child, from getrusage) is steadier than wall time on a shared machine;
commands are interleaved; the median and the best of --repeat are printed. With --before DIR (a copy of an older tree,
e.g. `git archive main aiperf_lab | tar -x -C DIR`), the same reports run from that tree too, so before
and after come from one run.

    python benchmarks/make_storm_export.py tests/data/h200/lm_forward.sqlite storm.sqlite
    python benchmarks/stats_cpu.py storm.sqlite [--repeat 5] [--before DIR] [--reports a,b]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

REPORTS = ["nvtx_kern_sum", "nvtx_gpu_proj_sum", "cuda_gpu_kern_sum", "cuda_kern_exec_sum"]
GROUP_BY = ("SELECT demangledName, count(*), sum([end]-start), avg([end]-start), min([end]-start), "
            "max([end]-start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY demangledName")
ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(argv: list[str], tree: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), LC_ALL="C")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=tree, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reports", default=",".join(REPORTS))
    parser.add_argument("--before", type=Path, help="an older tree to measure in the same run")
    args = parser.parse_args()
    export = str(Path(args.export).resolve())
    reports = args.reports.split(",")
    commands: dict[str, tuple[list[str], Path]] = {
        "sqlite3 GROUP BY": ([sys.executable, "-c", "import sqlite3, sys; "
                              f"sqlite3.connect(sys.argv[1]).execute({GROUP_BY!r}).fetchall()", export], ROOT)}
    trees = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    for report in reports:
        for label, tree in trees:
            argv = [sys.executable, "-m", "aiperf_lab.metrics.cli", export, "--report", report, "--format", "csv"]
            commands[f"{report} ({label})" if args.before else report] = (argv, tree)
    runs: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, (argv, tree) in commands.items():
            runs[name].append(cpu_seconds(argv, tree))
    median = {name: statistics.median(values) for name, values in runs.items()}
    base, best_base = median["sqlite3 GROUP BY"], min(runs["sqlite3 GROUP BY"])
    print(f"CPU seconds of {args.repeat} interleaved runs each, on {Path(export).name}\n")
    print("| command | CPU median (s) | x GROUP BY | CPU best (s) | x GROUP BY |")
    print("|---|---:|---:|---:|---:|")
    for name, values in runs.items():
        print(f"| {name} | {median[name]:.3f} | {median[name] / base:.2f} | {min(values):.3f} | "
              f"{min(values) / best_base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
