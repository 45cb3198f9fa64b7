"""The lab catalog, check expressions and the runner, without a GPU (a fake NVML stands in)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

from fake_nvml import FakeGpu, FakeNvml

from aiperf_lab.errors import InputError
from aiperf_lab.labs import expressions, runner
from aiperf_lab.labs.catalog import CatalogError, find_exercise, list_labs, load_catalog, parse_catalog
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.sampler import Sampler


def test_catalog_lists_what_the_console_shows():
    labs = list_labs()
    assert labs and all(set(lab) == {"module", "id", "title", "difficulty", "topic"} for lab in labs)
    assert len({lab["id"] for lab in labs}) == len(labs)
    for module in load_catalog():
        for exercise in module.exercises:
            assert exercise.walkthrough_text().startswith("# ")
            assert exercise.checks, f"{exercise.id} checks nothing"
            for check in exercise.checks:
                assert expressions.names(check.expr)


def test_catalog_validation_names_the_problem():
    bad = {"modules": [{"id": "09", "title": "X", "exercises": [
        {"id": "09-ex01", "title": "t", "topic": "t", "difficulty": 9, "walkthrough": "04-ex01-power-measurement.md",
         "workload": "w", "variants": {"a": {"description": "d"}}}]}]}
    with pytest.raises(CatalogError, match="difficulty"):
        parse_catalog(bad)
    bad["modules"][0]["exercises"][0].update(difficulty=1, checks=[{"id": "c", "text": "t", "expr": "__import__('os')"}])
    with pytest.raises(expressions.CheckError, match="only min, max and abs"):
        parse_catalog(bad)


@pytest.mark.parametrize("expr, values, passed, shown", [
    ("a >= 1.5 * b", {"a": 3.0, "b": 2.0}, True, "a=3, b=2"),
    ("a >= 1.5 * b", {"a": 2.0, "b": 2.0}, False, "a=2, b=2"),
    ("source == 'counter' and n > 0", {"source": "counter", "n": 3}, True, "n=3, source='counter'"),
    ("max(x, y) < 10", {"x": 4, "y": 12}, False, "x=4, y=12"),
])
def test_check_expressions_show_their_numbers(expr, values, passed, shown):
    assert expressions.evaluate(expr, values) == (passed, shown)


@pytest.mark.parametrize("expr, message", [
    ("open('x')", "only min, max and abs"), ("a.b", "Attribute"), ("[1][0]", "not allowed"), ("a >", "not a valid"),
])
def test_check_expressions_refuse_anything_else(expr, message):
    with pytest.raises(expressions.CheckError, match=message):
        expressions.parse(expr)


def test_a_missing_measurement_is_an_error_not_a_pass():
    with pytest.raises(expressions.CheckError, match="did not measure b"):
        expressions.evaluate("a > b", {"a": 1})


def test_argv_is_a_list_with_bounded_ncu(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "missing_pytorch", lambda: None)   # the argv, whether PyTorch is here or not
    exercise = find_exercise("04-ex01")
    argv = runner.build_argv(exercise, "bf16", "none", "tiny", tmp_path)
    assert argv[1:3] == ["-m", "aiperf_lab.labs.workloads.energy_matmul"] and "--size" in argv
    monkeypatch.setattr(runner.shutil, "which", lambda tool: f"/opt/{tool}")
    ncu = runner.build_argv(exercise, "fp32", "ncu", "full", tmp_path)
    assert ncu[0] == "/opt/ncu" and ncu[ncu.index("--launch-count") + 1] == "2"
    assert ncu[ncu.index("--kernel-name") + 1].startswith("regex:")
    with pytest.raises(InputError, match="no torch recipe"):
        runner.build_argv(exercise, "bf16", "torch", "full", tmp_path)



def test_a_missing_profiler_is_one_error_and_leaves_no_run_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(runner.shutil, "which", lambda tool: None)
    with pytest.raises(InputError, match="needs Nsight Systems' `nsys` on the PATH"):
        runner.run_exercise("01-ex03", "baseline", "nsys", "tiny", runs_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []

def _fake_workload(monkeypatch, result: dict, code: int = 0):
    script = (f"import time; print('working'); time.sleep(0.3); "
              f"print('AIPERF_RESULT ' + {json.dumps(json.dumps(result))}); raise SystemExit({code})")
    monkeypatch.setattr(runner, "build_argv", lambda *args, **kwargs: [sys.executable, "-c", script])
    monkeypatch.setattr(runner, "IDLE_BASELINE_S", 0.3)


def test_a_run_writes_its_folder_and_checks_its_numbers(monkeypatch, tmp_path):
    gpu = FakeGpu(power_w=300.0)
    _fake_workload(monkeypatch, {"dtype": "bf16", "tflops": 600.0, "work": 1e15, "work_unit": "FLOP",
                                 "device": "cuda", "size": "full", "gpu_uuids": [f"{id(gpu):08x}"]})
    sampler = Sampler(20, source=NvmlSource.open(FakeNvml([gpu]))).start()
    lines = []
    try:
        record = runner.run_exercise("04-ex01", runs_dir=tmp_path, sampler=sampler, on_line=lines.append)
    finally:
        sampler.close()
    assert record.exit_code == 0 and "working" in lines
    folder = tmp_path / record.folder.split("/")[-1]
    saved = json.loads((folder / "run.json").read_text())
    assert saved["argv"][0] == sys.executable and saved["env_delta"]["PYTHONUNBUFFERED"] == "1"
    assert (folder / "stdout.log").read_text().startswith("working")
    checks = {c.id: c for c in record.checks}
    # the fake GPU draws 300 W idle and busy alike: power did not rise, and the check says so
    assert checks["load_above_idle"].status == "fail" and "idle_power_w=300" in checks["load_above_idle"].detail
    assert checks["energy_from_the_counter"].status == "pass"
    assert checks["near_the_datasheet"].status == "pass" and "nominal_tflops=989" in checks["near_the_datasheet"].detail
    assert record.measurements["work_per_joule"] == pytest.approx(1e15 / record.measurements["energy_j"])
    assert saved["grade"] == "failed" and "load_above_idle" in saved["grade_reason"]
    assert saved["device"]["ran_on"] == {"device": "cuda", "size": "full"} and saved["device"]["used_gpus"] == [0]
    # the console's live sampler: the run's span of it is saved as telemetry.csv, on the system clock
    from aiperf_lab.metrics.telemetry.recording import read_recording
    recording = read_recording(folder / "telemetry.csv")
    assert abs(recording.utc_origin_ns - sampler.utc_origin_ns) <= 50_000  # t_s is written to 0.1 ms
    assert recording.duration_s >= 0.3


def test_cancel_stops_the_workload(monkeypatch, tmp_path):
    import threading
    monkeypatch.setattr(runner, "build_argv", lambda *a, **k: [sys.executable, "-c", "import time; time.sleep(60)"])
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    sampler = Sampler(10, source=NvmlSource.open(FakeNvml([], init_error=12))).start()
    try:
        record = runner.run_exercise("01-ex03", runs_dir=tmp_path, sampler=sampler, cancel=cancel)
    finally:
        sampler.close()
    assert record.cancelled and record.exit_code != 0 and record.seconds < 20
    assert all(c.status == "skipped" for c in record.checks)


def labs_cli(*args):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.labs", *args], capture_output=True, text=True, cwd=REPO)


def test_nvtx_ranges_become_measurements_checks_can_read():
    from aiperf_lab.metrics.tables import Table

    from aiperf_lab.metrics.nsys.reports import SUM_COLUMNS

    table = Table("nvtx_sum", "", [*SUM_COLUMNS, "Style", "Range"], [[33.7, 286807681, 7, 40972525.9, 2453622.0, 1, 2, 3.0, "PushPop", ":forward"],
                                        [0.3, 2889049, 1, 2889049.0, 2889049.0, 1, 2, 0.0, "PushPop", "cuBLAS:cublasCreate_v2"]])
    from aiperf_lab.labs.analyses import derive

    derived = derive({table.name: table}, {})
    assert derived["nvtx_forward_med_ms"] == 2.454 and derived["nvtx_forward_avg_ms"] == 40.973
    assert "nvtx_cuBLAS_cublasCreate_v2_med_ms" in derived


def test_cli_list_show_and_bad_names():
    assert json.loads(labs_cli("list", "--json").stdout) == list_labs()
    assert labs_cli("show", "01-ex03").stdout.startswith("# 01-ex03")
    bad = labs_cli("run", "99-nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no exercise '99-nope'" in bad.stderr
    assert "python -m aiperf_lab.labs list shows them" in bad.stderr
    vague = labs_cli("show", "01")
    assert vague.returncode == 2 and vague.stderr.count("\n") == 1
    assert "'01' is ambiguous: 01-ex01-timeline-basics, 01-ex02-kernel-overlap" in vague.stderr
    assert "02-ex01" not in vague.stderr     # only the ones it could mean


def test_without_a_gpu_a_full_size_run_exits_2_with_one_line(tmp_path):
    done = labs_cli("run", "04-ex01", "--runs-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    if runner.missing_pytorch():   # said before the run: no run folder, no "failed" run in the history
        assert "the workloads need PyTorch, and this Python has none: pip install 'aiperf-lab[labs]'" in done.stderr
        assert not any(tmp_path.iterdir())
        return
    assert "could not run here" in done.stderr
    log = next(tmp_path.glob("*/stdout.log")).read_text()
    assert "needs" in log and "Traceback" not in log


def test_without_pytorch_a_run_does_not_start_and_leaves_no_failed_run(monkeypatch, tmp_path):
    """Every workload imports PyTorch: without it the run is refused before anything is written, rather
    than started, exiting 2 and kept in the history as a "failed" run of the exercise."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(InputError, match=r"^the workloads need PyTorch, and this Python has none: "
                                         r"pip install 'aiperf-lab\[labs\]'"):
        runner.run_exercise("01-ex01", size="tiny", runs_dir=tmp_path)
    assert not any(tmp_path.iterdir())
    # a missing profiler is said first: it is what the user asked for
    monkeypatch.setattr(runner.shutil, "which", lambda tool: None)
    with pytest.raises(InputError, match="needs Nsight Systems' `nsys` on the PATH"):
        runner.run_exercise("01-ex01", profile="nsys", size="tiny", runs_dir=tmp_path)


