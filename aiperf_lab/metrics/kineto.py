"""PyTorch profiler (Kineto) chrome traces: ``*.json`` and ``*.json.gz``.

GPU work is linked to its launch call only through ``args.correlation``: the meaning of
``External id`` on GPU events changed in 2024 (it used to equal the correlation id, now it is the
enclosing CPU op's id). Times are microseconds, integers in older traces and floats with nanosecond
precision in newer ones; they become integer nanoseconds here.
"""

from __future__ import annotations

import gc
import math
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.analysis import GpuOp
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, percent_of, summary_rows
from aiperf_lab.metrics.tables import Table

# PyTorch 1.8's Kineto named the same categories "Kernel", "Memcpy", "Memset" and "Runtime" (renamed
# "kernel", "gpu_memcpy", "gpu_memset" and "cuda_runtime" from 1.9 on): traces of either read alike.
GPU_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset",
                  "Kernel": "kernel", "Memcpy": "memcpy", "Memset": "memset"}
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver", "Runtime")


# Validation at the edge: a field of the wrong type (a list as "cat" or "pid", a string as "ts") or a
# time that is not a finite number in range makes the event malformed; malformed events are skipped
# and counted (the tables say how many), so every report reads clean values.
MAX_TIME_US = float(1 << 52)  # about 142 years: anything larger is not a timestamp
MAX_ID = 1 << 63
_SURROGATE = re.compile("[\ud800-\udfff]")


def _ns(microseconds: float | int) -> int:
    return round(float(microseconds) * 1000)


def _time_us(value) -> float | None:
    """A finite time in microseconds, or None for anything else (bools, strings, inf, 1e400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return float(value) if -MAX_TIME_US <= value <= MAX_TIME_US else None
    return value if math.isfinite(value) and abs(value) <= MAX_TIME_US else None


def _int_or(value, default: int) -> int:
    """An id from a trace field: an int (or a float or digit string holding one) within 64 bits, else default."""
    if isinstance(value, bool):
        return default
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            return default
        value = int(value)
    elif isinstance(value, str):
        text = value.strip()
        if not (0 < len(text) <= 20 and text.lstrip("-").isdigit()):
            return default
        value = int(text)
    if isinstance(value, int) and -MAX_ID <= value < MAX_ID:
        return value
    return default


def _key(value):
    """pid/tid as a dict key: ints and strings only (a list or dict there makes the event malformed)."""
    if isinstance(value, bool):
        return _MALFORMED
    if value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return _MALFORMED


_MALFORMED = object()


def _text(value) -> str | None:
    """A name: a string with lone surrogates replaced, or None when the field is not a string."""
    if not isinstance(value, str):
        return None
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


@dataclass(frozen=True)
class Annotation:
    name: str
    pid: object
    tid: object
    start: int
    end: int


@dataclass(frozen=True)
class CommCall:
    """One collective as PyTorch's c10d recorded it (a record_param_comms CPU op): its arguments as written."""

    pid: object
    tid: object
    start: int
    end: int
    args: dict


@dataclass
class KinetoTrace:
    path: Path
    ops: list[GpuOp]
    annotations: list[Annotation]          # CPU-side record_function ranges (user_annotation)
    gpu_annotations: list[Annotation]      # their GPU-side projections (gpu_user_annotation)
    launch_pid: dict[int, object]          # correlation id -> pid of the launching thread
    op_correlation: list[int | None]       # per op, its correlation id
    device_names: dict[int, str]
    base_time_ns: int | None = None        # baseTimeNanoseconds: UTC ns at ts = 0 (None when absent)
    malformed: int = 0                     # complete events skipped for a wrong-typed or out-of-range field
    comm_calls: list[CommCall] = field(default_factory=list)   # record_param_comms ops (collectives)
    nccl_launches: dict[int, tuple[object, object, int]] = field(default_factory=dict)  # NCCL op index ->
    #                                                          (pid, tid, launch start) of its launching call
    distributed: dict = field(default_factory=dict)            # the trace's distributedInfo

    def notes(self) -> list[str]:
        if not self.malformed:
            return []
        return [f"{self.malformed} events of the trace were skipped: a field had the wrong type or an "
                "out-of-range value (e.g. a list as cat or pid, an infinite ts)."]


