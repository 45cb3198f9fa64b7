"""Putting telemetry samples and profiler events on one clock.

Every source carries a UTC anchor for its own time zero:

- telemetry.csv (aiperf layout): `utc_ns` per row, the sampler's start read on the system clock plus
  `t_s` on its monotonic clock;
- nsys export: `TARGET_INFO_SESSION_START_TIME.utcEpochNs` (every export since 2021.3; 2024+ adds
  `systemClockNs`), event timestamps being nanoseconds after it;
- PyTorch (Kineto) trace: `baseTimeNanoseconds`, event `ts` being microseconds after it.

Both anchors are readings of the same host's system clock, so the offset between the two timelines is
exact up to (a) the reading skew of each anchor (microseconds) and (b) how far the two monotonic
clocks drift apart between the two anchors (NTP slews the system clock by at most 500 ppm, typically
far less). `lag_estimate` checks the result from the data: the shift of the power series that best
matches GPU activity, whose size bounds the residual error (the power sensor's own delay included).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from aiperf_lab.errors import InputError

MAX_SLEW_PPM = 500  # the most NTP slews a Linux system clock (adjtimex's limit)


@dataclass(frozen=True)
class ProfileClock:
    """UTC ns of a profile's time zero, and where that came from."""

    epoch_ns: int
    source: str          # e.g. "TARGET_INFO_SESSION_START_TIME.utcEpochNs"


def nsys_clock(db) -> ProfileClock:
    """The session start of an nsys export; InputError when the export has none (2020-2021 files)."""
    table = "TARGET_INFO_SESSION_START_TIME"
    if not db.has(table) or "utcEpochNs" not in db.columns(table):
        raise InputError(f"{db.path.name}: the export has no session start time ({table}.utcEpochNs, written by "
                         "nsys 2021.3 and later): its timeline cannot be lined up with telemetry")
    rows = db.query(f"SELECT utcEpochNs FROM {table} WHERE utcEpochNs IS NOT NULL LIMIT 1")
    if not rows or not isinstance(rows[0][0], int) or rows[0][0] <= 0:
        raise InputError(f"{db.path.name}: {table}.utcEpochNs is empty: the timeline cannot be lined up")
    return ProfileClock(rows[0][0], f"{table}.utcEpochNs")


def kineto_clock(trace) -> ProfileClock:
    if trace.base_time_ns is None:
        raise InputError(f"{trace.path.name}: the trace has no baseTimeNanoseconds (PyTorch before 2.0?): its "
                         "timeline cannot be lined up with telemetry")
    return ProfileClock(trace.base_time_ns, "baseTimeNanoseconds")


@dataclass(frozen=True)
class Alignment:
    """Telemetry time t_s (seconds) -> profile time (ns): profile_ns = round(t_s * 1e9) + offset_ns."""

    offset_ns: int
    telemetry_origin_utc_ns: int
    profile_epoch_ns: int
    profile_source: str

    def to_profile_ns(self, t_s: float) -> int:
        return round(t_s * 1e9) + self.offset_ns

    def error_bound_ns(self, span_ns: int) -> int:
        """Worst-case error over a span: the 0.1 ms rounding of t_s halved, plus the most two monotonic
        clocks can drift apart (one slewed by NTP at its 500 ppm limit, one not) from the earlier anchor
        to the span's end. Typical NTP slews are a tenth of that or less."""
        reach = abs(self.telemetry_origin_utc_ns - self.profile_epoch_ns) + span_ns
        return 50_000 + reach * MAX_SLEW_PPM // 1_000_000

    def describe(self) -> str:
        gap_s = (self.telemetry_origin_utc_ns - self.profile_epoch_ns) / 1e9
        return (f"clocks: telemetry utc_ns and the profile's {self.profile_source}; the sampler started "
                f"{gap_s:+.3f} s from the profile's time zero")


