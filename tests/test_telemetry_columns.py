"""Telemetry recordings read in chunks into columns (issue 11: a 900,000-row recording took 3 GB and
17 s): the chunks, the grouped slow fields and the reports read from columns give what the whole read
and the reports over Tick objects gave. Small inputs; the big ones are in benchmarks/energy_scale.py."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.energy.clocks import Alignment
from aiperf_lab.metrics.energy.power import series_from_recording
from aiperf_lab.metrics.telemetry import columns as col_module
from aiperf_lab.metrics.telemetry import recording as rec
from aiperf_lab.metrics.telemetry.recording import Recording, read_recording
from aiperf_lab.metrics.telemetry.summary import telemetry_findings, telemetry_summary

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "h100" / "energy_04ex03_stall_telemetry.csv"


def _variant(tmp_path: Path, name: str, edit) -> Path:
    """The fixture's rows changed by `edit(rows, header, rng)`, written back with its metadata line."""
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    meta, rows = lines[0], list(csv.reader(lines[1:]))
    header, body = rows[0], rows[1:]
    body = edit(body, {h: i for i, h in enumerate(header)}, random.Random(name))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *body])
    path = tmp_path / f"{name}.csv"
    path.write_text(meta + "\n" + out.getvalue(), encoding="utf-8", newline="")
    return path


def _shuffled(body, col, rng):
    body = body * 3
    rng.shuffle(body)
    return body


def _two_gpus_lost_and_odd(body, col, rng):
    rows = []
    for row in body:
        other = list(row)
        other[col["gpu"]] = "1"
        other[col["temp_c"]] = str(rng.randint(30, 90))      # a slow field that changes every row
        if rng.random() < 0.05:
            other[col["lost"]] = "1"
        if rng.random() < 0.03:
            other[col["power_w"]] = rng.choice(["", "N/A", "nan", "12 W", "1,5"])
        rows += [row, other]
        if rng.random() < 0.02:
            rows.append([row[0]] + [""] * (len(row) - 1))         # a host-only row
        if rng.random() < 0.01:
            rows.append(row[:5])                                 # cut short
    return rows


EDITS = {"as_recorded": lambda body, col, rng: body, "shuffled": _shuffled, "two_gpus": _two_gpus_lost_and_odd}


def _whole(path: Path, monkeypatch) -> Recording:
    """The file read as one piece of text: one block of records."""
    monkeypatch.setattr(rec, "READ_BYTES", 10 ** 9)
    return read_recording(path)


def _in_small_chunks(path: Path, monkeypatch, read_bytes: int = 9000) -> Recording:
    """The file read `read_bytes` at a time: blocks of about 40 records (9,000 bytes)."""
    monkeypatch.setattr(rec, "READ_BYTES", read_bytes)
    return read_recording(path)


def _as_ticks(recording: Recording) -> Recording:
    """The same recording held as Tick objects only (as the other layouts and a live feed hold theirs)."""
    return Recording(recording.path, recording.layout, recording.devices, recording.ticks, recording.meta,
                     recording.status_updates, recording.utc_origin_ns)


@pytest.mark.parametrize("name", sorted(EDITS))
def test_chunks_and_groups_read_as_one_whole_read(tmp_path, monkeypatch, name):
    path = _variant(tmp_path, name, EDITS[name])
    whole, chunked = _whole(path, monkeypatch), _in_small_chunks(path, monkeypatch)
    assert chunked.ticks == whole.ticks and len(whole.ticks) > 1000
    assert (chunked.devices, chunked.status_updates, chunked.utc_origin_ns, chunked.duration_s) == \
        (whole.devices, whole.status_updates, whole.utc_origin_ns, whole.duration_s)


