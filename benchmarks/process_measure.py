"""How the benchmarks measure one command: as its own process, whole (start-up and imports included).

A child prints its own peak RSS (VmHWM from /proc/self/status) as the last line of stderr, because
wait4()'s ru_maxrss was seen to under-report on a sandboxed VM; the parent takes wall time, CPU time
(user + system, from wait4: what a loaded machine disturbs least) and ru_maxrss.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

PEAK_PREFIX = "peak_rss_kb="


@dataclass
class Measured:
    wall_s: float
    cpu_s: float
    maxrss_mb: float        # wait4's figure
    peak_rss_mb: float      # the child's own VmHWM (nan when it printed none)
    exit_code: int
    stderr_lines: list[str]  # without the peak line

    @property
    def last_stderr_line(self) -> str:
        return self.stderr_lines[-1] if self.stderr_lines else ""


def print_peak_rss() -> None:
    """In the child, after its work: its peak RSS on stderr, for run_measured()."""
    sys.stdout.flush()
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    print(f"{PEAK_PREFIX}{int(hwm.split()[1])}", file=sys.stderr)


def stats_child(args: list[str]) -> int:
    """aiperf-stats in this process, then its peak RSS on stderr."""
    from aiperf_lab.metrics.cli import main as stats

    code = stats(args)
    print_peak_rss()
    return code


def run_measured(argv: list[str], env: dict[str, str]) -> Measured:
    """Run argv to its end with stdout discarded; stderr goes to a file (a pipe could fill and stall it)."""
    with tempfile.TemporaryFile("w+", errors="replace") as err:
        began = time.monotonic()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - began
        err.seek(0)
        lines = err.read().splitlines()
    peaks = [line for line in lines if line.startswith(PEAK_PREFIX)]
    return Measured(wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, maxrss_mb=usage.ru_maxrss / 1024,
                    peak_rss_mb=int(peaks[-1][len(PEAK_PREFIX):]) / 1024 if peaks else float("nan"),
                    exit_code=os.waitstatus_to_exitcode(status),
                    stderr_lines=[line for line in lines if not line.startswith(PEAK_PREFIX)])