def no_clock(telemetry_name: str) -> InputError:
    """The refusal of a recording that has no absolute clock to line up with a profile."""
    return InputError(f"{telemetry_name}: the recording has no absolute clock (no utc_ns column with a clock "
                      "reading: recorded by an older aiperf-lab, or a raw NVML / nvidia-smi log): it cannot be "
                      "lined up with a profile")


def refuse_clockless_header(telemetry_name: str) -> Callable[[str, list[str]], None]:
    """read_recording's on_header: refuses a recording whose header already says it has no absolute clock
    (another layout than ours, or ours without a utc_ns column) before its rows are read."""
    def check(layout: str, header: list[str]) -> None:
        if layout != "aiperf" or "utc_ns" not in header:
            raise no_clock(telemetry_name)
    return check


def align(telemetry_origin_utc_ns: int | None, clock: ProfileClock, telemetry_name: str = "telemetry") -> Alignment:
    if telemetry_origin_utc_ns is None:
        raise no_clock(telemetry_name)
    return Alignment(telemetry_origin_utc_ns - clock.epoch_ns, telemetry_origin_utc_ns, clock.epoch_ns, clock.source)


def union_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching (start, end) intervals merged, in order."""
    merged: list[list[int]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _busy_fraction(intervals: Sequence[tuple[int, int]], start: int, step: int, count: int) -> list[float]:
    """Per bin of `step` ns from `start`, the fraction covered by the union of `intervals`."""
    bins = [0.0] * count
    for a, b in union_intervals(intervals):
        first, last = max(0, (a - start) // step), min(count - 1, (b - start) // step)
        for i in range(first, last + 1):
            lo, hi = start + i * step, start + (i + 1) * step
            overlap = min(b, hi) - max(a, lo)
            if overlap > 0:
                bins[i] += overlap / step
    return bins


def _correlation(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    if n < 3:
        return 0.0
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else 0.0


def lag_estimate(times_ns: Sequence[int], watts: Sequence[float], busy: Iterable[tuple[int, int]],
                 max_lag_ns: int = 250_000_000, bins: int = 4000) -> tuple[int, float] | None:
    """(lag, correlation): the shift of the power series (on the profile clock) that best lines it up
    with GPU activity; positive lag = power changes that much after the activity. Searched in steps of
    the bin width (span / `bins`, at least 1 ms). None when the activity does not vary enough to tell
    (a GPU busy or idle throughout)."""
    if len(times_ns) < 4:
        return None
    start, end = times_ns[0], times_ns[-1]
    step = max(1_000_000, (end - start) // bins)
    count = int((end - start) // step)
    if count < 8:
        return None
    activity = _busy_fraction(list(busy), start, step, count)
    if max(activity) - min(activity) < 0.5:
        return None
    reach = int(max_lag_ns // step)
    # power on the bin grid, reach bins beyond each end (held flat outside the samples)
    grid, i = [], 0
    last = len(times_ns) - 1
    for k in range(-reach, count + reach):
        t = start + k * step + step // 2
        while i < last and times_ns[i + 1] <= t:
            i += 1
        if t <= times_ns[0]:
            grid.append(watts[0])
        elif i >= last:
            grid.append(watts[-1])
        else:
            t0, t1 = times_ns[i], times_ns[i + 1]
            grid.append(watts[i] + (watts[i + 1] - watts[i]) * (t - t0) / (t1 - t0))
    scores: dict[int, float] = {}

    def score(shift: int) -> float:
        if shift not in scores:
            scores[shift] = _correlation(activity, grid[reach + shift: reach + shift + count])
        return scores[shift]

    # coarse, then finer around the best: about 25 shifts each side, then ten times finer until every shift
    stride = max(1, reach // 25)
    best = max(range(-reach, reach + 1, stride), key=score)
    while stride > 1:
        finer = max(1, stride // 10)
        best = max(range(max(-reach, best - stride), min(reach, best + stride) + 1, finer), key=score)
        stride = finer
    return best * step, score(best)
