"""How a workload reports what it measured: one line `AIPERF_RESULT {json}` on stdout, last.

Workloads print progress as they like; the runner keeps the last result line's values as the run's
measurements, next to what the runner measured itself (time, energy, power).
"""

from __future__ import annotations

import json
import sys

PREFIX = "AIPERF_RESULT "


def emit(**measurements) -> None:
    print(PREFIX + json.dumps(measurements, sort_keys=True), flush=True)


def parse_line(line: str) -> dict | None:
    if not line.startswith(PREFIX):
        return None
    try:
        value = json.loads(line[len(PREFIX):])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def need_gpu(torch_module) -> None:
    """Exit 2 with one line when a GPU-only workload finds no CUDA device."""
    if not torch_module.cuda.is_available():
        print("this workload needs an NVIDIA GPU with CUDA; none is visible here (try --size tiny where the "
              "exercise has a CPU path)", file=sys.stderr)
        raise SystemExit(2)
