"""telemetry_summary: per device, what a run cost and how the GPU behaved; telemetry_findings: what its
activity signals (GPM) say, by the rules of activity.py."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from functools import reduce
from itertools import chain, compress, islice, repeat
from operator import add, and_, attrgetter, eq, ge, is_not, itemgetter, le, mul, sub
from typing import Callable, Sequence

from aiperf_lab.metrics.tables import Table
from aiperf_lab.metrics import activity
from aiperf_lab.metrics.telemetry.columns import Series, series_of_ticks
from aiperf_lab.metrics.telemetry.model import CLOCK_EVENT_REASONS, GPM_NAMES, GpmSample, GpuInfo, GpuSample, Tick


def _reason_column(name: str) -> str:
    return "clock_event_" + name.replace(" ", "_").replace("(", "").replace(")", "") + "_pct"


REASON_COLUMNS = {bit: _reason_column(name) for bit, name in CLOCK_EVENT_REASONS.items()}
GPM_COLUMNS = {name: name.replace("_pct", "_avg_pct").replace("_mibps", "_avg_mibps") for name in GPM_NAMES}
# Shares of the time with GPM values (rules and thresholds: activity.py)
SHARE_COLUMNS = ["sm_active_low_time_pct", "tensor_idle_time_pct", "dram_high_time_pct"]
COLUMNS = ["device", "samples", "duration_s", "avg_power_w", "peak_power_w", "energy_j", "energy_source",
           "util_gpu_avg_pct", "util_mem_avg_pct", "mem_used_peak_bytes", "temp_max_c", "sm_clock_avg_mhz",
           *REASON_COLUMNS.values(), *GPM_COLUMNS.values(), *SHARE_COLUMNS]


def covering_windows(series: list[GpuSample]) -> list[GpmSample | None]:
    """Per sample (in time order), the GPM window whose span holds the sample's time, or None. A sample
    carries the latest window read before it, which describes the seconds before: paired with the
    sample's own utilization it would lag by up to a window (the sampler reads GPM every 2 s).
    Windows with the same (end, length) are one window: the last sample's object stands for it."""
    return covering_windows_of(_column(series, "t"), _column(series, "gpm"))


def covering_windows_of(times: Sequence[float], gpms: list[GpmSample | None]) -> list[GpmSample | None]:
    """covering_windows of samples given as columns: their times and the windows they carry."""
    # the distinct objects (rows share their window's), by identity in C, first seen and last seen first
    # (those of the runs of one object: the same, in the same orders)
    run_gpms = _runs(gpms)[2]
    first_seen = dict(zip(map(id, run_gpms), run_gpms)).values()
    last_seen = dict(zip(map(id, reversed(run_gpms)), reversed(run_gpms))).values()
    latest: dict[tuple[float, float], GpmSample] = {}
    for g in last_seen:
        if g is not None:
            latest.setdefault((g.t, g.window_s), g)
    distinct = {(g.t, g.window_s): None for g in first_seen if g is not None}
    windows = sorted((latest[key] for key in distinct), key=lambda g: g.t)
    if not windows:   # no GPM (an nvidia-smi log, a recording without it): no window covers any sample
        return [None] * len(times)
    if not all(map(le, times, islice(times, 1, None))):
        return _covering_windows_unsorted(times, windows)
    # sorted samples: each one's window is the first ending at or after it, if that window began by
    # then. t - 1e-6 and t + 1e-6 are in order as the times are, so the samples whose first window is
    # window j are one run, found by binary searches per window (not per sample), and those of the run
    # it covers are the run's end from the first with t + 1e-6 >= its start.
    # (doubles in arrays: 8 bytes a sample, where a list of floats takes 32)
    before = array("d", map(sub, times, repeat(1e-6)))
    after = array("d", map(add, times, repeat(1e-6)))
    found: list[GpmSample | None] = []
    low = 0
    for g in windows:
        high = bisect_right(before, g.t, low)        # the samples with t - 1e-6 <= the window's end
        covered = max(low, bisect_left(after, g.t - g.window_s, low, high))
        found += repeat(None, covered - low)
        found += repeat(g, high - covered)
        low = high
    found += repeat(None, len(times) - low)         # after the last window's end
    return found


def _runs(items: list) -> tuple[list[int], list[int], list]:
    """(starts, ends, objects) of the runs of one object (`is`) in `items`, found in C."""
    count = len(items)
    starts = [0, *compress(range(1, count), map(is_not, islice(items, 1, None), items))] if count else []
    return starts, [*starts[1:], count], list(map(items.__getitem__, starts))


