"""`nsys stats` reports over kernels, memory operations and the API calls that launched them.

cuda_gpu_sum, cuda_api_gpu_sum, cuda_gpu_kern_gb_sum, cuda_kern_exec_sum (summaries), and the traces
cuda_gpu_trace, cuda_api_trace and cuda_kern_exec_trace, whose rows are streamed from SQLite in start
order (the Table's rows are an iterator, so memory does not grow with the trace).

Column semantics (nsys documentation, "CUDA Kernel Launch & Exec Time Summary"): API time is the
launching call's duration; queue time is kernel start minus call end, counted only when not negative
(QCount); kernel time is the kernel's duration; total time runs from the call's start to the later of
the call's and the kernel's end.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from itertools import compress, repeat
from operator import add, ge, mul, sub
from typing import Iterator

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.nsys.db import (GRID_BLOCK, KERNEL, MEMCPY, MEMSET, RUNTIME, SHARED_MEMORY, NsysDatabase,
                                       parse_integers, span_sql)
from aiperf_lab.metrics.nsys.reports import strip_api_version
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, duration_summary, sqlite_round, summary_rows
from aiperf_lab.metrics.tables import Fixed3, Table

def _launch_join(calls: str) -> str:
    return (f"JOIN {calls} AS r ON r.correlationId = k.correlationId "
            "AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)")


def _kernel_calls(db: NsysDatabase) -> str:
    """The launch-call source that finds as many kernels' calls as the whole runtime table does."""
    sources = db.launch_calls()
    if len(sources) == 1:
        return sources[0]
    from aiperf_lab.metrics.nsys.launch_join import sql_join_rows

    found = sql_join_rows(db, KERNEL, sources[0])
    return sources[0] if found == db.count(KERNEL) else sources[1]

# ENUM_CUDA_MEM_KIND labels, for exports without the enum table.
MEM_KIND_LABELS = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed", 5: "Device Static",
                   6: "Managed Static", 7: "Unknown"}


def _kernel_groups(db: NsysDatabase, variant: str, extra_key: str = "") -> dict:
    name_col = db.kernel_name_column(variant)
    key = f"{name_col}{', ' + extra_key if extra_key else ''}"
    rows = db.query(f"SELECT {key}, group_concat([end] - start) FROM {KERNEL} GROUP BY {key}")
    names = db.strings({r[0] for r in rows})
    groups: dict = defaultdict(list)
    for row in rows:
        groups[(names.get(row[0], ""), *row[1:-1])].extend(parse_integers(row[-1]))
    return groups


def _memory_groups(db: NsysDatabase) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    if db.has(MEMCPY):
        labels = db.memcpy_labels()
        for kind, values in db.grouped_integers("copyKind", "[end] - start", MEMCPY):
            if kind in labels:
                groups.setdefault(f"[CUDA memcpy {labels[kind]}]", []).extend(values)
    if db.has(MEMSET):
        for _key, values in db.grouped_integers("1", "[end] - start", MEMSET):
            groups["[CUDA memset]"] = values
    return groups


def _api_groups(db: NsysDatabase) -> dict[str, list[int]]:
    by_id = db.grouped_integers("nameId", "[end] - start", RUNTIME)
    names = db.strings({name_id for name_id, _ in by_id})
    groups: dict[str, list[int]] = defaultdict(list)
    for name_id, durations in by_id:
        groups[strip_api_version(names.get(name_id, ""))].extend(durations)
    return groups


def _categorized_rows(parts: list[tuple[str, dict[str, list[int]]]]) -> list[list]:
    """Summary rows over several categories grouped by name alone (nsys: GROUP BY name), Total desc."""
    groups: dict[str, list[int]] = {}
    category: dict[str, str] = {}
    for label, part in parts:
        for name, values in part.items():
            groups.setdefault(name, []).extend(values)
            category.setdefault(name, label)
    rows = summary_rows(groups, count_label_rows=False)
    return [[*row[:-1], category[row[-1]], row[-1]] for row in rows]


