"""GPU operations of an nsys export: kernels, memcpy and memset, each joined to its launching call."""

from __future__ import annotations

import sqlite3
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable
from itertools import chain, compress, islice
from operator import eq, ge, itemgetter

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.analysis import GpuOp
from aiperf_lab.metrics.nsys.db import (KERNEL, MEMCPY, MEMSET, RUNTIME, TIME_BOUND, NsysDatabase, read_failure,
                                        integers_or_none)
from aiperf_lab.metrics.tables import Table

# Join a GPU activity row to its runtime call: same correlation id, same process.
_LAUNCH_JOIN = ("LEFT JOIN " + RUNTIME + " AS r ON r.correlationId = g.correlationId "
                "AND (r.globalTid & 0xFFFFFFFFFF000000) = g.globalPid")


@dataclass(frozen=True)
class KernelLaunch:
    kernel_id: int
    name: str
    duration: int
    start: int            # GPU start and end of the kernel
    end: int
    device: int
    stream: int
    api_start: int | None  # the launching runtime call, when found
    api_end: int | None
    global_tid: int | None


def load_kernel_launches(db: NsysDatabase, variant: str = "demangled") -> list[KernelLaunch]:
    """Kernels joined to the runtime call that launched them (same correlation id, same process)."""
    db.require("StringIds", what="StringIds table")
    db.require(KERNEL, what="CUDA kernel data")
    name_col = db.kernel_name_column(variant)
    cap = None
    if db.has(RUNTIME):
        from aiperf_lab.metrics.nsys.launch_join import runaway_cap, runaway_join_error
        # The join repeats a kernel once per call sharing its correlation id: bounded, so that a damaged
        # export is refused in one line rather than joined into millions of rows (launch_join).
        cap = runaway_cap(db.count(KERNEL))
        sql = (f"SELECT g.rowid, g.{name_col}, g.start, g.[end], g.deviceId, g.streamId, "
               f"r.start, r.[end], r.globalTid FROM {KERNEL} AS g {_LAUNCH_JOIN} LIMIT {cap + 1}")
    else:
        sql = (f"SELECT rowid, {name_col}, start, [end], deviceId, streamId, NULL, NULL, NULL "
               f"FROM {KERNEL}")
    rows = db.query(sql)
    if cap is not None and len(rows) > cap:
        raise runaway_join_error(db, db.count(KERNEL), f"more than {cap}")
    names = db.strings({r[1] for r in rows})
    return [KernelLaunch(kid, names.get(nid, ""), end - start, start, end, dev, stream, a0, a1, gtid)
            for kid, nid, start, end, dev, stream, a0, a1, gtid in rows]




def as_gpu_op(kernel: KernelLaunch) -> GpuOp:
    return GpuOp(kernel.name, "kernel", kernel.device, kernel.stream, kernel.start, kernel.end, kernel.api_start)


def load_gpu_ops(db: NsysDatabase, variant: str = "demangled") -> list[GpuOp]:
    """Every kernel, memcpy and memset on the GPU, with the start of its launching call when known."""
    if not (db.has(KERNEL) or db.has(MEMCPY) or db.has(MEMSET)):
        db.require(KERNEL, what="CUDA kernel data")
    ops = []
    if db.has(KERNEL):
        ops = [as_gpu_op(k) for k in load_kernel_launches(db, variant)]
    labels = db.memcpy_labels()
    for table, kind in ((MEMCPY, "memcpy"), (MEMSET, "memset")):
        if not db.has(table):
            continue
        detail = "g.copyKind" if kind == "memcpy" else "NULL"
        launch = "r.start" if db.has(RUNTIME) else "NULL"
        join = _LAUNCH_JOIN if db.has(RUNTIME) else ""
        for start, end, device, stream, copy_kind, launch_start in db.query(
                f"SELECT g.start, g.[end], g.deviceId, g.streamId, {detail}, {launch} FROM {table} AS g {join}"):
            name = f"[CUDA memcpy {labels.get(copy_kind, 'Unknown')}]" if kind == "memcpy" else "[CUDA memset]"
            ops.append(GpuOp(name, kind, device, stream, start, end, launch_start))
    return ops


# --- the overview's reports over an export of millions of kernels ----------------------------------
# kernel_breakdown: SQLite sums per name (or cuda_gpu_kern_sum's sums), never one object per kernel.
# gpu_idle: the ops as columns (the starts a list, the rest 8-byte arrays) sorted and swept per lane; past
# IN_MEMORY_OPS streamed from SQLite in time order, so memory stays bounded by the report.

