"""Nesting and GPU projection of NVTX ranges on hand-built exports: the cases real traces rarely show.

(Real traces are checked byte for byte against nsys in test_nsys_parity.py.)
"""

from __future__ import annotations

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