def cuda_gpu_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA GPU Summary (Kernels/MemOps): kernels and memory operations together, grouped by name."""
    db.require("StringIds", what="StringIds table")
    parts = []
    if db.has(KERNEL):
        parts.append(("CUDA_KERNEL", {k[0]: v for k, v in _kernel_groups(db, variant).items()}))
    if db.has(MEMCPY) or db.has(MEMSET):
        parts.append(("MEMORY_OPER", _memory_groups(db)))
    if not parts:
        raise MissingData(f"{db.path.name} does not contain GPU kernel/memory operations data.")
    return Table("cuda_gpu_sum", "CUDA GPU Summary (Kernels/MemOps)", [*SUM_COLUMNS, "Category", "Operation"],
                 _categorized_rows(parts))


def cuda_api_gpu_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA Summary (API/Kernels/MemOps): API calls, kernels and memory operations together."""
    db.require("StringIds", what="StringIds table")
    parts = []
    if db.has(RUNTIME):
        parts.append(("CUDA_API", _api_groups(db)))
    if db.has(KERNEL):
        parts.append(("CUDA_KERNEL", {k[0]: v for k, v in _kernel_groups(db, variant).items()}))
    if db.has(MEMCPY) or db.has(MEMSET):
        parts.append(("MEMORY_OPER", _memory_groups(db)))
    if not parts:
        raise MissingData(f"{db.path.name} does not contain CUDA API, GPU kernel, nor memory operations data.")
    return Table("cuda_api_gpu_sum", "CUDA Summary (API/Kernels/MemOps)", [*SUM_COLUMNS, "Category", "Operation"],
                 _categorized_rows(parts))


def _xyz(x, y, z) -> str:
    return f"{x:4d} {y:4d} {z:4d}"


def cuda_gpu_kern_gb_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA GPU Kernel/Grid/Block Summary: kernels grouped by name, grid and block dimensions."""
    db.require("StringIds", what="StringIds table")
    db.require(KERNEL, what="CUDA kernel data")
    groups = _kernel_groups(db, variant, ", ".join(GRID_BLOCK))
    if not all(type(v) is int for key in groups for v in key[1:]):   # (the groups' keys hold every distinct value)
        db.check(KERNEL, GRID_BLOCK)
    stats = []
    for key in sorted(groups):  # the GROUP BY order: name, then the dimensions
        stats.append((key, duration_summary(groups[key])))
    grand = sum(s[0] for _, s in stats)
    stats.sort(key=lambda item: (-item[1][0], item[1][1], item[0][0]))  # Total desc, Instances, Name
    rows = [[sqlite_round(s[0] * 100.0 / grand) if grand else 0.0, *s, _xyz(*key[1:4]), _xyz(*key[4:7]), key[0]]
            for key, s in stats]
    return Table("cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary",
                 [*SUM_COLUMNS, "GridXYZ", "BlockXYZ", "Name"], rows)


def _stats_or_blank(values: list[int]) -> list:
    if not values:  # nsys's stdev aggregate gives 0.0 for an empty group, the others NULL
        return [None, None, None, None, 0.0]
    total, n, avg, med, low, high, stdev = duration_summary(values)
    return [avg, med, low, high, stdev]


def cuda_kern_exec_sum(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA Kernel Launch & Exec Time Summary: per thread, device, API and kernel, the total, API, queue
    and kernel times; ordered by average total time."""
    db.require("StringIds", what="StringIds table")
    db.require(KERNEL, what="CUDA kernel data", columns=())  # checked as they are read
    db.require(RUNTIME, what="CUDA API data", columns=())
    name_col = db.kernel_name_column(variant)
    rows = _exec_groups(db, name_col)
    if rows is None:
        rows = _exec_groups_sql(db, name_col)
    names = db.strings({r[2] for r in rows} | {r[3] for r in rows})
    groups: dict[tuple, list[list[int]]] = {}
    for gtid, device, api_id, kernel_id, total, api, queue, kernel in rows:
        key = ((gtid >> 24) & 0xFFFFFF, gtid & 0xFFFFFF, device, strip_api_version(names.get(api_id, "")),
               names.get(kernel_id, ""))
        lists = groups.setdefault(key, [[], [], [], []])
        for i, values in enumerate((total, api, queue, kernel)):
            lists[i].extend(values)
    out = []
    for key in sorted(groups):  # the GROUP BY order
        total, api, queue, kernel = groups[key]
        t = _stats_or_blank(total)
        out.append([key[0], key[1], key[2], len(total), len(queue), *t, *_stats_or_blank(api),
                    *_stats_or_blank(queue), *_stats_or_blank(kernel), key[3], key[4]])
    out.sort(key=lambda row: -row[5])  # ORDER BY TAvg DESC
    columns = ["PID", "TID", "DevId", "Count", "QCount"]
    for prefix in "TAQK":
        columns += [f"{prefix}Avg (ns)", f"{prefix}Med (ns)", f"{prefix}Min (ns)", f"{prefix}Max (ns)",
                    f"{prefix}StdDev (ns)"]
    return Table("cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary", [*columns, "API Name", "Kernel Name"],
                 out)


