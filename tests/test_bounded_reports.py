"""kernel_breakdown and gpu_idle of an nsys export, computed from SQL totals and one streamed pass
(memory bounded by the report), give exactly the tables of the object-per-kernel path they replace."""

from __future__ import annotations

import pytest

from conftest import H200, corpus_files
from nsys_builder import ExportBuilder

from aiperf_lab.metrics import analysis
from aiperf_lab.metrics.nsys import ops as nsys_ops
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.errors import MissingData

EXPORTS = [H200 / "lm_forward.sqlite", *corpus_files("**/*.sqlite")]


def _as_lists(tables):
    return [(t.name, t.title, t.columns, t.rows, t.notes) for t in tables]


def _old_and_new(db: NsysDatabase):
    try:
        ops = nsys_ops.load_gpu_ops(db)
    except MissingData:
        with pytest.raises(MissingData):
            nsys_ops.gpu_idle(db)
        return None
    return ((_as_lists(analysis.gpu_idle(ops)), _as_lists([analysis.kernel_breakdown(ops)])),
            (_as_lists(nsys_ops.gpu_idle(db)), _as_lists([nsys_ops.kernel_breakdown(db)])))


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.parent.name + "/" + p.name)
def test_streamed_reports_equal_the_object_path(path):
    db = NsysDatabase(path)
    try:
        pair = _old_and_new(db)
    except Exception as exc:  # a corpus export our reader refuses: refused the same way both ways
        pytest.skip(f"export not readable: {exc}")
    if pair is not None:
        assert pair[0] == pair[1]


def test_ties_overlaps_and_streams(tmp_path):
    """Ops with equal (start, end) on several streams, nested overlaps and gaps of equal length."""
    b = ExportBuilder()
    for i in range(30):
        base = i * 1000
        b.launch(1, base, base + 5, f"k{i % 4}", base + 100, 200, stream=7)
        b.launch(1, base + 6, base + 9, f"k{i % 3}", base + 100, 200, stream=9)      # same start and end
        b.launch(1, base + 10, base + 12, "inner", base + 150, 20, stream=7)        # inside the first
        if i % 5 == 0:
            b.launch(1, base + 900, base + 990, "late", base + 850, 40, stream=11)  # host late
    db = NsysDatabase(b.write(tmp_path / "ties.sqlite"))
    old, new = _old_and_new(db)
    assert old == new
    gaps = new[0][1][3]
    assert len(gaps) == 10 and {row[3] for row in gaps} <= {"yes", "no"}


def _messy_export(path, seed: int):
    """Three devices with several streams, kernels, memcpy and memset rows written out of time order, equal
    starts with different ends, zero and negative durations, and holes in the rowids (one wider than a
    read's range)."""
    import random
    import sqlite3

    rng = random.Random(seed)
    b = ExportBuilder()
    for i in range(400):
        b.device = rng.choice((0, 1, 3))
        start = rng.randrange(0, 40_000, 5) if i % 7 else 1000 * (i % 9)  # many equal starts
        duration = rng.choice((0, 1, 3, 50, 400, 2000, -2)) if i % 11 else 0
        if i % 5 == 0:
            b.memcpy(1, start - 30, start, duration, stream=rng.choice((7, 8)), copy_kind=rng.choice((1, 2, 8)))
        else:
            b.launch(1, start - 40, start - 35, f"k{i % 6}", start, duration, stream=rng.choice((7, 8, 13, 21)))
    rng.shuffle(b.kernels)
    rng.shuffle(b.memcpys)
    exported = b.write(path)
    con = sqlite3.connect(exported)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, [end] INTEGER, deviceId INTEGER, "
                "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,?,?,?,?,?)",
                    [(s, s + rng.choice((0, 7, 90)), rng.choice((0, 3)), 1, rng.choice((7, 9)), 0, b.process, 64)
                     for s in (rng.randrange(0, 40_000) for _ in range(40))])
    con.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 13 = 0 OR rowid BETWEEN 100 AND 140")
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET rowid = rowid + 1000 WHERE rowid > 40")  # a wide hole
    con.commit()
    con.close()
    return exported


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("chunk", [16, 1 << 18])
def test_gpu_idle_columns_equal_the_object_path_on_messy_exports(tmp_path, monkeypatch, seed, chunk):
    """Ops read a range at a time (16 rows: device and stream ids that vary inside a range, rowid holes,
    ranges with no row at all) and sorted in Python give gpu_idle's tables exactly."""
    monkeypatch.setattr(nsys_ops, "CHUNK_ROWS", chunk)
    db = NsysDatabase(_messy_export(tmp_path / "messy.sqlite", seed))
    old, new = _old_and_new(db)
    assert old == new
    summary = new[0][0][3]
    assert {row[0] for row in summary} == {0, 1, 3} and len(summary) > 6  # devices and their streams
    for top in (1, 3):
        assert _as_lists(nsys_ops.gpu_idle(db, top)) == _as_lists(analysis.gpu_idle(nsys_ops.load_gpu_ops(db), top))


