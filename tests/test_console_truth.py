"""The console tells the truth and works at 80x24 and at 200x60 (issue 14): the run's grade on every
screen, a layout where the grade, the result and the keys stay visible, focus that never traps, a
palette with every action, a live status line on every screen, sensible first runs without a GPU,
charts with a labelled span, and a cancel that reports what run.json says."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from conftest import REPO

pytest.importorskip("textual")

from rich.text import Text  # noqa: E402
from textual.widgets import DataTable, Input, Log, Static  # noqa: E402
from textual.widgets._footer import FooterKey  # noqa: E402

from aiperf_lab.console import view_model  # noqa: E402
from aiperf_lab.console.app import PALETTE_ACTIONS, LabConsole  # noqa: E402
from aiperf_lab.console.context import DEMO_RUNS, ConsoleContext  # noqa: E402
from aiperf_lab.console.screens.history import HistoryScreen  # noqa: E402
from aiperf_lab.console.screens.labs import LabsScreen  # noqa: E402
from aiperf_lab.console.screens.monitor import MonitorScreen  # noqa: E402
from aiperf_lab.console.screens.results import ResultsScreen  # noqa: E402
from aiperf_lab.console.screens.run import ConfirmCancel, RunScreen  # noqa: E402
from aiperf_lab.console.screens.triage import TriageScreen  # noqa: E402
from aiperf_lab.console.widgets import Confirm, StatusLine  # noqa: E402
from aiperf_lab.labs.grading import grade_run  # noqa: E402
from aiperf_lab.labs.runner import CheckResult, RunRecord  # noqa: E402
from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, Tick  # noqa: E402
from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed  # noqa: E402

SIZES = [(80, 24), (200, 60)]
LONG_LINE = "this workload needs an NVIDIA GPU with CUDA; none is visible here " * 4


class GradedRunner:
    """Stands in for labs.runner.run_exercise and grades like it: exit code, cancel and checks decide."""

    def __init__(self, exit_code=0, statuses=("pass",), lines=("starting", LONG_LINE), wait_for_cancel=False,
                 ignore_cancel=False):
        self.exit_code, self.statuses, self.lines = exit_code, statuses, lines
        self.wait_for_cancel, self.ignore_cancel = wait_for_cancel, ignore_cancel
        self.calls = []

    def __call__(self, exercise_id, variant, profile, size, runs_dir, on_line=None, cancel=None):
        self.calls.append((exercise_id, variant, profile, size))
        for line in self.lines:
            on_line(line)
        cancelled = False
        if self.wait_for_cancel:
            asked = cancel.wait(10)
            cancelled = asked and not self.ignore_cancel   # ignore_cancel: it had ended on its own just then
        exit_code = -2 if cancelled else self.exit_code
        checks = [CheckResult(f"c{i}", f"Check {i}", "x > 1", status, f"x={i}") for i, status in
                  enumerate(self.statuses)] if exit_code == 0 else \
            [CheckResult("c0", "Check 0", "x > 1", "skipped", f"the workload exited {exit_code}")]
        folder = Path(runs_dir) / f"20260101T000000Z-{exercise_id}-{variant}"
        folder.mkdir(parents=True, exist_ok=True)
        record = RunRecord(exercise_id, variant, profile, size, str(folder), ["python3"], {},
                           "2026-01-01T00:00:00+00:00", seconds=1.5, exit_code=exit_code, cancelled=cancelled,
                           energy={"joules": None}, checks=checks)
        grade = grade_run(record.exit_code, record.cancelled, record.checks)
        record.grade, record.grade_reason = grade.word, grade.reason
        (folder / "run.json").write_text(json.dumps(asdict(record)))
        return record


def make_app(tmp_path, runner=None, gpus=2, gpu_here=True, ascii_only=False, history=None, notice=None):
    """The console on a synthetic feed of `gpus` GPUs (0: a CPU-only feed), runs in tmp_path/runs, run by
    `runner` (else a GradedRunner); the console tests' one way to make an app."""
    feed = SyntheticFeed(gpus).fill(30) if gpus else _cpu_only_feed()
    ctx = ConsoleContext(feed, runs_dir=tmp_path / "runs", history_dirs=history or [tmp_path / "runs"],
                         runner=runner or GradedRunner(), gpu_here=gpu_here, ascii_only=ascii_only, notice=notice)
    return LabConsole(ctx)