@pytest.mark.parametrize("name", sorted(EDITS))
def test_reports_from_columns_are_the_reports_from_ticks(tmp_path, monkeypatch, name):
    recording = _in_small_chunks(_variant(tmp_path, name, EDITS[name]), monkeypatch)
    ticks = _as_ticks(read_recording(recording.path))
    assert recording.columns is not None and ticks.columns is None
    for report in (telemetry_summary, telemetry_findings):
        from_columns = report(recording.devices, series_of=recording.series)
        from_ticks = report(ticks.devices, ticks.ticks)
        assert (from_columns.rows, from_columns.notes) == (from_ticks.rows, from_ticks.notes)
        assert from_columns.rows
    alignment = Alignment(offset_ns=-123_456_789, telemetry_origin_utc_ns=0, profile_epoch_ns=0,
                          profile_source="test")
    for device in recording.devices:
        a, b = series_from_recording(recording, device.index, alignment), \
            series_from_recording(ticks, device.index, alignment)
        assert (a.times_ns, a.watts, a.power_source, a.counter_j, a.counter_points, a.integral_j) == \
            (b.times_ns, b.watts, b.power_source, b.counter_j, b.counter_points, b.integral_j)


def test_text_split_in_any_place_reads_the_same(tmp_path, monkeypatch):
    """A BOM, CRLF line ends and quoted cells holding a newline, with the file read 1,000 bytes at a
    time: a block never cuts a line or a quoted cell."""
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    body = [line.replace(",instant,", ',"inst\nant",', 1) if k % 97 == 0 else line for k, line in enumerate(lines)]
    path = tmp_path / "odd_text.csv"
    path.write_bytes(("\ufeff" + "\r\n".join(body) + "\r\n").encode("utf-8"))
    whole, chunked = _whole(path, monkeypatch), _in_small_chunks(path, monkeypatch, 1000)
    assert chunked.ticks == whole.ticks and chunked.meta == whole.meta and chunked.meta["rate_hz"] == 100.0
    assert any(s.power_source == "inst\nant" for tick in whole.ticks for s in tick.gpus)


def test_a_recording_keeps_columns_not_sample_objects():
    recording = read_recording(FIXTURE)
    assert recording._ticks is None  # nothing made per sample until a replay asks for the ticks
    table = telemetry_summary(recording.devices, series_of=recording.series)
    assert recording._ticks is None and table.rows[0][1] == len(recording.series(0)) > 2000
    assert len(recording.ticks) == len(recording.columns.t) and recording._ticks is not None


def test_more_distinct_rows_than_groups_are_read_row_by_row(tmp_path, monkeypatch):
    """Every slow field different on each row: no grouping (each row its own group), same values."""
    def distinct(body, col, rng):
        for k, row in enumerate(body):
            row[col["sm_clock_mhz"]] = str(1000 + k)
        return body
    recording = _in_small_chunks(_variant(tmp_path, "distinct", distinct), monkeypatch)
    assert len(recording.columns.tables["gpu"]) == len(recording.columns.t)
    clocks = [s.sm_clock_mhz for tick in recording.ticks for s in tick.gpus]
    assert clocks == [1000.0 + k for k in range(len(clocks))]


def test_groups_are_shared_across_chunks(monkeypatch):
    recording = _in_small_chunks(FIXTURE, monkeypatch)
    assert len(recording.columns.tables["gpu"]) < len(recording.columns.t) / 4
    assert col_module.GROUPED_NUMBER_FIELDS and "power_w" in col_module.ROW_FIELDS


def _covering_per_sample(times, windows):
    """The per-sample search covering_windows_of made before it searched per window."""
    import math
    from bisect import bisect_left
    from itertools import repeat
    from operator import add, le, sub

    ends = [g.t for g in windows]
    starts = [g.t - g.window_s for g in windows] + [math.inf]
    first = list(map(bisect_left, repeat(ends), map(sub, times, repeat(1e-6))))
    began = map(le, map(starts.__getitem__, first), map(add, times, repeat(1e-6)))
    return [g if ok else None for g, ok in zip(map((windows + [None]).__getitem__, first), began)]


def test_covering_windows_searched_per_window_are_the_per_sample_search():
    from aiperf_lab.metrics.telemetry.model import GpmSample
    from aiperf_lab.metrics.telemetry.summary import covering_windows_of

    for seed in range(300):
        rng = random.Random(seed)
        times = sorted(rng.choice([round(rng.uniform(0, 20), rng.choice([0, 1, 4])), rng.uniform(0, 20)])
                       for _ in range(rng.randint(1, 80)))
        ends = sorted({rng.choice([round(rng.uniform(0, 22), 1), rng.choice(times) + rng.choice([0, 1e-6, -1e-6])])
                       for _ in range(rng.randint(1, 12))})  # distinct ends: one order of the windows
        windows = [GpmSample(end, rng.choice([0.0, 0.5, 1.0, 2.0, 1e-6])) for end in ends]
        carried = [rng.choice(windows + [None]) for _ in times]
        used = [g for g in windows if any(g is c for c in carried)]
        assert list(map(id, covering_windows_of(times, carried))) == list(map(id, _covering_per_sample(times, used)))


