"""Session 21's small truths outside redaction (issue 11 items 3 and 15, h20r's leftovers) and three review
findings: one piece of code where two places each had their own.

- `aiperf-console --replay ''` said `--replay .: is a folder` (argparse's Path('') is the folder we are in);
  `--list-labs --runs-dir LOOPING_LINK` exited 0 where `--runs-dir /dev/null` exited 2: every path option now
  gets the same checks (empty, a looping link, a link to nothing, what it names).
- `--replay` of a text file that is no recording printed its first line back ("unknown columns: root:x:...",
  /etc/shadow as root): it now says what a recording's header is, and none of the file.
- A workload that stopped itself (SIGSTOP) kept triage 15 s past its duration: SIGINT and SIGTERM wait,
  pending, until a stopped process is continued; each is now followed by SIGCONT.
- Energy made again in time order was written twice (NVML's raw log, with its counter; nvidia-smi's columns,
  power only): one helper beside EnergyTracker. The Labs footer's run state and the run key's refusal asked
  the same two questions each in its own code: one function. `_weighted_mean_of_readings` found which
  samples have a reading three times: once.
- A multi-GPU nvidia-smi log's series copied each GPU's rows out of columns shared by all GPUs: each GPU now
  has its own columns, and its series is them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from array import array
from pathlib import Path

import pytest

from aiperf_lab.console import cli as console_cli
from aiperf_lab.metrics.telemetry.recording import read_recording
from smi_logs import REAL, bytes_a_row, grow


def _console(argv, capsys) -> tuple[int, str]:
    code = console_cli.main(argv)
    err = capsys.readouterr().err
    return code, err


# --- path options ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--replay", "--runs-dir"])
def test_an_empty_path_is_said_to_be_empty(option, capsys):
    argv = [option, ""] if option == "--replay" else ["--list-labs", option, ""]
    code, err = _console(argv, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "the path is empty" in err and "is a folder" not in err, err


@pytest.mark.parametrize("option", ["--replay", "--runs-dir"])
def test_a_looping_link_is_refused_by_every_path_option(option, tmp_path, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    argv = ["--list-labs", option, str(tmp_path / "a")] if option == "--runs-dir" else [option, str(tmp_path / "a")]
    code, err = _console(argv, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"{option} " in err and "symbolic links" in err, err


def test_runs_dir_a_link_to_nothing_is_refused(tmp_path, capsys):
    (tmp_path / "runs").symlink_to(tmp_path / "gone")
    code, err = _console(["--list-labs", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and "a link to nothing" in err and err.count("\n") == 1, err


def test_runs_dir_a_device_is_named_as_one(capsys):
    code, err = _console(["--list-labs", "--runs-dir", "/dev/null"], capsys)
    assert code == 2 and "is a character device, not a folder" in err, err


def test_runs_dir_not_there_yet_is_fine(tmp_path, capsys):
    # a guard: a folder not made yet is made when a run starts
    code = console_cli.main(["--list-labs", "--runs-dir", str(tmp_path / "new" / "runs")])
    assert code == 0 and '"module"' in capsys.readouterr().out


def test_replay_of_a_text_file_shows_none_of_it(tmp_path, capsys):
    secret = "root:$6$Xq9.h21s-NOT-ECHOED$abcdefghij:19000:0:99999:7:::"
    path = tmp_path / "shadow"
    path.write_text(f"{secret}\ndaemon:*:19000:0:99999:7:::\n", encoding="utf-8")
    code, err = _console(["--replay", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "root" not in err.replace(str(tmp_path), "") and "NOT-ECHOED" not in err, err
    assert "not a telemetry recording" in err and "t_s,gpu" in err and "power.draw" in err, err


def test_replay_of_nsys_stats_csv_says_what_a_header_is(capsys):
    # the nsys stats CSV was "unknown columns: NVTX Range,Style,PID,TID..." (its header echoed back)
    path = Path(__file__).parent / "data" / "h200" / "nsys_stats_lm_forward_nvtx_kern_sum.csv"
    code, err = _console(["--replay", str(path)], capsys)
    assert code == 2 and "NVTX Range" not in err and "not a telemetry recording" in err, err


# --- a stopped workload --------------------------------------------------------------------------------------

def _stopped(argv, **options) -> subprocess.Popen:
    proc = subprocess.Popen(argv, start_new_session=True, **options)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with open(f"/proc/{proc.pid}/stat", encoding="ascii") as handle:
            if handle.read().rsplit(")", 1)[1].split()[0] == "T":
                return proc
        time.sleep(0.02)
    proc.kill()
    raise AssertionError("the child did not stop itself")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_stopped_group_ends_on_the_first_signal():
    from aiperf_lab.process_group import escalate, waits_for

    proc = _stopped(["sh", "-c", "kill -STOP $$; sleep 100"])
    try:
        sent = escalate(proc, [(signal.SIGINT, 5.0), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)], waits_for(proc))
    finally:
        proc.kill()
        proc.wait()
    # main: SIGINT and SIGTERM stayed pending 5 s each, SIGKILL ended it
    assert sent == ["SIGINT"] and proc.returncode == -signal.SIGINT, (sent, proc.returncode)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_stopped_leftover_ends_on_sigterm(tmp_path):
    from aiperf_lab.triage.leftovers import RUN_VARIABLE, end_marked, new_token

    token = new_token()
    marker = tmp_path / "got-sigterm"
    script = (f"import os, signal, sys, time\n"
              f"def ended(*_):\n    open({str(marker)!r}, 'w').close()\n    sys.exit(0)\n"
              f"signal.signal(signal.SIGTERM, ended)\nos.kill(os.getpid(), signal.SIGSTOP)\ntime.sleep(100)\n")
    proc = _stopped([sys.executable, "-c", script], env=dict(os.environ, **{RUN_VARIABLE: token}))
    try:
        ended = end_marked(token, grace_s=5.0)
    finally:
        proc.kill()
    # main: SIGTERM stayed pending until SIGKILL, 5 s later, ended it (its handler never ran)
    assert ended == [proc.pid] and marker.exists()


# --- energy in time order, one helper ---------------------------------------------------------------------------

def _counted(monkeypatch, module):
    calls = []
    helper = module.energy_in_time_order

    def counted(*args, **kwargs):
        calls.append(1)
        return helper(*args, **kwargs)
    monkeypatch.setattr(module, "energy_in_time_order", counted)
    return calls


def test_both_logs_make_energy_in_time_order_with_one_helper(tmp_path, monkeypatch):
    from aiperf_lab.metrics.telemetry import energy, recording, smi
    from aiperf_lab.metrics.telemetry.summary import telemetry_summary

    assert recording.energy_in_time_order is energy.energy_in_time_order is smi.energy_in_time_order
    raw_calls, smi_calls = _counted(monkeypatch, recording), _counted(monkeypatch, smi)
    # the real nvidia-smi log reversed: the in-order 811.616 J (session 20's W1)
    lines = REAL.read_text(encoding="utf-8").splitlines()
    (tmp_path / "smi.csv").write_text("\n".join([lines[0], *reversed([x for x in lines[1:] if x])]) + "\n")
    log = read_recording(tmp_path / "smi.csv")
    assert telemetry_summary(log.devices, series_of=log.series).rows[0][5] == 811.616
    # NVML's raw layout reversed: what the log in order gives, counter and all (W2)
    nvml = Path(recording.__file__).parent / "data" / "nvml_100hz_matmul_copy.csv"
    raw = nvml.read_text(encoding="utf-8").splitlines()
    (tmp_path / "raw.csv").write_text("\n".join([raw[0], *reversed(raw[1:])]) + "\n")
    forward, backward = read_recording(nvml), read_recording(tmp_path / "raw.csv")
    assert [(s.t, s.energy_j, s.energy_source) for tick in backward.ticks for s in tick.gpus] == \
        [(s.t, s.energy_j, s.energy_source) for tick in forward.ticks for s in tick.gpus]
    assert (len(raw_calls), len(smi_calls)) == (1, 1)


def test_the_helper_drops_a_counter_that_goes_down():
    from aiperf_lab.metrics.telemetry.energy import energy_in_time_order

    made = list(energy_in_time_order([0.0, 1.0, 2.0], [100.0, 100.0, None], [5000.0, 1000.0, None]))
    assert made == [(0.0, "integrated"), (100.0, "integrated"), (100.0, "integrated")]
    made = list(energy_in_time_order([0.0, 1.0, 2.0], [100.0, 100.0, 100.0], [1000.0, None, 1300.0]))
    assert made == [(0.0, "counter"), (100.0, "counter"), (0.3, "counter")]


# --- the Labs run keys: one reason ------------------------------------------------------------------------------

@pytest.mark.parametrize("gpu_here", [False, True])
def test_footer_and_run_key_take_one_reason(tmp_path, gpu_here):
    pytest.importorskip("textual")
    import asyncio

    from aiperf_lab.console.screens.labs import LabsScreen
    from aiperf_lab.labs.catalog import all_exercises
    from test_console_truth import make_app

    async def scenario():
        app = make_app(tmp_path, gpus=2 if gpu_here else 0, gpu_here=gpu_here)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            screen = app.screen
            assert isinstance(screen, LabsScreen)
            toasts, started = [], []
            screen.notify = lambda message, **kw: toasts.append((message, kw.get("title")))
            screen._follow_cursor = lambda: None
            app.start_run = lambda *args: started.append(args)
            seen = set()
            for exercise in all_exercises():
                for profile in ("none", "nsys", "ncu", "torch"):
                    why = screen._why_not_run(exercise, profile)
                    state = screen._run_state(exercise, profile)
                    screen.exercise = exercise
                    toasts.clear(), started.clear()
                    screen.action_run(profile)
                    if why is None:
                        assert state is True and len(started) == 1 and not toasts
                    else:
                        assert toasts == [(why, "Run did not start")] and not started
                        assert state is (None if profile == "none" else False)
                    seen.add((why is None, profile == "none"))
            return seen

    seen = asyncio.run(scenario())
    assert (True, True) in seen and (False, False) in seen
    if not gpu_here:
        assert (False, True) in seen    # r dimmed somewhere: a GPU-only exercise


# --- the weighted mean: which samples have a reading, found once ---------------------------------------------------

class _Passes(array):
    """An array of doubles that counts the passes made over it."""
    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


@pytest.mark.parametrize("values", [[1.0, float("nan"), 3.0, 4.0], [1.0, 2.0, 3.0], [float("nan")] * 3])
def test_weighted_mean_of_readings_reads_the_column_at_most_three_times(values):
    from aiperf_lab.metrics.telemetry.summary import _weighted_mean, _weighted_mean_of_readings

    column, weights = _Passes("d", values), [0.5, 0.25, 2.0, 1.0][:len(values)]
    _Passes.passes = 0
    mean = _weighted_mean_of_readings(column, weights)
    assert _Passes.passes <= 3, _Passes.passes   # main: 9 (map(eq, values, values) four times, and the readings)
    assert mean == _weighted_mean([v if v == v else None for v in values], weights)


# --- a multi-GPU nvidia-smi log: each GPU's series is its own columns ----------------------------------------------



def test_a_multi_gpu_series_copies_no_column(tmp_path):
    path = grow(tmp_path / "smi_8.csv", 24000, 8)
    recording = read_recording(path)
    held, peak = bytes_a_row(lambda: [recording.series(device.index) for device in recording.devices], 24000)
    # what is left a row: the two lists of sources and the two of GPM windows (8 bytes a row each); main
    # also copied the GPU's 9 columns out of the shared ones and held its row positions: 98 bytes a row held
    assert held < 40 and peak < 10, f"{held:.0f} bytes a row held, {peak:.0f} more at the peak"
    # the series are the log's rows, GPU by GPU
    assert [len(recording.series(d.index)) for d in recording.devices] == [3000] * 8


# --- show and compare on bundles made here --------------------------------------------------------------------------

@pytest.mark.parametrize("returncode, words", [(-2, "ended by SIGINT"), (-9, "ended by SIGKILL"), (0, "exit code 0"),
                                               (3, "exit code 3"), (None, "exit code unknown")])
def test_the_summary_says_a_signal_ended_the_workload(returncode, words):
    # a workload stopped at the end of the duration read "exit code -2": Popen's word for SIGINT, no code a
    # program exits with (a shell says 130)
    from aiperf_lab.triage.facts import TelemetrySpan, TriageFacts, WorkloadFacts
    from aiperf_lab.triage.report import summary_markdown

    facts = TriageFacts(recording=TelemetrySpan(3.0, "duration", 3.0, 3.4, first_s=0.0, last_s=3.4, samples=35))
    facts.workload = WorkloadFacts(True, returncode, 3.1, "duration", ["SIGINT"], False)
    meta = {"host": "h", "start_utc": "s", "end_utc": "e", "duration_s": 3.0, "command": ["sleep", "9"]}
    line = next(x for x in summary_markdown(meta, [], facts).splitlines() if x.startswith("- workload: "))
    assert line.startswith(f"- workload: {words}, 3.1 s"), line


def _manifested(path: Path, start: str) -> Path:
    import gzip
    import io
    import json
    import tarfile

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        data = json.dumps({"tool": "aiperf-triage", "host": "node7", "start_utc": start, "members": []}).encode()
        info = tarfile.TarInfo("aiperf-triage-node7/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


def test_compare_tells_two_bundles_of_one_minute_apart(tmp_path):
    # two runs in one minute on one node had the same column title ("node7 2026-11-24T20:24")
    from aiperf_lab.triage import archive

    first = _manifested(tmp_path / "a.tar.gz", "2026-11-24T20:24:13+00:00")
    second = _manifested(tmp_path / "b.tar.gz", "2026-11-24T20:24:36+00:00")
    other = _manifested(tmp_path / "c.tar.gz", "2026-11-24T21:00:00+00:00")
    assert archive.compare([first, second])[0] == ["node7 2026-11-24T20:24:13", "node7 2026-11-24T20:24:36"]
    assert archive.compare([first, first])[0] == ["#1 node7 2026-11-24T20:24:13", "#2 node7 2026-11-24T20:24:13"]
    # a guard: titles that differ to the minute stay as they were
    assert archive.compare([first, other])[0] == ["node7 2026-11-24T20:24", "node7 2026-11-24T21:00"]


# --- History with no run ------------------------------------------------------------------------------------------

def _history_footer_and_toasts(tmp_path, history=None):
    pytest.importorskip("textual")
    import asyncio

    from textual.widgets._footer import FooterKey

    from test_console_truth import make_app

    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False, history=history)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            await pilot.pause(0.5)
            footer = {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)
                      if key.key in ("m", "c")}
            for key in ("m", "c"):
                await pilot.press(key)
                await pilot.pause(0.3)
            return footer, [str(n.message) for n in app._notifications]

    return asyncio.run(scenario())


def test_history_with_no_run_offers_no_mark_or_compare(tmp_path):
    # the footer offered m and c with no run: m did nothing, c said "mark a run with m first"
    footer, toasts = _history_footer_and_toasts(tmp_path)
    assert footer == {"m": False, "c": False}, footer
    assert len(toasts) == 2 and all(t.startswith("no runs yet in ") for t in toasts), toasts


def test_history_with_runs_offers_mark_and_compare(tmp_path):
    # a guard: the demo's runs can be marked and compared
    from aiperf_lab.console.context import DEMO_RUNS

    footer, toasts = _history_footer_and_toasts(tmp_path, history=[DEMO_RUNS])
    assert footer == {"m": True, "c": True}, footer
    assert toasts and toasts[0].startswith("marked "), toasts
