"""Energy by NVTX range and by kernel category, on a synthetic telemetry + export pair with a known
clock offset (tests/energy_synth.py), and the clock alignment itself."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from pathlib import Path

import pytest

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.energy.attribution import IDLE, OUTSIDE, TOTAL
from aiperf_lab.metrics.energy.clocks import ProfileClock, align, lag_estimate
from aiperf_lab.metrics.energy.power import PowerSeries
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.sources import ReportOptions, open_profile
from aiperf_lab.metrics.telemetry.recording import read_recording
from energy_synth import COPY_W, GEMM_W, IDLE_W, S, SESSION_UTC_NS, build_export, true_energy, write_telemetry


@pytest.fixture()
def pair(tmp_path):
    export = build_export(tmp_path / "profile.sqlite")
    telemetry = write_telemetry(tmp_path / "telemetry.csv")
    return export, telemetry


def _rows(table):
    return {row[0]: dict(zip(table.columns, row)) for row in table.rows}


def test_recording_carries_its_utc_origin(pair):
    _export, telemetry = pair
    recording = read_recording(telemetry)
    assert recording.utc_origin_ns == SESSION_UTC_NS + S // 2


def test_alignment_recovers_the_known_offset(pair):
    export, telemetry = pair
    from aiperf_lab.metrics.energy.clocks import nsys_clock
    clock = nsys_clock(NsysDatabase(export))
    alignment = align(read_recording(telemetry).utc_origin_ns, clock)
    assert alignment.offset_ns == S // 2            # the sampler started 0.5 s after the session
    assert alignment.to_profile_ns(1.25) == 1_750_000_000


def test_old_recording_without_clock_is_refused_in_one_line(tmp_path):
    with pytest.raises(InputError, match="no absolute clock"):
        align(None, ProfileClock(1, "x"), "telemetry.csv")


@pytest.mark.parametrize("report", ["energy_by_range", "energy_by_category"])
def test_a_recording_whose_header_has_no_clock_is_refused_before_its_rows_are_read(pair, tmp_path, monkeypatch,
                                                                                   report):
    # (a 11 MB one was read whole, 10 s, before the refusal its header already gave)
    from aiperf_lab.metrics.telemetry import columns
    export, telemetry = pair
    lines = telemetry.read_text(encoding="utf-8").splitlines()
    header_at = next(k for k, line in enumerate(lines) if line.startswith("t_s,"))
    utc = lines[header_at].split(",").index("utc_ns")
    clockless = tmp_path / "old.csv"
    clockless.write_text("\n".join(",".join(cell for k, cell in enumerate(line.split(",")) if k != utc)
                                   if n >= header_at else line for n, line in enumerate(lines)) + "\n",
                         encoding="utf-8")
    read_rows = []
    monkeypatch.setattr(columns.SampleColumns, "add_cells", lambda self, cells: read_rows.append(cells))
    with pytest.raises(InputError, match="old.csv: the recording has no absolute clock"):
        open_profile(export).report(report, ReportOptions(telemetry=clockless))
    assert read_rows == []


def test_energy_by_range_matches_the_true_energy(pair):
    export, _telemetry = pair
    profile = open_profile(export)   # telemetry.csv found beside the export
    table = profile.report("energy_by_range")[0]
    rows = _rows(table)
    for name, (a, b) in {":matmul": (1, 4), ":copy": (4, 7), ":sleep": (7, 10), ":matmul/inner": (2, 3)}.items():
        expected = true_energy(a * S, b * S)
        assert rows[name]["Energy (J)"] == pytest.approx(expected, rel=0.005), name
        assert rows[name]["Instances"] == 1
    assert rows[":matmul"]["Depth"] == 0 and rows[":matmul/inner"]["Depth"] == 1
    assert rows[":matmul"]["Avg Power (W)"] == pytest.approx(GEMM_W, rel=0.005)
    assert rows[":matmul"]["Peak Power (W)"] == pytest.approx(GEMM_W)
    assert rows[":copy"]["Avg Power (W)"] == pytest.approx(COPY_W, rel=0.01)
    span = true_energy(0.5 * S, 12 * S)  # the telemetry starts 0.5 s into the 12 s capture
    assert rows[TOTAL]["Energy (J)"] == pytest.approx(span, rel=0.002)
    # the total counts each instant once: outermost ranges + outside = the span (the nested one is not added)
    top = sum(rows[n]["Energy (J)"] for n in (":matmul", ":copy", ":sleep", OUTSIDE))
    assert top == pytest.approx(rows[TOTAL]["Energy (J)"], rel=1e-6)
    assert rows[OUTSIDE]["Energy (J)"] == pytest.approx(true_energy(0.5 * S, S) + true_energy(10 * S, 12 * S), rel=0.01)
    assert any("0.500 s outside" in n or "11.500 s of the profile" in n for n in table.notes)
    assert any("energy counter gives" in n for n in table.notes)


def test_energy_by_category_tiles_the_span_and_shows_idle(pair):
    export, telemetry = pair
    table = open_profile(export).report("energy_by_category", ReportOptions(telemetry=telemetry))[0]
    rows = _rows(table)
    assert rows["gemm"]["Energy (J)"] == pytest.approx(3 * GEMM_W, rel=0.005)
    assert rows["memcpy/memset"]["Energy (J)"] == pytest.approx(3 * COPY_W, rel=0.01)
    idle_expected = true_energy(0.5 * S, S) + true_energy(7 * S, 12 * S)
    assert rows[IDLE]["Energy (J)"] == pytest.approx(idle_expected, rel=0.01)
    assert rows[IDLE]["Avg Power When Running (W)"] == pytest.approx(IDLE_W, rel=0.02)
    parts = sum(r["Energy (J)"] for name, r in rows.items() if name != TOTAL)
    assert parts == pytest.approx(rows[TOTAL]["Energy (J)"], rel=1e-6)
    # the rows sum to the counter's energy for the span within 1%
    counter_note = next(n for n in table.notes if "energy counter gives" in n)
    percent = float(counter_note.rsplit("(", 1)[1].rstrip("%)"))
    assert abs(percent) < 1.0


def test_overlapping_categories_split_the_power_equally(tmp_path):
    from aiperf_lab.metrics.analysis import GpuOp
    from aiperf_lab.metrics.energy.attribution import Timeline, energy_by_category
    ops = [GpuOp("gemm_kernel", "kernel", 0, 7, 0, 2 * S), GpuOp("[CUDA memcpy Host-to-Device]", "memcpy", 0, 8, S, 3 * S)]
    power = PowerSeries(0, [0, 4 * S], [100.0, 100.0], "instant", None)
    rows = _rows(energy_by_category(Timeline("t", (0, 4 * S), ops, []), power, None))
    assert rows["gemm"]["Energy (J)"] == pytest.approx(100 + 50)      # alone 0-1 s, shared 1-2 s
    assert rows["memcpy/memset"]["Energy (J)"] == pytest.approx(50 + 100)
    assert rows[IDLE]["Energy (J)"] == pytest.approx(100)
    assert rows["gemm"]["Time (s)"] == pytest.approx(2.0)


def test_joules_per_unit_column(pair):
    export, telemetry = pair
    table = open_profile(export).report("energy_by_range", ReportOptions(work=8192, work_unit="tokens"))[0]
    assert table.columns[-1] == "J/tokens"
    row = _rows(table)[TOTAL]
    assert row["J/tokens"] == pytest.approx(row["Energy (J)"] / 8192)


def test_lag_check_finds_a_known_clock_error(tmp_path):
    export = build_export(tmp_path / "profile.sqlite")
    write_telemetry(tmp_path / "telemetry.csv", clock_error_s=0.08)  # utc_ns 80 ms late
    table = open_profile(export).report("energy_by_category")[0]
    note = next(n for n in table.notes if "check from the data" in n)
    lag_ms = -float(note.split("shifted by ")[1].split(" ms")[0])
    # within one sample period (10 ms) of the error put in: a sampled step is a 10 ms ramp
    assert lag_ms == pytest.approx(80, abs=10)


def test_lag_estimate_is_zero_on_exact_clocks():
    times = list(range(0, 10 * S + 1, 10_000_000))
    busy = [(2 * S, 4 * S), (6 * S, 7 * S)]
    watts = [500.0 if any(a <= t < b for a, b in busy) else 100.0 for t in times]
    lag, r = lag_estimate(times, watts, busy)
    assert abs(lag) <= 10_000_000 and r > 0.95   # within one sample period


def test_run_folder_and_cli(tmp_path, pair):
    export, telemetry = pair
    (tmp_path / "run.json").write_text(json.dumps({"measurements": {"work": 1000, "work_unit": "steps"}}))
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(tmp_path), "--report",
                           "energy_by_range,energy_by_category", "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    assert [t["report"] for t in tables] == ["energy_by_range", "energy_by_category"]
    assert "J/steps" in tables[0]["columns"]


def test_cli_without_telemetry_says_so(tmp_path):
    export = build_export(tmp_path / "profile.sqlite")
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(export), "--report",
                           "energy_by_range"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "has no telemetry recording with it" in done.stderr and "Traceback" not in done.stderr


def test_export_without_session_start_is_refused(tmp_path):
    from nsys_builder import ExportBuilder
    b = ExportBuilder()
    b.launch(1, 0, 10, "gemm", 100, 1000)
    export = b.write(tmp_path / "old.sqlite")
    telemetry = write_telemetry(tmp_path / "telemetry.csv")
    with pytest.raises(InputError, match="no session start time"):
        open_profile(export).report("energy_by_range", ReportOptions(telemetry=telemetry))


def test_telemetry_from_another_time_is_refused(tmp_path):
    export = build_export(tmp_path / "profile.sqlite")
    write_telemetry(tmp_path / "telemetry.csv", offset_s=3600)
    with pytest.raises(InputError, match="does not overlap"):
        open_profile(export).report("energy_by_range")


def test_lab_derived_measurements_and_history_compare(tmp_path):
    """What a lab run keeps of the energy tables: named measurements for checks, and the energy diff
    the History compare shows between two runs."""
    from aiperf_lab.labs.analyses import derive
    from aiperf_lab.labs.history import load_run, compare_runs
    from aiperf_lab.metrics.tables import to_csv

    folders = []
    for i, scale in enumerate((1.0, 2.0)):
        folder = tmp_path / f"run{i}"
        (folder / "tables").mkdir(parents=True)
        build_export(folder / "profile.sqlite", kernel_ns=int(1_000_000 * scale))
        write_telemetry(folder / "telemetry.csv", offset_s=0.5 * scale)
        profile = open_profile(folder / "profile.sqlite")
        tables = {t.name: t for r in ("energy_by_range", "energy_by_category") for t in profile.report(r)}
        for t in tables.values():
            (folder / "tables" / f"{t.name}.csv").write_text(to_csv(t))
        derived = derive(tables, {})
        (folder / "run.json").write_text(json.dumps({"exercise": "04-ex03", "variant": str(i), "measurements": derived}))
        folders.append(folder)
    assert derived["energy_range_matmul_j"] == pytest.approx(3 * GEMM_W, rel=0.005)
    assert derived["energy_gemm_j"] == pytest.approx(3 * GEMM_W, rel=0.005)
    assert 0 < derived["energy_idle_pct"] < 100 and 0 < derived["idle_time_pct"] < 100
    assert abs(derived["energy_counter_diff_percent"]) < 1
    diff = {t.name: t for t in compare_runs(load_run(folders[0]), load_run(folders[1]))}["energy_by_range_diff"]
    rows = {r[0]: r for r in diff.rows}
    # the second run's telemetry starts 1 s into the capture: 0.5 s less of "outside any range"
    assert rows[OUTSIDE][3] == pytest.approx(-0.5 * IDLE_W, abs=5)  # within the 10 ms ramp of a sampled step
    assert rows[":matmul"][4] == pytest.approx(1.0, abs=0.01)


def test_kineto_trace_lines_up_through_base_time(tmp_path):
    """A PyTorch trace: ts in microseconds after baseTimeNanoseconds; the same attribution applies."""
    base = SESSION_UTC_NS - 3 * S    # the trace's zero lies 3 s before the nsys session's
    events = [{"ph": "X", "cat": "user_annotation", "name": "matmul", "pid": 1, "tid": 1,
               "ts": (3 * S + 1 * S) / 1000, "dur": 3e6},
              {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm", "pid": 0, "tid": 7,
               "ts": (3 * S + 1 * S) / 1000, "dur": 3e6, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    trace = tmp_path / "torch_trace.json"
    trace.write_text(json.dumps({"baseTimeNanoseconds": base, "traceEvents": events}))
    write_telemetry(tmp_path / "telemetry.csv")
    rows = _rows(open_profile(trace).report("energy_by_range")[0])
    assert rows["matmul"]["Energy (J)"] == pytest.approx(3 * GEMM_W, rel=0.005)
    rows = _rows(open_profile(trace).report("energy_by_category")[0])
    assert rows["gemm"]["Energy (J)"] == pytest.approx(3 * GEMM_W, rel=0.005)


def test_gpu_check_script_compares_ranges_with_counter_deltas(pair, tmp_path):
    """benchmarks/energy_phases_check.py compare (run by verify_issue16.sh on a GPU), on the synthetic pair:
    boundaries whose counter readings are the true energy, so every range agrees within 1%."""
    from energy_synth import PHASES
    export, telemetry = pair
    marks = []
    for name, (start, end, _w) in PHASES.items():
        phase = name.lstrip(":")
        marks.append({"at": f"{phase} start", "utc_ns": SESSION_UTC_NS + start, "push_utc_ns": SESSION_UTC_NS + start,
                      "energy_mj": 1000 * true_energy(0, start)})
        marks.append({"at": f"{phase} end", "utc_ns": SESSION_UTC_NS + end, "energy_mj": 1000 * true_energy(0, end)})
    boundaries = tmp_path / "boundaries.json"
    boundaries.write_text(json.dumps({"marks": marks}))
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "energy_phases_check.py"
    done = subprocess.run([sys.executable, str(script), "compare", str(export), str(telemetry),
                           str(boundaries)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert len(lines) == 5 and "FAIL" not in done.stdout   # header, three phases, their sum
    assert "+0.000 ms, +0.000 ms, +0.000 ms" in done.stdout   # the synthetic clocks agree exactly


def test_triage_archive_input(tmp_path):
    """A triage bundle (.tar.gz): the export and telemetry.csv are copied out and attributed."""
    import tarfile
    root = tmp_path / "aiperf-triage-host-20261123T000000Z"
    (root / "nsys").mkdir(parents=True)
    build_export(root / "nsys" / "workload.sqlite")
    write_telemetry(root / "telemetry.csv")
    (root / "manifest.json").write_text(json.dumps({"tool": "aiperf-triage", "host": "host"}))
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    profile = open_profile(archive)
    rows = _rows(profile.report("energy_by_range")[0])
    assert rows[":copy"]["Energy (J)"] == pytest.approx(3 * COPY_W, rel=0.01)
    rows = _rows(open_profile(root).report("energy_by_category")[0])   # the same bundle as a folder
    assert rows["memcpy/memset"]["Energy (J)"] == pytest.approx(3 * COPY_W, rel=0.01)


def test_export_with_utc_timestamps_lines_up_without_the_session_offset(tmp_path):
    """`nsys export --ts-normalize` writes UTC nanoseconds: nothing is added to them."""
    from energy_synth import PHASES
    from nsys_builder import ExportBuilder
    b = ExportBuilder()
    b.session_start_utc_ns = SESSION_UTC_NS
    b.analysis_span = (SESSION_UTC_NS, SESSION_UTC_NS + 12 * S)
    start, end, _ = PHASES[":matmul"]
    b.launch(1, SESSION_UTC_NS + start - 100, SESSION_UTC_NS + start - 50, "xmma_gemm", SESSION_UTC_NS + start, end - start)
    b.range(1, SESSION_UTC_NS + start, SESSION_UTC_NS + end, "matmul")
    export = b.write(tmp_path / "profile.sqlite")
    write_telemetry(tmp_path / "telemetry.csv")
    rows = _rows(open_profile(export).report("energy_by_range")[0])
    assert rows[":matmul"]["Energy (J)"] == pytest.approx(3 * GEMM_W, rel=0.005)


def test_lab_runner_writes_energy_tables_scoped_by_the_recipe(tmp_path):
    """The runner's table step on a run folder with an nsys report, its export and telemetry.csv."""
    import os
    from aiperf_lab.labs.runner import _profile_tables
    build_export(tmp_path / "profile.sqlite")
    (tmp_path / "profile.nsys-rep").write_bytes(b"NVIDIA Tegra Profiler Report 2025.3.1")
    os.utime(tmp_path / "profile.nsys-rep", (1, 1))           # older than its export: the export is reused
    write_telemetry(tmp_path / "telemetry.csv")
    notes: list[str] = []
    names, derived = _profile_tables("nsys", tmp_path, notes, {"energy_scope": "matmul"}, work=(3000, "tokens"))
    assert {"energy_by_range", "energy_by_category"} <= set(names), notes
    assert derived["energy_gemm_pct"] == pytest.approx(100, abs=0.5)   # scoped to the matmul phase
    header = (tmp_path / "tables" / "energy_by_category.csv").read_text().splitlines()[0]
    assert header.endswith("J/tokens")