def kernel_breakdown(db: NsysDatabase) -> Table:
    """analysis.kernel_breakdown of every kernel, memcpy and memset, from SQL totals per name (the kernels'
    taken from cuda_gpu_kern_sum's groups when that report ran first on this export, as in the overview)."""
    from aiperf_lab.metrics.analysis import kernel_breakdown_of_totals

    name_col = db.kernel_name_column()
    totals = db.memo.get(("kernel_totals", name_col))  # what cuda_gpu_kern_sum read (and checked) already
    read = {KERNEL: (name_col, "start", "end"), MEMCPY: ("copyKind", "start", "end"), MEMSET: ("start", "end")}
    # Values are checked where they are read: the kernels' by cuda_gpu_kern_sum when it summed them.
    present = {table for table, columns in read.items()
               if (table == KERNEL and totals is not None) or db.has(table, columns)}
    if not present:
        db.require(KERNEL, what="CUDA kernel data")
    items: list[tuple[str, str, int, int]] = []
    if KERNEL in present:
        db.require("StringIds", what="StringIds table")
        rows = totals
        if rows is None:
            rows = db.query(f"SELECT [{name_col}], sum([end] - start), count(*) FROM {KERNEL} GROUP BY 1")
        names = db.strings({r[0] for r in rows})
        items += [(names.get(nid, ""), "kernel", total, n) for nid, total, n in rows]
    if MEMCPY in present:
        labels = db.memcpy_labels()
        items += [(f"[CUDA memcpy {labels.get(kind, 'Unknown')}]", "memcpy", total, n) for kind, total, n in
                  db.query(f"SELECT copyKind, sum([end] - start), count(*) FROM {MEMCPY} GROUP BY 1")]
    if MEMSET in present:
        items += [("[CUDA memset]", "memset", total, n) for total, n in
                  db.query(f"SELECT sum([end] - start), count(*) FROM {MEMSET}") if n]
    return kernel_breakdown_of_totals(items)


_SOURCES = ((KERNEL, "kernel"), (MEMCPY, "memcpy"), (MEMSET, "memset"))
_IDLE_COLUMNS = ("deviceId", "streamId", "start", "end")
_TIME_OK = f"BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"
CHUNK_ROWS = 1 << 18  # rows per read: bounds the transient lists, not the result
IN_MEMORY_OPS = 3_000_000  # gpu_idle sorts this many ops in memory (about 330 MB), more stream from SQL


