"""Energy from NVML's total-energy counter, interpolated with instant power between counter reads.

The counter (millijoules since the driver loaded) is exact but costs about 4 ms of CPU a read, so it
is read at the ends of each span and every few seconds; between reads, energy grows by the integral of instant
power since the last read, and snaps back to the counter at the next one. Where the counter is
unsupported, energy is the integral of power alone, and says so.
"""

from __future__ import annotations

from itertools import repeat
from typing import Iterable, Iterator, Sequence


class EnergyTracker:
    """Energy since the first reading, for one GPU."""

    def __init__(self) -> None:
        self._base_mj: float | None = None        # the first counter value
        self._counter_mj: float | None = None     # the latest counter value
        self._since_counter_j = 0.0               # integral of power since the latest counter read
        self._integral_j = 0.0                    # integral of power since the start
        self._last: tuple[float, float] | None = None  # (t, power_w) of the latest power reading

    def add_power(self, t: float, power_w: float | None) -> None:
        if power_w is None:
            return
        if self._last is not None and t > self._last[0]:
            t0, p0 = self._last
            step = (t - t0) * (p0 + power_w) / 2  # trapezoid
            self._integral_j += step
            self._since_counter_j += step
        self._last = (t, power_w)

    def add_counter(self, t: float, counter_mj: float | None) -> None:
        """A counter read at time t (read it right after the power reading of the same tick)."""
        if counter_mj is None:
            return
        if self._base_mj is None:
            self._base_mj = counter_mj
        self._counter_mj = counter_mj
        self._since_counter_j = 0.0

    @property
    def source(self) -> str:
        return "counter" if self._counter_mj is not None else ("integrated" if self._last else "")

    def energy_j(self) -> float | None:
        if self._counter_mj is not None:
            return (self._counter_mj - self._base_mj) / 1000.0 + self._since_counter_j
        if self._last is not None:
            return self._integral_j
        return None

    def integrated_j(self) -> float:
        """The plain integral of power since the start, whatever the counter says (for comparison)."""
        return self._integral_j


def energy_in_time_order(times: Iterable[float], powers: Iterable[float | None],
                         counters: Sequence[float | None] | None = None) -> Iterator[tuple[float | None, str]]:
    """Energy since the first sample and its source ("counter", "integrated" or ""), sample by sample, for
    samples given in time order: their times, their powers (None: no reading) and, from NVML's raw log,
    their counter reads (None: not read). For a log whose clock went back: made in file order, the running
    total read in time order went up and down, and its last minus its first (what the reports take) was
    anything (0 J for a GPU drawing 400 W). A counter that goes down in time order (the clock stepped back
    while the counter went on) says nothing of the span: energy is then integrated from power alone."""
    if counters is not None:
        read = [c for c in counters if c is not None]
        if any(later < earlier for earlier, later in zip(read, read[1:])):
            counters = None
    tracker = EnergyTracker()
    for t, power_w, counter_mj in zip(times, powers, repeat(None) if counters is None else counters):
        tracker.add_power(t, power_w)
        tracker.add_counter(t, counter_mj)
        yield tracker.energy_j(), tracker.source
