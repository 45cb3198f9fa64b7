"""What session 19 saw in the console at 80x24: `r` on a GPU-only exercise without a GPU said the run needs
PyTorch (with PyTorch installed it would still not run: it needs a CUDA GPU), the title of a bundle opened
with `o` took 6 lines, m/s were offered on the Monitor of an nvidia-smi replay (no process was ever read),
and `--list-labs --replay FILE` listed and exited 0, the replay dropped without a word."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("textual")

from textual.widgets import Input, Static  # noqa: E402

from aiperf_lab.console.app import LabConsole  # noqa: E402
from aiperf_lab.console.context import ConsoleContext  # noqa: E402
from aiperf_lab.console.screens.labs import LabsScreen  # noqa: E402
from aiperf_lab.console.screens.monitor import MonitorScreen  # noqa: E402
from aiperf_lab.labs.catalog import Exercise  # noqa: E402
from aiperf_lab.metrics.telemetry.recording import DEMO_GPM_RECORDING, read_recording  # noqa: E402
from aiperf_lab.metrics.telemetry.replay import ReplayFeed  # noqa: E402
from test_console_truth import GradedRunner, make_app, text_of, toasts, visible_footer_keys, wait_until  # noqa: E402

from conftest import REPO  # noqa: E402

SMI_LOG = REPO / "tests" / "data" / "h200" / "nvidia-smi-query-gpu-lms100.csv"
BUNDLE = REPO / "tests" / "data" / "triage" / "h200-fixture.tar.gz"


async def _cursor_on(app, pilot, wanted) -> Exercise:
    """Down the Labs tree until the cursor is on an exercise `wanted(exercise)` accepts."""
    from textual.widgets import Tree

    tree = app.screen.query_one("#lab-tree", Tree)
    for _step in range(60):
        node = tree.cursor_node
        if node is not None and isinstance(node.data, Exercise) and wanted(node.data):
            return node.data
        await pilot.press("down")
    raise AssertionError("no such exercise in the tree")


def _press_r_on(tmp_path, runner, wanted):
    async def scenario():
        app = make_app(tmp_path, runner, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            exercise = await _cursor_on(app, pilot, wanted)
            await pilot.press("r")
            await pilot.pause(0.5)
            if app.ctx.run is not None:
                await wait_until(pilot, lambda: not app.ctx.run.running)
                await pilot.pause(0.3)
            return exercise, [(n.title, str(n.message)) for n in app._notifications], isinstance(app.screen, LabsScreen)

    return asyncio.run(scenario())


def _gpu_only(exercise: Exercise) -> bool:
    return not exercise.cpu_size and exercise.min_gpus == 1


# --- 1. r on a GPU-only exercise, no GPU here ------------------------------------------------------------------
def test_r_on_a_gpu_only_exercise_without_a_gpu_says_it_needs_a_cuda_gpu_not_pytorch(tmp_path, monkeypatch):
    """This VM has no PyTorch: the toast said 'the workloads need PyTorch ...', though installing it would only
    have led to 'needs an NVIDIA GPU'. The GPU is what it needs; nothing starts and no run folder is made."""
    from aiperf_lab.labs import runner

    monkeypatch.setattr(runner, "missing_pytorch", lambda: "the workloads need PyTorch, and this Python has none")
    exercise, said, on_labs = _press_r_on(tmp_path, runner.run_exercise, _gpu_only)
    assert ("Run did not start", f"{exercise.id} needs a CUDA GPU, and none is visible here: exercises marked [cpu] "
            "run without one (at size tiny)") in said, said
    assert not any("PyTorch" in message for _title, message in said), said
    assert on_labs and not (tmp_path / "runs").exists()


def test_with_pytorch_there_a_gpu_only_exercise_is_not_started_to_fail(tmp_path):
    """With PyTorch installed the workload started and exited 2 ('needs an NVIDIA GPU'): a failed run in
    History for an exercise that could not run here."""
    runner = GradedRunner(exit_code=2)
    exercise, said, on_labs = _press_r_on(tmp_path, runner, _gpu_only)
    assert runner.calls == [] and on_labs
    assert any("needs a CUDA GPU" in message for _title, message in said), said


def test_a_cpu_exercise_still_runs_without_a_gpu(tmp_path):
    runner = GradedRunner()
    exercise, said, _on_labs = _press_r_on(tmp_path, runner, lambda e: e.cpu_size)
    assert [call[0] for call in runner.calls] == [exercise.id]
    assert not any("CUDA GPU" in message for _title, message in said), said


# --- 2. the title of a bundle opened with o -------------------------------------------------------------------
def test_a_bundle_opened_with_o_is_titled_in_3_lines_at_80x24(tmp_path):
    """The title said the bundle's path, then 'telemetry recording: aiperf-stats's overview; the others: ...;
    PATH holds no profile (...): the reports of its telemetry.csv only, telemetry_summary, telemetry_findings':
    6 lines of 24, the path twice and the reports the list beside the table already names."""
    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await pilot.pause(0.3)
            await pilot.press("o")
            await pilot.pause(0.2)
            app.screen.query_one("#results-open", Input).value = str(BUNDLE)
            await pilot.press("enter")
            title = app.screen.query_one("#results-title", Static)
            await wait_until(pilot, lambda: "overview" in text_of(title), timeout=30)
            await pilot.pause(0.3)
            return text_of(title), title.size.height

    text, height = asyncio.run(scenario())
    assert height <= 3, (height, text)
    assert text.split("\n")[0] == str(BUNDLE) and text.count(str(BUNDLE)) == 1, text
    assert "holds no profile" in text and "telemetry.csv" in text and "--report NAME" in text, text


# --- 3. m/s on the Monitor of a replay that read no processes -------------------------------------------------
def _replay_monitor_keys(tmp_path, recording_path, key):
    async def scenario():
        feed = ReplayFeed(read_recording(recording_path), loop=True)
        ctx = ConsoleContext(feed.start(), runs_dir=tmp_path / "runs", runner=GradedRunner(), gpu_here=False)
        app = LabConsole(ctx)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press("2")
                await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
                await pilot.pause(0.3)
                keys = visible_footer_keys(app, 80)
                await pilot.press(key)
                await pilot.pause(0.2)
                return keys, toasts(app)
        finally:
            feed.stop()

    return asyncio.run(scenario())


def test_an_nvidia_smi_replay_offers_no_process_sort(tmp_path):
    """`--replay` of an nvidia-smi query log: its footer offered 'm Processes by memory s Processes by SM
    share', and m answered 'processes sorted by GPU memory' with no process table anywhere."""
    keys, said = _replay_monitor_keys(tmp_path, SMI_LOG, "m")
    assert "m" not in keys and "s" not in keys, keys
    assert not any("sorted" in t for t in said), said


