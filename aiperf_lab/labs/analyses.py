"""What the runner derives from a run's profile so checks can read it.

`derive(tables)` turns the standard tables into named measurements (top kernel, category shares,
NVTX medians, concurrency, rule verdicts, ncu figures per kernel). The named analyses an exercise's
profile recipe asks for (`analyses: [...]`) go further on the nsys export itself: comparing with
`nsys stats`, running the walkthrough's SQL, reading backtraces, scoping the breakdown to NVTX ranges.
Each returns (tables, measurements).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable

from aiperf_lab.metrics.tables import Table


def identifier(text: str) -> str:
    """':computing_softmax' -> 'computing_softmax'; 'NCCL:AllReduce' -> 'NCCL_AllReduce'."""
    return re.sub(r"\W+", "_", text.lstrip(":")).strip("_")


def kernel_short_name(name: str) -> str:
    """'void copy_strided<4>(float const*, long long)' -> 'copy_strided';
    'at::native::(anonymous namespace)::layer_norm_kernel(int)' -> 'layer_norm_kernel'."""
    head = name.replace("(anonymous namespace)", "").split("(", 1)[0]
    head = head.split("<", 1)[0].strip()
    last = head.split("::")[-1].split()
    return identifier(last[-1] if last else head)


# OS runtime calls by what they do, whichever libc entry point the program went through.
OSRT_GROUPS = {"open": re.compile(r"^(open|open64|openat|openat64|fopen|fopen64)$"),
               "read": re.compile(r"^(read|pread|pread64|readv|preadv|fread)$"),
               "sleep": re.compile(r"^(nanosleep|clock_nanosleep|usleep|sleep)$")}


def derive(tables: dict[str, Table], recipe: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for table in tables.values():
        out.update(_from_table(table, recipe))
    return out


def _from_table(table: Table, recipe: dict[str, Any]) -> dict[str, Any]:
    name, rows = table.name, table.rows
    if name == "cuda_gpu_kern_sum" and rows:
        from aiperf_lab.metrics.analysis import categorize
        top = rows[0]
        return {"top_kernel": top[-1], "top_kernel_pct": top[0], "top_kernel_calls": top[2],
                "top_kernel_category": categorize(top[-1]), "kernel_names": len(rows),
                "kernel_time_ns": sum(r[1] for r in rows)}
    if name == "kernel_breakdown":
        derived = {f"{row[0].replace('/', '_')}_pct": row[1] for row in rows}
        others = [row for row in rows if row[0] != "gemm"]
        derived["non_gemm_pct"] = round(sum(row[1] for row in others), 1)
        if others:
            derived["top_non_gemm_category"], derived["top_non_gemm_pct"] = others[0][0], others[0][1]
        return derived
    if name == "nvtx_sum":
        # per range: mean and median duration in ms (Avg (ns), Med (ns) are columns 3 and 4, Range last)
        derived = {}
        for row in rows:
            key = identifier(row[-1])
            derived[f"nvtx_{key}_avg_ms"] = round(row[3] / 1e6, 3)
            derived[f"nvtx_{key}_med_ms"] = round(row[4] / 1e6, 3)
            derived[f"nvtx_{key}_count"] = row[2]
        return derived
    if name == "gpu_idle":
        device_rows = [r for r in rows if r[1] == "all"]
        return {"gpu_busy_pct": device_rows[0][5], "gpu_largest_gap_ms": round(device_rows[0][8] / 1e6, 3)} \
            if device_rows else {}
    if name == "kernel_overlap" and rows:
        return {"kernel_overlap_pct": rows[0][5], "max_concurrent_kernels": rows[0][6], "kernel_streams": rows[0][2]}
    if name == "expert_findings":
        return {f"rule_{row[0]}": row[1] for row in rows}
    if name == "osrt_sum":
        derived = {f"osrt_{identifier(row[-1])}_calls": row[2] for row in rows}
        for group, pattern in OSRT_GROUPS.items():
            derived[f"osrt_{group}_calls"] = sum(row[2] for row in rows if pattern.match(row[-1]))
        return derived
    if name == "cpu_samples_by_range":
        derived = {}
        for row in rows:
            key = identifier(row[0])
            derived[f"samples_{key}"] = row[1]
            derived[f"python_pct_{key}"] = row[6]
        return derived
    if name == "cpu_sample_sum":
        return {"cpu_samples": sum(r[1] for r in rows)}
    if name == "ncu_summary":
        derived = {}
        for row in rows:
            key = kernel_short_name(row[1])
            derived.update({f"ncu_{key}_verdict": row[2], f"ncu_{key}_duration_us": _scaled(row[3], 1e-3),
                            f"ncu_{key}_sm_pct": row[4], f"ncu_{key}_memory_pct": row[5],
                            f"ncu_{key}_dram_pct": row[6], f"ncu_{key}_occupancy_pct": row[8]})
        if rows:
            derived["ncu_first_verdict"] = rows[0][2]
            derived["ncu_kernels"] = len(rows)
        return derived
    if name == "ncu_metrics":
        wanted = {metric: alias for alias, metric in (recipe.get("measure") or {}).items()}
        derived = {}
        for _id, kernel, metric, _unit, value in rows:
            if metric in wanted and isinstance(value, (int, float)):
                derived[f"ncu_{kernel_short_name(kernel)}_{wanted[metric]}"] = value
        return derived
    return {}


def _scaled(value, factor):
    return round(value * factor, 3) if isinstance(value, (int, float)) else None


# --- analyses a recipe asks for by name -------------------------------------------------------------

def nsys_stats_parity(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """Run `nsys stats` on the export for each report we also computed; count byte-identical CSVs."""
    from aiperf_lab.metrics.tables import to_csv
    nsys = shutil.which("nsys")
    if nsys is None:
        return [], {}
    reports = [r for r in ("cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "nvtx_kern_sum", "cuda_gpu_mem_time_sum",
                           "cuda_gpu_mem_size_sum", "osrt_sum") if r in tables]
    rows, identical = [], 0
    target = folder / "nsys_stats"
    target.mkdir(exist_ok=True)
    for report in reports:
        base = target / "nsys"
        done = subprocess.run([nsys, "stats", "--report", report, "--format", "csv", "--force-export", "false",
                               "--force-overwrite", "true", "--output", str(base), str(db_path)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
        produced = target / f"nsys_{report}.csv"
        theirs = produced.read_text() if produced.exists() else None
        same = theirs == to_csv(tables[report])
        identical += same
        rows.append([report, "identical" if same else ("different" if theirs is not None else
                                                        f"nsys wrote nothing (exit {done.returncode})"),
                     len(tables[report].rows)])
    table = Table("nsys_stats_parity", "Our Tables against nsys stats", ["Report", "Result", "Rows"], rows)
    return [table], {"nsys_stats_compared": len(reports), "nsys_stats_identical": identical}


SQL_TOP_KERNEL = """SELECT s.value AS name, count(*) AS calls, sum(k.[end] - k.start) AS total_ns
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName
GROUP BY s.value ORDER BY total_ns DESC LIMIT 5"""
SQL_KERNELS_PER_RANGE = """SELECT n.text_value AS range, count(*) AS kernels, sum(k.[end] - k.start) AS gpu_ns
FROM (SELECT e.start, e.[end], e.globalTid, coalesce(e.text, s.value) AS text_value
      FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.eventType = 59) AS n
JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n.[end]
JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k ON k.correlationId = r.correlationId
GROUP BY n.text_value ORDER BY gpu_ns DESC"""
SQL_COPIES = """SELECT m.copyKind, count(*) AS copies, sum(m.bytes) AS bytes, sum(m.[end] - m.start) AS gpu_ns
FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m GROUP BY m.copyKind ORDER BY bytes DESC"""


def sqlite_queries(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """The walkthrough's own SQL on the export, and whether it agrees with the readers' tables."""
    import sqlite3
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        top = con.execute(SQL_TOP_KERNEL).fetchall()
        per_range = con.execute(SQL_KERNELS_PER_RANGE).fetchall()
        copies = con.execute(SQL_COPIES).fetchall() if _has(con, "CUPTI_ACTIVITY_KIND_MEMCPY") else []
    finally:
        con.close()
    out_tables = [Table("sql_top_kernels", "SQL: top kernels", ["Name", "Calls", "Total (ns)"], [list(r) for r in top]),
                  Table("sql_kernels_per_range", "SQL: kernels per NVTX range (same thread, push/pop)",
                        ["Range", "Kernels", "GPU Time (ns)"], [list(r) for r in per_range]),
                  Table("sql_copies", "SQL: copies by kind", ["Copy Kind", "Copies", "Bytes", "GPU Time (ns)"],
                        [list(r) for r in copies])]
    derived: dict[str, Any] = {"sql_ranges": len(per_range)}
    kern = tables.get("cuda_gpu_kern_sum")
    if kern is not None and kern.rows and top:
        derived["sql_top_kernel_matches"] = int(top[0][0] == kern.rows[0][-1] and top[0][2] == kern.rows[0][1])
        derived["sql_top_kernel_calls"] = top[0][1]
    return out_tables, derived


def _has(con, table: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def sync_backtraces(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """Shares of the blocking CUDA API time (memcpy and stream synchronize) whose backtraces pass
    through Tensor.item() (`_local_scalar_dense`) and through a host-to-device `.to()` copy."""
    from aiperf_lab.metrics.nsys.db import NsysDatabase
    from aiperf_lab.metrics.nsys.host import api_time_with_frame

    blocking = re.compile(r"^(cudaStreamSynchronize|cudaMemcpyAsync|cudaMemcpy)")
    db = NsysDatabase(db_path)
    try:
        item, total = api_time_with_frame(db, blocking, re.compile(r"_local_scalar_dense"))
        copy, _ = api_time_with_frame(db, blocking, re.compile(r"copy_kernel_cuda"))
    finally:
        db.close()

    def pct(part: int):
        return round(100 * part / total, 1) if total else None

    return [], {"blocking_api_backtrace_ms": round(total / 1e6, 3), "blocking_time_from_item_pct": pct(item),
                "blocking_time_from_h2d_copy_pct": pct(copy)}


def range_breakdowns(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """The kernel breakdown within each NVTX range the recipe names, and its GPU time."""
    from aiperf_lab.metrics.analysis import kernel_breakdown
    from aiperf_lab.metrics.nsys.db import NsysDatabase
    from aiperf_lab.metrics.nsys.nvtx import kernels_in_range
    from aiperf_lab.metrics.nsys.ops import as_gpu_op
    from aiperf_lab.errors import MissingData

    db = NsysDatabase(db_path)
    out_tables, derived = [], {}
    try:
        for name in recipe.get("ranges", []):
            try:
                kernels = kernels_in_range(db, name, cross_thread=bool(recipe.get("cross_thread")))
            except MissingData:
                continue
            table = kernel_breakdown([as_gpu_op(k) for k in kernels], scope=name)
            key = identifier(name)
            table.name = f"kernel_breakdown_{key}"
            out_tables.append(table)
            derived[f"gpu_ms_{key}"] = round(sum(k.duration for k in kernels) / 1e6, 3)
            derived[f"kernels_{key}"] = len(kernels)
            derived.update({f"{row[0].replace('/', '_')}_pct_{key}": row[1] for row in table.rows})
    finally:
        db.close()
    return out_tables, derived


def range_kernel_diff(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """Kernels of the 'before' range against the 'after' range (recipe: diff: [before, after])."""
    from aiperf_lab.metrics.analysis import kernel_diff
    from aiperf_lab.metrics.nsys.db import NsysDatabase
    from aiperf_lab.metrics.nsys.nvtx import kernels_in_range

    before, after = recipe.get("diff", ["baseline", "optimized"])
    db = NsysDatabase(db_path)
    try:
        sides = [_kernel_table(kernels_in_range(db, name, cross_thread=bool(recipe.get("cross_thread"))))
                 for name in (before, after)]
    finally:
        db.close()
    diff = kernel_diff(*sides)
    total_a = sum(r[0] for r in sides[0].rows)  # Total Time (ns)
    total_b = sum(r[0] for r in sides[1].rows)
    removed = sum(1 for r in diff.rows if r[6] == "removed")
    return [diff], {"diff_gpu_ratio": round(total_b / total_a, 3) if total_a else None,
                    "diff_kernels_removed": removed, "diff_kernels_new": sum(1 for r in diff.rows if r[6] == "new")}


def _kernel_table(kernels) -> Table:
    from collections import defaultdict
    groups: dict[str, list[int]] = defaultdict(list)
    for k in kernels:
        groups[k.name].append(k.duration)
    rows = [[sum(d), len(d), name] for name, d in groups.items()]
    rows.sort(key=lambda r: -r[0])
    return Table("kernels", "Kernels", ["Total Time (ns)", "Instances", "Name"], rows)


ANALYSES: dict[str, Callable] = {
    "nsys_stats_parity": nsys_stats_parity,
    "sqlite_queries": sqlite_queries,
    "sync_backtraces": sync_backtraces,
    "range_breakdowns": range_breakdowns,
    "range_kernel_diff": range_kernel_diff,
}
