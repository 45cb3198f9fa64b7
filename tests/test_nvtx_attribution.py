"""nvtx_kern_sum's fast sweep against a literal, kernel-by-range reading of nsys's rule, on random exports."""

from __future__ import annotations

import sqlite3
import tempfile
from collections import defaultdict
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nsys_builder import ExportBuilder

from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.nvtx import nvtx_kern_sum
from aiperf_lab.metrics.summary_stats import duration_summary


def reference_nvtx_kern_sum(path: Path) -> list[list]:
    """nsys's SQL, read literally: each kernel joins every same-thread range containing its launch call."""
    con = sqlite3.connect(path)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    events = con.execute("SELECT rowid, start, [end], eventType, globalTid, endGlobalTid, textId, text, domainId "
                         "FROM NVTX_EVENTS").fetchall()
    range_events = [e for e in events if e[3] in (59, 60)]
    bound = max(max(e[1], e[2] if e[2] is not None else e[1]) for e in range_events) if range_events else 0
    earliest = {}
    for rid, start, _end, etype, g, _eg, tid_text, text, domain in events:
        if etype == 75 and ((domain, g) not in earliest or start < earliest[(domain, g)][0]):
            earliest[(domain, g)] = (start, names.get(tid_text) if tid_text else text)
    ranges = []
    for rid, start, end, etype, g, end_g, text_id, text, domain in range_events:
        if end_g is not None:
            continue
        label = names.get(text_id) if text_id is not None else (text or "")
        matches = [n for (d, dg), (_s, n) in earliest.items() if d == domain and (dg >> 24) == (g >> 24)] or [None]
        for domain_name in matches:
            ranges.append((rid, start, end if end is not None else bound, g, f"{domain_name or ''}:{label}",
                           "PushPop" if etype == 59 else "StartEnd"))
    calls = {(c, g & 0xFFFFFFFFFF000000): (s, e, g) for s, e, g, c in con.execute(
        "SELECT start, [end], globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    combo = defaultdict(lambda: ([], set(), set()))
    for kid, kstart, kend, corr, pid, name_id in con.execute(
            "SELECT rowid, start, [end], correlationId, globalPid, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        s, e, g = calls[(corr, pid)]
        hits = [r for r in ranges if r[3] == g and r[1] <= s and r[2] >= e]
        for r in hits or [None]:
            key = ((g >> 24) & 0xFFFFFF, g & 0xFFFFFF, r[4] if r else None, r[5] if r else None, names[name_id])
            combo[key][0].append(kend - kstart)
            if r:
                combo[key][1].add(r[0])
            combo[key][2].add(kid)
    rows = []
    for (pid, tid, name, style, kname), (durations, rids, kids) in combo.items():
        total, _n, avg, med, lo, hi, sd = duration_summary(list(durations))
        rows.append([name, style, pid, tid, len(rids), len(kids), total, avg, med, lo, hi, sd, kname])
    return rows


def _canonical(rows):
    # nsys leaves ties in Total Time unordered beyond the group key; compare as sets of rows.
    return sorted(map(tuple, rows), key=repr)


kernel_names = st.sampled_from(["gemm_kernel", "softmax_warp_forward", "layer_norm<float>", "elementwise"])


@st.composite
def exports(draw):
    builder = ExportBuilder()
    threads = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2, unique=True))
    if draw(st.booleans()):
        builder.domain(threads[0], 1, "NCCL")
    for tid in threads:
        clock = 1000
        open_stack = []
        for _ in range(draw(st.integers(1, 25))):
            action = draw(st.sampled_from(["push", "pop", "launch", "launch", "launch", "startend"]))
            if action == "push":
                open_stack.append((clock, draw(st.sampled_from(["step", "forward", "attn", "step"])),
                                   draw(st.sampled_from([0, 0, 1]))))
            elif action == "pop" and open_stack:
                start, text, domain = open_stack.pop()
                builder.range(tid, start, clock, text, domain=domain)
            elif action == "startend":
                builder.range(tid, clock, clock + draw(st.integers(0, 300)), "io", push_pop=False,
                              end_tid=draw(st.sampled_from([None, None, tid + 10])))
            else:
                length = draw(st.integers(1, 40))
                builder.launch(tid, clock, clock + length, draw(kernel_names), clock + 5, draw(st.integers(1, 500)))
                clock += length
            clock += draw(st.integers(0, 30))
        for start, text, domain in open_stack:  # left open: nsys closes them at the last NVTX timestamp
            builder.range(tid, start, None, text, domain=domain)
    if draw(st.booleans()) and threads:  # overlapping launch calls on one thread: the general path
        builder.launch(threads[0], 1003, 1500, "nested_launch", 9000, 77, api="cuLaunchKernel")
    if draw(st.booleans()):  # a second process whose correlation ids repeat the first one's
        builder.process, builder.correlation = (1 << 56) | (5151 << 24), 0
        builder.range(1, 900, 1400, "step")
        for i in range(draw(st.integers(1, 4))):
            builder.launch(1, 1000 + 50 * i, 1010 + 50 * i, draw(kernel_names), 2000 + 50 * i, draw(st.integers(1, 500)))
    return builder


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exports())
def test_fast_attribution_matches_the_literal_rule(builder):
    with tempfile.TemporaryDirectory() as folder:
        path = builder.write(Path(folder) / "t.sqlite")
        if not builder.nvtx or not builder.kernels:
            return
        ours = nvtx_kern_sum(NsysDatabase(path)).rows
        assert _canonical(ours) == _canonical(reference_nvtx_kern_sum(path))


