"""Expert rules: problems an nsys export shows without anyone reading the timeline.

Each rule looks at one pattern, says whether it fired, and shows the numbers behind the call:
- pageable_memcpy: host-device copies from or to pageable (not pinned) memory, which the driver
  stages through a bounce buffer and which block the CPU even when issued as "async".
- sync_memcpy: synchronous cudaMemcpy/cuMemcpy calls (the host waits for the GPU each time).
- host_sync: the CPU synchronizes with the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, event
  waits) so often that it cannot queue work ahead: at least 50 times a second of trace.
- gpu_low_utilization: the GPU was busy less than half of the span from its first to its last op.
- tiny_kernels: most launches are shorter than 10 us, so launch overhead dominates.
- low_sm_activity, tensor_idle, memory_bound: from the export's GPU metrics (nsys
  --gpu-metrics-devices, read by nsys/gpu_metrics.py), by the rules of metrics/activity.py; "n/a" without them.
Thresholds are the module constants below; the numbers are in the Evidence column either way.
"""

from __future__ import annotations

import re

from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, RUNTIME, NsysDatabase
from aiperf_lab.metrics.nsys.gpu_metrics import gpu_metric_rules
from aiperf_lab.metrics.nsys.reports import strip_api_version
from aiperf_lab.metrics.summary_stats import percent_of
from aiperf_lab.metrics.tables import Table

PAGEABLE = 0                   # ENUM_CUDA_MEM_KIND: Pageable
HOST_DEVICE_KINDS = (1, 2)     # Host-to-Device, Device-to-Host
SYNC_RATE_PER_S = 50.0         # host_sync fires at this many synchronizations per second of trace
LOW_UTILIZATION_PCT = 50.0
TINY_KERNEL_NS = 10_000
TINY_SHARE_PCT = 50.0
_SYNC_API = re.compile(r"^(cudaDeviceSynchronize|cudaStreamSynchronize|cudaEventSynchronize|cuCtxSynchronize|"
                       r"cuStreamSynchronize|cuEventSynchronize)")
_SYNC_MEMCPY = re.compile(r"^(cudaMemcpy|cudaMemcpy2D|cudaMemcpy3D|cudaMemcpyToSymbol|cudaMemcpyFromSymbol|"
                          r"cuMemcpy[A-Za-z0-9]*)$")

COLUMNS = ["Rule", "Fired", "Evidence", "Advice"]


def _span(db: NsysDatabase) -> int:
    bounds = [db.query(f"SELECT min(start), max([end]) FROM {t}")[0] for t in (KERNEL, MEMCPY, RUNTIME) if db.has(t)]
    starts = [a for a, _ in bounds if a is not None]
    ends = [b for _, b in bounds if b is not None]
    return max(ends) - min(starts) if starts and ends else 0


def _pageable(db: NsysDatabase) -> list:
    if not (db.has_column(MEMCPY, "srcKind") and db.has_column(MEMCPY, "dstKind")):
        return ["pageable_memcpy", "n/a", "the export has no memory kinds for copies", ""]
    kinds = ",".join(map(str, HOST_DEVICE_KINDS))
    n, size, time = db.query(
        f"SELECT count(*), coalesce(sum(bytes), 0), coalesce(sum([end] - start), 0) FROM {MEMCPY} "
        f"WHERE copyKind IN ({kinds}) AND (srcKind = {PAGEABLE} OR dstKind = {PAGEABLE})")[0]
    total = db.query(f"SELECT count(*) FROM {MEMCPY} WHERE copyKind IN ({kinds})")[0][0]
    return ["pageable_memcpy", "yes" if n else "no",
            f"{n} of {total} host-device copies use pageable memory ({size / 1e6:.1f} MB, {time / 1e6:.2f} ms on the GPU)",
            "pin the host buffers (tensor.pin_memory(), DataLoader(pin_memory=True)) and copy with non_blocking=True"
            if n else ""]


def _api_rows(db: NsysDatabase) -> list[tuple[str, int, int]]:
    """(API name, calls, total time) per API name: summed by SQLite, so millions of calls cost no memory."""
    rows = db.query(f"SELECT nameId, count(*), sum([end] - start) FROM {RUNTIME} GROUP BY nameId")
    names = db.strings({r[0] for r in rows})
    return [(strip_api_version(names.get(i, "")), n, total) for i, n, total in rows]


