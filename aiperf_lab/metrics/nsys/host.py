"""What the CPU side of an nsys export says: OS runtime calls, CPU samples, and the call stacks
recorded for CUDA API calls.

- osrt_sum: `nsys stats --report osrt_sum`, same columns and order (OSRT_API, needs `-t osrt`).
- cpu_sample_sum: the functions the CPU was in when sampled (the leaf frame), per process
  (COMPOSITE_EVENTS + SAMPLING_CALLCHAINS, needs `--sample process-tree`).
- cpu_samples_by_range: samples of each NVTX range's own thread while the range was open, with the
  hottest function and the share spent in the Python interpreter.
- cuda_api_callers: for CUDA API calls that carry a backtrace (`--cudabacktrace`, which needs CPU
  sampling), the first frame outside the CUDA libraries: who made the call.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict

from aiperf_lab.metrics.nsys.db import RUNTIME, NsysDatabase
from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.nsys.reports import strip_api_version
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, percent_of, summary_rows
from aiperf_lab.metrics.tables import Table

OSRT = "OSRT_API"
SAMPLES = "COMPOSITE_EVENTS"
SAMPLE_STACKS = "SAMPLING_CALLCHAINS"
CUDA_STACKS = "CUDA_CALLCHAINS"
# Frames inside these libraries are the CUDA stack itself, not its caller.
_CUDA_LIBRARY = re.compile(r"libcupti|libcuda\.so|libcudart|libnvToolsExt|libnvtx|libcuda-|injection", re.I)
# The interpreter's own module: python3.12 or libpython3.12.so (not libtorch under .../python3.12/site-packages)
_INTERPRETER = re.compile(r"(^|/)(lib)?python[\d.]*(\.so[\d.]*)?$", re.I)


def osrt_sum(db: NsysDatabase) -> Table:
    """OS Runtime Summary: OS and libc calls (read, poll, pthread_mutex_lock, ...) grouped by name."""
    db.require("StringIds", what="StringIds table")
    db.require(OSRT, what="OS Runtime data")
    # nsys leaves out the markers of OS runtime tracing starting and stopping (zero-length "[Unknown]" rows)
    # (event classes 31 and 32 in every export seen, 2020 to 2025; the enum table says so where present)
    # The ids travel as bound parameters: nothing read from the file becomes SQL text.
    markers = [31, 32]
    if db.has("ENUM_NSYS_EVENT_CLASS"):
        markers = [r[0] for r in db.query("SELECT id FROM ENUM_NSYS_EVENT_CLASS WHERE name LIKE '%OS_RUNTIME_START' "
                                          "OR name LIKE '%OS_RUNTIME_FINISH'")] or markers
    source = f"{OSRT} WHERE eventClass NOT IN ({','.join('?' * len(markers))})"
    by_id = db.grouped_integers("nameId", "[end] - start", source, tuple(markers))
    names = db.strings({name_id for name_id, _ in by_id})
    groups: dict[str, list[int]] = defaultdict(list)
    for name_id, durations in by_id:
        groups[names.get(name_id, "")].extend(durations)
    columns = ["Time (%)", "Total Time (ns)", "Num Calls", *SUM_COLUMNS[3:], "Name"]
    return Table("osrt_sum", "OS Runtime Summary", columns, summary_rows(groups, count_label_rows=False))


def _leaf_frames(db: NsysDatabase) -> list[tuple[int, int, int, int, int]]:
    """(sample id, start, globalTid, symbol id, module id) of each sample's innermost frame."""
    db.require("StringIds", what="StringIds table")
    db.require(SAMPLES, SAMPLE_STACKS, what="CPU sampling data")
    return db.query(f"SELECT e.id, e.start, e.globalTid, c.symbol, c.module FROM {SAMPLES} AS e "
                    f"JOIN {SAMPLE_STACKS} AS c ON c.id = e.id AND c.stackDepth = 0 ORDER BY e.start")


def cpu_sample_sum(db: NsysDatabase, top: int = 50) -> Table:
    """The functions CPU samples landed in (innermost frame), most sampled first."""
    leaves = _leaf_frames(db)
    if not leaves:
        raise MissingData(f"{db.path.name} does not contain CPU sampling data.")
    counts = Counter((symbol, module) for _i, _s, _t, symbol, module in leaves)
    names = db.strings({s for s, _ in counts} | {m for _, m in counts})
    total = len(leaves)
    rows = [[percent_of(n, total), n, names.get(symbol, ""), names.get(module, "")]
            for (symbol, module), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]]
    return Table("cpu_sample_sum", "CPU Sampling: Hottest Functions", ["Samples (%)", "Samples", "Function", "Module"],
                 rows, [f"{total} samples in all; a function's share counts samples whose innermost frame it is."])


