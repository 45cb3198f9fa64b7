"""The fast paths (hash join of GPU operations to their calls, ranges read as group_concat rows) give
the same tables as the SQL they stand in for, on random exports and on the real H200 export."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings

from nsys_builder import ExportBuilder
from test_nvtx_attribution import exports

from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.launches import cuda_kern_exec_sum
from aiperf_lab.metrics.nsys.nvtx import nvtx_kern_sum, nvtx_sum
from aiperf_lab.metrics.nsys.nvtx_tree import nvtx_gpu_proj_sum, nvtx_gpu_proj_trace, nvtx_pushpop_trace

REPORTS = [nvtx_kern_sum, nvtx_sum, nvtx_gpu_proj_sum, nvtx_gpu_proj_trace, nvtx_pushpop_trace, cuda_kern_exec_sum]
H200 = Path(__file__).parent / "data" / "h200" / "lm_forward.sqlite"


def _tables(path: Path) -> dict[str, list]:
    out = {}
    for report in REPORTS:
        try:
            out[report.__name__] = list(report(NsysDatabase(path)).rows)  # (rows may be held as columns)
        except Exception as exc:  # the same refusal is expected from both paths
            out[report.__name__] = repr(exc)
    return out


def _sql_only(path: Path) -> dict[str, list]:
    with mock.patch("aiperf_lab.metrics.nsys.launch_join.launches_by_thread", return_value=None), \
            mock.patch("aiperf_lab.metrics.nsys.nvtx._grouped_ranges", return_value=None):
        return _tables(path)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exports())
def test_fast_paths_match_the_sql_paths(builder: ExportBuilder):
    with tempfile.TemporaryDirectory() as folder:
        path = builder.write(Path(folder) / "t.sqlite")
        assert _tables(path) == _sql_only(path)


def test_fast_paths_match_on_the_h200_export():
    fast, sql = _tables(H200), _sql_only(H200)
    assert all(isinstance(rows, list) and rows for rows in fast.values())
    assert fast == sql


def test_repeated_correlation_ids_keep_the_sql_join(tmp_path):
    """Two calls of one process sharing a correlation id: SQL's join repeats the kernel, and so do we."""
    b = ExportBuilder()
    b.range(1, 0, 1000, "step")
    b.launch(1, 10, 20, "k", 100, 50)
    path = b.write(tmp_path / "dup.sqlite")
    con = sqlite3.connect(path)
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start + 30, [end] + 30, eventClass, globalTid, "
                "correlationId, nameId, returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    con.commit()
    con.close()
    (row,) = cuda_kern_exec_sum(NsysDatabase(path)).rows
    assert row[3] == 2  # the one kernel, once per call carrying its correlation id
    assert _tables(path) == _sql_only(path)


def test_a_second_device_or_launch_api_is_read_in_full(tmp_path):
    """The device and API-name columns are read as one value where every row holds it; a second value (a
    second GPU, cuLaunchKernel beside cudaLaunchKernel) makes the read take them row by row."""
    b = ExportBuilder()
    b.range(1, 0, 1000, "step")
    for i in range(6):
        b.launch(1, 10 + 100 * i, 20 + 100 * i, f"k{i % 2}", 2000 + 100 * i, 50 + i,
                 api="cuLaunchKernel" if i == 4 else "cudaLaunchKernel_v7000")
    path = b.write(tmp_path / "two.sqlite")
    one = _tables(path)
    assert one == _sql_only(path)
    assert {row[-2] for row in one["cuda_kern_exec_sum"]} == {"cudaLaunchKernel", "cuLaunchKernel"}
    con = sqlite3.connect(path)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 1 WHERE rowid % 2 = 0")
    con.commit()
    con.close()
    two = _tables(path)
    assert two == _sql_only(path)
    assert {row[2] for row in two["cuda_kern_exec_sum"]} == {0, 1}


def test_the_join_size_from_counts_per_id_is_the_joins_own_count(tmp_path):
    """sql_join_rows sizes the kernel-to-call join without making it (5 billion rows for a damaged export
    whose 74,000 kernels and 72,000 calls share one id); it must equal the join's own count, on the real
    export and on a copy where every call and kernel share one id."""
    import shutil

    from conftest import H200
    from aiperf_lab.metrics.nsys.launch_join import sql_join_rows

    def counted(path: Path, calls: str) -> int:
        with sqlite3.connect(path) as con:
            return con.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN {calls} AS r ON "
                               "r.correlationId = k.correlationId AND "
                               "k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)").fetchone()[0]

    damaged = tmp_path / "collided.sqlite"
    shutil.copy(H200 / "lm_forward.sqlite", damaged)
    with sqlite3.connect(damaged) as con:
        con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 1")
        con.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 1")
    for path in (H200 / "lm_forward.sqlite", damaged):
        calls = "CUPTI_ACTIVITY_KIND_RUNTIME"
        assert sql_join_rows(NsysDatabase(path), "CUPTI_ACTIVITY_KIND_KERNEL", calls) == counted(path, calls)