def test_same_named_nested_ranges_repeat_durations_but_not_kernels(tmp_path):
    b = ExportBuilder()
    b.launch(1, 10, 20, "k", 100, 50)
    b.range(1, 0, 100, "step")
    b.range(1, 5, 90, "step")
    rows = nvtx_kern_sum(NsysDatabase(b.write(tmp_path / "n.sqlite"))).rows
    (row,) = rows
    assert row[:7] == [":step", "PushPop", 4242, 1, 2, 1, 100]  # two ranges, one kernel, counted twice


def test_kernel_launched_on_another_thread_is_outside_the_range(tmp_path):
    b = ExportBuilder()
    b.range(1, 0, 1000, "backward")
    b.launch(2, 10, 20, "grad_kernel", 100, 50)  # autograd thread
    (row,) = nvtx_kern_sum(NsysDatabase(b.write(tmp_path / "x.sqlite"))).rows
    assert row[0] is None and row[3] == 2


def test_exports_without_optional_nvtx_columns(tmp_path):
    """An export whose NVTX table lacks textId, domainId and endGlobalTid still gives its ranges."""
    b = ExportBuilder()
    b.range(1, 0, 100, "step")
    b.launch(1, 10, 20, "k", 100, 50)
    path = b.write(tmp_path / "old.sqlite")
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE N2 AS SELECT start, [end], eventType, rangeId, category, color, text, globalTid FROM NVTX_EVENTS;
        DROP TABLE NVTX_EVENTS; ALTER TABLE N2 RENAME TO NVTX_EVENTS;""")
    con.close()
    (row,) = nvtx_kern_sum(NsysDatabase(path)).rows
    assert row[:7] == [":step", "PushPop", 4242, 1, 1, 1, 50]


def test_range_names_that_are_not_utf8(tmp_path):
    """A range name with a byte that is not UTF-8 is read with a replacement character, not an error."""
    b = ExportBuilder()
    b.range(1, 0, 100, "step")
    b.launch(1, 10, 20, "k", 100, 50)
    path = b.write(tmp_path / "bytes.sqlite")
    con = sqlite3.connect(path)
    con.execute("UPDATE NVTX_EVENTS SET text = CAST(X'73FF70' AS TEXT)")
    con.commit()
    con.close()
    (row,) = nvtx_kern_sum(NsysDatabase(path)).rows
    assert row[:7] == [":s\ufffdp", "PushPop", 4242, 1, 1, 1, 50]


def test_graph_kernels_sharing_one_launch_call(tmp_path):
    b = ExportBuilder()
    b.range(1, 0, 1000, "step")
    b.launch(1, 10, 20, "before", 100, 5)
    b.launch_graph(1, 30, 40, ["g1", "g2", "g1"], 200, 10)
    path = b.write(tmp_path / "graph.sqlite")
    rows = nvtx_kern_sum(NsysDatabase(path)).rows
    assert _canonical(rows) == _canonical(reference_nvtx_kern_sum(path))
    g1 = next(r for r in rows if r[12] == "g1")
    assert g1[5] == 2 and g1[6] == 20  # two kernels of one graph launch, both inside the range


def test_the_sweep_and_the_per_range_rule_agree_on_random_threads(monkeypatch):
    """One thread's attribution by nvtx_sweep (segment codes, packed counts) and by the per-range rule it
    replaces (painting keysets, a set of names per range), on random calls and ranges: nested, crossing,
    touching, empty, sharing edges, several of one name inside each other, kernels outside every range."""
    import random

    from aiperf_lab.metrics.nsys import nvtx

    def attributed(sweep: bool, ranges, starts, ends, names, durations):
        acc = nvtx._Attribution()
        if not sweep:
            monkeypatch.setattr(nvtx, "_sweep", lambda *a: False)
        assert nvtx._attribute_thread(acc, 7, ranges, starts, ends, nvtx._Kernels(list(names), list(durations)))
        monkeypatch.undo()
        return {key: (g.instances, g.kernels, g.summary()) for key, g in acc.groups().items()}

    rng = random.Random(1717)
    swept = 0
    for case in range(300):
        n = rng.randint(1, 60)
        starts, ends, clock = [], [], 0
        for _ in range(n):
            clock += rng.choice((0, 1, 3, 10))
            starts.append(clock)
            clock += rng.randint(0, 5)
            ends.append(clock)
        names = [rng.choice((3, 5, 8, 0)) for _ in range(n)]
        durations = [rng.choice((0, 1, 7, 100, 12345)) for _ in range(n)]
        ranges = []
        for rid in range(rng.randint(0, 25)):
            lo = rng.randint(-2, clock + 2)
            hi = lo + rng.choice((0, 1, 5, 20, 200, clock))
            ranges.append(nvtx.NvtxRange(rid + 1, lo, hi, 7, rng.choice((":a", ":b", ":a", "NCCL:c")),
                                         rng.choice(("PushPop", "StartEnd")), 0))
        want = attributed(False, ranges, starts, ends, names, durations)
        calls = []
        monkeypatch.setattr(nvtx, "_sweep", lambda *a, _sweep=nvtx._sweep: calls.append(_sweep(*a)) or calls[-1])
        got = attributed(True, ranges, starts, ends, names, durations)
        swept += calls == [True]
        assert got == want, case
    assert swept > 200  # the sweep answered most cases (not the fallback)


def test_more_than_so_many_open_at_once_by_comparing_sorted_starts_and_ends():
    """_open_over against a running count of +1 per start and -1 per end (an end before a start at the
    same time), on random ranges and depths."""
    import random

    from aiperf_lab.metrics.nsys.nvtx import NvtxRange, _open_over

    def most_open(ranges):
        marks = sorted([2 * r.start + 1 for r in ranges] + [2 * r.end for r in ranges])
        running = best = 0
        for mark in marks:
            running += 1 if mark & 1 else -1
            best = max(best, running)
        return best

    rng = random.Random(5)
    for _ in range(400):
        ranges = []
        for rid in range(rng.randint(0, 40)):
            start = rng.randint(0, 50)
            ranges.append(NvtxRange(rid, start, start + rng.choice((0, 1, 2, 10, 60)), 1, ":r", "PushPop", 0))
        for depth in range(0, 12):
            assert _open_over(ranges, depth) == (most_open(ranges) > depth)


def test_ranges_read_in_parts_with_the_bound_computed_in_sql_are_the_ranges_read_whole(tmp_path, monkeypatch):
    """load_ranges after prefetch_ranges (NVTX_EVENTS read in rowid parts, the missing ends' bound computed
    in the SQL) gives the ranges of the plain read (one part, the bound as a number): open ranges, two
    domains, several threads, both bounds."""
    import random

    from aiperf_lab.metrics.nsys import nvtx

    rng = random.Random(3)
    b = ExportBuilder()
    b.domain(1, 1, "NCCL")
    for i in range(300):
        start = rng.randint(0, 10_000)
        end = None if rng.random() < 0.05 else start + rng.randint(0, 500)
        b.range(rng.choice((1, 2)), start, end, rng.choice(("step", "fwd", "io")), domain=rng.choice((0, 1)),
                push_pop=rng.random() < 0.8)
    path = b.write(tmp_path / "parts.sqlite")
    for bound in ("ranges", "all"):
        whole = nvtx.load_ranges(NsysDatabase(path), end_bound=bound)
        monkeypatch.setattr(nvtx, "NVTX_SPLIT_ROWS", 10)
        monkeypatch.setattr("os.cpu_count", lambda: 4)
        db = NsysDatabase(path)
        nvtx.prefetch_ranges(db, bound)
        assert len(db._prefetched) == 4  # four parts, under way
        parts = nvtx.load_ranges(db, end_bound=bound)
        assert not db._prefetched  # all four taken
        monkeypatch.undo()
        assert parts == whole and any(r.end == max(max(x.start, x.end) for x in whole) for r in whole)


def test_a_rows_statistics_from_its_parts_are_those_of_all_its_durations():
    """_KernGroup.summary (sums per part, the median found in the sorted parts) against duration_summary of
    every duration written out, each part as many times as it counts."""
    import random

    from aiperf_lab.metrics.nsys.nvtx import _KernGroup
    from aiperf_lab.metrics.summary_stats import sum_of_squares

    rng = random.Random(11)
    for _ in range(500):
        group = _KernGroup()
        every = []
        for _part in range(rng.randint(1, 4)):
            values = sorted(rng.choice((0, 1, 2, 7, 1000, 123457)) + rng.randint(0, 3)
                            for _ in range(rng.randint(1, 9)))
            times = rng.choice((1, 1, 2, 3))
            group.parts.append((values, times, sum(values), sum_of_squares(values)))
            every += values * times
        assert group.summary() == duration_summary(every)


def test_a_kernel_ending_before_it_starts_takes_the_two_columns_apart(tmp_path, monkeypatch):
    """A negative duration does not fit the packed read (name * 2^36 + duration): the kernels are read
    again as two columns and attributed by the per-range rule, as nsys's numbers have it."""
    from aiperf_lab.metrics.nsys import nvtx

    b = ExportBuilder()
    b.range(1, 0, 1000, "step")
    b.range(1, 5, 500, "fwd")
    b.launch(1, 10, 20, "k", 100, 50)
    b.launch(1, 30, 40, "k", 300, -20)  # damaged: ends before it starts
    b.launch(1, 600, 610, "j", 400, 5)
    b.launch(1, 2000, 2010, "j", 900, 7)  # outside every range
    path = b.write(tmp_path / "negative.sqlite")
    packed = []
    monkeypatch.setattr(nvtx, "_Kernels", lambda *a, _k=nvtx._Kernels, **k: packed.append(k.get("packed")) or _k(*a, **k))
    rows = nvtx_kern_sum(NsysDatabase(path)).rows
    assert packed == [None]  # the two columns apart, never the packed ones
    assert _canonical(rows) == _canonical(reference_nvtx_kern_sum(path))
    assert [r[6] for r in rows if r[12] == "k"] == [30, 30]  # 50 - 20 under step and under fwd
