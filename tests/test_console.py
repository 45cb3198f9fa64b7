"""The console, headless (App.run_test): every screen and flow, driven by a synthetic or replayed
feed and a fake runner; the CLI's modes; a couple of SVG snapshots of frozen screens."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from conftest import REPO

pytest.importorskip("textual")

from textual.widgets import DataTable, Log, OptionList  # noqa: E402
from textual.events import Key  # noqa: E402

from aiperf_lab.console.app import LabConsole  # noqa: E402
from aiperf_lab.console.context import DEMO_RUNS, ConsoleContext  # noqa: E402
from aiperf_lab.console.screens.help import HelpScreen  # noqa: E402
from aiperf_lab.console.screens.history import HistoryScreen  # noqa: E402
from aiperf_lab.console.screens.monitor import GpuCard, MonitorScreen  # noqa: E402
from aiperf_lab.console.screens.results import ResultsScreen  # noqa: E402
from aiperf_lab.console.screens.run import ConfirmCancel, RunScreen  # noqa: E402
from aiperf_lab.console.screens.triage import TriageScreen  # noqa: E402
from aiperf_lab.labs.runner import CheckResult, RunRecord  # noqa: E402
from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed  # noqa: E402
from test_console_truth import make_app, replay_triage_progress, wait_until  # noqa: E402


class FakeRunner:
    """Stands in for labs.runner.run_exercise: prints lines, writes a run folder, returns its record."""

    def __init__(self, lines=("compiling", "step 1", "AIPERF_RESULT {}"), wait_for_cancel=False):
        self.lines = lines
        self.wait_for_cancel = wait_for_cancel
        self.calls = []

    def __call__(self, exercise_id, variant, profile, size, runs_dir, on_line=None, cancel=None):
        self.calls.append((exercise_id, variant, profile, size))
        for line in self.lines:
            on_line(line)
        cancelled = False
        if self.wait_for_cancel:
            cancelled = cancel.wait(10)
        folder = Path(runs_dir) / f"20260101T000000Z-{exercise_id}-{variant}"
        (folder / "tables").mkdir(parents=True, exist_ok=True)
        record = RunRecord(exercise_id, variant, profile, size, str(folder), ["python3", "-m", "x"], {},
                           "2026-01-01T00:00:00+00:00", seconds=1.5, exit_code=-2 if cancelled else 0,
                           cancelled=cancelled, energy={"joules": 123.0},
                           checks=[CheckResult("fast", "It is fast", "speedup >= 2", "pass", "speedup=3"),
                                   CheckResult("lean", "It is lean", "mem <= 1", "fail", "mem=2")])
        (folder / "run.json").write_text(json.dumps(asdict(record)))
        (folder / "tables" / "cuda_gpu_kern_sum.csv").write_text(
            "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
            "75.0,300,3,100.0,100.0,90,110,10.0,gemm_kernel\n25.0,100,2,50.0,50.0,40,60,14.1,add_kernel\n")
        return record


def run(coro):
    return asyncio.run(coro)


def test_labs_run_streams_output_then_shows_checks_and_results(tmp_path):
    runner = FakeRunner()

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("down", "down")           # 01 module, then its first exercise
            await pilot.press("v", "z")                  # the next variant, the tiny size
            selection = str(app.screen.query_one("#selection").render())
            assert "01-ex01-timeline-basics" in selection and "variant: optimized" in selection
            assert "size: tiny" in selection
            await pilot.press("r")
            await wait_until(pilot, lambda: app.ctx.run is not None and not app.ctx.run.running)
            assert isinstance(app.screen, RunScreen)
            app.screen.tick()
            await pilot.pause()
            log = app.screen.query_one("#run-log", Log)
            assert ["compiling", "step 1"] == [line for line in log.lines if line in ("compiling", "step 1")]
            checks = app.screen.query_one("#run-checks", DataTable)
            assert checks.display and checks.row_count == 2
            assert "finished" in str(app.screen.query_one("#run-header").render())
            await pilot.press("o")
            await pilot.pause()
            assert isinstance(app.screen, ResultsScreen)
            names = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
            assert names == ["checks (2)", "cuda_gpu_kern_sum (2)"]
        assert runner.calls == [("01-ex01-timeline-basics", "optimized", "none", "tiny")]

    run(scenario())


def test_a_profiler_the_exercise_lacks_is_refused_with_a_message(tmp_path):
    runner = FakeRunner()

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("down", "down", "c")      # 01-ex01 has no ncu recipe
            await pilot.pause()
            assert app.ctx.run is None and runner.calls == []
            assert any("no ncu recipe" in str(n.message) for n in app._notifications)

    run(scenario())


def test_cancel_asks_first_then_stops_the_run(tmp_path):
    runner = FakeRunner(lines=["working"], wait_for_cancel=True)

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen) and app.ctx.run.running)
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmCancel)
            await pilot.press("n")
            await pilot.pause()
            assert app.ctx.run.running and not app.ctx.run.cancel.is_set()
            await pilot.press("x", "y")
            await wait_until(pilot, lambda: not app.ctx.run.running)
            assert app.ctx.run.record.cancelled

    run(scenario())


def test_monitor_shows_a_card_per_gpu_and_redraws_only_on_new_samples(tmp_path):
    async def scenario():
        app = make_app(tmp_path, gpus=8)
        async with app.run_test(size=(200, 60)) as pilot:
            await pilot.press("2")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MonitorScreen)
            cards = screen.query(GpuCard)
            assert len(cards) == 8
            text = cards.first().render().plain
            for piece in ("GPU 0  Synthetic GPU", "W / 700 W", "energy", "util", "memory", "SM", "clock events",
                          "2 processes", "SM active", "tensor", "DRAM", "occupancy", "\nsm    "):
                assert piece in text
            assert "host CPU 12.5%" in screen.query_one("#host-card").plain
            version = app.ctx.feed.ring.version
            assert screen._seen == version
            calls = []
            original = screen.query_one

            def counting(*args, **kwargs):
                calls.append(args)
                return original(*args, **kwargs)

            screen.query_one = counting
            screen.repaint()                              # nothing new: no widget touched
            assert calls == []

    run(scenario())


def test_monitor_cards_show_gpm_activity_and_a_sortable_process_table(tmp_path):
    from aiperf_lab.console.screens.monitor import ProcessTable

    async def scenario():
        app = make_app(tmp_path, gpus=2)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.press("2")
            await pilot.pause()
            screen = app.screen
            latest = app.ctx.feed.ring.latest().gpus[0].gpm
            text = screen.query_one("#gpu-0", GpuCard).plain
            assert f"SM active {latest.sm_active_pct:.1f}%" in text and f"DRAM {latest.dram_pct:.1f}%" in text
            table = screen.query_one("#procs-0", ProcessTable)
            assert table.display and table.row_count == 2
            by_memory = [str(table.get_row_at(r)[0]) for r in range(2)]   # (Text cells: never markup)
            assert by_memory == ["1000", "2000"]                      # 40 GiB first
            assert str(table.get_row_at(0)[2]) == "python3 train.py --batch 64"
            assert str(table.get_row_at(0)[6]) == "900 J (30%)"
            assert "processes by GPU memory" in table.border_title
            await pilot.press("s")
            await pilot.pause()
            assert [str(table.get_row_at(r)[0]) for r in range(2)] == ["2000", "1000"]   # SM share 80% first
            assert "by SM share" in table.border_title
            await pilot.press("m")
            await pilot.pause()
            assert [str(table.get_row_at(r)[0]) for r in range(2)] == ["1000", "2000"]

    run(scenario())


def test_monitor_says_why_gpm_is_missing_on_an_old_recording(tmp_path):
    from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING, read_recording
    from aiperf_lab.metrics.telemetry.replay import ReplayFeed

    async def scenario():
        feed = ReplayFeed(read_recording(DEMO_RECORDING), speed=20.0, loop=True)
        app = LabConsole(ConsoleContext(feed, runs_dir=tmp_path))
        feed.start()
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.press("2")
                await wait_until(pilot, lambda: feed.ring.latest() is not None)
                app.screen.repaint()
                await pilot.pause()
                text = app.screen.query_one("#gpu-0", GpuCard).plain
                assert "SM active, tensor, DRAM: n/a (not in this recording)" in text
                assert "sm    n/a (not in this recording)" in text
                assert not app.screen.query_one("#procs-0").display
        finally:
            feed.stop()

    run(scenario())


def test_activity_text_per_missing_field():
    from aiperf_lab.console.view_model import activity_text, process_rows
    from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuProcess, GpuSample, GpuStatus

    info = GpuInfo(0, gpm_reason="", gpm_missing={"tensor_pct": "GPM metric not offered (not supported)"})
    sample = GpuSample(1.0, 0, gpm=GpmSample(1.0, 1.0, sm_active_pct=12.5, dram_pct=80.0, sm_occupancy_pct=5.0))
    assert activity_text(info, sample) == ("SM active 12.5%  tensor n/a (GPM metric not offered (not supported))  "
                                           "DRAM 80.0%  occupancy 5.0%")
    rows = process_rows(GpuStatus(processes=[GpuProcess(7, "x", None, command="a" * 60)]), "sm", command_width=10)
    assert rows == [("7", "?", "aaaaaaaaa…", "n/a", "n/a", "n/a", "n/a")]


def test_results_filter_sort_and_export(tmp_path):
    async def scenario():
        app = make_app(tmp_path, history=[DEMO_RUNS])
        folder = next(DEMO_RUNS.glob("*02-ex04*"))
        async with app.run_test(size=(160, 50)) as pilot:
            app.show_run(folder)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            options = screen.query_one(OptionList)
            names = [str(o.prompt).split(" ")[0] for o in options.options]
            assert names[:2] == ["checks", "ncu_summary"]
            options.highlighted = 1
            await pilot.pause()
            view = screen.query_one("#results-view")
            assert view.table.name == "ncu_summary" and len(view.visible_rows()) == 3
            screen.query_one("#table-data").focus()
            await pilot.press("slash", *"padded", "enter")
            await pilot.pause()
            rows = view.visible_rows()
            assert len(rows) == 1 and "transpose_padded" in rows[0][1]
            await pilot.press("slash")          # a second / inside the box is typed, not a new filter
            await pilot.press(*"x/y")
            assert screen.query_one("#table-filter").value == "x/y"
            await pilot.press("escape")
            await pilot.pause()
            exports = tmp_path / "runs" / "exports"
            for key, char in (("slash", "/"), *((c, c) for c in "adde")):   # one burst: e typed, not export
                event = Key(key, char)
                event.set_sender(app)
                app._driver.send_message(event)
            for _ in range(4):
                await pilot.pause()
            assert screen.query_one("#table-filter").value == "adde" and not exports.exists()
            await pilot.press("enter")
            await pilot.pause()
            assert len(view.visible_rows()) == 1          # "padded" contains "adde"
            await pilot.press("escape", "right", "right", "right", "s")   # sort by Duration, longest first
            await pilot.pause()
            durations = [r[3] for r in view.visible_rows()]
            assert durations == sorted(durations, reverse=True)
            await pilot.press("e")
            await pilot.pause()
            exported = tmp_path / "runs" / "exports" / folder.name / "ncu_summary.csv"
            lines = exported.read_text().splitlines()
            assert lines[0].startswith("ID,Kernel Name,Verdict") and len(lines) == 4

    run(scenario())


def test_history_opens_runs_and_compares_two(tmp_path):
    async def scenario():
        app = make_app(tmp_path, history=[DEMO_RUNS])
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.press("5")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, HistoryScreen) and len(screen.runs) == len(list(DEMO_RUNS.glob("*/run.json")))
            labels = [run.record["exercise"] for run in screen.runs]
            before = labels.index("06-ex08-expert-systems") + 1       # baseline is older: listed after optimized
            table = screen.query_one(DataTable)
            table.move_cursor(row=before)
            await pilot.press("m")
            table.move_cursor(row=before - 1)
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, ResultsScreen)
            names = [str(o.prompt).split(" ")[0] for o in app.screen.query_one(OptionList).options]
            assert names == ["run_diff", "measurement_diff", "kernel_diff"]
            assert "baseline" in str(app.screen.query_one("#results-title").render())

    run(scenario())


def test_triage_screen_runs_a_bundle_and_shows_the_archive(tmp_path, monkeypatch):
    from aiperf_lab.console import sessions

    script = ("import sys, time\nprint('[triage] collecting', file=sys.stderr, flush=True)\n"
              "time.sleep(0.2)\nprint('/tmp/out/aiperf-triage-test.tar.gz')\n")
    monkeypatch.setattr(sessions.TriageSession, "argv", lambda self: [sys.executable, "-c", script])

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            assert isinstance(app.screen, TriageScreen)
            await pilot.press("b")
            await wait_until(pilot, lambda: app.ctx.triage is not None and not app.ctx.triage.running)
            app.screen.tick()
            await pilot.pause()
            assert "done: /tmp/out/aiperf-triage-test.tar.gz" in str(app.screen.query_one("#triage-status").render())
            assert "[triage] collecting" in app.screen.query_one("#triage-log", Log).lines

    run(scenario())


def test_triage_screen_shows_parts_findings_and_the_archive_from_the_progress_lines(tmp_path, monkeypatch):
    from aiperf_lab.triage.bundle import CollectorRecord
    from aiperf_lab.triage.findings import Finding
    from aiperf_lab.triage.progress import Emitter

    # the child's stderr exactly as triage's Emitter writes it
    buffer = io.StringIO()
    emit = Emitter(stream=buffer)
    emit.phase("capture")
    emit.collector(CollectorRecord("hardware", "ok", 0.4))
    emit.collector(CollectorRecord("topology", "skipped", 0.0, "nvidia-smi is not installed"))
    emit.nsys("writing report, 14 s")
    emit.coverage("trace covers 0-20 s of 20 s (812 kernels, 40 NVTX ranges, workload 0-20 s)")
    emit.finding(Finding("persistence_off", "info", "GPU 0 ([REDACTED]): persistence mode is off", ""))
    emit.archive(Path("/tmp/out/aiperf-triage-test.tar.gz"))
    replay_triage_progress(monkeypatch, buffer.getvalue(), "/tmp/out/aiperf-triage-test.tar.gz")

    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("6")
            await pilot.pause()
            await pilot.press("b")
            await wait_until(pilot, lambda: app.ctx.triage is not None and not app.ctx.triage.running)
            app.screen.tick()
            await pilot.pause()
            shown = str(app.screen.query_one("#triage-progress").render())
            assert "parts: 1 ok; skipped: topology" in shown       # each part's seconds are in the log
            assert "coverage: trace covers 0-20 s of 20 s" in shown
            assert "info: GPU 0 ([REDACTED]): persistence mode is off" in shown
            # the archive said once, in the status line above
            assert "archive:" not in shown and "phase:" not in shown
            assert "done: /tmp/out/aiperf-triage-test.tar.gz" in str(app.screen.query_one("#triage-status").render())

    run(scenario())


def test_triage_refuses_a_bad_duration(tmp_path):
    async def scenario():
        app = make_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("6")
            app.screen.query_one("#triage-duration").value = "0"
            await pilot.press("b")
            await pilot.pause()
            assert app.ctx.triage is None
            assert any("1 to 3600 seconds" in str(n.message) for n in app._notifications)

    run(scenario())


def test_help_palette_and_quit(tmp_path):
    async def scenario():
        app = make_app(tmp_path, notice="No NVIDIA GPU telemetry: test")
        async with app.run_test(size=(80, 24)) as pilot:
            assert "No NVIDIA GPU telemetry" in str(app.screen.query_one("#notice").render())
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            commands = [c.title for c in app.get_system_commands(app.screen)]
            assert {"Show Monitor", "Show History", "Help: every key by screen"} <= set(commands)
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code == 0

    run(scenario())


def test_quitting_stops_a_running_workload(tmp_path):
    runner = FakeRunner(lines=["working"], wait_for_cancel=True)

    async def scenario():
        app = make_app(tmp_path, runner)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("down", "down", "r")
            await wait_until(pilot, lambda: app.ctx.run is not None and app.ctx.run.running)
            await pilot.press("q")
        return app

    app = run(scenario())
    app.ctx.stop_work()              # what the CLI does after the app returns, on every exit path
    assert not app.ctx.run.running and app.ctx.run.record.cancelled


def test_demo_replays_the_gpm_recording_when_it_ships(tmp_path, monkeypatch):
    import os
    import sys as _sys

    from aiperf_lab.console.cli import build_parser, make_context
    from aiperf_lab.metrics.telemetry import recording
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    _sys.path.insert(0, str(REPO / "tests"))
    from fake_nvml import H100_MATMUL_GPM, FakeGpu, FakeNvml

    assert recording.demo_recording() in (recording.DEMO_GPM_RECORDING, recording.DEMO_RECORDING)
    path = tmp_path / "gpm_10hz_phases.csv"
    writer = recording.TelemetryWriter.to_path(path)
    sampler = Sampler(50, source=NvmlSource.open(FakeNvml([FakeGpu("NVIDIA H100 80GB HBM3", gpm=H100_MATMUL_GPM,
                                                                    processes=[(os.getpid(), 1 << 30)])])),
                      recorder=writer, gpm_every_s=0.1)
    sampler.start()
    time.sleep(0.4)
    sampler.stop()
    writer.close()
    monkeypatch.setattr(recording, "DEMO_GPM_RECORDING", path)
    demo = make_context(build_parser().parse_args(["--demo", "--runs-dir", str(tmp_path)]))
    try:
        assert demo.feed.recording.path == path and demo.feed.devices[0].name == "NVIDIA H100 80GB HBM3"
        assert demo.notice.startswith("DEMO: telemetry is a looped recording of an NVIDIA H100 80GB HBM3 running matmuls, "
                                      "copies, small kernels and idle")
    finally:
        demo.feed.close()
    monkeypatch.setattr(recording, "DEMO_GPM_RECORDING", tmp_path / "absent.csv")
    assert recording.demo_recording() == recording.DEMO_RECORDING


def test_cli_modes_build_the_right_feed(tmp_path):
    from aiperf_lab.console.cli import build_parser, make_context

    demo = make_context(build_parser().parse_args(["--demo", "--runs-dir", str(tmp_path)]))
    try:
        assert demo.feed.kind == "replay" and demo.feed.devices and demo.notice.startswith("DEMO")
        assert demo.results_pending[0] == "run" and DEMO_RUNS in demo.history_dirs
        time.sleep(0.3)
        assert demo.feed.ring.latest().gpus[0].power_w > 0   # real watts from the H200 recording
    finally:
        demo.feed.close()
    live = make_context(build_parser().parse_args(["--runs-dir", str(tmp_path)]))
    try:
        if not live.feed.devices:         # this machine: no NVIDIA driver
            assert live.notice.startswith("No NVIDIA GPU telemetry") and "--demo" in live.notice
            time.sleep(0.3)
            assert live.feed.ring.latest().host is not None
    finally:
        live.feed.close()


@pytest.mark.parametrize("args, message", [
    (["--replay", "/no/such.csv"], "no such recording"),
    (["--rate", "500"], "sampling rate must be 1 to 100 Hz"),
    (["--demo", "--replay", "x.csv"], "not allowed with argument"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, message):
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", *args], capture_output=True, text=True,
                          cwd=REPO, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr


def test_without_a_terminal_the_console_says_so():
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli"], capture_output=True, text=True, cwd=REPO,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "needs a terminal" in done.stderr


def test_first_import_does_not_pull_in_torch():
    code = "import sys, aiperf_lab.console.app, aiperf_lab.console.cli; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.stdout.strip() == "False", done.stderr


def test_snapshot_labs_80x24(snap_compare, tmp_path):
    app = make_app(tmp_path)
    assert snap_compare(app, press=["down", "down", "down"], terminal_size=(80, 24))


def test_snapshot_monitor_120x40(snap_compare, tmp_path):
    app = make_app(tmp_path, gpus=2)
    assert snap_compare(app, press=["2"], terminal_size=(120, 40))


def test_the_terminal_watchdog_ends_the_app_when_the_terminal_is_gone(tmp_path):
    async def scenario():
        feed = SyntheticFeed(1).fill(5)
        app = LabConsole(ConsoleContext(feed, runs_dir=tmp_path), watch_tty=True)  # stdin here is no terminal
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(2.6)
        return app

    assert run(scenario()).return_code == 129


def _console_in_a_pty(args, action, timeout=30.0):
    """Start aiperf-console on a pseudo-terminal, wait for its first frame, act, and collect the output."""
    import os
    import pty
    import select
    import signal

    pid, fd = pty.fork()
    if pid == 0:  # the child: the console, as a user would start it
        os.environ.update(TERM="xterm-256color", COLUMNS="100", LINES="30")
        os.execv(sys.executable, [sys.executable, "-m", "aiperf_lab.console.cli", *args])
    output = b""
    deadline = time.monotonic() + timeout
    acted = False
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            output += chunk
        if not acted and b"Labs" in output and time.monotonic() > deadline - timeout + 3:
            action(pid, fd, signal)
            acted = True
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the console did not exit")
    return os.waitstatus_to_exitcode(status), output


@pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminals as on the GPU boxes")
def test_in_a_real_terminal_q_quits_and_restores_the_terminal(tmp_path):
    import os
    code, output = _console_in_a_pty(["--runs-dir", str(tmp_path)], lambda pid, fd, signal: os.write(fd, b"q"))
    assert code == 0
    assert b"\x1b[?1049h" in output and b"\x1b[?1049l" in output   # alternate screen entered, then left


@pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminals as on the GPU boxes")
def test_a_dropped_connection_ends_the_console(tmp_path):
    import os
    code, output = _console_in_a_pty(["--runs-dir", str(tmp_path)],
                                     lambda pid, fd, signal: os.kill(pid, signal.SIGHUP))
    assert code == 0  # it left on its own (SIGHUP handled, not the default kill), terminal restored
    assert b"\x1b[?1049l" in output


def test_a_card_before_any_sample_and_without_a_power_limit():
    from aiperf_lab.console.view_model import card_lines, series
    from aiperf_lab.metrics.telemetry.model import GpuInfo

    lines = card_lines(GpuInfo(3, "Recorded GPU"), [], None, 60)
    assert lines[0] == "GPU 3  Recorded GPU" and "power n/a / n/a" in lines[1]
    assert series([100.0, None, 700.0, 900.0], 4, 700.0) == "▁ ██"   # a gap stays blank, over the limit clamps


def test_a_triage_folder_that_cannot_be_made_is_an_error_not_a_crash(tmp_path):
    from aiperf_lab.console.sessions import TriageSession

    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = []
    session = TriageSession(5, blocker / "triage", on_done=done.append).start()
    assert session.exit_code == 2 and session.error.startswith("cannot start aiperf-triage") and done == [session]


def test_run_energy_covers_the_run_and_stops_moving_when_it_ends(tmp_path):
    from types import SimpleNamespace

    async def scenario():
        app = make_app(tmp_path, gpus=2)          # synthetic energy: 300 J a second per GPU
        app.ctx.feed.kind = "nvml"                 # read it as a live feed would be read
        app.ctx.feed.now = lambda: 30.0            # the feed's clock: 30 s of samples in the ring
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("3")
            await pilot.pause()
            now = time.monotonic()
            # off the 0.1 s tick grid, so the boundaries do not depend on microseconds of drift
            ended = SimpleNamespace(started=now - 20.03, ended=now - 10.03)  # ran from t=9.97 s to t=19.97 s
            running = SimpleNamespace(started=now - 20.03, ended=None)        # started at t=9.97 s, still going
            return app.screen._energy_so_far(ended), app.screen._energy_so_far(running)

    ended, running = run(scenario())
    assert ended == "6000 J"        # samples t 9.9 to 19.9 (the last at or before each end): 10 s x 300 J x 2 GPUs
    assert running == "12.06 kJ"    # t 9.9 to 30.0


def test_the_status_line_shows_sm_activity_next_to_power_where_gpm_reads():
    from aiperf_lab.console.view_model import gpu_status_fields

    feed = SyntheticFeed(3).fill(2)
    sample = feed.ring.latest().gpus[0]
    assert gpu_status_fields(sample) == [f"{sample.power_w:.0f} W", f"{sample.util_gpu_pct:.0f}%",
                                         f"SM {sample.gpm.sm_active_pct:.0f}%"]
    sample.gpm = None                              # no GPM (before Hopper): power and utilization only
    assert len(gpu_status_fields(sample)) == 2


def test_results_count_a_runs_tables_without_reading_them_and_read_one_when_shown(tmp_path, monkeypatch):
    """A run's trace tables hold a row per kernel: Results counts rows (a quoted newline is one row) and reads
    a table only when it is shown; a table with no header or not in UTF-8 is left out, as before."""
    import shutil

    from aiperf_lab.console.screens.results import SavedTable
    from aiperf_lab.labs.history import PastRun, load_run

    folder = tmp_path / "run"
    shutil.copytree(next(DEMO_RUNS.glob("*02-ex04*")), folder)
    (folder / "tables" / "cuda_gpu_trace.csv").write_text('Start (ns),Name\n1,"two\nlines"\n2,k\n', encoding="utf-8")
    (folder / "tables" / "empty.csv").write_text("")
    (folder / "tables" / "latin.csv").write_bytes(b"Name\n\xe9\n")
    read = []
    real_table = PastRun.table
    monkeypatch.setattr(PastRun, "table", lambda self, name: read.append(name) or real_table(self, name))
    entries = {name: SavedTable(load_run(folder), name) for name in ("cuda_gpu_trace", "empty", "latin")}
    assert {name: e.count for name, e in entries.items()} == {"cuda_gpu_trace": 2, "empty": -1, "latin": -1}
    assert read == []

    async def scenario():
        app = make_app(tmp_path, history=[folder.parent])
        async with app.run_test(size=(160, 50)) as pilot:
            app.show_run(folder)
            await pilot.pause()
            options = app.screen.query_one(OptionList)
            labels = [str(o.prompt) for o in options.options]
            assert "cuda_gpu_trace (2)" in labels and not any(p.startswith(("empty", "latin")) for p in labels)
            assert "cuda_gpu_trace" not in read
            options.highlighted = labels.index("cuda_gpu_trace (2)")
            await pilot.pause()
            assert read.count("cuda_gpu_trace") == 1
            assert app.screen.query_one("#results-view").table.rows[0][1] == "two\nlines"

    run(scenario())
