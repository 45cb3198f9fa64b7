"""NVTX reports that need the ranges' nesting or their projection onto the GPU, as `nsys stats` makes them:
nvtx_pushpop_sum, nvtx_startend_sum, nvtx_pushpop_trace, nvtx_gpu_proj_sum and nvtx_gpu_proj_trace.

Nesting (nsys documentation, "NVTX Push/Pop Range Trace"): a range's parent is the tightest range of the
same thread that contains it (start <= start, end >= end); levels count from the thread's outermost
ranges. Ranges that contain each other (the same start and end) have no way up to an outermost range
and, as in nsys, drop out of the tree.

Projection ("NVTX GPU Projection Trace"): a GPU operation (kernel, memcpy, memset) belongs to every
range of its launching thread that holds the whole launching call; a range's projection runs from the
first such operation's start to the last one's end. Only ranges that end on the thread that started
them take part.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from typing import NamedTuple
from functools import partial
from itertools import compress, repeat
from operator import add, getitem, itemgetter, le, lt

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.nsys.db import (KERNEL, MEMCPY, MEMSET, NVTX, NVTX_PUSHPOP, NVTX_STARTEND, NVTXT_PUSHPOP,
                                        NVTXT_STARTEND, RUNTIME, TIME_LIMIT, NsysDatabase, parse_integers, span_sql,
                                        split_global_tid)
from aiperf_lab.metrics.nsys.nvtx import NvtxRange, load_ranges
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, duration_summary, sqlite_round, summary_rows
from aiperf_lab.metrics.tables import Table

PUSHPOP_TYPES = (NVTX_PUSHPOP, NVTXT_PUSHPOP)
_ID, _START, _END = itemgetter(0), itemgetter(1), itemgetter(2)  # NvtxRange fields, read in C
STARTEND_TYPES = (NVTX_STARTEND, NVTXT_STARTEND)


def _style_sum(db: NsysDatabase, event_types: tuple, name: str, title: str, what: str) -> Table:
    groups: dict[str, list[int]] = defaultdict(list)
    for r in load_ranges(db, end_bound="all", event_types=event_types):
        groups[r.name].append(r.end - r.start)
    if not groups:
        raise MissingData(f"{db.path.name} does not contain NVTX {what} ranges.")
    return Table(name, title, [*SUM_COLUMNS, "Range"], summary_rows(groups, count_label_rows=False))


def nvtx_pushpop_sum(db: NsysDatabase) -> Table:
    """NVTX Push/Pop Range Summary: push/pop range durations grouped by name."""
    return _style_sum(db, PUSHPOP_TYPES, "nvtx_pushpop_sum", "NVTX Push/Pop Range Summary", "push/pop")


def nvtx_startend_sum(db: NsysDatabase) -> Table:
    """NVTX Start/End Range Summary: start/end range durations grouped by name."""
    return _style_sum(db, STARTEND_TYPES, "nvtx_startend_sum", "NVTX Start/End Range Summary", "start/end")


def _unique(ranges: list[NvtxRange]) -> list[NvtxRange]:
    """One entry per range (a range whose domain is created twice in its process comes once)."""
    seen: set[int] = set()
    out = []
    for r in ranges:
        if r.range_id not in seen:
            seen.add(r.range_id)
            out.append(r)
    return out


class Nesting:
    """Parent, level and stack of every range, per thread, as nsys's traces report them."""

    def __init__(self, ranges: list[NvtxRange], stacks: bool = True):
        self.parent: dict[int, int | None] = {}
        self.level: dict[int, int] = {}
        self.stack: dict[int, str] = {}
        self._children: dict[int, list[int]] | None = None
        by_thread: dict[int, list[NvtxRange]] = defaultdict(list)
        for r in ranges:
            by_thread[r.global_tid].append(r)
        crossing = []
        for thread in by_thread.values():
            # (start, -end, range_id): one pass where no two ranges start together, else three stable
            # passes; C key functions, no tuple per range.
            if len(set(map(_START, thread))) == len(thread):
                thread.sort(key=_START)
            else:
                thread.sort(key=_ID)
                thread.sort(key=_END, reverse=True)
                thread.sort(key=_START)
            if not self._thread_chain(thread, stacks):
                crossing.append(thread)
        if crossing:
            self._crossing(crossing, stacks)

    @property
    def children(self) -> dict[int, list[int]]:
        """Parent -> its children's range ids (made when first asked for)."""
        if self._children is None:
            self._children = defaultdict(list)
            for child, parent in self.parent.items():
                if parent is not None:
                    self._children[parent].append(child)
        return self._children

    def _thread_chain(self, thread: list[NvtxRange], stacks: bool) -> bool:
        """One thread's ranges where each one lies inside the one open before it (push/pop ranges): one
        pass with a stack of the open ranges, whose top is the tightest container. False (nothing
        recorded) where a range is not inside the open range before it, or two have the same span."""
        starts, ends, ids = list(map(_START, thread)), list(map(_END, thread)), list(map(_ID, thread))
        if len(set(starts)) != len(starts) and len(set(zip(starts, ends))) != len(thread):
            return False
        open_ends = [TIME_LIMIT]  # (at the bottom: the whole thread, which no range ends after)
        open_ids: list[int | None] = [None]
        parents: list[int | None] = []
        levels: list[int] = []
        open_end, close, open_id, drop = open_ends.append, open_ends.pop, open_ids.append, open_ids.pop
        add_parent, add_level = parents.append, levels.append
        for start, end, rid in zip(starts, ends, ids):
            while open_ends[-1] < start:
                close()
                drop()
            if open_ends[-1] < end:
                return False  # crosses the range open before it (or only touches its end)
            add_parent(open_ids[-1])
            add_level(len(open_ids) - 1)
            open_end(end)
            open_id(rid)
        self.parent.update(zip(ids, parents))
        self.level.update(zip(ids, levels))
        if stacks:
            stack = self.stack
            for rid, parent in zip(ids, parents):  # parents come before their children
                stack[rid] = f":{rid}" if parent is None else f"{stack[parent]}:{rid}"
        return True

    def _crossing(self, threads: list[list[NvtxRange]], stacks: bool) -> None:
        """Threads whose ranges cross: the tightest container of each range among all those open."""
        parent: dict[int, int | None] = {}
        for thread in threads:
            self._thread_parents(thread, parent)
        self.parent.update(parent)
        children: dict[int, list[int]] = defaultdict(list)
        for child, up in parent.items():
            if up is not None:
                children[up].append(child)
        roots = [rid for rid, up in parent.items() if up is None]
        if not stacks:  # levels only (the summaries): no string per range
            todo_levels = [(rid, 0) for rid in roots]
            while todo_levels:
                rid, level = todo_levels.pop()
                self.level[rid] = level
                todo_levels.extend(zip(children.get(rid, ()), repeat(level + 1)))
            return
        todo = [(rid, 0, f":{rid}") for rid in roots]
        while todo:
            rid, level, stack = todo.pop()
            self.level[rid] = level
            self.stack[rid] = stack
            todo.extend((c, level + 1, f"{stack}:{c}") for c in children.get(rid, ()))

    @staticmethod
    def _thread_parents(thread: list[NvtxRange], parent: dict[int, int | None]) -> None:
        """(The thread's ranges sorted by start, longest first, then range id.)"""
        active: list[NvtxRange] = []
        i = 0
        while i < len(thread):
            r = thread[i]
            j = i + 1  # ranges with exactly the same span contain each other: no way up, as in nsys
            while j < len(thread) and thread[j].start == r.start and thread[j].end == r.end:
                j += 1
            if j - i > 1:
                ids = [x.range_id for x in thread[i:j]]
                for k, rid in enumerate(ids):
                    parent[rid] = ids[k - 1] if k else ids[1]
            else:
                active = [p for p in active if p.end >= r.start]
                best = None
                for p in active:  # the tightest container: the shortest one holding r
                    if p.end >= r.end and (best is None or p.end - p.start < best.end - best.start):
                        best = p
                parent[r.range_id] = best.range_id if best is not None else None
            active.extend(thread[i:j])
            i = j