def test_an_archive_that_is_not_a_bundle_is_refused_in_one_line(tmp_path):
    import tarfile
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "telemetry.csv").write_text("x")
    archive = tmp_path / "two.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "a", arcname="a")
        tar.add(tmp_path / "b", arcname="b")
    with pytest.raises(InputError, match="not a triage archive"):
        open_profile(archive)
    (tmp_path / "junk.tar.gz").write_bytes(b"\x1f\x8b not really")
    with pytest.raises(InputError, match="not a triage archive"):
        open_profile(tmp_path / "junk.tar.gz")


def test_a_capture_range_export_is_lined_up_on_the_events_clock(tmp_path):
    # nsys 2025.3 with a capture range (seen on an H100): events timed from the capture's start,
    # ANALYSIS_DETAILS still on the session's clock (start 11.87 s, stop 16.59 s, events 0.01-4.71 s).
    from aiperf_lab.metrics.energy.timelines import _captured_span

    class Op:
        def __init__(self, start, end):
            self.start, self.end = start, end

    notes: list[str] = []
    ops = [Op(34_007_888, 4_564_846_579)]
    assert _captured_span(11_869_618_962, 16_585_874_085, ops, [], notes) == (0, 4_716_255_123)
    assert "capture range" in notes[0]
    assert _captured_span(0, 5_000_000_000, ops, [], []) == (0, 5_000_000_000)       # no capture range
    odd: list[str] = []
    assert _captured_span(90_000_000_000, 91_000_000_000, ops, [], odd) == (34_007_888, 4_564_846_579)
    assert "does not hold the events" in odd[0]