def test_kernel_breakdown_after_the_kernel_summary_is_the_same_table():
    """In the overview kernel_breakdown takes the kernel totals cuda_gpu_kern_sum summed: same table as alone."""
    from aiperf_lab.metrics.nsys.reports import cuda_gpu_kern_sum

    path = H200 / "lm_forward.sqlite"
    alone = _as_lists([nsys_ops.kernel_breakdown(NsysDatabase(path))])
    db = NsysDatabase(path)
    cuda_gpu_kern_sum(db)
    assert db.memo  # the totals were kept
    assert _as_lists([nsys_ops.kernel_breakdown(db)]) == alone


def _durations_of_ranges(db: NsysDatabase) -> list[tuple[tuple[str, str], list[int]]]:
    """nvtx_sum's groups as they were built: one NvtxRange object per range, grouped in their order."""
    from collections import defaultdict

    from aiperf_lab.metrics.nsys.nvtx import load_ranges

    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r in load_ranges(db, end_bound="all"):
        groups[(r.name, r.style)].append(r.end - r.start)
    return [(key, sorted(values)) for key, values in groups.items()]


def _nvtx_export(path):
    """Domains named by several threads (one name twice), registered and plain names, ranges left open,
    start/end ranges ending on another thread, equal totals, and a second process."""
    b = ExportBuilder()
    b.domain(1, 1, "NCCL")
    b.domain(2, 1, "NCCL")       # the same domain named again by another thread: its ranges count twice
    b.domain(3, 2, "cuBLAS", start=-9)
    for i in range(60):
        t = 1000 * i
        b.range(1 + i % 3, t, t + 50 + (i % 4) * 10, ("step", "fwd", "bwd")[i % 3], domain=i % 3,
                registered=bool(i % 2))
        b.range(2, t + 5, None if i == 59 else t + 60, "io", push_pop=False, end_tid=3 if i % 7 == 0 else None)
        b.range(3, t + 1, t + 21, "tie_a")
        b.range(3, t + 2, t + 22, "tie_b", registered=True)  # the same total as tie_a: their order is kept
    b.process = (1 << 56) | (5151 << 24)
    b.domain(1, 1, "other")
    b.range(1, 10, 99, "step", domain=1)
    return b.write(path)


@pytest.mark.parametrize("path", EXPORTS + ["built"],
                         ids=lambda p: p if isinstance(p, str) else p.parent.name + "/" + p.name)
def test_nvtx_sum_groups_from_sqlite_equal_the_ranges_grouped(path, tmp_path):
    from aiperf_lab.metrics.nsys.nvtx import _durations_by_name

    db = NsysDatabase(_nvtx_export(tmp_path / "nvtx.sqlite") if path == "built" else path)
    try:
        expected = _durations_of_ranges(db)
    except MissingData:
        with pytest.raises(MissingData):
            _durations_by_name(db)
        return
    except Exception as exc:  # a corpus export our reader refuses: refused the same way both ways
        pytest.skip(f"export not readable: {exc}")
    got = [(key, sorted(values)) for key, values in _durations_by_name(db).items()]
    assert got == expected
    if path == "built":
        names = [key[0] for key, _values in got]
        assert {"NCCL:fwd", "cuBLAS:bwd", ":tie_a", ":tie_b", "other:step"} <= set(names)
        assert names.index(":tie_a") < names.index(":tie_b")


def test_gpu_idle_streamed_from_sql_past_the_in_memory_bound(tmp_path, monkeypatch):
    """Past IN_MEMORY_OPS the ops stream from one ordered query (bounded memory): the same tables."""
    db = NsysDatabase(_messy_export(tmp_path / "messy.sqlite", 4))
    in_memory = _as_lists(nsys_ops.gpu_idle(db))
    monkeypatch.setattr(nsys_ops, "IN_MEMORY_OPS", 10)
    monkeypatch.setattr(nsys_ops, "_sweep_in_memory", None)  # would fail if used
    assert _as_lists(nsys_ops.gpu_idle(db)) == in_memory == _as_lists(analysis.gpu_idle(nsys_ops.load_gpu_ops(db)))


@pytest.mark.parametrize("table", ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY"])
@pytest.mark.parametrize("column, value", [("deviceId", "'soon'"), ("streamId", "0.5"), ("streamId", "NULL"),
                                           ("start", "X'00ff'"), ("start", "'12,13'"), ("end", "1e999"),
                                           ("end", "4611686018427387904")])
@pytest.mark.parametrize("where", ["first", "inside"])
def test_gpu_idle_checks_what_it_reads_as_it_reads_it(tmp_path, table, column, value, where):
    """No scan of the table first: a wrong value in a column gpu_idle reads is still one line naming it."""
    import sqlite3

    from fuzz_cases import LM, mutate_export, run_stats

    con = sqlite3.connect(LM)
    first, last = con.execute(f"SELECT min(rowid), max(rowid) FROM {table}").fetchone()
    row = first if where == "first" else last // 2  # the row a read range's ids are taken from, or another
    con.close()
    outcome = run_stats([mutate_export(LM, tmp_path / "m.sqlite", table, column, value, row),
                         "--report", "gpu_idle", "--format", "csv"])
    assert outcome.code == 2 and outcome.err.count("\n") == 1, (outcome.code, outcome.err)
    assert f"{table}.{column} holds a value that is not" in outcome.err
