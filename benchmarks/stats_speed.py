"""Speed of aiperf-stats against the tools it stands beside, whole process against whole process.

Goals (issue: profile readers):
  - cuda_gpu_kern_sum within 2x of a bare `sqlite3` GROUP BY over the same kernel table;
  - nvtx_kern_sum at least 3x faster than `nsys stats --report nvtx_kern_sum`.
Runs are interleaved (A B C A B C ...) so a noisy machine slows every command alike; the median of
--repeat runs is reported. Where nsys is present, our CSV is also compared with its CSV byte for byte.

    python benchmarks/stats_speed.py EXPORT.sqlite [--repeat 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

KERNEL_GROUP_BY = ("SELECT demangledName, count(*), sum([end]-start), avg([end]-start), min([end]-start), "
                   "max([end]-start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY demangledName")


def ours(export: str, report: str) -> list[str]:
    script = Path(sys.executable).with_name("aiperf-stats")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "aiperf_lab.metrics.cli"]
    return head + [export, "--report", report, "--format", "csv"]


def nsys_csv(stdout: str) -> str:
    """The table in `nsys stats --format csv` console output: nsys 2025.3 prints a "Processing [...]"
    line before it and a blank line after it; the table itself is what it writes with --output."""
    lines = stdout.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(("Time (%),", "NVTX Range,", "Total (MB),")):
            table = "".join(lines[i:])
            return table[:-1] if table.endswith("\n\n") else table
    return stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", help="write the raw timings here")
    args = parser.parse_args()
    export = str(Path(args.export).resolve())

    commands: dict[str, list[str]] = {
        "aiperf-stats cuda_gpu_kern_sum": ours(export, "cuda_gpu_kern_sum"),
        "aiperf-stats nvtx_kern_sum": ours(export, "nvtx_kern_sum"),
        "python sqlite3 GROUP BY": [sys.executable, "-c",
                                    "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                                    f"print(len(c.execute({KERNEL_GROUP_BY!r}).fetchall()))", export],
    }
    if shutil.which("sqlite3"):
        commands["sqlite3 GROUP BY"] = ["sqlite3", export, KERNEL_GROUP_BY]
    nsys = shutil.which("nsys")
    if nsys:
        for report in ("cuda_gpu_kern_sum", "nvtx_kern_sum"):
            commands[f"nsys stats {report}"] = [nsys, "stats", "--report", report, "--format", "csv",
                                                "--force-export", "false", export]

    times: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, str] = {}
    env = dict(os.environ, LC_ALL="C")
    for _ in range(args.repeat):
        for name, argv in commands.items():
            start = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
            if done.returncode != 0:
                print(f"{name} failed ({done.returncode}): {done.stderr.strip()[-300:]}", file=sys.stderr)
                return 1
            outputs.setdefault(name, done.stdout)

    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"export: {args.export}  repeat: {args.repeat}  python: {sys.version.split()[0]}")
    print("\n| command | median wall (s) | min (s) |\n|---|---|---|")
    for name in commands:
        print(f"| {name} | {median[name]:.3f} | {min(times[name]):.3f} |")
    reference = "sqlite3 GROUP BY" if "sqlite3 GROUP BY" in median else "python sqlite3 GROUP BY"
    ratio_kern = median["aiperf-stats cuda_gpu_kern_sum"] / median[reference]
    print(f"\ncuda_gpu_kern_sum / {reference}: {ratio_kern:.2f}x (goal <= 2)")
    result = {"median_s": median, "runs_s": times, "kern_vs_sqlite": ratio_kern}
    if nsys:
        speedup = median["nsys stats nvtx_kern_sum"] / median["aiperf-stats nvtx_kern_sum"]
        print(f"nsys stats nvtx_kern_sum / aiperf-stats nvtx_kern_sum: {speedup:.2f}x faster (goal >= 3)")
        result["nvtx_speedup_vs_nsys"] = speedup
        for report in ("cuda_gpu_kern_sum", "nvtx_kern_sum"):
            same = outputs[f"aiperf-stats {report}"] == nsys_csv(outputs[f"nsys stats {report}"])
            print(f"{report}: CSV identical to nsys stats: {same}")
            result[f"{report}_identical"] = same
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
