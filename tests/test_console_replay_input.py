"""aiperf-console --replay: what it is given is checked before any screen (red team rt6 F11).

A recording whose time is nan, inf, -inf or 1e400 started the TUI (README: exit 2 and one line, as for -1);
a FIFO or /dev/zero was "no such recording". No Textual here: the checks run before the screens are made.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, REPO

from aiperf_lab.console.cli import main
from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING, read_recording

OURS = DATA / "h100" / "energy_04ex03_stall_telemetry.csv"   # our own layout, read into columns
BAD_TIMES = ["nan", "inf", "-inf", "1e400", "NaN", "1e300"]


def _with_time(tmp_path: Path, source: Path, value: str, row: int = 2) -> Path:
    """`source`'s header (and metadata line) and its first three sample rows, sample `row`'s time set to `value`."""
    lines = source.read_text(encoding="utf-8").splitlines()
    head = 2 if lines[0].startswith("#") else 1
    samples = lines[head:head + 3]
    cells = samples[row - 1].split(",")
    cells[0] = value
    samples[row - 1] = ",".join(cells)
    path = tmp_path / f"{source.stem}_{value}.csv"
    path.write_text("\n".join(lines[:head] + samples) + "\n", encoding="utf-8")
    return path


def _console(args, capsys) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("source", [DEMO_RECORDING, OURS], ids=["nvml-raw", "aiperf"])
@pytest.mark.parametrize("value", BAD_TIMES)
def test_a_time_no_recording_reaches_is_refused_in_one_line(tmp_path, capsys, source, value):
    path = _with_time(tmp_path, source, value)
    code, err = _console(["--replay", path], capsys)
    assert code == 2 and err.count("\n") == 1
    rule = f"'{value}': not a finite number" if value.lower() in ("nan", "inf", "-inf") else \
        f"{value} s: past the 1e9 s (31 years) a recording can reach"
    assert f"sample 2 has the time {rule}" in err


@pytest.mark.parametrize("source", [DEMO_RECORDING, OURS], ids=["nvml-raw", "aiperf"])
def test_a_negative_time_is_still_refused_and_a_sound_recording_passes_the_checks(tmp_path, capsys, source):
    code, err = _console(["--replay", _with_time(tmp_path, source, "-1", row=1)], capsys)
    assert code == 2 and "sample 1 has the time -1 s: times must not be negative" in err
    code, err = _console(["--replay", _with_time(tmp_path, source, "0.0", row=1)], capsys)
    assert code == 2 and "needs a terminal" in err  # the recording's checks passed; no terminal in a test


def test_the_reports_still_skip_such_a_row_as_damaged(tmp_path):
    """aiperf-stats reads the same file: a row with such a time is left out (README: nan/inf read as a missing
    sample), the rest kept. Only the replay, which would play the clock, refuses it."""
    from aiperf_lab.metrics.telemetry.replay import why_not_replayable

    path = _with_time(tmp_path, OURS, "nan")
    recording = read_recording(path)
    assert recording.bad_time == (2, "nan") and len(recording.ticks) == 2
    assert why_not_replayable(read_recording(OURS)) is None


def test_a_fifo_a_device_and_a_folder_are_named_for_what_they_are(tmp_path, capsys):
    fifo = tmp_path / "recording.csv"
    os.mkfifo(fifo)
    for path, kind in [(fifo, "a FIFO, not a regular file"), (Path(os.devnull), "a character device, not a regular file"),
                       (tmp_path, "is a folder, not a recording")]:
        code, err = _console(["--replay", path], capsys)
        assert code == 2 and err.count("\n") == 1 and kind in err, err
    code, err = _console(["--replay", tmp_path / "missing.csv"], capsys)
    assert code == 2 and "no such recording" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused_at_once_not_read():
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", "--replay", "/dev/zero"], capture_output=True,
                          text=True, cwd=REPO, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "aiperf-console: --replay /dev/zero: a character device, not a regular file (a recording is read from a file)\n"