def _exec_groups(db: NsysDatabase, name_col: str) -> list[tuple] | None:
    """(thread, device, API name id, kernel name id, totals, API times, queue times, kernel times) per
    group, from the hash join (launch_join); None where that join cannot stand in for SQL's."""
    from aiperf_lab.metrics.nsys.launch_join import launches_by_thread

    threads = launches_by_thread(db, KERNEL, ["deviceId", f"{name_col}", "start", span_sql()], db.launch_calls(),
                                 {KERNEL: ("correlationId", "globalPid", "deviceId", name_col, "start", "end")},
                                 call_columns=("nameId",))
    if threads is None:
        return None
    threads.pop(None, None)  # kernels without their call: an inner join drops them
    out = []
    for gtid, (starts, ends, api_ids, devices, names, kernel_starts, kernel_times) in threads.items():
        kernel_ends = list(map(add, kernel_starts, kernel_times))
        api_times = list(map(sub, ends, starts))
        if all(map(ge, kernel_ends, ends)):  # (kernels end after their call: the total is the kernel's end)
            totals = list(map(sub, kernel_ends, starts))
        else:
            totals = list(map(sub, map(max, ends, kernel_ends), starts))
        queues = list(map(sub, kernel_starts, ends))
        # One small integer per kernel for its (device, API, kernel name) group: sorted in C. A column of
        # one value (one GPU, one launch API) adds nothing to it.
        dense = [{v: i for i, v in enumerate(sorted(set(column)))} for column in (devices, api_ids, names)]
        widths = [len(d) for d in dense]
        keys = list(map(dense[2].__getitem__, names))
        if widths[0] > 1 or widths[1] > 1:
            keys = list(map(add, map(mul, map(add, map(mul, map(dense[0].__getitem__, devices), repeat(widths[1])),
                                                  map(dense[1].__getitem__, api_ids)), repeat(widths[2])), keys))
        values = [list(v) for v in (dense[0], dense[1], dense[2])]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        keys = list(map(keys.__getitem__, order))
        lo = 0
        while lo < len(keys):
            key = keys[lo]
            hi = bisect_right(keys, key, lo)
            members = order[lo:hi]
            rest, name_index = divmod(key, widths[2])
            device_index, api_index = divmod(rest, widths[1])
            group_queues = list(map(queues.__getitem__, members))
            out.append((gtid, values[0][device_index], values[1][api_index], values[2][name_index],
                        list(map(totals.__getitem__, members)), list(map(api_times.__getitem__, members)),
                        group_queues if min(group_queues, default=0) >= 0 else
                        list(compress(group_queues, map(ge, group_queues, repeat(0)))),
                        list(map(kernel_times.__getitem__, members))))
            lo = hi
    return out


def _exec_groups_sql(db: NsysDatabase, name_col: str) -> list[tuple]:
    db.check(KERNEL)
    db.check(RUNTIME)
    calls = _kernel_calls(db)
    rows = db.query(
        f"SELECT r.globalTid, k.deviceId, r.nameId, k.{name_col}, "
        "group_concat(max(r.[end], k.[end]) - r.start), group_concat(r.[end] - r.start), "
        "group_concat(iif(k.start >= r.[end], k.start - r.[end], NULL)), group_concat(k.[end] - k.start) "
        f"FROM {KERNEL} AS k {_launch_join(calls)} GROUP BY r.globalTid, k.deviceId, r.nameId, k.{name_col}")
    return [(gtid, device, api_id, kernel_id, *map(parse_integers, texts))
            for gtid, device, api_id, kernel_id, *texts in rows]


