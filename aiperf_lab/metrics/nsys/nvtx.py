"""NVTX ranges from an nsys export, and the reports built on them: nvtx_sum, nvtx_kern_sum, nvtx_gpu.

Range names follow nsys: ``<domain>:<text>``, the default domain printing as ``:forward``. The text is
the registered string (``textId``) when there is one, else the explicit ``text``.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from functools import partial
from itertools import chain, compress, islice, repeat
from operator import add, and_, gt, itemgetter, lshift, lt, mul, or_, rshift, sub
from typing import TYPE_CHECKING, Iterator, NamedTuple

from aiperf_lab.metrics.nsys.db import (COLUMN_TYPES, KERNEL, NVTX, NVTX_DOMAIN_CREATE, NVTX_PUSHPOP, NVTX_RANGE_TYPES,
                                        NVTXT_PUSHPOP, PID_MASK, RUNTIME, TIME_BOUND, NsysDatabase, integers_or_none,
                                        parse_integers, span_sql, split_global_tid)
from aiperf_lab.errors import InputError, MissingData
from aiperf_lab.metrics.summary_stats import (SUM_COLUMNS, median, percent_of, sqlite_round, stdev_from_sums,
                                              sum_of_squares, summary_rows)
from aiperf_lab.metrics.tables import Table

if TYPE_CHECKING:  # nsys.ops pulls in dataclasses: imported where used, off nvtx_kern_sum's start-up path
    from aiperf_lab.metrics.nsys.ops import KernelLaunch

_PID_BITS = 0x0000FFFFFF000000  # the pid part of a globalTid, as nsys's domain join uses it


class NvtxRange(NamedTuple):
    """One NVTX range. A named tuple: large exports hold tens of thousands, built in C from SQL rows."""

    range_id: int             # the NVTX_EVENTS rowid
    start: int
    end: int                  # a missing end is replaced by the latest NVTX timestamp, as nsys does
    global_tid: int
    name: str                 # "<domain>:<text>"
    style: str                # "PushPop" or "StartEnd"
    ends_elsewhere: int       # true when the range ended on another thread (endGlobalTid set)


_START, _END, _KEY = itemgetter(1), itemgetter(2), itemgetter(4, 5)  # NvtxRange fields, read in C
_GTID, _ELSEWHERE = itemgetter(3), itemgetter(6)


def load_ranges(db: NsysDatabase, end_bound: str = "all", event_types: tuple = NVTX_RANGE_TYPES) -> list[NvtxRange]:
    """The ranges of `event_types` (all push/pop and start/end by default), one entry per (range,
    matching domain) as nsys joins them.

    `end_bound` picks the timestamp that replaces a missing end: "all" = the latest start or end of any
    NVTX event (nvtx_sum), "ranges" = of the selected range events only (nvtx_kern_sum, the traces).
    """
    db.require("StringIds", what="StringIds table")
    # NVTX_EVENTS is checked as it is read (the reads below); in full only where a read finds a wrong value.
    db.require(NVTX, what="NV Tools Extension (NVTX) data", columns=())
    types = ",".join(str(t) for t in event_types)
    bound = _missing_end_bound(db, end_bound, types)
    text_id, domain_id, end_tid = _optional_columns(db)
    prefixes = _domain_prefixes(db, text_id, domain_id)
    default_prefix = [":"]

    pushpop = ",".join(str(t) for t in (NVTX_PUSHPOP, NVTXT_PUSHPOP))
    columns = (f"n.rowid, n.start, coalesce(n.[end], {int(bound)}), n.globalTid, {{label}}, "
               f"CASE WHEN n.eventType IN ({pushpop}) THEN 'PushPop' ELSE 'StartEnd' END, {end_tid} IS NOT NULL")
    source = f"FROM {NVTX} AS n LEFT JOIN StringIds AS s ON s.id = {text_id} WHERE n.eventType IN ({types})"
    sqls = _grouped_sqls(db, types, end_bound, pushpop, end_tid, domain_id, text_id)
    if not all(map(db.prefetching, sqls)):  # nothing read yet: the bound as a number
        sqls = _grouped_sqls(db, types, str(int(bound)), pushpop, end_tid, domain_id, text_id)
    grouped = _grouped_ranges(db, sqls, prefixes)
    if grouped is not None:
        return grouped
    db.check(NVTX)
    if not prefixes:  # no domain names: every range is ":<text>"
        label = "':' || coalesce(s.value, n.text, '')"
        return list(map(NvtxRange._make, db.query(f"SELECT {columns.format(label=label)} {source}")))
    ranges = []
    append = ranges.append
    text = columns.format(label="coalesce(s.value, n.text, '')")
    for rid, start, end, gtid, label, style, elsewhere, domain in db.query(f"SELECT {text}, {domain_id} {source}"):
        for prefix in prefixes.get((domain, (gtid or 0) & _PID_BITS), default_prefix):
            append(NvtxRange(rid, start, end, gtid, prefix + label, style, elsewhere))
    return ranges


def _optional_columns(db: NsysDatabase) -> tuple[str, str, str]:
    """textId, domainId and endGlobalTid as SQL, in case an export lacks them: no registered strings, no
    domains, no cross-thread ends mean NULL, as an export that has the columns but no such events would hold."""
    present = db.columns(NVTX)
    return ("n.[textId]" if "textId" in present else "NULL", "n.[domainId]" if "domainId" in present else "0",
            "n.[endGlobalTid]" if "endGlobalTid" in present else "NULL")


def prefetch_ranges(db: NsysDatabase, end_bound: str = "ranges", event_types: tuple = NVTX_RANGE_TYPES) -> None:
    """Start load_ranges' grouped read of the ranges in threads of their own (NsysDatabase.prefetch), so
    that a report reads them while it reads the kernels and their calls. The read starts at once: the
    bound that replaces a missing end is computed in its SQL (load_ranges checks the values it comes from
    before it takes the result)."""
    if NVTX not in db.tables:
        return
    types = ",".join(str(t) for t in event_types)
    text_id, domain_id, end_tid = _optional_columns(db)
    pushpop = ",".join(str(t) for t in (NVTX_PUSHPOP, NVTXT_PUSHPOP))
    db.prefetch(*_grouped_sqls(db, types, end_bound, pushpop, end_tid, domain_id, text_id))


def _grouped_sqls(db: NsysDatabase, types: str, bound: str, pushpop: str, end_tid: str, domain_id: str,
                  text_id: str) -> list[str]:
    """_grouped_sql over rowid ranges of NVTX_EVENTS (one per thread where the table is long). `bound`:
    the missing ends' replacement as a number, or "all"/"ranges" for the same computed in the SQL."""
    if bound in ("all", "ranges"):
        where = f"eventType IN ({types})" if bound != "all" else "1"
        bound = (f"(SELECT coalesce(max(v), 0) FROM (SELECT max(start) AS v FROM {NVTX} WHERE {where} "
                 f"UNION ALL SELECT max([end]) FROM {NVTX} WHERE {where}))")
    return [_grouped_sql(f"FROM {NVTX} AS n WHERE n.eventType IN ({types}) {chunk.replace('WHERE', 'AND', 1)}",
                         bound, pushpop, end_tid, domain_id, text_id)
            for chunk in db.rowid_ranges(NVTX, "n.rowid", min_rows=NVTX_SPLIT_ROWS)]


