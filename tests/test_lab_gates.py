"""Which checks a run can be graded on: from where and how the workload says it ran (device, size,
GPUs by UUID), the datasheet table, sanity bounds on fractions, and what-if knobs."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import REPO

from fake_nvml import FakeGpu, FakeNvml

from aiperf_lab.errors import InputError
from aiperf_lab.labs import runner
from aiperf_lab.labs.catalog import find_exercise
from aiperf_lab.labs.gpus import normalize_uuid, used_devices, visible_in_cuda_order
from aiperf_lab.labs.history import load_run
from aiperf_lab.labs.record import RunRecord
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.sampler import Sampler

BUILD_ARGV = runner.build_argv   # the real one: tests below replace it with a fake workload


def _fake_workload(monkeypatch, result: dict, code: int = 0, seen: list | None = None):
    script = (f"import time; time.sleep(0.3); "
              f"print('AIPERF_RESULT ' + {json.dumps(json.dumps(result))}); raise SystemExit({code})")

    def argv(*args, **kwargs):
        if seen is not None:
            seen.append(kwargs.get("knobs"))
        return [sys.executable, "-c", script]

    monkeypatch.setattr(runner, "build_argv", argv)
    monkeypatch.setattr(runner, "IDLE_BASELINE_S", 0.2)


def _run(monkeypatch, tmp_path, result, gpus, exercise="04-ex01", variant=None, **kwargs):
    _fake_workload(monkeypatch, result)
    sampler = Sampler(20, source=NvmlSource.open(FakeNvml(gpus))).start()
    try:
        return runner.run_exercise(exercise, variant, runs_dir=tmp_path, sampler=sampler, **kwargs)
    finally:
        sampler.close()


def _uuid(gpu) -> str:
    return f"GPU-{id(gpu):08x}"   # what tests/fake_nvml.py reports


BF16 = {"dtype": "bf16", "tflops": 600.0, "work": 1e15, "work_unit": "FLOP"}


@pytest.mark.parametrize("where, reason", [
    ({}, "did not say where it ran"),
    ({"device": "cpu", "size": "tiny"}, "the workload ran on the CPU"),
    ({"device": "cuda", "size": "tiny"}, "set for the full-size problem: this run was --size tiny"),
])
def test_gpu_checks_need_a_full_size_gpu_run_whatever_nvml_sees(monkeypatch, tmp_path, where, reason):
    gpu = FakeGpu(power_w=300.0)
    record = _run(monkeypatch, tmp_path, {**BF16, **where}, [gpu])
    assert {c.status for c in record.checks} == {"skipped"}
    assert all(reason in c.detail for c in record.checks)
    assert record.grade == "not graded" and reason in record.grade_reason


def test_energy_and_figures_come_from_the_gpu_the_workload_used(monkeypatch, tmp_path):
    idle, busy = FakeGpu(name="NVIDIA H100 80GB HBM3", power_w=60.0), FakeGpu(name="NVIDIA H200", power_w=500.0)
    # SLURM-style: the job was given NVML device 1; the workload saw it as cuda:0 and reported its UUID
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    record = _run(monkeypatch, tmp_path, {**BF16, "device": "cuda", "size": "full", "gpu_ordinals": [0],
                                          "gpu_uuids": [_uuid(busy)[4:].upper()]}, [idle, busy])
    assert record.device["used_gpus"] == [1]
    m = record.measurements
    assert m["gpu_name"] == "NVIDIA H200" and m["nominal_tflops"] == 989.0
    assert m["avg_power_w"] == pytest.approx(500.0, rel=0.05) and m["idle_power_w"] == pytest.approx(500.0, rel=0.05)
    per_gpu = {g["index"]: g for g in record.energy["per_gpu"]}
    assert m["energy_j"] == pytest.approx(per_gpu[1]["joules"], rel=1e-3)


def test_without_uuids_the_ordinal_goes_through_cuda_visible_devices(monkeypatch, tmp_path):
    a, b, c = FakeGpu(power_w=50.0), FakeGpu(power_w=100.0), FakeGpu(power_w=400.0)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", f"{_uuid(c)},0")   # a UUID, then an ordinal
    record = _run(monkeypatch, tmp_path, {**BF16, "device": "cuda", "size": "full", "gpu_ordinals": [0]}, [a, b, c])
    assert record.device["used_gpus"] == [2]
    assert record.measurements["avg_power_w"] == pytest.approx(400.0, rel=0.05)


def test_visible_devices_in_cuda_order_stop_where_cuda_stops():
    devices = [SimpleNamespace(index=i, name="NVIDIA H200", uuid=f"GPU-{i}abc{i}") for i in range(3)]
    assert [d.index for d in visible_in_cuda_order(devices, "2,0")[0]] == [2, 0]
    assert [d.index for d in visible_in_cuda_order(devices, "1,7,0")[0]] == [1]          # 7 ends the list
    assert visible_in_cuda_order(devices, "")[0] == []                                 # no GPU at all
    assert [d.index for d in visible_in_cuda_order(devices, "GPU-2abc")[0]] == [2]      # UUID prefix
    assert [d.index for d in visible_in_cuda_order(devices, "abc")[0]] == []            # not unique
    chosen, notes = visible_in_cuda_order(devices, "MIG-1234")
    assert chosen == [] and "MIG instance" in notes[0]
    assert normalize_uuid("GPU-AB") == "ab" and normalize_uuid("MIG-AB") == "mig-ab"


def test_a_mig_uuid_is_not_attributed_to_a_whole_gpu():
    devices = [SimpleNamespace(index=0, name="NVIDIA H100 80GB HBM3", uuid="GPU-aaaa")]
    mapping = used_devices({"device": "cuda", "gpu_uuids": ["MIG-bbbb"], "gpu_ordinals": [0]}, devices,
                           "MIG-bbbb")
    assert mapping.used == [] and "MIG" in mapping.notes[0]
    assert used_devices({"device": "cpu"}, devices, None).used == []


def test_torchrun_uses_one_gpu_per_process_in_cuda_order():
    devices = [SimpleNamespace(index=i, name="NVIDIA H200", uuid=f"GPU-{i}") for i in range(4)]
    mapping = used_devices({"device": "cuda", "gpu_uuids": ["3"]}, devices, "3,1", processes=2)
    assert [d.index for d in mapping.used] == [3, 1]


def test_an_unknown_device_is_not_graded_against_the_datasheet(monkeypatch, tmp_path):
    gpu = FakeGpu(name="NVIDIA RTX PRO 6000 Blackwell Server Edition", power_w=300.0)
    record = _run(monkeypatch, tmp_path, {**BF16, "device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]},
                  [gpu])
    checks = {c.id: c for c in record.checks}
    assert checks["near_the_datasheet"].status == "skipped"
    assert "no datasheet figure" in checks["near_the_datasheet"].detail and "RTX PRO 6000" in checks[
        "near_the_datasheet"].detail
    assert checks["energy_from_the_counter"].status == "pass"


def test_fractions_outside_their_bounds_are_errors_not_passes(monkeypatch, tmp_path):
    gpu = FakeGpu(power_w=300.0)
    result = {"pinned_h2d_gb_s": 50.0, "pageable_h2d_gb_s": 10.0, "hidden_fraction_of_transfer": 2.93,
              "device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]}
    record = _run(monkeypatch, tmp_path, result, [gpu], exercise="01-ex03")
    checks = {c.id: c for c in record.checks}
    assert checks["overlap_hides_half"].status == "error" and "outside 0..1.05" in checks["overlap_hides_half"].detail
    assert checks["pinned_beats_pageable"].status == "pass"
    assert record.grade == "failed"


def test_a_failing_workload_fails_and_a_passing_one_passes(monkeypatch, tmp_path):
    gpu = FakeGpu(power_w=300.0)
    where = {"device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]}
    failed = _run(monkeypatch, tmp_path / "a", {**where}, [gpu], exercise="01-ex01")
    _fake_workload(monkeypatch, {"optimized_step_ms": 1.0, "baseline_step_ms": 2.0, **where}, code=1)
    assert failed.grade == "failed" and "did not measure" in failed.checks[0].detail
    good = _run(monkeypatch, tmp_path / "b", {"optimized_step_ms": 1.0, "baseline_step_ms": 2.0, **where}, [gpu],
                exercise="01-ex01")
    assert good.grade == "pass" and "1 of 3 checks passed (2 not evaluated)" == good.grade_reason


def test_knobs_are_validated_passed_on_and_recorded_and_the_run_is_not_graded(monkeypatch, tmp_path):
    gpu = FakeGpu(power_w=300.0)
    seen: list = []
    _fake_workload(monkeypatch, {"speedup": 6.0, "device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]},
                   seen=seen)
    sampler = Sampler(20, source=NvmlSource.open(FakeNvml([gpu]))).start()
    try:
        record = runner.run_exercise("01-ex02", "optimized", runs_dir=tmp_path, sampler=sampler,
                                     knobs=["streams=8"])
        for bad, message in [(["streams=0"], "between 1 and 16"), (["streams=two"], "takes an int"),
                             (["colour=red"], "no knob 'colour'"), (["streams"], "NAME=VALUE")]:
            with pytest.raises(InputError, match=message):
                runner.run_exercise("01-ex02", "optimized", runs_dir=tmp_path, sampler=sampler, knobs=bad)
    finally:
        sampler.close()
    assert seen == [{"streams": 8}] and record.knobs == {"streams": 8}
    check = next(c for c in record.checks if c.id == "streams_overlap")
    assert check.status == "skipped" and "what-if run (streams=8)" in check.detail and "would pass" in check.detail
    assert record.grade == "not graded" and record.grade_reason.endswith("what-if run (streams=8): not graded")
    saved = load_run(record.folder)
    assert saved.run_record.knobs == {"streams": 8} and saved.grade.word == "not graded"
    monkeypatch.setattr(runner, "missing_pytorch", lambda: None)
    argv = BUILD_ARGV(find_exercise("01-ex02"), "optimized", "none", "full", tmp_path, knobs={"streams": 8})
    assert argv[-2:] == ["--set", "streams=8"]


def test_run_records_read_back_typed_and_refuse_wrong_types(tmp_path):
    record = RunRecord.from_dict({"exercise": "01-ex01", "exit_code": 0, "checks": [
        {"id": "a", "text": "t", "expr": "x > 1", "status": "pass", "detail": "x=2"}], "future_key": 1})
    assert record.checks[0].status == "pass" and record.variant == "" and record.knobs == {}
    with pytest.raises(InputError, match="'measurements' has the wrong type"):
        RunRecord.from_dict({"exercise": "x", "measurements": [1, 2]})
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"exercise": "x", "checks": "nope"}))
    with pytest.raises(InputError, match="wrong type"):
        load_run(folder)


def labs_cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.labs", *args], capture_output=True, text=True, cwd=cwd)


def test_answers_come_after_a_run_and_knobs_are_listed(tmp_path):
    refused = labs_cli("show", "07-ex02", "--answers", "--runs-dir", str(tmp_path))
    assert refused.returncode == 2 and "run 07-ex02-non-matmul-kernels first" in refused.stderr
    # a run whose workload could not run here (exit 2) gave no numbers: still refused, and it says so
    folder = tmp_path / "20260101T000000Z-07-ex02-non-matmul-kernels-forward"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"exercise": "07-ex02-non-matmul-kernels", "exit_code": 2}))
    refused = labs_cli("show", "07-ex02", "--answers", "--runs-dir", str(tmp_path))
    assert refused.returncode == 2 and "its one run there failed (exit 2)" in refused.stderr
    (folder / "run.json").write_text(json.dumps({"exercise": "07-ex02-non-matmul-kernels", "exit_code": 0}))
    shown = labs_cli("show", "07-ex02", "--answers", "--runs-dir", str(tmp_path))
    assert shown.returncode == 0 and shown.stdout.startswith("# Answers")
    knobs = labs_cli("show", "01-ex02", "--knobs")
    assert "--set streams=<int 1..16, default 4>" in knobs.stdout and "(variant optimized only)" in knobs.stdout
    assert "3 failed" in labs_cli("--help").stdout


def test_a_knob_that_does_not_change_the_variant_is_refused_in_one_line(tmp_path):
    done = labs_cli("run", "01-ex02", "--variant", "baseline", "--set", "streams=8", "--runs-dir", str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "python -m aiperf_lab.labs: --set streams=8: streams changes only the optimized variant of "
        "01-ex02-kernel-overlap, not baseline; the knobs of baseline: none"]
    assert not any(tmp_path.iterdir())   # refused before a run folder was made
    from aiperf_lab.labs.catalog import find_exercise
    from aiperf_lab.labs.runner import parse_knobs
    exercise = find_exercise("01-ex03")
    assert parse_knobs(exercise, ["chunks=16"], "optimized") == {"chunks": 16}
    with pytest.raises(InputError, match="the knobs of baseline: none"):
        parse_knobs(exercise, {"chunks": "16"}, "baseline")
    assert parse_knobs(find_exercise("07-ex01"), ["seq=1024"], "train") == {"seq": 1024}


def test_tiny_runs_are_not_graded_and_say_why(tmp_path):
    pytest.importorskip("torch")
    done = labs_cli("run", "01-ex02", "--size", "tiny", "--runs-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "grade: not graded (no check could be evaluated: needs a GPU: the workload ran on the CPU)" in done.stdout
    record = load_run(next(tmp_path.glob("*")))
    assert record.grade.word == "not graded" and record.run_record.device["ran_on"]["size"] == "tiny"
    history = labs_cli("history", "--runs-dir", str(tmp_path))
    assert history.stdout.startswith("not graded")


def test_the_gpu_verification_plan_and_table(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import verify_issue13
    finally:
        sys.path.pop(0)
    specs = verify_issue13.plan(["01-ex01", "06-ex01", "07-ex02"])
    assert specs == ["01-ex01:baseline:nsys", "01-ex01:optimized:nsys", "06-ex01:baseline:none",
                     "06-ex01:baseline:nsys", "06-ex01:optimized:none", "07-ex02:forward:nsys"]
    multi = verify_issue13.plan([], multi=True)
    assert multi and all(s.split(":")[0] in {"01-ex04", "03-ex03", "05-ex02", "05-ex03"} for s in multi)
    assert not any(s.startswith("01-ex04") for s in verify_issue13.plan([]))
    folder = tmp_path / "20260101T000000Z-01-ex01-timeline-basics-baseline"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({
        "exercise": "01-ex01-timeline-basics", "variant": "baseline", "profile": "nsys", "exit_code": 0,
        "measurements": {"gpu_name": "NVIDIA H100 80GB HBM3"}, "grade": "failed", "grade_reason": "1 of 3 checks failed",
        "checks": [{"id": "overlap_pays", "text": "t", "expr": "e", "status": "fail", "detail": "a=1 | b=2"}]}))
    (tmp_path / "20260101T000100Z-02-ex04-optimization-loop-v3").mkdir()
    (tmp_path / "20260101T000100Z-02-ex04-optimization-loop-v3" / "stdout.log").write_text("killed")
    text = verify_issue13.table(tmp_path, "1 NVIDIA H100 80GB HBM3")
    assert text.startswith("GPU: 1 NVIDIA H100 80GB HBM3")
    assert "| 01-ex01 | baseline | nsys | failed (1 of 3 checks failed) | overlap_pays **fail** (a=1 / b=2) | NVIDIA H100 80GB HBM3 |" in text
    assert "02-ex04-optimization-loop-v3 | | | no run.json" in text


def test_every_exercise_has_written_answers_to_each_question():
    import re
    from aiperf_lab.labs.catalog import all_exercises
    for exercise in all_exercises():
        answers = exercise.answers_text()
        assert answers is not None and answers.startswith("# Answers"), exercise.id
        questions = exercise.walkthrough_text().split("## Questions", 1)[1].split("\n## ", 1)[0]
        asked = len(re.findall(r"^\d\. ", questions, flags=re.M))
        answered = len(re.findall(r"^\d\. ", answers, flags=re.M))
        assert asked == answered, f"{exercise.id}: {asked} questions, {answered} answers"


def test_the_result_line_says_where_the_workload_ran(monkeypatch, capsys):
    from aiperf_lab.labs import result

    class FakeCuda:
        @staticmethod
        def is_initialized():
            return True

        @staticmethod
        def current_device():
            return 0

        @staticmethod
        def device_count():
            return 3

        @staticmethod
        def max_memory_allocated(i):
            return 2**20 if i == 2 else 0

        @staticmethod
        def get_device_properties(i):
            return SimpleNamespace(uuid=f"uuid-{i}")

    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=FakeCuda))
    monkeypatch.setattr(result, "_CONTEXT", {"size": "full", "knobs": {"seq": "1024"}})
    result.emit(speedup=2.0)
    line = result.parse_line(capsys.readouterr().out.strip())
    assert line == {"speedup": 2.0, "device": "cuda", "gpu_ordinals": [0, 2], "gpu_uuids": ["uuid-0", "uuid-2"],
                    "size": "full", "knobs": {"seq": "1024"}}
    monkeypatch.setitem(sys.modules, "torch", None)
    assert result.where_it_ran() == {"device": "cpu"}


def test_without_nvml_energy_checks_are_not_graded_rather_than_failed(monkeypatch, tmp_path):
    _fake_workload(monkeypatch, {**BF16, "device": "cuda", "size": "full", "gpu_uuids": ["GPU-abc"]})
    sampler = Sampler(10, source=NvmlSource.open(FakeNvml([], init_error=12))).start()   # no NVML library
    try:
        record = runner.run_exercise("04-ex01", runs_dir=tmp_path, sampler=sampler)
    finally:
        sampler.close()
    checks = {c.id: c for c in record.checks}
    assert checks["load_above_idle"].status == "skipped" and "no energy or power" in checks["load_above_idle"].detail
    assert checks["near_the_datasheet"].status == "skipped"
    assert record.grade == "not graded"


def test_a_count_whose_name_holds_shared_is_not_taken_for_a_share():
    # ncu's shared-memory bank conflicts are counts in the hundreds of thousands (seen on the H100).
    from aiperf_lab.labs.runner import _out_of_bounds

    assert _out_of_bounds("ncu_transpose_padded_shared_ld_conflicts", 205834) is None
    assert _out_of_bounds("hidden_fraction_of_transfer", 2.93) is not None
    assert _out_of_bounds("comm_share", 1.5) is not None
    assert _out_of_bounds("idle_time_pct", 120.0) is not None
    assert _out_of_bounds("idle_time_pct", 42.0) is None


def test_a_workload_without_numpy_says_so_in_one_line_not_a_torch_warning():
    pytest.importorskip("torch")
    code = ("import sys; sys.modules['numpy'] = None\n"   # as if NumPy were not installed
            "from aiperf_lab.labs.workloads.common import import_torch\n"
            "print(import_torch().ones(3).sum().item())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0 and done.stdout.strip() == "3.0"
    assert done.stderr.splitlines() == ["note: NumPy is not installed (PyTorch warns about it; these workloads do "
                                        "not use it): pip install numpy, or aiperf-lab[labs] which includes it"]


@pytest.mark.parametrize("name, tflops, status, info", [
    ("NVIDIA H200", 400.0, "pass", "nominal_tflops=989, datasheet_tflops_pct=40.4"),
    ("NVIDIA H200", 200.0, "fail", "nominal_tflops=989, datasheet_tflops_pct=20.2"),
    # a device the datasheet table does not know is still graded, against the ceiling it measured
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 400.0, "pass",
     "nominal_tflops=n/a, datasheet_tflops_pct=n/a (no datasheet figure for this device and type (NVIDIA RTX "
     "PRO 6000 Blackwell Server Edition))"),
])
def test_the_baseline_is_graded_against_the_matmul_it_measured_not_the_datasheet(monkeypatch, tmp_path, name,
                                                                                  tflops, status, info):
    gpu = FakeGpu(name=name, power_w=300.0)
    result = {"dtype": "bf16", "tflops": tflops, "matmul_tflops": 700.0, "step_cv": 0.01,
              "device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]}
    record = _run(monkeypatch, tmp_path, result, [gpu], exercise="05-ex01")
    check = next(c for c in record.checks if c.id == "achieves_tflops")
    assert check.status == status and check.detail.startswith(f"matmul_tflops=700, tflops={tflops:g} | ")
    assert check.detail.split(" | ", 1)[1] == f"information, not graded: {info}"
    assert record.grade == ("pass" if status == "pass" else "failed")


@pytest.mark.parametrize("high_k, status", [(55.8, "pass"), (30.0, "fail")])
def test_the_roofline_compute_check_uses_the_sgemm_it_measured(monkeypatch, tmp_path, high_k, status):
    gpu = FakeGpu(name="NVIDIA H200", power_w=300.0)
    result = {"dtype": "fp32", "high_k_tflops": high_k, "fp32_gemm_tflops": 51.0,
              "device": "cuda", "size": "full", "gpu_uuids": [_uuid(gpu)]}
    record = _run(monkeypatch, tmp_path, result, [gpu], exercise="02-ex03")
    check = next(c for c in record.checks if c.id == "high_intensity_compute_bound")
    assert check.status == status
    assert check.detail == f"fp32_gemm_tflops=51, high_k_tflops={high_k:g} | information, not graded: nominal_tflops=67"


def test_every_walkthrough_leads_from_symptom_to_evidence_to_hypothesis_and_the_answers_name_the_cause():
    import re
    from aiperf_lab.labs.catalog import all_exercises
    for exercise in all_exercises():
        look = exercise.walkthrough_text().split("## What to look at", 1)[1].split("\n## ", 1)[0]
        marks = [look.find(f"**{step}") for step in ("Symptom.", "Evidence", "Hypothesis")]
        assert -1 not in marks and marks == sorted(marks), f"{exercise.id}: symptom, evidence, hypothesis {marks}"
        assert "**Test it.**" in look, exercise.id
        # the answers open with the cause (or what the evidence shows) before the numbered answers
        answers = exercise.answers_text()
        lead = answers.split("\n\n", 2)[1]
        assert lead.startswith(("The cause", "What the evidence shows")) and not re.match(r"\d\. ", lead), exercise.id
