"""energy_by_range and energy_by_category: a GPU's joules split by NVTX range and by what ran.

Rules (also written into each table's notes):

- Energy of an interval = the integral of the GPU's power over it (trapezoid between samples),
  scaled so that the whole recording's integral equals NVML's energy counter where there is one.
- The captured span = the profile's span (nsys: ANALYSIS_DETAILS start..stop; PyTorch: first to last
  event) within the telemetry's. Everything is clipped to it.
- energy_by_range: a range gets the energy of its CPU-side span [push, pop] (as NVTX records it),
  whatever ran then. Nested ranges are listed with their depth (0 = outermost) and their own share;
  the total row counts every instant once (the union of all ranges plus "outside any range"), so
  nested ranges are never counted twice in it.
- energy_by_category: at each instant the power is split equally among the categories with a GPU
  operation running on that GPU at that instant (gemm, attention, communication, memcpy/memset,
  other kernels); an instant with none is "idle": energy the GPU drew while doing nothing. The rows
  tile the span, so they sum to its energy.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from aiperf_lab.metrics.analysis import MEMORY_CATEGORY, GpuOp, categorize
from aiperf_lab.metrics.energy.clocks import union_intervals
from aiperf_lab.metrics.energy.power import PowerSeries
from aiperf_lab.metrics.summary_stats import percent_of
from aiperf_lab.metrics.tables import Table

ENERGY_CATEGORIES = ["gemm", "attention", "communication", MEMORY_CATEGORY, "other kernels"]
IDLE = "idle (no kernel or copy)"
OUTSIDE = "(outside any range)"
TOTAL = "(captured span)"


class Range(NamedTuple):
    """A named tuple: exports hold 100,000s of ranges, and a frozen dataclass costs 3x more to make."""

    name: str
    start: int
    end: int
    lane: object          # ranges nest within a lane (a thread for push/pop, a process for start/end)


@dataclass
class Timeline:
    """What attribution needs from a profile, on the profile's clock (ns)."""

    source: str                    # the file's name
    span: tuple[int, int]          # the captured span
    ops: list[GpuOp]
    ranges: list[Range]
    notes: list[str] = field(default_factory=list)


@dataclass
class Work:
    amount: float
    unit: str

    @property
    def column(self) -> str:
        return f"J/{self.unit or 'unit'}"


def energy_category(op: GpuOp) -> str:
    category = categorize(op.name, op.kind)
    return category if category in ENERGY_CATEGORIES else "other kernels"


def _span(timeline: Timeline, power: PowerSeries) -> tuple[int, int, list[str]]:
    start, end = max(timeline.span[0], power.start), min(timeline.span[1], power.end)
    notes = []
    if end <= start:
        from aiperf_lab.errors import InputError
        raise InputError(f"the telemetry ({(power.end - power.start) / 1e9:.1f} s) does not overlap the profile's "
                         f"captured span: recorded at another time, or on another host")
    cut = (start - timeline.span[0]) + (timeline.span[1] - end)
    if cut > 0:
        notes.append(f"the telemetry covers {(end - start) / 1e9:.3f} s of the profile's "
                     f"{(timeline.span[1] - timeline.span[0]) / 1e9:.3f} s; {cut / 1e9:.3f} s outside it are left out")
    return start, end, notes


def _common_notes(power: PowerSeries, start: int, end: int, total_j: float) -> list[str]:
    notes = [f"GPU {power.gpu}: {len(power.times_ns)} power samples, one every {power.period_s() * 1000:.1f} ms "
             f"(median), {power.power_source} power"]
    if power.counter_j is not None:
        notes.append(f"calibrated to NVML's energy counter: {power.counter_j:.1f} J over the recording against "
                     f"{power.integral_j:.1f} J from integrating power (scale {power.scale:.4f})")
        counter = power.counter_energy(start, end)
        if counter:
            notes.append(f"the rows sum to {total_j:.1f} J; the energy counter gives {counter:.1f} J for the "
                         f"captured span ({100 * (total_j - counter) / counter:+.2f}%)")
    else:
        notes.append("no energy counter in the recording: energy is the integral of sampled power alone")
    if power.power_source != "instant":
        notes.append("power is the driver's ~1 s average, not instant power: energy moves up to a second "
                     "later than the work that drew it, so short ranges are not resolved")
    return notes


def _work_cell(joules: float, work: Work | None) -> list:
    if work is None:
        return []
    return [joules / work.amount if work.amount else None]


def _nested_depths(starts: list[int], ends: list[int], order: list[int]) -> list[int] | None:
    """_depths of one lane whose ranges nest (each open range ends no later than the one it opened in:
    push/pop ranges, one after another or inside each other): the open ranges then all contain the next
    one, so its depth is how many are open. None at the first range that crosses an open one's end."""
    depths = [0] * len(starts)
    open_ends: list[int] = []   # ends of the open ranges, outermost first (never increasing)
    for k in order:
        start, end = starts[k], ends[k]
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        if open_ends and end > open_ends[-1]:
            return None
        depths[k] = len(open_ends)
        open_ends.append(end)
    return depths


