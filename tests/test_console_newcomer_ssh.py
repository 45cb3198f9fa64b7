"""A newcomer over SSH at 80x24, second pass: a run that could not start is not a "failed" run, the
Triage footer offers Stop only while a bundle is being made, and a GPU card keeps each label with its
value when a line wraps."""

from __future__ import annotations

import asyncio
import sys

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable  # noqa: E402
from textual.widgets._footer import FooterKey  # noqa: E402

from aiperf_lab.console.screens.history import HistoryScreen  # noqa: E402
from aiperf_lab.console.screens.run import RunScreen  # noqa: E402
from aiperf_lab.labs import runner  # noqa: E402
from test_console_truth import make_app, text_of, wait_until  # noqa: E402

WHY = "the workloads need PyTorch, and this Python has none: pip install 'aiperf-lab[labs]'"


def footer_keys(app) -> set[str]:
    return {key.key for key in app.screen.query(FooterKey)}


def test_without_pytorch_r_says_the_run_did_not_start_and_history_stays_empty(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "missing_pytorch", lambda: WHY)

    async def scenario():
        app = make_app(tmp_path, runner.run_exercise, gpus=0, gpu_here=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and not app.ctx.run.running)
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen)
                             and app.screen._shown_record is app.ctx.run)
            header = text_of(app.screen.query_one("#run-header"))
            grade = text_of(app.screen.query_one("#run-grade"))
            toasts = [(n.title, str(n.message)) for n in app._notifications]
            await pilot.press("5")
            await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            await pilot.pause()
            history_rows = app.screen.query_one("#history-table", DataTable).row_count
            return header, grade, toasts, history_rows

    header, grade, toasts, history_rows = asyncio.run(scenario())
    assert "did not start" in header
    assert grade.startswith("✗ did not start: the workloads need PyTorch") and "failed" not in grade
    assert ("Run did not start", WHY) in toasts
    assert history_rows == 0 and not (tmp_path / "runs").exists()   # no run folder, no "failed" run


def test_the_triage_footer_offers_stop_only_while_a_bundle_is_being_made(tmp_path, monkeypatch):
    from aiperf_lab.console import sessions

    script = "import time\ntime.sleep(1.5)\n"
    monkeypatch.setattr(sessions.TriageSession, "argv", lambda self: [sys.executable, "-c", script])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("6")
            await pilot.pause(0.3)
            idle = footer_keys(app)
            await pilot.press("b")                 # a bundle being made: x is offered
            await wait_until(pilot, lambda: "x" in footer_keys(app), timeout=1.2)
            await wait_until(pilot, lambda: app.ctx.triage is not None and not app.ctx.triage.running)
            await pilot.pause(0.5)
            after = footer_keys(app)
            # the palette still lists Stop; chosen while idle it says why nothing happened
            await app._act_on("triage", "stop")
            await pilot.pause()
            return idle, after, [str(n.message) for n in app._notifications]

    idle, after, toasts = asyncio.run(scenario())
    assert "b" in idle and "x" not in idle
    assert "x" not in after
    assert toasts[-1] == "no bundle is being made"
