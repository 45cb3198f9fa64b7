"""Reports over the exports of several ranks at once: nccl_sum (collectives per rank, with nccl-tests'
bandwidths) and rank_spread (the same kernel or NVTX range on every rank: who is slowest).

A rank is one process that ran NCCL or GPU work: one export per rank (``nsys profile -o rank%q{RANK}``),
or several processes in one export (``nsys profile torchrun ...``), each then its own rank.

Bandwidths and sizes as nccl-tests defines them: see metrics/collectives.py. S comes from NCCL's NVTX
extended payload ("Message size [bytes]": count x datatype size, one rank's part for all-gather and
reduce-scatter), decoded from the export's own schema tables (nvtx_payload.py); n is the communicator's size
from its ncclCommInit payload, else the number of ranks given. t is the GPU time of the collective's kernels
(waiting for the slowest peer included, as a collective's time is). Without the payload (NCCL before 2.19,
NVTX not traced, or an export made without --include-blobs) the bytes and bandwidths are unknown, and the
table's note says which.
"""

from __future__ import annotations

import re
import statistics
import weakref
from collections import defaultdict
from pathlib import Path
from typing import Any

from aiperf_lab.errors import InputError, MissingData
from aiperf_lab.metrics.collectives import (BANDWIDTH_NOTE, COLUMNS, NAMES as _NAMES, bus_factor,
                                            innermost_holders, size_multiplier)
from aiperf_lab.metrics.nsys.db import KERNEL, NVTX, RUNTIME, NsysDatabase
from aiperf_lab.metrics.tables import Fixed3, Table

_KERNEL_COLLECTIVE = re.compile(r"^(?:void )?nccl(?:Dev)?Kernel_([A-Za-z]+)")
_RANGE_COLLECTIVE = re.compile(r"^nccl([A-Z][A-Za-z]+)$")


def rank_labels(paths: list[Path]) -> list[str]:
    """The rank of each export: the number at the end of its name when every name has a distinct one
    (rank0.sqlite, trace.3.sqlite), else its position on the command line."""
    labels = ranks_from_names(paths)
    return labels if labels is not None else [str(i) for i in range(len(paths))]


def ranks_from_names(paths: list[Path]) -> list[str] | None:
    """The number at the end of each export's name (rank0.sqlite, trace.3.sqlite) where every name has one
    and no two the same number, else None."""
    numbers = []
    for path in paths:
        match = re.search(r"(\d+)\D*$", path.name.split(".sqlite")[0].split(".nsys-rep")[0])
        numbers.append(match.group(1) if match else None)
    if all(numbers) and len({int(n) for n in numbers}) == len(numbers):
        return [str(int(n)) for n in numbers]
    return None


class Rank:
    """One process of one export."""

    __slots__ = ("label", "db", "pid")

    def __init__(self, label: str, db: NsysDatabase, pid: int | None):
        self.label, self.db, self.pid = label, db, pid


# Processes of one export read as ranks: one node's (`nsys profile torchrun ...` on 8 GPUs is 8); each
# costs a pass over the kernels, so an export claiming thousands is refused rather than read for minutes.
MAX_PROCESSES_PER_EXPORT = 256


def split_ranks(exports: list[tuple[str, NsysDatabase]]) -> list[Rank]:
    """The ranks of the given exports: each export's processes that ran kernels (one rank per export
    in the usual one-export-per-rank capture)."""
    ranks = []
    for label, db in exports:
        pids = [p for (p,) in db.query(f"SELECT DISTINCT (globalPid >> 24) & 0xFFFFFF FROM {KERNEL} "
                                       f"LIMIT {MAX_PROCESSES_PER_EXPORT + 1}")] if db.has(KERNEL) else []
        if len(pids) > MAX_PROCESSES_PER_EXPORT:
            raise InputError(f"{db.path.name}: kernels from more than {MAX_PROCESSES_PER_EXPORT} processes; "
                             "the multi-rank reports read at most that many ranks from one export")
        if len(pids) <= 1:
            ranks.append(Rank(label, db, pids[0] if pids else None))
        else:
            ranks.extend(Rank(f"{label}:pid {pid}" if len(exports) > 1 else f"pid {pid}", db, pid) for pid in sorted(pids))
    return ranks


