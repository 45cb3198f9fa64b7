"""Nesting and GPU projection of NVTX ranges on hand-built exports: the cases real traces rarely show.

(Real traces are checked byte for byte against nsys in test_nsys_parity.py.)
"""

from __future__ import annotations

import pytest

from nsys_builder import ExportBuilder

from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.nvtx_tree import nvtx_gpu_proj_trace, nvtx_pushpop_trace


def _rows(table):
    return [dict(zip(table.columns, row)) for row in table.rows]


def test_parent_is_the_tightest_enclosing_range_even_when_ranges_overlap(tmp_path):
    b = ExportBuilder()
    b.range(1, 0, 100, "outer")
    b.range(1, 20, 50, "b")        # overlaps c without containing it
    b.range(1, 30, 80, "c")
    b.range(1, 35, 45, "e")        # inside outer, b and c: b is the shortest container
    db = NsysDatabase(b.write(tmp_path / "t.sqlite"))
    rows = {r["Name"]: r for r in _rows(nvtx_pushpop_trace(db))}
    ids = {name: r["RangeId"] for name, r in rows.items()}
    assert rows[":e"]["ParentId"] == ids[":b"] and rows[":e"]["Lvl"] == 2
    assert rows[":c"]["ParentId"] == ids[":outer"]
    assert rows[":outer"]["NumChild"] == 2 and rows[":outer"]["DurChild (ns)"] == 30 + 50
    assert rows[":e"]["NameTree"] == "----:e"


def test_ranges_with_the_same_span_contain_each_other_and_drop_out_as_in_nsys(tmp_path):
    b = ExportBuilder()
    b.range(1, 0, 100, "root")
    b.range(1, 10, 20, "twin")
    b.range(1, 10, 20, "twin")
    db = NsysDatabase(b.write(tmp_path / "t.sqlite"))
    names = [r["Name"] for r in _rows(nvtx_pushpop_trace(db))]
    assert names == [":root"]


def test_projection_spans_the_gpu_work_launched_inside_the_range(tmp_path):
    b = ExportBuilder()
    b.range(1, 0, 1_000, "step")
    b.launch(1, 100, 200, "k1", gpu_start=5_000, duration=100)
    b.launch(1, 300, 400, "k2", gpu_start=5_200, duration=300)
    b.launch(1, 950, 1_100, "late", gpu_start=9_000, duration=10)  # its call ends after the range: not inside
    b.range(2, 0, 1_000, "idle")  # another thread's range launched nothing: no projection
    db = NsysDatabase(b.write(tmp_path / "t.sqlite"))
    rows = _rows(nvtx_gpu_proj_trace(db))
    assert len(rows) == 1
    row = rows[0]
    assert (row["Name"], row["Projected Start (ns)"], row["Projected Duration (ns)"], row["NumGPUOps"]) == \
        (":step", 5_000, 500, 2)
    assert (row["Orig Start (ns)"], row["Orig Duration (ns)"], row["Lvl"], row["NumChild"]) == (0, 1_000, 0, 0)


def _nest_by_the_general_rule(ranges):
    """Parent, level and stack of each range by the rule for crossing ranges alone (no one-pass chain)."""
    from aiperf_lab.metrics.nsys.nvtx_tree import Nesting

    nest = Nesting([])
    threads = {}
    for r in ranges:
        threads.setdefault(r.global_tid, []).append(r)
    for thread in threads.values():
        thread.sort(key=lambda r: (r.start, -r.end, r.range_id))
    nest._crossing(list(threads.values()), True)
    return nest.parent, nest.level, nest.stack


def test_the_one_pass_nesting_agrees_with_the_general_rule_on_random_ranges(monkeypatch):
    """Push/pop ranges nest, and those go through one pass with a stack; touching ends, zero-length ranges,
    shared starts, twins and crossings must come out as the general rule has them (or fall back to it)."""
    import random

    from aiperf_lab.metrics.nsys.nvtx import NvtxRange
    from aiperf_lab.metrics.nsys.nvtx_tree import Nesting

    passes = []
    one_pass = Nesting._thread_chain
    monkeypatch.setattr(Nesting, "_thread_chain", lambda self, *a: passes.append(one_pass(self, *a)) or passes[-1])
    rng = random.Random(17)
    for case in range(400):
        ranges, next_id = [], 1
        for tid in (1, 2):
            def nested(lo, hi, depth):
                nonlocal next_id
                at = lo
                while at < hi and len(ranges) < 40:
                    start = rng.randint(at, hi)
                    end = rng.randint(start, min(hi, start + rng.choice((0, 1, 5, 30))))
                    ranges.append(NvtxRange(next_id, start, end, tid, ":r", "PushPop", 0))
                    next_id += 1
                    if depth < 3 and end > start:
                        nested(start, end, depth + 1)
                    at = end + rng.choice((0, 0, 1, 3))  # (0: the next range starts where this one ends)
            nested(0, 100, 0)
            if case % 3 == 0:  # a crossing, a twin or a range around everything
                start = rng.randint(0, 100)
                ranges.append(NvtxRange(next_id, start, start + rng.randint(0, 60), tid, ":x", "PushPop", 0))
                next_id += 1
        rng.shuffle(ranges)
        nest = Nesting(list(ranges))
        want_parent, want_level, want_stack = _nest_by_the_general_rule(list(ranges))
        assert (nest.parent, nest.level, nest.stack) == (want_parent, want_level, want_stack)
        want_children = {}
        for child, parent in want_parent.items():
            if parent is not None:
                want_children.setdefault(parent, set()).add(child)
        assert {p: set(c) for p, c in nest.children.items()} == want_children
    assert passes.count(True) > 100 and passes.count(False) > 100  # both ways were taken