def _cpu_only_feed():
    feed = SyntheticFeed(1).fill(5)
    feed.devices = []
    feed.status = "no NVIDIA driver"
    return feed


def replay_triage_progress(monkeypatch, progress: str, archive: str) -> None:
    """The console's triage session runs a child that writes `progress` (triage's Emitter lines) to stderr and
    prints `archive` as its last stdout line, as aiperf-triage does, instead of aiperf-triage itself."""
    from aiperf_lab.console import sessions

    script = f"import sys\nsys.stderr.write({progress!r})\nsys.stderr.flush()\nprint({archive!r})\n"
    monkeypatch.setattr(sessions.TriageSession, "argv", lambda self: [sys.executable, "-c", script])


async def wait_until(pilot, condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the console")
        await pilot.pause(0.05)


async def run_to_the_end(app, pilot, keys=("down", "down", "r")):
    await pilot.press(*keys)
    await wait_until(pilot, lambda: app.ctx.run is not None and not app.ctx.run.running)
    await wait_until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen._shown_record is app.ctx.run)
    await pilot.pause()


def text_of(widget) -> str:
    rendered = widget.render()
    return rendered.plain if hasattr(rendered, "plain") else str(rendered)


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def visible_footer_keys(app, width) -> set[str]:
    keys = set()
    for key in app.screen.query(FooterKey):
        region = key.region
        if region.width and region.right <= width:
            keys.add(key.key)
    return keys


# --- 1. the grade, the same word everywhere, with its reason ------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_a_failed_run_reads_failed_on_run_toast_history_and_results(tmp_path, size):
    runner = GradedRunner(exit_code=2, lines=("starting", LONG_LINE))

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=size) as pilot:
            await run_to_the_end(app, pilot)
            grade = text_of(app.screen.query_one("#run-grade"))
            assert grade.startswith("✗ failed: the workload exited 2")
            assert "failed (exit 2)" in text_of(app.screen.query_one("#run-header"))
            assert app.screen.query_one("#run-grade").region.right <= size[0]
            runs_toasts = [t for t in toasts(app) if "failed" in t or "pass" in t]
            assert runs_toasts == ["✗ failed: the workload exited 2\n3 shows the run, 4 its tables"]
            await pilot.press("4")                   # as the toast says: this run's tables, under its grade
            await pilot.pause()
            title = text_of(app.screen.query_one("#results-title"))
            assert "01-ex01-timeline-basics" in title and "✗ failed: the workload exited 2" in title
            await pilot.press("5")
            await pilot.pause()
            table = app.screen.query_one("#history-table", DataTable)
            cell = table.get_cell_at((0, 1))
            assert isinstance(cell, Text) and cell.plain == "✗ failed" and cell.style == "bold reverse"
            # the grade column is on screen, not scrolled away
            assert sum(c.get_render_width(table) for c in list(table.columns.values())[:2]) < size[0]
            assert "✗ failed: the workload exited 2" in text_of(app.screen.query_one("#history-status"))
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ResultsScreen)
            assert "✗ failed: the workload exited 2" in text_of(app.screen.query_one("#results-title"))

    asyncio.run(scenario())


def test_pass_failed_and_not_graded_differ_without_colour(tmp_path):
    styles = {word: view_model.GRADE_STYLE[word] for word in ("pass", "failed", "not graded")}
    assert len(set(styles.values())) == 3 and all("color" not in s for s in styles.values())
    assert [view_model.grade_label(w, ascii_only=True) for w in styles] == ["ok pass", "XX failed",
                                                                            "-- not graded"]

    async def scenario():          # NO_COLOR / --ascii: the marks are plain characters, the word the same
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail")), ascii_only=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            assert text_of(app.screen.query_one("#run-grade")).startswith("XX failed: 1 of 2 checks failed: c1")
            checks = app.screen.query_one("#run-checks", DataTable)
            assert [checks.get_cell_at((r, 0)).plain for r in range(2)] == ["PASS", "FAIL"]

    asyncio.run(scenario())