def nvtx_pushpop_trace(db: NsysDatabase) -> Table:
    """NVTX Push/Pop Range Trace: every push/pop range with its nesting, in start order."""
    ranges = _unique(load_ranges(db, end_bound="ranges", event_types=PUSHPOP_TYPES))
    if not ranges:
        raise MissingData(f"{db.path.name} does not contain NVTX push/pop ranges.")
    nest = Nesting(ranges)
    duration = {r.range_id: r.end - r.start for r in ranges}
    rows = []
    for r in ranges:
        rid = r.range_id
        if rid not in nest.level:
            continue
        kids = nest.children.get(rid, [])
        child_time = sum(duration[c] for c in kids)
        level = nest.level[rid]
        rows.append([r.start, r.end, duration[rid], child_time, duration[rid] - child_time, r.name,
                     *split_global_tid(r.global_tid), level, len(kids), rid,
                     nest.parent[rid], nest.stack[rid], "--" * level + r.name])
    rows.sort(key=lambda row: (row[0], row[2]))
    columns = ["Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name", "PID", "TID",
               "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack", "NameTree"]
    return Table("nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", columns, rows)


class _Launches:
    """One thread's GPU operations by their launching call, ordered by call start."""

    __slots__ = ("call_starts", "call_ends", "op_starts", "op_ends", "correlations")

    def __init__(self, rows: list[list[int]]):
        self.call_starts, self.call_ends, self.op_starts, self.op_ends, self.correlations = rows


