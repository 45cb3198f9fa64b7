"""A newcomer at 80x24, third pass: the compared columns of a Results table stay on screen, table
names in the Results list break only after a `_`, ..."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from aiperf_lab.console.context import DEMO_RUNS  # noqa: E402
from aiperf_lab.console.screens.results import ResultsScreen  # noqa: E402
from aiperf_lab.console.view_model import break_identifier  # noqa: E402
from aiperf_lab.console.widgets import column_limits  # noqa: E402
from test_console_truth import make_app, replay_triage_progress, wait_until  # noqa: E402


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def demo_run(name: str):
    from aiperf_lab.labs.history import load_run
    return load_run(next(DEMO_RUNS.glob(f"*-{name}")))


def demo_compare_at_80x24(tmp_path, read):
    """Open the demo's 06-ex08 baseline-against-optimized compare in Results at 80x24; return read(app)."""
    from aiperf_lab.labs.history import compare_runs

    before, after = demo_run("06-ex08-expert-systems-baseline"), demo_run("06-ex08-expert-systems-optimized")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.show_tables("compare", compare_runs(before, after), "compare-x")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            await pilot.pause(0.3)
            return read(app)

    return asyncio.run(scenario())


def test_a_compare_at_80_columns_shows_every_compared_column_and_cuts_the_names(tmp_path):
    """Every text cell was cut at half the view, so run_diff's After column was off-screen."""
    lines = demo_compare_at_80x24(tmp_path, screen_lines)
    text = "\n".join(lines)
    header = next(line for line in lines if "Quantity" in line)
    for column in ("Before", "After", "Change", "After/Before"):
        assert f" {column}" in header, text
    run_time = next(line for line in lines if "13.064" in line)
    assert "13.676" in run_time and "1.047" in run_time, text       # before, after and their ratio, all visible
    assert "sm80_xmma…" in text                                       # long text cut with an ellipsis


def test_column_limits_keep_numbers_whole_and_give_the_name_what_is_left():
    rows = [["void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>", 51.2, 123456789, 3]]
    limits = column_limits(["Name", "Time (%)", "Total Time (ns)", "Instances"], rows, 61)
    assert limits[1:] == [8, 15, 9]                                   # the headers, numbers never cut
    assert limits[0] == 61 - 2 - 2 * 4 - 8 - 15 - 9                   # the name takes what is left
    assert column_limits(["Name"], [["short"]], 61) == [5]            # never more than a column needs


@pytest.mark.parametrize("name, lines", [
    ("cuda_gpu_kern_sum (16)", ["cuda_gpu_kern_", "sum (16)"]),
    ("measurement_diff (22)", ["measurement_", "diff (22)"]),
    ("kernel_diff (15)", ["kernel_diff", "(15)"]),
    ("run_diff (5)", ["run_diff (5)"]),
])
def test_a_table_name_breaks_after_an_underscore_or_at_a_space(name, lines):
    assert break_identifier(name, 15).split("\n") == lines


def test_the_results_list_never_breaks_a_table_name_inside_a_word(tmp_path):
    """`measurement_dif` / `f (22)` and `cuda_gpu_kern` / `_sum (16)` at 80 columns."""
    def results_list(app) -> list[str]:
        region = app.screen.query_one("#results-tables").region
        return [line[region.x:region.right].strip("▊▎▔▁ ") for line in screen_lines(app)[region.y:region.bottom]]

    listed = [line for line in demo_compare_at_80x24(tmp_path, results_list) if line]
    assert "measurement_" in listed and "diff (22)" in listed, listed
    assert not any(line.startswith("_") or line.startswith("f (") for line in listed), listed


@pytest.mark.parametrize("mode", ["--demo", "live"])
def test_the_header_says_why_there_is_no_gpu_once_and_in_one_line_at_80_columns(tmp_path, mode):
    """On the no-GPU machine the top bar, a 3-line notice and the status line all said "no GPU telemetry":
    5 of 24 lines before any screen; the demo's notice took 3 lines too."""
    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.cli import build_parser, make_context

    argv = ["--runs-dir", str(tmp_path)] + (["--demo"] if mode == "--demo" else [])
    ctx = make_context(build_parser().parse_args(argv))
    if mode == "live" and ctx.feed.devices:
        ctx.feed.close()
        pytest.skip("this machine has a GPU")

    async def scenario():
        app = LabConsole(ctx)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.3)
            narrow = screen_lines(app)[:4]
            await pilot.resize_terminal(200, 24)
            await pilot.pause(0.3)
            return narrow, screen_lines(app)[:3]

    try:
        narrow, wide = asyncio.run(scenario())
    finally:
        ctx.feed.close()
    header = "\n".join(narrow)
    if mode == "live":
        assert narrow[1].strip() == f"No GPU telemetry: {ctx.feed.status}; try --demo", header
        assert header.count("no GPU") + header.count("No GPU") == 1, header    # said once
        assert narrow[2].strip().startswith("CPU "), header                       # the live figure stays
        assert ctx.notice in " ".join(wide)                                       # the whole notice where it fits
    else:
        assert narrow[1].strip() == "DEMO: looped H100 recording; History: real H200 runs; runs you start are real"
        assert narrow[2].strip().startswith("GPU0 "), header
        assert ctx.notice in " ".join(wide)


