"""Session 22: the console and compare tell the truth without a GPU and with one.

- The Labs footer offered `n nsys` where nsys is not installed (the Run screen then said it is needed), and
  `r` where PyTorch is not importable (every workload imports it). What this machine lacks is asked of the
  runner (labs.runner.cannot_start_here, ctx.cannot_start) by the one function the footer and the keys ask
  (LabsScreen._why_not_run): such a key is shown dimmed, pressed it says why, and the exercise's pane says it.
- The Monitor's caption said "scale 0-limit W" with no GPU charted: it now says no GPU is charted and why.
- `aiperf-triage compare A B` did not compare the workloads, and printed 28 rows of `-` when neither bundle
  had a GPU: it compares the command, how the workload ended, its seconds, the output kept and the nsys
  trace; a field no bundle holds is no row, said once under the table.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets._footer import FooterKey  # noqa: E402

from conftest import REPO  # noqa: E402
from test_console_session19 import _cursor_on  # noqa: E402
from test_console_session20 import _footer  # noqa: E402
from test_console_truth import GradedRunner, make_app  # noqa: E402

NSYS_MISSING = "profiling with nsys needs Nsight Systems' `nsys` on the PATH"
TORCH_MISSING = "the workloads need PyTorch, and this Python has none: pip install 'aiperf-lab[labs]'"


def _labs(tmp_path, wanted, cannot_start, keys=(), gpu_here=False):
    """The Labs screen at 80x24 with the cursor on the first exercise `wanted` picks, on a machine that lacks
    what `cannot_start(profile)` says: (exercise, footer's run keys, toasts, the pane's text, run started)."""
    async def scenario():
        app = make_app(tmp_path, GradedRunner(), gpus=2 if gpu_here else 0, gpu_here=gpu_here)
        app.ctx.cannot_start = cannot_start
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            exercise = await _cursor_on(app, pilot, wanted)
            await pilot.pause(0.2)
            footer = _footer(app)
            pane = str(app.screen.query_one("#selection").render())
            for key in keys:
                await pilot.press(key)
                await pilot.pause(0.3)
            return exercise, footer, [str(n.message) for n in app._notifications], pane, app.ctx.run

    return asyncio.run(scenario())


def _no_nsys(profile):
    return NSYS_MISSING if profile == "nsys" else None


def test_no_nsys_here_shows_n_dimmed_and_pressed_says_why(tmp_path):
    exercise, footer, toasts, pane, run = _labs(
        tmp_path, lambda e: e.cpu_size and set(e.profile) == {"nsys"}, _no_nsys, keys=("n",))
    assert footer == {"r": True, "n": False}, footer      # main: {"r": True, "n": True}
    assert toasts == [NSYS_MISSING] and run is None, toasts
    assert f"Not here: {NSYS_MISSING}." in pane, pane


def test_no_nsys_here_with_a_gpu_keeps_the_other_profilers(tmp_path):
    _, footer, _, _, _ = _labs(tmp_path, lambda e: set(e.profile) == {"nsys", "ncu"},
                               _no_nsys, gpu_here=True)
    assert footer == {"r": True, "n": False, "c": True}, footer


def test_no_pytorch_here_shows_every_run_key_dimmed(tmp_path):
    exercise, footer, toasts, pane, run = _labs(
        tmp_path, lambda e: e.cpu_size and "torch" in e.profile, lambda profile: TORCH_MISSING, keys=("r", "t"))
    assert set(footer) == {"r", *({"nsys": "n", "ncu": "c", "torch": "t"}[p] for p in exercise.profile)}, footer
    assert not any(footer.values()), footer               # main: every one enabled
    assert toasts == [TORCH_MISSING, TORCH_MISSING] and run is None, toasts
    assert pane.count("Not here:") == 1 and "PyTorch" in pane, pane


def test_a_gpu_only_exercise_without_a_gpu_still_leaves_the_profilers_out(tmp_path):
    # a guard: the exercise's own reason (no GPU) comes first, and n/c/t stay out of the footer as before
    _, footer, toasts, pane, _ = _labs(tmp_path, lambda e: not e.cpu_size and "ncu" in e.profile,
                                       lambda profile: TORCH_MISSING, keys=("r",))
    assert footer == {"r": False}, footer
    assert len(toasts) == 1 and "needs a CUDA GPU" in toasts[0], toasts
    assert "Not here:" not in pane, pane


def test_the_run_screen_says_no_run_can_start_here(tmp_path):
    from textual.widgets import Static

    async def scenario(cannot_start):
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        app.ctx.cannot_start = cannot_start
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            await pilot.pause(0.3)
            return str(app.screen.query_one("#run-header", Static).render())

    header = asyncio.run(scenario(lambda profile: TORCH_MISSING))
    assert header.startswith("No run yet, and none can start here: the workloads need PyTorch"), header
    # "press r, n, c or t" named keys that cannot start here; with everything here, r is named
    assert "r, n, c or t" not in asyncio.run(scenario(lambda profile: None))


def test_cannot_start_here_names_the_missing_tool_then_pytorch(monkeypatch):
    from aiperf_lab.labs import runner

    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    monkeypatch.setattr(runner, "missing_pytorch", lambda: None)
    assert runner.cannot_start_here("nsys") == NSYS_MISSING
    assert "Nsight Compute" in runner.cannot_start_here("ncu")
    assert runner.cannot_start_here("none") is None and runner.cannot_start_here("torch") is None
    monkeypatch.setattr(runner, "missing_pytorch", lambda: "no torch")
    assert runner.cannot_start_here("torch") == "no torch" and runner.cannot_start_here("none") == "no torch"
    monkeypatch.setattr(runner.shutil, "which", lambda name: f"/opt/bin/{name}")
    assert runner.cannot_start_here("nsys") == "no torch"


def test_the_console_asks_the_labs_runner_what_is_missing(tmp_path):
    from aiperf_lab.console.cli import build_parser, make_context
    from aiperf_lab.labs.runner import cannot_start_here

    ctx = make_context(build_parser().parse_args(
        ["--replay", str(REPO / "tests/data/h200/nvidia-smi-query-gpu-lms100.csv"), "--runs-dir", str(tmp_path)]))
    try:
        assert ctx.cannot_start is cannot_start_here
    finally:
        ctx.feed.close()


# --- the Monitor's caption without a GPU -------------------------------------------------------------------------

def _legend(app) -> str:
    from aiperf_lab.console.widgets import TextBlock

    async def scenario():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.5)
            return app.screen.query_one("#feed-status", TextBlock).plain

    return asyncio.run(scenario())


@pytest.mark.parametrize("status", ["no NVIDIA driver", "no NVIDIA driver: NVML Shared Library Not Found"])
def test_the_monitor_without_a_gpu_says_none_is_charted_and_why(tmp_path, status):
    app = make_app(tmp_path, gpus=0, gpu_here=False)
    app.ctx.feed.status = status
    legend = _legend(app)
    assert legend.startswith("no GPU charted: no NVIDIA driver; cpu chart:"), legend   # main: "... scale 0-limit W"
    assert " W" not in legend and "scale" not in legend and len(legend) <= 78, legend


def test_the_monitor_with_a_gpu_keeps_its_scale(tmp_path):
    # a guard: with GPUs charted the caption is as it was
    assert "scale 0-limit W, 0-100%" in _legend(make_app(tmp_path))


# --- compare: the workloads, and what neither bundle holds -------------------------------------------------------

NO_DRIVER = "no NVIDIA driver: NVML Shared Library Not Found"


def _bundle(path: Path, start: str, workload: dict | None, hardware: dict | None = None,
            extra: dict[str, bytes] | None = None) -> Path:
    """A bundle as aiperf-triage writes it on a machine without a GPU (the members compare reads)."""
    collectors = [{"name": name, "status": "ok"} for name in ("telemetry", "hardware")]
    if workload is not None:
        collectors.append({"name": "workload", "status": "ok"})
    members = {"manifest.json": {"tool": "aiperf-triage", "schema_version": 1, "host": "vm", "start_utc": start,
                                 "collectors": collectors},
               "hardware_capabilities.json": hardware or {"nvml": {"status": NO_DRIVER, "gpus": []}},
               "telemetry_summary.json": {"devices": []}, "findings.json": []}
    if workload is not None:
        members["workload/workload.json"] = workload
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in [*((n, json.dumps(d).encode()) for n, d in members.items()), *(extra or {}).items()]:
            info = tarfile.TarInfo(f"aiperf-triage-vm/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


def _workload(command, exit_code, seconds, stdout=2, stderr=0, **more):
    logs = {"stdout.log": {"kept_bytes": stdout, "left_out_bytes": 0},
            "stderr.log": {"kept_bytes": stderr, "left_out_bytes": 0}}
    return {"command": command, "exit_code": exit_code, "seconds": seconds, "stopped_by": None,
            "signals_sent": [], "under_nsys": False, "error": None, "logs": logs, **more}


def _rows(paths, absent=None) -> dict[str, list[str]]:
    from aiperf_lab.triage import archive

    _labels, rows, _odd = archive.compare(paths, absent=absent) if absent is not None else archive.compare(paths)
    return {row[0]: row[1:] for row in rows}


def test_compare_sets_the_workloads_side_by_side(tmp_path):
    first = _bundle(tmp_path / "a.tar.gz", "2026-11-24T22:39:13", _workload(["python3", "-c", "print(1)"], 0, 0.322))
    second = _bundle(tmp_path / "b.tar.gz", "2026-11-24T22:39:20",
                     _workload(["sh", "-c", "echo hi; exit 3"], 3, 0.005, stdout=3, stderr=40))
    rows = _rows([first, second])
    assert rows["command"] == ["python3 -c 'print(1)'", "sh -c 'echo hi; exit 3'"], rows   # main: no such row
    assert rows["workload ended"] == ["exit code 0", "exit code 3"]
    assert rows["workload seconds"] == ["0.322", "0.005"]
    assert rows["workload output (bytes)"] == ["2", "43"]
    assert rows["nsys trace"] == ["none (ran without nsys)"] * 2


def test_compare_says_how_a_workload_ended_and_what_trace_was_kept(tmp_path):
    stopped = _workload(["python3", "train.py"], -2, 3.149, stopped_by="duration", signals_sent=["SIGINT"],
                        under_nsys=True)
    failed = dict(_workload(["nope"], None, 0.0), error="cannot run 'nope'")
    paths = [_bundle(tmp_path / "a.tar.gz", "2026-11-24T01:00:00", stopped,
                     extra={"nsys/workload.nsys-rep": b"x", "nsys/workload.sqlite": b"x"}),
             _bundle(tmp_path / "b.tar.gz", "2026-11-24T02:00:00", dict(stopped, stopped_by=None),
                     extra={"nsys/workload.sqlite": b"x"}),
             _bundle(tmp_path / "c.tar.gz", "2026-11-24T03:00:00", failed),
             _bundle(tmp_path / "d.tar.gz", "2026-11-24T04:00:00", None)]
    rows = _rows(paths)
    assert rows["workload ended"] == ["ended by SIGINT, stopped at the end of the duration", "ended by SIGINT",
                                      "did not run: cannot run 'nope'", "none (telemetry only)"], rows
    assert rows["nsys trace"] == ["report and SQLite export", "SQLite export only (report left out)",
                                  "none (the workload did not start)", "none (telemetry only)"]   # (session 23: it never ran)
    assert rows["command"][3] == "none (telemetry only)"


def test_compare_without_a_gpu_in_either_says_once_what_neither_holds(tmp_path):
    paths = [_bundle(tmp_path / f"{k}.tar.gz", f"2026-11-24T22:39:1{k}", _workload(["true"], 0, 0.1)) for k in (1, 2)]
    absent: list[str] = []
    rows = _rows(paths, absent.append)
    assert not [name for name, values in rows.items() if set(values) == {"-"}], rows   # main: 28 rows of "-"
    assert {"GPU count", "findings", "command"} <= set(rows) and "driver" not in rows, rows
    assert rows["findings"] == ["none (no GPU to judge)"] * 2
    assert absent == ["neither bundle holds: GPU hardware; GPU topology; bench (--bench); GPU telemetry "
                      f"(no GPU in either: {NO_DRIVER})"], absent


def test_compare_keeps_the_gpu_rows_where_one_bundle_has_a_gpu(tmp_path):
    # a guard: the real H200 bundle beside a GPU-less one keeps every GPU row, "-" on the GPU-less side
    fixture = REPO / "tests" / "data" / "triage" / "h200-fixture.tar.gz"
    absent: list[str] = []
    rows = _rows([_bundle(tmp_path / "a.tar.gz", "2026-11-24T22:39:13", _workload(["true"], 0, 0.1)), fixture],
                 absent.append)
    assert rows["driver"][0] == "-" and rows["driver"][1].startswith("580")
    assert rows["GPU model"] == ["-", "NVIDIA H200"] and rows["mean power (W)"][0] == "-"
    assert rows["command"][1] == "python3 benchmarks/triage_workload.py --seconds 4"
    assert absent and "GPU hardware" not in absent[0] and "NCCL" in absent[0], absent


def test_compare_at_80_columns_without_a_gpu_fits_and_has_no_dash_rows(tmp_path):
    paths = [_bundle(tmp_path / f"{k}.tar.gz", f"2026-11-24T22:39:1{k}", _workload(["true"], k, 0.1)) for k in (1, 2)]
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "compare", *map(str, paths)],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, "COLUMNS": "80"}, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 80, done.stdout
    assert len(lines) < 20 and not any(line.split()[1:] == ["-", "-"] for line in lines if line), done.stdout
    assert lines[-2].startswith("neither bundle holds: GPU hardware;"), done.stdout


def test_the_answers_toast_says_r_runs_it_only_where_r_can_start(tmp_path):
    """a on a [cpu] exercise with no finished run said "... r runs it." where PyTorch is missing (r then said
    "Run did not start: the workloads need PyTorch")."""
    from aiperf_lab.labs.catalog import find_exercise

    async def scenario(cannot_start):
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        app.ctx.cannot_start = cannot_start
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            app.screen.select(find_exercise("01-ex01"))
            await pilot.pause(0.1)
            await pilot.press("a")
            await pilot.pause(0.2)
            return [str(n.message) for n in app._notifications if "answers come after" in str(n.message)]

    said = asyncio.run(scenario(lambda profile: TORCH_MISSING))
    assert said and "r runs it" not in said[-1] and f"It cannot run here: {TORCH_MISSING}" in said[-1], said
    assert "r runs it" in asyncio.run(scenario(lambda profile: None))[-1]   # a guard: all here


def test_the_triage_bench_is_dimmed_without_a_gpu(tmp_path):
    """k on Triage read "bench ON: copy and matmul probes" on a machine without a GPU; the bundle then said
    "bench: asked, but it did not run"."""
    from textual.widgets import Checkbox

    from aiperf_lab.console.screens.triage import NO_BENCH

    async def scenario(gpu_here):
        app = make_app(tmp_path, gpus=2 if gpu_here else 0, gpu_here=gpu_here)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause(0.3)
            footer = {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey) if key.key == "k"}
            await pilot.press("k")
            await pilot.pause(0.3)
            return footer, app.screen.query_one("#triage-bench", Checkbox).value, [str(n.message) for n in
                                                                                    app._notifications]

    footer, on, toasts = asyncio.run(scenario(False))
    assert footer == {"k": False} and not on and toasts == [NO_BENCH], (footer, on, toasts)
    assert asyncio.run(scenario(True))[:2] == ({"k": True}, True)   # a guard: with a GPU, k turns it on


def test_the_monitor_of_a_recording_without_a_gpu_says_so_in_80_columns(tmp_path):
    """--replay of a triage bundle's telemetry.csv from a machine without a GPU (host columns only)."""
    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.cli import build_parser, make_context

    recording = tmp_path / "telemetry.csv"
    header = ("t_s,gpu,power_w,power_source,power_avg_w,power_limit_w,energy_j,energy_source,util_gpu_pct,"
              "util_mem_pct,mem_used_bytes,mem_total_bytes,temp_c,sm_clock_mhz,mem_clock_mhz,clock_event_reasons,"
              "clock_event_names,pcie_gen,pcie_width,pcie_gen_max,pcie_width_max,lost,cpu_pct,host_mem_used_bytes,"
              "host_mem_total_bytes")
    rows = [f"{t / 10:.1f},,,,,,,,,,,,,,,,,,,,,,{50 + t % 7},{1 << 30},{8 << 30}" for t in range(40)]
    recording.write_text("\n".join([header, *rows]) + "\n")
    ctx = make_context(build_parser().parse_args(["--replay", str(recording), "--runs-dir", str(tmp_path / "runs")]))
    try:
        assert not ctx.feed.devices
        legend = _legend(LabConsole(ctx))
    finally:
        ctx.feed.close()
    assert legend.startswith("no GPU charted: none in the recording; cpu chart:"), legend   # main: scale 0-limit W
    assert legend.endswith("0-100%") and len(legend) <= 78, legend


