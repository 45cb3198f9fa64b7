"""What a newcomer saw at 80x24 and 200x60 (session 18, by hand in tmux): a Results table whose numbers
were cut after the terminal was resized, a table pushed off the screen by its own notes, a Triage log
that stopped following its last lines, a cursor row whose verdict was cut with nothing saying it whole,
"1 rows", and Monitor keys offered (and answered "sorted") on a machine with no GPU to sort."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable, Log  # noqa: E402

from aiperf_lab.console.screens.results import ResultsScreen  # noqa: E402
from aiperf_lab.console.sessions import LineBuffer  # noqa: E402
from aiperf_lab.metrics.tables import Table, format_value  # noqa: E402
from test_console_newcomer_80 import demo_run, screen_lines  # noqa: E402
from test_console_truth import make_app, text_of, toasts, visible_footer_keys, wait_until  # noqa: E402

from conftest import H200, REPO  # noqa: E402

BUNDLE = REPO / "tests" / "data" / "triage" / "h200-fixture.tar.gz"


async def _results(app, pilot, title, tables):
    app.show_tables(title, tables, "s18")
    await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
    await pilot.pause(0.3)


# --- 1. a resize keeps every number whole --------------------------------------------------------------------
def test_a_compare_resized_from_80x24_to_200x60_keeps_its_numbers_whole(tmp_path):
    """After tmux went from 80x24 to 200x60 the table was redrawn at its headers' widths: 849.233 read
    '849.23', 39863447 read '398634' and 887.777 '887.7' (the rows were drawn before the table measured
    them, and that drawing was kept)."""
    from aiperf_lab.labs.history import compare_runs

    before = demo_run("01-ex02-kernel-overlap-optimized")
    after = demo_run("01-ex02-kernel-overlap-baseline")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "compare", compare_runs(before, after))
            small = "\n".join(screen_lines(app))
            await pilot.resize_terminal(200, 60)
            await pilot.pause(0.5)
            return small, "\n".join(screen_lines(app))

    small, large = asyncio.run(scenario())
    for number in ("849.233", "887.777", "39863447", "39830914", "107.268"):
        assert number in small, small
        assert number in large, large


def test_a_table_shown_at_80_columns_then_200_widens_its_text(tmp_path):
    """The same, for text: at 200 columns a run-diff's Quantity is whole ('Run time (s)'), not cut as at 80."""
    from aiperf_lab.labs.history import compare_runs

    before = demo_run("01-ex02-kernel-overlap-optimized")
    after = demo_run("01-ex02-kernel-overlap-baseline")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "compare", compare_runs(before, after))
            await pilot.resize_terminal(200, 60)
            await pilot.pause(0.5)
            data = app.screen.query_one("#table-data", DataTable)
            widths = {str(c.label): c.get_render_width(data) - 2 for c in data.columns.values()}
            return widths, "\n".join(screen_lines(app))

    widths, large = asyncio.run(scenario())
    assert widths["Before"] >= len("39863447"), widths
    assert "Run time (s)" in large, large


# --- 2. notes never push the table off the screen -------------------------------------------------------------
def test_a_bundles_telemetry_summary_at_80x24_shows_its_row_not_only_notes(tmp_path):
    """o on the triage bundle in tests/data: telemetry_summary's seven notes filled the view at 80x24 and the
    table got no line at all: the title said '1 rows' and no number of it was on screen."""
    from aiperf_lab.metrics.sources import Overview

    tables = Overview(str(BUNDLE)).tables

    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4", "o", *str(BUNDLE), "enter")       # as a newcomer opens it
            await wait_until(pilot, lambda: getattr(app.screen, "tables", None))
            await pilot.pause(0.3)
            data = app.screen.query_one("#table-data", DataTable)
            return data.region.height, "\n".join(screen_lines(app))

    height, text = asyncio.run(scenario())
    assert height >= 3, text                       # its header and its one row at least, with room to spare
    summary = next(t for t in tables if t.name == "telemetry_summary")
    row = summary.rows[0]
    power = format_value(row[summary.columns.index("avg_power_w")])
    samples = format_value(row[summary.columns.index("samples")])
    assert any(power in line and samples in line for line in text.splitlines()), text   # the row, on screen


def test_notes_longer_than_the_view_scroll_instead_of_taking_the_table(tmp_path):
    notes = [f"note number {i}: " + "words " * 20 for i in range(12)]
    table = Table("t", "T", ["Name", "Value"], [["alpha", 1], ["beta", 2], ["gamma", 3]], notes=notes)

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "notes", [table])
            return "\n".join(screen_lines(app))

    text = asyncio.run(scenario())
    for name in ("alpha", "beta", "gamma"):
        assert name in text, text
    assert "note number 0" in text, text


# --- 3. the Triage log follows its last line --------------------------------------------------------------------
class FakeTriage:
    """A triage session the screen reads as it reads TriageSession: lines, progress, state."""

    duration_s = 3.0
    exit_code = 0
    error = ""

    def __init__(self):
        self.lines = LineBuffer()
        self.running = True
        self.archive = ""
        self.progress: list[str] = []

    def elapsed(self):
        return 1.0

    def progress_lines(self):
        return list(self.progress)

    def stop(self):
        self.running = False