def test_the_triage_log_has_room_at_80x24_and_wraps_at_words(tmp_path, monkeypatch):
    """The log was one line tall at 80x24 once a bundle was done (the parts listed over three lines and the
    archive said twice above it), and a long line was cut at its right edge."""
    import io
    from pathlib import Path

    from textual.widgets import Log

    from aiperf_lab.triage.bundle import CollectorRecord
    from aiperf_lab.triage.findings import Finding
    from aiperf_lab.triage.progress import Emitter

    buffer = io.StringIO()
    emit = Emitter(stream=buffer)
    emit.phase("capture")
    emit.say("telemetry every 100 ms (no NVIDIA driver: NVML Shared Library Not Found)")
    for name, status in [("hardware", "ok"), ("gpu_snapshots", "skipped"), ("topology", "skipped"),
                         ("environment", "ok"), ("kernel_log", "ok"), ("software", "ok"), ("telemetry", "host-only"),
                         ("findings", "ok"), ("report", "ok"), ("redaction", "ok")]:
        emit.collector(CollectorRecord(name, status, 0.1))
    emit.finding(Finding("no_driver", "warning", "no NVIDIA driver: NVML Shared Library Not Found", ""))
    emit.phase("archive")
    emit.archive(Path("/tmp/out/aiperf-triage-test.tar.gz"))
    replay_triage_progress(monkeypatch, buffer.getvalue(), "/tmp/out/aiperf-triage-test.tar.gz")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            await pilot.press("b")
            await wait_until(pilot, lambda: app.ctx.triage is not None and not app.ctx.triage.running)
            app.screen.tick()
            await pilot.pause(0.3)
            log = app.screen.query_one("#triage-log", Log)
            return log.scrollable_content_region.height, log.scrollable_content_region.width, list(log.lines), \
                str(app.screen.query_one("#triage-progress").render())

    height, width, lines, progress = asyncio.run(scenario())
    assert height >= 5, (height, progress)
    assert progress.count("\n") == 1 and progress.startswith("parts: 7 ok; skipped: gpu_snapshots, topology; "
                                                             "host-only: telemetry"), progress
    assert all(len(line) < width for line in lines), lines                  # nothing cut at the right edge
    note = next(k for k, line in enumerate(lines) if "telemetry every 100 ms" in line)
    assert lines[note].endswith("NVML") and lines[note + 1] == "  Shared Library Not Found)", lines


def test_a_run_that_did_not_start_shows_no_run_energy(tmp_path, monkeypatch):
    from aiperf_lab.console.screens.run import RunScreen
    from aiperf_lab.console.widgets import StatusLine
    from aiperf_lab.labs import runner

    monkeypatch.setattr(runner, "missing_pytorch", lambda: "the workloads need PyTorch, and this Python has none")

    async def scenario():
        app = make_app(tmp_path, runner.run_exercise, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and not app.ctx.run.running)
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen))
            await pilot.pause(0.6)
            return app.screen.query_one(StatusLine).plain

    line = asyncio.run(scenario())
    assert "energy" not in line and line.endswith("no run: it did not start"), line


