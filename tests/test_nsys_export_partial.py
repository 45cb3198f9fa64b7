"""A .nsys-rep's export (`nsys export`, run by aiperf-stats and the console's `o`): nsys writes into a partial file
that takes the export's name only when nsys succeeded. An export that failed or was stopped used to leave a
.sqlite beside the report, newer than it, which the next open took for a finished export. Quitting the console
ends an export still running (its worker thread held the exit until nsys ended). A stand-in nsys on the PATH
plays the tool: it writes half an export, then fails, waits or finishes."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pytest

from conftest import H200
from aiperf_lab.errors import InputError
from aiperf_lab.metrics import sources

LM = H200 / "lm_forward.sqlite"


def _stand_in_nsys(tmp_path, monkeypatch, then: str):
    """nsys that writes half an export to --output, then 'fails' (exit 1), 'waits' (60 s) or 'finishes'."""
    fake = tmp_path / "bin" / "nsys"
    fake.parent.mkdir()
    fake.write_text("#!" + sys.executable + "\n"
                    "import shutil, sys, time\n"
                    "if sys.argv[1:] == ['export', '--help']:\n"
                    "    sys.exit(0)\n"
                    "out = sys.argv[sys.argv.index('--output') + 1]\n"
                    f"open(out, 'wb').write(open({str(LM)!r}, 'rb').read()[:4096])\n"
                    f"then = {then!r}\n"
                    "if then == 'fails':\n"
                    "    print('Error: the report is damaged', file=sys.stderr); sys.exit(1)\n"
                    "if then == 'waits':\n"
                    "    time.sleep(60)\n"
                    f"shutil.copy({str(LM)!r}, out)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    rep = tmp_path / "run.nsys-rep"
    rep.write_bytes(b"NVIDIA Tegra Profiler Report 2025@3@1@0-0v0.\n\x0bL")
    return rep


def _left_beside(tmp_path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in ("bin", "run.nsys-rep"))


def test_a_finished_export_takes_its_name_and_no_partial_file_stays(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, "finishes")
    target, notice = sources.export_nsys_report(rep)
    assert target == tmp_path / "run.sqlite" and target.read_bytes() == LM.read_bytes()
    assert notice == f"exported run.nsys-rep to {target}" and _left_beside(tmp_path) == ["run.sqlite"]


def test_a_failed_export_leaves_nothing_the_next_open_would_take_for_finished(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, "fails")
    with pytest.raises(InputError, match="nsys export failed: Error: the report is damaged"):
        sources.export_nsys_report(rep)
    assert _left_beside(tmp_path) == []
    with pytest.raises(InputError, match="nsys export failed"):   # tried again, not "using the existing export"
        sources.export_nsys_report(rep)


def test_stop_exports_ends_a_running_export_at_once_and_leaves_no_file(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, "waits")
    raised: list[BaseException] = []

    def export():
        try:
            sources.export_nsys_report(rep)
        except BaseException as exc:   # noqa: BLE001 (what the thread ended with is the result)
            raised.append(exc)

    worker = threading.Thread(target=export)
    worker.start()
    deadline = time.monotonic() + 20
    while not any(p.name.startswith(".run.partial-") for p in tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)   # the stand-in has written half an export and waits
    sources.stop_exports()
    worker.join(20)
    assert not worker.is_alive()
    assert [str(e) for e in raised] == [f"{rep}: nsys export stopped"]
    assert _left_beside(tmp_path) == []


def test_quitting_the_console_ends_an_export_that_o_waits_for(tmp_path, monkeypatch):
    pytest.importorskip("textual")
    from textual.widgets import Input

    from test_console_truth import make_app, wait_until
    from aiperf_lab.console.screens.results import ResultsScreen

    rep = _stand_in_nsys(tmp_path, monkeypatch, "waits")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            await pilot.press("o")
            app.screen.query_one("#results-open", Input).value = str(rep)
            await pilot.press("enter")
            await wait_until(pilot, lambda: any(".sqlite" in name for name in _left_beside(tmp_path)), timeout=20)
            app.exit()
        return app

    began = time.monotonic()
    asyncio.run(scenario())   # returns once the worker thread has ended: asyncio.run waits for its executor
    assert time.monotonic() - began < 30   # the stand-in waits 60 s
    assert not any(name.endswith(".sqlite") for name in _left_beside(tmp_path)), _left_beside(tmp_path)