def _pid_filter(rank: Rank, column: str = "globalPid") -> str:
    return "1" if rank.pid is None else f"(({column} >> 24) & 0xFFFFFF) = {int(rank.pid)}"


def _collective_of_kernel(name: str) -> str | None:
    match = _KERNEL_COLLECTIVE.match(name)
    if not match:
        return None
    token = match.group(1).lower()
    return _NAMES.get(token)


def _nccl_kernels(rank: Rank) -> list[tuple[str | None, int, int | None, int | None, int | None]]:
    """(collective or None, duration, launching thread, call start, call end) of each NCCL kernel."""
    db = rank.db
    if not (db.has(KERNEL) and db.has("StringIds")):
        return []
    ids = {i: v for i, v in db.query("SELECT id, value FROM StringIds WHERE value LIKE 'nccl%Kernel%' "
                                     "OR value LIKE 'void nccl%Kernel%'")}
    if not ids:
        return []
    join = (f"LEFT JOIN {RUNTIME} AS r ON r.correlationId = k.correlationId "
            "AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)") if db.has(RUNTIME) else ""
    call = "r.globalTid, r.start, r.[end]" if db.has(RUNTIME) else "NULL, NULL, NULL"
    rows = db.query(f"SELECT k.demangledName, k.[end] - k.start, {call} FROM {KERNEL} AS k {join} "
                    f"WHERE k.demangledName IN ({','.join(map(str, ids))}) AND {_pid_filter(rank, 'k.globalPid')}")
    return [(_collective_of_kernel(ids[name]), duration, gtid, start, end) for name, duration, gtid, start, end in rows]


MESSAGE_SIZE, COMMUNICATOR, RANK_COUNT = "Message size [bytes]", "NCCL communicator ID", "No. of ranks"
MAX_MESSAGE_BYTES = 1 << 50         # a payload's size beyond this (a petabyte) is not a real message
MAX_COMMUNICATOR_RANKS = 1 << 20    # nor a communicator's size beyond this, or below 1


def _is_int(value: object) -> bool:
    return type(value) is int  # noqa: E721 (a bool is not a count, nor a subclass of int a size)


def _ranges_with_a_thread(db: NsysDatabase, end_bound: str) -> list:
    """An export's NVTX ranges that name their thread, read once per export and end bound (an export of
    several processes is several ranks, each filtering the same ranges)."""
    per_bound = _RANGES.setdefault(db, {})
    if end_bound not in per_bound:
        from aiperf_lab.metrics.nsys.nvtx import load_ranges

        per_bound[end_bound] = [r for r in load_ranges(db, end_bound=end_bound) if _is_int(r.global_tid)]
    return per_bound[end_bound]


def _ranges_of_process(db: NsysDatabase, end_bound: str, pid: int) -> list:
    """The ranges of one process of an export, grouped by process once per export and end bound (250
    processes each filtering 94,000 ranges was 23 million steps)."""
    key = f"{end_bound} by process"
    per_bound = _RANGES.setdefault(db, {})
    if key not in per_bound:
        grouped: dict[int, list] = defaultdict(list)
        for r in _ranges_with_a_thread(db, end_bound):
            grouped[(r.global_tid >> 24) & 0xFFFFFF].append(r)
        per_bound[key] = grouped
    return per_bound[key].get(pid, [])


def _nccl_ranges(db: NsysDatabase, pid: int | None) -> list:
    ranges = _ranges_with_a_thread(db, "ranges") if pid is None else _ranges_of_process(db, "ranges", pid)
    return [r for r in ranges if r.name.startswith("NCCL:")]


_RANGES: "weakref.WeakKeyDictionary[NsysDatabase, dict[str, Any]]" = weakref.WeakKeyDictionary()


