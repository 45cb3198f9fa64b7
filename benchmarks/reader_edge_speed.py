"""CPU time of a few aiperf-stats commands, this checkout against another (`--before DIR`, e.g. a
`git archive main aiperf_lab | tar -x -C DIR`), run alternately in fresh interpreters so a loaded machine
slows both alike; prints the median CPU time (user + system of the child) of each. For changes at the
readers' edge (checks made when a file is opened), which must cost nothing a user sees.

    python benchmarks/reader_edge_speed.py --before DIR [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
CASES = {
    "lm_forward.sqlite overview, CSV": [DATA / "h200" / "lm_forward.sqlite", "-f", "csv"],
    "lm_forward.sqlite -r cuda_gpu_kern_sum, CSV": [DATA / "h200" / "lm_forward.sqlite", "-r", "cuda_gpu_kern_sum",
                                                    "-f", "csv"],
    "energy_04ex03_stall.sqlite --telemetry ... -r energy_by_category, CSV": [
        DATA / "h100" / "energy_04ex03_stall.sqlite", "--telemetry", DATA / "h100" / "energy_04ex03_stall_telemetry.csv",
        "-r", "energy_by_category", "-f", "csv"],
    "ncu_full_raw.csv -r ncu_summary, CSV": [DATA / "h200" / "ncu_full_raw.csv", "-r", "ncu_summary", "-f", "csv"],
    "nvidia-smi-query-gpu-lms100.csv -r telemetry_summary, CSV": [
        DATA / "h200" / "nvidia-smi-query-gpu-lms100.csv", "-r", "telemetry_summary", "-f", "csv"],
    "torch_encoder_layer.pt.trace.json overview, CSV": [DATA / "h200" / "torch_encoder_layer.pt.trace.json", "-f", "csv"],
}


def cpu_seconds(code: Path, argv: list) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", *map(str, argv)], stdout=subprocess.DEVNULL,
                   cwd=code, env=dict(os.environ, PYTHONPATH=str(code)), check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="a checkout of the code to compare against")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}; median of {args.repeat}")
    print("| command | before CPU s | after CPU s |\n|---|---|---|")
    for name, argv in CASES.items():
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.repeat):
            for label, code in (("before", args.before.resolve()), ("after", REPO)):
                times[label].append(cpu_seconds(code, argv))
        print(f"| {name} | {statistics.median(times['before']):.3f} | {statistics.median(times['after']):.3f} |",
              flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
