"""Timelines for attribution from an nsys export or a PyTorch trace: span, GPU operations, ranges, clock."""

from __future__ import annotations

from aiperf_lab.metrics.energy.attribution import Range, Timeline
from aiperf_lab.metrics.energy.clocks import ProfileClock, kineto_clock, nsys_clock

UTC_NS_FLOOR = 10 ** 18  # 2001-09-09 in UTC ns: session-relative timestamps never come near it


def nsys_timeline(db) -> tuple[Timeline, ProfileClock]:
    from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, MEMSET, NVTX, PID_MASK

    clock = nsys_clock(db)
    ops = []
    if db.has(KERNEL) or db.has(MEMCPY) or db.has(MEMSET):
        from aiperf_lab.metrics.nsys.ops import load_gpu_ops
        ops = load_gpu_ops(db)
    ranges = []
    if db.has(NVTX) and db.has("StringIds"):
        from aiperf_lab.metrics.nsys.nvtx import load_ranges
        for r in load_ranges(db):
            if r.end >= r.start:
                lane = r.global_tid if r.style == "PushPop" else (r.global_tid or 0) & PID_MASK
                ranges.append(Range(r.name, r.start, r.end, lane))
    span = None
    if db.has("ANALYSIS_DETAILS") and {"startTime", "stopTime"} <= set(db.columns("ANALYSIS_DETAILS")):
        row = db.query("SELECT min(startTime), max(stopTime) FROM ANALYSIS_DETAILS")[0]
        if isinstance(row[0], int) and isinstance(row[1], int) and row[1] > row[0]:
            span = (row[0], row[1])
    notes = []
    if span is None:
        span = _event_span(ops, ranges)
        notes.append("the export has no ANALYSIS_DETAILS: the captured span is first to last event")
    if span[0] > UTC_NS_FLOOR:  # `nsys export --ts-normalize`: timestamps are UTC nanoseconds already
        clock = ProfileClock(0, "timestamps (already UTC: exported with --ts-normalize)")
    return Timeline(db.path.name, span, ops, ranges, notes), clock


def kineto_timeline(trace) -> tuple[Timeline, ProfileClock]:
    clock = kineto_clock(trace)
    ranges = [Range(a.name, a.start, a.end, (a.pid, a.tid)) for a in trace.annotations if a.end >= a.start]
    return Timeline(trace.path.name, _event_span(trace.ops, ranges), list(trace.ops), ranges,
                    ["the captured span is the trace's first to last GPU operation or annotation"]), clock


def _event_span(ops, ranges) -> tuple[int, int]:
    starts = [o.start for o in ops] + [r.start for r in ranges]
    ends = [o.end for o in ops] + [r.end for r in ranges]
    if not starts:
        from aiperf_lab.errors import InputError
        raise InputError("the profile holds no GPU operation and no range: nothing to attribute energy to")
    return min(starts), max(ends)
