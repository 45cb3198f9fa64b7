"""What `aiperf-console` says about its recordings is true: the GPU the demo recording was taken on
(from the recording's own header), the row and the limit a bad time breaks, and what a file that is
no recording at all (a triage bundle, a binary) is."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from conftest import REPO

from aiperf_lab.console.cli import build_parser, make_context
from aiperf_lab.metrics.telemetry import recording

STALL = REPO / "tests/data/h100/energy_04ex03_stall_telemetry.csv"
BUNDLE = REPO / "tests/data/triage/h200-fixture.tar.gz"


def _console(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", *args], capture_output=True, text=True,
                          cwd=REPO, stdin=subprocess.DEVNULL, timeout=60)


def _demo_gpu() -> str:
    first = recording.demo_recording().read_text(encoding="utf-8").split("\n", 1)[0]
    return json.loads(first.removeprefix(recording.META_PREFIX))["devices"][0]["name"]


def test_help_and_the_no_driver_banner_name_the_demo_recordings_gpu(tmp_path):
    gpu = _demo_gpu()
    assert gpu == "NVIDIA H100 80GB HBM3"          # the shipped GPM recording's own header
    assert recording.demo_gpu_name() == gpu
    shown = " ".join(build_parser().format_help().split())
    assert f"a real {gpu} recording" in shown and "H200 recording" not in shown
    live = make_context(build_parser().parse_args(["--runs-dir", str(tmp_path)]))
    try:
        if not live.feed.devices:                   # this machine: no NVIDIA driver
            assert f"replays a real {gpu} recording" in live.notice and "H200" not in live.notice
    finally:
        live.feed.close()


def _with_time(tmp_path, data_row: int, cell: str):
    lines = STALL.read_text(encoding="utf-8").split("\n")
    first = 2 if lines[0].startswith("#") else 1    # past the metadata line and the header
    cells = lines[first + data_row - 1].split(",")
    cells[0] = cell
    lines[first + data_row - 1] = ",".join(cells)
    path = tmp_path / f"t_{cell}.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("cell, words", [
    ("-1", "sample 49 has the time -1 s: times must not be negative"),
    ("nan", "sample 49 has the time 'nan': not a finite number"),
    ("2e9", "sample 49 has the time 2e9 s: past the 1e9 s (31 years) a recording can reach"),
])
def test_a_bad_time_names_its_row_and_the_rule_it_breaks(tmp_path, cell, words):
    done = _console("--replay", str(_with_time(tmp_path, 49, cell)))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert words in done.stderr, done.stderr


def test_a_triage_bundle_is_named_with_what_to_replay_instead():
    done = _console("--replay", str(BUNDLE))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "\\x" not in done.stderr and "\ufffd" not in done.stderr
    assert "aiperf-triage bundle" in done.stderr and "telemetry.csv" in done.stderr and "tar xzf" in done.stderr


@pytest.mark.parametrize("content, kind", [
    (gzip.compress(b"t_s,gpu,power_w\n0,0,1\n"), "gzip"),
    (b"SQLite format 3\x00" + bytes(200), "SQLite"),
    (bytes(range(256)) * 4, "binary"),
], ids=["gzip", "sqlite", "binary"])
def test_other_binary_input_is_one_plain_line(tmp_path, content, kind):
    path = tmp_path / "x.bin"
    path.write_bytes(content)
    done = _console("--replay", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert kind in done.stderr and "\\x" not in done.stderr and "\ufffd" not in done.stderr, done.stderr


@pytest.mark.parametrize("name, words", [
    ("h200/torch_encoder_layer.pt.trace.json", "JSON, not a telemetry recording: if it is a PyTorch profiler "
                                               "trace, aiperf-stats reads it"),
    ("h200/ncu_full_details.csv", "an Nsight Compute CSV, not a telemetry recording: aiperf-stats reads it"),
    ("h200/ncu_raw_metrics.csv", "an Nsight Compute CSV, not a telemetry recording: aiperf-stats reads it"),
    ("h200/nsys_stats_lm_forward_cuda_api_sum.csv", "not a telemetry recording: its first line is no header of one"),
])
def test_a_profile_given_to_replay_is_named_with_what_reads_it(name, words):
    """The real PyTorch trace was "not a telemetry recording (unknown columns: ...)", naming nothing (its
    first line is blank); a profile aiperf-stats reads is said to be one."""
    done = _console("--replay", str(REPO / "tests/data" / name))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["h200/lm_forward.sqlite", "h200/ncu_full_details.csv"])
def test_a_profile_given_to_replay_is_pointed_at_results_where_the_console_opens_it(name):
    """A newcomer with a profile in hand tried --replay; the refusal named aiperf-stats only, though the
    console's Results screen opens the file (o)."""
    done = _console("--replay", str(REPO / "tests/data" / name))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.rstrip().endswith("aiperf-stats reads it, and so does this console: Results (4), o, its path")
