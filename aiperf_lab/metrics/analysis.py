"""Analysis that works on GPU operations from any source (nsys export or PyTorch trace).

- kernel_breakdown: kernel time by category (gemm, attention, softmax, ...), with each share.
- gpu_idle: per device and stream, how busy the GPU was and the largest idle gaps, with what ran
  before each gap and whether the next launch came late from the CPU.
"""

from __future__ import annotations

import heapq
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

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


# Real kernel names (deep C++ templates included) stay far below this; the rules run over at most this
# much of a name, so a crafted 5 MB name costs milliseconds, not seconds per rule.
CATEGORIZED_CHARS = 65_536


def categorize(name: str, kind: str = "kernel") -> str:
    """The category of a GPU operation from its kind and kernel name (its first CATEGORIZED_CHARS)."""
    if kind != "kernel":
        return MEMORY_CATEGORY
    lowered = name[:CATEGORIZED_CHARS].lower()
    for category, pattern in CATEGORY_RULES:
        if pattern.search(lowered):
            return category
    return "other"


def kernel_breakdown(ops: Iterable[GpuOp], scope: str | None = None) -> Table:
    """GPU time per category: share of all listed operation time, count, and the top kernel in each."""
    totals: dict[tuple[str, str], list[int]] = {}
    for op in ops:
        entry = totals.get((op.name, op.kind))
        if entry is None:
            totals[(op.name, op.kind)] = [op.duration, 1]
        else:
            entry[0] += op.duration
            entry[1] += 1
    return kernel_breakdown_of_totals(((name, kind, t, n) for (name, kind), (t, n) in totals.items()), scope)


def kernel_breakdown_of_totals(items: Iterable[tuple[str, str, int, int]], scope: str | None = None) -> Table:
    """kernel_breakdown from (name, kind, total time, count) per operation name, however they were summed
    (in Python over GpuOps, or by SQLite over an export of millions of kernels)."""
    totals: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    by_name: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cut = 0
    for name, kind, total, count in items:
        category = categorize(name, kind)
        cut += len(name) > CATEGORIZED_CHARS and kind == "kernel"
        totals[category] += total
        counts[category] += count
        by_name[category][name] += total
    grand = sum(totals.values())
    rows = []
    for category in sorted(totals, key=lambda c: (-totals[c], CATEGORIES.index(c))):
        top_name, top_time = max(by_name[category].items(), key=lambda item: (item[1], item[0]))
        rows.append([category, percent_of(totals[category], grand), totals[category], counts[category],
                     len(by_name[category]), percent_of(top_time, totals[category]), top_name])
    notes = ["Time (%) is of the summed duration of the operations listed; kernels running at the same "
             "time on several streams each count in full."]
    if cut:
        notes.append(f"{cut} kernel name(s) longer than {CATEGORIZED_CHARS:,} characters were categorized from "
                     f"their first {CATEGORIZED_CHARS:,}.")
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


# A lane (one device with all its streams, or one stream) as a list, for speed over millions of ops:
_FIRST, _LAST_END, _OPS, _BUSY, _RUN_START, _REACH_END, _REACH_REF, _GAPS, _LARGEST, _LARGEST_REF = range(10)


