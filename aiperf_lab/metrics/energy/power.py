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
from functools import cached_property
from itertools import accumulate, compress, repeat
from operator import add, eq, lt, mul, sub, truediv

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
        # the running integral: cumulative[i] = cumulative[i - 1] + dt * (w[i - 1] + w[i]) / 2, in C
        times, watts = self.times_ns, self.watts
        steps = map(mul, map(sub, times[1:], times[:-1]), repeat(1e-9))
        cumulative = list(accumulate(map(truediv, map(mul, steps, map(add, watts[:-1], watts[1:])), repeat(2)),
                                     initial=0.0))
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
        """The median time between samples (worked out once: a report asks it per range name)."""
        return self._period_s

    @cached_property
    def _period_s(self) -> float:
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

    def energies(self, intervals: list[tuple[int, int]]) -> list[float]:
        """energy(a, b) for each (a, b), the same arithmetic in one loop: 100,000 ranges without
        six calls each."""
        times, watts, cumulative, scale = self.times_ns, self.watts, self._cumulative, self.scale
        first, last, whole = times[0], times[-1], cumulative[-1]

        def raw(t: int) -> float:  # _raw_energy_at, with power_at's search done once
            if t <= first:
                return 0.0
            if t >= last:
                return whole
            i = bisect_right(times, t) - 1
            t0, w0 = times[i], watts[i]
            power = w0 + (watts[i + 1] - w0) * (t - t0) / (times[i + 1] - t0)
            return cumulative[i] + (t - t0) * 1e-9 * (w0 + power) / 2

        return [(raw(b) - raw(a)) * scale if b > a else 0.0 for a, b in intervals]

    def peaks(self, intervals: list[tuple[int, int]]) -> list[float | None]:
        """peak(a, b) for each (a, b)."""
        times, watts, top = self.times_ns, self.watts, self._samples_max.of
        first, last, penultimate = times[0], times[-1], len(times) - 2

        def power(t: int, i: int) -> float:  # power_at, given bisect_right(times, t)
            i = min(max(i - 1, 0), penultimate)
            t0, w0 = times[i], watts[i]
            return w0 + (watts[i + 1] - w0) * (t - t0) / (times[i + 1] - t0)

        found: list[float | None] = []
        for a, b in intervals:
            a, b = max(a, first), min(b, last)
            if b < a:
                found.append(None)
                continue
            lo, hi = bisect_left(times, a), bisect_right(times, b)
            ends = max(power(a, bisect_right(times, a)), power(b, hi))
            inside = top(lo, hi)
            found.append(ends if inside is None else max(inside, ends))
        return found

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
        inside = self._samples_max.of(bisect_left(self.times_ns, a), bisect_right(self.times_ns, b))
        ends = max(self.power_at(a), self.power_at(b))
        return ends if inside is None else max(inside, ends)

    @cached_property
    def _samples_max(self) -> "RangeMax":
        return RangeMax(self.watts)


class RangeMax:
    """The largest of values[i:j] for any i, j in O(BLOCK) steps (done by C's max over a slice), not
    O(j - i): the maxima of blocks of BLOCK values, and of runs of 2^k blocks (a sparse table: BLOCK
    times fewer entries than one over the values themselves, built with map() in C). 100,000 ranges
    over a 900,000-sample recording then cost 100,000 short slices, not 10^11 comparisons."""

    BLOCK = 64

    def __init__(self, values: list[float]):
        self._values = values
        size = self.BLOCK
        level = [max(values[i:i + size]) for i in range(0, len(values) - size + 1, size)]  # whole blocks
        self._levels = [level]
        width, blocks = 1, len(level)
        while 2 * width <= blocks:
            level = list(map(max, level[:-width], level[width:]))  # runs of 2 * width blocks
            self._levels.append(level)
            width *= 2

    def of(self, i: int, j: int) -> float | None:
        """max(values[i:j]); None when the slice is empty."""
        size, j = self.BLOCK, min(j, len(self._values))
        first, last = -(-i // size), j // size          # the whole blocks inside [i, j)
        if last - first < 1:
            return max(self._values[i:j], default=None)
        k = (last - first).bit_length() - 1
        level = self._levels[k]
        best = max(level[first], level[last - (1 << k)])
        if i < first * size:
            best = max(best, max(self._values[i:first * size]))
        if last * size < j:
            best = max(best, max(self._values[last * size:j]))
        return best


def series_from_recording(recording, gpu: int, alignment: Alignment) -> PowerSeries:
    """The power samples of one GPU of a telemetry Recording, moved onto the profile's clock (a repeated
    or backwards time: the first sample kept)."""
    series = recording.series(gpu)
    has_power = list(map(eq, series.power_w, series.power_w))  # NaN: no reading
    times = list(map(alignment.to_profile_ns, compress(series.t, has_power)))
    watts = list(compress(series.power_w, has_power))
    energy_j = list(compress(series.energy_j, has_power))
    power_sources = list(compress(series.power_source, has_power))
    energy_sources = list(compress(series.energy_source, has_power))
    if not all(map(lt, times, times[1:])):
        kept, last = [], None
        for k, t in enumerate(times):
            if last is None or t > last:
                kept.append(k)
                last = t
        times, watts, energy_j, power_sources, energy_sources = (
            list(map(column.__getitem__, kept)) for column in (times, watts, energy_j, power_sources, energy_sources))
    if len(times) < 2:
        raise InputError(f"{recording.path.name}: GPU {gpu} has fewer than two power samples")
    has_energy = list(map(eq, energy_j, energy_j))
    energies = list(zip(compress(times, has_energy), compress(energy_j, has_energy)))
    counter = all(map(eq, energy_sources, repeat("counter")))
    counter_j = None
    if counter and energies and energies[0][0] == times[0] and energies[-1][0] == times[-1]:
        counter_j = energies[-1][1] - energies[0][1]
    sources = {source or "average" for source in set(power_sources)}
    source = "instant" if sources == {"instant"} else "average"
    return PowerSeries(gpu, times, watts, source, counter_j, counter_points=energies if counter_j is not None else None)