@pytest.mark.parametrize("exercise, variant", [("04-ex01", "fp32"), ("01-ex03", "baseline"), ("01-ex03", "optimized"),
                                               ("04-ex02", "sweep"), ("07-ex01", "forward"), ("07-ex01", "train"),
                                               ("04-ex03", "stall"), ("04-ex03", "overlap")])
def test_tiny_workloads_run_on_the_cpu(exercise, variant, tmp_path):
    pytest.importorskip("torch")
    done = labs_cli("run", exercise, "--variant", variant, "--size", "tiny", "--runs-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(next(tmp_path.glob("*/run.json")).read_text())
    assert record["exit_code"] == 0 and record["measurements"]["run_seconds"] > 0
    produced = set(record["measurements"])
    assert produced & {"tflops", "pinned_h2d_gb_s", "fp32_64_tflops", "python_forward_ms"}
    # a CPU run at the tiny size grades nothing, and says why
    assert record["grade"] == "not graded" and "the workload ran on the CPU" in record["grade_reason"]
    assert record["device"]["ran_on"] == {"device": "cpu", "size": "tiny"}


def console_cli(*args):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", *args], capture_output=True, text=True,
                          cwd=REPO)


def test_console_list_labs_prints_the_catalog_and_nothing_else():
    done = console_cli("--list-labs")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout) == list_labs()


def test_console_without_a_terminal_says_what_exists_in_one_line():
    for args in ((), ("--no-such-flag",)):
        done = console_cli(*args)
        assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
        assert done.stderr.startswith("aiperf-console: ")


def test_compare_shows_floats_rounded_not_their_binary_noise():
    from aiperf_lab.labs.history import _delta, _shown

    assert _shown(887.7769999999999) == 887.777 and _shown(107.87678727006576) == 107.877 and _shown(12) == 12
    assert _delta(887.7769999999999, 849.2330000000001) == [-38.544, 0.957]
