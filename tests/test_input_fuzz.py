"""Every aiperf-stats report over crafted hostile files and mutated real fixtures: exit 0 or one line with
exit 2, within 10 s, valid JSON, no raw control characters (bounded: a few seconds in CI; the longer
run is benchmarks/fuzz_stats.py)."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from fuzz_cases import (CRAFTED_TRACES, EXPORT_CELLS, LM, HOSTILE_NAMES, HOSTILE_SQL_VALUES, NCU_FILES, SMI_LOG, TRACE,
                        check_all_reports, export_with_names, export_with_generated_column, export_with_osrt_injection,
                        export_with_recursive_view, mutate_bytes, mutate_export, ncu_variants, REPORTS, run_stats,
                        small_export, telemetry_variants)

from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING, read_recording

FAST = settings(max_examples=12, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return small_export(tmp_path_factory.mktemp("small") / "small.sqlite")


def test_the_ncu_nan_reproducer_gives_valid_json_with_null():
    outcome = run_stats([NCU_FILES[0], "--report", "ncu_metrics", "--format", "json"])
    assert outcome.problem("json") is None, outcome.err
    rows = json.loads(outcome.out)[0]["rows"]
    assert any(row["Value"] is None for row in rows)  # ncu wrote nan there
    assert all(not isinstance(row["Value"], float) or row["Value"] == row["Value"] for row in rows)


@pytest.mark.parametrize("value", HOSTILE_SQL_VALUES)
def test_hostile_values_in_the_kernel_table(small, tmp_path, value):
    for column in ("start", "end", "demangledName"):
        path = mutate_export(small, tmp_path / f"{column}.sqlite", "CUPTI_ACTIVITY_KIND_KERNEL", column, value)
        assert check_all_reports(path, "nsys", formats=("json",)) == []


def test_a_text_start_is_named_in_the_one_line_error(small, tmp_path):
    path = mutate_export(small, tmp_path / "t.sqlite", "CUPTI_ACTIVITY_KIND_KERNEL", "start", "'soon'")
    outcome = run_stats([path, "--report", "cuda_gpu_kern_sum"])
    assert outcome.code == 2 and "CUPTI_ACTIVITY_KIND_KERNEL.start" in outcome.err


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cell=st.sampled_from(EXPORT_CELLS), value=st.sampled_from(HOSTILE_SQL_VALUES), row=st.integers(1, 5))
def test_hostile_values_anywhere_a_report_reads(small, tmp_path, cell, value, row):
    path = mutate_export(small, tmp_path / "m.sqlite", *cell, value, row)
    reports = ["cuda_gpu_kern_sum", "nvtx_sum", "nvtx_kern_sum", "osrt_sum", "cuda_gpu_mem_size_sum",
               "expert_findings", "nvtx_gpu"]
    assert check_all_reports(path, "nsys", formats=("json",), reports=reports) == []


def test_markup_and_escape_sequences_in_names_are_shown_not_obeyed(small, tmp_path):
    path = export_with_names(small, tmp_path / "names.sqlite", HOSTILE_NAMES)
    assert check_all_reports(path, "nsys", formats=("table", "csv", "json")) == []
    table = run_stats([path, "--report", "cuda_gpu_kern_sum", "--limit", "50"]).out
    assert "[bold]red[/bold]" in table and "\\x1b[2J" in table  # shown literally, escaped


def test_csv_keeps_normal_names_byte_for_byte_and_escapes_control_characters(small, tmp_path):
    path = export_with_names(small, tmp_path / "names.sqlite", ["plain_kernel<float>(int)", "esc\x1b[31m"])
    out = run_stats([path, "--report", "cuda_gpu_kern_sum", "--format", "csv"]).out
    assert "plain_kernel<float>(int)" in out and "esc\\x1b[31m" in out and "\x1b" not in out


def test_bidirectional_controls_in_names_are_escaped_in_every_format(small, tmp_path):
    # U+202E shows the rest of a line backwards in a terminal; U+2066-2069 and U+200F likewise reorder it.
    names = ["evil\u202egnp.exe_kernel", "iso\u2066late\u2069", "rlm\u200fmark"]
    path = export_with_names(small, tmp_path / "bidi.sqlite", names)
    for fmt in ("table", "csv"):
        out = run_stats([path, "--report", "cuda_gpu_kern_sum", "--format", fmt, "--limit", "50"]).out
        assert not any(ch in out for ch in "\u202e\u2066\u2069\u200f"), fmt
        assert "\\u202e" in out and "\\u2066" in out, fmt


def test_megabyte_kernel_names_are_categorized_from_their_first_64k_characters(small, tmp_path):
    # Three 5 MB kernel names took the overview 14 s: every category rule searched all of each name.
    path = export_with_names(small, tmp_path / "long.sqlite", ["a" * 70_000 + "_gemm_kernel", "x" * 300_000])
    outcome = run_stats([path, "--report", "kernel_breakdown", "--format", "json"])
    assert outcome.problem("json") is None, outcome.err
    table = json.loads(outcome.out)[0]
    assert {row["Category"] for row in table["rows"]} <= {"other", "memcpy/memset"}  # "gemm" lies past the cut
    assert any("categorized from their first 65,536" in note for note in table["notes"]), table["notes"]
    assert len(run_stats([path, "--report", "cuda_gpu_kern_sum"]).out) < 50_000  # the table cuts names


def test_a_damaged_export_whose_calls_share_one_correlation_id_is_refused_fast(tmp_path):
    # The real export with every kernel and call numbered 1: SQL's join would repeat each of the 582
    # kernels once per call (1.3 million rows, 37 s for one trace report); a real export never shares one.
    path = tmp_path / "collide.sqlite"
    shutil.copyfile(LM, path)
    con = sqlite3.connect(path)
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"):
        con.execute(f"UPDATE {table} SET correlationId = 1")
    con.commit()
    con.close()
    for report in ("cuda_kern_exec_trace", "cuda_kern_exec_sum", "nvtx_gpu", "nvtx_kern_sum", "nvtx_gpu_proj_sum"):
        outcome = run_stats([path, "--report", report, "--format", "csv"])
        assert outcome.code == 2 and outcome.err.count("\n") == 1, (report, outcome.err[:300])
        assert "damaged export" in outcome.err and outcome.seconds < 10, report
    clean = run_stats([LM, "--report", "cuda_kern_exec_trace", "--format", "csv"])
    assert clean.code == 0 and clean.out.count("\n") == 583     # one row per kernel, as nsys gives


def test_a_recursive_view_as_kernel_table_is_not_run(small, tmp_path):
    path = export_with_recursive_view(small, tmp_path / "view.sqlite")
    assert check_all_reports(path, "nsys", formats=("json",)) == []


def test_a_kernel_table_with_a_virtual_generated_column_is_refused(small, tmp_path):
    # SQLite computes a VIRTUAL column at every read: an expression such as hex(zeroblob(20e6)) made
    # one report of a 1.8 MB export run 70 s (the expression here is cheap; the refusal is what is checked).
    path = export_with_generated_column(small, tmp_path / "virtual.sqlite", "dn + 0", "VIRTUAL")
    for report in ([], ["--report", "cuda_gpu_kern_sum"], ["--report", "cuda_gpu_trace"]):
        outcome = run_stats([path, *report, "--format", "csv"])
        assert outcome.code == 2 and outcome.err.count("\n") == 1, (report, outcome.err[:300])
        assert "CUPTI_ACTIVITY_KIND_KERNEL.demangledName" in outcome.err and "generated" in outcome.err


def test_a_stored_generated_column_is_read_as_stored(small, tmp_path):
    # A STORED column is computed when the row is written and read like any other: same numbers.
    path = export_with_generated_column(small, tmp_path / "stored.sqlite", "dn + 0", "STORED")
    for report in ("cuda_gpu_kern_sum", "cuda_gpu_trace"):
        clean = run_stats([small, "--report", report, "--format", "csv"])
        stored = run_stats([path, "--report", report, "--format", "csv"])
        assert clean.code == 0 and clean.out.count("\n") > 2
        assert (stored.code, stored.out) == (0, clean.out.replace(str(small), str(path))), stored.err[:300]


def _string_ids_without_key(source, target, copies: int):
    """The export with StringIds rebuilt without its primary key, each kernel-name id `copies` times."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    con.executescript("CREATE TABLE s2 AS SELECT * FROM StringIds; DROP TABLE StringIds; "
                      "ALTER TABLE s2 RENAME TO StringIds;")
    ids = [i for (i,) in con.execute("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    con.executemany("INSERT INTO StringIds(id, value) VALUES (?, ?)",
                    [(i, f"copy{i}_{k}") for i in ids for k in range(copies - 1)])
    con.commit()
    con.close()
    return target


def test_an_export_whose_string_ids_repeat_is_refused_by_every_report(small, tmp_path):
    # Without nsys's primary key, 3,000 copies of each of 40 name ids made cuda_gpu_trace run 270 s in
    # 2.4 GB (each kernel joined to every copy); a name read from such a table could be any copy.
    path = _string_ids_without_key(small, tmp_path / "repeated.sqlite", 3)
    for report in [None, *REPORTS["nsys"]]:
        outcome = run_stats([path, "--format", "csv", *(["--report", report] if report else [])])
        assert outcome.code == 2 and outcome.err.count("\n") == 1, (report, outcome.err[:300])
        assert "StringIds holds id" in outcome.err and " 3 times" in outcome.err, (report, outcome.err)


def test_an_export_whose_string_ids_are_unique_without_the_key_reads_as_the_export(small, tmp_path):
    path = _string_ids_without_key(small, tmp_path / "unkeyed.sqlite", 1)
    for report in ("cuda_gpu_trace", "cuda_api_sum"):
        clean = run_stats([small, "--report", report, "--format", "csv"])
        unkeyed = run_stats([path, "--report", report, "--format", "csv"])
        assert clean.code == 0 and clean.out.count("\n") > 2
        assert (unkeyed.code, unkeyed.out) == (0, clean.out.replace(str(small), str(path))), unkeyed.err[:300]


def test_osrt_sum_does_not_build_sql_from_enum_values(small, tmp_path):
    clean = run_stats([small, "--report", "osrt_sum", "--format", "csv"])
    path = export_with_osrt_injection(small, tmp_path / "inject.sqlite")
    crafted = run_stats([path, "--report", "osrt_sum", "--format", "csv"])
    # The text id is not an integer: the export is refused in one line, or read as it stands; never
    # does the crafted row widen the filter (which would drop every call).
    assert crafted.problem("csv") is None
    assert crafted.code == 2 or crafted.out == clean.out


@pytest.mark.parametrize("name", sorted(CRAFTED_TRACES))
def test_crafted_kineto_traces(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(CRAFTED_TRACES[name], encoding="utf-8")
    assert check_all_reports(path, "torch", formats=("json", "table")) == []


def test_malformed_kineto_events_are_counted_in_a_note(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(CRAFTED_TRACES["cat_list"])
    outcome = run_stats([path, "--report", "cuda_gpu_kern_sum", "--format", "json"])
    assert outcome.code == 0
    assert any("1 events of the trace were skipped" in n for n in json.loads(outcome.out)[0]["notes"])


def test_a_gzip_bomb_is_refused_quickly(tmp_path, monkeypatch):
    import gzip
    import time

    from aiperf_lab.metrics import json_stream

    monkeypatch.setattr(json_stream, "GZIP_FLOOR_BYTES", 32 << 20)  # the real floor: benchmarks/fuzz_stats.py

    path = tmp_path / "bomb.json.gz"
    blanks = gzip.compress(b" " * (16 << 20), compresslevel=9)  # one gzip member: 16 MiB of blanks
    with path.open("wb") as handle:
        handle.write(gzip.compress(b'{"traceEvents": ['))
        for _ in range(64):  # 1 GiB once inflated, about 1 MB on disk
            handle.write(blanks)
    began = time.monotonic()
    outcome = run_stats([path])
    assert outcome.code == 2 and "bomb" in outcome.err and outcome.err.count("\n") == 1
    assert time.monotonic() - began < 10


def _event_bomb(path, events: int, isize: int | None = None):
    """A .json.gz of `events` identical kernel events (about 100 bytes each, 300x smaller once
    compressed), its trailer's declared size replaced by `isize` if given."""
    import gzip
    event = b'{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"pid":0,"tid":7,"args":{"device":0,"stream":7}},'
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, mode="wb", compresslevel=9, mtime=0) as handle:
        handle.write(b'{"traceEvents": [')
        for _ in range(events // 10_000):
            handle.write(event * 10_000)
        handle.write(event[:-1] + b"]}")
    data = bytearray(packed.getvalue())
    if isize is not None:
        data[-4:] = isize.to_bytes(4, "little")
    path.write_bytes(bytes(data))
    return path


def _events_read_before_refusal(path) -> int:
    from aiperf_lab.metrics.json_stream import TraceReader
    from aiperf_lab.errors import InputError

    read = 0
    with pytest.raises(InputError, match="decompression bomb"):
        for _ in TraceReader(path).events():
            read += 1
    return read


def test_a_gzip_bomb_of_events_is_refused_before_its_events_are_read(tmp_path, monkeypatch):
    # rt5 F7: 20M identical kernel events, 6.7 MB on disk: 6.4M of them were parsed (103 s, 1.15 GB) before
    # the total passed 100x the file's size. Its trailer says what it inflates to: refused before inflating.
    from aiperf_lab.metrics import json_stream

    monkeypatch.setattr(json_stream, "GZIP_FLOOR_BYTES", 1 << 20)
    path = _event_bomb(tmp_path / "bomb.json.gz", 1_000_000)  # 100 MB inflated, about 330 kB on disk
    assert _events_read_before_refusal(path) == 0
    outcome = run_stats([path, "--report", "cuda_gpu_kern_sum"])
    assert outcome.code == 2 and "declares" in outcome.err and outcome.err.count("\n") == 1


def test_a_gzip_bomb_whose_trailer_lies_is_refused_at_the_floor(tmp_path, monkeypatch):
    # The trailer is a lie (a gzip's own check of it comes only at its end): the ratio of what was inflated
    # to what was read refuses it once the floor (4 MiB here) is passed, not at 100x the file's size (33 MB).
    from aiperf_lab.metrics import json_stream

    monkeypatch.setattr(json_stream, "GZIP_FLOOR_BYTES", 4 << 20)
    monkeypatch.setattr(json_stream, "CHUNK_BYTES", 1 << 16)  # (as at the real floor: many reads before it)
    monkeypatch.setattr(json_stream, "SMALL_DOCUMENT_BYTES", 1 << 16)
    path = _event_bomb(tmp_path / "liar.json.gz", 1_000_000, isize=1000)
    # The floor is inflated and dropped before any event is parsed (rt5: 13 s CPU of parsing at a 128 MiB floor).
    assert _events_read_before_refusal(path) == 0
    outcome = run_stats([path, "--report", "cuda_gpu_kern_sum"])
    assert outcome.code == 2 and "100x what it has read" in outcome.err and outcome.err.count("\n") == 1


def test_a_gzip_just_past_the_floor_at_a_true_ratio_is_read(tmp_path, monkeypatch):
    # The check before parsing refuses only a ratio past 100x: a true trace, several times the floor, still reads.
    import gzip
    from aiperf_lab.metrics import json_stream

    monkeypatch.setattr(json_stream, "GZIP_FLOOR_BYTES", 64 << 10)
    plain = run_stats([TRACE, "--report", "cuda_gpu_kern_sum", "--format", "csv"])
    packed = tmp_path / "trace.json.gz"
    packed.write_bytes(gzip.compress(TRACE.read_bytes()))
    assert TRACE.stat().st_size > 4 * (64 << 10)
    reader = json_stream.TraceReader(packed)
    assert sum(1 for _ in reader.events()) > 100
    assert run_stats([packed, "--report", "cuda_gpu_kern_sum", "--format", "csv"]).out == plain.out


def test_a_true_gzip_trace_is_read_as_the_plain_one(tmp_path):
    import gzip
    plain = run_stats([TRACE, "--report", "cuda_gpu_kern_sum", "--format", "csv"])
    packed = tmp_path / "trace.json.gz"
    packed.write_bytes(gzip.compress(TRACE.read_bytes()))
    assert plain.code == 0 and plain.out.count("\n") > 2
    assert run_stats([packed, "--report", "cuda_gpu_kern_sum", "--format", "csv"]).out == plain.out


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_kineto_trace(tmp_path, seed):
    data = TRACE.read_bytes()
    path = tmp_path / "m.json"
    path.write_bytes(mutate_bytes(data, random.Random(seed)))
    assert check_all_reports(path, "torch", formats=("json",), reports=["cuda_gpu_kern_sum", "gpu_idle"]) == []


@pytest.mark.parametrize("source", [DEMO_RECORDING, SMI_LOG], ids=["nvml-raw", "nvidia-smi"])
def test_hostile_telemetry_recordings(tmp_path, source):
    for name, text in telemetry_variants(source.read_text()).items():
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        assert check_all_reports(path, "telemetry", formats=("json", "table")) == [], name


def test_a_truncated_nvidia_smi_log_reads_its_complete_rows(tmp_path):
    text = SMI_LOG.read_text()
    path = tmp_path / "cut.csv"
    path.write_text(text[: len(text) // 2 + 7])
    recording = read_recording(path)
    complete = text[: len(text) // 2 + 7].count("\n") - 1
    assert recording.layout == "nvidia-smi" and len(recording.ticks) == complete


@FAST
@given(seed=st.integers(0, 2**32 - 1), source=st.sampled_from([DEMO_RECORDING, SMI_LOG]))
def test_mutated_telemetry(tmp_path, seed, source):
    path = tmp_path / "m.csv"
    path.write_bytes(mutate_bytes(source.read_bytes()[:20_000], random.Random(seed), edits=6))
    assert check_all_reports(path, "telemetry", formats=("json",)) == []


@pytest.mark.parametrize("name", sorted(ncu_variants()))
def test_hostile_ncu_csv(tmp_path, name):
    path = tmp_path / f"{name}.csv"
    path.write_text(ncu_variants()[name])
    assert check_all_reports(path, "ncu", formats=("json", "table")) == []


@FAST
@given(seed=st.integers(0, 2**32 - 1), source=st.sampled_from(NCU_FILES))
def test_mutated_ncu_csv(tmp_path, seed, source):
    path = tmp_path / "m.csv"
    path.write_bytes(mutate_bytes(source.read_bytes()[:60_000], random.Random(seed), edits=6))
    assert check_all_reports(path, "ncu", formats=("json",)) == []


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_export_pages(small, tmp_path, seed):
    """Byte damage inside the SQLite file itself (pages, not cells)."""
    rng = random.Random(seed)
    data = bytearray(small.read_bytes())
    for _ in range(8):
        at = rng.randrange(100, len(data))
        data[at] = rng.randrange(256)
    path = tmp_path / "m.sqlite"
    path.write_bytes(bytes(data))
    assert check_all_reports(path, "nsys", formats=("json",), reports=["cuda_gpu_kern_sum", "nvtx_sum",
                                                                         "osrt_sum", "gpu_idle"]) == []


# --- paths --------------------------------------------------------------------------------------

def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.sqlite"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(fifo)], capture_output=True,
                          text=True, timeout=20, cwd=REPO)
    assert done.returncode == 2 and "not a regular file" in done.stderr and done.stderr.count("\n") == 1


def test_a_file_name_with_a_newline_prints_one_line(tmp_path):
    path = tmp_path / "bad\nname\x1b[2J.sqlite"
    path.write_bytes(b"not sqlite at all")
    outcome = run_stats([path])
    assert outcome.code == 2 and outcome.err.count("\n") == 1 and "\x1b" not in outcome.err
    assert "bad\\nname\\x1b[2J" in outcome.err


def test_a_5000_character_path_gives_one_line_exit_2(tmp_path):
    outcome = run_stats([tmp_path / ("a" * 5000 + ".sqlite")])
    assert outcome.code == 2 and outcome.err.count("\n") == 1 and len(outcome.err) < 2100


def test_a_malformed_schema_error_is_one_line(small, tmp_path):
    path = tmp_path / "schema.sqlite"
    path.write_bytes(small.read_bytes())
    con = sqlite3.connect(path)
    con.execute("PRAGMA writable_schema = ON")
    con.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE x(\n a,\n b\n' || char(10) || 'oops' "
                "WHERE name = 'StringIds'")
    con.commit()
    con.close()
    outcome = run_stats([path])
    assert outcome.problem("table") is None and outcome.code == 2


@pytest.mark.parametrize("source, name", [(DEMO_RECORDING, "negative_times"), (DEMO_RECORDING, "backwards_times"),
                                          (SMI_LOG, "inf_values"), (SMI_LOG, "truncated_mid_row")])
def test_hostile_recordings_replay_without_error(tmp_path, source, name):
    """What `aiperf-console --replay FILE` does with the recording: read it, then play it."""
    from aiperf_lab.metrics.telemetry.replay import ReplayFeed

    path = tmp_path / f"{name}.csv"
    path.write_text(telemetry_variants(source.read_text())[name])
    feed = ReplayFeed(read_recording(path), speed=1000.0).start()
    assert feed.finished.wait(10)
    feed.stop()
    assert feed.ring.latest() is not None and feed.ring.latest().t >= 0


def test_printable_passes_a_name_whole_only_when_no_character_needs_escaping():
    # printable() skips its regex when str.isprintable() holds (a 5 MB kernel name: 0.1 s a call in
    # the regex); that is exact only if every character the regex escapes is one isprintable() rejects.
    from aiperf_lab.inputs import _UNPRINTABLE, printable

    accepted = "".join(c for c in map(chr, range(0x110000)) if c.isprintable())
    assert _UNPRINTABLE.search(accepted) is None
    assert printable("k<float>\u00e9\u65e5") == "k<float>\u00e9\u65e5"
    assert printable("a\u202eb\u200bc\x1b") == "a\\u202eb\u200bc\\x1b"  # U+200B is shown, not escaped


def test_string_ids_are_known_unique_from_the_schema_where_it_says_so(small, tmp_path):
    from aiperf_lab.metrics.nsys.db import NsysDatabase
    keyed = NsysDatabase(small)
    assert keyed._string_ids_unique_by_schema()
    path = _string_ids_without_key(small, tmp_path / "unkeyed.sqlite", 1)
    assert not NsysDatabase(path)._string_ids_unique_by_schema()
    con = sqlite3.connect(path)
    con.execute("CREATE UNIQUE INDEX by_id ON StringIds(id)")
    con.commit()
    con.close()
    assert NsysDatabase(path)._string_ids_unique_by_schema()


# --- SQLite's own files beside an export (h16x) ---------------------------------------------------

def test_a_fifo_beside_an_export_under_sqlites_journal_name_is_refused_without_blocking(small, tmp_path):
    # SQLite opens "<export>-journal" to see whether it is a hot journal: a FIFO there blocked the
    # reader for ever (the export itself a regular file).
    export = tmp_path / "run.sqlite"
    shutil.copyfile(small, export)
    suffix = "-journal"
    os.mkfifo(f"{export}{suffix}")
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(export), "-f", "json"],
                          capture_output=True, text=True, timeout=20, cwd=REPO)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"run.sqlite{suffix}" in done.stderr and "not a regular file" in done.stderr


def test_a_regular_journal_beside_an_export_is_left_to_sqlite(small, tmp_path):
    export = tmp_path / "run.sqlite"
    shutil.copyfile(small, export)
    open(f"{export}-journal", "wb").close()   # empty: not a hot journal, SQLite ignores it
    outcome = run_stats([export, "-r", "cuda_gpu_kern_sum", "-f", "json"])
    assert outcome.code == 0 and json.loads(outcome.out)


# --- notices before a refusal, CSV column names (h16x) --------------------------------------------

def test_a_bundle_without_a_profile_refusing_a_report_prints_one_line(tmp_path):
    # The bundle's notice ("holds no profile ... its telemetry.csv only") was printed before the
    # refusal of the report: two lines for one exit 2.
    bundle = REPO / "tests" / "data" / "triage" / "h200-fixture.tar.gz"
    outcome = run_stats([bundle, "-r", "cuda_gpu_kern_sum"])
    assert outcome.code == 2 and outcome.err.count("\n") == 1, outcome.err
    assert "cuda_gpu_kern_sum" in outcome.err
    shown = run_stats([bundle, "-r", "telemetry_summary", "-f", "json"])  # where it goes on, the notice stays
    assert shown.code == 0 and "holds no profile" in shown.err and json.loads(shown.out)


def test_ranks_in_file_order_refusing_a_report_prints_one_line(small, tmp_path):
    first, second = tmp_path / "alpha.sqlite", tmp_path / "beta.sqlite"
    shutil.copyfile(small, first)
    shutil.copyfile(small, second)
    outcome = run_stats([first, second, "-r", "telemetry_summary"])
    assert outcome.code == 2 and outcome.err.count("\n") == 1, outcome.err


def test_csv_column_names_never_carry_control_characters(tmp_path):
    stall = REPO / "tests" / "data" / "h100"
    outcome = run_stats([stall / "energy_04ex03_stall.sqlite", "--telemetry", stall / "energy_04ex03_stall_telemetry.csv",
                         "-r", "energy_by_category", "--work", "100", "--work-unit", "tok\x1b]52;c;aGk=\x07", "-f", "csv"])
    assert outcome.code == 0 and outcome.problem("csv") is None, outcome.problem("csv")
    assert "tok\\x1b]52;c;aGk=\\x07" in outcome.out.splitlines()[0]


# --- a run folder's run.json as aiperf-stats reads it for the work count (h16x) -----------------------

@pytest.mark.parametrize("run_json", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"measurements": [1, 2]}',
    b'{"measurements": "text"}',
    b'{"measurements": {"work": ' + b"9" * 400 + b', "work_unit": "tok"}}',
    b'{"measurements": {"work": 1e400, "work_unit": "tok"}}',
    '{"measurements": {"work": 10}}'.encode("utf-16"),
], ids=["nested", "list", "text", "huge_int", "inf", "utf16"])
def test_a_run_folders_hostile_run_json_never_crashes_a_report(small, tmp_path, run_json):
    shutil.copyfile(small, tmp_path / "profile.sqlite")
    (tmp_path / "run.json").write_bytes(run_json)
    for report in (None, "energy_by_category"):
        outcome = run_stats([tmp_path, "-f", "json"] + (["-r", report] if report else []))
        assert outcome.problem("json") is None, outcome.problem("json")


# --- the `# aiperf-telemetry` line of a recording (h16x) -------------------------------------------

@pytest.mark.parametrize("devices", ["5", '"abc"', "[5]", '{"a": 1}', '[{"index": [1]}]', '[{"index": {"a": 1}}]',
                                     '[{"index": true, "name": 3}]'])
def test_a_recordings_metadata_line_with_wrong_typed_devices_is_read_without_it(tmp_path, devices):
    bundle = REPO / "tests" / "data" / "triage" / "h200-fixture.tar.gz"
    import tarfile
    with tarfile.open(bundle) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/telemetry.csv"))
        body = tar.extractfile(member).read().decode()
    path = tmp_path / "telemetry.csv"
    path.write_text('# aiperf-telemetry {"devices": ' + devices + "}\n" + body)
    for report in (None, "telemetry_summary"):
        outcome = run_stats([path, "-f", "json"] + (["-r", report] if report else []))
        assert outcome.code == 0 and outcome.problem("json") is None, outcome.problem("json")
    plain = tmp_path / "plain.csv"
    plain.write_text(body)
    assert read_recording(path).devices == read_recording(plain).devices


# --- a Kineto trace's baseTimeNanoseconds (h16x) ---------------------------------------------------------

@pytest.mark.parametrize("base", ["1e400", "-1e400", '"1e400"', '"9' + '9' * 5000 + '"', "NaN"])
def test_an_infinite_or_unreadable_base_time_is_no_base_time(tmp_path, base):
    from fuzz_cases import _ANNOTATION, _KERNEL, _LAUNCH, kineto_document
    path = tmp_path / "trace.json"
    path.write_text(kineto_document([_LAUNCH, _KERNEL, _ANNOTATION], f'"baseTimeNanoseconds": {base}, '))
    for report in (None, "gpu_idle"):
        outcome = run_stats([path, "-f", "json"] + (["-r", report] if report else []))
        assert outcome.code == 0 and outcome.problem("json") is None, outcome.problem("json")
