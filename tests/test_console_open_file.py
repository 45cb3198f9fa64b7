"""Results, o: a profile file a user has in hand (an nsys export, an ncu CSV, a PyTorch trace, a bundle)
opened by its path, with the tables `aiperf-stats FILE` shows for it; a file it cannot read is one line.
One console opens every file in turn (an app start per file made these seconds each)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import Input, OptionList, Static  # noqa: E402

from conftest import DATA, H200  # noqa: E402
from test_console_truth import make_app, wait_until  # noqa: E402

from aiperf_lab.console.screens.results import ResultsScreen  # noqa: E402
from aiperf_lab.metrics.cli import main as stats_main  # noqa: E402

PROFILES = {"nsys-export": H200 / "lm_forward.sqlite", "ncu-csv": H200 / "ncu_full_details.csv",
            "pytorch-trace": H200 / "torch_encoder_layer.pt.trace.json",
            "telemetry": DATA / "h100" / "energy_04ex03_stall_telemetry.csv",
            "bundle-without-profile": DATA / "triage" / "h200-fixture.tar.gz"}


TYPED_IN_A_BURST = ("nsys-export", "home-relative")   # paths with "/" and "o", keys of Results too


def stats_overview(path: Path) -> list[tuple[str, int]]:
    """(report, rows) of what `aiperf-stats FILE --format json` prints: the overview, every row."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert stats_main([str(path), "--format", "json"]) == 0
    return [(table["report"], len(table["rows"])) for table in json.loads(out.getvalue())]


@pytest.fixture(scope="module")
def opened(tmp_path_factory):
    """What Results shows at 80x24 after `o`, each path typed in one burst, enter; and after escape."""
    folder = tmp_path_factory.mktemp("open")
    (folder / "notes.txt").write_text("hello\n")
    home = folder / "home"
    home.mkdir()
    (home / "k.csv").write_bytes((H200 / "ncu_full_details.csv").read_bytes())
    typed = {**{name: str(path) for name, path in PROFILES.items()},
             "missing": str(folder / "missing.sqlite"), "not-a-profile": str(folder / "notes.txt"),
             "home-relative": "~/k.csv"}
    shown = {}

    async def scenario():
        app = make_app(folder)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            await pilot.pause(0.2)
            box = app.screen.query_one("#results-open", Input)
            title = app.screen.query_one("#results-title", Static)
            for name, path in typed.items():
                if name in TYPED_IN_A_BURST:
                    await pilot.press("o", *path)
                else:   # (a key press costs a frame: set the rest)
                    await pilot.press("o")
                    box.value = path
                value = box.value
                await pilot.press("enter")
                await wait_until(pilot, lambda: not str(title.render()).startswith("opening "), timeout=30)
                await pilot.pause(0.1)
                shown[name] = {"typed": value, "title": str(title.render()), "box": box.display,
                               "tables": [(t.name, len(t.rows)) for t in app.screen.tables],
                               "listed": app.screen.query_one(OptionList).option_count}
                await pilot.press("escape")    # leaves the field where it stayed open; else clears no filter
                await pilot.pause(0.05)
                shown[name].update(box_after=box.display, focused_after=type(app.focused).__name__,
                                   running=app.is_running)
                box.value = ""

    previous = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        asyncio.run(scenario())
    finally:
        if previous is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = previous
    return typed, shown


@pytest.mark.parametrize("name", list(PROFILES))
def test_a_profile_file_opens_in_results_with_the_tables_aiperf_stats_shows(opened, name):
    typed, shown = opened
    seen = shown[name]
    assert seen["typed"] == typed[name]                    # typed: "/" and "o" in the path are text, in order
    assert seen["tables"] == stats_overview(PROFILES[name])
    assert seen["listed"] == len(seen["tables"]) and not seen["box"]
    assert seen["title"].split("\n")[0] == typed[name]     # the whole path (these are absolute)
    assert "aiperf-stats's overview" in seen["title"]
    if name == "bundle-without-profile":
        assert "holds no profile" in seen["title"]


@pytest.mark.parametrize("name, said", [("missing", "missing.sqlite: no such file"),
                                        ("not-a-profile", "notes.txt: not a profile aiperf-stats reads")])
def test_a_file_it_cannot_read_is_one_line_and_the_path_stays_to_correct(opened, name, said):
    typed, shown = opened
    seen = shown[name]
    assert seen["running"] and seen["tables"] == shown["bundle-without-profile"]["tables"]   # the last opened stays
    assert seen["title"].startswith("cannot open ") and said in seen["title"]
    assert "\n" not in seen["title"] and "Traceback" not in seen["title"]
    assert seen["box"] and seen["typed"] == typed[name]    # kept as typed, to correct
    assert not seen["box_after"] and seen["focused_after"] == "OptionList"   # escape leaves the field


def test_a_home_relative_path_is_expanded(opened):
    _typed, shown = opened
    assert [name for name, _rows in shown["home-relative"]["tables"]] == ["ncu_summary"]


def test_the_consoles_help_says_where_a_profile_file_opens():
    from aiperf_lab.console.cli import build_parser

    assert "A profile you have (.nsys-rep, .sqlite, ncu, PyTorch trace): Results (4), o, its path." in \
        " ".join(build_parser().format_help().split())


def test_a_slow_open_answered_late_does_not_replace_what_was_asked_for_since(tmp_path, monkeypatch):
    """A worker thread cannot be stopped: a big .nsys-rep still exporting when the user opened another file
    would have replaced that file's tables when it finished."""
    import threading

    from aiperf_lab.metrics import sources

    release = threading.Event()
    real = sources.Overview

    class SlowFirst(real):
        def __init__(self, path):
            if path.endswith("lm_forward.sqlite"):
                release.wait(10)
            super().__init__(path)

    monkeypatch.setattr(sources, "Overview", SlowFirst)

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            box = app.screen.query_one("#results-open", Input)
            for path in (PROFILES["nsys-export"], PROFILES["ncu-csv"]):
                await pilot.press("o")
                box.value = str(path)
                await pilot.press("enter")
            await wait_until(pilot, lambda: [t.name for t in app.screen.tables] == ["ncu_summary"])
            release.set()
            await pilot.pause(1.0)              # the slow one answers now
            return [t.name for t in app.screen.tables], str(app.screen.query_one("#results-title").render())

    names, title = asyncio.run(scenario())
    assert names == ["ncu_summary"] and title.startswith(str(PROFILES["ncu-csv"]))
