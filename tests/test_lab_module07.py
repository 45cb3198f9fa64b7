"""Module 07's analyses on the real H200 export of the same model (tests/data/h200/lm_forward.sqlite):
scoped to the timed forward steps, kernels only, GEMM-only time in the attention ranges, and the
07-ex01 comparison of the CPU-side NVTX range with its kernels' GPU time."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import H200

from aiperf_lab.labs import analyses, runner
from aiperf_lab.labs.catalog import find_exercise
from aiperf_lab.labs.workloads.transformer import attention_flops

DB = H200 / "lm_forward.sqlite"
GPU_RUN = {"ran_on": {"device": "cuda", "size": "full"}}


def _graded(exercise_id: str, measurements: dict) -> dict:
    exercise = find_exercise(exercise_id)
    variant = exercise.default_variant.name
    record = runner.RunRecord(exercise.id, variant, "nsys", "full", "f", [], {}, "t", exit_code=0,
                              measurements=measurements, device=GPU_RUN)
    return {c.id: c for c in runner._evaluate(exercise, record)}


def _recipe(exercise_id: str) -> dict:
    return find_exercise(exercise_id).profile["nsys"]


def test_the_whole_run_breakdown_is_dominated_by_the_weight_upload_which_is_not_a_kernel():
    from aiperf_lab.metrics.sources import open_profile
    tables = {t.name: t for t in open_profile(DB).report("kernel_breakdown")}
    derived = analyses.derive(tables, {})
    assert derived["memcpy_memset_pct"] == pytest.approx(37.0, abs=0.5)     # model.to(device): 175 MB of H2D
    assert derived["non_gemm_pct"] < 25                                       # over kernels only


def test_07_ex02_non_matmul_share_of_the_timed_forward_passes():
    _tables, derived = analyses.range_breakdowns(DB, {}, _recipe("07-ex02"), Path("."))
    assert derived["kernels_forward"] == 5 * 83            # five timed steps of 83 kernels; the 2 warm-ups are out
    assert derived["non_gemm_pct_forward"] == pytest.approx(15.0, abs=0.1)
    assert derived["top_non_gemm_category_forward"] == "elementwise"
    assert derived["top_non_gemm_pct_forward"] == pytest.approx(10.5, abs=0.1)   # mostly the causal masked_fill
    assert derived["softmax_pct_forward"] == pytest.approx(2.8, abs=0.1)
    assert derived["normalization_pct_forward"] == pytest.approx(1.6, abs=0.1)
    checks = _graded("07-ex02", derived)
    assert checks["non_matmul_matters"].status == "pass" and checks["top_non_matmul"].status == "pass"


def test_07_ex04_softmax_against_the_gemm_time_of_the_attention_ranges():
    _tables, derived = analyses.range_breakdowns(DB, {}, _recipe("07-ex04"), Path("."))
    # the scores range also scales and masks: most of its kernel time is elementwise
    assert derived["elementwise_pct_computing_attention_scores"] == pytest.approx(62.5, abs=0.5)
    gemm = derived["gemm_ms_computing_attention_scores"] + derived["gemm_ms_final_matmul"]
    whole = derived["gpu_ms_computing_attention_scores"] + derived["gpu_ms_final_matmul"]
    flops = attention_flops(4, 12, 512, 64)
    flop_share = flops["softmax_flops"] / (flops["qk_flops"] + flops["av_flops"])
    assert derived["gpu_ms_computing_softmax"] / gemm == pytest.approx(0.34, abs=0.01)    # about 17x its FLOPs
    assert derived["gpu_ms_computing_softmax"] / whole == pytest.approx(0.17, abs=0.01)   # what whole ranges said
    assert derived["gpu_ms_computing_softmax"] / gemm / flop_share > 17
    checks = _graded("07-ex04", {**derived, **flops})
    assert checks["softmax_costs_more_than_its_flops"].status == "pass"


def test_07_ex01_the_cpu_range_ends_long_before_its_kernels():
    tables, derived = analyses.forward_timing(DB, {}, _recipe("07-ex01"), Path("."))
    assert derived["timed_forward_count"] == 5
    assert derived["nvtx_cpu_forward_med_ms"] == pytest.approx(2.45, abs=0.01)
    assert derived["gpu_span_forward_med_ms"] == pytest.approx(4.925, abs=0.01)
    assert derived["gpu_sum_forward_med_ms"] <= derived["gpu_span_forward_med_ms"]
    assert [row[4] for row in tables[0].rows] == [83] * 5
    checks = _graded("07-ex01", {**derived, "python_forward_median_ms": 5.0, "python_nosync_median_ms": 2.5,
                                 "top_kernel_category": "gemm"})
    assert {c.status for c in checks.values()} == {"pass"}
    # a timer that only waits for the launches is not a forward time: the check fails it
    checks = _graded("07-ex01", {**derived, "python_forward_median_ms": 2.5, "python_nosync_median_ms": 2.45,
                                 "top_kernel_category": "gemm"})
    assert checks["timer_without_sync_misleads"].status == "fail"
    assert checks["gpu_time_matches_synchronized_python"].status == "fail"
