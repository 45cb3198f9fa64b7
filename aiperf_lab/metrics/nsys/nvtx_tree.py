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
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import partial
from itertools import compress, islice, repeat
from operator import and_, getitem, is_not, itemgetter, le, lt, mul, rshift, sub

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.nsys.db import (KERNEL, MEMCPY, MEMSET, NVTX, NVTX_PUSHPOP, NVTX_STARTEND, NVTXT_PUSHPOP,
                                        NVTXT_STARTEND, RUNTIME, TIME_LIMIT, NsysDatabase, end_sql, parse_integers,
                                        split_global_tid)
from aiperf_lab.metrics.nsys.nvtx import NvtxRange, load_ranges, prefetch_ranges, refuse_runaway_nesting
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, duration_summary, sqlite_round, summary_rows
from aiperf_lab.metrics.tables import ColumnRows, Table

PUSHPOP_TYPES = (NVTX_PUSHPOP, NVTXT_PUSHPOP)
# NvtxRange fields, read in C
_ID, _START, _END, _GTID, _NAME, _STYLE = (itemgetter(i) for i in range(6))
_KEY, _ELSEWHERE = itemgetter(4, 5), itemgetter(6)
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
    if len(set(map(_ID, ranges))) == len(ranges):
        return ranges
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
        """(The thread's ranges sorted by start, longest first, then range id.) Each range's parent is the
        tightest range open before it that holds it: the shortest (the first seen among equals) of those
        ending at or after its end, every one of which started at or before it. A Fenwick tree over the
        ends, largest first, keeps the minimum (length, order) of every prefix: one range costs log n, not
        a scan of every open range (120,000 nested ranges were 7 billion steps)."""
        ends = sorted({r.end for r in thread})
        position = {e: len(ends) - i for i, e in enumerate(ends)}  # end -> 1-based place, largest end first
        size = len(ends)
        tree: list[tuple[int, int, int] | None] = [None] * (size + 1)  # (length, order, range id)

        def add(r: NvtxRange, order: int) -> None:
            item = (r.end - r.start, order, r.range_id)
            place = position[r.end]
            while place <= size:
                held = tree[place]
                if held is None or item < held:
                    tree[place] = item
                place += place & -place

        def tightest(end: int) -> tuple[int, int, int] | None:
            best = None
            place = position[end]
            while place > 0:
                held = tree[place]
                if held is not None and (best is None or held < best):
                    best = held
                place -= place & -place
            return best

        order = 0
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
                best = tightest(r.end)
                parent[r.range_id] = best[2] if best is not None else None
            for x in thread[i:j]:
                add(x, order)
                order += 1
            i = j


def nvtx_pushpop_trace(db: NsysDatabase) -> Table:
    """NVTX Push/Pop Range Trace: every push/pop range with its nesting, in start order. The rows are made as
    they are written: a range's stack of ids is as long as its depth, so 120 stacks 1,000 deep are 360 MB of
    stacks made at once (and 500 MB of CSV); here only the open ranges' stacks are held."""
    ranges = _unique(load_ranges(db, end_bound="ranges", event_types=PUSHPOP_TYPES))
    if not ranges:
        raise MissingData(f"{db.path.name} does not contain NVTX push/pop ranges.")
    refuse_runaway_nesting(db, ranges)
    nest = Nesting(ranges, stacks=False)
    level = nest.level
    ordered = sorted((r for r in ranges if r.range_id in level), key=lambda r: (r.start, r.end - r.start))
    columns = ["Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name", "PID", "TID",
               "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack", "NameTree"]
    return Table("nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", columns, _pushpop_rows(ordered, nest))


def _pushpop_rows(ordered: list[NvtxRange], nest: Nesting) -> Iterator[list]:
    duration = {r.range_id: r.end - r.start for r in ordered}
    parent, level, children = nest.parent, nest.level, nest.children
    stacks: dict[int, str] = {}        # ":root:...:id" of the ranges still needed: not written, or a child not
    waiting: dict[int, int] = {}       # how many of those: itself and its children not yet written

    def stack_of(rid: int) -> str:
        held = stacks.get(rid)
        if held is not None:
            return held
        chain = []   # the range and its ancestors not held yet (a child starting with its parent is written first)
        at: int | None = rid
        while at is not None and at not in stacks:
            chain.append(at)
            at = parent[at]
        held = "" if at is None else stacks[at]
        for up in reversed(chain):
            held = stacks[up] = f"{held}:{up}"
            waiting[up] = 1 + len(children.get(up, ()))
        return held

    def written(rid: int) -> None:
        waiting[rid] -= 1
        if not waiting[rid]:
            del stacks[rid], waiting[rid]

    for r in ordered:
        rid = r.range_id
        kids = children.get(rid, ())
        child_time = sum(duration[c] for c in kids)
        depth = level[rid]
        up = parent[rid]
        yield [r.start, r.end, duration[rid], child_time, duration[rid] - child_time, r.name,
               *split_global_tid(r.global_tid), depth, len(kids), rid, up, stack_of(rid), "--" * depth + r.name]
        written(rid)
        if up is not None:
            written(up)