def test_history_with_no_runs_says_none_can_start_where_none_can(tmp_path):
    """m/c on an empty History said "run an exercise (Labs, 1) first" where no run can start (no PyTorch)."""
    async def scenario(cannot_start):
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        app.ctx.cannot_start = cannot_start
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            await pilot.pause(0.3)
            await pilot.press("m")
            await pilot.pause(0.3)
            return [str(n.message) for n in app._notifications if "no runs yet" in str(n.message)]

    said = asyncio.run(scenario(lambda profile: TORCH_MISSING))
    assert said and "none can start here" in said[-1] and "run an exercise" not in said[-1], said
    assert "run an exercise (Labs, 1) first" in asyncio.run(scenario(lambda profile: None))[-1]   # a guard


def test_a_bundle_without_a_gpu_does_not_say_driver_unknown_cuda_unknown(tmp_path):
    """summary.md (and so `show`) said "- driver unknown, CUDA unknown" a line under "- GPUs: no NVIDIA driver"."""
    from aiperf_lab.triage.report import summary_markdown
    from aiperf_lab.triage.facts import TriageFacts

    facts = TriageFacts()
    facts.hardware.nvml = {"status": NO_DRIVER, "gpus": []}
    meta = {"host": "vm", "start_utc": "a", "end_utc": "b", "duration_s": 3.0, "command": ["true"]}
    text = summary_markdown(meta, [], facts)
    assert f"- GPUs: {NO_DRIVER}" in text and "- driver " not in text, text
    facts.hardware.nvml = {"status": "ok", "driver_version": "580.159.04", "cuda_driver_version": "13.0"}
    assert "- driver 580.159.04, CUDA 13.0" in summary_markdown(meta, [], facts)   # a guard: versions read


@pytest.mark.parametrize("workload", [
    {"command": "python3 x.py", "exit_code": "3", "stopped_by": ["duration"], "logs": [1, 2], "nsys": 5},
    {"command": [1, None], "exit_code": True, "stopped_by": {"a": 1}, "error": {"x": 1},
     "logs": {"stdout.log": {"kept_bytes": "2"}, "stderr.log": 7}, "under_nsys": "yes", "seconds": [1]},
    {"command": ["a\x1b]52;c;ZXZpbA==\x07b"], "exit_code": -9, "error": "\x1b[2Jgone", "nsys": {"error": "\x1b[2J"}},
    [1, 2, 3],
])
def test_compare_reads_a_wrong_typed_workload_json_as_unknown(tmp_path, workload):
    # crafted bundles (issue 11 item 11): every value shown as a value or "-", never an exception or an escape
    paths = [_bundle(tmp_path / "a.tar.gz", "2026-11-24T01:00:00", workload),
             _bundle(tmp_path / "b.tar.gz", "2026-11-24T02:00:00", _workload(["true"], 0, 0.1))]
    rows = _rows(paths)
    assert {"command", "workload ended", "nsys trace"} <= set(rows), rows
    assert not any("\x1b" in cell for values in rows.values() for cell in values), rows