# NVTX_EVENTS is read in parts, one per thread, from this many rows (the GROUP BY sorts each part alone).
NVTX_SPLIT_ROWS = 20_000


def _missing_end_bound(db: NsysDatabase, end_bound: str, types: str) -> int:
    """What replaces a missing end (see load_ranges). Checks the values it reads (and eventType's type,
    which picks the rows): a text or blob anywhere would be the maximum. Kept for the next read."""
    found = db.memo.get(("nvtx_missing_end", end_bound, types))
    if found is not None:
        return found
    found = db.memo[("nvtx_missing_end", end_bound, types)] = _read_missing_end_bound(db, end_bound, types)
    return found


def _read_missing_end_bound(db: NsysDatabase, end_bound: str, types: str) -> int:
    where = f"eventType IN ({types})" if end_bound != "all" else "1"
    # (Two aggregates, not SQL's max(a, b), which is NULL when no range has an end at all.)
    bounds = db.query(f"SELECT max(start), max([end]) FROM {NVTX} WHERE {where}")[0]
    if not all(v is None or (type(v) is int and -TIME_BOUND <= v <= TIME_BOUND) for v in bounds) or \
            db.query(f"SELECT 1 FROM {NVTX} WHERE typeof(eventType) <> 'integer' LIMIT 1"):  # what picks the rows
        db.check(NVTX)
    return max((v for v in bounds if v is not None), default=0)


def _domain_prefixes(db: NsysDatabase, text_id: str, domain_id: str) -> dict[tuple[int, int], list[str]]:
    """Per (domainId, process bits of the thread): the "<domain name>:" prefixes of its ranges' names, the
    name of each thread's earliest create event, in (domain, thread) order. Checks the values it reads."""
    earliest: dict[tuple[int, int], tuple[int, str | None]] = {}
    creates = db.query(f"SELECT n.start, n.globalTid, coalesce(s.value, n.text), {domain_id} FROM {NVTX} AS n "
                       f"LEFT JOIN StringIds AS s ON s.id = {text_id} WHERE n.eventType = {NVTX_DOMAIN_CREATE}")
    if not all(type(start) is int and -TIME_BOUND <= start <= TIME_BOUND and _int_or_none(gtid)
               and (name is None or type(name) is str) and _int_or_none(domain)
               for start, gtid, name, domain in creates):
        db.check(NVTX)
    for start, gtid, name, domain in creates:
        key = (domain, gtid)
        if key not in earliest or start < earliest[key][0]:
            earliest[key] = (start, name)
    prefixes: dict[tuple[int, int], list[str]] = defaultdict(list)
    for (domain, gtid), (_start, name) in sorted(earliest.items(), key=lambda i: (i[0][0], i[0][1] or 0)):
        prefixes[(domain, (gtid or 0) & _PID_BITS)].append(f"{name or ''}:")
    return prefixes


def _int_or_none(value: object) -> bool:
    return value is None or type(value) is int


def _grouped_sql(source: str, bound: int | str, pushpop: str, end_tid: str, domain_id: str, text_id: str) -> str:
    time_ok = f"BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"
    return (f"SELECT {text_id} AS text_id, n.text, CASE WHEN n.eventType IN ({pushpop}) THEN 'PushPop' "
            f"ELSE 'StartEnd' END AS style, typeof({end_tid}) AS elsewhere, n.globalTid, {domain_id} AS domain, "
            f"count(*), group_concat(n.rowid), group_concat(CASE WHEN n.start {time_ok} THEN n.start END), "
            f"group_concat(CASE WHEN n.[end] IS NULL THEN {bound} WHEN n.[end] {time_ok} THEN n.[end] END) "
            f"{source} GROUP BY text_id, n.text, style, elsewhere, n.globalTid, domain")


def _grouped_ranges(db: NsysDatabase, sqls: list[str], prefixes: dict) -> list[NvtxRange] | None:
    """The ranges in table order (each repeated per domain name its domain matches, in that order), read
    as one group_concat row per (text, style, thread, domain) and part of the table (`sqls`, from
    _grouped_sqls): no Python tuple per range from sqlite3. None where a value is NULL (the row-by-row
    read handles that)."""
    # The values are checked as they are read: times out of range, texts, blobs and NULL starts give NULL
    # (a count that comes up short), reals their text, the keys their type; any of these: the full check.
    rows = [row for sql in sqls for row in db.query(sql)]
    if not all(_int_or_none(text_id_value) and (text is None or type(text) is str) and _int_or_none(gtid)
               and _int_or_none(domain) and elsewhere in ("null", "integer")
               for text_id_value, text, _style, elsewhere, gtid, domain, *_rest in rows):
        db.check(NVTX)
        return None
    strings = db.strings({row[0] for row in rows if row[0] is not None})
    default_prefix = [":"]
    ranges: list[NvtxRange] = []
    make = partial(tuple.__new__, NvtxRange)
    singles = _single_range_groups(rows)
    for k, (text_id_value, text, style, elsewhere, gtid, domain, count, *texts) in enumerate(rows):
        if k in singles:
            ids, starts, ends = ([value] for value in singles[k])
        else:
            ids, starts, ends = (integers_or_none(t, count) for t in texts)
        if starts is None or ends is None:
            db.check(NVTX)
            return None
        if gtid is None or ids is None:
            return None
        elsewhere = int(elsewhere == "integer")
        label = strings.get(text_id_value)  # as the LEFT JOIN: an id StringIds lacks falls back to the text
        if label is None:
            label = text if text is not None else ""
        if not isinstance(label, str):
            return None
        for prefix in prefixes.get((domain, gtid & _PID_BITS), default_prefix) if prefixes else default_prefix:
            ranges += map(make, zip(ids, starts, ends, repeat(gtid), repeat(prefix + label), repeat(style),
                                    repeat(elsewhere)))
    ranges.sort(key=itemgetter(0))  # table order, as a plain SELECT gives (stable: domain names keep theirs)
    return ranges


