"""The sampler's own CPU cost (Python: the loop, the tiers' bookkeeping, GPM and processes, the ring, the
recorder) at 10 Hz, against a fake NVML whose calls cost next to nothing, so what is measured is ours
alone. The real calls' costs (2.2-2.4 ms per GPM read, about 4 ms per energy-counter read, tens of
microseconds per other read on an H100/H200) come on top: benchmarks/sampler_cost_gpu.py measures them,
and the whole sampler, on the GPU machine.

Two measures: the sampler running at 10 Hz (process CPU time over wall time, per GPU), and the Python
cost of one tick spaced 100 ms apart as the sampler runs them (caches gone cold in between: a tick costs
several times what it costs back to back), the slower tiers included where they fall due.

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


def per_tick_us(gpm: bool, record: bool, ticks: int, gap_s: float) -> float:
    """Mean CPU microseconds of one tick (Sampler._tick, the slower tiers due as in the loop), one GPU."""
    import statistics

    fake = FakeGpu(gpm=H100_MATMUL_GPM, nvlinks=18, processes=[(os.getpid(), 1 << 30), (1, 1 << 29)],
                   process_utilization=[(os.getpid(), 60, 20), (1, 20, 5)])
    writer = TelemetryWriter(io.StringIO()) if record else None
    sampler = Sampler(10, window_s=60, source=NvmlSource.open(FakeNvml([fake]), gpm=gpm), recorder=writer)
    sampler._t0 = time.monotonic()
    sampler._sample(0, read_counter=True)
    costs = []
    for tick in range(1, ticks + 1):
        if gap_s:
            time.sleep(gap_s)
        start = time.thread_time()
        sampler._tick(tick)
        costs.append(time.thread_time() - start)
    assert not sampler.errors, sampler.errors
    return round(statistics.fmean(costs) * 1e6, 1)


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
    print("\n| GPM | recording | one tick, 100 ms apart, mean (us) |\n|---|---|---|")
    for gpm, record in ((False, False), (True, False), (True, True)):
        print(f"| {'on' if gpm else 'off'} | {'yes' if record else 'no'} | {per_tick_us(gpm, record, 200, 0.1)} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
