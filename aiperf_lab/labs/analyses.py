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
        try:
            out.update(_from_table(table, recipe))
        except KeyError:  # a table without the columns read here: its measurements stay absent (checks say so)
            continue
    return out


def records(table: Table) -> list[dict[str, Any]]:
    """A table's rows by column name: a reader's column order may change, its names do not."""
    return [dict(zip(table.columns, row)) for row in table.rows]


def category_shares(rows: list[dict[str, Any]], suffix: str = "") -> dict[str, Any]:
    """From a kernel_breakdown's rows: each category's share, the non-GEMM share, and the largest
    non-GEMM category. memcpy/memset is not a kernel category: it is left out and the shares are
    taken over kernel time alone."""
    kernels = [r for r in rows if r["Category"] != "memcpy/memset"]  # MEMORY_CATEGORY
    total = sum(r["Total Time (ns)"] for r in kernels)
    if not total:
        return {}

    def share(ns: float) -> float:
        return round(100 * ns / total, 1)

    from aiperf_lab.metrics.analysis import CATEGORIES, MEMORY_CATEGORY
    # every kernel category, 0 where none ran: "no optimizer kernels here" is a measurement too
    derived: dict[str, Any] = {f"{c.replace('/', '_')}_pct{suffix}": 0.0 for c in CATEGORIES if c != MEMORY_CATEGORY}
    derived.update({f"{r['Category'].replace('/', '_')}_pct{suffix}": share(r["Total Time (ns)"]) for r in kernels})
    others = [r for r in kernels if r["Category"] != "gemm"]
    derived[f"non_gemm_pct{suffix}"] = share(sum(r["Total Time (ns)"] for r in others))
    derived[f"gemm_ms{suffix}"] = round(sum(r["Total Time (ns)"] for r in kernels if r["Category"] == "gemm") / 1e6, 3)
    if others:
        top = max(others, key=lambda r: r["Total Time (ns)"])
        derived[f"top_non_gemm_category{suffix}"] = top["Category"]
        derived[f"top_non_gemm_pct{suffix}"] = share(top["Total Time (ns)"])
    return derived


def _from_table(table: Table, recipe: dict[str, Any]) -> dict[str, Any]:
    name, rows = table.name, records(table)
    if name == "cuda_gpu_kern_sum" and rows:
        from aiperf_lab.metrics.analysis import categorize
        top = rows[0]
        return {"top_kernel": top["Name"], "top_kernel_pct": top["Time (%)"], "top_kernel_calls": top["Instances"],
                "top_kernel_category": categorize(top["Name"]), "kernel_names": len(rows),
                "kernel_time_ns": sum(r["Total Time (ns)"] for r in rows)}
    if name == "kernel_breakdown":
        # the whole run, copies included (the memcpy_memset_pct figure); non-GEMM shares over kernels only
        derived = {f"{r['Category'].replace('/', '_')}_pct": r["Time (%)"] for r in rows}
        derived.update(category_shares(rows))
        return derived
    if name == "nvtx_sum":
        derived = {}
        for row in rows:
            key = identifier(row["Range"])
            derived[f"nvtx_{key}_avg_ms"] = round(row["Avg (ns)"] / 1e6, 3)
            derived[f"nvtx_{key}_med_ms"] = round(row["Med (ns)"] / 1e6, 3)
            derived[f"nvtx_{key}_count"] = row["Instances"]
        return derived
    if name == "gpu_idle":
        device_rows = [r for r in rows if r["Stream"] == "all"]
        return {"gpu_busy_pct": device_rows[0]["Busy (%)"],
                "gpu_largest_gap_ms": round(device_rows[0]["Largest Gap (ns)"] / 1e6, 3)} if device_rows else {}
    if name == "kernel_overlap" and rows:
        return {"kernel_overlap_pct": rows[0]["Overlap (%)"], "max_concurrent_kernels": rows[0]["Most Concurrent"],
                "kernel_streams": rows[0]["Streams"]}
    if name == "expert_findings":
        return {f"rule_{row['Rule']}": row["Fired"] for row in rows}
    if name in ("energy_by_range", "energy_by_category"):
        return _from_energy(table)
    if name == "osrt_sum":
        derived = {f"osrt_{identifier(row['Name'])}_calls": row["Num Calls"] for row in rows}
        for group, pattern in OSRT_GROUPS.items():
            derived[f"osrt_{group}_calls"] = sum(row["Num Calls"] for row in rows if pattern.match(row["Name"]))
        return derived
    if name == "cpu_samples_by_range":
        derived = {}
        for row in rows:
            key = identifier(row["Range"])
            derived[f"samples_{key}"] = row["Samples"]
            derived[f"python_pct_{key}"] = row["In Python Interpreter (%)"]
        return derived
    if name == "cpu_sample_sum":
        return {"cpu_samples": sum(r["Samples"] for r in rows)}
    if name == "ncu_summary":
        derived = {}
        for row in rows:
            key = kernel_short_name(row["Kernel Name"])
            derived.update({f"ncu_{key}_verdict": row["Verdict"],
                            f"ncu_{key}_duration_us": _scaled(row["Duration (ns)"], 1e-3),
                            f"ncu_{key}_sm_pct": row["SM Throughput (%)"],
                            f"ncu_{key}_memory_pct": row["Memory Throughput (%)"],
                            f"ncu_{key}_dram_pct": row["DRAM Throughput (%)"],
                            f"ncu_{key}_occupancy_pct": row["Achieved Occupancy (%)"]})
        if rows:
            derived["ncu_first_verdict"] = rows[0]["Verdict"]
            derived["ncu_kernels"] = len(rows)
        return derived
    if name == "ncu_metrics":
        wanted = {metric: alias for alias, metric in (recipe.get("measure") or {}).items()}
        derived = {}
        for row in rows:
            if row["Metric"] in wanted and isinstance(row["Value"], (int, float)):
                derived[f"ncu_{kernel_short_name(row['Kernel Name'])}_{wanted[row['Metric']]}"] = row["Value"]
        return derived
    return {}