def _single_range_groups(rows: list[tuple]) -> dict[int, tuple[int, int, int]]:
    """For the grouped rows that hold one range each (200,000 distinct names: as many groups), their
    (id, start, end) as integers_or_none gives them, parsed together in one call per column rather
    than three per group; {} where any of them would not parse (the group-by-group read then says which)."""
    singles = [k for k, row in enumerate(rows) if row[6] == 1]
    if len(singles) < 2:
        return {}
    columns = []
    for column in (7, 8, 9):
        texts = [rows[k][column] for k in singles]
        if not all(type(t) is str for t in texts):
            return {}
        # one list per column: valid only where every text is one integer (a text with a comma or none
        # at all makes the count or the JSON wrong)
        values = integers_or_none(",".join(texts), len(singles))
        if values is None:
            return {}
        columns.append(values)
    return dict(zip(singles, zip(*columns)))


def nvtx_sum(db: NsysDatabase) -> Table:
    """NVTX Range Summary: range durations grouped by name and style (nested ranges not subtracted)."""
    groups = _durations_by_name(db)
    if not groups:
        raise MissingData(f"{db.path.name} does not contain NV Tools Extension (NVTX) data.")
    rows = [[*row[:-1], row[-1][1], row[-1][0]] for row in summary_rows(groups, count_label_rows=False)]
    return Table("nvtx_sum", "NVTX Range Summary", [*SUM_COLUMNS, "Style", "Range"], rows)


def _durations_by_name(db: NsysDatabase) -> dict[tuple[str, str], list[int]]:
    """(range name, style) -> the durations of its ranges (load_ranges(db, "all") grouped), summed up by
    SQLite per (text, style, domain, thread) without an object per range; the groups in the order their
    first range comes in load_ranges, as nvtx_sum's ties keep it. The values are checked as they are read
    (as load_ranges does): any wrong one, and the full check of NVTX_EVENTS names it."""
    db.require("StringIds", what="StringIds table")
    db.require(NVTX, what="NV Tools Extension (NVTX) data", columns=())
    types = ",".join(str(t) for t in NVTX_RANGE_TYPES)
    bound = _missing_end_bound(db, "all", types)
    present = db.columns(NVTX)
    text_id = "n.[textId]" if "textId" in present else "NULL"
    domain_id = "n.[domainId]" if "domainId" in present else "0"
    end_tid = "n.[endGlobalTid]" if "endGlobalTid" in present else "NULL"  # not used, but a range's field
    prefixes = _domain_prefixes(db, text_id, domain_id)
    pushpop = ",".join(str(t) for t in (NVTX_PUSHPOP, NVTXT_PUSHPOP))
    time_ok = f"BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"
    rows = db.query(
        f"SELECT min(n.rowid), {text_id} AS text_id, n.text, CASE WHEN n.eventType IN ({pushpop}) THEN 'PushPop' "
        f"ELSE 'StartEnd' END AS style, {domain_id} AS domain, n.globalTid, "
        f"max(typeof({end_tid}) NOT IN ('null', 'integer')), count(*), "
        f"group_concat(CASE WHEN n.start {time_ok} AND (n.[end] IS NULL OR n.[end] {time_ok}) "
        f"THEN coalesce(n.[end], {bound}) - n.start END) FROM {NVTX} AS n "
        f"WHERE n.eventType IN ({types}) GROUP BY text_id, n.text, style, domain, n.globalTid")
    if not all(_int_or_none(text_id_value) and (text is None or type(text) is str) and _int_or_none(domain)
               and _int_or_none(gtid) and not wrong_end_tid
               for _first, text_id_value, text, _style, domain, gtid, wrong_end_tid, *_rest in rows):
        db.check(NVTX)
        raise InputError(f"{db.path}: not a valid nsys export: {NVTX} holds ids or names of the wrong type")
    strings = db.strings({row[1] for row in rows if row[1] is not None})
    default_prefix = [":"]
    firsts: dict[tuple[str, str], tuple[int, int]] = {}
    parts: list[tuple[tuple[str, str], list[int]]] = []
    for first, text_id_value, text, style, domain, gtid, _wrong_end_tid, count, durations in rows:
        label = strings.get(text_id_value)  # as the LEFT JOIN: an id StringIds lacks falls back to the text
        if label is None:
            label = text if text is not None else ""
        values = integers_or_none(durations, count)
        if values is None:  # a time that is not an integer within +-2^62 (or a NULL start)
            db.check(NVTX)
            raise InputError(f"{db.path}: not a valid nsys export: {NVTX} holds times that are not integers")
        matching = prefixes.get((domain, (gtid or 0) & _PID_BITS), default_prefix) if prefixes else default_prefix
        for place, prefix in enumerate(matching):
            key = (prefix + label, style)
            firsts[key] = min(firsts.get(key, (first, place)), (first, place))
            parts.append((key, values))
    groups: dict[tuple[str, str], list[int]] = {key: [] for key in sorted(firsts, key=firsts.__getitem__)}
    for key, values in parts:
        groups[key] += values
    return groups