def cpu_samples_by_range(db: NsysDatabase) -> Table:
    """Per NVTX range name: CPU samples of the range's thread while it was open, the hottest function
    there, and the share of samples inside the Python interpreter."""
    from aiperf_lab.metrics.nsys.nvtx import load_ranges

    leaves = _leaf_frames(db)
    by_thread: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for _i, start, gtid, symbol, module in leaves:
        by_thread[gtid].append((start, symbol, module))
    starts = {gtid: [s for s, _, _ in samples] for gtid, samples in by_thread.items()}
    per_range: dict[str, Counter] = defaultdict(Counter)
    range_time: dict[str, int] = defaultdict(int)
    for r in load_ranges(db):
        range_time[r.name] += r.end - r.start
        samples = by_thread.get(r.global_tid)
        if not samples:
            per_range.setdefault(r.name, Counter())
            continue
        lo = bisect.bisect_left(starts[r.global_tid], r.start)
        hi = bisect.bisect_right(starts[r.global_tid], r.end)
        per_range[r.name].update((symbol, module) for _s, symbol, module in samples[lo:hi])
    names = db.strings({k for c in per_range.values() for pair in c for k in pair})
    rows = []
    for name, counter in sorted(per_range.items(), key=lambda item: (-sum(item[1].values()), item[0])):
        total = sum(counter.values())
        (symbol, module), top_n = counter.most_common(1)[0] if counter else ((None, None), 0)
        python = sum(n for (_s, m), n in counter.items() if _INTERPRETER.search(names.get(m, "")))
        rows.append([name, total, range_time[name], names.get(symbol, ""), percent_of(top_n, total) if total else None,
                     names.get(module, ""), percent_of(python, total) if total else None])
    return Table("cpu_samples_by_range", "CPU Samples per NVTX Range",
                 ["Range", "Samples", "Range Time (ns)", "Top Function", "Top Function (%)", "Top Module",
                  "In Python Interpreter (%)"], rows,
                 ["Samples of the thread that opened the range, taken while it was open; nested ranges count "
                  "in their parents too."])


def _callchains(db: NsysDatabase) -> dict[int, list[tuple[str, str]]]:
    """callchainId -> [(symbol, module)] from the innermost frame out."""
    rows = db.query(f"SELECT id, symbol, module FROM {CUDA_STACKS} ORDER BY id, stackDepth")
    names = db.strings({r[1] for r in rows} | {r[2] for r in rows})
    chains: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for chain_id, symbol, module in rows:
        chains[chain_id].append((names.get(symbol, ""), names.get(module, "")))
    return chains


def caller_of(frames: list[tuple[str, str]]) -> str:
    """The first frame outside the CUDA libraries (and not a bare address)."""
    for symbol, module in frames:
        if _CUDA_LIBRARY.search(module) or symbol.startswith("0x") or not symbol:
            continue
        if symbol.startswith(("cuda", "cu")) and "::" not in symbol:
            continue
        return symbol
    return "(unresolved)"


def cuda_api_callers(db: NsysDatabase, top: int = 40) -> Table:
    """CUDA API calls that have a backtrace, grouped by API and by the code that called them."""
    db.require("StringIds", what="StringIds table")
    db.require(RUNTIME, CUDA_STACKS, what="CUDA API backtraces (profile with --cudabacktrace)")
    if not db.has_column(RUNTIME, "callchainId"):
        raise MissingData(f"{db.path.name} does not contain CUDA API backtraces (profile with --cudabacktrace).")
    chains = _callchains(db)
    calls = db.query(f"SELECT nameId, [end] - start, callchainId FROM {RUNTIME} WHERE callchainId IS NOT NULL")
    if not calls:
        raise MissingData(f"{db.path.name} does not contain CUDA API backtraces (profile with --cudabacktrace).")
    api_names = db.strings({c[0] for c in calls})
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for name_id, duration, chain in calls:
        groups[(strip_api_version(api_names.get(name_id, "")), caller_of(chains.get(chain, [])))].append(duration)
    per_api = defaultdict(int)
    for (api, _caller), durations in groups.items():
        per_api[api] += sum(durations)
    rows = [[api, caller, len(d), sum(d), percent_of(sum(d), per_api[api])]
            for (api, caller), d in sorted(groups.items(), key=lambda item: (-sum(item[1]), item[0]))[:top]]
    return Table("cuda_api_callers", "CUDA API Calls by Caller (backtraces)",
                 ["API", "Caller", "Calls", "Total Time (ns)", "Share of API Time (%)"], rows,
                 ["Caller: the first frame of the call's backtrace outside libcuda, libcudart and the profiler. "
                  "Only calls longer than the --cudabacktrace threshold carry a backtrace."])


def api_time_with_frame(db: NsysDatabase, api: re.Pattern[str], frame: re.Pattern[str]) -> tuple[int, int]:
    """(time of calls to APIs matching `api` whose backtrace has a frame matching `frame`, their total time)."""
    chains = _callchains(db)
    calls = db.query(f"SELECT nameId, [end] - start, callchainId FROM {RUNTIME} WHERE callchainId IS NOT NULL")
    names = db.strings({c[0] for c in calls})
    matched = total = 0
    for name_id, duration, chain in calls:
        if api.search(names.get(name_id, "")):
            total += duration
            if any(frame.search(symbol) for symbol, _m in chains.get(chain, [])):
                matched += duration
    return matched, total