def test_the_triage_log_shows_its_last_line_when_the_bundle_is_done(tmp_path):
    """By hand at 80x24: the log showed 'phase start' ... 'phase capture' and stopped there; 'archive written'
    and the archive's path were below the box until End was pressed (the box got shorter as the progress
    lines above it appeared, and a log not at its end no longer follows)."""
    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause(0.2)
            triage = FakeTriage()
            app.ctx.triage = triage
            for i in range(6):
                triage.lines.append(f"aiperf-triage: early line {i}")
            await pilot.pause(0.6)
            triage.progress = ["phase: capture", "parts: 4 ok; skipped: gpu_snapshots, topology"]
            for i in range(6):
                triage.lines.append(f"aiperf-triage: middle line {i}")
            await pilot.pause(0.6)
            triage.lines.append("aiperf-triage: note archive written")
            triage.lines.append("runs/triage/aiperf-triage-vm-20261124T084438Z.tar.gz")
            triage.archive = "runs/triage/aiperf-triage-vm-20261124T084438Z.tar.gz"
            triage.running = False
            await pilot.pause(0.8)
            log = app.screen.query_one("#triage-log", Log)
            return log.scroll_offset.y, log.max_scroll_y, "\n".join(screen_lines(app))

    y, most, text = asyncio.run(scenario())
    assert y == most, text
    assert "archive written" in text and "20261124T084438Z.tar.gz\n" in text.replace(" ", "").replace("│", "") + "\n"


# --- 4. the cursor row's cut text, whole under the table --------------------------------------------------------
def test_an_ncu_summary_at_80_columns_says_the_cursor_rows_verdict_and_kernel_whole(tmp_path):
    """ncu_summary at 80x24: Kernel Name read 'void eleme…' and Verdict 'latency…'; under the table only
    'Grid: (6144, 1, 1)' (the first column past the edge), so which kernel and which verdict took scrolling."""
    from aiperf_lab.metrics.sources import Overview

    tables = Overview(str(H200 / "ncu_full_details.csv")).tables
    summary = next(t for t in tables if t.name == "ncu_summary")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "ncu", [summary])
            view = app.screen.query_one("#results-view")
            await wait_until(pilot, lambda: view.size.width and view._shown_width == view.size.width)
            data = app.screen.query_one("#table-data", DataTable)
            data.focus()
            data.move_cursor(row=1, column=3)
            await pilot.pause(0.2)
            return text_of(app.screen.query_one("#table-cell"))

    under = asyncio.run(scenario())
    row = summary.rows[1]
    name = row[summary.columns.index("Kernel Name")]
    verdict = row[summary.columns.index("Verdict")]
    assert f"Kernel Name: {name}" in under, under
    assert f"Verdict: {verdict}" in under, under


def test_a_checks_row_says_its_sentence_whole_with_the_cursor_on_its_result(tmp_path):
    sentence = "The overlapped version hides at least half of the transfer time behind compute, as measured"
    table = Table("checks", "Checks", ["Result", "Check", "Numbers"], [["PASS", sentence, "hidden_fraction=0.713"]])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "checks", [table])
            data = app.screen.query_one("#table-data", DataTable)
            data.focus()
            data.move_cursor(row=0, column=0)
            await pilot.pause(0.2)
            return text_of(app.screen.query_one("#table-cell"))

    assert f"Check: {sentence}" in asyncio.run(scenario())


# --- 5. "1 row" ----------------------------------------------------------------------------------------------
def test_a_one_row_table_is_titled_1_row(tmp_path):
    table = Table("t", "Totals", ["Name", "Value"], [["alpha", 1]])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "one", [table])
            return text_of(app.screen.query_one("#table-title"))

    title = asyncio.run(scenario())
    assert title.endswith(": 1 row"), title


# --- 6. Monitor keys with no GPU -------------------------------------------------------------------------------
def _monitor_keys_then(tmp_path, key: str, **app_options) -> tuple[list[str], list[str]]:
    """The Monitor's footer keys at 80x24, then the toasts after pressing `key` there."""
    async def scenario():
        app = make_app(tmp_path, **app_options)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.3)
            keys = visible_footer_keys(app, 80)
            await pilot.press(key)
            await pilot.pause(0.2)
            return keys, toasts(app)

    return asyncio.run(scenario())


def test_the_monitor_offers_no_process_sort_without_a_gpu(tmp_path):
    """No NVIDIA driver: the Monitor has the host card only, yet its footer offered 'm Processes by memory
    s Processes by SM share' and m answered 'processes sorted by GPU memory, largest first'."""
    keys, said = _monitor_keys_then(tmp_path, "m", gpus=0, gpu_here=False)
    assert "m" not in keys and "s" not in keys, keys
    assert not any("sorted" in t for t in said), said


