"""CPU-side nsys reports (OS runtime, CPU samples, CUDA API backtraces), expert rules, kernel
concurrency and before/after diffs: on real exports where they hold the data, on small hand-built
exports where a property needs exact numbers."""

from __future__ import annotations

import re
import sqlite3

import pytest

from conftest import CORPUS, H200, needs_corpus

from aiperf_lab.metrics.analysis import GpuOp, kernel_diff, kernel_overlap
from aiperf_lab.metrics.nsys.expert import expert_findings
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.host import (api_time_with_frame, caller_of, cpu_sample_sum, cpu_samples_by_range,
                                          cuda_api_callers, osrt_sum)
from aiperf_lab.errors import MissingData
from aiperf_lab.metrics.tables import Table


@needs_corpus
def test_osrt_sum_equals_what_nsys_2020_wrote_back_into_its_export():
    path = CORPUS / "nvtx-examples-2020" / "cudf.sqlite"
    con = sqlite3.connect(path)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    truth = {names[r[0]]: (r[1], r[2], r[3], r[4]) for r in con.execute("SELECT nameId, num, min, max, total FROM osrtAPIStats")}
    ours = {row[-1]: (row[2], row[5], row[6], row[1]) for row in osrt_sum(NsysDatabase(path)).rows}
    assert ours == truth and len(ours) == 34  # the tracing start/finish markers are left out, as nsys does


@needs_corpus
def test_cpu_samples_count_every_sample_once():
    path = CORPUS / "cs336-jsun012" / "result.sqlite"
    db = NsysDatabase(path)
    table = cpu_sample_sum(db, top=10_000)
    total = db.query("SELECT count(DISTINCT id) FROM SAMPLING_CALLCHAINS WHERE stackDepth = 0")[0][0]
    assert sum(row[1] for row in table.rows) == total
    assert table.rows[0][1] >= table.rows[-1][1]
    by_range = {row[0]: row for row in cpu_samples_by_range(db).rows}
    # nested ranges count in their parents: the benchmark range holds its forward passes' samples
    assert by_range[":Run Benchmark"][1] >= by_range[":Forward"][1] > 0


def test_cpu_sampling_reports_say_when_the_data_is_missing():
    db = NsysDatabase(H200 / "lm_forward.sqlite")
    for report in (cpu_sample_sum, cpu_samples_by_range, cuda_api_callers):
        with pytest.raises(MissingData):
            report(db)


def _export_with_backtraces(path):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, [end] INTEGER, eventClass INTEGER, globalTid INTEGER,
            correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
        CREATE TABLE CUDA_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER, unresolved INTEGER,
            originalIP INTEGER, stackDepth INTEGER);
    """)
    strings = ["cudaStreamSynchronize_v3020", "cudaMemcpyAsync_v3020", "0x7fe9f4b1556e", "libcupti.so.13",
               "cudaStreamSynchronize", "libcudart.so.13", "at::native::_local_scalar_dense_cuda(at::Tensor const&)",
               "libtorch_cuda.so", "at::native::copy_kernel_cuda(at::TensorIterator&, bool)", "cudaLaunchKernel_v7000"]
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(strings, 1)))
    frames = {1: [(3, 4), (5, 6), (7, 8)], 2: [(3, 4), (9, 8)]}  # item(): sync; .to(): copy
    con.executemany("INSERT INTO CUDA_CALLCHAINS VALUES (?, ?, ?, 0, 0, ?)",
                    [(chain, s, m, depth) for chain, fs in frames.items() for depth, (s, m) in enumerate(fs)])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, 1, ?, ?, 0, ?)", [
        (0, 300, 1, 1, 1), (400, 1100, 2, 2, 2), (1200, 1300, 3, 1, 1), (2000, 2010, 4, 10, None)])
    con.commit()
    con.close()
    return path


def test_backtraces_name_the_caller_of_each_blocking_call(tmp_path):
    db = NsysDatabase(_export_with_backtraces(tmp_path / "bt.sqlite"))
    table = cuda_api_callers(db)
    assert [row[:4] for row in table.rows] == [
        ["cudaMemcpyAsync", "at::native::copy_kernel_cuda(at::TensorIterator&, bool)", 1, 700],
        ["cudaStreamSynchronize", "at::native::_local_scalar_dense_cuda(at::Tensor const&)", 2, 400]]
    blocking = re.compile(r"^(cudaStreamSynchronize|cudaMemcpyAsync)")
    assert api_time_with_frame(db, blocking, re.compile("_local_scalar_dense")) == (400, 1100)
    assert caller_of([("0x1", "libcuda.so.1"), ("cudaFree", "libcudart.so")]) == "(unresolved)"


def test_expert_rules_on_a_real_export_and_their_evidence():
    rows = {row[0]: row for row in expert_findings(NsysDatabase(H200 / "lm_forward.sqlite")).rows}
    assert set(rows) == {"pageable_memcpy", "sync_memcpy", "host_sync", "gpu_low_utilization", "tiny_kernels",
                         "low_sm_activity", "tensor_idle", "memory_bound"}
    assert all(rows[r][1] == "n/a" and "no GPU metrics" in rows[r][2]       # captured without --gpu-metrics-devices
               for r in ("low_sm_activity", "tensor_idle", "memory_bound"))
    assert rows["pageable_memcpy"][1] == "yes" and rows["pageable_memcpy"][2].startswith("53 of 53 host-device")
    assert rows["host_sync"][1] == "no" and "55 synchronize calls" in rows["host_sync"][2]
    assert all(row[3] for row in rows.values() if row[1] == "yes")  # advice wherever a rule fires
    assert all(not row[3] for row in rows.values() if row[1] != "yes")


@needs_corpus
def test_sync_rule_fires_on_a_loop_that_synchronizes_constantly():
    rows = {row[0]: row for row in expert_findings(NsysDatabase(CORPUS / "beast-2021" / "report1.sqlite")).rows}
    assert rows["host_sync"][1] == "yes" and "2256 synchronize calls" in rows["host_sync"][2]


def test_kernel_overlap_counts_concurrent_time_once():
    ops = [GpuOp("a", "kernel", 0, 7, 0, 100), GpuOp("b", "kernel", 0, 8, 50, 150), GpuOp("c", "kernel", 0, 7, 200, 300),
           GpuOp("copy", "memcpy", 0, 9, 0, 1000), GpuOp("d", "kernel", 1, 7, 0, 10)]
    rows = {row[0]: row for row in kernel_overlap(ops).rows}
    # device 0: 300 ns of kernels, 250 ns with at least one running: 50 ns (16.7%) overlapped, 2 at once
    assert rows[0] == [0, 3, 2, 300, 250, 16.7, 2]
    assert rows[1] == [1, 1, 1, 10, 10, 0.0, 1]


def test_kernel_diff_marks_removed_and_new_kernels():
    columns = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
               "Name"]
    before = Table("cuda_gpu_kern_sum", "", columns, [[90.0, 900, 3, 0, 0, 0, 0, 0, "fp32_gemm"],
                                                      [10.0, 100, 2, 0, 0, 0, 0, 0, "add"]])
    after = Table("cuda_gpu_kern_sum", "", columns, [[60.0, 150, 3, 0, 0, 0, 0, 0, "bf16_gemm"],
                                                     [40.0, 100, 2, 0, 0, 0, 0, 0, "add"]])
    diff = kernel_diff(before, after)
    assert [row[0] for row in diff.rows] == [-900, 150, 0]
    assert [row[6] for row in diff.rows] == ["removed", "new", ""]
    assert diff.rows[2][5] == 1.0 and "1000 ns before, 250 ns after (0.250x)" in diff.notes[0]
