"""An energy meter for a span of work: joules per GPU, average and peak power, optional idle baseline
subtracted, and work per joule when the caller says how much work was done."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from aiperf_lab.metrics.telemetry.feed import TelemetryFeed


@dataclass
class GpuEnergy:
    index: int
    joules: float | None
    source: str                     # "counter" (NVML total energy) or "integrated" (power integral)
    duration_s: float
    avg_power_w: float | None       # joules / duration
    peak_power_w: float | None      # highest power sample inside the span
    baseline_w: float | None = None
    net_joules: float | None = None  # joules minus baseline x duration
    work_per_joule: float | None = None


@dataclass
class EnergyResult:
    duration_s: float
    per_gpu: list[GpuEnergy]
    work: float | None = None
    work_unit: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def joules(self) -> float | None:
        values = [g.joules for g in self.per_gpu if g.joules is not None]
        return sum(values) if values else None

    def as_dict(self) -> dict[str, Any]:
        return {"duration_s": self.duration_s, "joules": self.joules, "work": self.work,
                "work_unit": self.work_unit, "notes": self.notes,
                "per_gpu": [vars(g) for g in self.per_gpu]}


class EnergySpan:
    """Begin and end marks on a feed (a live Sampler or a replay); `result()` once ended."""

    def __init__(self, feed: "TelemetryFeed", idle_baseline_w: dict[int, float] | None = None):
        self.feed = feed
        self.baseline = idle_baseline_w or {}
        self.t0 = self.t1 = None
        self.e0 = self.e1 = None

    def begin(self) -> None:
        self.e0 = self.feed.energy_now()
        self.t0 = self.feed.now()

    def end(self) -> None:
        self.t1 = self.feed.now()
        self.e1 = self.feed.energy_now()

    def result(self, work: float | None = None, work_unit: str = "") -> EnergyResult:
        if self.t1 is None:
            self.end()
        duration = max(self.t1 - self.t0, 0.0)
        _version, ticks = self.feed.ring.snapshot()
        peaks: dict[int, float] = {}
        for tick in ticks:
            if self.t0 <= tick.t <= self.t1:
                for s in tick.gpus:
                    if s.power_w is not None and s.power_w > peaks.get(s.index, float("-inf")):
                        peaks[s.index] = s.power_w
        per_gpu = []
        for info, (start, source), (stop, _) in zip(self.feed.devices, self.e0, self.e1):
            joules = stop - start if start is not None and stop is not None else None
            baseline = self.baseline.get(info.index)
            net = joules - baseline * duration if joules is not None and baseline is not None else None
            per_gpu.append(GpuEnergy(
                info.index, joules, source, duration,
                joules / duration if joules is not None and duration > 0 else None,
                peaks.get(info.index), baseline, net,
                work / joules if work is not None and joules else None))
        notes = []
        if duration < 1.0:
            notes.append("span shorter than 1 s: the energy counter's mJ steps and the sampling period "
                         "weigh on the figures")
        return EnergyResult(duration, per_gpu, work, work_unit, notes)


@contextmanager
def measure(feed: "TelemetryFeed", idle_baseline_w: dict[int, float] | None = None) -> Iterator[EnergySpan]:
    """Energy meter for the work inside a `with` block, on any feed (live sampler or replay)."""
    span = EnergySpan(feed, idle_baseline_w)
    span.begin()
    try:
        yield span
    finally:
        span.end()