def _from_energy(table: Table) -> dict[str, Any]:
    """energy_range_<range>_j / _pct per NVTX range (energy_range_outside_j/_pct: outside any range);
    energy_<category>_j / _pct per category (energy_gemm_pct, energy_idle_pct...) and idle_time_pct;
    energy_span_j; energy_counter_diff_percent: the rows' sum against the energy counter, in %."""
    from aiperf_lab.metrics.energy.attribution import IDLE, OUTSIDE, TOTAL

    derived: dict[str, Any] = {}
    rows = table.as_dicts()
    span = next((r for r in rows if r[table.columns[0]] == TOTAL), None)
    for row in rows:
        label = row[table.columns[0]]
        if label == TOTAL:
            derived["energy_span_j"] = row["Energy (J)"]
            continue
        if table.name == "energy_by_range":
            key = "range_" + ("outside" if label == OUTSIDE else identifier(label))
        else:
            key = "idle" if label == IDLE else identifier(label)
        derived[f"energy_{key}_j"] = row["Energy (J)"]
        derived[f"energy_{key}_pct"] = row["Share (%)"]
        if label == IDLE and span and span["Time (s)"]:
            derived["idle_time_pct"] = round(100 * row["Time (s)"] / span["Time (s)"], 1)
    for note in table.notes:
        found = re.search(r"energy counter gives [\d.]+ J for the captured span \(([+-][\d.]+)%\)", note)
        if found:
            derived["energy_counter_diff_percent"] = float(found.group(1))
    return derived


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
        first = records(kern)[0]
        derived["sql_top_kernel_matches"] = int(top[0][0] == first["Name"] and top[0][2] == first["Total Time (ns)"])
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
    """The kernel breakdown within each NVTX range the recipe names (`ranges`), its GPU time and its
    GEMM-only time; `within: step_` keeps only kernels also launched inside a timed step, leaving the
    warm-up out."""
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
                kernels = kernels_in_range(db, name, cross_thread=bool(recipe.get("cross_thread")),
                                           within=recipe.get("within"))
            except MissingData:
                continue
            table = kernel_breakdown([as_gpu_op(k) for k in kernels], scope=name)
            key = identifier(name)
            table.name = f"kernel_breakdown_{key}"
            out_tables.append(table)
            derived[f"gpu_ms_{key}"] = round(sum(k.duration for k in kernels) / 1e6, 3)
            derived[f"kernels_{key}"] = len(kernels)
            derived.update(category_shares(records(table), suffix=f"_{key}"))
    finally:
        db.close()
    return out_tables, derived


def forward_timing(db_path: Path, tables: dict[str, Table], recipe: dict, folder: Path):
    """Per timed step (warm-up left out): the CPU time of the `forward` NVTX range, and the GPU time
    of the kernels it launched (from the first kernel's start to the last one's end, and summed)."""
    import statistics

    from aiperf_lab.metrics.nsys.db import NsysDatabase
    from aiperf_lab.metrics.nsys.nvtx import kernels_per_instance

    name = recipe.get("timed_range", "forward")
    db = NsysDatabase(db_path)
    try:
        instances = kernels_per_instance(db, name, cross_thread=bool(recipe.get("cross_thread")),
                                         within=recipe.get("within", "step_"))
    finally:
        db.close()
    rows = [[i, round((r.end - r.start) / 1e6, 3), round((max(k.end for k in ks) - min(k.start for k in ks)) / 1e6, 3),
             round(sum(k.duration for k in ks) / 1e6, 3), len(ks)] for i, (r, ks) in enumerate(instances) if ks]
    table = Table("forward_timing", f"CPU range against GPU time per timed {name}",
                  ["Step", "NVTX Range (ms)", "GPU Span (ms)", "GPU Kernel Sum (ms)", "Kernels"], rows,
                  ["NVTX Range: CPU time between push and pop; GPU Span: first kernel start to last kernel end of "
                   "the kernels launched inside it."])
    if not rows:
        return [table], {}
    key = identifier(name)
    return [table], {f"nvtx_cpu_{key}_med_ms": statistics.median(r[1] for r in rows),
                     f"gpu_span_{key}_med_ms": statistics.median(r[2] for r in rows),
                     f"gpu_sum_{key}_med_ms": statistics.median(r[3] for r in rows), f"timed_{key}_count": len(rows)}


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
    total_a = sum(r["Total Time (ns)"] for r in records(sides[0]))
    total_b = sum(r["Total Time (ns)"] for r in records(sides[1]))
    changes = [r["Status"] for r in records(diff)]
    removed = changes.count("removed")
    return [diff], {"diff_gpu_ratio": round(total_b / total_a, 3) if total_a else None,
                    "diff_kernels_removed": removed, "diff_kernels_new": changes.count("new")}


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
    "forward_timing": forward_timing,
    "range_kernel_diff": range_kernel_diff,
}
