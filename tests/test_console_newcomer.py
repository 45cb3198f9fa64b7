"""What a newcomer at 80x24 trips over: Labs labels cut at the edge, a run that ended under the quit
question still reading "running", and the Run screen and `labs show --answers` using different words
for a run that exited non-zero."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from conftest import REPO

pytest.importorskip("textual")

from rich.cells import cell_len  # noqa: E402
from textual.widgets import Tree  # noqa: E402

from aiperf_lab.console.screens.run import RunScreen  # noqa: E402
from aiperf_lab.console.widgets import Confirm  # noqa: E402
from aiperf_lab.labs.catalog import MAX_SHORT_TITLE, CatalogError, load_catalog, parse_catalog  # noqa: E402
from aiperf_lab.labs.record import outcome  # noqa: E402
from test_console_truth import GradedRunner, _send_key, make_app, run_to_the_end, text_of, wait_until  # noqa: E402


def _tree_lines(tree: Tree) -> list[tuple[int, str]]:
    """(columns the line takes: guides and label, label) for every line the tree shows."""
    lines = []

    def walk(node, depth):
        lines.append((depth * tree.guide_depth + cell_len(node.label.plain) + (2 if node.allow_expand else 0),
                      node.label.plain))
        for child in node.children:
            walk(child, depth + 1)
    walk(tree.root, 0)
    return lines


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_every_labs_tree_label_fits_the_tree(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.2)
            tree = app.screen.query_one("#lab-tree", Tree)
            room = tree.scrollable_content_region.width
            lines = _tree_lines(tree)
            too_long = [label for width, label in lines if width > room]
            assert not too_long, f"cut at {size[0]} columns ({room} in the tree): {too_long}"
            assert tree.virtual_size.width <= room        # nothing to scroll sideways
            assert "[cpu]: runs without a GPU" in lines[0][1]
            labels = {label for _width, label in lines}
            first = load_catalog()[0].exercises[0]
            if size[0] == 80:   # the short titles, and every exercise is still there, [cpu] marked
                assert f"ex01 [cpu] {first.short_title}" in labels
            else:               # room for the whole title
                assert f"ex01 [cpu] {first.title}" in labels
            leaves = [leaf for branch in tree.root.children for leaf in branch.children]
            assert [leaf.data.cpu_size for leaf in leaves] == ["[cpu]" in leaf.label.plain for leaf in leaves]
            assert len(leaves) == sum(len(m.exercises) for m in load_catalog())
            # the walkthrough beside it folds a long command or metric name rather than cutting it
            await pilot.press("down", "down")
            await pilot.pause(0.2)
            blocks = list(app.screen.query_one("#walkthrough").walk_children())
            assert blocks and all(block.styles.text_overflow == "fold" for block in blocks)

    asyncio.run(scenario())


def test_down_down_r_typed_in_one_burst_runs_the_exercise_under_the_cursor(tmp_path):
    # Over SSH "down down r" arrives at once: r comes before the tree's highlight message reaches the screen.
    runner = GradedRunner()

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for key in ("down", "down", "r"):
                _send_key(app, key, "r" if key == "r" else None)
            await wait_until(pilot, lambda: bool(runner.calls))
            first = load_catalog()[0].exercises[0]
            assert runner.calls[0][0] == first.id
            assert not any("select an exercise first" in str(n.message) for n in app._notifications)
        return app

    asyncio.run(scenario()).ctx.stop_work()


def test_short_titles_are_there_and_short():
    for module in load_catalog():
        for exercise in module.exercises:
            assert 0 < len(exercise.short_title) <= MAX_SHORT_TITLE, exercise.id
    entry = {"id": "09-ex01", "title": "t", "short_title": "x" * (MAX_SHORT_TITLE + 1), "topic": "t",
             "difficulty": 1, "walkthrough": "04-ex01-power-measurement.md", "workload": "w",
             "variants": {"a": {"description": "d"}}}
    with pytest.raises(CatalogError, match="short_title must be 1 to 18 characters"):
        parse_catalog({"modules": [{"id": "09", "title": "X", "exercises": [entry]}]})
    del entry["short_title"]
    with pytest.raises(CatalogError, match="missing 'short_title'"):
        parse_catalog({"modules": [{"id": "09", "title": "X", "exercises": [entry]}]})


def test_a_run_that_ends_under_the_quit_question_reads_as_ended_below_it(tmp_path):
    # ignore_cancel: setting the event only lets the fake workload end, on its own, with exit 2
    runner = GradedRunner(exit_code=2, wait_for_cancel=True, ignore_cancel=True)

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.running)
            await pilot.pause(0.2)
            run_screen = app.screen
            assert isinstance(run_screen, RunScreen)
            assert "running" in text_of(run_screen.query_one("#run-header"))
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, Confirm)
            app.ctx.run.cancel.set()                     # the workload ends while the question is up
            question = app.screen.query_one("#confirm-question")
            await wait_until(pilot, lambda: "has ended" in text_of(question))
            # (it may read "stopping" for a moment on a loaded machine before the run's end is recorded)
            await wait_until(pilot, lambda: "failed (exit 2)" in text_of(run_screen.query_one("#run-header")))
            assert isinstance(app.screen, Confirm)       # still asking: the header below followed the run
            await pilot.press("n")
        return app

    asyncio.run(scenario()).ctx.stop_work()


def test_the_run_screen_and_labs_show_answers_say_the_same_word_for_a_failed_run(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(exit_code=2))
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            return text_of(app.screen.query_one("#run-header")), app.ctx.run.record

    header, record = asyncio.run(scenario())
    word = outcome(record.exit_code, record.cancelled)
    assert word == "failed (exit 2)" and word in header
    assert json.loads((tmp_path / "runs" / record.folder.split("/")[-1] / "run.json").read_text())["exit_code"] == 2
    refused = subprocess.run([sys.executable, "-m", "aiperf_lab.labs", "show", record.exercise, "--answers",
                              "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True, cwd=REPO)
    assert refused.returncode == 2
    assert f"its one run there {word}" in refused.stderr and "did not finish" not in refused.stderr


@pytest.mark.parametrize("exit_code, cancelled, word", [
    (0, False, "finished (exit 0)"), (2, False, "failed (exit 2)"), (-9, False, "failed (exit -9)"),
    (-2, True, "cancelled (exit -2)"), (0, True, "cancelled (exit 0)"), (None, False, "did not finish"),
    (None, True, "cancelled"),
])
def test_one_word_for_how_a_workload_ended(exit_code, cancelled, word):
    assert outcome(exit_code, cancelled) == word


@pytest.mark.parametrize("exit_code, how", [(0, "done"), (130, "stopped early, archive marked interrupted")])
def test_the_triage_screen_says_where_the_archive_went_and_how_to_read_it(tmp_path, monkeypatch, exit_code, how):
    from aiperf_lab.console import sessions
    from aiperf_lab.console.screens.triage import TriageScreen

    archive = "/tmp/out/[node7]/aiperf-triage-test.tar.gz"     # brackets: text, not markup
    script = f"import sys\nprint({archive!r})\nsys.exit({exit_code})\n"
    monkeypatch.setattr(sessions.TriageSession, "argv", lambda self: [sys.executable, "-c", script])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            assert isinstance(app.screen, TriageScreen)
            await pilot.press("b")
            await wait_until(pilot, lambda: app.ctx.triage is not None and not app.ctx.triage.running)
            app.screen.tick()
            await pilot.pause()
            status = text_of(app.screen.query_one("#triage-status"))
            assert status.startswith(f"{how}: {archive}\n")
            assert "aiperf-triage show ARCHIVE prints its summary" in status

    asyncio.run(scenario())


def test_without_a_gpu_the_status_line_keeps_the_live_cpu_figure_at_80_columns():
    from aiperf_lab.console.view_model import status_line
    from aiperf_lab.metrics.telemetry.model import HostSample, Tick

    tick = Tick(1.0, [], HostSample(1.0, cpu_pct=100.0))
    reason = "no NVIDIA driver: NVML Shared Library Not Found"     # what this machine says
    line = status_line([], tick, reason, 76)                       # the line's room at 80 columns
    assert line == "no GPU telemetry │ CPU 100%"
    on_run = status_line([], tick, reason, 76, "run energy n/a (not a live feed)")
    assert on_run == "no GPU telemetry │ CPU 100% │ run energy n/a (not a live feed)"
    wide = status_line([], tick, reason, 196)
    assert wide == f"no GPU telemetry ({reason}) │ CPU 100%"   # the reason where there is room


def test_editing_keys_typed_in_one_burst_apply_in_order_in_the_duration(tmp_path):
    # "d", then backspace and "45" and enter typed fast over SSH: Textual ran backspace after the digits
    from textual.widgets import Input

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            box = app.screen.query_one("#triage-duration", Input)
            await pilot.press("d")
            await pilot.pause(0.2)
            for key, char in (("backspace", None), ("4", "4"), ("5", "5"), ("6", "6"), ("backspace", None),
                              ("enter", "\r")):
                _send_key(app, key, char)
            await pilot.pause(0.3)
            assert box.value == "45"
            assert app.focused is not box          # enter left the field, after the digits

    asyncio.run(scenario())