@pytest.mark.skipif(not DEMO_GPM_RECORDING.is_file(), reason="the GPM demo recording is not shipped")
def test_a_replay_that_read_processes_still_sorts_them(tmp_path):
    keys, said = _replay_monitor_keys(tmp_path, DEMO_GPM_RECORDING, "s")
    assert "m" in keys and "s" in keys, keys
    assert any("sorted by SM share" in t for t in said), said


# --- 4. --list-labs with --replay or --demo ---------------------------------------------------------------------
@pytest.mark.parametrize("source", [["--replay", str(SMI_LOG)], ["--replay", str(REPO / "tests/data/h200/lm_forward.sqlite")],
                                    ["--demo"]])
def test_list_labs_with_a_recording_to_play_is_one_line_exit_2(source):
    """`--list-labs --replay X.sqlite` printed the catalog and exited 0: the replay asked for was dropped without
    a word. Listing is for scripts and ends at once; playing needs the screens: one or the other."""
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", "--list-labs", *source],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2 and done.stdout == "", done.stdout[:200]
    assert done.stderr.count("\n") == 1 and "--list-labs" in done.stderr and source[0] in done.stderr, done.stderr


def test_list_labs_alone_still_lists():
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", "--list-labs"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0 and done.stdout.lstrip().startswith("[") and done.stderr == ""