def test_the_highlighted_check_is_shown_whole_under_the_table_at_80_columns(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail")))
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            checks = app.screen.query_one("#run-checks", DataTable)
            checks.focus()
            await pilot.press("down")
            await pilot.pause()
            record = app.ctx.run.record
            shown = text_of(app.screen.query_one("#run-check-detail"))
            assert shown == f"FAIL {record.checks[1].text}: {record.checks[1].detail}"

    asyncio.run(scenario())


def test_old_run_folders_get_a_grade_in_history(tmp_path):
    async def scenario():
        app = make_app(tmp_path, history=[DEMO_RUNS])
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            await pilot.pause()
            table = app.screen.query_one("#history-table", DataTable)
            words = {table.get_cell_at((r, 1)).plain for r in range(table.row_count)}
            assert words <= {"✓ pass", "✗ failed", "– not graded"} and words

    asyncio.run(scenario())


def test_demo_history_tells_bundled_runs_from_local_ones(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(), history=[tmp_path / "runs", DEMO_RUNS])
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)           # one run made here
            await pilot.press("5")
            await pilot.pause()
            table = app.screen.query_one("#history-table", DataTable)
            marks = [str(table.get_cell_at((r, 0))) for r in range(table.row_count)]
            bundled = len(list(DEMO_RUNS.glob("*/run.json")))
            assert marks.count("d") == bundled and bundled >= 1 and marks.count("") == 1
            status = text_of(app.screen.query_one("#history-status"))
            assert f"({bundled} demo runs, marked d)" in status
            local = next(r for r in range(table.row_count) if str(table.get_cell_at((r, 0))) == "")
            table.move_cursor(row=local)
            await pilot.pause()
            assert "bundled" not in text_of(app.screen.query_one("#history-status")).splitlines()[-1]
            table.move_cursor(row=next(r for r in range(table.row_count) if r != local))
            await pilot.pause()
            assert "(bundled demo run, not from this machine)" in text_of(app.screen.query_one("#history-status"))

    asyncio.run(scenario())


# --- 2. layout at 80x24 and 200x60 -------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_every_screen_shows_help_and_quit_and_the_result_column(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail")))
        async with app.run_test(size=size) as pilot:
            await run_to_the_end(app, pilot)
            log = app.screen.query_one("#run-log", Log)
            width = log.scrollable_content_region.width
            assert any(line.startswith("this workload needs") for line in log.lines)
            assert all(len(line) <= width for line in log.lines)         # wrapped, not cut
            joined = " ".join(line.strip() for line in log.lines)
            assert joined.count(LONG_LINE.strip()) == 1                     # every word of it, in order
            checks = app.screen.query_one("#run-checks", DataTable)
            assert [str(c.label) for c in checks.columns.values()][0] == "Result"
            for key in "123456":
                await pilot.press(key)
                await pilot.pause()
                assert {"question_mark", "q"} <= visible_footer_keys(app, size[0]), (key, app.screen)

    asyncio.run(scenario())