def _enclosing(ranges: list[NvtxRange], launches: list[KernelLaunch],
               same_thread: bool = True) -> Iterator[tuple[KernelLaunch, NvtxRange | None]]:
    """Each kernel with every range whose [start, end] contains its launch call's [start, end].

    same_thread=True is nsys's rule (the range must be on the launching thread); False accepts any
    range of the same process, e.g. a "backward" range on the main thread while PyTorch's autograd
    thread launches the kernels. A kernel in no range is yielded once with None.
    """
    lane = (lambda gtid: gtid) if same_thread else (lambda gtid: gtid & PID_MASK)
    by_lane: dict[int, list[NvtxRange]] = defaultdict(list)
    for r in ranges:
        by_lane[lane(r.global_tid)].append(r)
    calls: dict[int, list[KernelLaunch]] = defaultdict(list)
    for k in launches:
        if k.api_start is None or k.global_tid is None:
            yield k, None
        else:
            calls[lane(k.global_tid)].append(k)
    for key, lane_calls in calls.items():
        lane_ranges = sorted(by_lane.get(key, ()), key=lambda r: r.start)
        lane_calls.sort(key=lambda k: k.api_start)
        active: list[tuple[int, int, NvtxRange]] = []  # heap by range end
        next_range = 0
        for k in lane_calls:
            while next_range < len(lane_ranges) and lane_ranges[next_range].start <= k.api_start:
                r = lane_ranges[next_range]
                heapq.heappush(active, (r.end, next_range, r))
                next_range += 1
            while active and active[0][0] < k.api_start:
                heapq.heappop(active)  # ended before this call began: cannot contain any later call
            found = False
            for end, _i, r in active:
                if end >= k.api_end:
                    found = True
                    yield k, r
            if not found:
                yield k, None


def _null_first(value):
    return (value is not None, value if value is not None else "")


def _launch_reads(db: NsysDatabase, name_col: str) -> tuple[list[str], list[str]]:
    """The kernel columns and the call sources _launches_by_thread reads (for launch_join)."""
    # A subquery, not the ids pasted in: nothing read from the file becomes SQL text (and a list of the
    # ids costs SQLite the same lookup per call: 40 ms for 300,000 calls either way).
    has_launches = db.memo.get("has_launch_names")
    if has_launches is None:
        has_launches = db.memo["has_launch_names"] = bool(
            db.query("SELECT 1 FROM StringIds WHERE value LIKE '%Launch%' LIMIT 1"))
    filtered = f"(SELECT rowid AS rid, correlationId, globalTid, start, [end] FROM {RUNTIME} WHERE nameId IN " \
               "(SELECT id FROM StringIds WHERE value LIKE '%Launch%'))" if has_launches else None
    name = name_col if COLUMN_TYPES[KERNEL].get(name_col) == "int" else f"coalesce({name_col}, -1)"
    return [name, span_sql()], [filtered, RUNTIME] if filtered else [RUNTIME]


# Kernel name id and duration read as one number, name * 2^36 + duration: one column to print and parse,
# already the sort key of the attribution. NULL (and the two columns read apart) where either is out of
# range: a negative duration, one over 2^36 ns (19 hours: none in real traces), a NULL or huge name id.
# Arithmetic, not shifts: a real where an integer belongs stays a real, which the read's check refuses.
PACK_SHIFT = 36


def _packed_read(db: NsysDatabase, name_col: str) -> list[str]:
    bound = f"BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"
    return [f"CASE WHEN {name_col} BETWEEN 0 AND {(1 << 26) - 1} AND start {bound} AND [end] {bound} AND "
            f"[end] - start BETWEEN 0 AND {(1 << PACK_SHIFT) - 1} THEN {name_col} * {1 << PACK_SHIFT} + ([end] - start) END"]


class _Kernels:
    """One thread's kernels, in call order: name ids and durations, as two lists or packed in one
    (name << shift | duration); each form made from the other where asked for."""

    __slots__ = ("_names", "_durations", "_packed", "shift")

    def __init__(self, names: list[int] | None = None, durations: list[int] | None = None,
                 packed: list[int] | None = None, shift: int = PACK_SHIFT):
        self._names, self._durations, self._packed, self.shift = names, durations, packed, shift

    @property
    def names(self) -> list[int]:
        if self._names is None:
            self._names = list(map(rshift, self._packed, repeat(self.shift)))
        return self._names

    @property
    def durations(self) -> list[int]:
        if self._durations is None:
            self._durations = list(map(and_, self._packed, repeat((1 << self.shift) - 1)))
        return self._durations

    def packed(self) -> list[int] | None:
        """name << shift | duration per kernel; None where a name id or duration is negative."""
        if self._packed is None:
            durations, names = self._durations, self._names
            if not durations or min(durations) < 0 or min(names) < 0:
                return None
            self.shift = max(durations).bit_length()
            self._packed = list(map(or_, map(lshift, names, repeat(self.shift)), durations))
        return self._packed


def _launches_by_thread(db: NsysDatabase, name_col: str) -> list[tuple[int | None, list, list, _Kernels]]:
    """Per launching thread: api starts, api ends, kernel name ids and durations, ordered by api start.

    The thread is None for kernels whose launch call is not in the export. SQLite does the join and the
    grouping; the columns come back as group_concat strings parsed in C (no Python tuple per kernel).
    The join first looks only at calls whose name says they launch ("...Launch..."): real traces hold
    as many other calls (cuKernelGetName per launch, in PyTorch's). If any kernel is left without its
    call that way, the join is redone over every call, so the result is the same as nsys's.
    """
    from aiperf_lab.metrics.nsys.launch_join import launches_by_thread

    columns, sources = _launch_reads(db, name_col)
    filtered = sources[0] if len(sources) > 1 else None
    checks = {KERNEL: ("correlationId", "globalPid", name_col, "start", "end")}
    hashed = launches_by_thread(db, KERNEL, _packed_read(db, name_col), sources, checks)
    if hashed is not None:
        return [(gtid, starts, ends, _Kernels(packed=packed)) for gtid, (starts, ends, packed) in hashed.items()]
    hashed = launches_by_thread(db, KERNEL, columns, sources, checks)  # the two columns apart
    if hashed is not None:
        return [(gtid, starts, ends, _Kernels(names, durations))
                for gtid, (starts, ends, names, durations) in hashed.items()]
    db.check(KERNEL)
    db.check(RUNTIME)
    for calls in ([filtered, RUNTIME] if filtered else [RUNTIME]):
        rows = db.query(
            f"SELECT r.globalTid, group_concat(coalesce(r.start, 0)), group_concat(coalesce(r.[end], 0)), "
            f"group_concat(coalesce(k.{name_col}, -1)), group_concat(k.[end] - k.start) "
            f"FROM {KERNEL} AS k LEFT JOIN {calls} AS r ON r.correlationId = k.correlationId "
            f"AND (r.globalTid & 0xFFFFFFFFFF000000) = k.globalPid GROUP BY r.globalTid")
        if calls is RUNTIME or all(gtid is not None for gtid, *_ in rows):
            break
    threads = []
    for gtid, *texts in rows:
        starts, ends, names, durations = (parse_integers(t) for t in texts)
        if starts != sorted(starts):
            order = sorted(range(len(starts)), key=starts.__getitem__)
            starts, ends, names, durations = ([column[i] for i in order]
                                              for column in (starts, ends, names, durations))
        threads.append((gtid, starts, ends, _Kernels(names, durations)))
    return threads


