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
            log_lines = list(app.screen.query_one("#run-log").lines)
            toasts = [(n.title, str(n.message)) for n in app._notifications]
            await pilot.press("5")
            await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            await pilot.pause()
            history_rows = app.screen.query_one("#history-table", DataTable).row_count
            return header, grade, log_lines, toasts, history_rows

    header, grade, log_lines, toasts, history_rows = asyncio.run(scenario())
    assert "did not start" in header
    assert grade.startswith("✗ did not start: the workloads need PyTorch") and "failed" not in grade
    assert ("Run did not start", WHY) in toasts
    assert not any("need PyTorch" in line for line in log_lines)   # the reason once on screen, not again in the log
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


def test_at_80_columns_a_gpu_card_line_breaks_between_fields_never_inside_one():
    """"occupancy" at a line's end and "14.1%" on the next, "1" and "process", read as two things."""
    from aiperf_lab.console.screens.monitor import GpuCard

    from aiperf_lab.metrics.telemetry.model import GpmSample, GpuSample, HostSample, Tick

    async def scenario(tmp_path):
        app = make_app(tmp_path, gpus=1)
        # busy and power-capped, as the demo's H100 is: the figures that made the lines wrap mid-field
        t = app.ctx.feed.ring.snapshot(120)[1][-1].t + 0.1
        busy = GpuSample(t, 0, 590.0, "instant", power_limit_w=700.0, energy_j=11180.0, energy_source="counter",
                         util_gpu_pct=99.0, util_mem_pct=34.0, mem_used_bytes=3758096384, mem_total_bytes=80 << 30,
                         temp_c=57.0, sm_clock_mhz=1230.0, clock_event_reasons=0x4 | 0x20,
                         gpm=GpmSample(t, 1.0, sm_active_pct=95.5, tensor_pct=92.7, dram_pct=25.5,
                                       sm_occupancy_pct=14.1))
        app.ctx.feed.ring.append(Tick(t, [busy], HostSample(t, 12.5, 40 << 30, 128 << 30)))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.3)
            card = app.screen.query_one(GpuCard).region
            strips = app.screen._compositor.render_strips()
            return [strips[y].text[card.x + 2:card.right - 2].rstrip() for y in range(card.y + 1, card.bottom - 1)]

    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        lines = asyncio.run(scenario(Path(folder)))
    text = "\n".join(lines)
    for field in ("power 590 W / 700 W", "energy 11.18 kJ (counter)", "util 99% gpu, 34% mem", "SM active 95.5%",
                  "tensor 92.7%", "DRAM 25.5%", "occupancy 14.1%", "memory 3.5/80 GiB", "57 C", "SM 1230 MHz",
                  "clock events: power cap, thermal (sw)", "2 processes"):
        assert any(field in line for line in lines), (field, text)   # each label with its value on one line
    assert lines[-3].startswith("power") and lines[-1].startswith("sm")   # the charts all there, last


def test_a_gpu_card_grows_when_its_lines_do_and_its_last_chart_stays_on_screen(tmp_path):
    """The card's text is redrawn without a layout pass; when a power cap and a process made its lines
    wrap into two more, the card kept its old height and the sm chart, its last line, was cut off."""
    from aiperf_lab.console.screens.monitor import GpuCard
    from aiperf_lab.metrics.telemetry.model import GpmSample, GpuSample, HostSample, Tick

    async def scenario():
        app = make_app(tmp_path, gpus=1)
        app.ctx.feed.slow = {}                         # no processes yet: the card's short form
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.3)
            card = app.screen.query_one(GpuCard)
            before = card.region.height
            t = app.ctx.feed.ring.snapshot(120)[1][-1].t + 0.1
            busy = GpuSample(t, 0, 590.0, "instant", power_limit_w=700.0, energy_j=11180.0, energy_source="counter",
                             util_gpu_pct=99.0, util_mem_pct=34.0, mem_used_bytes=3 << 30, mem_total_bytes=80 << 30,
                             temp_c=57.0, sm_clock_mhz=1230.0, clock_event_reasons=0x4 | 0x20 | 0x40,
                             gpm=GpmSample(t, 1.0, sm_active_pct=95.5, tensor_pct=92.7, dram_pct=25.5,
                                           sm_occupancy_pct=14.1))
            app.ctx.feed.ring.append(Tick(t, [busy], HostSample(t, 12.5, 40 << 30, 128 << 30)))
            app.screen.repaint()
            await pilot.pause(0.3)
            lines = card.plain.split("\n")
            strips = app.screen._compositor.render_strips()
            shown = [strips[y].text for y in range(card.region.y, card.region.bottom)]
            return before, card.region.height, lines, shown

    before, after, lines, shown = asyncio.run(scenario())
    assert after > before and after == len(lines) + 2          # every line, inside the border
    assert any(row.lstrip("│ ").startswith("sm    ") for row in shown), shown


def test_a_saved_table_is_titled_by_its_name_once(tmp_path):
    """A run's tables are read back from CSV, titled by their names: "ncu_summary (ncu_summary)"."""
    from textual.widgets import Static

    from aiperf_lab.console.context import DEMO_RUNS
    from aiperf_lab.console.screens.results import ResultsScreen

    ncu_run = next(p.parent for p in sorted(DEMO_RUNS.glob("*/run.json")) if "02-ex04" in p.parent.name)

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.show_run(str(ncu_run))
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            await pilot.pause(0.3)
            titles = [text_of(app.screen.query_one("#table-title", Static))]
            app.screen.query_one("#results-tables").highlighted = 1
            await pilot.pause(0.3)
            titles.append(text_of(app.screen.query_one("#table-title", Static)))
            return titles

    titles = asyncio.run(scenario())
    assert titles == ["Checks: 5 rows", "ncu_summary: 3 rows"]


def test_the_status_line_says_what_its_percentage_is_where_it_has_room():
    """"GPU0 590 W 99% SM 96%": 99% of what? With one GPU at 80 columns it reads "util 99%"; eight GPUs
    keep the short form, which is what fits."""
    from aiperf_lab.console.view_model import status_line
    from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed

    one = SyntheticFeed(1).fill(2)
    s = one.ring.latest().gpus[0]
    line = status_line(one.devices, one.ring.latest(), one.status, 76, "run energy 1.20 kJ")
    assert line == (f"GPU0 {s.power_w:.0f} W util {s.util_gpu_pct:.0f}% SM {s.gpm.sm_active_pct:.0f}%"
                    " │ run energy 1.20 kJ")
    eight = SyntheticFeed(8).fill(2)
    line = status_line(eight.devices, eight.ring.latest(), eight.status, 76)
    assert "util" not in line and line.startswith("GPU0 ") and len(line) <= 76


def test_the_chart_legend_says_power_is_scaled_to_the_peak_where_no_limit_is_known(tmp_path):
    """An nvidia-smi log has no power limit: its power chart is drawn up to the window's peak, and the
    legend said "scale 0-limit W"."""
    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.cli import build_parser, make_context
    from aiperf_lab.console.widgets import TextBlock
    from conftest import REPO

    async def legend(app):
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.5)
            return app.screen.query_one("#feed-status", TextBlock).plain

    smi = make_context(build_parser().parse_args(
        ["--replay", str(REPO / "tests/data/h200/nvidia-smi-query-gpu-lms100.csv"), "--runs-dir", str(tmp_path)]))
    try:
        shown = asyncio.run(legend(LabConsole(smi)))
    finally:
        smi.feed.close()
    assert "scale 0-peak W, 0-100%" in shown and len(shown) <= 78
    assert "scale 0-limit W, 0-100%" in asyncio.run(legend(make_app(tmp_path)))
