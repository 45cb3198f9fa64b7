"""The `nsys stats` reports, recomputed from an export with the same columns, rounding and row order.

Each function returns a Table, or raises MissingData with the sentence nsys prints when it skips a
report ("... does not contain CUDA kernel data.").
"""

from __future__ import annotations

from collections import defaultdict

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, MEMSET, RUNTIME, NsysDatabase
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, raw_summary, summary_rows
from aiperf_lab.metrics.tables import Fixed3, Table

def cuda_gpu_kern_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA GPU Kernel Summary: every kernel on every device and stream, grouped by name."""
    db.require("StringIds", what="StringIds table")
    name_col = db.kernel_name_column(variant)
    # The columns this report reads are checked as it reads them: it must stay near bare-SQL speed.
    db.require(KERNEL, what="CUDA kernel data", columns=())
    by_id = db.grouped_spans(KERNEL, name_col)
    names = db.strings({name_id for name_id, _ in by_id})
    groups: dict[str, list[int]] = defaultdict(list)
    for name_id, durations in by_id:
        groups[names.get(name_id, "")].extend(durations)
    # nsys: ORDER BY Total DESC, Instances, Name
    return Table("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", [*SUM_COLUMNS, "Name"],
                 summary_rows(groups), notes=_graph_notes(db))


def _graph_notes(db: NsysDatabase) -> list[str]:
    if db.has("CUPTI_ACTIVITY_KIND_GRAPH_TRACE") and db.count("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"):
        return ["CUDA graphs were traced as whole graphs (--cuda-graph-trace=graph): kernels inside "
                "graphs are not in this table; profile with --cuda-graph-trace=node to see them."]
    return []


def strip_api_version(name: str) -> str:
    """nsys drops a 6-character '_vNNNN' suffix: cudaLaunchKernel_v7000 -> cudaLaunchKernel.

    Longer suffixes stay (cudaStreamIsCapturing_v10000, cuGetProcAddress_v2).
    """
    if len(name) >= 6 and name[-6:-4] == "_v":
        return name[:-6]
    return name


def cuda_api_sum(db: NsysDatabase) -> Table:
    """CUDA API Summary: runtime and driver calls grouped by name."""
    db.require("StringIds", what="StringIds table")
    db.require(RUNTIME, what="CUDA API data", columns=())  # checked as it is read
    by_id = db.grouped_spans(RUNTIME, "nameId")
    names = db.strings({name_id for name_id, _ in by_id})
    groups: dict[str, list[int]] = defaultdict(list)
    for name_id, durations in by_id:
        groups[strip_api_version(names.get(name_id, ""))].extend(durations)
    columns = ["Time (%)", "Total Time (ns)", "Num Calls", *SUM_COLUMNS[3:], "Name"]
    return Table("cuda_api_sum", "CUDA API Summary", columns, summary_rows(groups, count_label_rows=False))


def _memory_operations(db: NsysDatabase, value_sql: str) -> dict[str, list[int]]:
    if not db.has(MEMCPY) and not db.has(MEMSET):
        raise MissingData(f"{db.path.name} does not contain GPU memory data.")
    groups: dict[str, list[int]] = {}
    if db.has(MEMCPY):
        labels = db.memcpy_labels()  # nsys 2025.3 skips the report where the export has no enum table
        for kind, values in db.grouped_integers("copyKind", value_sql, MEMCPY):
            label = labels.get(kind)
            if label is not None:  # nsys joins on the enum: unknown kinds drop out
                groups[f"[CUDA memcpy {label}]"] = values
    if db.has(MEMSET):
        for _key, values in db.grouped_integers("1", value_sql, MEMSET):
            groups["[CUDA memset]"] = values
    return groups


def cuda_gpu_mem_time_sum(db: NsysDatabase) -> Table:
    """CUDA GPU MemOps Summary (by Time): memcpy by direction and memset."""
    groups = _memory_operations(db, "[end] - start")
    columns = ["Time (%)", "Total Time (ns)", "Count", *SUM_COLUMNS[3:], "Operation"]
    return Table("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", columns,
                 summary_rows(groups, count_label_rows=False))


Megabytes = Fixed3  # decimal megabytes, printed with three decimals


def _megabytes(value: float) -> Megabytes:
    return Megabytes(value / 1e6)


def cuda_gpu_mem_size_sum(db: NsysDatabase) -> Table:
    """CUDA GPU MemOps Summary (by Size), in decimal megabytes; ordered by total bytes."""
    groups = _memory_operations(db, "bytes")
    rows = []
    for name in sorted(groups):
        total, n, mean, med, low, high, stdev = raw_summary(groups[name])
        rows.append((total, [_megabytes(total), n, _megabytes(mean), _megabytes(med), _megabytes(low),
                             _megabytes(high), _megabytes(stdev), name]))
    rows.sort(key=lambda r: -r[0])
    columns = ["Total (MB)", "Count", "Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)", "StdDev (MB)", "Operation"]
    return Table("cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", columns, [r[1] for r in rows])
