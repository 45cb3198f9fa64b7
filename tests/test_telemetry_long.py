"""Long telemetry recordings (issue 11, a 900,000-row recording took minutes): the reader converts a
column's cells in one pass (each distinct odd cell once), and the summaries' means are the same sums
done over columns. Sizes here are small; the timings are in benchmarks/energy_scale.py."""

from __future__ import annotations

import gc
import random

import pytest

from aiperf_lab.metrics.telemetry import recording as rec
from aiperf_lab.metrics.telemetry.model import GpmSample, GpuSample, Tick
from aiperf_lab.metrics.telemetry.recording import COLUMNS, TelemetryWriter, read_recording
from aiperf_lab.metrics.telemetry.summary import (_covering_windows_unsorted, _weighted_mean, covering_windows,
                                                  telemetry_findings, telemetry_summary)


def _write(path, rows: int):
    writer = TelemetryWriter.to_path(path)
    writer.utc_origin_ns = 1_700_000_000_000_000_000
    for i in range(rows):
        t = i / 100
        gpm = GpmSample(t - t % 1, 1.0, sm_active_pct=40.0 + i // 100 % 5, tensor_pct=10.0, dram_pct=20.0)
        writer.write(Tick(t, [GpuSample(t, 0, 300.0 + i % 7, "instant", 310.0, 700.0, t * 300.0, "counter",
                                        90.0 + i % 3, 40.0, 1 << 30, 80 << 30, 60.0, 1980.0, 2619.0, 4 if i % 9 else 0,
                                        gpm=gpm)], None), {})
    writer.close()
    return path


def test_a_long_recording_converts_each_distinct_odd_cell_once(tmp_path, monkeypatch):
    """Every cell went through _number (16 calls a row); now a column of plain numbers goes through
    float() in C and a column with odd cells (empty, units, N/A) converts each distinct cell once."""
    path = _write(tmp_path / "long.csv", 20_000)
    from aiperf_lab.metrics.telemetry import cells
    calls = []
    number = cells.number
    monkeypatch.setattr(cells, "number", lambda text: calls.append(text) or number(text))
    recording = read_recording(path)
    assert len(recording.ticks) == 20_000
    assert recording.ticks[-1].gpus[0].power_w == 300.0 + 19_999 % 7
    assert recording.ticks[-1].gpus[0].gpm.sm_active_pct == 40.0 + 199 % 5
    assert len(calls) < 5_000   # 17 per GPM window (200), and the distinct cells of odd columns: not 16 a row


def test_odd_cells_read_as_one_cell_at_a_time_would(tmp_path):
    header = COLUMNS
    col = {name: i for i, name in enumerate(header)}
    odd = ["81.72 W", "1,234", "N/A", "[Not Supported]", "nan", "inf", "", " 5 ", "1e3", "-0", "x"]
    lines = [",".join(header)]
    for k, cell in enumerate(odd * 3):
        row = [""] * len(header)
        row[col["t_s"]], row[col["gpu"]] = f"{k / 10:.4f}", "0"
        for name in ("power_w", "mem_used_bytes", "temp_c", "clock_event_reasons", "util_gpu_pct"):
            row[col[name]] = f'"{cell}"' if "," in cell else cell
        lines.append(",".join(row))
    lines.append("9.0,0,1.5")  # cut short: skipped
    path = tmp_path / "odd.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    samples = [s for tick in read_recording(path).ticks for s in tick.gpus]
    assert len(samples) == 3 * len(odd)
    for s, cell in zip(samples, odd * 3):
        assert s.power_w == rec._number(cell) and s.temp_c == rec._number(cell) and s.util_gpu_pct == rec._number(cell)
        assert s.mem_used_bytes == rec._int(cell) and s.clock_event_reasons == rec._int(cell)
        assert type(s.mem_used_bytes) in (int, type(None))


def test_reading_leaves_the_collector_as_it_found_it(tmp_path):
    path = _write(tmp_path / "t.csv", 50)
    assert gc.isenabled()
    read_recording(path)
    assert gc.isenabled()
    gc.disable()
    try:
        read_recording(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_weighted_mean_is_the_loop_over_the_pairs():
    rng = random.Random(11)
    for _ in range(200):
        values = [rng.choice([None, rng.uniform(0, 100), rng.randint(0, 5)]) for _ in range(rng.randint(0, 40))]
        weights = [rng.choice([0.0, rng.uniform(0, 0.02)]) for _ in values]
        pairs = [(v, w) for v, w in zip(values, weights) if v is not None]
        total = sum(w for _v, w in pairs)
        expected = sum(v * w for v, w in pairs) / total if pairs and total > 0 else None
        assert _weighted_mean(values, weights) == expected


def test_covering_windows_by_search_match_the_walk():
    rng = random.Random(4)
    for _ in range(100):
        windows = [GpmSample(float(rng.randint(0, 30)), rng.choice([0.5, 1.0, 2.0]), sm_active_pct=float(k))
                   for k in range(rng.randint(0, 8))]
        times = sorted(rng.uniform(-1, 32) for _ in range(rng.randint(0, 60)))
        series = [GpuSample(t, 0, gpm=rng.choice(windows + [None])) for t in times]
        found = covering_windows(series)
        distinct = {(s.gpm.t, s.gpm.window_s): s.gpm for s in series if s.gpm is not None}
        assert found == _covering_windows_unsorted(times, sorted(distinct.values(), key=lambda g: g.t))


def test_summary_and_findings_of_a_long_recording(tmp_path):
    recording = read_recording(_write(tmp_path / "long.csv", 5_000))
    row = dict(zip(telemetry_summary(recording.devices, recording.ticks).columns,
                   telemetry_summary(recording.devices, recording.ticks).rows[0]))
    assert row["samples"] == 5_000
    assert row["util_gpu_avg_pct"] == pytest.approx(91.0, abs=0.01)
    assert row["sm_active_avg_pct"] == pytest.approx(42.0, abs=0.05)
    assert row["clock_event_power_cap_pct"] == pytest.approx(100 * 8 / 9, abs=0.1)
    findings = telemetry_findings(recording.devices, recording.ticks)
    assert any("while busy (50.0 s" in r[3] for r in findings.rows)