class _KernGroup:
    """One nvtx_kern_sum row in the making: its kernels' durations as parts (a sorted list of durations, how
    many times it counts, its sum and sum of squares), each part shared by every key of its keyset."""

    __slots__ = ("parts", "instances", "kernels")

    def __init__(self) -> None:
        self.parts: list[tuple[list[int], int, int, int]] = []
        self.instances = 0  # distinct ranges holding at least one of these kernels
        self.kernels = 0

    def summary(self) -> tuple[int, int, float, float, int, int, float]:
        """duration_summary of all its durations (each part as often as it counts), from the parts' sums."""
        parts = self.parts
        n = sum(len(values) * times for values, times, _s1, _s2 in parts)
        total = sum(s1 * times for _values, times, s1, _s2 in parts)
        squares = sum(s2 * times for _values, times, _s1, s2 in parts)
        if len(parts) == 1 and parts[0][1] == 1:
            ordered = parts[0][0]
            middle, low, high = median(ordered), ordered[0], ordered[-1]
        else:  # the middle of sorted runs, found in them (no merged list)
            runs = [(values, times) for values, times, _s1, _s2 in parts]
            low, high = min(values[0] for values, _t in runs), max(values[-1] for values, _t in runs)
            middle = _nth(runs, n // 2, low, high)
            if n % 2 == 0:
                middle = (_nth(runs, n // 2 - 1, low, middle) + middle) / 2
            else:
                middle = float(middle)
        return (total, n, sqlite_round(total / n), sqlite_round(middle), low, high,
                sqlite_round(stdev_from_sums(n, total, squares)))


def _nth(runs: list[tuple[list[int], int]], k: int, low: int, high: int) -> int:
    """The k-th smallest (from 0) of sorted runs, each counted `times` over, all within [low, high]: the
    least value with more than k at or below it, by bisection of the values (a few dozen steps)."""
    while low < high:
        mid = (low + high) // 2
        if sum(bisect_right(values, mid) * times for values, times in runs) > k:
            high = mid
        else:
            low = mid + 1
    return low


class _Attribution:
    """Kernels credited to the NVTX ranges open over their launch, accumulated cheaply.

    Each kernel is filed once, under the *set* of range names open over it (a "keyset": few distinct
    ones in a real program); keysets expand to one row per range name only at the end. A kernel under two
    ranges of the same name is repeated in that row's durations, as nsys's join repeats it, but counted
    once in Kern Inst. NVTX Inst counts the distinct ranges that held at least one kernel of the row's name.
    """

    def __init__(self) -> None:
        self.keysets: dict[tuple, int] = {(): 0}
        self.by_keyset: dict[tuple, list[int]] = {}
        self.held_names: dict[tuple, dict[int, set[int]]] = defaultdict(dict)
        self.held_counts: dict[int | None, Counter] = {}  # thread -> (key, name id) -> ranges holding it

    def keyset_id(self, open_keys) -> int:
        """The id of the (name, style) keys of the ranges open over a segment, in the order they opened
        (the same nesting gives the same tuple, so no sort is needed)."""
        keyset = tuple(open_keys)
        found = self.keysets.get(keyset)
        if found is None:
            found = self.keysets[keyset] = len(self.keysets)
        return found

    def add(self, gtid: int | None, keyset_ids: list[int], names: list[int], durations: list[int]) -> None:
        if not durations:
            return
        if min(durations) < 0:
            self._add_each(gtid, keyset_ids, names, durations)
            return
        # Group in C: one small integer per kernel, (keyset, name, duration) packed, then sorted; each
        # group is one run of it, its durations already in order. Name ids (StringIds ids) pack as they
        # are where they are small and not negative, else as their rank among the names.
        low, high = min(names), max(names)
        if 0 <= low and high < 1 << 24:
            distinct, width = range(high + 1), high + 1
            groups = map(add, map(mul, keyset_ids, repeat(width)), names)
        else:
            distinct = sorted(set(names))
            dense = {name_id: i for i, name_id in enumerate(distinct)}
            width = len(distinct)
            groups = map(add, map(mul, keyset_ids, repeat(width)), map(dense.__getitem__, names))
        shift = max(durations).bit_length()
        packed = list(map(or_, map(lshift, groups, repeat(shift)), durations))
        packed.sort()
        buckets = self.by_keyset
        lo, n = 0, len(packed)
        while lo < n:
            group = packed[lo] >> shift
            base = group << shift
            hi = bisect_left(packed, base + (1 << shift), lo)
            keyset_id, name_index = divmod(group, width)
            values = list(map(sub, packed[lo:hi], repeat(base))) if base else packed[lo:hi]
            key = (gtid, keyset_id, distinct[name_index])
            bucket = buckets.get(key)
            if bucket is None:
                buckets[key] = values
            else:
                bucket.extend(values)
            lo = hi

    def add_sorted(self, gtid: int | None, keyset_id: int, name_id: int, durations: list[int]) -> None:
        """Kernels of one name under one keyset (durations sorted)."""
        key = (gtid, keyset_id, name_id)
        bucket = self.by_keyset.get(key)
        if bucket is None:
            self.by_keyset[key] = durations
        else:
            bucket.extend(durations)

    def _add_each(self, gtid: int | None, keyset_ids, names: list[int], durations: list[int]) -> None:
        buckets = self.by_keyset
        for keyset_id, name_id, duration in zip(keyset_ids, names, durations):
            bucket = buckets.get((gtid, keyset_id, name_id))
            if bucket is None:
                buckets[(gtid, keyset_id, name_id)] = [duration]
            else:
                bucket.append(duration)

    def held(self, gtid: int | None, r: NvtxRange, name_ids) -> None:
        """Range r held kernels with these names (the same range may come twice, once per domain match)."""
        per_range = self.held_names[(gtid, (r.name, r.style))]
        if r.range_id in per_range:
            per_range[r.range_id] |= set(name_ids)
        else:
            per_range[r.range_id] = set(name_ids)

    def groups(self) -> dict[tuple, _KernGroup]:
        groups: dict[tuple, _KernGroup] = {}

        def group(key: tuple) -> _KernGroup:
            found = groups.get(key)
            if found is None:
                found = groups[key] = _KernGroup()
            return found

        keysets = {number: keyset for keyset, number in self.keysets.items()}
        for (gtid, keyset_id, name_id), durations in self.by_keyset.items():
            keyset = keysets[keyset_id]
            durations.sort()  # (sorted already where add() made it)
            total, squares = sum(durations), sum_of_squares(durations)
            if not keyset:
                g = group((gtid, None, name_id))
                g.parts.append((durations, 1, total, squares))
                g.kernels += len(durations)
                continue
            for key, times in Counter(keyset).items():
                g = group((gtid, key, name_id))
                g.parts.append((durations, times, total, squares))
                g.kernels += len(durations)
        for (gtid, key), per_range in self.held_names.items():
            for name_id, count in Counter(chain.from_iterable(per_range.values())).items():
                group((gtid, key, name_id)).instances = count
        for gtid, counts in self.held_counts.items():
            for (key, name_id), count in counts.items():
                group((gtid, key, name_id)).instances += count
        return groups


def _attribute_thread(acc: _Attribution, gtid: int, ranges: list[NvtxRange], starts: list[int], ends: list[int],
                      kernels: _Kernels) -> bool:
    """nsys's containment rule for one thread, by the index intervals of its launch calls.

    Launch calls on one thread run one after another, so starts and ends are both sorted and the calls
    inside a range form one index interval [lo, hi), found by two bisections. Returns False (nothing
    added) if the calls overlap.
    """
    if ends != sorted(ends):
        return False
    if len({r.range_id for r in ranges}) != len(ranges):  # a range twice (two domain matches): count it once
        ranges = list({(r.range_id, r.name, r.style): r for r in ranges}.values())
    # Each range's calls [lo, hi), found by bisection in C for all ranges at once; only those holding any.
    los = list(map(bisect_left, repeat(starts), map(_START, ranges)))
    his = list(map(bisect_right, repeat(ends), map(_END, ranges)))
    held = list(compress(range(len(ranges)), map(lt, los, his)))
    los, his = list(map(los.__getitem__, held)), list(map(his.__getitem__, held))
    keys = list(map(_KEY, map(ranges.__getitem__, held)))
    distinct_keys = list(dict.fromkeys(keys))
    key_numbers = list(map({key: i for i, key in enumerate(distinct_keys)}.__getitem__, keys))
    if los and _sweep(acc, gtid, los, his, key_numbers, distinct_keys, kernels):
        return True
    names, durations = kernels.names, kernels.durations
    # NVTX Inst: per (range key, kernel name), the ranges holding at least one such kernel; the distinct
    # names of each range are counted in C, key by key.
    counts = acc.held_counts.setdefault(gtid, Counter())
    by_key = sorted(range(len(keys)), key=key_numbers.__getitem__)
    sorted_numbers = list(map(key_numbers.__getitem__, by_key))
    spans = list(map(slice, map(los.__getitem__, by_key), map(his.__getitem__, by_key)))
    lo = 0
    while lo < len(by_key):
        key_number = sorted_numbers[lo]
        hi = bisect_right(sorted_numbers, key_number, lo)
        key = distinct_keys[key_number]
        for name_id, count in Counter(chain.from_iterable(map(set, map(names.__getitem__, spans[lo:hi])))).items():
            counts[(key, name_id)] += count
        lo = hi
    keyset_ids = _nested_keysets(acc, los, his, key_numbers, distinct_keys, len(starts))
    if keyset_ids is None:
        keyset_ids = _segment_keysets(acc, los, his, keys, len(starts))
    acc.add(gtid, keyset_ids, names, durations)
    return True


def _sweep(acc: _Attribution, gtid: int, los: list[int], his: list[int], key_numbers: list[int],
           distinct_keys: list[tuple], kernels: _Kernels) -> bool:
    """The attribution by nvtx_sweep (segments of equal open ranges, packed counts). False (nothing added)
    where its packed integers would be wide or a kernel's name id or duration is negative."""
    from aiperf_lab.metrics.nsys import nvtx_sweep

    packed = kernels.packed()
    if packed is None:
        return False
    found = nvtx_sweep.segment_codes(los, his, key_numbers, len(distinct_keys))
    if found is None:
        return False
    held = nvtx_sweep.held_name_counts(los, his, key_numbers, kernels.names)
    if held is None:
        return False
    edges, codes, bits = found
    for code, values in nvtx_sweep.kernels_by_code(edges, codes, packed).items():
        keyset_id = acc.keyset_id(nvtx_sweep.keyset_of(code, bits, distinct_keys)) if code else 0
        values.sort()
        for name_id, sorted_durations in nvtx_sweep.split_sorted(values, kernels.shift):
            acc.add_sorted(gtid, keyset_id, name_id, sorted_durations)
    counts = acc.held_counts.setdefault(gtid, Counter())
    for (key_number, name_id), count in held.items():
        counts[(distinct_keys[key_number], name_id)] += count
    return True


def _nested_keysets(acc: _Attribution, los: list[int], his: list[int], key_numbers: list[int],
                    distinct_keys: list[tuple], n: int) -> list[int] | None:
    """Each call's keyset where the ranges' intervals nest (push/pop ranges always do): every range is
    painted over its calls, outer ones first, with the keyset of itself and the ranges around it. None
    where two intervals cross."""
    order = sorted(range(len(los)), key=his.__getitem__, reverse=True)  # (lo, -hi) in two stable sorts
    order.sort(key=los.__getitem__)
    painted = [0] * n
    open_his = [n + 1]  # the enclosing ranges' ends and keyset ids (at the bottom: the whole thread)
    open_sets = [0]
    width = len(distinct_keys)
    inner: dict[int, int] = {}  # keyset id * width + key number -> the keyset id of that keyset plus the key
    keysets = {number: keyset for keyset, number in acc.keysets.items()}
    for lo, hi, key_number in zip(map(los.__getitem__, order), map(his.__getitem__, order),
                                  map(key_numbers.__getitem__, order)):
        while open_his[-1] <= lo:
            open_his.pop()
            open_sets.pop()
        if open_his[-1] < hi:
            return None  # crosses an enclosing range
        outer = open_sets[-1]
        found = inner.get(outer * width + key_number)
        if found is None:
            keyset = (*keysets[outer], distinct_keys[key_number])
            found = inner[outer * width + key_number] = acc.keyset_id(keyset)
            keysets[found] = keyset
        open_his.append(hi)
        open_sets.append(found)
        painted[lo:hi] = repeat(found, hi - lo)
    return painted


def _segment_keysets(acc: _Attribution, los: list[int], his: list[int], keys: list[tuple], n: int) -> list[int]:
    """Each call's keyset for any intervals: between interval edges the set of enclosing ranges does not
    change, so each segment gets one keyset."""
    opens: dict[int, list[int]] = defaultdict(list)
    closes: dict[int, list[int]] = defaultdict(list)
    for index, (lo, hi) in enumerate(zip(los, his)):
        opens[lo].append(index)
        closes[hi].append(index)
    edges = sorted({0, n, *opens, *closes})
    active: dict[int, tuple[str, str]] = {}  # open ranges' keys, in the order they opened
    keyset_ids: list[int] = []
    keyset_id = acc.keyset_id
    no_ranges = ()
    for here, following in zip(edges, edges[1:]):
        for index in closes.get(here, no_ranges):
            del active[index]
        for index in opens.get(here, no_ranges):
            active[index] = keys[index]
        keyset_ids += repeat(keyset_id(active.values()) if active else 0, following - here)
    return keyset_ids


def _attribute_overlapping(acc: _Attribution, gtid: int, ranges: list[NvtxRange], starts: list[int],
                           ends: list[int], names: list[int], durations: list[int]) -> None:
    """The same rule kernel by kernel, for a thread whose launch calls overlap (nested launch APIs)."""
    from aiperf_lab.metrics.nsys.ops import KernelLaunch

    launches = [KernelLaunch(i, "", durations[i], 0, 0, 0, 0, starts[i], ends[i], gtid) for i in range(len(names))]
    enclosing: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for k, r in _enclosing(ranges, launches):
        if r is not None:
            enclosing[k.kernel_id].append((r.name, r.style))
            acc.held(gtid, r, (names[k.kernel_id],))
    keyset_ids = [acc.keyset_id(sorted(enclosing[i])) if i in enclosing else 0 for i in range(len(names))]
    acc.add(gtid, keyset_ids, names, durations)


# Real NVTX nesting is tens of levels deep. The per-level reports (a range's stack of enclosing ranges,
# the keyset of every enclosing range per kernel) grow with depth times ranges: 120,000 ranges nested in
# one another would be 7 billion steps and as many bytes. Such an export is refused in one line.
MAX_NESTING_DEPTH = 1024


def refuse_runaway_nesting(db: NsysDatabase, ranges: "list[NvtxRange]", per_process: bool = False) -> None:
    """An InputError where the ranges of one thread (of one process, with per_process: --cross-thread
    attributes a kernel to the ranges of every thread of its process) are open more than
    MAX_NESTING_DEPTH at once."""
    if len(ranges) <= MAX_NESTING_DEPTH:
        return
    if not _open_over(ranges, MAX_NESTING_DEPTH):  # all threads together: a bound for each (the usual case)
        return
    lanes: dict[int, list[NvtxRange]] = defaultdict(list)
    for r in ranges:
        lanes[(r.global_tid or 0) & PID_MASK if per_process else r.global_tid].append(r)
    if any(_open_over(lane, MAX_NESTING_DEPTH) for lane in lanes.values()):
        where = ("in one process (--cross-thread counts the ranges of all its threads)" if per_process
                 else "deep on one thread")
        raise InputError(f"{db.path.name}: NVTX ranges nested more than {MAX_NESTING_DEPTH} levels {where}: reports "
                         "per enclosing range would grow with depth times ranges (real traces nest tens of levels)")


def _open_over(ranges: "list[NvtxRange]", depth: int) -> bool:
    """Whether more than `depth` ranges are open at once (an end closes before a start at the same time).
    Just after the j-th start (starts and ends each sorted), j + 1 ranges have started and those ending at
    or before it have closed: more than `depth` are open exactly when the (j - depth)-th end comes after
    that start. One comparison per range in C, on two lists that are nearly in order already."""
    starts = sorted(map(_START, ranges))
    ends = sorted(map(_END, ranges))
    return any(map(gt, ends, islice(starts, depth, None)))


def nvtx_kern_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """NVTX Range Kernel Summary: kernels under every enclosing range of their launching thread.

    As nsys: only ranges that end on the thread they started on; a kernel counts under every enclosing
    range (nested ranges count it again); kernels outside all ranges form rows with an empty range.
    """
    name_col = db.kernel_name_column(variant)
    if {KERNEL, RUNTIME, NVTX, "StringIds"} <= db.tables:  # the launches are read while the ranges are
        from aiperf_lab.metrics.nsys.launch_join import prefetch

        prefetch(db, KERNEL, _packed_read(db, name_col), _launch_reads(db, name_col)[1])
        prefetch_ranges(db, "ranges")
    ranges = load_ranges(db, end_bound="ranges")
    if any(map(_ELSEWHERE, ranges)):
        ranges = [r for r in ranges if not r.ends_elsewhere]
    ranges_by_thread: dict[int, list[NvtxRange]] = defaultdict(list)
    threads = set(map(_GTID, ranges))
    if len(threads) == 1:
        ranges_by_thread[threads.pop()] = ranges
    else:
        for r in ranges:
            ranges_by_thread[r.global_tid].append(r)
    refuse_runaway_nesting(db, ranges)
    # The launch join checks the values it reads (a full check only where it falls back to SQL).
    db.require(RUNTIME, what="CUDA API data", columns=())
    db.require(KERNEL, what="CUDA kernel data", columns=())
    acc = _Attribution()
    for gtid, starts, ends, kernels in _launches_by_thread(db, name_col):
        if gtid is None:
            acc.add(None, [0] * len(starts), kernels.names, kernels.durations)
        elif not _attribute_thread(acc, gtid, ranges_by_thread.get(gtid, []), starts, ends, kernels):
            _attribute_overlapping(acc, gtid, ranges_by_thread.get(gtid, []), starts, ends, kernels.names,
                                   kernels.durations)
    groups = acc.groups()
    strings = db.strings({name_id for (_g, _k, name_id) in groups})
    rows = []
    for (gtid, key, name_id), group in groups.items():
        pid, tid = split_global_tid(gtid)
        name, style = key if key else (None, None)
        total, _n, avg, med, low, high, stdev = group.summary()
        rows.append([name, style, pid, tid, group.instances, group.kernels, total, avg, med, low, high,
                     stdev, strings.get(name_id, "")])
    # GROUP BY pid, tid, name, style, kernel gives the tie order; ORDER BY name, pid, tid, total desc.
    rows.sort(key=lambda r: (_null_first(r[2]), _null_first(r[3]), _null_first(r[0]), _null_first(r[1]),
                             _null_first(r[12])))
    rows.sort(key=lambda r: (_null_first(r[0]), _null_first(r[2]), _null_first(r[3]), -r[6]))
    columns = ["NVTX Range", "Style", "PID", "TID", "NVTX Inst", "Kern Inst", "Total Time (ns)", "Avg (ns)",
               "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Kernel Name"]
    return Table("nvtx_kern_sum", "NVTX Range Kernel Summary", columns, rows)


def _match_range(name: str, wanted: str) -> bool:
    """A range matches by its full name (":forward", "NCCL:AllReduce") or by its text alone ("forward")."""
    return name == wanted or name.split(":", 1)[-1] == wanted


def kernels_in_range(db: NsysDatabase, range_name: str, cross_thread: bool = False,
                     within: str | None = None) -> list[KernelLaunch]:
    """Kernels launched inside any instance of an NVTX range (each kernel once); with `within`, only
    those whose launch also lies inside a range whose name starts with it (e.g. "step_": the timed
    steps, leaving out the warm-up)."""
    seen: dict[int, KernelLaunch] = {}
    for _r, kernels in kernels_per_instance(db, range_name, cross_thread, within):
        for k in kernels:
            seen[k.kernel_id] = k
    return list(seen.values())


def kernels_per_instance(db: NsysDatabase, range_name: str, cross_thread: bool = False,
                         within: str | None = None) -> list[tuple[NvtxRange, list[KernelLaunch]]]:
    """Each instance of an NVTX range with the kernels launched inside it, in time order; with
    `within`, only kernels also launched inside a range whose name starts with that prefix."""
    all_ranges = load_ranges(db, end_bound="ranges")
    ranges = [r for r in all_ranges if _match_range(r.name, range_name)]
    if not ranges:
        raise MissingData(f"{db.path.name} has no NVTX range named {range_name!r}.")
    refuse_runaway_nesting(db, ranges, per_process=cross_thread)
    from aiperf_lab.metrics.nsys.ops import load_kernel_launches

    launches = load_kernel_launches(db)
    if within is not None:
        outer = [r for r in all_ranges if r.name.split(":", 1)[-1].startswith(within)]
        if not outer:
            raise MissingData(f"{db.path.name} has no NVTX range named {within}*.")
        refuse_runaway_nesting(db, outer, per_process=cross_thread)
        inside = {k.kernel_id for k, r in _enclosing(outer, launches, same_thread=not cross_thread) if r is not None}
        launches = [k for k in launches if k.kernel_id in inside]
    per_range: dict[int, dict[int, KernelLaunch]] = defaultdict(dict)
    for k, r in _enclosing(ranges, launches, same_thread=not cross_thread):
        if r is not None:
            per_range[r.range_id][k.kernel_id] = k
    instances = sorted({r.range_id: r for r in ranges}.values(), key=lambda r: r.start)
    return [(r, list(per_range[r.range_id].values())) for r in instances if r.range_id in per_range]


def nvtx_gpu(db: NsysDatabase, cross_thread: bool = False) -> Table:
    """GPU time under each NVTX range: kernels launched while the range was open.

    Same-thread attribution (nsys's rule) misses kernels launched from other threads, e.g. PyTorch's
    backward pass, which its autograd thread launches while the main thread's "backward" range is
    open. cross_thread=True counts every kernel whose launch call lies inside the range on any thread
    of the same process.
    """
    ranges = [r for r in load_ranges(db, end_bound="ranges") if not r.ends_elsewhere or cross_thread]
    refuse_runaway_nesting(db, ranges, per_process=cross_thread)
    db.require(RUNTIME, what="CUDA API data")
    from aiperf_lab.metrics.nsys.ops import load_kernel_launches

    launches = load_kernel_launches(db)
    per_range: dict[int, list[KernelLaunch]] = defaultdict(list)
    for k, r in _enclosing(ranges, launches, same_thread=not cross_thread):
        if r is not None:
            per_range[r.range_id].append(k)
    groups: dict[tuple[str, str], list[NvtxRange]] = defaultdict(list)
    for r in {r.range_id: r for r in ranges}.values():
        groups[(r.name, r.style)].append(r)
    rows = []
    for (name, style), instances in groups.items():
        range_time = sum(r.end - r.start for r in instances)
        kernels = [k for r in instances for k in per_range.get(r.range_id, ())]
        gpu_time = sum(k.duration for k in kernels)
        projected = sum(max(k.end for k in ks) - min(k.start for k in ks)
                        for ks in (per_range.get(r.range_id) for r in instances) if ks)
        rows.append([name, style, len(instances), range_time, len(kernels), gpu_time, projected,
                     percent_of(gpu_time, projected) if projected else 0.0])
    rows.sort(key=lambda r: (-r[5], r[0], r[1]))
    rule = "any thread of the process" if cross_thread else "the range's own thread (nsys's rule)"
    notes = [f"Kernels count under a range when their launch call lies inside it on {rule}; nested ranges "
             "each count their kernels.",
             "GPU Span runs from the first such kernel's start to the last one's end, per range instance; "
             "GPU Busy (%) is kernel time over that span."]
    if not cross_thread:
        notes.append("Use --cross-thread to also count kernels launched from other threads while the range "
                     "was open (PyTorch launches the backward pass from its autograd thread).")
    columns = ["Range", "Style", "Instances", "Range Time (ns)", "Kernels", "GPU Kernel Time (ns)",
               "GPU Span (ns)", "GPU Busy (%)"]
    return Table("nvtx_gpu", "GPU Time per NVTX Range", columns, rows, notes)
