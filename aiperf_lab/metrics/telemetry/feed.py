"""The contract every telemetry feed meets (the live Sampler, ReplayFeed, SyntheticFeed), and the
arithmetic screens and runners do on a feed, kept here where it is tested without a terminal."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuStatus, Tick
from aiperf_lab.metrics.telemetry.ring import RingBuffer


@runtime_checkable
class TelemetryFeed(Protocol):
    """What the console, the runner and triage read. Times are seconds on the feed's own clock
    (`now()`, the samples' `t`)."""

    kind: str                       # "nvml", "replay" or "synthetic"
    devices: list[GpuInfo]          # one per GPU, fixed while the feed runs
    status: str                     # "" when live GPUs are read, else one line saying what this feed is
    ring: RingBuffer                # the recent ticks, newest last
    slow: dict[int, GpuStatus]      # per GPU: links, power limit, processes (read every couple of seconds)

    def now(self) -> float: ...

    def energy_now(self) -> list[tuple[float | None, str]]:
        """(joules since the feed started, source) per device, in `devices` order."""
        ...

    def measure(self, idle_baseline_w: dict[int, float] | None = None) -> Any: ...

    def start(self) -> Any: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


def energy_between(feed: TelemetryFeed, t_start: float, t_end: float) -> float | None:
    """Joules all GPUs used between two times on the feed's clock, from the samples in its ring: per GPU,
    the energy of the last sample at or before `t_end` minus that of the last sample at or before
    `t_start` (the first sample after it when the ring starts later). None when no GPU has two samples
    in the span (or the span fell out of the ring)."""
    if t_end < t_start:
        return None
    _version, ticks = feed.ring.snapshot()
    return energy_in_ticks(ticks, t_start, t_end)


def energy_in_ticks(ticks: list[Tick], t_start: float, t_end: float) -> float | None:
    start: dict[int, tuple[float, float]] = {}
    end: dict[int, tuple[float, float]] = {}
    for tick in ticks:
        if tick.t > t_end:
            break
        for s in tick.gpus:
            if s.energy_j is None:
                continue
            if s.t <= t_start or s.index not in start:
                start[s.index] = (s.t, s.energy_j)
            end[s.index] = (s.t, s.energy_j)
    total = None
    for index, (t0, e0) in start.items():
        t1, e1 = end[index]
        if t1 > t0 and t1 >= t_start:
            total = (total or 0.0) + (e1 - e0)
    return total