class _GpuOpColumns:
    """Every kernel, memcpy and memset of an export as columns, in (source, rowid) order: index i is op i,
    kernels first, then memcpy, then memset. The starts are a list (the time sort and the sweep read them
    as they are, with no int made per look-up); the other columns array('q'), 8 bytes a value."""

    def __init__(self) -> None:
        self.start: list[int] = []
        self.device, self.stream, self.end = (array("q") for _ in range(3))
        self.id_pairs: set[tuple[int, int]] = set()  # (device, stream) of ranges where neither varies
        self.ids_vary = False                        # some range had several devices or streams
        # Per chunk read: (first index, source, first rowid, the rowids where they are not consecutive).
        self.chunks: list[tuple[int, int, int, list[int] | None]] = []

    def read(self, db: NsysDatabase, source: int, table: str) -> None:
        """The table's rows in rowid order, a rowid range at a time. Each column travels as one
        group_concat string parsed by json in C (no tuple per row); the device and stream ids when they
        are those of the range's first row throughout, and rowids without holes, do not travel at all
        (a group_concat costs as much as the scan: a second query fetches them only for a range that
        needs them)."""
        low, top = db.query(f"SELECT min(rowid), max(rowid) FROM {table}")[0]
        while low is not None and low <= top:
            high = min(low + CHUNK_ROWS - 1, top)
            within = f"FROM {table} NOT INDEXED WHERE rowid BETWEEN {low} AND {high}"
            first = db.query(f"SELECT deviceId, streamId {within} LIMIT 1")
            if not first:  # a hole in the rowids: on to the next row there is
                low = db.query(f"SELECT min(rowid) FROM {table} WHERE rowid > {high}")[0][0]
                continue
            device, stream = first[0]
            # The values are checked as they are read (no scan of the table first): a time out of range
            # or not an integer is NULL in the list (which then comes up short), an id not an integer shows.
            count, first_rowid, starts, ends, others, wrong_ids = db.query(
                f"SELECT count(*), min(rowid), group_concat(CASE WHEN start {_TIME_OK} THEN start END), "
                f"group_concat(CASE WHEN [end] {_TIME_OK} THEN [end] END), total(deviceId IS NOT ? OR streamId "
                f"IS NOT ?), max(typeof(deviceId) <> 'integer' OR typeof(streamId) <> 'integer') {within}",
                (device, stream))[0]
            sparse = count != high - low + 1
            extra = ["group_concat(deviceId)", "group_concat(streamId)"] if others else []
            extra += ["group_concat(rowid)"] if sparse else []
            texts = db.query(f"SELECT {', '.join(extra)} {within}")[0] if extra else ()
            fetched = [integers_or_none(text, count) for text in texts]
            if others:
                self.ids_vary = True
                ids = fetched[:2]
            else:
                self.id_pairs.add((device, stream))
                ids = [array("q", [device]) * count, array("q", [stream]) * count] if not wrong_ids else [None]
            columns = [integers_or_none(starts, count), integers_or_none(ends, count), *ids]
            if wrong_ids or any(column is None for column in columns):
                db.check(table, _IDLE_COLUMNS)  # names the column
                raise InputError(f"{db.path}: not a valid nsys export: {table} holds times or ids that are not "
                                 "integers")
            self._add_chunk(db, table, source, count, first_rowid, columns, fetched[-1] if sparse else None)
            low = high + 1

    def _add_chunk(self, db: NsysDatabase, table: str, source: int, count: int, first_rowid: int,
                   columns: list, rowids: list[int] | None) -> None:
        if any(len(column) != count for column in columns) or (rowids is not None and len(rowids) != count):
            raise InputError(f"{db.path}: not a valid nsys export: {table} changed while it was read")
        if rowids is not None and any(map(ge, rowids, islice(rowids, 1, None))):
            rowids, *columns = (list(c) for c in zip(*sorted(zip(rowids, *columns))))  # keep rowid order
        self.chunks.append((len(self.start), source, first_rowid, rowids))
        for target, values in zip((self.start, self.end, self.device, self.stream), columns):
            target.extend(values)

    def ref(self, index: int) -> tuple[int, int]:
        """(source, rowid) of op `index`."""
        first, source, first_rowid, rowids = self.chunks[bisect_right(self.chunks, index, key=itemgetter(0)) - 1]
        return source, (first_rowid + index - first) if rowids is None else rowids[index - first]

    def time_order(self) -> list[int]:
        """Op indices by (device, start, end, index): one stable sort by start (then by device), and the
        runs of equal starts, if any, put in (end, index) order where they lie."""
        start_of, end_of = self.start.__getitem__, self.end.__getitem__
        order = sorted(range(len(self.start)), key=start_of)
        tied = compress(range(len(order) - 1), map(eq, map(start_of, order), map(start_of, islice(order, 1, None))))
        run_first = run_last = -2
        for place in chain(tied, [-2]):  # the last entry closes the final run
            if place == run_last + 1:
                run_last = place
                continue
            if run_first >= 0:
                order[run_first:run_last + 2] = sorted(order[run_first:run_last + 2], key=lambda i: (end_of(i), i))
            run_first = run_last = place
        if self.ids_vary or len({device for device, _stream in self.id_pairs}) > 1:
            order.sort(key=self.device.__getitem__)
        return order


def gpu_idle(db: NsysDatabase, top_gaps: int = 10) -> list[Table]:
    """analysis.gpu_idle of every kernel, memcpy and memset. Up to IN_MEMORY_OPS operations: read as
    columns, sorted by time in Python and each lane swept in one tight loop (about 110 bytes an op at the
    peak); more: streamed from SQLite in time order, op by op (memory bounded by the lanes, 3-4x slower)."""
    from aiperf_lab.metrics.analysis import IdleSweep

    present = [(source, table) for source, (table, _kind) in enumerate(_SOURCES)
               if db.has(table, ())]  # the values are checked as they are read
    if not present:
        db.require(KERNEL, what="CUDA kernel data")
    if any(table == KERNEL for _source, table in present):
        db.require("StringIds", what="StringIds table")
    sweep = IdleSweep(top_gaps)
    spans = [db.query(f"SELECT max(rowid) - min(rowid) + 1 FROM {table}")[0][0] or 0 for _source, table in present]
    if sum(spans) <= IN_MEMORY_OPS:  # the rowid spans bound the row counts
        ref_of = _sweep_in_memory(db, present, sweep)
    else:
        ref_of = _sweep_streamed(db, present, sweep)
    refs = {op: ref_of(op) for op in set(sweep.largest_refs())}
    keys = _op_keys(db, set(refs.values()))
    names = db.strings({key for (source, _rowid), key in keys.items() if source == 0 and isinstance(key, int)})
    labels = db.memcpy_labels() if any(table == MEMCPY for _source, table in present) else {}

    def name_of(op) -> str:
        ref = refs[op]
        source, key = ref[0], keys.get(ref)
        if source == 0:
            return names.get(key, "")
        return f"[CUDA memcpy {labels.get(key, 'Unknown')}]" if source == 1 else "[CUDA memset]"

    return sweep.tables(name_of, lambda after: _launch_starts(db, [ref_of(op) for op in after]))