def test_the_palette_has_one_help_entry(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            return [c.title for c in app.get_system_commands(app.screen)]

    titles = asyncio.run(scenario())
    assert [t for t in titles if "help" in t.lower() or t == "Keys"] == ["Help: every key by screen"], titles


def test_every_source_file_a_walkthrough_names_is_there_from_the_repository_root():
    """`labs show 02-ex04` said `workloads/nvrtc_transpose.py`, a path that is nowhere from where one runs it."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    named = {m for md in (root / "aiperf_lab" / "labs" / "walkthroughs").glob("*.md")
             for m in re.findall(r"`([\w./-]+\.py)`", md.read_text(encoding="utf-8"))}
    assert "aiperf_lab/labs/workloads/nvrtc_transpose.py" in named
    assert [p for p in sorted(named) if not (root / p).is_file()] == []


def test_a_long_replay_name_is_shortened_in_the_middle_and_the_header_stays_three_lines(tmp_path):
    """`--replay` of a recording with a long name: its notice took 3 lines at 80x24 (5 header lines).
    Now one line, the name cut in its middle; the whole path is in the help (?)."""
    import shutil

    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.cli import build_parser, make_context
    from conftest import DATA

    name = "telemetry_2026-11-23_h100_llama3_8b_training_run_with_fsdp_and_activation_checkpointing.csv"
    recording = tmp_path / name
    shutil.copy(DATA / "h100" / "energy_04ex03_stall_telemetry.csv", recording)
    ctx = make_context(build_parser().parse_args(["--runs-dir", str(tmp_path / "runs"), "--replay", str(recording)]))

    async def scenario():
        app = LabConsole(ctx)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.3)
            narrow = screen_lines(app)[:3]
            await pilot.press("question_mark")
            await pilot.pause(0.3)
            helped = str(app.screen.query_one("#help-replay").render())
            await pilot.press("escape")
            await pilot.resize_terminal(200, 24)
            await pilot.pause(0.3)
            return narrow, helped, screen_lines(app)[:3]

    try:
        narrow, helped, wide = asyncio.run(scenario())
    finally:
        ctx.feed.close()
    header = "\n".join(narrow)
    notice = narrow[1].strip()
    assert notice.startswith("REPLAY of telemetry_2026-11-") and "…" in notice, header
    assert notice.endswith("checkpointing.csv (looped), not live telemetry") and len(notice) <= 78, header
    assert narrow[2].strip().startswith("GPU0 "), header                  # the live line is the third
    assert f"REPLAY of {name} (looped), not live telemetry" in wide[1]    # whole where it fits
    assert helped == f"Telemetry replayed from: {recording}"


@pytest.mark.parametrize("name, width, expected", [
    ("short.csv", 20, "short.csv"),
    ("abcdefghijklmnopqrstuvwxyz.csv", 12, "abcdef…z.csv"),
    ("abcdefghijklmnopqrstuvwxyz.csv", 2, "a…"),
])
def test_middle_ellipsis_keeps_the_start_and_the_end(name, width, expected):
    from aiperf_lab.console.view_model import middle_ellipsis
    assert middle_ellipsis(name, width) == expected


def test_the_selected_exercise_says_one_fact_a_line_in_the_pane_at_80x24(tmp_path):
    """The id, variant, size, profilers and where it runs were one run-on line, which the 40-column pane
    broke mid-phrase: '... its code))   size:' / 'tiny (z)   profilers: none, nsys'."""
    async def scenario():
        app = make_app(tmp_path, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down")
            await pilot.pause(0.3)
            region = app.screen.query_one("#selection").region
            return [line[region.x:region.right].strip() for line in screen_lines(app)[region.y:region.bottom]]

    pane = asyncio.run(scenario())
    assert pane[0] == "01-ex01-timeline-basics", pane
    assert pane[1].startswith("variant: baseline (v): "), pane
    assert "size: tiny (z)" in pane and "profilers: none, nsys" in pane, pane
    assert "runs on the CPU at size tiny" in pane, pane


def test_the_run_screen_offers_o_tables_only_once_the_run_has_a_record(tmp_path):
    """'o Tables' was in the footer under 'No run yet' and under a run that did not start, where o only
    said there was nothing to show."""
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            await pilot.pause(0.3)
            before = screen_lines(app)[-1]
            await pilot.press("1", "down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.record is not None)
            await pilot.pause(0.5)
            return before, screen_lines(app)[-1]

    before, after = asyncio.run(scenario())
    assert "Tables" not in before, before
    assert "o Tables" in after, after


def test_the_history_status_says_its_keys_in_one_line_at_80_columns(tmp_path):
    """'7 runs (7 bundled demo runs, marked d). enter: open  m: mark as before  c:' / 'compare with the
    marked one' took two lines at 80 columns, broken inside a key's phrase."""
    async def scenario():
        app = make_app(tmp_path, history=[DEMO_RUNS])
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            await pilot.pause(0.3)
            return screen_lines(app)[app.screen.query_one("#history-status").region.y]

    first = asyncio.run(scenario()).strip()
    runs = len(list(DEMO_RUNS.glob("*/run.json")))
    assert first == f"{runs} runs ({runs} demo runs, marked d): enter opens, m marks before, c compares"


def test_a_kernel_summary_at_80_columns_names_the_cursors_kernel_under_the_table(tmp_path):
    """cuda_gpu_kern_sum has eight number columns and the Name last: at 80 columns the numbers filled the
    view and no kernel name was on screen, so no row said which kernel it was."""
    from conftest import H200
    from textual.widgets import DataTable

    from aiperf_lab.metrics.sources import Overview

    tables = Overview(str(H200 / "lm_forward.sqlite")).tables
    kernels = next(t for t in tables if t.name == "cuda_gpu_kern_sum")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.show_tables("lm_forward", [kernels], "lm")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            await pilot.pause(0.3)
            data = app.screen.query_one("#table-data", DataTable)
            data.focus()
            data.move_cursor(row=2, column=1)
            await pilot.pause(0.2)
            visible = "\n".join(screen_lines(app)[:app.screen.query_one("#table-cell").region.y])
            return visible, str(app.screen.query_one("#table-cell").render())

    visible, under = asyncio.run(scenario())
    name = kernels.rows[2][kernels.columns.index("Name")]
    assert "sm80_xmma" not in visible                     # the Name column is past the right edge
    assert under == f"Name: {name}"                       # the cursor's kernel, whole, under the table
