"""Every real export from nsys 2020.3 to 2026.2: every report either works or says what is missing."""

from __future__ import annotations

import pytest

from conftest import CORPUS, corpus_files, needs_corpus

from aiperf_lab.errors import InputError, MissingData
from aiperf_lab.metrics.nsys import nvtx as nsys_nvtx
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.registry import reports_for
from aiperf_lab.metrics.sources import open_profile

EXPORTS = corpus_files("**/*.sqlite")


@needs_corpus
@pytest.mark.parametrize("path", EXPORTS, ids=[p.relative_to(CORPUS).as_posix() for p in EXPORTS])
def test_every_report_on_every_corpus_export(path):
    try:
        profile = open_profile(path)
    except InputError as exc:
        # Only the captures with no CUDA or NVTX data at all may be refused, and they must say so.
        assert "no CUDA, NVTX or OS runtime data" in str(exc)
        assert path.parent.name in ("cardiac-simulation", "cs336-ihoratlanov")
        return
    produced = 0
    for name in [r.name for r in reports_for("nsys")]:
        try:
            tables = profile.report(name)
        except MissingData as exc:
            assert "does not contain" in str(exc) or "has no" in str(exc)
            continue
        produced += 1
        for table in tables:
            assert all(len(row) == len(table.columns) for row in table.rows)
    assert produced >= 3


@needs_corpus
def test_failed_capture_names_the_injection_error():
    with pytest.raises(InputError, match="capture failed: .*symbol lookup error"):
        open_profile(CORPUS / "cardiac-simulation" / "report1.sqlite")


@needs_corpus
def test_non_utf8_metadata_does_not_break_reading():
    db = NsysDatabase(CORPUS / "cs336-ihoratlanov" / "result.sqlite")
    assert db.export_info.product_version.startswith("2025.6.1")


@needs_corpus
def test_backward_kernels_from_the_autograd_thread_need_cross_thread_attribution():
    """cs336-jsun012: PyTorch's pt_autograd_0 thread launched the backward pass."""
    db = NsysDatabase(CORPUS / "cs336-jsun012" / "result.sqlite")
    same = {r[0]: r for r in nsys_nvtx.nvtx_gpu(db).rows}
    cross = {r[0]: r for r in nsys_nvtx.nvtx_gpu(db, cross_thread=True).rows}
    assert same[":Backward"][4] == 507          # nsys's rule: only the main thread's launches
    assert cross[":Backward"][4] > 10 * 507     # counting the autograd thread too
    assert cross[":Forward"][4] == same[":Forward"][4]  # forward runs on the main thread either way
    kern = nsys_nvtx.nvtx_kern_sum(db)
    backward = [row for row in kern.rows if row[0] == ":Backward"]
    assert sum(row[5] for row in backward) == 507


@needs_corpus
def test_registered_string_domains_and_mixed_text():
    trt = nsys_nvtx.nvtx_sum(NsysDatabase(CORPUS / "memfusion" / "report1.sqlite"))
    assert trt.rows and all(row[-1].startswith("TensorRT:") for row in trt.rows)
    cudf = {row[-1].split(":")[0] for row in nsys_nvtx.nvtx_sum(NsysDatabase(CORPUS / "nvtx-examples-2020" / "cudf.sqlite")).rows}
    assert {"cudf_python", "libcudf"} <= cudf


@needs_corpus
def test_nested_ranges_count_kernels_under_each_enclosing_range():
    db = NsysDatabase(CORPUS / "cs336-zx3xyy" / "result_2_7B_nvtx.sqlite")
    rows = nsys_nvtx.nvtx_kern_sum(db).rows
    softmax = sum(r[6] for r in rows if r[0] == ":computing softmax")
    attention = {r[12]: r[6] for r in rows if r[0] == ":scaled dot product attention"}
    for row in (r for r in rows if r[0] == ":computing softmax"):
        assert attention[row[12]] >= row[6]  # the outer range contains every softmax kernel again
    assert softmax > 0


@needs_corpus
def test_cuda_graphs_traced_whole_are_flagged():
    profile = open_profile(CORPUS / "cs336-zx3xyy" / "result_2_7B_compile_ro.sqlite")
    (table,) = profile.report("cuda_gpu_kern_sum")
    assert any("--cuda-graph-trace=node" in note for note in table.notes)
