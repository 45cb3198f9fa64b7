"""Analysis that works on GPU operations from any source (nsys export or PyTorch trace).

- kernel_breakdown: kernel time by category (gemm, attention, softmax, ...), with each share.
- gpu_idle: per device and stream, how busy the GPU was and the largest idle gaps, with what ran
  before each gap and whether the next launch came late from the CPU.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from aiperf_lab.metrics.summary_stats import percent_of
from aiperf_lab.metrics.tables import Table


@dataclass(frozen=True)
class GpuOp:
    """One kernel, memcpy or memset on the GPU. Times in ns on one clock (the profile's own)."""

    name: str
    kind: str               # "kernel", "memcpy" or "memset"
    device: int
    stream: int
    start: int
    end: int
    launch_start: int | None = None  # start of the CPU call that launched it, when known

    @property
    def duration(self) -> int:
        return self.end - self.start


# Ordered: the first rule that matches a lower-cased kernel name wins, so the specific rules
# (layer_norm inside a "vectorized" kernel, Adam inside multi_tensor_apply) come before the broad ones.
CATEGORY_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("communication", re.compile(r"nccl|all_?reduce|all_?gather|reduce_?scatter|alltoall|sendrecv|broadcast_kernel")),
    ("attention", re.compile(r"flash|fmha|attention|attn|sdpa|_mha_|mha_fwd|mha_bwd|efficient_attention")),
    ("optimizer", re.compile(r"adam|\bsgd|sgd_|lamb_|_lamb\b|optimizer|multi_tensor_apply|_foreach_")),
    ("softmax", re.compile(r"softmax")),
    ("normalization", re.compile(r"layer_?norm|rms_?norm|batch_?norm|group_?norm|instance_?norm|_norm_kernel|normaliz")),
    ("gemm", re.compile(r"gemm|gemv|xmma|nvjet|cublas|cutlass|matmul|wgmma|hmma|imma|s16816|s1688|cijk|triton_tem|_mm_|bmm|splitk")),
    ("reduction", re.compile(r"reduce|reduction|triton_red|triton_per|argmax|argmin|cub::device|sum_kernel|max_kernel|min_kernel|norm_two|cumsum|scan")),
    ("elementwise", re.compile(r"elementwise|vectorized|unrolled|pointwise|triton_poi|fill|copy|cat_?array|index|gather|scatter|where|masked|triu|tril|distribution|gelu|relu|silu|sigmoid|tanh|dropout|add|mul|div|cast|convert|transpose|permute|embedding")),
]
MEMORY_CATEGORY = "memcpy/memset"
CATEGORIES = [name for name, _ in CATEGORY_RULES] + [MEMORY_CATEGORY, "other"]


def categorize(name: str, kind: str = "kernel") -> str:
    """The category of a GPU operation from its kind and kernel name."""
    if kind != "kernel":
        return MEMORY_CATEGORY
    lowered = name.lower()
    for category, pattern in CATEGORY_RULES:
        if pattern.search(lowered):
            return category
    return "other"


def kernel_breakdown(ops: Iterable[GpuOp], scope: str | None = None) -> Table:
    """GPU time per category: share of all listed operation time, count, and the top kernel in each."""
    totals: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    by_name: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for op in ops:
        category = categorize(op.name, op.kind)
        totals[category] += op.duration
        counts[category] += 1
        by_name[category][op.name] += op.duration
    grand = sum(totals.values())
    rows = []
    for category in sorted(totals, key=lambda c: (-totals[c], CATEGORIES.index(c))):
        top_name, top_time = max(by_name[category].items(), key=lambda item: (item[1], item[0]))
        rows.append([category, percent_of(totals[category], grand), totals[category], counts[category],
                     len(by_name[category]), percent_of(top_time, totals[category]), top_name])
    notes = ["Time (%) is of the summed duration of the operations listed; kernels running at the same "
             "time on several streams each count in full."]
    title = "Kernel Category Breakdown" + (f" (within NVTX range {scope})" if scope else "")
    columns = ["Category", "Time (%)", "Total Time (ns)", "Instances", "Kernels", "Top Kernel Share (%)",
               "Top Kernel"]
    return Table("kernel_breakdown", title, columns, rows, notes)


def _merge(intervals: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1] = end
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


@dataclass(frozen=True)
class Gap:
    device: int
    stream: int | None
    start: int
    length: int
    before: GpuOp
    after: GpuOp

    @property
    def host_late(self) -> bool | None:
        """True when the CPU call that launched the next op began after the gap began (CPU-bound)."""
        if self.after.launch_start is None:
            return None
        return self.after.launch_start >= self.start


def _lane_gaps(ops: list[GpuOp], device: int, stream: int | None) -> tuple[int, int, list[Gap]]:
    """(span, busy, gaps) of one lane; ops sorted by start. Overlapping ops count once."""
    span = max(op.end for op in ops) - ops[0].start
    busy = sum(b - a for a, b in _merge([(op.start, op.end) for op in ops]))
    gaps = []
    reach_op = ops[0]
    for op in ops[1:]:
        if op.start > reach_op.end:
            gaps.append(Gap(device, stream, reach_op.end, op.start - reach_op.end, reach_op, op))
        if op.end > reach_op.end:
            reach_op = op
    return span, busy, gaps


