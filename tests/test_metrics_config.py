"""Metric sets from the manifest, the merge rules, and command lines that are always bounded."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

from aiperf_lab.metrics import config
from aiperf_lab.metrics.config import (BASE_NCU_METRICS, BASE_NSYS_TRACE_MODULES, CHAPTER_OVERRIDES, merge,
                                       ncu_argv, ncu_metric_ids, nsys_profile_argv, resolve)


def test_every_chapter_of_the_manifest_is_there():
    assert list(CHAPTER_OVERRIDES) == [f"ch{i}" for i in range(1, 21)]
    assert set(config.PRESETS) == {"minimal", "roofline", "deep_dive"}


def test_manifest_entries():
    assert "shared_load_sectors" in CHAPTER_OVERRIDES["ch7"].ncu_metrics
    assert CHAPTER_OVERRIDES["ch9"].ncu_set == "full"
    assert CHAPTER_OVERRIDES["ch12"].gpu_metrics and CHAPTER_OVERRIDES["ch18"].gpu_metrics
    assert resolve("ch5").nsys_trace == ["cuda", "nvtx", "osrt", "cublas", "cudnn", "nvlink"]


def test_merge_keeps_first_order_and_drops_repeats():
    assert merge(["a", "b"], ["b", "c", "a"], ["d"]) == ["a", "b", "c", "d"]


def test_resolution_order_base_preset_chapter_user():
    profile = resolve("ch7", "roofline", add_ncu=["my__metric.sum"], remove_ncu=["launch__registers_per_thread"])
    assert profile.ncu_metrics[:len(BASE_NCU_METRICS) - 1] == BASE_NCU_METRICS[:-1]
    assert profile.ncu_metrics.index("flop_count_sp") < profile.ncu_metrics.index("shared_load_sectors")
    assert profile.ncu_metrics[-1] == "my__metric.sum"
    assert "launch__registers_per_thread" not in profile.ncu_metrics
    assert len(profile.ncu_metrics) == len(set(profile.ncu_metrics))
    assert profile.sources == ["base", "preset:roofline", "chapter:ch7", "user"]


def test_user_removal_wins_over_chapter_and_explicit_set_wins_over_preset():
    assert "sm__throughput.avg.pct_of_peak_sustained_elapsed" not in resolve(
        "ch4", remove_ncu=["sm__throughput.avg.pct_of_peak_sustained_elapsed"]).ncu_metrics
    assert resolve("ch9", "deep_dive", ncu_set="detailed").ncu_set == "detailed"
    assert resolve(None, "deep_dive").ncu_set == "full"


def test_unknown_names_are_errors():
    with pytest.raises(ValueError, match="unknown chapter 'ch21'"):
        resolve("ch21")
    with pytest.raises(ValueError, match="unknown preset"):
        resolve(None, "fastest")


def test_nvprof_names_become_ncu_ids():
    ids = ncu_metric_ids(["flop_count_sp", "shared_load_sectors", "gpu__time_duration.sum"])
    assert "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" in ids
    assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" in ids
    assert "flop_count_sp" not in ids


def test_ncu_is_always_bounded():
    full = ncu_argv(["python", "train.py"], "out", resolve(None, "deep_dive"))
    assert full[full.index("--launch-count") + 1] == "3" and "--set" in full
    plain = ncu_argv(["python", "train.py"], "out", resolve())
    assert plain[plain.index("--launch-count") + 1] == "10"
    assert plain[-2:] == ["python", "train.py"]
    assert plain[plain.index("--clock-control") + 1] == "none"
    scoped = ncu_argv(["./app"], "out", resolve(), kernel_regex="gemm", launch_skip=20, launch_count=4,
                      nvtx_include=["forward/"])
    assert scoped[scoped.index("--kernel-name") + 1] == "regex:gemm"
    assert scoped[scoped.index("--launch-skip") + 1] == "20"
    assert scoped[scoped.index("--nvtx-include") + 1] == "forward/"
    with pytest.raises(ValueError):
        ncu_argv(["./app"], "out", resolve(), launch_count=0)


def test_nsys_argv_turns_nvlink_into_gpu_metrics():
    argv = nsys_profile_argv(["python", "x.py", "--flag"], "run", resolve("ch5"))
    assert argv[:2] == ["nsys", "profile"]
    assert argv[argv.index("--trace") + 1] == ",".join(BASE_NSYS_TRACE_MODULES)
    assert argv[argv.index("--gpu-metrics-devices") + 1] == "all"
    assert argv[-3:] == ["python", "x.py", "--flag"]


def _run_module(*args):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.config", *args],
                          capture_output=True, text=True, cwd=REPO)


def test_module_prints_the_lists_for_scripts():
    done = _run_module("ncu-metrics", "--chapter", "ch4")
    assert done.returncode == 0
    assert done.stdout.strip().split(",")[:len(BASE_NCU_METRICS)] == BASE_NCU_METRICS
    assert _run_module("nsys-trace").stdout.strip() == "cuda,nvtx,osrt,cublas,cudnn"
    bad = _run_module("ncu-metrics", "--chapter", "ch99")
    assert bad.returncode == 2 and "unknown chapter" in bad.stderr


@pytest.fixture
def fake_tools(tmp_path):
    """nsys and ncu stand-ins that print the argv they were given, one item per line."""
    for tool in ("nsys", "ncu"):
        script = tmp_path / tool
        script.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n")
        script.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}", PYTHON=sys.executable)
    return env


def test_shell_wrappers_take_their_lists_from_the_config(fake_tools):
    done = subprocess.run(["bash", "scripts/ncu_profile.sh", "--chapter", "ch9", "--kernel-regex", "gemm",
                           "--output", "rep", "--", "python", "my app.py"], capture_output=True, text=True,
                          cwd=REPO, env=fake_tools)
    assert done.returncode == 0, done.stderr
    argv = done.stdout.splitlines()
    expected = ncu_argv(["python", "my app.py"], "rep", resolve("ch9"), kernel_regex="gemm")[1:]
    assert argv == expected
    done = subprocess.run(["bash", "scripts/nsys_profile.sh", "--preset", "deep_dive", "--", "./app", "-n", "3"],
                          capture_output=True, text=True, cwd=REPO, env=fake_tools)
    assert done.stdout.splitlines() == nsys_profile_argv(["./app", "-n", "3"], "nsys_profile",
                                                         resolve(None, "deep_dive"))[1:]


def test_shell_wrappers_refuse_bad_use(fake_tools):
    done = subprocess.run(["bash", "scripts/ncu_profile.sh", "--bogus"], capture_output=True, text=True,
                          cwd=REPO, env=fake_tools)
    assert done.returncode == 2 and "unknown option" in done.stderr
    done = subprocess.run(["bash", "scripts/nsys_profile.sh", "--"], capture_output=True, text=True,
                          cwd=REPO, env=fake_tools)
    assert done.returncode == 2 and "no command" in done.stderr


def test_a_reader_that_goes_away_early_is_not_a_traceback():
    """`python -m aiperf_lab.metrics.config ncu-metrics --chapter ch7 | head -c 20`, as a newcomer pipes
    the README's command, ended in a BrokenPipeError traceback."""
    reader = subprocess.Popen([sys.executable, "-m", "aiperf_lab.metrics.config", "ncu-metrics", "--chapter", "ch7"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    reader.stdout.close()                                  # the reader is gone before a byte is read
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 0 and err == "", err