def load_trace(path: Path) -> KinetoTrace:
    """The GPU operations and annotations of a trace, read one event at a time (bounded memory)."""
    from aiperf_lab.metrics.json_stream import TraceReader

    reader = TraceReader(path)
    # The read makes a dict per event and keeps a record per GPU operation, none of them in a cycle: the cyclic
    # collector's passes over the growing lists found nothing and cost about a third of a 1M-event read.
    # Reference counting still frees every event once read; the collector is back on as it was after.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(path, reader.events(), reader.meta)
    finally:
        if collecting:
            gc.enable()


def _build(path: Path, events: Iterable[object], meta: dict) -> KinetoTrace:
    """Keep what the reports need from each event; `meta` (deviceProperties) is read once events end."""
    launches: dict[int, tuple[int, object]] = {}
    gpu_records: list[tuple] = []
    annotations, gpu_annotations = [], []
    comm_calls: list[CommCall] = []
    names: dict[str, str] = {}  # one string object per distinct name
    malformed = 0
    gpu_categories, launch_categories = GPU_CATEGORIES, LAUNCH_CATEGORIES
    low, high = -MAX_TIME_US, MAX_TIME_US
    for event in events:
        # (per event, the common case is checked inline by exact type: a float time in range, an int or str
        # pid/tid, an ASCII name, an int id within 64 bits; anything else goes through the helpers above, which
        # give the same values for these and judge the rest)
        if not isinstance(event, dict) or event.get("ph") != "X" or "ts" not in event:
            continue
        category = event.get("cat")
        if not isinstance(category, str):
            malformed += category is not None
            continue
        if category not in gpu_categories and category not in launch_categories and \
                category != "user_annotation" and category != "gpu_user_annotation" and \
                not (category == "cpu_op" and event.get("name") == "record_param_comms"):
            continue
        ts = event["ts"]
        if type(ts) is not float or not low <= ts <= high:
            ts = _time_us(ts)
        dur = event.get("dur", 0)
        if type(dur) is not float or not low <= dur <= high:
            dur = _time_us(dur)
        name = event.get("name", "")
        if type(name) is not str or not name.isascii():
            name = _text(name)
        pid = event.get("pid")
        if type(pid) is not int and type(pid) is not str:
            pid = _key(pid)
        tid = event.get("tid")
        if type(tid) is not int and type(tid) is not str:
            tid = _key(tid)
        args = event.get("args", {})
        if ts is None or dur is None or name is None or pid is _MALFORMED or tid is _MALFORMED \
                or not isinstance(args, dict):
            malformed += 1
            continue
        name = names.setdefault(name, name)
        start = round(float(ts) * 1000)
        end = start + round(float(dur) * 1000)
        if category in launch_categories:
            if "correlation" in args:
                correlation = args["correlation"]
                if type(correlation) is not int or not -MAX_ID <= correlation < MAX_ID:
                    correlation = _int_or(correlation, -1)
                launches[correlation] = (start, pid, tid)
        elif category == "cpu_op":
            comm_calls.append(CommCall(pid, tid, start, end, args))
        elif category in gpu_categories:
            if "correlation" in args:
                correlation = args["correlation"]
                if type(correlation) is not int or not -MAX_ID <= correlation < MAX_ID:
                    correlation = _int_or(correlation, -1)
            else:
                correlation = None
            device = args.get("device", pid)
            if type(device) is not int or not -MAX_ID <= device < MAX_ID:
                device = _int_or(device, 0)
            stream = args.get("stream", tid)
            if type(stream) is not int or not -MAX_ID <= stream < MAX_ID:
                stream = _int_or(stream, 0)
            gpu_records.append((name, gpu_categories[category], device, stream, start, end, correlation))
        elif category == "user_annotation":
            annotations.append(Annotation(name, pid, tid, start, end))
        else:
            gpu_annotations.append(Annotation(name, pid, tid, start, end))
    ops, correlations = [], []
    nccl_launches: dict[int, tuple[object, object, int]] = {}
    for name, kind, device, stream, start, end, correlation in gpu_records:
        launch = launches.get(correlation) if correlation is not None else None
        if launch is not None and kind == "kernel" and name.startswith(("nccl", "void nccl")):
            nccl_launches[len(ops)] = (launch[1], launch[2], launch[0])
        ops.append(GpuOp(name, kind, device, stream, start, end, launch[0] if launch else None))
        correlations.append(correlation)
    devices = {}
    properties = meta.get("deviceProperties")
    for prop in properties if isinstance(properties, list) else []:
        if isinstance(prop, dict) and "id" in prop:
            label = _text(prop.get("name", ""))
            devices[_int_or(prop["id"], 0)] = label if label is not None else ""
    distributed = meta.get("distributedInfo")
    return KinetoTrace(path, ops, annotations, gpu_annotations,
                       {c: pid for c, (_s, pid, _t) in launches.items()}, correlations, devices,
                       _base_time(meta), malformed, comm_calls, nccl_launches,
                       distributed if isinstance(distributed, dict) else {})