_OP_COLUMNS = ["start", span_sql(), "correlationId"]


def _gpu_ops(tables: list[str]) -> str:
    if tables == [KERNEL]:  # the table itself: its read can be split over threads (launch_join)
        return KERNEL
    return f"({' UNION ALL '.join(f'SELECT start, [end], correlationId, globalPid FROM {t}' for t in tables)})"


def _gpu_launches(db: NsysDatabase) -> dict[int, _Launches]:
    tables = [t for t in (KERNEL, MEMCPY, MEMSET) if db.has(t, ())]
    if not tables:
        raise MissingData(f"{db.path.name} does not contain GPU operation data.")
    ops = [f"SELECT start, [end], correlationId, globalPid FROM {t}" for t in tables]
    from aiperf_lab.metrics.nsys.launch_join import launches_by_thread

    read = ("start", "end", "correlationId", "globalPid")
    hashed = launches_by_thread(db, _gpu_ops(tables), _OP_COLUMNS, db.launch_calls(), {t: read for t in tables})
    if hashed is not None:
        hashed.pop(None, None)  # ops whose call is not in the export belong to no range
        return {gtid: _Launches([starts, ends, op_starts, list(map(add, op_starts, lengths)), correlations])
                for gtid, (starts, ends, op_starts, lengths, correlations) in hashed.items()}
    for table in (*tables, RUNTIME):
        db.check(table)
    total = sum(db.count(t) for t in (KERNEL, MEMCPY, MEMSET))
    for calls in db.launch_calls():
        rows = db.query(
            "SELECT r.globalTid, group_concat(r.start), group_concat(r.[end]), group_concat(o.start), "
            f"group_concat(o.[end]), group_concat(o.correlationId), count(*) FROM ({' UNION ALL '.join(ops)}) AS o "
            f"JOIN {calls} AS r ON r.correlationId = o.correlationId "
            "AND o.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) GROUP BY r.globalTid")
        if sum(row[-1] for row in rows) == total:
            break
    threads = {}
    for gtid, *texts, _n in rows:
        columns = [parse_integers(t) for t in texts]
        order = sorted(range(len(columns[0])), key=columns[0].__getitem__)
        threads[gtid] = _Launches([[c[i] for i in order] for c in columns])
    return threads


class Projection(NamedTuple):
    range: NvtxRange
    start: int
    end: int
    ops: int


_make_projection = partial(tuple.__new__, Projection)  # from a 4-tuple, in C


def _projections(db: NsysDatabase, stacks: bool = True) -> tuple[list[Projection], Nesting]:
    db.require("StringIds", what="StringIds table")
    db.require(RUNTIME, what="CUDA API data", columns=())  # checked by the launch join as it reads
    tables = [t for t in (KERNEL, MEMCPY, MEMSET) if t in db.tables]
    if tables and NVTX in db.tables:  # the launches are read while the ranges are
        from aiperf_lab.metrics.nsys.launch_join import prefetch

        prefetch(db, _gpu_ops(tables), _OP_COLUMNS, db.launch_calls())
    ranges = [r for r in _unique(load_ranges(db, end_bound="ranges")) if not r.ends_elsewhere]
    launches = _gpu_launches(db)
    nest = Nesting(ranges, stacks)
    by_thread: dict[int, list[NvtxRange]] = defaultdict(list)
    for r in ranges:
        by_thread[r.global_tid].append(r)
    if len(by_thread) == 1:  # one thread: its projections are already in the ranges' order
        (gtid, thread_ranges), = by_thread.items()
        thread = launches.get(gtid)
        return (_thread_projections(thread, thread_ranges) if thread is not None else []), nest
    found: dict[int, Projection] = {}  # by position in `ranges`, to keep its order
    position = {id(r): i for i, r in enumerate(ranges)}
    for gtid, thread_ranges in by_thread.items():
        thread = launches.get(gtid)
        if thread is not None:
            for p in _thread_projections(thread, thread_ranges):
                found[position[id(p.range)]] = p
    return [found[i] for i in sorted(found)], nest


