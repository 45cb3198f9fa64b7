"""GPU metrics in an nsys export (captured with `nsys profile --gpu-metrics-devices=...`): the GPM-like
signals (GR Active, SMs Active, Tensor Active, DRAM Read/Write Bandwidth) averaged per GPU over the
span of its kernels, and the activity rules (metrics/activity.py) judged on them.

Tables: GPU_METRICS(timestamp, typeId, metricId, value) and TARGET_INFO_GPU_METRICS(typeId, sourceId,
typeName, metricId, metricName), joined on (typeId, metricId); the GPU is typeId & 0xFF. Metric names
carry a unit in brackets ("SMs Active [Throughput %]"); only the "[Throughput %]" ones are used.
The pivot and the means run inside SQLite, so a 10 kHz capture costs no Python per sample.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aiperf_lab.metrics.nsys.db import KERNEL, NsysDatabase
from aiperf_lab.metrics import activity

METRICS = "GPU_METRICS"
METRIC_NAMES = "TARGET_INFO_GPU_METRICS"
WANTED = {"gr": "GR Active", "sm": "SMs Active", "tensor": "Tensor Active", "dram_read": "DRAM Read Bandwidth",
          "dram_write": "DRAM Write Bandwidth"}
HALF_KERNEL = re.compile(r"bf16|fp16|f16|half|hgemm|h884|h1688|h16816|s16816|bf16_|e4m3|e5m2", re.IGNORECASE)
HALF_SHARE_PCT = 20.0          # kernel time in half-precision-named kernels, evidence of bf16/fp16 math
NO_METRICS = "the export has no GPU metrics (capture with nsys profile --gpu-metrics-devices=all, Turing or later)"


@dataclass
class GpuActivity:
    gpu: int
    samples: int
    gr_active: float | None
    sm_active: float | None
    tensor: float | None
    dram: float | None           # read + write bandwidth, % of peak (capped at 100)
    span_ms: float | None


def _metric_ids(db: NsysDatabase) -> dict[int, dict[str, int]]:
    """typeId -> {our key: metricId} for the metrics this export has."""
    found: dict[int, dict[str, int]] = {}
    for type_id, metric_id, name in db.query(f"SELECT typeId, metricId, metricName FROM {METRIC_NAMES}"):
        if not isinstance(name, str) or "[Throughput %]" not in name:
            continue
        base = name.split(" [")[0].strip()
        for key, wanted in WANTED.items():
            if base == wanted:
                found.setdefault(type_id, {})[key] = metric_id
    return found


def _kernel_span(db: NsysDatabase) -> tuple[int, int] | None:
    if not db.has(KERNEL):
        return None
    start, end = db.query(f"SELECT min(start), max([end]) FROM {KERNEL}")[0]
    return (start, end) if start is not None and end is not None else None


def gpu_activity(db: NsysDatabase) -> list[GpuActivity] | None:
    """Per GPU, the means of the wanted metrics over the kernels' span; None without GPU metrics."""
    if not (db.has(METRICS) and db.has(METRIC_NAMES)):
        return None
    span = _kernel_span(db)
    where = f"AND timestamp BETWEEN {int(span[0])} AND {int(span[1])}" if span else ""
    result = []
    for type_id, ids in sorted(_metric_ids(db).items()):
        if "sm" not in ids and "gr" not in ids:
            continue
        columns = ", ".join(f"max(CASE WHEN metricId = {int(metric)} THEN value END) AS {key}"
                            for key, metric in ids.items())
        wanted = ",".join(str(int(m)) for m in ids.values())
        pivot = (f"SELECT timestamp, {columns} FROM {METRICS} WHERE typeId = ? AND metricId IN ({wanted}) {where} "
                 "GROUP BY timestamp")
        means = ", ".join(f"avg({key})" if key in ids else "NULL" for key in ("gr", "sm", "tensor"))
        dram = ("avg(min(100.0, coalesce(dram_read, 0) + coalesce(dram_write, 0)))"
                if "dram_read" in ids or "dram_write" in ids else "NULL")
        row = db.query(f"SELECT count(*), {means}, {dram} FROM ({pivot})", (type_id,))[0]
        if not row[0]:
            continue
        rounded = [round(v, 2) if v is not None else None for v in row[1:]]
        result.append(GpuActivity(type_id & 0xFF, row[0], *rounded,
                                  (span[1] - span[0]) / 1e6 if span else None))
    return result


def half_precision_evidence(db: NsysDatabase) -> str | None:
    """'62.0% of kernel time in kernels named bf16/fp16/half...' when at least HALF_SHARE_PCT, else None."""
    if not db.has(KERNEL):
        return None
    name_column = "demangledName" if db.has_column(KERNEL, "demangledName") else "shortName"
    rows = db.query(f"SELECT [{name_column}], sum([end] - start) FROM {KERNEL} GROUP BY [{name_column}]")
    names = db.strings({r[0] for r in rows})
    total = sum(t or 0 for _n, t in rows)
    half = sum(t or 0 for n, t in rows if HALF_KERNEL.search(names.get(n, "") or ""))
    if not total:
        return None
    share = 100.0 * half / total
    if share < HALF_SHARE_PCT:
        return None
    return (f"{share:.1f}% of kernel time in kernels named for bf16/fp16 (evidence of half-precision math at "
            f">= {HALF_SHARE_PCT:.0f}%)")


def gpu_metric_rules(db: NsysDatabase) -> list[list]:
    """Rows for expert_findings: [rule, fired, evidence, advice], per GPU with GPU metrics."""
    activities = gpu_activity(db)
    rules = ("low_sm_activity", "tensor_idle", "memory_bound")
    if activities is None:
        return [[rule, "n/a", NO_METRICS, ""] for rule in rules]
    if not activities:
        return [[rule, "n/a", "the export's GPU metrics have no SMs Active / GR Active samples in the kernels' span",
                 ""] for rule in rules]
    half = half_precision_evidence(db)
    rows = []
    for a in activities:
        where = f" on GPU {a.gpu} (nsys GPU metrics, {a.samples} samples" + \
            (f" over the {a.span_ms:.1f} ms of kernels)" if a.span_ms is not None else ")")
        for verdict in activity.verdicts(a.gr_active, a.sm_active, a.tensor, a.dram, half, where, "GR Active"):
            rows.append([verdict.rule, verdict.state, verdict.evidence, verdict.advice])
    return rows