class _Launches:
    """One thread's GPU operations by their launching call, ordered by call start."""

    __slots__ = ("call_starts", "call_ends", "op_starts", "op_ends", "correlations")

    def __init__(self, rows: list[list[int]]):
        self.call_starts, self.call_ends, self.op_starts, self.op_ends, self.correlations = rows


_OP_COLUMNS = ["start", end_sql(), "correlationId"]  # the ends as they are (checked as span_sql checks them)


def _gpu_ops(tables: list[str]) -> str:
    if tables == [KERNEL]:  # the table itself: its read can be split over threads (launch_join)
        return KERNEL
    from aiperf_lab.metrics.nsys.launch_join import OPS_UNION_PART

    return f"({' UNION ALL '.join(f'{OPS_UNION_PART}{t}' for t in tables)})"


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
        return {gtid: _Launches(columns) for gtid, columns in hashed.items()}
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


class Projections:
    """The ranges that launched GPU work, in the ranges' order, and their projections, column by column:
    the first operation's start, the last one's end, and how many operations (by correlation id)."""

    __slots__ = ("ranges", "starts", "ends", "ops")

    def __init__(self, ranges: list[NvtxRange], starts: list[int], ends: list[int], ops: list[int]):
        self.ranges, self.starts, self.ends, self.ops = ranges, starts, ends, ops

    def ordered(self, order: list[int]) -> Projections:
        return Projections(*(list(map(column.__getitem__, order))
                             for column in (self.ranges, self.starts, self.ends, self.ops)))


def _projections(db: NsysDatabase, stacks: bool = True) -> tuple[Projections, Nesting]:
    db.require("StringIds", what="StringIds table")
    db.require(RUNTIME, what="CUDA API data", columns=())  # checked by the launch join as it reads
    tables = [t for t in (KERNEL, MEMCPY, MEMSET) if t in db.tables]
    if tables and NVTX in db.tables:  # the launches are read while the ranges are
        from aiperf_lab.metrics.nsys.launch_join import prefetch

        prefetch(db, _gpu_ops(tables), _OP_COLUMNS, db.launch_calls())
        prefetch_ranges(db, "ranges")
    ranges = _unique(load_ranges(db, end_bound="ranges"))
    if any(map(_ELSEWHERE, ranges)):
        ranges = [r for r in ranges if not r.ends_elsewhere]
    refuse_runaway_nesting(db, ranges)
    launches = _gpu_launches(db)
    nest = Nesting(ranges, stacks)
    by_thread: dict[int, list[int]] = defaultdict(list)  # thread -> positions of its ranges in `ranges`
    for position, gtid in enumerate(map(_GTID, ranges)):
        by_thread[gtid].append(position)
    parts = []
    for gtid, positions in by_thread.items():
        thread = launches.get(gtid)
        if thread is not None:
            thread_ranges = ranges if len(by_thread) == 1 else list(map(ranges.__getitem__, positions))
            held, starts, ends, ops = _thread_projections(thread, thread_ranges)
            parts.append((list(map(positions.__getitem__, held)), list(map(thread_ranges.__getitem__, held)),
                          starts, ends, ops))
    if len(parts) == 1:  # one thread: its projections are already in the ranges' order
        return Projections(*parts[0][1:]), nest
    held, *columns = ([v for part in parts for v in part[i]] for i in range(5))
    found = Projections(*columns)
    return found.ordered(sorted(range(len(held)), key=held.__getitem__)), nest


def _thread_projections(thread: _Launches, ranges: list[NvtxRange]) -> tuple[list[int], list[int], list[int], list[int]]:
    """The projections of one thread's ranges: (indexes in `ranges` of those that hold a call, projected
    starts, projected ends, operation counts). A range holds the calls that start and end inside it."""
    starts, ends = thread.call_starts, thread.call_ends
    los = list(map(bisect_left, repeat(starts), map(_START, ranges)))
    if ends != sorted(ends) or not all(map(le, starts, ends)):  # overlapping calls: range by range
        found = [(i, *p) for i, p in enumerate(map(_projection_one, repeat(thread), ranges, los)) if p is not None]
        return tuple(list(column) for column in zip(*found)) if found else ([], [], [], [])
    # Calls run one after another: those inside a range are one run [lo, hi), both edges bisected in C.
    his = list(map(bisect_right, repeat(ends), map(_END, ranges)))
    held = list(compress(range(len(ranges)), map(lt, los, his)))
    los, his = list(map(los.__getitem__, held)), list(map(his.__getitem__, held))
    op_starts, op_ends = thread.op_starts, thread.op_ends
    # The first operation's start and the last one's end: the run's first and last where the operations
    # start (end) in call order, as on one stream; else the least and greatest of each run.
    if all(map(le, op_starts, islice(op_starts, 1, None))):
        first = list(map(op_starts.__getitem__, los))
    else:
        first = list(map(min, map(getitem, repeat(op_starts), map(slice, los, his))))
    if all(map(le, op_ends, islice(op_ends, 1, None))):
        last = list(map(op_ends.__getitem__, map(sub, his, repeat(1))))
    else:
        last = list(map(max, map(getitem, repeat(op_ends), map(slice, los, his))))
    correlations = thread.correlations
    if all(map(lt, correlations, islice(correlations, 1, None))) or len(set(correlations)) == len(correlations):
        counts = list(map(sub, his, los))
    else:  # graph launches: several operations share one call's correlation id
        counts = list(map(len, map(set, map(getitem, repeat(correlations), map(slice, los, his)))))
    return held, first, last, counts