def _thread_projections(thread: _Launches, ranges: list[NvtxRange]) -> list[Projection]:
    """The projections of one thread's ranges. A range holds the calls that start and end inside it."""
    starts, ends = thread.call_starts, thread.call_ends
    los = list(map(bisect_left, repeat(starts), map(itemgetter(1), ranges)))  # NvtxRange.start
    if ends != sorted(ends) or not all(map(le, starts, ends)):  # overlapping calls: range by range
        return [p for p in map(_projection_one, repeat(thread), ranges, los) if p is not None]
    # Calls run one after another: those inside a range are one run [lo, hi), both edges bisected in C.
    his = list(map(bisect_right, repeat(ends), map(itemgetter(2), ranges)))  # NvtxRange.end
    held = list(compress(range(len(ranges)), map(lt, los, his)))
    spans = [slice(los[i], his[i]) for i in held]
    op_starts = map(min, map(getitem, repeat(thread.op_starts), spans))
    op_ends = map(max, map(getitem, repeat(thread.op_ends), spans))
    correlations = thread.correlations
    if len(set(correlations)) == len(correlations):
        counts = [his[i] - los[i] for i in held]
    else:  # graph launches: several operations share one call's correlation id
        counts = list(map(len, map(set, map(getitem, repeat(correlations), spans))))
    return list(map(_make_projection, zip(map(ranges.__getitem__, held), op_starts, op_ends, counts)))


def _projection_one(thread: _Launches, r: NvtxRange, lo: int) -> Projection | None:
    keep = [i for i in range(lo, bisect_right(thread.call_starts, r.end)) if thread.call_ends[i] <= r.end]
    if not keep:
        return None
    return Projection(r, min(thread.op_starts[i] for i in keep), max(thread.op_ends[i] for i in keep),
                      len({thread.correlations[i] for i in keep}))


def _projected_children(projections: list[Projection], nest: Nesting) -> dict[int, int]:
    projected = {p.range.range_id for p in projections}
    counts: dict[int, int] = defaultdict(int)
    for rid in projected:
        parent = nest.parent.get(rid)
        if parent is not None:
            counts[parent] += 1
    return counts


def nvtx_gpu_proj_trace(db: NsysDatabase) -> Table:
    """NVTX GPU Projection Trace: each range projected onto the GPU work it launched, in projected order."""
    projections, nest = _projections(db)
    children = _projected_children(projections, nest)
    rows = []
    for p in projections:
        r, rid = p.range, p.range.range_id
        rows.append([r.name, p.start, p.end - p.start, r.start, r.end - r.start, r.style,
                     *split_global_tid(r.global_tid), p.ops, nest.level.get(rid),
                     children.get(rid, 0), rid, nest.parent.get(rid) if rid in nest.level else None,
                     nest.stack.get(rid)])
    rows.sort(key=lambda row: (row[1], -row[2]))
    columns = ["Name", "Projected Start (ns)", "Projected Duration (ns)", "Orig Start (ns)", "Orig Duration (ns)",
               "Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack"]
    return Table("nvtx_gpu_proj_trace", "NVTX GPU Projection Trace", columns, rows)


def _avg1(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return sqlite_round(sum(present) / len(present)) if present else None


def nvtx_gpu_proj_sum(db: NsysDatabase) -> Table:
    """NVTX GPU Projection Summary: per range name and style, projected and range time, GPU operations."""
    projections, nest = _projections(db, stacks=False)
    children = _projected_children(projections, nest)
    groups: dict[tuple[str, str], list[Projection]] = defaultdict(list)
    for p in projections:
        groups[(p.range.name, p.range.style)].append(p)
    rows = []
    for (name, style) in sorted(groups):
        members = groups[(name, style)]
        total, n, avg, med, low, high, stdev = duration_summary([p.end - p.start for p in members])
        ops = [p.ops for p in members]
        rows.append([name, style, total, sum(p.range.end - p.range.start for p in members), n, avg, med, low, high,
                     stdev, sum(ops), _avg1(ops), _avg1([nest.level.get(p.range.range_id) for p in members]),
                     _avg1([children.get(p.range.range_id, 0) for p in members])])
    rows.sort(key=lambda row: -row[2])
    columns = ["Range", "Style", "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances", "Proj Avg (ns)",
               "Proj Med (ns)", "Proj Min (ns)", "Proj Max (ns)", "Proj StdDev (ns)", "Total GPU Ops", "Avg GPU Ops",
               "Avg Range Lvl", "Avg Num Child"]
    return Table("nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", columns, rows)