def test_results_put_the_result_first_and_cut_long_cells(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail")))
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            await pilot.press("o")
            await pilot.pause()
            data = app.screen.query_one("#table-data", DataTable)
            assert [str(c.label) for c in data.columns.values()] == ["Result", "Check", "Numbers"]
            assert str(data.get_cell_at((1, 0))) == "FAIL"     # (a Text: cells are never markup)
            assert app.screen.query_one("#table-data").region.x < 40     # the table gets most of 80 columns
            from aiperf_lab.metrics.tables import Table

            name = "void at::native::vectorized_elementwise_kernel<4, " + "x" * 200 + ">"
            app.screen.show_tables("long names", [Table("kern", "Kernels", ["Name", "Calls"], [[name, 3]])], tmp_path)
            await pilot.pause()
            data = app.screen.query_one("#table-data", DataTable)
            data.focus()
            data.move_cursor(row=0, column=1)
            data.move_cursor(row=0, column=0)
            await pilot.pause()
            assert str(data.get_cell_at((0, 0))).endswith("…")                 # cut in the table
            assert text_of(app.screen.query_one("#table-cell")) == f"Name: {name}"   # whole beneath it

    asyncio.run(scenario())


# --- 3. focus never traps ----------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_triage_keys_never_type_into_the_duration_unasked(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=size) as pilot:
            await pilot.press("6")
            await pilot.pause()
            box = app.screen.query_one("#triage-duration", Input)
            for _ in range(4):             # tab round the screen: never into the duration box
                await pilot.press("tab")
                assert app.focused is not box
            await pilot.press("d", "backspace", "backspace", "5")
            assert app.focused is box and box.value == "5"
            await pilot.press("escape")
            assert not isinstance(app.focused, Input)
            await pilot.press("1")
            await pilot.pause()
            assert isinstance(app.screen, LabsScreen) and box.value == "5"
            await pilot.press("6")
            await pilot.pause()
            bench = app.screen.query_one("#triage-bench")
            off = str(bench.label)
            await pilot.press("k")
            await pilot.pause()
            assert bench.value and str(bench.label) != off and "ON" in str(bench.label) and "off" in off

    asyncio.run(scenario())


def _send_key(app, key, char):
    """A key as the terminal driver delivers it, without waiting for the app to go idle (as Pilot does)."""
    from textual import events
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


def test_keys_typed_in_one_burst_after_d_reach_the_duration(tmp_path):
    # Over SSH a user types "d", then "120" before the next frame: the digits must land in the box,
    # replacing the old value, not switch screens (1 is the Labs screen's key).
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            box = app.screen.query_one("#triage-duration", Input)
            for key in "d120":             # queued together, no frame in between
                _send_key(app, key, key)
            await pilot.pause()
            await pilot.pause()
            assert isinstance(app.screen, TriageScreen)
            assert app.focused is box and box.value == "120"

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES)
def test_escape_leaves_the_filter_and_global_keys_work_again(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail")))
        async with app.run_test(size=size) as pilot:
            await run_to_the_end(app, pilot)
            await pilot.press("o")
            await pilot.pause()
            await pilot.press("enter", "slash")
            assert isinstance(app.focused, Input)
            await pilot.press("2")                 # typed into the filter: that is what it is for
            assert isinstance(app.screen, ResultsScreen)
            await pilot.press("escape", "2")
            await pilot.pause()
            assert isinstance(app.screen, MonitorScreen)

    asyncio.run(scenario())


class RunningTriage:
    running = True
    lines = None

    def stop(self):
        self.running = False


@pytest.mark.parametrize("what,size", [("run", SIZES[0]), ("triage", SIZES[1])])
def test_q_asks_before_quitting_while_work_is_going(tmp_path, what, size):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(wait_for_cancel=True))
        async with app.run_test(size=size) as pilot:
            if what == "run":
                await pilot.press("down", "down", "r")
                await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.running)
            else:
                app.ctx.triage = RunningTriage()
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, Confirm)
            dialog = app.screen.query_one("#confirm")
            assert dialog.region.height < size[1] // 2 and dialog.region.right <= size[0]
            await pilot.press("n")
            await pilot.pause()
            assert not isinstance(app.screen, Confirm) and app.is_running
            await pilot.press("q", "y")
            await pilot.pause()
        return app

    app = asyncio.run(scenario())
    app.ctx.stop_work()
    assert app.return_code == 0


# --- 4. the palette: every action, each titled once -------------------------------------------------------
def test_the_palette_has_every_action_once(tmp_path):
    app = make_app(tmp_path)

    async def scenario():
        async with app.run_test(size=(80, 24)) as pilot:
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert len(titles) == len(set(titles)), titles
            text = " ".join(titles).lower()
            for word in ("plain", "nsys", "ncu", "torch", "variant", "size", "cancel", "filter", "sort", "export",
                         "mark", "compare", "triage", "help", "quit"):
                assert word in text, word
            for _title, _help, mode, action in PALETTE_ACTIONS:       # every entry names a real action
                screen_type = {"labs": LabsScreen, "run": RunScreen, "results": ResultsScreen,
                               "history": HistoryScreen, "triage": TriageScreen}[mode]
                assert hasattr(screen_type, "action_" + action.split("(")[0]), action
            await pilot.pause()

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES)
def test_a_palette_search_for_nsys_runs_the_exercise_under_nsys(tmp_path, size):
    runner = GradedRunner()

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=size) as pilot:
            await pilot.press("down", "down", "ctrl+p")
            await pilot.pause()
            await pilot.press(*"under nsys")
            await pilot.pause(0.5)
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.ctx.run is not None and not app.ctx.run.running)

    asyncio.run(scenario())
    assert runner.calls == [("01-ex01-timeline-basics", "baseline", "nsys", "full")]