class NcclCalls:
    """One rank's NCCL API ranges (domain NCCL) per thread, what their payloads say, and why a size is
    missing where it is."""

    def __init__(self, rank: Rank):
        # per thread: (start, end, collective, message bytes, communicator, the range's name)
        self.by_thread: dict[int, list[tuple[int, int, str | None, int | None, int | None, str]]] = defaultdict(list)
        self.comm_sizes: dict[int, int] = {}   # communicator id -> its number of ranks (from ncclCommInit*)
        self.why: dict[str, list] = {}         # why a collective's size is unknown -> [calls, first instance]
        db = rank.db
        if not db.has(NVTX):
            return
        from aiperf_lab.metrics.nsys.nvtx_payload import PayloadDecoder, event_payloads

        ranges = [(r, r.name.partition(":")[2]) for r in _nccl_ranges(db, rank.pid)]
        if not ranges:
            return
        payloads = event_payloads(db, [r.range_id for r, _ in ranges])
        decoder = PayloadDecoder(db) if payloads else None
        missing = self._missing_reason(db) if not payloads else \
            f"some of {db.path.name}'s NCCL ranges carry no payload while others do"
        collectives: dict[str, str | None] = {}   # range name -> collective, worked out once per name
        why_keys: dict[str, str] = {}                # a reason -> the part that groups it
        for r, text in ranges:
            if text in collectives:
                collective = collectives[text]
            else:
                match = _RANGE_COLLECTIVE.match(text)
                collective = collectives[text] = _NAMES.get(match.group(1).lower()) if match else None
            values, why = self._values(payloads.get(r.range_id), decoder, missing)
            size = values.get(MESSAGE_SIZE)
            comm = values.get(COMMUNICATOR)
            ranks_in_comm = values.get(RANK_COUNT)
            if _is_int(comm) and _is_int(ranks_in_comm) and 1 <= ranks_in_comm <= MAX_COMMUNICATOR_RANKS:
                self.comm_sizes[comm] = ranks_in_comm
            if not (_is_int(size) and 0 <= size < MAX_MESSAGE_BYTES):
                size = None
                if collective is not None:
                    why = why or (f"the payload of {text} has no '{MESSAGE_SIZE}' entry "
                                  f"(entries: {', '.join(values) or 'none'})")
                    key = why_keys.get(why)
                    if key is None:
                        key = why_keys[why] = why.split(" (", 1)[0]
                    entry = self.why.setdefault(key, [0, why])
                    entry[0] += 1
            self.by_thread[r.global_tid].append((r.start, r.end, collective, size,
                                                 comm if isinstance(comm, int) else None, text))

    @staticmethod
    def _missing_reason(db: NsysDatabase) -> str:
        from aiperf_lab.metrics.nsys.nvtx_payload import ENTRIES

        name = db.path.name
        if db.has(ENTRIES) and db.count(ENTRIES):
            if not db.has_column(NVTX, "binaryData"):
                return (f"{name} has NCCL's payload schemas, but its NVTX_EVENTS has no binaryData column "
                        "(an nsys before 2024 export)")
            return (f"{name} has NCCL's payload schemas but no payload data (binaryData and jsonText are "
                    "empty): `nsys export` writes the payloads only with --include-blobs=true; export the "
                    ".nsys-rep again with it, or give aiperf-stats the .nsys-rep")
        return (f"{name}'s NCCL ranges carry no payload (NCCL before 2.19 records no sizes in NVTX; "
                "nsys captured no payload schema)")

    @staticmethod
    def _values(found, decoder, missing: str) -> tuple[dict, str | None]:
        from aiperf_lab.metrics.nsys.nvtx_payload import Payload, json_values

        if found is None:
            return {}, missing
        domain, blob, text = found
        if blob is not None and decoder is not None:
            decoded = decoder.decode(domain, blob)
            if isinstance(decoded, Payload):
                return decoded.values, None
            return {}, decoded
        values = json_values(text)
        if values is None:
            return {}, "a payload's jsonText is not a JSON object"
        return values, None