def _parents_by_scanning(thread):
    """The tightest container of each range by scanning every open range (the rule before the Fenwick
    tree): the reference the tree must agree with."""
    parent, active, i = {}, [], 0
    while i < len(thread):
        r, j = thread[i], i + 1
        while j < len(thread) and thread[j].start == r.start and thread[j].end == r.end:
            j += 1
        if j - i > 1:
            ids = [x.range_id for x in thread[i:j]]
            for k, rid in enumerate(ids):
                parent[rid] = ids[k - 1] if k else ids[1]
        else:
            active = [p for p in active if p.end >= r.start]
            best = None
            for p in active:
                if p.end >= r.end and (best is None or p.end - p.start < best.end - best.start):
                    best = p
            parent[r.range_id] = best.range_id if best is not None else None
        active.extend(thread[i:j])
        i = j
    return parent


def test_the_general_rule_finds_what_a_scan_of_every_open_range_finds():
    import random

    from aiperf_lab.metrics.nsys.nvtx import NvtxRange
    from aiperf_lab.metrics.nsys.nvtx_tree import Nesting

    rng = random.Random(5)
    for case in range(300):
        count = rng.choice((1, 2, 5, 30, 120))
        thread = []
        for rid in range(1, count + 1):
            start = rng.randint(0, 60)
            thread.append(NvtxRange(rid, start, start + rng.choice((0, 1, 2, 5, 20, 60)), 1, ":r", "PushPop", 0))
        if case % 4 == 0 and thread:  # twins
            twin = thread[0]
            thread.append(NvtxRange(count + 1, twin.start, twin.end, 1, ":t", "PushPop", 0))
        thread.sort(key=lambda r: (r.start, -r.end, r.range_id))
        found: dict = {}
        Nesting._thread_parents(thread, found)
        assert found == _parents_by_scanning(thread), case


def test_ranges_nested_thousands_deep_are_refused_in_one_line(tmp_path):
    """Each report per enclosing range grows with depth times ranges: 1,100 ranges each inside the one
    before on one thread is past any real trace, and refused by every such report at once."""
    from aiperf_lab.errors import InputError
    from aiperf_lab.metrics.nsys.nvtx import MAX_NESTING_DEPTH, nvtx_gpu, nvtx_kern_sum
    from aiperf_lab.metrics.nsys.nvtx_tree import nvtx_gpu_proj_sum

    b = ExportBuilder()
    for i in range(MAX_NESTING_DEPTH + 76):
        b.range(1, 1_000 + i, 10_000_000 - i, f"r{i}")
    b.launch(1, 1_999_000, 1_999_500, "k", 2_000_000, 100)
    path = b.write(tmp_path / "deep.sqlite")
    for report in (nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_gpu_proj_sum, nvtx_kern_sum, nvtx_gpu):
        try:
            report(NsysDatabase(path))
        except InputError as exc:
            assert f"nested more than {MAX_NESTING_DEPTH} levels deep on one thread" in str(exc), report
        else:
            raise AssertionError(f"{report.__name__} was not refused")


def test_ranges_open_at_once_on_many_threads_are_refused_under_cross_thread(tmp_path):
    """--cross-thread puts a kernel under the ranges of every thread of its process: 1,100 threads each
    with one range open over the same time is 1,100 levels for it (red team E5: over 40 s), while each
    thread alone nests one level and nsys's own rule reads it as usual."""
    from aiperf_lab.errors import InputError
    from aiperf_lab.metrics.nsys.nvtx import MAX_NESTING_DEPTH, kernels_in_range, nvtx_gpu

    b = ExportBuilder()
    for tid in range(1, MAX_NESTING_DEPTH + 77):
        b.range(tid, 1_000 + tid, 10_000_000 - tid, "step")
    b.launch(1, 1_999_000, 1_999_500, "k", 2_000_000, 100)
    path = b.write(tmp_path / "wide.sqlite")
    assert nvtx_gpu(NsysDatabase(path)).rows  # one thread at a time: fine
    for report in (lambda db: nvtx_gpu(db, cross_thread=True),
                   lambda db: kernels_in_range(db, "step", cross_thread=True)):
        with pytest.raises(InputError, match=f"nested more than {MAX_NESTING_DEPTH} levels in one process"):
            report(NsysDatabase(path))
