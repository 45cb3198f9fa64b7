"""PyTorch profiler (Kineto) chrome traces: ``*.json`` and ``*.json.gz``.

GPU work is linked to its launch call only through ``args.correlation``: the meaning of
``External id`` on GPU events changed in 2024 (it used to equal the correlation id, now it is the
enclosing CPU op's id). Times are microseconds, integers in older traces and floats with nanosecond
precision in newer ones; they become integer nanoseconds here.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from aiperf_lab.errors import InputError, MissingData, NotAProfile
from aiperf_lab.metrics.analysis import GpuOp
from aiperf_lab.metrics.summary_stats import SUM_COLUMNS, percent_of, summary_rows
from aiperf_lab.metrics.tables import Table

GPU_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")


def _ns(microseconds: float | int) -> int:
    return round(float(microseconds) * 1000)


def _int_or(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class Annotation:
    name: str
    pid: object
    tid: object
    start: int
    end: int


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


def load_trace(path: Path) -> KinetoTrace:
    raw = path.read_bytes()
    if not raw:
        raise InputError(f"{path}: empty file")
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{path}: damaged or truncated gzip ({exc})") from None
    try:
        document = json.loads(raw.decode("utf-8", "replace"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (truncated trace?): {exc.msg} at line {exc.lineno}") from None
    events = document.get("traceEvents") if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise NotAProfile(f"{path}: JSON without traceEvents: not a PyTorch profiler trace")
    return _build(path, document if isinstance(document, dict) else {}, events)


def _build(path: Path, document: dict, events: list) -> KinetoTrace:
    launches: dict[int, tuple[int, object]] = {}
    gpu_events = []
    annotations, gpu_annotations = [], []
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X" or "ts" not in event:
            continue
        category = event.get("cat")
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        try:
            start = _ns(event["ts"])
            end = start + _ns(event.get("dur", 0))
        except (TypeError, ValueError):
            continue
        if category in LAUNCH_CATEGORIES and "correlation" in args:
            launches[_int_or(args["correlation"], -1)] = (start, event.get("pid"))
        elif category in GPU_CATEGORIES:
            gpu_events.append((event, args, start, end))
        elif category == "user_annotation":
            annotations.append(Annotation(str(event.get("name", "")), event.get("pid"), event.get("tid"), start, end))
        elif category == "gpu_user_annotation":
            gpu_annotations.append(Annotation(str(event.get("name", "")), event.get("pid"), event.get("tid"), start, end))
    ops, correlations = [], []
    for event, args, start, end in gpu_events:
        correlation = _int_or(args.get("correlation"), -1) if "correlation" in args else None
        launch = launches.get(correlation) if correlation is not None else None
        ops.append(GpuOp(str(event.get("name", "")), GPU_CATEGORIES[event["cat"]],
                         _int_or(args.get("device", event.get("pid")), 0),
                         _int_or(args.get("stream", event.get("tid")), 0), start, end,
                         launch[0] if launch else None))
        correlations.append(correlation)
    devices = {}
    for prop in document.get("deviceProperties") or []:
        if isinstance(prop, dict) and "id" in prop:
            devices[_int_or(prop["id"], 0)] = str(prop.get("name", ""))
    return KinetoTrace(path, ops, annotations, gpu_annotations,
                       {c: pid for c, (_s, pid) in launches.items()}, correlations, devices,
                       _base_time(document))


def _base_time(document: dict) -> int | None:
    """UTC ns of the trace's time zero: event times are microseconds after baseTimeNanoseconds."""
    value = document.get("baseTimeNanoseconds")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        base = int(value)
    except ValueError:
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
                 summary_rows(groups), notes)


def annotation_summary(trace: KinetoTrace) -> Table:
    """Per record_function name: CPU time, the GPU work launched while it was open, its GPU span."""
    if not trace.annotations and not trace.gpu_annotations:
        raise MissingData(f"{trace.path.name} has no record_function annotations (user_annotation events).")
    launches_by_pid: dict[object, list[tuple[int, GpuOp]]] = defaultdict(list)
    for op, correlation in zip(trace.ops, trace.op_correlation):
        if op.launch_start is not None and correlation is not None:
            launches_by_pid[trace.launch_pid.get(correlation)].append((op.launch_start, op))
    for entries in launches_by_pid.values():
        entries.sort(key=lambda item: item[0])
    stats: dict[str, list] = {}
    for a in trace.annotations:
        entry = stats.setdefault(a.name, [0, 0, 0, 0, 0])
        entry[0] += 1
        entry[1] += a.end - a.start
        for launch_start, op in launches_by_pid.get(a.pid, ()):
            if a.start <= launch_start <= a.end:
                entry[2] += 1
                entry[3] += op.duration
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
    return Table("torch_annotation_sum", "PyTorch record_function Summary", columns, rows, notes)