def _innermost(ranges: list, start: int, end: int):
    """The shortest of `ranges` holding [start, end] (the plain scan: innermost_holders() gives the same
    for nested ranges, in one sweep)."""
    best = None
    for r in ranges:
        if r[0] <= start and r[1] >= end and (best is None or r[1] - r[0] < best[1] - best[0]):
            best = r
    return best


def nccl_sum(exports: list[tuple[str, NsysDatabase]]) -> Table:
    """NCCL collectives per rank: count, bytes, GPU time, algorithm and bus bandwidth (nccl-tests)."""
    ranks = split_ranks(exports)
    per_rank = []
    for rank in ranks:
        kernels = _nccl_kernels(rank)
        if kernels:
            per_rank.append((rank, kernels))
    if not per_rank:
        raise MissingData(", ".join(sorted({db.path.name for _, db in exports})) + " does not contain NCCL kernels.")
    given = len(per_rank)
    rows = []
    why: dict[str, list] = {}
    unmatched = 0
    sizes_seen: set[int] = set()
    for rank, kernels in per_rank:
        calls = NcclCalls(rank)
        for key, (count, first) in calls.why.items():
            why.setdefault(key, [0, first, "calls"])[0] += count
        groups: dict[str, list[tuple[int, int | None, int]]] = defaultdict(list)
        holders: dict[int, tuple | None] = {}
        by_thread: dict[object, list[int]] = defaultdict(list)
        for index, (_c, _d, gtid, start, _e) in enumerate(kernels):
            if start is not None:
                by_thread[gtid].append(index)
        for gtid, indexes in by_thread.items():
            found = innermost_holders(calls.by_thread.get(gtid, []), [(kernels[i][3], kernels[i][4]) for i in indexes])
            holders.update(zip(indexes, found))
        counted: set[int] = set()  # ranges whose bytes are in: a call's bytes once, however many kernels it launched
        for index, (collective, duration, gtid, start, end) in enumerate(kernels):
            size, n = None, given
            enclosing = holders.get(index)
            if enclosing is not None:
                if enclosing[2] is None:  # launched inside ncclGroupEnd (or another non-collective call)
                    entry = why.setdefault(f"group:{enclosing[5]}", [0, (
                        f"launched inside {enclosing[5]}, not inside their collective's own range (grouped "
                        "calls: NCCL launches them at ncclGroupEnd), so no call's size applies"), "kernels"])
                    entry[0] += 1
                collective = collective or enclosing[2]
                size = enclosing[3] if id(enclosing) not in counted or enclosing[3] is None else 0
                counted.add(id(enclosing))
                n = calls.comm_sizes.get(enclosing[4], given)
            else:
                unmatched += 1
            sizes_seen.add(n)
            groups[collective or "unknown"].append((duration, size, n))
        for collective in sorted(groups):
            items = groups[collective]
            time = sum(d for d, _, _ in items)
            known = all(s is not None for _, s, _ in items)
            size = sum(s * size_multiplier(collective, n) for _, s, n in items) if known else None
            algbw = size / time if size is not None and time else None  # bytes per ns = GB/s
            factors = [bus_factor(collective, n) for _, _, n in items]
            busbw = None
            if algbw is not None and all(f is not None for f in factors):
                busbw = sum(s * size_multiplier(collective, n) * f for (_, s, n), f in zip(items, factors)) / time
            counts = sorted({n for _, _, n in items})
            rows.append([rank.label, collective, len(items), size if size is not None else "unknown", time,
                         Fixed3(time / len(items) / 1000), _gbps(algbw), _gbps(busbw),
                         counts[0] if len(counts) == 1 else ",".join(map(str, counts))])
    notes = ["Count = NCCL kernels. Bytes = S as nccl-tests counts it: NCCL's payload 'Message size [bytes]' "
             "(count x datatype size, one rank's part) once per call, times n for all-gather and reduce-scatter. "
             + BANDWIDTH_NOTE +
             " n (Ranks) = the communicator's size from its ncclCommInit payload, else the number of ranks given."]
    for _key, (count, first, unit) in sorted(why.items()):
        notes.append(f"Bytes unknown for {count} {unit}: {first}.")
    if unmatched and any(row[3] == "unknown" for row in rows):
        notes.append(f"{unmatched} NCCL kernels were launched outside an NCCL NVTX range of their thread "
                     "(no -t nvtx, or NCCL_NVTX_DISABLE=1): their size is unknown.")
    if given < 2 and sizes_seen == {1}:
        notes.append("One rank: bus bandwidth needs every rank's export (give them all).")
    return Table("nccl_sum", "NCCL Collectives per Rank", COLUMNS, rows, notes)


