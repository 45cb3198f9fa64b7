"""One GPU's power as a function of time on a profile's clock, and its exact integral.

Power between two samples is taken as the straight line joining them (the trapezoid rule), so the
energy of any interval is the exact integral of that piecewise-linear curve: intervals that tile a
span add up to the span's energy to rounding. Where the recording carries NVML's energy counter, the
curve is scaled so that its integral over the whole recording equals the counter's: the counter is
exact, the sampled power only describes how the energy was spread in time.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.energy.clocks import Alignment


@dataclass
class PowerSeries:
    gpu: int
    times_ns: list[int]       # on the profile's clock, strictly increasing
    watts: list[float]
    power_source: str         # "instant" or "average" (the driver's ~1 s average: blurred in time)
    counter_j: float | None   # the energy counter's joules over [times_ns[0], times_ns[-1]]
    scale: float = 1.0        # counter / integral over the recording (1.0 without a counter)
    counter_points: list[tuple[int, float]] | None = None  # (t, energy_j) as recorded, counter-anchored

    def __post_init__(self) -> None:
        cumulative = [0.0]
        for i in range(1, len(self.times_ns)):
            dt = (self.times_ns[i] - self.times_ns[i - 1]) * 1e-9
            cumulative.append(cumulative[-1] + dt * (self.watts[i - 1] + self.watts[i]) / 2)
        self._cumulative = cumulative
        self.integral_j = cumulative[-1]
        if self.counter_j is not None and self.integral_j > 0:
            self.scale = self.counter_j / self.integral_j

    @property
    def start(self) -> int:
        return self.times_ns[0]

    @property
    def end(self) -> int:
        return self.times_ns[-1]

    def period_s(self) -> float:
        """The median time between samples."""
        steps = sorted(b - a for a, b in zip(self.times_ns, self.times_ns[1:]))
        return steps[len(steps) // 2] * 1e-9 if steps else 0.0

    def power_at(self, t: int) -> float:
        i = min(max(bisect_right(self.times_ns, t) - 1, 0), len(self.times_ns) - 2)
        t0, t1 = self.times_ns[i], self.times_ns[i + 1]
        return self.watts[i] + (self.watts[i + 1] - self.watts[i]) * (t - t0) / (t1 - t0)

    def _raw_energy_at(self, t: int) -> float:
        """Integral of the curve from the first sample to t (t clamped to the recording)."""
        if t <= self.times_ns[0]:
            return 0.0
        if t >= self.times_ns[-1]:
            return self._cumulative[-1]
        i = bisect_right(self.times_ns, t) - 1
        t0 = self.times_ns[i]
        return self._cumulative[i] + (t - t0) * 1e-9 * (self.watts[i] + self.power_at(t)) / 2

    def energy_at(self, t: int) -> float:
        """Calibrated joules from the first sample to t."""
        return self._raw_energy_at(t) * self.scale

    def energy(self, a: int, b: int) -> float:
        return (self._raw_energy_at(b) - self._raw_energy_at(a)) * self.scale if b > a else 0.0

    def counter_energy(self, a: int, b: int) -> float | None:
        """Joules over [a, b] from the recorded energy column (the counter, read every few seconds,
        grown by instant power in between), interpolated linearly at both ends; None without a counter."""
        points = self.counter_points
        if not points or a < points[0][0] or b > points[-1][0]:
            return None
        times = [p[0] for p in points]

        def at(t: int) -> float:
            i = min(max(bisect_right(times, t) - 1, 0), len(points) - 2)
            (t0, e0), (t1, e1) = points[i], points[i + 1]
            return e0 + (e1 - e0) * (t - t0) / (t1 - t0) if t1 > t0 else e0

        return at(b) - at(a)

    def peak(self, a: int, b: int) -> float | None:
        """The highest power in [a, b]: the samples inside and the curve at both ends."""
        a, b = max(a, self.start), min(b, self.end)
        if b < a:
            return None
        inside = self.watts[bisect_left(self.times_ns, a):bisect_right(self.times_ns, b)]
        return max([*inside, self.power_at(a), self.power_at(b)])


def series_from_recording(recording, gpu: int, alignment: Alignment) -> PowerSeries:
    """The power samples of one GPU of a telemetry Recording, moved onto the profile's clock."""
    times: list[int] = []
    watts: list[float] = []
    energies: list[tuple[int, float]] = []
    sources: set[str] = set()
    counter = True
    for tick in recording.ticks:
        for s in tick.gpus:
            if s.index != gpu or s.lost or s.power_w is None:
                continue
            t = alignment.to_profile_ns(s.t)
            if times and t <= times[-1]:
                continue  # a repeated or backwards time: keep the first
            times.append(t)
            watts.append(s.power_w)
            sources.add(s.power_source or "average")
            if s.energy_j is not None:
                energies.append((t, s.energy_j))
            counter = counter and s.energy_source == "counter"
    if len(times) < 2:
        raise InputError(f"{recording.path.name}: GPU {gpu} has fewer than two power samples")
    counter_j = None
    if counter and energies and energies[0][0] == times[0] and energies[-1][0] == times[-1]:
        counter_j = energies[-1][1] - energies[0][1]
    source = "instant" if sources == {"instant"} else "average"
    return PowerSeries(gpu, times, watts, source, counter_j, counter_points=energies if counter_j is not None else None)
