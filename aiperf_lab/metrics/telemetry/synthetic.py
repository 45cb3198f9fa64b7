"""A deterministic telemetry feed of N made-up GPUs: for benchmarks of the console's cost (8 GPUs at
10 Hz without owning 8 GPUs) and for tests. Never shown as real data: its status says so.

The values follow a fixed pattern (a power ramp per GPU, utilization square waves) so a screen drawn
from it is the same every run.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuProcess, GpuSample, GpuStatus, HostSample, Tick
from aiperf_lab.metrics.telemetry.recording import Recording
from aiperf_lab.metrics.telemetry.replay import ReplayFeed

GIB = 1 << 30
LOOP_S = 120.0  # generated once, then replayed in a loop


def synthetic_tick(t: float, gpus: int, limit_w: float = 700.0) -> Tick:
    samples = []
    for i in range(gpus):
        phase = t / 6.0 + i * 0.7
        busy = 1.0 if math.sin(phase) > -0.3 else 0.0
        power = 80.0 + busy * (450.0 + 120.0 * math.sin(phase * 3.1))
        samples.append(GpuSample(
            t=t, index=i, power_w=round(power, 1), power_source="instant", power_avg_w=round(power, 1),
            power_limit_w=limit_w, energy_j=round(t * 300.0 + i, 1), energy_source="counter",
            util_gpu_pct=100.0 * busy, util_mem_pct=round(60.0 * busy, 1), mem_used_bytes=int((8 + 40 * busy) * GIB),
            mem_total_bytes=141 * GIB, temp_c=40.0 + 25.0 * busy, sm_clock_mhz=1980.0 if busy else 345.0,
            mem_clock_mhz=3201.0, clock_event_reasons=0x4 if power > 560 else (0x1 if not busy else 0),
            gpm=_gpm(t, phase, busy)))
    return Tick(t, samples, HostSample(t, 12.5, 40 * GIB, 128 * GIB))


def _gpm(t: float, phase: float, busy: float) -> GpmSample:
    """A made-up GPM window: SM activity well under utilization at times (the small-kernel look)."""
    wave = math.sin(phase * 1.7)
    return GpmSample(round(t, 3), 1.0, graphics_pct=100.0 * busy, sm_active_pct=round(busy * (55.0 + 35.0 * wave), 1),
                     sm_occupancy_pct=round(busy * 28.0, 1), tensor_pct=round(busy * max(0.0, 70.0 * wave), 1),
                     tensor_hmma_pct=round(busy * max(0.0, 70.0 * wave), 1), dram_pct=round(busy * (35.0 - 20.0 * wave), 1),
                     fp64_pct=0.0, fp32_pct=round(busy * 12.0, 1), fp16_pct=round(busy * 3.0, 1),
                     pcie_tx_mibps=round(busy * 40.0, 1), pcie_rx_mibps=round(busy * 900.0, 1))


class SyntheticFeed(ReplayFeed):
    """A looped replay of LOOP_S generated seconds: offers what a Sampler offers the console (devices,
    status, ring, slow, now(), energy_now()), with ReplayFeed's timing and energy bookkeeping."""

    kind = "synthetic"

    def __init__(self, gpus: int = 8, rate_hz: float = 10.0, window_s: float = 600.0,
                 clock: Callable[[], float] = time.monotonic):
        devices = [GpuInfo(i, "Synthetic GPU", f"GPU-synthetic-{i}", 141 * GIB, 700.0, True, True, gpm_reason="",
                           gpm_missing={"nvlink_rx_mibps": "GPM metric not offered (not supported)",
                                        "nvlink_tx_mibps": "GPM metric not offered (not supported)"})
                   for i in range(gpus)]
        ticks = [synthetic_tick(k / rate_hz, gpus) for k in range(int(LOOP_S * rate_hz))]
        super().__init__(Recording(Path("synthetic"), "synthetic", devices, ticks), loop=True, window_s=window_s,
                         clock=clock)
        self.rate_hz = rate_hz
        self.status = f"synthetic data: {gpus} made-up GPUs"
        self.slow = {i: GpuStatus(5, 16, 5, 16, 18, 18, 700.0, [
            GpuProcess(1000 + i, "python3", 40 * GIB, "labuser", "python3 train.py --batch 64", 35.0, 20.0, 30.0, 900.0),
            GpuProcess(2000 + i, "python3", 8 * GIB, "labuser", "python3 serve.py", 80.0, 10.0, 70.0, 2100.0)])
            for i in range(gpus)}

    def fill(self, seconds: float) -> "SyntheticFeed":
        """Ticks for the first `seconds`, at once (a frozen feed for tests and screenshots)."""
        for k in range(int(seconds * self.rate_hz) + 1):
            self.ring.append(synthetic_tick(k / self.rate_hz, len(self.devices)))
        return self