def gpu_idle(ops: Iterable[GpuOp], top_gaps: int = 10) -> list[Table]:
    """Busy share and idle gaps per device (all streams together) and per stream, plus the top gaps."""
    lanes: dict[tuple[int, int | None], list[GpuOp]] = defaultdict(list)
    for op in ops:
        lanes[(op.device, None)].append(op)
        lanes[(op.device, op.stream)].append(op)
    rows = []
    device_gaps: list[Gap] = []
    for (device, stream) in sorted(lanes, key=lambda k: (k[0], k[1] is not None, k[1] or 0)):
        lane = sorted(lanes[(device, stream)], key=lambda op: (op.start, op.end))
        span, busy, gaps = _lane_gaps(lane, device, stream)
        if stream is None:
            device_gaps.extend(gaps)
        largest = max(gaps, key=lambda g: g.length, default=None)
        rows.append([device, "all" if stream is None else stream, len(lane), span, busy,
                     percent_of(busy, span) if span else 100.0, span - busy, len(gaps),
                     largest.length if largest else 0, largest.before.name if largest else ""])
    summary = Table(
        "gpu_idle", "GPU Idle Time",
        ["Device", "Stream", "Ops", "Span (ns)", "Busy (ns)", "Busy (%)", "Idle (ns)", "Gaps",
         "Largest Gap (ns)", "Before Largest Gap"],
        rows,
        ["Span runs from the first operation's start to the last one's end on that device or stream; "
         "busy time counts overlapping operations once."])
    device_gaps.sort(key=lambda g: (-g.length, g.device, g.start))
    first_start = {dev: min(op.start for op in lane) for (dev, s), lane in lanes.items() if s is None}
    gap_rows = [[g.device, g.start - first_start[g.device], g.length,
                 {True: "yes", False: "no", None: ""}[g.host_late], g.before.name, g.after.name]
                for g in device_gaps[:top_gaps]]
    gaps = Table(
        "gpu_idle_gaps", "Largest GPU Idle Gaps (all streams of a device)",
        ["Device", "Gap Start (ns from first op)", "Gap (ns)", "Host Late", "Before Gap",
         "After Gap"],
        gap_rows,
        ["Host Late = yes: the CPU call that launched the next operation started only "
         "after the GPU went idle, so the GPU waited on the host (launch overhead, synchronization, "
         "data loading); no: the work was queued and the gap has another cause."])
    return [summary, gaps]


def kernel_overlap(ops: Iterable[GpuOp]) -> Table:
    """Per device: how much kernel time ran concurrently with another kernel (streams at work).

    Overlap (%) = (summed kernel time - time with at least one kernel running) / summed kernel time:
    0 when kernels ran one after another, approaching 100 when many ran at once.
    """
    kernels: dict[int, list[GpuOp]] = defaultdict(list)
    for op in ops:
        if op.kind == "kernel":
            kernels[op.device].append(op)
    rows = []
    for device in sorted(kernels):
        lane = kernels[device]
        summed = sum(op.duration for op in lane)
        covered = sum(b - a for a, b in _merge([(op.start, op.end) for op in lane]))
        events = sorted([(op.start, 1) for op in lane] + [(op.end, -1) for op in lane])
        running = peak = 0
        for _t, step in events:
            running += step
            peak = max(peak, running)
        rows.append([device, len(lane), len({op.stream for op in lane}), summed, covered,
                     percent_of(summed - covered, summed) if summed else 0.0, peak])
    return Table("kernel_overlap", "Kernel Concurrency",
                 ["Device", "Kernels", "Streams", "Summed Kernel Time (ns)", "Kernel Busy Time (ns)", "Overlap (%)",
                  "Most Concurrent"], rows,
                 ["Overlap (%): the share of summed kernel time that ran while another kernel was also running."])


def kernel_diff(before: Table, after: Table, top: int = 30) -> Table:
    """Two cuda_gpu_kern_sum tables side by side, by kernel name: time and calls before and after.

    Kernels only in one side show with 0 on the other; rows ordered by the largest absolute change.
    """
    def by_name(table: Table) -> dict[str, tuple[int, int]]:
        total, count, name = (table.columns.index(c) for c in ("Total Time (ns)", "Instances", "Name"))
        return {row[name]: (row[total], row[count]) for row in table.rows}

    a, b = by_name(before), by_name(after)
    rows = []
    for name in set(a) | set(b):
        (ta, ca), (tb, cb) = a.get(name, (0, 0)), b.get(name, (0, 0))
        change = "removed" if not tb and ta else "new" if not ta and tb else ""
        rows.append([tb - ta, ta, tb, ca, cb, round(tb / ta, 3) if ta and tb else None, change, name])
    rows.sort(key=lambda r: (-abs(r[0]), r[-1]))
    total_a, total_b = sum(t for t, _ in a.values()), sum(t for t, _ in b.values())
    notes = [f"Total kernel time {total_a} ns before, {total_b} ns after"
             + (f" ({total_b / total_a:.3f}x)." if total_a else ".")]
    return Table("kernel_diff", "Kernel Time, Before and After",
                 ["Change (ns)", "Before (ns)", "After (ns)", "Calls Before", "Calls After", "After/Before", "Status",
                  "Name"], rows[:top], notes)