# --- traces -----------------------------------------------------------------------------------------

def _streamed(db: NsysDatabase, sql: str) -> Iterator[tuple]:
    """Rows of a query as SQLite produces them, never all in memory."""
    import sqlite3

    db.lenient_text()
    try:
        cursor = db.con.execute(sql)
        while True:
            chunk = cursor.fetchmany(4096)
            if not chunk:
                return
            yield from chunk
    except sqlite3.DatabaseError as exc:
        from aiperf_lab.metrics.nsys.db import read_failure
        raise read_failure(db.path, exc) from None


def cuda_kern_exec_trace(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA Kernel Launch & Exec Time Trace: one row per kernel with its launching call, in call order."""
    db.require("StringIds", what="StringIds table")
    db.require(KERNEL, what="CUDA kernel data")
    db.require(RUNTIME, what="CUDA API data")
    db.check(KERNEL, GRID_BLOCK)
    name_col = db.kernel_name_column(variant)
    calls = _kernel_calls(db)
    from aiperf_lab.metrics.nsys.launch_join import refuse_a_runaway_sql_join
    refuse_a_runaway_sql_join(db, KERNEL, calls)
    sql = (f"SELECT r.start, r.[end] - r.start, iif(k.start >= r.[end], r.[end], NULL), "
           "iif(k.start >= r.[end], k.start - r.[end], NULL), k.start, k.[end] - k.start, "
           "max(r.[end], k.[end]) - r.start, (r.globalTid >> 24) & 0xFFFFFF, r.globalTid & 0xFFFFFF, k.deviceId, "
           "an.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, kn.value "
           f"FROM {KERNEL} AS k {_launch_join(calls)} LEFT JOIN StringIds AS an ON an.id = r.nameId "
           f"LEFT JOIN StringIds AS kn ON kn.id = k.{name_col} ORDER BY r.start")

    def rows() -> Iterator[list]:
        for row in _streamed(db, sql):
            yield [*row[:10], strip_api_version(row[10] or ""), _xyz(*row[11:14]), _xyz(*row[14:17]), row[17]]

    columns = ["API Start (ns)", "API Dur (ns)", "Queue Start (ns)", "Queue Dur (ns)", "Kernel Start (ns)",
               "Kernel Dur (ns)", "Total Dur (ns)", "PID", "TID", "DevId", "API Function", "GridXYZ", "BlockXYZ",
               "Kernel Name"]
    return Table("cuda_kern_exec_trace", "CUDA Kernel Launch & Exec Time Trace", columns, rows())


def cuda_api_trace(db: NsysDatabase) -> Table:
    """CUDA API Trace: every runtime and driver call in start order, with its thread's name and priority."""
    db.require("StringIds", what="StringIds table")
    db.require("ThreadNames", what="ThreadNames table")
    db.require(RUNTIME, what="CUDA trace data")
    sql = ("SELECT api.start, api.[end] - api.start, ns.value, api.returnValue, api.correlationId, "
           "(api.globalTid >> 24) & 0xFFFFFF, api.globalTid & 0xFFFFFF, t.priority, ts.value "
           f"FROM {RUNTIME} AS api LEFT JOIN StringIds AS ns ON ns.id = api.nameId "
           "LEFT JOIN ThreadNames AS t ON t.globalTid = api.globalTid LEFT JOIN StringIds AS ts ON ts.id = t.nameId "
           "ORDER BY api.start")

    def rows() -> Iterator[list]:
        for row in _streamed(db, sql):
            yield [row[0], row[1], strip_api_version(row[2]) if row[2] is not None else None, *row[3:]]

    columns = ["Start (ns)", "Duration (ns)", "Name", "Result", "CorrID", "Pid", "Tid", "T-Pri", "Thread Name"]
    return Table("cuda_api_trace", "CUDA API Trace", columns, rows())


def _megabytes(value):
    return None if value is None else Fixed3(value / 1e6)


def cuda_gpu_trace(db: NsysDatabase, variant: str = "demangled") -> Table:
    """CUDA GPU Trace: kernels, memcpy and memset in start order; sizes in decimal MB."""
    db.require("StringIds", what="StringIds table")
    db.require("TARGET_INFO_GPU", what="TARGET_INFO_GPU table")
    if not (db.has(KERNEL) or db.has(MEMCPY) or db.has(MEMSET)):
        raise MissingData(f"{db.path.name} does not contain GPU trace data.")
    gpu_key = "id" if db.has_column("TARGET_INFO_GPU", "id") else "deviceId"
    parts = []
    green = "greenContextId"
    if db.has(KERNEL):
        db.check(KERNEL, SHARED_MEMORY)
        name_col = db.kernel_name_column(variant)
        parts.append(
            f"SELECT k.start AS s, k.[end] - k.start, k.correlationId, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, "
            f"k.blockZ, k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory, NULL, NULL, NULL, "
            f"g.name, k.deviceId, k.contextId, {db.column_or(KERNEL, green, 'k')}, k.streamId, kn.value, 0 "
            f"FROM {KERNEL} AS k LEFT JOIN TARGET_INFO_GPU AS g ON g.{gpu_key} = k.deviceId "
            f"LEFT JOIN StringIds AS kn ON kn.id = k.{name_col}")
    labels = db.memcpy_labels()
    kinds = _mem_kind_labels(db)
    if db.has(MEMCPY):
        parts.append(
            "SELECT m.start AS s, m.[end] - m.start, m.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            f"NULL, m.bytes, m.srcKind, m.dstKind, g.name, m.deviceId, m.contextId, "
            f"{db.column_or(MEMCPY, green, 'm')}, m.streamId, m.copyKind, 1 "
            f"FROM {MEMCPY} AS m LEFT JOIN TARGET_INFO_GPU AS g ON g.{gpu_key} = m.deviceId")
    if db.has(MEMSET):
        mem_kind = db.column_or(MEMSET, "memKind", "m")
        parts.append(
            "SELECT m.start AS s, m.[end] - m.start, m.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            f"NULL, m.bytes, {mem_kind}, NULL, g.name, m.deviceId, m.contextId, {db.column_or(MEMSET, green, 'm')}, "
            f"m.streamId, NULL, 2 FROM {MEMSET} AS m LEFT JOIN TARGET_INFO_GPU AS g ON g.{gpu_key} = m.deviceId")
    sql = " UNION ALL ".join(parts) + " ORDER BY s"

    def rows() -> Iterator[list]:
        for (start, duration, corr, gx, gy, gz, bx, by, bz, regs, static, dynamic, size, src, dst, gpu, device,
             context, green_context, stream, name, kind) in _streamed(db, sql):
            if kind == 1:  # memcpy: name is the copy kind
                label = labels.get(name)
                name = f"[CUDA memcpy {label}]" if label is not None else None
            elif kind == 2:
                name = "[CUDA memset]"
            throughput = None
            if size is not None:
                throughput = Fixed3(size * (1_000_000_000 // duration) / 1e6) if duration else None
            yield [start, duration, corr, gx, gy, gz, bx, by, bz, regs, _megabytes(static), _megabytes(dynamic),
                   _megabytes(size), throughput, kinds.get(src), kinds.get(dst),
                   f"{gpu or ''} ({device})", context, green_context or None, stream, name]

    columns = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
               "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)", "SrcMemKd", "DstMemKd", "Device",
               "Ctx", "GreenCtx", "Strm", "Name"]
    return Table("cuda_gpu_trace", "CUDA GPU Trace", columns, rows())


def _mem_kind_labels(db: NsysDatabase) -> dict[int, str]:
    if db.has("ENUM_CUDA_MEM_KIND"):
        return {int(i): label for i, label in db.query("SELECT id, label FROM ENUM_CUDA_MEM_KIND")}
    return dict(MEM_KIND_LABELS)