class IdleSweep:
    """gpu_idle in one pass over operations given in (device, start, end) order, in memory bounded by
    the number of lanes (devices and streams) and the top gaps kept, not by the number of operations.

    An op is (device, stream, start, end, ref): `ref` is whatever names it later (a GpuOp, or a key into
    an export), resolved by the `name_of` and `launch_start_of` callables given to `tables`. Per lane:
    the first start, the latest end, the busy time of merged runs of overlapping ops, and each gap
    (the next op starts after the latest end so far; the op with that end ran before the gap).
    """

    def __init__(self, top_gaps: int = 10) -> None:
        self.top_gaps = top_gaps
        self.lanes: dict[tuple[int, int | None], list] = {}
        self._top: list[tuple] = []  # min-heap of the best gaps kept, worst first

    def add(self, device: int, stream: int, start: int, end: int, ref) -> None:
        lanes = self.lanes
        for key in ((device, None), (device, stream)):
            lane = lanes.get(key)
            if lane is None:
                lanes[key] = [start, end, 1, 0, start, end, ref, 0, 0, None]
                continue
            lane[2] += 1
            reach = lane[5]
            if start > reach:
                length = start - reach
                lane[7] += 1
                if length > lane[8]:
                    lane[8] = length
                    lane[9] = lane[6]
                lane[3] += reach - lane[4]
                lane[4] = start
                if key[1] is None:
                    self._keep_gap(device, reach, length, lane[6], ref)
            if end > reach:
                lane[5] = end
                lane[6] = ref
            if end > lane[1]:
                lane[1] = end

    def add_lane(self, device: int, stream: int | None, starts: Iterable[int], ends: Iterable[int],
                 refs: Sequence) -> None:
        """One whole lane at once (stream None: the device's, whose gaps compete for the top gaps), its ops
        in (start, end, ref) order: the lane add() would build from the same ops, in a loop with nothing
        else in it (millions of ops). A lane is given either this way or op by op, never both."""
        if not refs:
            return
        ops = iter(zip(starts, ends, refs))
        first, reach, reach_ref = next(ops)
        run_start, busy, gaps, largest, largest_ref = first, 0, 0, 0, None
        keep, top, room = stream is None and self.top_gaps > 0, self._top, self.top_gaps
        floor = top[0][0] if len(top) >= room > 0 else 0  # a gap shorter than this cannot enter the top
        for start, end, ref in ops:
            if start > reach:
                length = start - reach
                gaps += 1
                if length > largest:
                    largest, largest_ref = length, reach_ref
                busy += reach - run_start
                run_start = start
                if keep and length >= floor:
                    self._keep_gap(device, reach, length, reach_ref, ref)
                    floor = top[0][0] if len(top) >= room else 0
            if end > reach:
                reach, reach_ref = end, ref
        # The latest end is the reach: both are the running maximum of the ends.
        self.lanes[(device, stream)] = [first, reach, len(refs), busy, run_start, reach, reach_ref, gaps, largest,
                                        largest_ref]

    def largest_refs(self) -> list:
        """The ops before each lane's largest gap and around each top gap: the ones whose names show."""
        refs = [lane[_LARGEST_REF] for lane in self.lanes.values() if lane[_GAPS]]
        return refs + [ref for entry in self._top for ref in entry[3:]]

    def _keep_gap(self, device: int, gap_start: int, length: int, before, after) -> None:
        # Ranked by (-length, device, start) as gpu_idle sorts them; ties on all three cannot happen.
        top = self._top
        if len(top) < self.top_gaps:
            heapq.heappush(top, (length, -device, -gap_start, before, after))
        elif length >= top[0][0] and (length, -device, -gap_start) > top[0][:3]:
            heapq.heapreplace(top, (length, -device, -gap_start, before, after))

    def tables(self, name_of: Callable[[object], str],
               launch_start_of: Callable[[list], list[int | None]]) -> list[Table]:
        rows = []
        for (device, stream) in sorted(self.lanes, key=lambda k: (k[0], k[1] is not None, k[1] or 0)):
            lane = self.lanes[(device, stream)]
            span = lane[_LAST_END] - lane[_FIRST]
            busy = lane[_BUSY] + lane[_REACH_END] - lane[_RUN_START]
            gaps = lane[_GAPS]
            rows.append([device, "all" if stream is None else stream, lane[_OPS], span, busy,
                         percent_of(busy, span) if span else 100.0, span - busy, gaps,
                         lane[_LARGEST] if gaps else 0, name_of(lane[_LARGEST_REF]) if gaps else ""])
        summary = Table(
            "gpu_idle", "GPU Idle Time",
            ["Device", "Stream", "Ops", "Span (ns)", "Busy (ns)", "Busy (%)", "Idle (ns)", "Gaps",
             "Largest Gap (ns)", "Before Largest Gap"],
            rows,
            ["Span runs from the first operation's start to the last one's end on that device or stream; "
             "busy time counts overlapping operations once."])
        top = sorted(self._top, key=lambda e: (-e[0], -e[1], -e[2]))
        launches = launch_start_of([e[4] for e in top])
        gap_rows = []
        for (length, neg_device, neg_start, before, after), launch in zip(top, launches):
            device, gap_start = -neg_device, -neg_start
            host_late = None if launch is None else launch >= gap_start
            gap_rows.append([device, gap_start - self.lanes[(device, None)][_FIRST], length,
                             {True: "yes", False: "no", None: ""}[host_late], name_of(before), name_of(after)])
        gaps = Table(
            "gpu_idle_gaps", "Largest GPU Idle Gaps (all streams of a device)",
            ["Device", "Gap Start (ns from first op)", "Gap (ns)", "Host Late", "Before Gap",
             "After Gap"],
            gap_rows,
            ["Host Late = yes: the CPU call that launched the next operation started only "
             "after the GPU went idle, so the GPU waited on the host (launch overhead, synchronization, "
             "data loading); no: the work was queued and the gap has another cause."])
        return [summary, gaps]


def gpu_idle(ops: Iterable[GpuOp], top_gaps: int = 10) -> list[Table]:
    """Busy share and idle gaps per device (all streams together) and per stream, plus the top gaps."""
    sweep = IdleSweep(top_gaps)
    for op in sorted(ops, key=lambda op: (op.device, op.start, op.end)):  # stable: ties keep their order
        sweep.add(op.device, op.stream, op.start, op.end, op)
    return sweep.tables(lambda op: op.name, lambda after: [op.launch_start for op in after])


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
