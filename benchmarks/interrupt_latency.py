"""How fast aiperf-stats ends on Ctrl-C (SIGINT) or SIGTERM in the middle of a report: each report is run
once to the end (its wall time), then again with the signal sent at each delay; printed: the seconds from
the signal to the exit, the exit code and stderr's line count (the contract: exit 130, one line, within
about a second).

    python benchmarks/interrupt_latency.py EXPORT.sqlite [--report NAME ...] [--delays 0.5,1.5,3] [--signal INT]

A large export to try it on: benchmarks/make_synthetic_export.py tests/data/h200/lm_forward.sqlite big.sqlite
--kernels 1000000.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time

REPORTS = ["overview", "cuda_gpu_kern_sum", "nvtx_kern_sum", "cuda_gpu_trace", "kernel_overlap"]


def command(path: str, report: str) -> list[str]:
    args = [] if report == "overview" else ["--report", report]
    return [sys.executable, "-m", "aiperf_lab.metrics.cli", path, *args, "--format", "csv"]


def interrupted(argv: list[str], delay: float, number: int) -> tuple[float | None, int, int]:
    """(seconds from the signal to the exit or None if it had ended before, exit code, stderr lines)."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    if process.poll() is not None:
        return None, process.returncode, process.stderr.read().count(b"\n")
    sent = time.monotonic()
    process.send_signal(number)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return float("inf"), process.returncode, 0
    ended = time.monotonic() - sent
    return ended, process.returncode, process.stderr.read().count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--report", action="append", help="default: " + ", ".join(REPORTS))
    parser.add_argument("--delays", default="0.5,1.5,3", help="seconds after the start (comma-separated)")
    parser.add_argument("--signal", default="INT", choices=["INT", "TERM"])
    args = parser.parse_args()
    number = getattr(signal, "SIG" + args.signal)
    delays = [float(d) for d in args.delays.split(",")]
    print(f"| report | whole run s | SIG{args.signal} at " + " | at ".join(f"{d:g} s" for d in delays) + " |")
    print("|---|---|" + "---|" * len(delays))
    for report in args.report or REPORTS:
        argv = command(args.export, report)
        began = time.monotonic()
        whole = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cells = [f"{time.monotonic() - began:.2f} (exit {whole.returncode})"]
        for delay in delays:
            seconds, code, lines = interrupted(argv, delay, number)
            cells.append("ended before" if seconds is None else f"{seconds:.2f} s, exit {code}, {lines} line(s)")
        print(f"| {report} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