def _covering_windows_unsorted(times: list[float], windows: list[GpmSample]) -> list[GpmSample | None]:
    found: list[GpmSample | None] = []
    k = 0
    for t in times:
        while k < len(windows) and windows[k].t < t - 1e-6:
            k += 1
        window = windows[k] if k < len(windows) else None
        found.append(window if window is not None and window.t - window.window_s <= t + 1e-6 else None)
    return found




def _column(items: list, name: str) -> list:
    """getattr(item, name) of every item, in C."""
    return list(map(attrgetter(name), items))


def _weighted_mean(values: list, weights: list[float]) -> float | None:
    """sum(v * w) / sum(w) over the values that are not None: the same sums, in the same order, as a
    loop over the pairs, done in C (a long recording has a million samples per column)."""
    present = list(map(is_not, values, repeat(None)))
    kept, kept_weights = list(compress(values, present)), list(compress(weights, present))
    total = sum(kept_weights)
    return sum(map(mul, kept, kept_weights)) / total if kept and total > 0 else None


def _readings(values: Sequence[float]):
    """The values that are readings (NaN is not equal to itself), in order, as they are asked for."""
    return compress(values, map(eq, values, values))


def _max_reading(values: Sequence[float]) -> float | None:
    """max() of the readings, None where there is none (no list of them is made)."""
    return max(_readings(values), default=None)


def _weighted_mean_of_readings(values: Sequence[float], weights: Sequence[float]) -> float | None:
    """_weighted_mean of a column with NaN where a sample has no reading (columns.Series): the same sums
    over the same pairs, taken as they come (no list of the readings or of their weights is made). Which
    samples have a reading is found once, a byte a sample; where all have one, the columns are read as
    they are (compress of all-true gives back the same values in the same order)."""
    has = bytes(map(eq, values, values))
    if 1 not in has:
        return None
    if 0 not in has:
        total = sum(weights)
        return sum(map(mul, values, weights)) / total if total > 0 else None
    total = sum(compress(weights, has))
    return sum(map(mul, compress(values, has), compress(weights, has))) / total if total > 0 else None


class _WindowMeans:
    """Time-weighted means of GPM metrics over samples, each sample taking the metric of the window that
    covers it (a missing window: every metric None): _weighted_mean of those columns, computed from the
    few distinct windows (the samples that have a value are the same for metrics read together).

    The samples are taken a run at a time (consecutive samples covered by one window), and the runs whose
    window reads 0 add nothing: their products are 0.0 (or -0.0), and adding either to a running total
    that starts at 0 and so is never -0.0 leaves it as it was. The same sum, in the same order."""

    def __init__(self, windows: list[GpmSample | None], weights: list[float]):
        starts, self._run_ends, run_windows = _runs(windows)
        distinct = {id(g): g for g in run_windows}
        position = {key: k for k, key in enumerate(distinct)}
        self._distinct = list(distinct.values())
        self._run_which = list(map(position.__getitem__, map(id, run_windows)))
        self._starts = starts
        self._weights = weights
        # per pattern of windows that have the metric: the runs kept, their weights, the weights' sum
        self._kept: dict[tuple[bool, ...], tuple[list[int], list[list[float]], float]] = {}

    def mean(self, name: str) -> float | None:
        table = [getattr(g, name) if g is not None else None for g in self._distinct]
        has = tuple(v is not None for v in table)
        if has not in self._kept:
            runs = list(compress(range(len(self._starts)), map(has.__getitem__, self._run_which)))
            slices = [self._weights[self._starts[r]:self._run_ends[r]] for r in runs]
            self._kept[has] = (runs, slices, sum(chain.from_iterable(slices)))
        runs, slices, total = self._kept[has]
        if not runs or not total > 0:
            return None
        values = [table[self._run_which[r]] for r in runs]
        nonzero = list(map(bool, values))
        products = map(map, repeat(mul), map(repeat, compress(values, nonzero)), compress(slices, nonzero))
        return sum(chain.from_iterable(products)) / total


def _covering(series: Series) -> list[GpmSample | None]:
    """covering_windows_of the series, worked out once for it."""
    if "covering" not in series.derived:
        series.derived["covering"] = covering_windows_of(series.t, series.gpm)
    return series.derived["covering"]


def _sum_where(weights: list[float], flags) -> float:
    """0.0 plus each weight whose flag is set, in order (the running total a loop keeps), in C."""
    return reduce(add, compress(weights, flags), 0.0)