def _few_open_depths(starts: list[int], ends: list[int], order: list[int], most_open: int = 256) -> list[int] | None:
    """_depths of one lane while at most `most_open` ranges are open at once: the open ranges' ends kept
    sorted (a short list), so each range's depth (the open ranges ending at or after its end) is one
    bisect. None once more are open (the Fenwick tree then: deep nesting makes the list long)."""
    depths = [0] * len(starts)
    stack: list[int] = []        # ends of the open ranges, in the order they opened
    open_ends: list[int] = []    # the same, sorted
    for k in order:
        start, end = starts[k], ends[k]
        while stack and stack[-1] <= start:
            del open_ends[bisect_left(open_ends, stack.pop())]
        depths[k] = len(open_ends) - bisect_left(open_ends, end)
        insort(open_ends, end)
        stack.append(end)
        if len(stack) > most_open:
            return None
    return depths


def _depths(ranges: list[Range]) -> list[int]:
    """Per range, how many ranges of its lane strictly contain it: walked in (start, -end) order with a
    stack of the open ranges; the open ranges ending at or after a range's end are counted through a
    Fenwick tree over the lane's end times, so 100,000 nested ranges cost n log n steps, not n^2/2."""
    depth = [0] * len(ranges)
    by_lane: dict[object, list[int]] = defaultdict(list)
    for i, r in enumerate(ranges):
        by_lane[r.lane].append(i)
    for indices in by_lane.values():
        starts = [ranges[i].start for i in indices]
        ends = [ranges[i].end for i in indices]
        order = sorted(range(len(indices)), key=lambda k: (starts[k], -ends[k]))
        nested = _nested_depths(starts, ends, order)
        if nested is None:
            nested = _few_open_depths(starts, ends, order)
        if nested is not None:
            for k, d in zip(indices, nested):
                depth[k] = d
            continue
        distinct = sorted(set(ends))
        rank = {e: k + 1 for k, e in enumerate(distinct)}     # 1-based ranks of the end times
        size = len(distinct)
        tree = [0] * (size + 1)                                # open ranges per end rank, as a Fenwick tree
        stack: list[int] = []
        for k in order:
            start, end = starts[k], ends[k]
            while stack and ends[stack[-1]] <= start:
                at = rank[ends[stack.pop()]]
                while at <= size:
                    tree[at] -= 1
                    at += at & -at
            below, at = 0, rank[end] - 1                       # open ranges ending before this one's end
            while at > 0:
                below += tree[at]
                at -= at & -at
            depth[indices[k]] = len(stack) - below
            stack.append(k)
            at = rank[end]
            while at <= size:
                tree[at] += 1
                at += at & -at
    return depth


def energy_by_range(timeline: Timeline, power: PowerSeries, work: Work | None = None) -> Table:
    start, end, notes = _span(timeline, power)
    total = power.energy(start, end)
    clipped = [Range(r.name, max(r.start, start), min(r.end, end), r.lane) for r in timeline.ranges
               if min(r.end, end) > max(r.start, start)]
    depth = _depths(clipped)
    groups: dict[str, dict] = {}
    spans = [(r.start, r.end) for r in clipped]
    for r, d, joules, peak in zip(clipped, depth, power.energies(spans), power.peaks(spans)):
        g = groups.setdefault(r.name, {"depths": set(), "n": 0, "ns": 0, "j": 0.0, "peak": 0.0})
        g["depths"].add(d)
        g["n"] += 1
        g["ns"] += r.end - r.start
        g["j"] += joules
        g["peak"] = max(g["peak"], peak or 0.0)
    covered = union_intervals([(r.start, r.end) for r in clipped])
    inside_j = sum(power.energies(covered))
    outside_ns = (end - start) - sum(b - a for a, b in covered)
    outside_peak = max((peak or 0.0 for peak in power.peaks(_gaps(covered, start, end))), default=None)

    def row(name, depth_cell, n, ns, joules, peak):
        return [name, depth_cell, n, round(ns / 1e9, 6), round(joules, 3), percent_of(joules, total),
                round(joules / (ns / 1e9), 2) if ns > 0 else None, round(peak, 2) if peak is not None else None,
                round(joules / n, 4) if n else None, *_work_cell(joules, work)]

    rows = []
    for name, g in sorted(groups.items(), key=lambda item: (-item[1]["j"], item[0])):
        depths = sorted(g["depths"])
        depth_cell = depths[0] if len(depths) == 1 else f"{depths[0]}-{depths[-1]}"
        rows.append(row(name, depth_cell, g["n"], g["ns"], g["j"], g["peak"]))
    rows.append(row(OUTSIDE, 0, None, outside_ns, total - inside_j, outside_peak))
    rows.append(row(TOTAL, None, None, end - start, total, power.peak(start, end)))
    top = [r for r, d in zip(clipped, depth) if d == 0]
    overlap_j = sum(power.energies([(r.start, r.end) for r in top])) - sum(
        power.energies(union_intervals([(r.start, r.end) for r in top])))
    notes = notes + _common_notes(power, start, end, total) + [
        "each range gets the energy of its CPU-side span (NVTX push to pop), whatever the GPU ran then: work "
        "launched in a range that runs after it ends is charged to what is open then; synchronize at phase "
        "ends for exact per-phase figures",
        "Depth 0 = outermost; a nested range's joules are also inside its parent's. The total row counts each "
        "instant once (all ranges together plus outside any range), so nothing is counted twice in it"]
    if overlap_j > 0.005 * max(total, 1e-9):
        notes.append(f"outermost ranges on different threads overlap in time: {overlap_j:.1f} J are in more than "
                     "one of them, so their shares add up to more than the ranges' part of the total")
    resolved_ns = 2 * power.period_s() * 1e9
    short = [name for name, g in groups.items() if g["ns"] / g["n"] < resolved_ns]
    if short:
        notes.append(f"{len(short)} range name(s) last under two sample periods on average "
                     f"({', '.join(sorted(short)[:3])}{'...' if len(short) > 3 else ''}): their energy comes from "
                     "power interpolated between samples, record at a higher rate to resolve them")
    if not clipped:
        notes.append("no NVTX range falls inside the captured span")
    columns = ["Range", "Depth", "Instances", "Time (s)", "Energy (J)", "Share (%)", "Avg Power (W)",
               "Peak Power (W)", "J/Instance"] + ([work.column] if work else [])
    return Table("energy_by_range", f"Energy by NVTX Range (GPU {power.gpu})", columns, rows, notes)