# --- 5. a live status line on every screen -----------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_every_screen_has_a_live_power_figure_from_the_monitors_feed(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, gpus=2)
        latest = app.ctx.feed.ring.latest()
        watts = [f"GPU{s.index} {s.power_w:.0f} W util {s.util_gpu_pct:.0f}%" for s in latest.gpus]
        async with app.run_test(size=size) as pilot:
            for key in "123456":
                await pilot.press(key)
                await pilot.pause()
                line = app.screen.query_one(StatusLine)
                line.update_now()
                assert all(w in line.plain for w in watts), (key, line.plain)
                assert line.region.height == 1
            await pilot.press("3")
            await pilot.pause()
            assert "no run yet" in app.screen.query_one(StatusLine).plain

    asyncio.run(scenario())


def test_the_status_line_fits_eight_gpus_in_80_columns_and_says_when_there_is_none():
    feed = SyntheticFeed(8).fill(2)
    line = view_model.status_line(feed.devices, feed.ring.latest(), feed.status, 78)
    assert len(line) <= 78 and line.startswith("GPU0 ") and " W " in line
    none = view_model.status_line([], feed.ring.latest(), "no NVIDIA driver", 78)
    assert none.startswith("no GPU telemetry (no NVIDIA driver)") and "CPU" in none


# --- 6. sensible first runs --------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_without_a_gpu_the_size_starts_tiny_and_cpu_exercises_are_marked(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(), gpus=0, gpu_here=False)
        async with app.run_test(size=size) as pilot:
            await pilot.press("down", "down")
            screen = app.screen
            assert screen.problem_size == "tiny"
            labels = [node.label.plain for node in screen.query_one("#lab-tree").root.children[0].children]
            from aiperf_lab.labs.catalog import load_catalog
            first = load_catalog()[0].exercises
            assert [("[cpu]" in label) for label in labels] == [e.cpu_size for e in first]
            assert "size: tiny (z)" in text_of(screen.query_one("#selection"))
            await pilot.press("3")
            await pilot.pause()
            assert "no GPU telemetry (no NVIDIA driver)" in app.screen.query_one(StatusLine).plain

    asyncio.run(scenario())


def test_a_full_size_run_without_a_gpu_hints_the_z_key(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(exit_code=2), gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot, keys=("down", "down", "z", "r"))
            assert app.ctx.run.size == "full"
            lines = app.screen.query_one("#run-log", Log).lines
            assert any("z picks size tiny" in line for line in lines)
            assert not any("--size" in line for line in lines if line.startswith("=="))

    asyncio.run(scenario())


def test_energy_without_a_counter_is_na_not_zero():
    from aiperf_lab.metrics.telemetry.feed import energy_in_ticks

    ticks = [Tick(t, [GpuSample(t, 0, power_w=100.0)], None) for t in (0.0, 1.0, 2.0)]
    assert view_model.energy_text(energy_in_ticks(ticks, 0.0, 2.0)) == "n/a (no energy counter)"
    counted = [Tick(t, [GpuSample(t, 0, energy_j=100.0 * t)], None) for t in (0.0, 1.0, 2.0)]
    assert view_model.energy_text(energy_in_ticks(counted, 0.0, 2.0)) == "200 J"
    assert view_model.energy_text(12_400.0) == "12.40 kJ"


