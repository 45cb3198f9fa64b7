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
    notes = []
    if db.has("ANALYSIS_DETAILS") and {"startTime", "stopTime"} <= set(db.columns("ANALYSIS_DETAILS")):
        row = db.query("SELECT min(startTime), max(stopTime) FROM ANALYSIS_DETAILS")[0]
        if isinstance(row[0], int) and isinstance(row[1], int) and row[1] > row[0]:
            span = _captured_span(row[0], row[1], ops, ranges, notes)
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


SLACK_NS = 50_000_000   # events may start or end a little outside the recorded collection


def _captured_span(start: int, stop: int, ops, ranges, notes: list[str]) -> tuple[int, int]:
    """ANALYSIS_DETAILS' start..stop when the events lie in it. With a capture range (cudaProfilerApi,
    NVTX) nsys 2025.3 times events from the capture's start while ANALYSIS_DETAILS keeps the session's
    times (seen on an H100: events 0.01-4.71 s, ANALYSIS_DETAILS 11.87-16.59 s): then the span is
    0..its duration on the events' clock."""
    if not ops and not ranges:
        return start, stop
    first, last = _event_span(ops, ranges)
    if first >= start - SLACK_NS and last <= stop + SLACK_NS:
        return start, stop
    duration = stop - start
    if first >= -SLACK_NS and last <= duration + SLACK_NS:
        notes.append("a capture range: the events are timed from the capture's start, so the captured span is "
                     f"0 to {duration / 1e9:.3f} s (ANALYSIS_DETAILS' duration) on their clock")
        return 0, duration
    notes.append("ANALYSIS_DETAILS does not hold the events: the captured span is first to last event")
    return first, last


def _event_span(ops, ranges) -> tuple[int, int]:
    starts = [o.start for o in ops] + [r.start for r in ranges]
    ends = [o.end for o in ops] + [r.end for r in ranges]
    if not starts:
        from aiperf_lab.errors import InputError
        raise InputError("the profile holds no GPU operation and no range: nothing to attribute energy to")
    return min(starts), max(ends)
