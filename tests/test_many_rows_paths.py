"""The paths that keep 200,000-row reports cheap (issue 11: energy_by_range over 200,000 distinct NVTX
names took 13 s) give what the general ones give: the text table's cells and lines a column at a time,
range depths without the Fenwick tree, and one-range NVTX groups parsed together."""

from __future__ import annotations

import io
import random

import pytest

from nsys_builder import ExportBuilder

from aiperf_lab.metrics import render
from aiperf_lab.metrics.energy import attribution
from aiperf_lab.metrics.energy.attribution import Range, _depths
from aiperf_lab.metrics.nsys import nvtx
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.tables import ScaledTime, Table


def _random_rows(rng: random.Random, count: int) -> list[list]:
    floats = [0.0, -0.0, 1.5, 0.25, 1.125, 3.14159, 1e20, 1.5e-7, float("inf"), float("nan"), 123.456, 1e16,
              12345678.901]
    rows = []
    for k in range(count):
        rows.append([rng.choice(["step", "é" * 3, "x\x1b[2J", "[bold]y[/]", "a" * 30, ""]), k,
                     rng.choice(floats + [rng.uniform(-1e3, 1e3), round(rng.uniform(0, 100), 3)]),
                     rng.choice([None, 7, 2.5, 1.0001]), rng.choice([True, False, 3]),
                     ScaledTime(f"{k / 7:.3f}"), "plain text"])
    return rows


def test_cells_a_column_at_a_time_are_the_cells_one_by_one():
    rng = random.Random(5)
    rows = _random_rows(rng, 3000)
    assert render._cells(rows) == [[render._cell(v) for v in row] for row in rows]
    ragged = rows[:10] + [rows[10][:3]]
    assert render._cells(ragged) == [[render._cell(v) for v in row] for row in ragged]
    for column in zip(*rows):
        assert render._numeric_column(list(column)) == all(render._is_number(v) or v is None for v in column)


@pytest.mark.parametrize("width", ["240", "60"])
def test_a_long_table_written_directly_is_the_table_rich_draws(monkeypatch, width):
    rng = random.Random(9)
    table = Table("t", "Many rows", ["Name", "n", "x", "y", "flag", "time", "text"], _random_rows(rng, 400))
    monkeypatch.setenv("COLUMNS", width)
    monkeypatch.setattr(render, "PLAIN_BLOCK_ROWS", 150)  # blocks of rows, the last one short
    outputs = []
    for threshold in (10 ** 9, 0):  # through rich, then written directly
        monkeypatch.setattr(render, "PLAIN_ROWS_FROM", threshold)
        buffer = io.StringIO()
        render.render_terminal([table], buffer)
        outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1] and "Many rows" in outputs[0]


def _depths_of_each_walk(ranges, monkeypatch):
    """_depths by the nested walk, the short sorted list and the Fenwick tree, each forced in turn."""
    found = {"default": _depths(ranges)}
    with monkeypatch.context() as patch:
        patch.setattr(attribution, "_nested_depths", lambda *args: None)
        found["sorted open ends"] = _depths(ranges)
        patch.setattr(attribution, "_few_open_depths", lambda *args: None)
        found["fenwick"] = _depths(ranges)
    return found


def test_every_depth_walk_gives_the_same_depths(monkeypatch):
    rng = random.Random(17)
    for trial in range(120):
        ranges = []
        nested = trial % 3 == 0
        for k in range(rng.randint(0, 150)):
            start = k if nested else rng.randint(0, 60)
            end = 400 - k if nested else start + rng.choice([0, 1, rng.randint(0, 30)])
            ranges.append(Range("r", start, end, rng.randint(0, 2)))
        found = _depths_of_each_walk(ranges, monkeypatch)
        assert found["default"] == found["sorted open ends"] == found["fenwick"], trial


def test_the_sorted_open_ends_give_way_to_the_tree_past_its_limit(monkeypatch):
    crossing = [Range("r", i, 1000 + 2 * i, 0) for i in range(300)]  # 300 open at once, each crossing
    assert attribution._nested_depths([r.start for r in crossing], [r.end for r in crossing], list(range(300))) \
        is None
    assert attribution._few_open_depths([r.start for r in crossing], [r.end for r in crossing],
                                        list(range(300))) is None
    assert _depths(crossing) == [0] * 300


def test_one_range_groups_read_together_are_the_ranges_read_one_by_one(tmp_path, monkeypatch):
    b = ExportBuilder()
    for i in range(500):  # each its own name: 500 groups of one range, and a few names used twice
        b.range(1, 10 * i, 10 * i + 5, f"step {i}" if i % 50 else "repeated")
    path = b.write(tmp_path / "names.sqlite")
    together = nvtx.load_ranges(NsysDatabase(path))
    with monkeypatch.context() as patch:
        patch.setattr(nvtx, "_single_range_groups", lambda rows: {})
        one_by_one = nvtx.load_ranges(NsysDatabase(path))
        patch.setattr(nvtx, "_grouped_ranges", lambda *args: None)
        row_by_row = nvtx.load_ranges(NsysDatabase(path))
    assert together == one_by_one == row_by_row and len(together) == 500


def test_one_range_groups_with_a_value_that_is_not_one_integer_are_left_to_the_group_reader():
    row = ("id", None, "PushPop", "null", 1, 0, 1)
    good = [row + ("1", "10", "20"), row + ("2", "30", "40")]
    assert nvtx._single_range_groups(good) == {0: (1, 10, 20), 1: (2, 30, 40)}
    for bad in ("07", "1,2", "", None, "1.5", "-"):
        assert nvtx._single_range_groups([good[0], row + ("2", bad, "40")]) == {}, bad