def _sweep_in_memory(db: NsysDatabase, present: list[tuple[int, str]], sweep) -> Callable[[int], tuple[int, int]]:
    """Every lane into `sweep` from the ops as columns; an op is its index there."""
    ops = _GpuOpColumns()
    for source, table in present:
        ops.read(db, source, table)
    order = ops.time_order()
    device_of, stream_of, start_of, end_of = (c.__getitem__ for c in (ops.device, ops.stream, ops.start, ops.end))
    first = 0
    while first < len(order):
        device = device_of(order[first])
        last = bisect_right(order, device, lo=first, key=device_of)
        lane = order if (first, last) == (0, len(order)) else order[first:last]
        first = last
        sweep.add_lane(device, None, map(start_of, lane), map(end_of, lane), lane)
        one_stream = not ops.ids_vary and len(ops.id_pairs) == 1
        if one_stream or len(set(map(stream_of, lane))) == 1:  # one stream: its lane is the device's, op for op
            sweep.lanes[(device, stream_of(lane[0]))] = list(sweep.lanes[(device, None)])
            continue
        streams: dict[int, list[int]] = {}
        for index, stream in zip(lane, map(stream_of, lane)):
            members = streams.get(stream)
            if members is None:
                streams[stream] = [index]
            else:
                members.append(index)
        for stream, members in streams.items():
            sweep.add_lane(device, stream, map(start_of, members), map(end_of, members), members)
    return ops.ref


def _sweep_streamed(db: NsysDatabase, present: list[tuple[int, str]], sweep) -> Callable[[tuple], tuple[int, int]]:
    """Every lane into `sweep` from one ordered query, op by op; an op is its (source, rowid)."""
    sql = " UNION ALL ".join(f"SELECT deviceId, streamId, start, [end], {source}, rowid FROM {table}"
                             for source, table in present) + " ORDER BY 1, 3, 4, 5, 6"
    add = sweep.add
    try:
        for device, stream, start, end, source, rowid in db.con.execute(sql):
            add(device, stream, start, end, (source, rowid))
    except sqlite3.DatabaseError as exc:
        raise read_failure(db.path, exc) from None
    return lambda op: op


def _op_keys(db: NsysDatabase, refs: set[tuple[int, int]]) -> dict[tuple[int, int], object]:
    """The name id of each kernel (or the copy kind of each memcpy) from its (source, rowid)."""
    keys = {}
    for source, rowid in refs:
        column = {0: f"[{db.kernel_name_column()}]", 1: "copyKind", 2: "NULL"}[source]
        found = db.query(f"SELECT {column} FROM {_SOURCES[source][0]} WHERE rowid = ?", (rowid,))
        keys[(source, rowid)] = found[0][0] if found else None
    return keys


def _launch_starts(db: NsysDatabase, refs: list[tuple[int, int]]) -> list[int | None]:
    """Start of the runtime call that launched each op (same correlation id and process), or None."""
    if RUNTIME not in db.tables or not refs:
        return [None] * len(refs)
    ids = []
    for source, rowid in refs:
        found = db.query(f"SELECT correlationId, globalPid FROM {_SOURCES[source][0]} WHERE rowid = ?", (rowid,))
        ids.append(found[0] if found else (None, None))
    wanted = sorted({c for c, _p in ids if isinstance(c, int)})
    starts: dict[tuple[int, int], int] = {}
    if wanted:
        marks = ",".join("?" * len(wanted))
        for correlation, process, start in db.query(
                f"SELECT correlationId, globalTid & 0xFFFFFFFFFF000000, start FROM {RUNTIME} "
                f"WHERE correlationId IN ({marks}) ORDER BY rowid", tuple(wanted)):
            if isinstance(start, int):
                starts.setdefault((correlation, process), start)
    return [starts.get(pair) for pair in ids]
