"""nvidia-smi query logs at scale (issue 11 item 16; a 400,000-row log took 6.8 s of CPU and 464 MB for
`aiperf-stats FILE --list-reports`): timestamps are not read by strptime row by row, the rows are held as
columns (no GpuSample or Tick per row until a replay asks for ticks), and the reports print what they printed
over the Tick objects. The work is counted here; the time is in benchmarks/smi_scale.py."""

from __future__ import annotations

import _strptime
import math
import tracemalloc
from datetime import datetime
from pathlib import Path

import pytest

from aiperf_lab.metrics.telemetry import model
from aiperf_lab.metrics.telemetry.columns import series_of_ticks
from aiperf_lab.metrics.telemetry.recording import read_recording
from aiperf_lab.metrics.telemetry.summary import telemetry_findings, telemetry_summary
from smi_logs import FORMAT, REAL, bytes_a_row, grow


def _grown(tmp_path: Path, rows: int, gpus: int = 0) -> Path:
    return grow(tmp_path / f"smi_{rows}_{gpus}.csv", rows, gpus)


class _Counter:
    def __init__(self, target):
        self.target, self.calls = target, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.target(*args, **kwargs)


def _count_inits(monkeypatch, cls) -> list[int]:
    made = [0]
    init = cls.__init__

    def counted(self, *args, **kwargs):
        made[0] += 1
        init(self, *args, **kwargs)
    monkeypatch.setattr(cls, "__init__", counted)
    return made