def _gbps(value: float | None):
    return Fixed3(value) if value is not None else None


def _kernel_totals(rank: Rank) -> dict[str, list[int]]:
    db = rank.db
    if not db.has(KERNEL):
        return {}
    rows = db.query(f"SELECT demangledName, count(*), sum([end] - start) FROM {KERNEL} "
                    f"WHERE {_pid_filter(rank)} GROUP BY demangledName")
    names = db.strings({r[0] for r in rows})
    out: dict[str, list[int]] = {}
    for name_id, count, total in rows:
        entry = out.setdefault(names.get(name_id, ""), [0, 0])
        entry[0] += count
        entry[1] += total
    return out


def _range_totals(rank: Rank) -> dict[str, list[int]]:
    if not rank.db.has(NVTX):
        return {}
    from aiperf_lab.metrics.nsys.nvtx import load_ranges

    out: dict[str, list[int]] = {}
    for r in (load_ranges(rank.db, end_bound="all") if rank.pid is None else _ranges_of_process(rank.db, "all", rank.pid)):
        entry = out.setdefault(r.name, [0, 0])
        entry[0] += 1
        entry[1] += r.end - r.start
    return out


def rank_spread(exports: list[tuple[str, NsysDatabase]]) -> Table:
    """Per kernel and per NVTX range: total time on each rank, the spread, the slowest rank (stragglers)."""
    ranks = split_ranks(exports)
    if len(ranks) < 2:
        names = ", ".join(sorted({db.path.name for _, db in exports}))
        raise MissingData(f"{names} has no second rank to compare: give the exports of two or more ranks "
                          "(or one export with several processes).")
    rows = []
    for kind, totals in (("kernel", _kernel_totals), ("range", _range_totals)):
        per_rank = [(rank.label, totals(rank)) for rank in ranks]
        names = sorted({name for _, t in per_rank for name in t})
        for name in names:
            present = [(label, t[name]) for label, t in per_rank if name in t]
            times = [v[1] for _, v in present]
            counts = sorted({v[0] for _, v in present})
            slowest = max(present, key=lambda item: item[1][1])
            fastest = min(present, key=lambda item: item[1][1])
            median = statistics.median(times)
            spread = slowest[1][1] - fastest[1][1]
            rows.append([kind, name, f"{len(present)}/{len(ranks)}",
                         str(counts[0]) if len(counts) == 1 else f"{counts[0]}..{counts[-1]}",
                         fastest[1][1], float(median), slowest[1][1], spread,
                         Fixed3(100.0 * spread / median) if median else None, slowest[0], fastest[0]])
    rows.sort(key=lambda row: -row[7])
    columns = ["Kind", "Name", "Ranks", "Count", "Min Total (ns)", "Med Total (ns)", "Max Total (ns)", "Spread (ns)",
               "Spread (%)", "Slowest Rank", "Fastest Rank"]
    notes = ["Spread = slowest rank's total minus the fastest's; Spread (%) is of the median. A rank that is "
             "slowest on compute kernels while the others wait in NCCL kernels is the straggler."]
    return Table("rank_spread", "Per-Rank Spread of Kernels and NVTX Ranges", columns, rows, notes)