def _gaps(covered: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    gaps, at = [], start
    for a, b in covered:
        if a > at:
            gaps.append((at, a))
        at = max(at, b)
    if end > at:
        gaps.append((at, end))
    return gaps


def energy_by_category(timeline: Timeline, power: PowerSeries, device: int | None,
                       work: Work | None = None) -> Table:
    """`device`: the profile's device id whose operations count (None: all of them)."""
    start, end, notes = _span(timeline, power)
    events: list[tuple[int, int, str]] = []
    for op in timeline.ops:
        if device is not None and op.device != device:
            continue
        a, b = max(op.start, start), min(op.end, end)
        if b > a:
            category = energy_category(op)
            events.append((a, 1, category))
            events.append((b, -1, category))
    events.sort(key=lambda e: (e[0], e[1]))
    active: dict[str, int] = defaultdict(int)
    joules: dict[str, float] = defaultdict(float)
    seconds: dict[str, float] = defaultdict(float)
    whole: dict[str, float] = defaultdict(float)   # unsplit energy while the category ran
    at, e_at = start, power.energy_at(start)

    def close(t: int) -> None:
        nonlocal at, e_at
        if t <= at:
            return
        e_t = power.energy_at(t)
        piece, dt = e_t - e_at, (t - at) / 1e9
        running = [c for c, n in active.items() if n > 0]
        if not running:
            joules[IDLE] += piece
            seconds[IDLE] += dt
            whole[IDLE] += piece
        for c in running:
            joules[c] += piece / len(running)
            seconds[c] += dt
            whole[c] += piece
        at, e_at = t, e_t

    for t, step, category in events:
        close(t)
        active[category] += step
    close(end)
    total = power.energy(start, end)
    rows = []
    for category in [*ENERGY_CATEGORIES, IDLE]:
        if category not in seconds and category != IDLE:
            continue
        j, s = joules.get(category, 0.0), seconds.get(category, 0.0)
        rows.append([category, round(s, 6), round(j, 3), percent_of(j, total),
                     round(whole[category] / s, 2) if s > 0 else None, *_work_cell(j, work)])
    rows.append([TOTAL, round((end - start) / 1e9, 6), round(total, 3), 100.0 if total else 0.0,
                 round(total / ((end - start) / 1e9), 2), *_work_cell(total, work)])
    notes = notes + _common_notes(power, start, end, sum(joules.values())) + [
        "at each instant the power is split equally among the categories running on the GPU then; with none "
        "running it is idle: energy drawn while the GPU did nothing (launch gaps, host stalls, waits)",
        "Time (s) is when the category ran (categories overlap, so these add up to more than the span); "
        "Avg Power is the GPU's whole power while it ran"]
    if device is not None:
        notes.append(f"operations on the profile's device {device}")
    if not events:
        notes.append("no kernel or copy ran on this GPU during the captured span: all of it is idle")
    columns = ["Category", "Time (s)", "Energy (J)", "Share (%)", "Avg Power When Running (W)"] + (
        [work.column] if work else [])
    return Table("energy_by_category", f"Energy by Kernel Category (GPU {power.gpu})", columns, rows, notes)
