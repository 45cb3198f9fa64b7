"""nccl_sum over PyTorch profiler traces, one per rank: collectives as c10d recorded them.

PyTorch's ProcessGroupNCCL wraps each collective in a ``record_param_comms`` CPU op whose arguments give
the collective ("Collective name"), the element type ("dtype") and the element counts ("In msg nelems",
"Out msg nelems"), and the group's size ("Group size"); older PyTorch versions record the op without
them. The NCCL kernels a call launched (linked to their launch by the correlation id; the launch on the
call's thread, inside its span) give the GPU time. S, as nccl-tests counts it, is the larger of the two
element counts times the element size: the message for all-reduce, broadcast and reduce, the gathered
output for all-gather, the scattered input for reduce-scatter, the send buffer for all-to-all.
"""

from __future__ import annotations

from collections import defaultdict

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.collectives import BANDWIDTH_NOTE, COLUMNS, bus_factor, collective_name, innermost_holders
from aiperf_lab.metrics.kineto import CommCall, KinetoTrace
from aiperf_lab.metrics.tables import Fixed3, Table

# c10::ScalarType names as record_param_comms writes them -> bytes per element.
DTYPE_BYTES = {"Byte": 1, "Char": 1, "Bool": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2, "Float": 4,
               "Double": 8, "ComplexHalf": 4, "ComplexFloat": 8, "ComplexDouble": 16, "BFloat16": 2,
               "QInt8": 1, "QUInt8": 1, "QInt32": 4, "Float8_e5m2": 1, "Float8_e4m3fn": 1, "Float8_e5m2fnuz": 1,
               "Float8_e4m3fnuz": 1, "UInt16": 2, "UInt32": 4, "UInt64": 8}
_SKIPPED = {"barrier", "init", "wait", "coalesced", ""}
ANNOTATION = "nccl annotation"  # args key of a call made from a bare nccl:<op> annotation


MAX_COUNT = 1 << 50  # an element count or group size past this (a 400-digit one) is no real message


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_COUNT else None


def _call_size(call: CommCall) -> tuple[int | None, str | None]:
    """(S in bytes, None) or (None, why it is unknown)."""
    if ANNOTATION in call.args:
        return None, "an nccl:<op> annotation with no record_param_comms op around it carries no sizes"
    counts = [_count(call.args.get(k)) for k in ("In msg nelems", "Out msg nelems") if k in call.args]
    counts = [c for c in counts if c is not None]
    dtype = call.args.get("dtype")
    if not counts:
        return None, "record_param_comms carries no element counts ('In msg nelems': older PyTorch)"
    width = DTYPE_BYTES.get(dtype) if isinstance(dtype, str) else None
    if width is None:
        return None, f"record_param_comms' dtype {dtype!r} has no known size"
    return max(counts) * width, None


def _calls(trace: KinetoTrace) -> tuple[list[CommCall], dict[int, str]]:
    """The record_param_comms ops, plus each nccl:<op> annotation that no such op holds (PyTorch versions
    that record some collectives, e.g. _all_gather_base, with the annotation alone), in time order; and per
    op (by id) the first nccl:<op> annotation inside it (older PyTorch names the collective only there)."""
    calls = list(trace.comm_calls)
    threads: dict[tuple, list] = defaultdict(list)
    for c in calls:
        threads[(c.pid, c.tid)].append((c.start, c.end, c))
    notes: dict[tuple, list] = defaultdict(list)
    for a in trace.annotations:
        if a.name.startswith("nccl:"):
            notes[(a.pid, a.tid)].append(a)
    named: dict[int, str] = {}
    for key, found in notes.items():
        found.sort(key=lambda a: a.start)
        for a, holder in zip(found, innermost_holders(threads.get(key, []), [(a.start, a.end) for a in found])):
            if holder is None:
                calls.append(CommCall(a.pid, a.tid, a.start, a.end, {ANNOTATION: a.name}))
            else:
                named.setdefault(id(holder[2]), a.name[5:])
    return sorted(calls, key=lambda c: c.start), named


def _collective(call: CommCall, named: dict[int, str]) -> str | None:
    name = call.args.get("Collective name") or call.args.get(ANNOTATION, "")[5:] or named.get(id(call))
    if isinstance(name, str) and name:
        return collective_name(name) or name
    return None


def _group_size(call: CommCall, trace: KinetoTrace) -> int | None:
    size = _count(call.args.get("Group size"))
    if size:
        return size
    world = _count(trace.distributed.get("world_size"))
    return world or None