def _time_shares(series: Series, windows: list[GpmSample | None], weights: list[float]) -> list[float | None]:
    """Shares of the GPM-covered time: utilization high with SM activity low; SMs busy with tensor cores
    idle; DRAM bandwidth high. `windows`: covering_windows of the series. Each share is the running
    total of the weights of the samples that meet it, as a loop over the samples adds them."""
    # per distinct window: (covered, SM activity low, tensor idle, DRAM high)
    flags: dict[int, tuple[bool, bool, bool, bool]] = {}
    starts, ends, run_windows = _runs(windows)
    for g in {id(g): g for g in run_windows}.values():
        if g is None or g.sm_active_pct is None:
            flags[id(g)] = (False, False, False, False)
        else:
            flags[id(g)] = (True, g.sm_active_pct < activity.SM_ACTIVE_LOW_PCT,
                            g.tensor_pct is not None and g.sm_active_pct >= activity.SM_BUSY_PCT and
                            g.tensor_pct < activity.TENSOR_IDLE_PCT,
                            g.dram_pct is not None and g.dram_pct >= activity.DRAM_BOUND_PCT)
    per_run = list(map(flags.__getitem__, map(id, run_windows)))
    lengths = list(map(sub, ends, starts))

    def sample_flags(n: int):
        """Flag n of each sample, as they are asked for (the runs' flags repeated)."""
        return chain.from_iterable(map(repeat, map(itemgetter(n), per_run), lengths))
    covered = _sum_where(weights, sample_flags(0))
    if covered <= 0:
        return [None, None, None]
    # utilization >= UTIL_HIGH_PCT (a missing reading counts as 0, NaN compares false: both below it)
    util_high = map(ge, series.util_gpu_pct, repeat(activity.UTIL_HIGH_PCT))
    low = _sum_where(weights, map(and_, map(and_, sample_flags(0), sample_flags(1)), util_high))
    idle = _sum_where(weights, map(and_, sample_flags(0), sample_flags(2)))
    dram = _sum_where(weights, map(and_, sample_flags(0), sample_flags(3)))
    return [round(100.0 * part / covered, 2) for part in (low, idle, dram)]


def _first_reading(values: Sequence[float]) -> int:
    """The index of the first value that is a reading (not NaN); the series has one."""
    return next(k for k, v in enumerate(values) if v == v)


def _last_reading(values: Sequence[float]) -> int:
    """The index of the last value that is a reading (not NaN); the series has one."""
    return len(values) - 1 - next(k for k, v in enumerate(reversed(values)) if v == v)


def _series_source(devices: list[GpuInfo], ticks: list[Tick] | None,
                   series_of: Callable[[int], Series] | None) -> Callable[[int], Series]:
    if series_of is not None:
        return series_of
    return lambda index: series_of_ticks(ticks or [], index)


def _weights(times: Sequence[float]) -> Sequence[float]:
    """Each sample's weight: the time to the next (the last: 0). Times in an array of doubles (a
    recording's columns) give an array of doubles: 8 bytes a sample, where a list takes 32."""
    if isinstance(times, array):
        weights = array("d", map(sub, islice(times, 1, None), times))
        weights.append(0.0)
        return weights
    return list(map(sub, times[1:], times[:-1])) + [0.0]