# --- 7. charts with a labelled span, zero unlike no data ---------------------------------------------------
def test_a_chart_covers_the_same_span_at_any_width_and_zero_is_not_a_gap():
    points = [(t / 10, 0.0 if t < 300 else 50.0) for t in range(600)]      # 30 s at zero, 30 s at 50
    narrow = view_model.series_by_time(points, now=59.9, span_s=120.0, width=60, top=100.0)
    wide = view_model.series_by_time(points, now=59.9, span_s=120.0, width=180, top=100.0)
    for chart, width in ((narrow, 60), (wide, 180)):
        assert len(chart) == width
        blank, zero, busy = chart[:width // 2], chart[width // 2:3 * width // 4], chart[3 * width // 4 + 1:]
        assert blank.strip() == ""                                # no data yet: blank
        assert set(zero) == {view_model.ZERO_MARK}                # zero watts: visible
        assert " " not in busy and view_model.ZERO_MARK not in busy
    assert view_model.span_label(120.0) == "last 2 min" and view_model.span_label(30.0) == "last 30 s"


@pytest.mark.parametrize("size", SIZES)
def test_the_monitor_labels_its_span_the_same_at_every_width(tmp_path, size):
    async def scenario():
        app = make_app(tmp_path, gpus=2)
        async with app.run_test(size=size) as pilot:
            await pilot.press("2")
            await pilot.pause()
            status = app.screen.query_one("#feed-status").plain
            assert status.startswith("charts: last 2 min up to now; _ zero, blank no data")
            card = app.screen.query_one("#gpu-0").plain.splitlines()
            chart = card[-1][len("util  "):]
            # 30 s of samples in a 2 min chart: the first three quarters are blank (no data)
            assert chart[:len(chart) * 3 // 4 - 1].strip() == ""

    asyncio.run(scenario())


# --- 8. cancel that is exact ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_a_cancel_that_comes_too_late_shows_what_run_json_says_with_one_toast(tmp_path, size):
    runner = GradedRunner(wait_for_cancel=True, ignore_cancel=True)   # it ended on its own, exit 0

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=size) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen) and app.ctx.run.running)
            await pilot.press("x", "y")
            await wait_until(pilot, lambda: not app.ctx.run.running)
            await wait_until(pilot, lambda: app.screen._shown_record is app.ctx.run)
            await pilot.pause()
            header = text_of(app.screen.query_one("#run-header"))
            assert "finished (exit 0)" in header and "cancel" not in header
            assert text_of(app.screen.query_one("#run-grade")).startswith("✓ pass")
            run_json = json.loads(next((tmp_path / "runs").glob("*/run.json")).read_text())
            assert run_json["cancelled"] is False and run_json["grade"] == "pass"
            assert len(toasts(app)) == 1

    asyncio.run(scenario())


def test_a_real_cancel_reads_cancelled_and_failed(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(wait_for_cancel=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen) and app.ctx.run.running)
            await pilot.press("x", "y")
            await wait_until(pilot, lambda: not app.ctx.run.running)
            await wait_until(pilot, lambda: app.screen._shown_record is app.ctx.run)
            assert "cancelled (exit -2)" in text_of(app.screen.query_one("#run-header"))
            assert text_of(app.screen.query_one("#run-grade")) == "✗ failed: cancelled before it finished"
            assert toasts(app) == ["✗ failed: cancelled before it finished\n3 shows the run, 4 its tables"]

    asyncio.run(scenario())