def test_a_real_h100_lab_run_under_a_capture_range_splits_its_energy(tmp_path):
    """04-ex03 (stall) under nsys with a capture range on an H100, with its 100 Hz telemetry."""
    import csv
    import io
    import subprocess
    import sys

    data = Path(__file__).parent / "data" / "h100"
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(data / "energy_04ex03_stall.sqlite"),
                           "--telemetry", str(data / "energy_04ex03_stall_telemetry.csv"), "--report",
                           "energy_by_range", "--format", "csv"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = {r["Range"]: r for r in csv.DictReader(io.StringIO(done.stdout))}
    assert set(rows) >= {":train", ":forward", ":backward", ":optimizer", ":host_work", "(captured span)"}
    assert float(rows[":backward"]["Energy (J)"]) >= 1.3 * float(rows[":forward"]["Energy (J)"])
    assert rows[":forward"]["Instances"] == "12"
    span = float(rows["(captured span)"]["Energy (J)"])
    assert 2000 < span < 2800 and abs(float(rows["(captured span)"]["Time (s)"]) - 4.716255) < 1e-6


def test_a_crafted_bundle_costs_neither_minutes_nor_disk(tmp_path, monkeypatch):
    """aiperf-stats BUNDLE.tar.gz streams the archive once under show's bounds: a member count and an
    unpacked size (a gzip bomb is refused, not written to /tmp), and an error names the bundle."""
    import gzip
    import tarfile
    import tempfile
    from aiperf_lab import safe_tar

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    many = tmp_path / "many.tar.gz"
    with tarfile.open(many, "w:gz") as tar:
        for i in range(60):
            tar.addfile(tarfile.TarInfo(f"b/f{i}"), io.BytesIO(b""))
    monkeypatch.setattr(safe_tar, "MAX_MEMBERS", 50)
    with pytest.raises(InputError, match="more than 50 members"):
        open_profile(many)

    header = tarfile.TarInfo("b/nsys/workload.sqlite")
    header.size = 8 * 1024 * 1024
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(gzip.compress(tarfile.TarInfo("b/manifest.json").tobuf() + header.tobuf()
                                   + b"\0" * header.size, 9))
    monkeypatch.setattr(safe_tar, "UNPACKED_BASE_BYTES", 1024 * 1024)
    monkeypatch.setattr(safe_tar, "UNPACKED_RATIO", 10)
    with pytest.raises(InputError, match="unpacks to more than|declares .* bytes unpacked"):
        open_profile(bomb)
    lying = bytearray(bomb.read_bytes())
    lying[-4:] = (1000).to_bytes(4, "little")    # the trailer lies: the member's own header still says
    bomb.write_bytes(bytes(lying))
    with pytest.raises(InputError, match="declares 8388608 bytes, more than the archive may unpack to"):
        open_profile(bomb)
    assert not any(p.is_file() for p in (tmp_path / "tmp").rglob("*"))   # nothing left behind