def telemetry_summary(devices: list[GpuInfo], ticks: list[Tick] | None = None, *,
                      series_of: Callable[[int], Series] | None = None) -> Table:
    """Per device: duration, average and peak power, energy (counter where recorded, else integrated),
    mean utilization, peak memory, hottest temperature, and the share of time under each clock-event
    reason. Means and shares are time-weighted (each sample stands for the time to the next).
    The samples: each device's from `ticks`, or `series_of(index)` (a recording's columns)."""
    series_of = _series_source(devices, ticks, series_of)
    rows = []
    notes = []
    for info in devices:
        series = series_of(info.index)
        if not len(series):
            continue
        times = series.t
        duration = times[-1] - times[0]
        weights = _weights(times)
        if duration <= 0:
            weights = [1.0] * len(series)

        windows = _covering(series)
        window_means = _WindowMeans(windows, weights)

        def mean(values: Sequence[float]) -> float | None:
            value = _weighted_mean_of_readings(values, weights)
            return round(value, 2) if value is not None else None

        def window_mean(attr: str) -> float | None:
            value = window_means.mean(attr)
            return round(value, 2) if value is not None else None

        # the first and the last energy reading (no list of the readings: the report holds a row a device)
        energy, source = None, ""
        if any(map(eq, series.energy_j, series.energy_j)):
            first, last = _first_reading(series.energy_j), _last_reading(series.energy_j)
            energy = series.energy_j[last] - series.energy_j[first] if last > first else None
            source = series.energy_source[last]
        peak_power = _max_reading(series.power_w)
        peak_source = set(compress(series.power_source, map(eq, series.power_w, series.power_w)))
        masks = series.clock_event_reasons
        distinct_masks = set(masks)
        reason_time = {}
        for bit in CLOCK_EVENT_REASONS:
            has_bit = {mask: bool(mask and mask & bit) for mask in distinct_masks}
            # (a reason no sample has: the loop would add nothing to 0.0)
            reason_time[bit] = _sum_where(weights, map(has_bit.__getitem__, masks)) if any(has_bit.values()) else 0.0
        total_weight = sum(weights) or 1.0
        mem_peak, temp_max = _max_reading(series.mem_used_bytes), _max_reading(series.temp_c)
        rows.append([
            info.index, len(series), round(duration, 4),
            round(energy / duration, 2) if energy is not None and duration > 0 else mean(series.power_w),
            round(peak_power, 2) if peak_power is not None else None,
            round(energy, 3) if energy is not None else None, source,
            mean(series.util_gpu_pct), mean(series.util_mem_pct), int(mem_peak) if mem_peak is not None else None,
            temp_max, mean(series.sm_clock_mhz),
            *(round(100.0 * reason_time[bit] / total_weight, 2) for bit in CLOCK_EVENT_REASONS),
            *(window_mean(name) for name in GPM_COLUMNS), *_time_shares(series, windows, weights)])
        if info.gpm_reason:
            notes.append(f"device {info.index}: {info.gpm_reason}; the GPM columns are empty")
        elif info.gpm_missing:
            notes.append(f"device {info.index}: no " + ", ".join(f"{name} ({why})" for name, why in
                                                                 sorted(info.gpm_missing.items())))
        if peak_source == {"average"}:
            notes.append(f"device {info.index}: no instant power field; peak_power_w is the peak of the "
                         "driver's 1 s averages and understates short spikes")
        if source == "integrated":
            notes.append(f"device {info.index}: no energy counter in this recording; energy_j integrates "
                         "power over time")
    notes.append("avg_power_w is energy_j / duration_s; clock_event_*_pct are shares of time with that reason set.")
    notes.append("GPM columns (graphics_avg_pct ... nvlink_rx_avg_mibps) are time-weighted means of NVML GPM windows "
                 "(gpm_every_s long: the recording's first line), each paired with the samples inside its span "
                 "(graphics_avg_pct: the windows that read it, one in five in a recording made with the tiers); "
                 "the *_time_pct shares are of the time with GPM values: utilization >= "
                 f"{activity.UTIL_HIGH_PCT:.0f}% with SM activity < {activity.SM_ACTIVE_LOW_PCT:.0f}%, SM activity >= "
                 f"{activity.SM_BUSY_PCT:.0f}% with tensor < {activity.TENSOR_IDLE_PCT:.0f}%, DRAM >= "
                 f"{activity.DRAM_BOUND_PCT:.0f}% of peak.")
    return Table("telemetry_summary", "Telemetry Summary", COLUMNS, rows, notes)


BUSY_UTIL_PCT = 50.0
FINDING_COLUMNS = ["Rule", "Device", "Fired", "Evidence", "Advice"]


def telemetry_findings(devices: list[GpuInfo], ticks: list[Tick] | None = None, *,
                       series_of: Callable[[int], Series] | None = None) -> Table:
    """The activity rules (activity.py) per device, on the means over busy time (utilization >= 50%).
    The samples: each device's from `ticks`, or `series_of(index)` (a recording's columns)."""
    series_of = _series_source(devices, ticks, series_of)
    rows = []
    for info in devices:
        series = series_of(info.index)
        weights = _weights(series.t)
        # busy: utilization >= BUSY_UTIL_PCT (a missing reading counts as 0, NaN compares false: both below it)
        is_busy = list(map(ge, series.util_gpu_pct, repeat(BUSY_UTIL_PCT)))
        busy_util = list(compress(series.util_gpu_pct, is_busy))
        busy_weights = list(compress(weights, is_busy))
        mean = _WindowMeans(list(compress(_covering(series), is_busy)), busy_weights).mean

        where = f" while busy ({sum(busy_weights):.1f} s at utilization >= {BUSY_UTIL_PCT:.0f}%)"
        if not busy_util:
            where = " (never busy: no time at utilization >= 50%)"
        elif info.gpm_reason:
            where += f"; GPM: {info.gpm_reason}"
        fp16 = mean("fp16_pct")
        for verdict in activity.verdicts(_weighted_mean(busy_util, busy_weights), mean("sm_active_pct"),
                                         mean("tensor_pct"), mean("dram_pct"),
                                         activity.half_precision_from_fp16_pipe(fp16), where):
            rows.append([verdict.rule, info.index, verdict.state, verdict.evidence, verdict.advice])
    return Table("telemetry_findings", "Telemetry Findings", FINDING_COLUMNS, rows,
                 ["Rules and thresholds: aiperf_lab/metrics/activity.py. 'n/a': the recording lacks the "
                  "signal the rule needs (GPM needs Hopper or later and a recording made with it)."])
