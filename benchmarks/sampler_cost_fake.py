"""The sampler's own CPU cost (Python: the loop, the GPM and process bookkeeping, the ring, the recorder)
at 10 Hz, against a fake NVML whose calls cost nothing, so what is measured is ours alone. The real
calls' costs (about 0.8 ms per GPM read, 4 ms per energy-counter read on an H200/H100) come on top:
benchmarks/gpm_verify.py measures them on the GPU machine.

    python benchmarks/sampler_cost_fake.py [--seconds 20] [--gpus 1 8]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_nvml import H100_MATMUL_GPM, FakeGpu, FakeNvml  # noqa: E402

from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource  # noqa: E402
from aiperf_lab.metrics.telemetry.recording import TelemetryWriter  # noqa: E402
from aiperf_lab.metrics.telemetry.sampler import Sampler  # noqa: E402


def cost(gpus: int, seconds: float, gpm: bool, record: bool) -> float:
    fakes = [FakeGpu(gpm=H100_MATMUL_GPM, processes=[(os.getpid(), 1 << 30), (1, 1 << 29)],
                     process_utilization=[(os.getpid(), 60, 20), (1, 20, 5)]) for _ in range(gpus)]
    writer = TelemetryWriter(io.StringIO()) if record else None
    sampler = Sampler(10, window_s=seconds + 5, source=NvmlSource.open(FakeNvml(fakes), gpm=gpm), recorder=writer)
    sampler.start()
    # process CPU time (ns resolution; psutil's per-thread times tick at 10 ms): the main thread only sleeps
    c0, t0 = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    c1, t1 = time.process_time(), time.perf_counter()
    sampler.close()
    assert not sampler.errors, sampler.errors
    return 100.0 * (c1 - c0) / (t1 - t0) / gpus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--gpus", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    print("| GPUs | GPM | recording | sampler CPU (process), % of one core per GPU |")
    print("|---|---|---|---|")
    for gpus in args.gpus:
        for gpm, record in ((False, False), (True, False), (True, True)):
            print(f"| {gpus} | {'on' if gpm else 'off'} | {'yes' if record else 'no'} | "
                  f"{cost(gpus, args.seconds, gpm, record):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