def test_timestamps_are_not_parsed_by_strptime_row_by_row(tmp_path, monkeypatch):
    path = _grown(tmp_path, 3000)
    counter = _Counter(_strptime._strptime_datetime)
    monkeypatch.setattr(_strptime, "_strptime_datetime", counter)
    recording = read_recording(path)
    assert counter.calls <= 2, f"{counter.calls} strptime calls for 3,000 rows"
    # the times are still strptime's, to the last bit
    monkeypatch.undo()
    stamps = [datetime.strptime(line.split(",")[0], FORMAT).timestamp()
              for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert list(recording.series(0).t) == [s - stamps[0] for s in stamps]


def test_reports_make_no_object_per_row(tmp_path, monkeypatch):
    path = _grown(tmp_path, 2000, gpus=2)
    samples = _count_inits(monkeypatch, model.GpuSample)
    ticks = _count_inits(monkeypatch, model.Tick)
    recording = read_recording(path)
    summary = telemetry_summary(recording.devices, series_of=recording.series)
    findings = telemetry_findings(recording.devices, series_of=recording.series)
    assert (samples[0], ticks[0]) == (0, 0)
    # a replay still gets every sample, and the reports over its ticks print the same
    assert sum(len(tick.gpus) for tick in recording.ticks) == 2000 and samples[0] == 2000
    assert summary.rows == telemetry_summary(recording.devices, recording.ticks).rows
    assert findings.rows == telemetry_findings(recording.devices, recording.ticks).rows
    assert [row[1] for row in summary.rows] == [1000, 1000]


def test_memory_held_is_columns_not_rows(tmp_path):
    path = _grown(tmp_path, 20000)
    tracemalloc.start()
    try:
        recording = read_recording(path)
        peak = tracemalloc.get_traced_memory()[1]
        telemetry_summary(recording.devices, series_of=recording.series)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # held: 8 doubles and a GPU id a row (about 85 bytes with the reports' columns, 126), where a GpuSample
    # and a Tick a row held about 500; the peak of the read: those and one block of rows (4,096) as text
    assert held < 200 * 20000, f"{held / 20000:.0f} bytes held a row"
    assert peak < 900 * 20000, f"{peak / 20000:.0f} bytes a row at the peak"




@pytest.mark.parametrize("gpus", [0, 4])
def test_the_reports_hold_no_list_of_numbers_a_row(tmp_path, gpus):
    # issue 11 item 16, memory bounded by the report: 400,000 rows took 181 MB for telemetry_summary where
    # --list-reports took 74. A GPU's series is its columns (each GPU's own, as read; a copy only where its
    # rows are out of time order), worked out with no list of the rows' positions and times (main: 81 bytes a row at
    # its peak); the reports over it take a few arrays of doubles (the weights, the times searched for GPM
    # windows: 8 bytes a row each), not a list of floats per column (32 bytes a row; main: 229 in all)
    recording = read_recording(_grown(tmp_path, 20000, gpus))
    held, peak = bytes_a_row(lambda: [recording.series(device.index) for device in recording.devices], 20000)
    if not gpus:
        assert held < 40 and peak < 10, f"series: {held:.0f} bytes a row held, {peak:.0f} more at its peak"
    for report in (telemetry_summary, telemetry_findings):
        peak = sum(bytes_a_row(lambda: report(recording.devices, series_of=recording.series), 20000))
        assert peak < 40, f"{report.__name__}: {peak:.0f} bytes a row at its peak"


@pytest.mark.parametrize("stamp", ["2026/11/22 02:06:28.210", "2026/11/22 02:06:28.2", "2026/11/22 02:06:28.123456",
                                   "2026/1/2 3:4:5.5", "2024/02/29 23:59:59.999", "1970/01/01 00:00:00.000"])
def test_stamp_reader_gives_strptime_float(stamp):
    from aiperf_lab.metrics.telemetry.smi import StampReader

    read = StampReader()
    # the stamp, then others of its second (the whole second is remembered), then the stamp again
    for text in [stamp, stamp[:-1] + "7", stamp[:-1] + "0", stamp]:
        assert read(text) == datetime.strptime(text, FORMAT).timestamp(), text


@pytest.mark.parametrize("stamp", ["2026/02/30 02:06:28.210", "2026/13/01 02:06:28.210", "2026/11/22 24:06:28.210",
                                   "2026/11/22 02:06:60.210", "2026/11/22 02:06:28.1234567", "2026/11/22 02:06:28",
                                   "0000/01/01 00:00:00.000", "2026/11/22 02:06:28.\u0663"])
def test_stamp_reader_refuses_what_strptime_refuses(stamp):
    from aiperf_lab.metrics.telemetry.smi import StampReader

    with pytest.raises((ValueError, OverflowError, OSError)):
        datetime.strptime(stamp, FORMAT).timestamp()
    with pytest.raises((ValueError, OverflowError, OSError)):
        StampReader()(stamp)


def test_rows_whose_gpu_index_is_no_number_are_skipped(tmp_path):
    path = _grown(tmp_path, 300, gpus=3)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].replace(", 1, ", ", x, ", 1)  # was: TypeError sorting None with the ints
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recording = read_recording(path)
    assert [d.index for d in recording.devices] == [0, 1, 2]
    rows = telemetry_summary(recording.devices, series_of=recording.series).rows
    assert [row[1] for row in rows] == [100, 99, 100]


def test_clock_stepped_back_and_repeated_times_read_as_the_ticks_do(tmp_path):
    lines = REAL.read_text(encoding="utf-8").splitlines()
    body = lines[1:]
    body[40:50] = [line.replace("02:06:3", "02:06:2", 1) for line in body[40:50]]
    body.insert(30, body[29])
    body.insert(12, "")
    body.insert(13, "2026/11/22 02:06:31.000, 81")
    path = tmp_path / "stepped.csv"
    path.write_text("\n".join([lines[0], *body]) + "\n", encoding="utf-8")
    recording = read_recording(path)
    by_columns = recording.series(0)
    by_ticks = series_of_ticks(recording.ticks, 0)
    for name in ("t", "power_w", "energy_j", "util_gpu_pct", "mem_used_bytes", "temp_c", "sm_clock_mhz"):
        same = [a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(getattr(by_columns, name),
                                                                            getattr(by_ticks, name))]
        assert all(same) and len(same) == len(by_ticks), name
    assert by_columns.power_source == by_ticks.power_source and by_columns.energy_source == by_ticks.energy_source
