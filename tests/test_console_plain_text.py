"""Text the console shows is shown as written: a literal "[cpu]", or a kernel, path or command holding
brackets, is never eaten as Rich/Textual markup; and the Run screen offers x only while a run goes."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable, Static  # noqa: E402
from textual.widgets._data_table import default_cell_formatter  # noqa: E402
from textual.widgets._toast import Toast  # noqa: E402

from aiperf_lab.console.screens.run import RunScreen  # noqa: E402
from aiperf_lab.labs.catalog import load_catalog  # noqa: E402
from aiperf_lab.metrics.tables import Table  # noqa: E402
from test_console_truth import GradedRunner, make_app, run_to_the_end, text_of, visible_footer_keys  # noqa: E402

BRACKETS = "[bold]kernel[/bold] [cpu] [REDACTED]"


def _gpu_exercise():
    return next(e for m in load_catalog() for e in m.exercises if not e.cpu_size)


def _cells_shown(table: DataTable) -> list[str]:
    return [default_cell_formatter(cell).plain for row in range(table.row_count) for cell in table.get_row_at(row)]


def test_labs_without_a_gpu_names_the_cpu_mark_and_what_demo_offers(tmp_path):
    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            app.screen.select(_gpu_exercise())
            await pilot.pause()
            shown = text_of(app.screen.query_one("#selection", Static))
            assert "pick one marked [cpu]" in shown
            assert "or use --demo." not in shown         # --demo replays telemetry; it runs no GPU exercise
            assert "--demo" in shown and "recorded" in shown
            await pilot.press("z", "z")                  # full, then tiny: the toast names the [cpu] mark too
            await pilot.pause(0.3)
            toasts = [text_of(t) for t in app.query(Toast).results()]
            assert any("Exercises marked [cpu]" in t for t in toasts), toasts
        return app

    asyncio.run(scenario())


def test_table_cells_columns_title_and_notes_keep_their_brackets(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(200, 40)) as pilot:
            table = Table("k", f"Kernels {BRACKETS}", ["Name", "[x] Time"], [[BRACKETS, 1.0]], notes=[BRACKETS])
            app.show_tables(f"title {BRACKETS}", [table], "brackets")
            await pilot.pause(0.3)
            view = app.screen.query_one("#table-data", DataTable)
            assert BRACKETS in _cells_shown(view)
            assert [c.label.plain for c in view.columns.values()] == ["Name", "[x] Time"]
            assert BRACKETS in text_of(app.screen.query_one("#table-title", Static))
            assert BRACKETS in text_of(app.screen.query_one("#table-notes", Static))
            assert BRACKETS in text_of(app.screen.query_one("#results-title", Static))
        return app

    asyncio.run(scenario())


def test_toasts_are_plain_text(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.notify(f"bundle written: /runs/{BRACKETS}.tar.gz")
            await pilot.pause(0.3)
            assert any(BRACKETS in text_of(t) for t in app.query(Toast).results())
        return app

    asyncio.run(scenario())


def test_run_checks_keep_their_brackets(tmp_path):
    class BracketRunner(GradedRunner):
        def __call__(self, *args, **kwargs):
            record = super().__call__(*args, **kwargs)
            for check in record.checks:
                check.text, check.detail = f"text {BRACKETS}", f"detail {BRACKETS}"
            return record

    async def scenario():
        app = make_app(tmp_path, BracketRunner())
        async with app.run_test(size=(120, 30)) as pilot:
            await run_to_the_end(app, pilot)
            shown = _cells_shown(app.screen.query_one("#run-checks", DataTable))
            assert f"detail {BRACKETS}" in shown, shown
        return app

    asyncio.run(scenario()).ctx.stop_work()


def test_the_footer_drops_cancel_once_the_run_ended(tmp_path):
    async def scenario():
        app = make_app(tmp_path, GradedRunner())
        async with app.run_test(size=(80, 24)) as pilot:
            await run_to_the_end(app, pilot)
            await pilot.pause(0.3)
            assert isinstance(app.screen, RunScreen)
            assert "x" not in visible_footer_keys(app, 80)
            await pilot.press("x")                       # the key is not offered, and does not ask
            await pilot.pause()
            assert isinstance(app.screen, RunScreen)
        return app

    asyncio.run(scenario()).ctx.stop_work()


def test_cancel_from_the_palette_with_no_run_says_so(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await app._act_on("run", "cancel_run")
            await pilot.pause()
            assert [str(n.message) for n in app._notifications] == ["nothing is running"]
        return app

    asyncio.run(scenario())