def _base_time(meta: dict) -> int | None:
    """UTC ns of the trace's time zero: event times are microseconds after baseTimeNanoseconds."""
    value = meta.get("baseTimeNanoseconds")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        base = int(value)
    except (ValueError, OverflowError):   # not a number, NaN, a 5,000-digit string; an infinity (1e400)
        return None
    return base if base > 0 else None


def kernel_summary(trace: KinetoTrace) -> Table:
    """cuda_gpu_kern_sum's columns over the trace's kernels (durations in ns)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for op in trace.ops:
        if op.kind == "kernel":
            groups[op.name].append(op.duration)
    if not groups:
        raise MissingData(f"{trace.path.name} does not contain CUDA kernel events (a CPU-only trace, or "
                          "the profiler ran without ProfilerActivity.CUDA).")
    notes = ["From a PyTorch profiler trace: times were recorded in microseconds"
             + (" with nanosecond decimals." if any(op.duration % 1000 for op in trace.ops) else
                " (whole microseconds in this trace, so ns columns are multiples of 1000).")]
    return Table("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary (PyTorch trace)", [*SUM_COLUMNS, "Name"],
                 summary_rows(groups), notes + trace.notes())


def annotation_summary(trace: KinetoTrace) -> Table:
    """Per record_function name: CPU time, the GPU work launched while it was open, its GPU span."""
    if not trace.annotations and not trace.gpu_annotations:
        raise MissingData(f"{trace.path.name} has no record_function annotations (user_annotation events).")
    launches_by_pid: dict[object, list[tuple[int, int]]] = defaultdict(list)
    for op, correlation in zip(trace.ops, trace.op_correlation):
        if op.launch_start is not None and correlation is not None:
            launches_by_pid[trace.launch_pid.get(correlation)].append((op.launch_start, op.duration))
    # Per process: launch times in order and running sums of their GPU time, so each annotation costs two
    # bisections (a scan of every launch per annotation was quadratic: minutes on a 1 GB trace).
    by_pid: dict[object, tuple[list[int], list[int]]] = {}
    for pid, entries in launches_by_pid.items():
        entries.sort(key=lambda item: item[0])
        starts = [start for start, _ in entries]
        sums = [0]
        for _, duration in entries:
            sums.append(sums[-1] + duration)
        by_pid[pid] = (starts, sums)
    del launches_by_pid
    stats: dict[str, list] = {}
    for a in trace.annotations:
        entry = stats.setdefault(a.name, [0, 0, 0, 0, 0])
        entry[0] += 1
        entry[1] += a.end - a.start
        found = by_pid.get(a.pid)
        if found is not None:
            starts, sums = found
            first, last = bisect_left(starts, a.start), bisect_right(starts, a.end)
            entry[2] += last - first
            entry[3] += sums[last] - sums[first]
    for g in trace.gpu_annotations:
        stats.setdefault(g.name, [0, 0, 0, 0, 0])[4] += g.end - g.start
    total_gpu = sum(op.duration for op in trace.ops)
    rows = [[name, n, cpu, ops, gpu, percent_of(gpu, total_gpu), span]
            for name, (n, cpu, ops, gpu, span) in stats.items()]
    rows.sort(key=lambda r: (-r[4], -r[2], r[0]))
    columns = ["Annotation", "Instances", "CPU Time (ns)", "GPU Ops", "GPU Time (ns)", "GPU Time (%)",
               "GPU Span (ns)"]
    notes = ["GPU Ops and GPU Time count kernels, memcpy and memset launched on any thread of the process "
             "while the annotation was open; nested annotations each count them. GPU Span is the summed "
             "length of the profiler's gpu_user_annotation projection, where the trace has it."]
    return Table("torch_annotation_sum", "PyTorch record_function Summary", columns, rows, notes + trace.notes())