def test_the_monitor_still_sorts_processes_with_gpus(tmp_path):
    keys, said = _monitor_keys_then(tmp_path, "s", gpus=1)
    assert "m" in keys and "s" in keys, keys
    assert any("sorted by SM share" in t for t in said), said


def test_the_run_log_shows_the_workloads_last_line_when_the_run_ends(tmp_path):
    """The same for the Run screen: when a run ends its grade and checks appear around the log, the log gets
    shorter, and its last lines (the workload's result) went below the box."""
    from test_console_truth import GradedRunner, run_to_the_end

    lines = tuple(f"step {i}" for i in range(40)) + ("result: the last line",)

    async def scenario():
        app = make_app(tmp_path, GradedRunner(statuses=("pass", "fail"), lines=lines))
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            await pilot.pause(0.5)
            log = app.screen.query_one("#run-log", Log)
            return log.scroll_offset.y, log.max_scroll_y, "\n".join(screen_lines(app))

    y, most, text = asyncio.run(scenario())
    assert y == most and "result: the last line" in text, text


# --- 7. the answers' toast on a machine without a GPU ------------------------------------------------------------
@pytest.mark.parametrize("exercise_id,runs", [("02-ex03", False), ("01-ex01", True)])
def test_the_answers_toast_says_r_runs_it_only_where_it_can_run(tmp_path, exercise_id, runs):
    """a on 02-ex03 with no GPU here: '... no run of it under runs has finished. r runs it.', and r then
    ended in 'did not start'; the selection pane above it already said 'No GPU here, and this exercise
    needs one'."""
    from aiperf_lab.labs.catalog import find_exercise

    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            app.screen.select(find_exercise(exercise_id))
            await pilot.pause(0.1)
            await pilot.press("a")
            await pilot.pause(0.2)
            return toasts(app)

    said = [t for t in asyncio.run(scenario()) if "answers come after" in t]
    assert said, said
    assert ("r runs it" in said[-1]) is runs, said
    if not runs:
        assert "needs a GPU" in said[-1], said


# --- 8. a compare's title once ---------------------------------------------------------------------------------
def test_a_compare_at_80x24_says_its_two_runs_once_not_again_over_the_table(tmp_path):
    """History, m, c at 80x24: the screen's title named both runs in two lines and run_diff's title named them
    again in three more over the table ('... -> ... (run_diff): 5 rows'), five lines for one sentence."""
    from aiperf_lab.labs.history import compare_runs

    before = demo_run("01-ex02-kernel-overlap-optimized")
    after = demo_run("01-ex02-kernel-overlap-baseline")
    tables = compare_runs(before, after)

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, tables[0].title, tables)
            return text_of(app.screen.query_one("#table-title"))

    assert asyncio.run(scenario()) == "run_diff: 5 rows"


def test_the_text_under_the_table_follows_a_resize(tmp_path):
    """The pane under the table is said when the cursor moves; a refill (a resize, the first layout) puts the
    cursor back where it was, no move is announced, and the pane kept what the old width cut: at 200 columns
    it still spelled out a name the table now showed whole (and, filled before the first layout, it could
    miss an ncu verdict that the 80-column table then cut)."""
    name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float)"
    table = Table("kern", "Kernels", ["Name", "Calls", "Time (ns)", "Avg (ns)", "Med (ns)"],
                  [[name, 3, 123456789, 4115226.3, 4100000.0]])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await _results(app, pilot, "kernels", [table])
            data = app.screen.query_one("#table-data", DataTable)
            data.focus()
            await pilot.pause(0.2)
            small = text_of(app.screen.query_one("#table-cell"))
            await pilot.resize_terminal(200, 60)
            await pilot.pause(0.5)
            return small, text_of(app.screen.query_one("#table-cell")), "\n".join(screen_lines(app))

    small, large, text = asyncio.run(scenario())
    assert small == f"Name: {name}"
    assert name in text and large == "", (large, text)


def test_a_refilled_table_knows_its_column_widths_before_it_is_next_drawn(tmp_path):
    """Why a resize cut the numbers, without depending on when the terminal redraws: DataTable measured its
    rows at its next idle, so a table drawn between the refill and that idle drew every column at its
    header's width and kept that drawing. The widths are now given with the columns: right at once."""
    from aiperf_lab.labs.history import compare_runs
    from aiperf_lab.metrics.tables import format_value as fv

    before = demo_run("01-ex02-kernel-overlap-optimized")
    after = demo_run("01-ex02-kernel-overlap-baseline")
    run_diff = compare_runs(before, after)[0]

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await _results(app, pilot, "compare", [run_diff])
            view = app.screen.query_one("#results-view")
            data = app.screen.query_one("#table-data", DataTable)
            view._refill()                                   # as on_resize does; no await: no idle in between
            return {str(c.label): c.get_render_width(data) - 2 * data.cell_padding for c in data.columns.values()}

    widths = asyncio.run(scenario())
    for k, column in enumerate(run_diff.columns):
        numbers = [len(fv(r[k])) for r in run_diff.rows if isinstance(r[k], (int, float))]
        assert widths[column] >= max(numbers or [0]), (column, widths)