def test_an_unreadable_export_in_a_bundle_is_named_by_the_bundle(tmp_path):
    import tarfile
    root = tmp_path / "aiperf-triage-host-20261123T000000Z"
    (root / "nsys").mkdir(parents=True)
    (root / "nsys" / "workload.sqlite").write_bytes(b"SQLite format 3\0" + b"\xff" * 100)
    (root / "manifest.json").write_text(json.dumps({"tool": "aiperf-triage"}))
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    with pytest.raises(InputError) as caught:
        open_profile(archive)
    assert str(archive) in str(caught.value) and "aiperf-energy" not in str(caught.value)


def _damaged(pair, tmp_path, edit) -> Path:
    _export, telemetry = pair
    lines = telemetry.read_text().splitlines()
    damaged = tmp_path / "damaged.csv"
    damaged.write_text("\n".join(edit(lines)) + "\n")
    return damaged


def test_damaged_clock_values_are_skipped_not_crashed_on(pair, tmp_path):
    """A 400-digit wall-clock anchor or a time of 1e300 s is a damaged row (skipped like a row cut short),
    and a metadata line nested past the JSON parser's depth reads as no metadata."""
    def huge_anchor(lines):
        cells = lines[2].split(",")
        cells[-1] = "9" * 400
        return lines[:2] + [",".join(cells)] + lines[3:]

    def huge_time(lines):
        cells = lines[-1].split(",")
        cells[0] = "1e300"
        return lines[:-1] + [",".join(cells)]

    def deep_meta(lines):
        body = lines[1:] if lines[0].startswith("# aiperf-telemetry") else lines
        return ["# aiperf-telemetry " + "[" * 50_000 + "]" * 50_000] + body

    good = read_recording(pair[1])
    for edit in (huge_anchor, huge_time, deep_meta):
        recording = read_recording(_damaged(pair, tmp_path, edit))
        assert recording.utc_origin_ns == good.utc_origin_ns, edit.__name__
        assert abs(len(recording.ticks) - len(good.ticks)) <= 1, edit.__name__


