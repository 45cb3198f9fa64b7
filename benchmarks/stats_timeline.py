"""Where the time of one aiperf-stats report goes: a wall-clock timeline of its phases (issue 17).

    python benchmarks/stats_timeline.py EXPORT.sqlite REPORT [--repeat N]

Runs `aiperf-stats EXPORT --report REPORT --format csv` in this process (output discarded) with the
reader's and the reports' phases wrapped: each call's start and end on one clock (seconds since this
script started, before aiperf_lab is imported), the thread it ran in and the CPU time of that thread
during the call. The read threads' SQL (NsysDatabase._query_apart) and parsing (launch_join._parsed) show
beside the main thread's work, so what runs at once, and what waits, can be seen. Python's own start-up
(before this script runs) is not in the timeline: `python -X importtime -c pass` and the `import` line
give it. With --repeat N the report runs N times, each in a fresh process, and the run with the least total is
printed (a busy machine makes single runs noisy).

A phase that is not in the code (a function renamed or gone) is left out, not an error.
"""

from __future__ import annotations

import subprocess
import sys
import time

T0 = time.perf_counter()

# (module, function or Class.method) wrapped when present; nested calls show as their own lines.
PHASES = {
    "aiperf_lab.metrics.nsys.db": ["NsysDatabase.__init__", "NsysDatabase._query_apart", "NsysDatabase.strings"],
    "aiperf_lab.metrics.nsys.launch_join": ["_read", "_parsed", "launches_by_thread", "prefetch"],
    "aiperf_lab.metrics.nsys.nvtx": ["load_ranges", "prefetch_ranges", "_missing_end_bound", "_domain_prefixes",
                                     "_grouped_ranges", "refuse_runaway_nesting", "_launches_by_thread",
                                     "_attribute_thread", "_attribute_overlapping", "_nested_keysets",
                                     "_segment_keysets", "_sweep", "_Attribution.add", "_Attribution.groups",
                                     "nvtx_kern_sum"],
    "aiperf_lab.metrics.nsys.nvtx_sweep": ["segment_codes", "held_name_counts", "kernels_by_code", "split_sorted"],
    "aiperf_lab.metrics.nsys.nvtx_tree": ["_projections", "_gpu_launches", "Nesting.__init__", "_thread_projections",
                                          "nvtx_gpu_proj_sum", "nvtx_gpu_proj_trace", "nvtx_pushpop_trace"],
    "aiperf_lab.metrics.nsys.launches": ["cuda_kern_exec_sum", "cuda_gpu_kern_sum"],
    "aiperf_lab.metrics.tables": ["write_csv"],
}


def _wrap(log: list, module, dotted: str) -> None:
    import functools
    import threading

    owner, _, name = dotted.rpartition(".")
    holder = getattr(module, owner) if owner else module
    original = holder.__dict__.get(name) if owner else getattr(module, name, None)
    if original is None or not callable(original):
        return
    label = dotted if not dotted.startswith("NsysDatabase._query_apart") else "sql in a thread"

    @functools.wraps(original)
    def timed(*args, **kwargs):
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            extra = ""
            if dotted == "NsysDatabase._query_apart":
                extra = " " + " ".join(str(args[1]).split())[:70]
            log.append((start - T0, time.perf_counter() - T0, time.thread_time() - cpu, label + extra,
                        threading.current_thread().name))

    setattr(holder, name, timed)


def timeline(export: str, report: str) -> tuple[list, float, float]:
    import contextlib
    import importlib
    import io

    log: list = []
    from aiperf_lab.metrics import cli

    imported = time.perf_counter() - T0
    for module_name, names in PHASES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # (an older checkout)
            continue
        for dotted in names:
            _wrap(log, module, dotted)
    sys.argv = ["aiperf-stats", export, "--report", report, "--format", "csv"]
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.main()
        except SystemExit:
            pass
    return log, imported, time.perf_counter() - T0


def _print(log: list, imported: float, total: float) -> None:
    print(f"{0:.3f}-{imported:.3f} ({imported:.3f}) imports of aiperf_lab.metrics.cli [MainThread]")
    for start, end, cpu, label, thread in sorted(log):
        print(f"{start:.3f}-{end:.3f} ({end - start:.3f}, cpu {cpu:.3f}) {label} [{thread}]")
    print(f"total {total:.3f} s after the interpreter's start-up")


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("report")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one run, printed (the child)
    args = parser.parse_args()
    if args.once or args.repeat <= 1:
        _print(*timeline(args.export, args.report))
        return 0
    best = None
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, __file__, args.export, args.report, "--once"], capture_output=True,
                             text=True, check=True).stdout
        total = float(out.strip().splitlines()[-1].split()[1])
        if best is None or total < best[0]:
            best = (total, out)
    print(best[1], end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
