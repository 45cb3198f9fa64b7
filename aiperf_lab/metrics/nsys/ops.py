"""GPU operations of an nsys export: kernels, memcpy and memset, each joined to its launching call."""

from __future__ import annotations

from dataclasses import dataclass

from aiperf_lab.metrics.analysis import GpuOp
from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, MEMSET, RUNTIME, NsysDatabase

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