def _depths_by_definition(ranges):
    """The nesting depth as the report defines it, the quadratic way: walked in (start, -end) order per
    lane, a range's depth is the number of still-open ranges that end at or after its end."""
    from collections import defaultdict
    depth, lanes = [0] * len(ranges), defaultdict(list)
    for i, r in enumerate(ranges):
        lanes[r.lane].append(i)
    for indices in lanes.values():
        stack = []
        for i in sorted(indices, key=lambda i: (ranges[i].start, -ranges[i].end)):
            while stack and ranges[stack[-1]].end <= ranges[i].start:
                stack.pop()
            depth[i] = sum(1 for j in stack if ranges[j].end >= ranges[i].end)
            stack.append(i)
    return depth


def test_range_depths_match_the_definition_on_crossing_twin_and_empty_ranges():
    import random

    from aiperf_lab.metrics.energy.attribution import Range, _depths
    rng = random.Random(7)
    for _ in range(150):
        ranges = []
        for _ in range(rng.randint(0, 200)):
            start = rng.randint(0, 40)
            ranges.append(Range("r", start, start + rng.choice([0, 1, rng.randint(0, 25)]), rng.randint(0, 2)))
        assert _depths(ranges) == _depths_by_definition(ranges)


class _CountedRange:
    """A range that counts how often its times are read."""
    reads = 0

    def __init__(self, start, end):
        self._start, self._end, self.name, self.lane = start, end, "r", 0

    @property
    def start(self):
        _CountedRange.reads += 1
        return self._start

    @property
    def end(self):
        _CountedRange.reads += 1
        return self._end