def _rank_rows(label: str, trace: KinetoTrace, given: int, why: dict[str, list]) -> list[list]:
    calls, named = _calls(trace)
    kernel_time = [0] * len(calls)
    unmatched = [0, 0]  # NCCL kernels launched outside any call: count, time
    call_index = {id(call): i for i, call in enumerate(calls)}
    threads: dict[tuple, list] = defaultdict(list)
    for call in calls:
        threads[(call.pid, call.tid)].append((call.start, call.end, call))
    launches: dict[tuple, list[tuple[int, int]]] = defaultdict(list)  # thread -> (op index, launch time)
    for op_index, (pid, tid, launched) in trace.nccl_launches.items():
        launches[(pid, tid)].append((op_index, launched))
    for key, items in launches.items():
        holders = innermost_holders(threads.get(key, []), [(t, t) for _, t in items])
        for (op_index, _t), holder in zip(items, holders):
            duration = trace.ops[op_index].duration
            if holder is None:
                unmatched[0] += 1
                unmatched[1] += duration
            else:
                kernel_time[call_index[id(holder[2])]] += duration
    groups: dict[str, list[tuple[int | None, int, int | None]]] = defaultdict(list)
    for i, call in enumerate(calls):
        name = call.args.get("Collective name")
        if isinstance(name, str) and name.lower() in _SKIPPED:
            continue
        collective = _collective(call, named) or "unknown"
        size, reason = _call_size(call)
        if reason:
            entry = why.setdefault(reason, [0, f"{reason} in {trace.path.name}"])
            entry[0] += 1
        groups[collective].append((size, kernel_time[i], _group_size(call, trace)))
    rows = []
    for collective in sorted(groups):
        items = groups[collective]
        time = sum(t for _, t, _ in items)
        ns = sorted({n if n is not None else given for _, _, n in items})
        known = all(s is not None for s, _, _ in items)
        size = sum(s for s, _, _ in items) if known else None
        algbw = size / time if size is not None and time else None
        factors = [bus_factor(collective, n if n is not None else given) for _, _, n in items]
        busbw = None
        if algbw is not None and all(f is not None for f in factors):
            busbw = sum(s * f for (s, _, _), f in zip(items, factors)) / time
        rows.append([label, collective, len(items), size if size is not None else "unknown", time,
                     Fixed3(time / len(items) / 1000), Fixed3(algbw) if algbw is not None else None,
                     Fixed3(busbw) if busbw is not None else None, ns[0] if len(ns) == 1 else ",".join(map(str, ns))])
    if unmatched[0]:
        world = _count(trace.distributed.get("world_size")) or given
        rows.append([label, "unknown", unmatched[0], "unknown", unmatched[1],
                     Fixed3(unmatched[1] / unmatched[0] / 1000), None, None, world])
    return rows


def nccl_sum(traces: list[tuple[str, KinetoTrace]]) -> Table:
    """Per rank and collective: calls, bytes, NCCL kernel time, algbw and busbw (nccl-tests)."""
    have = [(label, t) for label, t in traces if t.comm_calls or t.nccl_launches]
    if not have:
        names = ", ".join(sorted({t.path.name for _, t in traces}))
        raise MissingData(f"{names} has no collectives (no record_param_comms ops and no NCCL kernels).")
    why: dict[str, list] = {}
    rows = [row for label, trace in have for row in _rank_rows(label, trace, len(traces), why)]
    notes = ["From PyTorch's record_param_comms ops: Bytes = S as nccl-tests counts it (the larger element "
             "count x the dtype's size), Time = the GPU time of the NCCL kernels each call launched. "
             + BANDWIDTH_NOTE + " n (Ranks) = the call's 'Group size', else the trace's world size, else the "
             "number of traces given."]
    for count, first in sorted(why.values(), key=lambda v: v[1]):
        notes.append(f"Bytes unknown for {count} calls: {first}.")
    if any(r[4] == 0 for r in rows):
        notes.append("Time 0: the call launched no NCCL kernel the trace recorded (a one-rank group copies "
                     "locally, or CUDA activity was not traced), so no bandwidth.")
    if any(r[1] == "unknown" and r[3] == "unknown" and r[4] for r in rows):
        notes.append("Collective 'unknown': NCCL kernels launched outside any record_param_comms op.")
    return Table("nccl_sum", "NCCL Collectives per Rank (PyTorch traces)", COLUMNS, rows, notes + [
        n for _, t in have for n in t.notes()])