def _projection_one(thread: _Launches, r: NvtxRange, lo: int) -> tuple[int, int, int] | None:
    keep = [i for i in range(lo, bisect_right(thread.call_starts, r.end)) if thread.call_ends[i] <= r.end]
    if not keep:
        return None
    return (min(thread.op_starts[i] for i in keep), max(thread.op_ends[i] for i in keep),
            len({thread.correlations[i] for i in keep}))


def _projected_children(range_ids: list[int], nest: Nesting) -> dict[int, int]:
    """Per range, how many of its children have a projection."""
    return Counter(filter(partial(is_not, None), map(nest.parent.get, set(range_ids))))


def _thread_ids(ranges: list[NvtxRange]) -> tuple[list, list]:
    gtids = list(map(_GTID, ranges))
    if None in gtids:
        return tuple(list(column) for column in zip(*map(split_global_tid, gtids))) if gtids else ([], [])
    return (list(map(and_, map(rshift, gtids, repeat(24)), repeat(0xFFFFFF))),
            list(map(and_, gtids, repeat(0xFFFFFF))))


def nvtx_gpu_proj_trace(db: NsysDatabase) -> Table:
    """NVTX GPU Projection Trace: each range projected onto the GPU work it launched, in projected order."""
    found, nest = _projections(db)
    # ORDER BY projected start, projected duration descending: one stable sort of the positions by both
    # packed into one integer (start * width + longest - duration), nearly in order already.
    durations = list(map(sub, found.ends, found.starts))
    if durations:
        longest = max(durations)
        width = longest - min(durations) + 1
        keys = list(map(sub, map(mul, found.starts, repeat(width)), map(sub, durations, repeat(longest))))
        found = found.ordered(sorted(range(len(keys)), key=keys.__getitem__))
    ranges = found.ranges
    ids = list(map(_ID, ranges))
    range_starts = list(map(_START, ranges))
    parents = list(map(nest.parent.get, ids))
    if len(nest.level) != len(nest.parent):  # ranges with the same span: out of the tree, no parent shown
        parents = [parent if rid in nest.level else None for rid, parent in zip(ids, parents)]
    children = _projected_children(ids, nest)
    columns = [list(map(_NAME, ranges)), found.starts, list(map(sub, found.ends, found.starts)), range_starts,
               list(map(sub, map(_END, ranges), range_starts)), list(map(_STYLE, ranges)), *_thread_ids(ranges),
               found.ops, list(map(nest.level.get, ids)), list(map(children.get, ids, repeat(0))), ids, parents,
               list(map(nest.stack.get, ids))]
    headers = ["Name", "Projected Start (ns)", "Projected Duration (ns)", "Orig Start (ns)", "Orig Duration (ns)",
               "Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack"]
    return Table("nvtx_gpu_proj_trace", "NVTX GPU Projection Trace", headers, ColumnRows(columns))


def _avg1(values: list) -> float | None:
    present = [v for v in values if v is not None] if None in values else values
    return sqlite_round(sum(present) / len(present)) if present else None


def nvtx_gpu_proj_sum(db: NsysDatabase) -> Table:
    """NVTX GPU Projection Summary: per range name and style, projected and range time, GPU operations."""
    found, nest = _projections(db, stacks=False)
    ranges = found.ranges
    ids = list(map(_ID, ranges))
    children = _projected_children(ids, nest)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for position, key in enumerate(map(_KEY, ranges)):
        groups[key].append(position)
    projected = list(map(sub, found.ends, found.starts))
    rows = []
    for (name, style) in sorted(groups):
        members = groups[(name, style)]
        total, n, avg, med, low, high, stdev = duration_summary(list(map(projected.__getitem__, members)))
        member_ranges = list(map(ranges.__getitem__, members))
        member_ids = list(map(ids.__getitem__, members))
        ops = list(map(found.ops.__getitem__, members))
        rows.append([name, style, total, sum(map(_END, member_ranges)) - sum(map(_START, member_ranges)), n, avg,
                     med, low, high, stdev, sum(ops), _avg1(ops), _avg1(list(map(nest.level.get, member_ids))),
                     _avg1(list(map(children.get, member_ids, repeat(0))))])
    rows.sort(key=lambda row: -row[2])
    columns = ["Range", "Style", "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances", "Proj Avg (ns)",
               "Proj Med (ns)", "Proj Min (ns)", "Proj Max (ns)", "Proj StdDev (ns)", "Total GPU Ops", "Avg GPU Ops",
               "Avg Range Lvl", "Avg Num Child"]
    return Table("nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", columns, rows)