def test_a_workload_interrupted_at_start_up_prints_one_line_not_a_traceback():
    code = ("import sys, time\nfrom aiperf_lab.labs.workloads import common\nprint('ready', flush=True)\n"
            "time.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=20)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip() == "interrupted: the workload stopped on Ctrl-C"
    assert proc.returncode == -signal.SIGINT          # still reads as interrupted to the runner


# --- snapshots at 80x24 of the screens that changed most -----------------------------------------------------
def test_snapshot_failed_run_80x24(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # the run folder shows as runs/..., the same on every machine
    app = make_app(Path("."), GradedRunner(exit_code=2, lines=("starting", LONG_LINE)))

    async def run_before(pilot):
        await run_to_the_end(app, pilot)
        app.clear_notifications()
        app.screen.query_one("#run-header").update(
            text_of(app.screen.query_one("#run-header")).rsplit(" ", 1)[0])   # drop the elapsed time
        await pilot.pause()

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


def test_snapshot_history_80x24(snap_compare, tmp_path):
    app = make_app(tmp_path, history=[DEMO_RUNS])
    assert snap_compare(app, press=["5"], terminal_size=(80, 24))


def test_snapshot_triage_80x24(snap_compare, tmp_path):
    app = make_app(tmp_path)
    assert snap_compare(app, press=["6", "k"], terminal_size=(80, 24))


def test_snapshot_history_200x60(snap_compare, tmp_path):
    app = make_app(tmp_path, history=[DEMO_RUNS])
    assert snap_compare(app, press=["5"], terminal_size=(200, 60))


@pytest.mark.parametrize("size", SIZES)
def test_a_shows_the_walkthrough_answers_and_again_goes_back(tmp_path, size):
    from aiperf_lab.labs.catalog import find_exercise
    exercise = find_exercise("01-ex01-timeline-basics")
    answers = exercise.answers_text()
    assert answers, "01-ex01 has written answers"

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=size) as pilot:
            # no run of it yet: the answers stay hidden and the notice says why (as `labs show --answers`)
            await pilot.press("down", "down", "a")
            await pilot.pause()
            markdown = app.screen.query_one("#walkthrough")
            assert markdown.source == exercise.walkthrough_text()
            assert any("run 01-ex01-timeline-basics first" in str(n.message) for n in app._notifications)
            GradedRunner()(exercise.id, "baseline", "none", "full", tmp_path / "runs", on_line=lambda _: None)
            await pilot.press("a")
            await pilot.pause()
            assert markdown.source == answers and "a goes back" in text_of(app.screen.query_one("#selection"))
            assert {"a", "question_mark", "q"} <= visible_footer_keys(app, size[0])
            await pilot.press("a")
            await pilot.pause()
            assert markdown.source == exercise.walkthrough_text()

    asyncio.run(scenario())


def test_the_quit_question_follows_work_that_ends_under_it(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            triage = RunningTriage()
            app.ctx.triage = triage
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, Confirm)
            question = app.screen.query_one("#confirm-question", Static)
            assert "Quit and stop the triage bundle" in str(question.render())
            triage.stop()                          # the bundle finishes while the dialog is up
            await wait_until(pilot, lambda: "has ended" in str(question.render()))
            assert "nothing is left to stop" in str(question.render())
            await pilot.press("y")
            await pilot.pause()
        return app

    assert asyncio.run(scenario()).return_code == 0


def test_the_cancel_question_closes_when_the_run_ends_under_it(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(wait_for_cancel=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.running)
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmCancel)
            app.ctx.run.cancel.set()               # the run ends by another way (here: as if it finished)
            await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmCancel), timeout=10)
            assert not app.ctx.run.running
        return app

    app = asyncio.run(scenario())
    app.ctx.stop_work()


def test_cancel_is_offered_only_while_the_run_goes(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner(wait_for_cancel=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.running)
            await pilot.pause()
            assert isinstance(app.screen, RunScreen) and app.screen.check_action("cancel_run", ()) is True
            app.ctx.run.cancel.set()
            await wait_until(pilot, lambda: not app.ctx.run.running)
            await pilot.pause(0.3)
            assert app.screen.check_action("cancel_run", ()) is False    # hidden from the footer
        return app

    asyncio.run(scenario()).ctx.stop_work()


def test_scrollbars_are_whole_cells_without_colour(tmp_path):
    """NO_COLOR / --ascii: a scrollbar drawn with no eighth-block glyph (those need colour to read as a bar); a
    console made after it without --ascii draws Textual's own again."""
    from textual.scrollbar import ScrollBar

    async def scenario(ascii_only: bool) -> set[str]:
        app = make_app(tmp_path, ascii_only=ascii_only)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            bars = ScrollBar.renderer.render_bar(size=10, virtual_size=100, window_size=23, position=7)
            return {character for segment in bars.segments for character in segment.text}

    assert asyncio.run(scenario(True)) == {" "}
    assert asyncio.run(scenario(False)) - {" "}
