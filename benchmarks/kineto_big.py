"""Time and peak memory of aiperf-stats on a ~1 GB PyTorch profiler (Kineto) trace, and on the small real one.

Goal (issue 17, point 4): a 1 GB trace read with peak RSS under 1.5 GB, and the streaming reader at least as
fast as the reader before it on small traces.

The big trace is made here, in --workdir (never committed): the real H200 trace in tests/data repeated,
each copy shifted in time past the previous one and given fresh correlation ids, until the file reaches
--gb gigabytes. Every report aiperf-stats offers for a PyTorch trace (the overview and each --report but the
energy ones, which need a telemetry recording) then runs in its own child process; its wall time and peak
RSS are printed, and its CPU time (user + system, from wait4: steadier than wall time on a shared
machine). Peak RSS is taken twice: wait4()'s ru_maxrss of the child (resource.getrusage's figure for
that one child) and the child's own VmHWM from /proc (wait4 was seen to under-report on a sandboxed VM).

With --before DIR (another checkout, e.g. `git archive 736ced3~1 | tar -x -C DIR`, the code before the
streaming reader) the small trace is timed with both, interleaved, --repeat times each. Children run with
bytecode caching on (PYTHONDONTWRITEBYTECODE removed) after one warm-up run, as an installed tool runs:
without the cache, compiling the modules costs more than reading a small trace.

    python benchmarks/kineto_big.py --workdir WORKDIR [--gb 1.0] [--gpu-only] [--before DIR] [--repeat 7] [--skip-big]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from process_measure import run_measured, stats_child
from trace_copies import shifted_event

REPO = Path(__file__).resolve().parent.parent
SOURCE_TRACE = REPO / "tests" / "data" / "h200" / "torch_encoder_layer.pt.trace.json"
REPORTS = [[], ["--report", "cuda_gpu_kern_sum"], ["--report", "kernel_breakdown"],
           ["--report", "torch_annotation_sum"], ["--report", "gpu_idle"]]
RSS_GOAL_MB = 1500


GPU_ONLY = ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")


def make_trace(target: Path, gigabytes: float, gpu_only: bool = False) -> tuple[Path, int]:
    """The real trace's events repeated (shifted in time, fresh correlation ids) until `gigabytes`; the
    event count. Reused when it exists. gpu_only: only the GPU operations and their launches (a trace of
    ProfilerActivity.CUDA alone: the most objects the reader keeps per byte)."""
    limit = int(gigabytes * 1e9)
    if target.exists() and target.stat().st_size >= limit:
        return target, -1
    document = json.loads(SOURCE_TRACE.read_text())
    base = [e for e in document["traceEvents"] if isinstance(e, dict)
            and (not gpu_only or e.get("cat") in GPU_ONLY)]
    stamps = [e["ts"] for e in base if isinstance(e.get("ts"), (int, float))]
    span = max(stamps) - min(stamps) + 1000
    header = {k: v for k, v in document.items() if k != "traceEvents"}
    written = copy = size = 0
    with target.open("w") as out:
        head = json.dumps(header)[:-1] + ', "traceEvents": [\n'
        out.write(head)
        size += len(head)
        while size < limit:
            for event in base:
                shifted = shifted_event(event, copy, span)
                line = ("," if written else "") + json.dumps(shifted) + "\n"
                out.write(line)
                size += len(line)
                written += 1
            copy += 1
        out.write("]}\n")
    return target, written


def run_child(code: Path, trace: Path, extra: list[str]) -> tuple[float, float, float, float, int, str]:
    """(wall s, CPU s, wait4 ru_maxrss MB, VmHWM MB, exit code, last stderr line) of one child process."""
    env = dict(os.environ, PYTHONPATH=str(code), COLUMNS="200")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: modules compiled once, then cached
    run = run_measured([sys.executable, str(Path(__file__).resolve()), "--child", str(trace), "--format", "csv",
                        *extra], env)
    return run.wall_s, run.cpu_s, run.maxrss_mb, run.peak_rss_mb, run.exit_code, run.last_stderr_line


def label(extra: list[str]) -> str:
    return " ".join(extra) or "overview (no --report)"


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return stats_child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--gb", type=float, default=1.0, help="size of the big trace in GB (1e9 bytes)")
    parser.add_argument("--before", type=Path, help="another checkout to time the small trace with")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--gpu-only", action="store_true", help="the big trace holds only GPU operations and "
                        "their launches (the densest case for the reader's memory)")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    failed = False
    if not args.skip_big:
        began = time.monotonic()
        name = f"kineto_{args.gb:g}gb{'_gpu_only' if args.gpu_only else ''}.pt.trace.json"
        trace, events = make_trace(args.workdir / name, args.gb, args.gpu_only)
        made = time.monotonic() - began
        print(f"big trace: {trace.stat().st_size / 1e9:.3f} GB"
              + (f", {events:,} events, written in {made:.0f} s" if events >= 0 else " (reused)"), flush=True)
        print(f"\n| report ({trace.stat().st_size / 1e9:.2f} GB trace) | wall s | CPU s | peak RSS MB (wait4) "
              f"| peak RSS MB (VmHWM) | exit | under {RSS_GOAL_MB} MB |")
        print("|---|---|---|---|---|---|---|")
        for extra in REPORTS:
            wall, cpu, maxrss, hwm, rc, last = run_child(REPO, trace, extra)
            peak = max(maxrss, hwm)
            failed |= rc != 0 or peak >= RSS_GOAL_MB
            print(f"| {label(extra)} | {wall:.1f} | {cpu:.1f} | {maxrss:.0f} | {hwm:.0f} | {rc} | "
                  f"{'yes' if peak < RSS_GOAL_MB else 'NO'} |" + (f" {last}" if rc else ""), flush=True)
    codes = [("now", REPO)] + ([("before", args.before.resolve())] if args.before else [])
    print(f"\nsmall real trace {SOURCE_TRACE.name} ({SOURCE_TRACE.stat().st_size / 1e3:.0f} KB), median of "
          f"{args.repeat} runs each, interleaved (CPU: median, and the least in brackets):\n")
    print("| report | " + " | ".join(f"{name}: wall s / CPU s (min) / RSS MB" for name, _ in codes) + " |")
    print("|---|" + "---|" * len(codes))
    for _name, code in codes:  # compile and cache each checkout's modules before timing
        run_child(code, SOURCE_TRACE, [])
    for extra in REPORTS:
        walls: dict[str, list[float]] = {name: [] for name, _ in codes}
        cpus: dict[str, list[float]] = {name: [] for name, _ in codes}
        peaks: dict[str, list[float]] = {name: [] for name, _ in codes}
        exits: dict[str, set[int]] = {name: set() for name, _ in codes}
        for _ in range(args.repeat):
            for name, code in codes:
                wall, cpu, maxrss, hwm, rc, _last = run_child(code, SOURCE_TRACE, extra)
                walls[name].append(wall)
                cpus[name].append(cpu)
                peaks[name].append(max(maxrss, hwm))
                exits[name].add(rc)
        cells = []
        for name, _ in codes:
            bad = exits[name] - {0}
            cells.append(f"{statistics.median(walls[name]):.3f} / {statistics.median(cpus[name]):.3f} "
                         f"({min(cpus[name]):.3f}) / {statistics.median(peaks[name]):.0f}"
                         + (f" (exit {sorted(bad)})" if bad else ""))
        print(f"| {label(extra)} | " + " | ".join(cells) + " |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