@pytest.mark.parametrize("shape", ["nested", "chained"])
def test_range_depths_read_each_range_a_bounded_number_of_times(shape):
    """120,000 nested ranges (or start/end ranges each crossing the next) took minutes when every range
    counted the open ranges one by one (n^2/2 reads); the depth walk reads each range's times a fixed
    number of times."""
    from aiperf_lab.metrics.energy.attribution import _depths
    n = 3000
    if shape == "nested":
        ranges = [_CountedRange(i, 2 * n - i) for i in range(n)]
    else:
        ranges = [_CountedRange(10 * i, 10 * i + 15) for i in range(n)]
    _CountedRange.reads = 0
    depth = _depths(ranges)
    assert depth == (list(range(n)) if shape == "nested" else [0] * n)
    assert _CountedRange.reads <= 4 * n


def test_batched_energies_and_peaks_equal_the_single_interval_ones():
    import random
    rng = random.Random(3)
    times = sorted(rng.sample(range(0, 10 * S), 3000))
    watts = [rng.uniform(50, 700) for _ in times]
    power = PowerSeries(0, times, watts, "instant", 1234.5)
    intervals = []
    for _ in range(2000):
        a = rng.randint(-S, 11 * S)
        intervals.append((a, a + rng.choice([0, 1, rng.randint(0, 12 * S), rng.randint(0, S // 100)])))
    intervals += [(times[5], times[5]), (times[0], times[-1]), (times[7], times[9])]
    assert power.energies(intervals) == [power.energy(a, b) for a, b in intervals]
    single = []
    for a, b in intervals:
        lo, hi = max(a, power.start), min(b, power.end)
        inside = [w for t, w in zip(times, watts) if lo <= t <= hi]
        single.append(max([*inside, power.power_at(lo), power.power_at(hi)]) if hi >= lo else None)
    assert power.peaks(intervals) == single
    assert [power.peak(a, b) for a, b in intervals] == single


def test_range_maximum_matches_max_of_the_slice():
    import random

    from aiperf_lab.metrics.energy.power import RangeMax
    rng = random.Random(5)
    for n in (0, 1, 63, 64, 65, 128, 129, 1000, 5000):
        values = [rng.uniform(-5, 5) for _ in range(n)]
        table = RangeMax(values)
        for _ in range(300):
            i, j = rng.randint(0, n + 2), rng.randint(0, n + 2)
            assert table.of(i, j) == max(values[i:j], default=None), (n, i, j)


class _CountedSlices(list):
    """A list of samples that counts how many values its slices copy."""
    copied = 0

    def __getitem__(self, key):
        if isinstance(key, slice):
            part = super().__getitem__(key)
            _CountedSlices.copied += len(part)
            return part
        return super().__getitem__(key)


def test_peaks_of_many_long_ranges_do_not_scan_their_samples():
    """Each range's peak was the max of every sample inside it: 100,000 nested ranges over a long recording
    scanned ranges x samples values. A block maximum table reads a bounded number per range."""
    from aiperf_lab.metrics.energy.power import RangeMax
    samples, ranges = 100_000, 2000
    power = PowerSeries(0, list(range(0, samples * 1000, 1000)), _CountedSlices(float(i % 977) for i in range(samples)),
                        "instant", None)
    _CountedSlices.copied = 0
    peaks = power.peaks([(k * 1000 + 1, (samples - k) * 1000 - 1) for k in range(ranges)])
    assert peaks[0] == 976.0
    assert _CountedSlices.copied <= samples + ranges * 2 * RangeMax.BLOCK


def test_the_sample_period_is_worked_out_once_per_series(monkeypatch):
    """energy_by_range asked the median sample period once per range name, each time sorting every step
    between samples: 120,000 distinct names over a long recording took minutes."""
    import builtins

    from aiperf_lab.metrics.energy import power as power_module
    sorts = []
    real_sorted = builtins.sorted
    monkeypatch.setattr(power_module, "sorted", lambda *a, **k: sorts.append(1) or real_sorted(*a, **k), raising=False)
    power = PowerSeries(0, list(range(0, 10_000, 10)), [100.0] * 1000, "instant", None)
    assert [power.period_s() for _ in range(500)] == [1e-08] * 500
    assert len(sorts) == 1


def _telemetry_shifted(tmp_path: Path, shift_ns: int) -> Path:
    """The H100 recording with every sample's utc_ns moved: a file from a host whose clock is off."""
    source = Path(__file__).parent / "data" / "h100" / "energy_04ex03_stall_telemetry.csv"
    lines = source.read_text().splitlines(keepends=True)
    body = []
    for line in lines[2:]:
        head, _, utc = line.rstrip("\n").rpartition(",")
        body.append(f"{head},{int(utc) + shift_ns}\n")
    shifted = tmp_path / "telemetry.csv"
    shifted.write_text("".join(lines[:2] + body))
    return shifted


def _clock_check(tmp_path: Path, shift_ms: int) -> tuple[int, bool]:
    """(the shift the data check names, in ms; whether the notes warn) for the H100 pair, telemetry moved."""
    export = Path(__file__).parent / "data" / "h100" / "energy_04ex03_stall.sqlite"
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(export), "--report", "energy_by_range",
                           "--telemetry", str(_telemetry_shifted(tmp_path, shift_ms * 1_000_000)), "--format", "json"],
                          capture_output=True, text=True, cwd=Path(__file__).parent.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)[0]["notes"]
    check = next(n for n in notes if n.startswith("check from the data"))
    return int(check.split("shifted by ")[1].split(" ms")[0]), any(n.startswith("WARNING: the power series") for n in notes)


@pytest.mark.parametrize("shift_ms", [500, -1000])
def test_telemetry_on_another_clock_is_called_out(tmp_path, shift_ms):
    """Red team EN1: a telemetry file 0.5-2 s off the profile's clock moved energy between ranges 2-4x, and
    the data check, searching 250 ms only, named a small wrong shift. It now finds the real one and warns."""
    same_clock, warned = _clock_check(tmp_path, 0)
    assert not warned and abs(same_clock) < 250
    found, warned = _clock_check(tmp_path, shift_ms)
    assert warned and abs(found - (same_clock - shift_ms)) <= 20, (found, same_clock, shift_ms)
