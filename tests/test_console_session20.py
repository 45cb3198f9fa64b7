"""What session 20 saw in the console at 80x24 without a GPU: the Labs footer offered `r Run` (and n/c/t) on an
exercise that cannot run here (a GPU-only one: pressing r said it needs a CUDA GPU), and n/c/t on exercises
with no recipe for that profiler. The footer now offers what can start: r shown dimmed where the exercise needs
a GPU and none is here, n/c/t left out where there is no recipe (or r cannot start); pressed anyway, the key
still says why."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from textual.widgets._footer import FooterKey  # noqa: E402

from aiperf_lab.console.screens.labs import LabsScreen  # noqa: E402
from test_console_session19 import _cursor_on  # noqa: E402
from test_console_truth import GradedRunner, make_app  # noqa: E402


def _footer(app) -> dict[str, bool]:
    """The run keys the footer shows: key -> enabled (False: shown dimmed)."""
    return {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)
            if key.key in ("r", "n", "c", "t")}


def _footer_and_toasts_on(tmp_path, wanted, gpu_here, keys=()):
    runner = GradedRunner()

    async def scenario():
        app = make_app(tmp_path, runner, gpus=2 if gpu_here else 0, gpu_here=gpu_here)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            exercise = await _cursor_on(app, pilot, wanted)
            await pilot.pause(0.2)
            footer = _footer(app)
            for key in keys:
                await pilot.press(key)
                await pilot.pause(0.3)
            return (exercise, footer, [str(n.message) for n in app._notifications], app.ctx.run,
                    isinstance(app.screen, LabsScreen))

    return asyncio.run(scenario())


def test_no_gpu_a_gpu_only_exercise_shows_run_dimmed_and_no_profiler_key(tmp_path):
    exercise, footer, toasts, run, on_labs = _footer_and_toasts_on(
        tmp_path, lambda e: not e.cpu_size and "ncu" in e.profile, gpu_here=False, keys=("r", "c"))
    assert footer == {"r": False}, footer
    # pressed anyway: both say why, and nothing starts
    assert sum("needs a CUDA GPU" in t for t in toasts) == 2, toasts
    assert run is None and on_labs


def test_no_gpu_a_cpu_exercise_offers_run_and_its_own_profilers_only(tmp_path):
    exercise, footer, toasts, run, _ = _footer_and_toasts_on(
        tmp_path, lambda e: e.cpu_size and set(e.profile) == {"nsys"}, gpu_here=False, keys=("c",))
    assert footer == {"r": True, "n": True}, footer
    assert any(f"{exercise.id} has no ncu recipe" in t for t in toasts), toasts
    assert run is None


def test_with_a_gpu_a_gpu_only_exercise_offers_run(tmp_path):
    # a guard: with a GPU here the same exercise offers r and its profiler
    _, footer, _, _, _ = _footer_and_toasts_on(tmp_path, lambda e: not e.cpu_size and set(e.profile) == {"ncu"},
                                               gpu_here=True)
    assert footer == {"r": True, "c": True}, footer


def test_results_offers_filter_sort_export_only_once_a_table_is_shown(tmp_path):
    # before a table is shown, / s e did nothing (s and e not a word; / opened a filter of nothing)
    from textual.widgets import Input
    from test_console_session19 import SMI_LOG
    from test_console_truth import text_of, wait_until

    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await pilot.pause(0.3)
            keys = {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)}
            before = {k: keys.get(k) for k in ("slash", "s", "e", "o")}
            await pilot.press("o")
            await pilot.pause(0.2)
            app.screen.query_one("#results-open", Input).value = str(SMI_LOG)
            await pilot.press("enter")
            await wait_until(pilot, lambda: "telemetry" in text_of(app.screen.query_one("#results-title")), timeout=30)
            await pilot.pause(0.3)
            keys = {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)}
            return before, {k: keys.get(k) for k in ("slash", "s", "e", "o")}

    before, after = asyncio.run(scenario())
    assert before == {"slash": False, "s": False, "e": False, "o": True}, before
    assert after == {"slash": True, "s": True, "e": True, "o": True}, after


@pytest.mark.parametrize("name, words", [
    ("dump_forms.json", "JSON, not a telemetry recording: if it is a PyTorch profiler trace, aiperf-stats reads it"),
    ("h200/nsys_stats_lm_forward_nvtx_kern_sum.csv", "not a telemetry recording: its first line is no header of one"),
])
def test_replay_of_a_file_aiperf_stats_refuses_does_not_say_it_reads_it(name, words):
    # `--replay` of JSON that is no PyTorch trace said "JSON (a PyTorch profiler trace?), not a telemetry
    # recording: aiperf-stats reads it, and so does this console"; of nsys stats' nvtx_kern_sum CSV (it has a
    # "Kernel Name" column) "an Nsight Compute CSV ... aiperf-stats reads it". aiperf-stats refuses both.
    import subprocess
    import sys

    from conftest import REPO
    from test_console_replay_words import _console

    path = REPO / "tests" / "data" / name
    stats = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(path)], capture_output=True,
                           text=True, timeout=60, cwd=REPO)
    assert stats.returncode == 2, stats.stderr
    done = _console("--replay", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr and "recording: aiperf-stats reads it" not in done.stderr, done.stderr
