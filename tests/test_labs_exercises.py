"""Every curriculum exercise is in the catalog and wired to things that exist; the runner's
multi-GPU and profiler paths; what the runner derives from real profiles; run history and compare."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import H200, REPO

from aiperf_lab.errors import InputError
from aiperf_lab.labs import analyses, expressions, runner
from aiperf_lab.labs.catalog import all_exercises, find_exercise
from aiperf_lab.labs.history import compare_runs, list_runs, load_run
from aiperf_lab.metrics.sources import open_profile
from aiperf_lab.metrics.tables import Table

# The curriculum the issue names, module by module (seeds/004 and seeds/001).
CURRICULUM = [
    "01-ex01", "01-ex02", "01-ex03", "01-ex04",
    "02-ex01", "02-ex02", "02-ex03", "02-ex04",
    "03-ex01", "03-ex02", "03-ex03",
    "04-ex01", "04-ex02", "04-ex03",
    "05-ex01", "05-ex02", "05-ex03",
    "06-ex01", "06-ex02", "06-ex03", "06-ex04", "06-ex05", "06-ex06", "06-ex07", "06-ex08",
    "07-ex01", "07-ex02", "07-ex03", "07-ex04",
]
WORKLOADS = REPO / "aiperf_lab" / "labs" / "workloads"
LABS = REPO / "aiperf_lab" / "labs"
# Measurement families the runner derives from tables (analyses.py), beyond literal names in sources.
DERIVED = [r"^ncu_\w+$", r"^(gpu_ms|gemm_ms|kernels)_\w+$", r"^(nvtx_cpu|gpu_span|gpu_sum)_\w+_med_ms$", r"^\w+_pct(_\w+)?$", r"^samples_\w+$", r"^osrt_\w+_calls$",
           r"^rule_\w+$", r"^nvtx_\w+_(avg|med)_ms$", r"^energy_\w+_j$"]


def test_every_curriculum_exercise_is_in_the_catalog_once():
    ids = [e.id for e in all_exercises()]
    assert [i[:7] for i in ids] == CURRICULUM
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("exercise", all_exercises(), ids=lambda e: e.id)
def test_exercise_is_wired_to_what_exists(exercise):
    source = (WORKLOADS / f"{exercise.workload}.py").read_text()
    module = importlib.import_module(f"aiperf_lab.labs.workloads.{exercise.workload}")
    assert module.__doc__ and callable(module.main)
    for variant in exercise.variants:
        assert f'"{variant.name}"' in source, f"{exercise.workload} has no variant {variant.name}"
    known = source + (LABS / "runner.py").read_text() + (LABS / "analyses.py").read_text()
    for check in exercise.checks:
        for name in expressions.names(check.expr) | set(check.info):
            assert name in known or any(re.match(p, name) for p in DERIVED), f"{check.id}: nothing produces {name}"
    walkthrough = exercise.walkthrough_text()
    for heading in ("## Goal", "## Steps", "## What to look at", "## Questions", "## What good looks like"):
        assert heading in walkthrough, f"{exercise.walkthrough} lacks {heading}"
    assert f"run {exercise.id[:7]}" in walkthrough


def test_workload_modules_import_without_torch_or_cuda():
    code = ("import sys, importlib\n"
            "for m in %r: importlib.import_module('aiperf_lab.labs.workloads.' + m)\n"
            "print('torch' in sys.modules, 'cuda' in sys.modules)" % sorted({e.workload for e in all_exercises()}))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_multi_gpu_exercise_refuses_one_gpu_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with pytest.raises(InputError, match=r"01-ex04-multi-gpu-timeline needs at least 2 GPUs; this machine shows 1"):
        runner.run_exercise("01-ex04", runs_dir=tmp_path)
    assert not any(tmp_path.iterdir())  # nothing half-written


def test_torchrun_and_nsys_recipes_build_argv_lists(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "missing_pytorch", lambda: None)   # the argv, whether PyTorch is here or not
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("nsys", "ncu"):
        (fake / tool).write_text("#!/bin/sh\nexit 0\n")
        (fake / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    argv = runner.build_argv(find_exercise("01-ex04"), "optimized", "nsys", "full", tmp_path, gpus=4)
    joined = " ".join(argv)
    assert "--capture-range cudaProfilerApi --capture-range-end stop" in joined
    assert argv[argv.index("--nproc-per-node") + 1] == "4" and "torch.distributed.run" in argv
    assert argv[argv.index("--trace") + 1] == "cuda,nvtx"
    sampled = runner.build_argv(find_exercise("06-ex01"), "baseline", "nsys", "full", tmp_path)
    assert sampled[sampled.index("--sample") + 1] == "process-tree" and "--cudabacktrace" in sampled
    assert "none" not in sampled[sampled.index("--sample") + 1]
    ncu = runner.build_argv(find_exercise("02-ex01"), "strided", "ncu", "full", tmp_path)
    metrics = ncu[ncu.index("--metrics") + 1].split(",")
    assert "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in metrics
    assert ncu[ncu.index("--kernel-name") + 1] == "regex:copy_coalesced|copy_vec4|copy_strided"


def test_variant_and_profile_scoped_checks_are_skipped_with_the_reason():
    exercise = find_exercise("06-ex01")
    record = runner.RunRecord(exercise.id, "optimized", "none", "full", "f", [], {}, "t", exit_code=0,
                              measurements={"speedup": 1.5}, device={"ran_on": {"device": "cuda", "size": "full"}})
    results = {c.id: c for c in runner._evaluate(exercise, record)}
    assert results["fix_pays"].status == "pass"
    assert results["backtraces_find_the_lines"].status == "skipped"
    assert "baseline variant" in results["backtraces_find_the_lines"].detail


def _tables(path: Path) -> dict[str, Table]:
    opened = open_profile(path)
    tables = {}
    for name in opened.reports:
        try:
            for table in opened.report(name):
                tables[table.name] = table
        except InputError:
            continue
    return tables


def test_measurements_derived_from_a_real_nsys_export():
    derived = analyses.derive(_tables(H200 / "lm_forward.sqlite"), {})
    assert derived["top_kernel_category"] == "gemm" and derived["kernel_names"] > 10
    assert 0 < derived["gpu_busy_pct"] < 100
    assert derived["rule_pageable_memcpy"] == "yes" and derived["rule_host_sync"] == "no"
    assert derived["kernel_overlap_pct"] == 0.0 and derived["max_concurrent_kernels"] == 1
    assert derived["osrt_open_calls"] >= derived["osrt_open64_calls"] > 0
    assert derived["non_gemm_pct"] == pytest.approx(100 - derived["gemm_pct"], abs=0.2)
    assert derived["nvtx_forward_count"] >= 1


def test_range_breakdowns_and_sql_agree_with_the_readers():
    db = H200 / "lm_forward.sqlite"
    tables = _tables(db)
    out, derived = analyses.range_breakdowns(db, tables, {"ranges": ["computing_softmax", "no_such_range"]}, Path("."))
    assert [t.name for t in out] == ["kernel_breakdown_computing_softmax"]
    assert derived["kernels_computing_softmax"] > 0 and derived["softmax_pct_computing_softmax"] > 50
    out, derived = analyses.sqlite_queries(db, tables, {}, Path("."))
    assert derived["sql_top_kernel_matches"] == 1 and derived["sql_ranges"] >= 4
    out, derived = analyses.range_kernel_diff(db, tables, {"diff": ["computing_softmax", "final_matmul"]}, Path("."))
    diff = out[0]
    assert derived["diff_kernels_removed"] >= 1 and derived["diff_kernels_new"] >= 1
    before = sum(r[1] for r in diff.rows)
    after = sum(r[2] for r in diff.rows)
    assert derived["diff_gpu_ratio"] == pytest.approx(after / before, rel=1e-3)


def test_ncu_measure_aliases_become_per_kernel_measurements():
    tables = _tables(H200 / "ncu_full_raw.csv")
    derived = analyses.derive(tables, {"measure": {"occ": "sm__warps_active.avg.pct_of_peak_sustained_active"}})
    verdicts = [k for k in derived if k.endswith("_verdict") and k != "ncu_first_verdict"]
    assert verdicts and derived["ncu_kernels"] == len(tables["ncu_summary"].rows)
    occ = [k for k in derived if k.endswith("_occ")]
    assert occ and all(isinstance(derived[k], float) for k in occ)


@pytest.mark.parametrize("name, short", [
    ("void copy_strided<4>(float const*, long long)", "copy_strided"), ("roofline_k512", "roofline_k512"),
    ("at::native::(anonymous namespace)::layer_norm_kernel(int)", "layer_norm_kernel"),
])
def test_kernel_short_names(name, short):
    assert analyses.kernel_short_name(name).endswith(short)


def _run_folder(root: Path, name: str, seconds: float, kernels: list[tuple[int, int, str]]) -> Path:
    folder = root / name
    (folder / "tables").mkdir(parents=True)
    record = {"exercise": "06-ex07-comparison-reports", "variant": name, "profile": "nsys", "started_utc": name,
              "seconds": seconds, "exit_code": 0, "energy": {"joules": seconds * 100},
              "measurements": {"speedup": seconds, "top_kernel": kernels[0][2]}, "checks": [{"status": "pass"}]}
    (folder / "run.json").write_text(json.dumps(record))
    lines = ["Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"]
    lines += [f"50.0,{total},{count},1.0,1.0,1,1,0.0,{kname}" for total, count, kname in kernels]
    (folder / "tables" / "cuda_gpu_kern_sum.csv").write_text("\n".join(lines) + "\n")
    return folder


def test_history_and_compare_two_runs(tmp_path):
    a = _run_folder(tmp_path, "2026-01-01-a", 10.0, [(900, 3, "sgemm_fp32"), (100, 5, "add")])
    b = _run_folder(tmp_path, "2026-01-02-b", 4.0, [(200, 3, "gemm_bf16"), (100, 5, "add")])
    (tmp_path / "junk").mkdir()
    assert [r.folder for r in list_runs(tmp_path)] == [b, a]
    run_diff, measured, kernels = compare_runs(load_run(a), load_run(b))
    assert run_diff.rows[0][:4] == ["Run time (s)", 10.0, 4.0, -6.0]
    assert measured.rows == [["speedup", 10.0, 4.0, -6.0, 0.4]]
    status = {row[-1]: row[6] for row in kernels.rows}
    assert status == {"sgemm_fp32": "removed", "gemm_bf16": "new", "add": ""}
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.labs", "compare", str(a), str(tmp_path / "junk")],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a run folder" in done.stderr