def _matching(calls: list[tuple[str, int, int]], pattern: re.Pattern[str]) -> tuple[int, int]:
    """(calls, total time) of the APIs whose name matches."""
    hits = [(n, total) for name, n, total in calls if pattern.match(name)]
    return sum(n for n, _t in hits), sum(t for _n, t in hits)


def _sync_memcpy(calls: list[tuple[str, int, int]]) -> list:
    count, time = _matching(calls, _SYNC_MEMCPY)
    return ["sync_memcpy", "yes" if count else "no",
            f"{count} synchronous memcpy calls, {time / 1e6:.2f} ms of CPU time in them",
            "use cudaMemcpyAsync on a stream with pinned memory, and synchronize once where the result is needed"
            if count else ""]


def _host_sync(calls: list[tuple[str, int, int]], span: int) -> list:
    # Frequency, not time: a GPU-bound loop that syncs once in a while waits long and is fine; one that
    # syncs every step keeps the CPU from queueing work ahead, which the GPU pays for in idle gaps.
    count, time = _matching(calls, _SYNC_API)
    share = percent_of(time, span) if span else 0.0
    rate = count / (span / 1e9) if span else 0.0
    fired = rate >= SYNC_RATE_PER_S
    return ["host_sync", "yes" if fired else "no",
            f"{count} synchronize calls ({rate:.0f}/s, fires at {SYNC_RATE_PER_S:.0f}/s), {time / 1e6:.2f} ms, "
            f"{share:.1f}% of the {span / 1e6:.1f} ms traced",
            "find who synchronizes (tensor.item(), .cpu(), print of a GPU tensor; profile with --cudabacktrace) "
            "and move it out of the hot loop" if fired else ""]


def _utilization(db: NsysDatabase) -> list:
    from aiperf_lab.metrics.nsys.ops import gpu_idle

    summary = gpu_idle(db)[0] if db.has(KERNEL) or db.has(MEMCPY) else None
    devices = [dict(zip(summary.columns, row)) for row in summary.rows if row[1] == "all"] if summary else []
    if not devices:
        return ["gpu_low_utilization", "n/a", "no GPU operations in the export", ""]
    worst = min(devices, key=lambda d: d["Busy (%)"])
    fired = worst["Busy (%)"] < LOW_UTILIZATION_PCT
    return ["gpu_low_utilization", "yes" if fired else "no",
            f"GPU {worst['Device']} busy {worst['Busy (%)']:.1f}% of {worst['Span (ns)'] / 1e6:.1f} ms "
            f"(fires under {LOW_UTILIZATION_PCT:.0f}%); largest gap {worst['Largest Gap (ns)'] / 1e6:.2f} ms",
            "the GPU waits on the host: overlap data loading and CPU work with GPU work, remove syncs, "
            "batch small launches (CUDA graphs)" if fired else ""]


def _tiny_kernels(db: NsysDatabase) -> list:
    if not db.has(KERNEL):
        return ["tiny_kernels", "n/a", "no kernels in the export", ""]
    n, tiny = db.query(f"SELECT count(*), coalesce(sum([end] - start < {TINY_KERNEL_NS}), 0) FROM {KERNEL}")[0]
    share = percent_of(tiny, n) if n else 0.0
    fired = share >= TINY_SHARE_PCT
    return ["tiny_kernels", "yes" if fired else "no",
            f"{tiny} of {n} kernels ({share:.1f}%) ran under {TINY_KERNEL_NS / 1000:.0f} us (fires at {TINY_SHARE_PCT:.0f}%)",
            "fuse small operations (torch.compile), use larger batches or CUDA graphs" if fired else ""]


def expert_findings(db: NsysDatabase) -> Table:
    calls = _api_rows(db) if db.has(RUNTIME) else []
    no_calls = "no CUDA API calls in the export"
    rows = [_pageable(db) if db.has(MEMCPY) else ["pageable_memcpy", "n/a", "no memory copies in the export", ""],
            _sync_memcpy(calls) if calls else ["sync_memcpy", "n/a", no_calls, ""],
            _host_sync(calls, _span(db)) if calls else ["host_sync", "n/a", no_calls, ""],
            _utilization(db), _tiny_kernels(db), *gpu_metric_rules(db)]
    return Table("expert_findings", "Expert Rules", COLUMNS, rows,
                 ["Rules and thresholds: aiperf_lab/metrics/nsys/expert.py. 'n/a': the export lacks the data the rule needs."])