def test_replay_check_of_columns_says_what_the_walk_over_ticks_says(tmp_path, monkeypatch):
    """aiperf-console --replay refuses a negative time in the same words without making the ticks."""
    from aiperf_lab.console.cli import _checked_recording
    from aiperf_lab.errors import InputError

    def negative(body, col, rng):
        body[7][col["t_s"]] = "-1.5"
        return body
    path = _variant(tmp_path, "negative", negative)
    with pytest.raises(InputError) as from_columns:
        _checked_recording(path, read_recording)
    with pytest.raises(InputError) as from_ticks:
        _checked_recording(path, lambda p: _as_ticks(read_recording(p)))
    # the reader noted the row (body[7]: sample 8); ticks alone are in time order, so they name none
    assert "sample 8 has the time -1.5 s: times must not be negative" in str(from_columns.value)
    assert "a sample has the time -1.5 s" in str(from_ticks.value)
    fine = _checked_recording(FIXTURE, read_recording)
    assert fine._ticks is None  # checked without making a Tick


def _spread_over(gpus: int):
    """Each row's GPU id cycled over `gpus` ids (some lost, some far apart), the rows three times over."""
    def edit(body, col, rng):
        rows = []
        for k, row in enumerate(body * 3):
            row = list(row)
            row[col["gpu"]] = str((k % gpus) * 1000 if k % gpus == gpus - 1 else k % gpus)
            if rng.random() < 0.02:
                row[col["lost"]] = "1"
            rows.append(row)
        return rows
    return edit


def test_a_recording_of_as_many_gpus_as_the_bound_gives_the_reports_of_its_ticks(tmp_path, monkeypatch):
    recording = _in_small_chunks(_variant(tmp_path, "bound", _spread_over(col_module.MAX_GPUS)), monkeypatch)
    ticks = _as_ticks(read_recording(recording.path))
    assert len(recording.devices) == col_module.MAX_GPUS
    for report in (telemetry_summary, telemetry_findings):
        from_columns = report(recording.devices, series_of=recording.series)
        from_ticks = report(ticks.devices, ticks.ticks)
        assert (from_columns.rows, from_columns.notes) == (from_ticks.rows, from_ticks.notes)
    assert len(telemetry_summary(recording.devices, series_of=recording.series).rows) == col_module.MAX_GPUS


def test_more_distinct_gpu_ids_than_one_host_has_are_refused_in_one_line(tmp_path, monkeypatch):
    """A gpu column that differs on every row (81,000 ids took over 300 s, quadratic in the ids): refused
    as soon as a block of records names more than MAX_GPUS, saying the count and the bound."""
    path = _variant(tmp_path, "too_many", _spread_over(col_module.MAX_GPUS + 1))
    for read_bytes in (9000, 10 ** 9):
        with pytest.raises(InputError) as caught:
            _in_small_chunks(path, monkeypatch, read_bytes)
        message = str(caught.value)
        assert "\n" not in message and f"{col_module.MAX_GPUS + 1} distinct GPU ids" in message
        assert f"over the {col_module.MAX_GPUS}" in message and message.startswith(str(path))


def test_an_nvidia_smi_log_of_more_gpus_than_the_bound_is_refused(tmp_path):
    lines = ["timestamp, index, power.draw [W]"]
    lines += [f"2026/11/23 10:00:{k // 100:02d}.{k % 100:03d}, {k}, 100.0" for k in range(col_module.MAX_GPUS + 1)]
    path = tmp_path / "smi.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{col_module.MAX_GPUS + 1} distinct GPU ids"):
        read_recording(path)
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    assert len(read_recording(path).devices) == col_module.MAX_GPUS
