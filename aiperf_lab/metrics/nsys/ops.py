"""GPU operations of an nsys export: kernels, memcpy and memset, each joined to its launching call."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.analysis import GpuOp
from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, MEMSET, RUNTIME, NsysDatabase
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
    if db.has(RUNTIME):
        from aiperf_lab.metrics.nsys.launch_join import refuse_a_runaway_sql_join
        refuse_a_runaway_sql_join(db, KERNEL, RUNTIME)
        sql = (f"SELECT g.rowid, g.{name_col}, g.start, g.[end], g.deviceId, g.streamId, "
               f"r.start, r.[end], r.globalTid FROM {KERNEL} AS g {_LAUNCH_JOIN}")
    else:
        sql = (f"SELECT rowid, {name_col}, start, [end], deviceId, streamId, NULL, NULL, NULL "
               f"FROM {KERNEL}")
    rows = db.query(sql)
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


# --- reports in memory bounded by the report, not the export ------------------------------------
# kernel_breakdown and gpu_idle over an export of millions of kernels: SQLite sums and sorts, Python
# keeps per-name totals or per-lane state and the top gaps, never one object per kernel.

def kernel_breakdown(db: NsysDatabase) -> Table:
    """analysis.kernel_breakdown of every kernel, memcpy and memset, from SQL totals per name."""
    from aiperf_lab.metrics.analysis import kernel_breakdown_of_totals

    if not (db.has(KERNEL) or db.has(MEMCPY) or db.has(MEMSET)):
        db.require(KERNEL, what="CUDA kernel data")
    items: list[tuple[str, str, int, int]] = []
    if db.has(KERNEL):
        db.require("StringIds", what="StringIds table")
        name_col = db.kernel_name_column()
        rows = db.query(f"SELECT [{name_col}], sum([end] - start), count(*) FROM {KERNEL} GROUP BY 1")
        names = db.strings({r[0] for r in rows})
        items += [(names.get(nid, ""), "kernel", total, n) for nid, total, n in rows]
    if db.has(MEMCPY):
        labels = db.memcpy_labels()
        items += [(f"[CUDA memcpy {labels.get(kind, 'Unknown')}]", "memcpy", total, n) for kind, total, n in
                  db.query(f"SELECT copyKind, sum([end] - start), count(*) FROM {MEMCPY} GROUP BY 1")]
    if db.has(MEMSET):
        items += [("[CUDA memset]", "memset", total, n) for total, n in
                  db.query(f"SELECT sum([end] - start), count(*) FROM {MEMSET}") if n]
    return kernel_breakdown_of_totals(items)


_SOURCES = ((KERNEL, "kernel"), (MEMCPY, "memcpy"), (MEMSET, "memset"))
_REF_BITS = 40


def gpu_idle(db: NsysDatabase, top_gaps: int = 10) -> list[Table]:
    """analysis.gpu_idle of every kernel, memcpy and memset, streamed from SQLite in time order."""
    from aiperf_lab.metrics.analysis import IdleSweep

    if not (db.has(KERNEL) or db.has(MEMCPY) or db.has(MEMSET)):
        db.require(KERNEL, what="CUDA kernel data")
    if db.has(KERNEL):
        db.require("StringIds", what="StringIds table")
    parts = [f"SELECT deviceId, streamId, start, [end], {source << _REF_BITS} + rowid FROM {table}"
             for source, (table, _kind) in enumerate(_SOURCES) if db.has(table)]
    # An op travels as one integer, source << 40 | rowid, so ordering by it breaks ties in (device, start,
    # end) as load_gpu_ops does: kernels, then memcpy, then memset, each by rowid.
    sql = " UNION ALL ".join(parts) + " ORDER BY 1, 3, 4, 5"
    sweep = IdleSweep(top_gaps)
    add = sweep.add
    try:
        for device, stream, start, end, ref in db.con.execute(sql):
            add(device, stream, start, end, ref)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db.path}: the export is damaged or truncated ({exc})") from None
    keys = {ref: _op_key(db, ref) for ref in set(sweep.largest_refs())}
    names = db.strings({key for ref, key in keys.items() if ref >> _REF_BITS == 0})
    labels = db.memcpy_labels() if db.has(MEMCPY) else {}

    def name_of(ref: int) -> str:
        source, key = ref >> _REF_BITS, keys[ref]
        if source == 0:
            return names.get(key, "")
        return f"[CUDA memcpy {labels.get(key, 'Unknown')}]" if source == 1 else "[CUDA memset]"

    return sweep.tables(name_of, lambda after: _launch_starts(db, after))


def _op_key(db: NsysDatabase, ref: int):
    """The name id of a kernel (or the copy kind of a memcpy) from its packed reference."""
    source, rowid = ref >> _REF_BITS, ref & ((1 << _REF_BITS) - 1)
    column = {0: f"[{db.kernel_name_column()}]", 1: "copyKind", 2: "NULL"}[source]
    found = db.query(f"SELECT {column} FROM {_SOURCES[source][0]} WHERE rowid = ?", (rowid,))
    return found[0][0] if found else None


def _launch_starts(db: NsysDatabase, refs: list[int]) -> list[int | None]:
    """Start of the runtime call that launched each op (same correlation id and process), or None."""
    if RUNTIME not in db.tables or not refs:
        return [None] * len(refs)
    ids = []
    for ref in refs:
        found = db.query(f"SELECT correlationId, globalPid FROM {_SOURCES[ref >> _REF_BITS][0]} WHERE rowid = ?",
                         (ref & ((1 << _REF_BITS) - 1),))
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
