"""Red team h18r (session 18) on main after session 17's merges: the cases it found that broke the contract
(exit 0, or exit 2 with one line, within 10 s; nothing from a file's data steers the terminal), each fixed
outside the redaction rules.

1. A long table whose number headers wrap onto two lines (`Duration` over `(ns)`: any trace report on a terminal
   or COLUMNS under about 250) went through rich row by row, about 1 ms a row: `COLUMNS=80 aiperf-stats
   nccl_rank0.sqlite --report cuda_api_trace` (5,300 rows) took 5 s on an idle machine and 16 s on a loaded one,
   cuda_gpu_trace of a 4,700-kernel export 7 s at 250 columns. Such a table is now written directly, in rich's
   layout byte for byte, as one with one-line headers already was.
"""

from __future__ import annotations

import io
from itertools import islice

import pytest

from conftest import H200

from aiperf_lab.metrics import render
from aiperf_lab.metrics.sources import open_profile
from aiperf_lab.metrics.tables import Table

NCCL_RANK0 = H200.parent / "h200x2" / "nccl_rank0.sqlite"


def _rendered(tables, threshold, monkeypatch) -> str:
    monkeypatch.setattr(render, "PLAIN_ROWS_FROM", threshold)
    buffer = io.StringIO()
    render.render_terminal(tables, buffer)
    return buffer.getvalue()


class _NoRich:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a long table went through rich's Table")


@pytest.mark.parametrize("path, report, columns", [(NCCL_RANK0, "cuda_api_trace", "80"), (NCCL_RANK0, "cuda_api_trace", "100"),
                                                   (H200 / "lm_forward.sqlite", "cuda_gpu_trace", "250")])
def test_a_long_table_with_wrapped_headers_is_written_directly_as_rich_lays_it_out(monkeypatch, path, report, columns):
    monkeypatch.setenv("COLUMNS", columns)
    tables = open_profile(path).report(report)
    for table in tables:
        table.rows = list(islice(table.rows, 300))   # enough to pass the direct path's threshold; rich is slow on more
    through_rich = _rendered(tables, 10**9, monkeypatch)
    assert through_rich.split("\u2500")[0].count("\n") == 4   # title, blank, a header of two lines
    import rich.table
    monkeypatch.setattr(rich.table, "Table", _NoRich)
    direct = _rendered(tables, 0, monkeypatch)
    assert direct == through_rich


@pytest.mark.parametrize("columns", ["60", "75"])
def test_headers_of_one_two_and_three_lines_align_at_the_bottom(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    rows = [[f"kernel_{i}", 10**9 + i, 2 * i, 3.5 * i, None if i % 7 else 1] for i in range(250)]
    table = Table("t", "Headers", ["Name", "Total Time Spent In It (ns)", "Instances Counted (n)", "Avg (ns)", "x y"],
                  rows)
    through_rich = _rendered([table], 10**9, monkeypatch)
    assert through_rich.split("\u2500")[0].count("\n") >= 4   # a header of two lines or more
    assert _rendered([table], 0, monkeypatch) == through_rich
