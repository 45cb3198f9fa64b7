"""The large-table reports check the values they read as they read them (no separate scan first): a wrong
value in any column they read is still one line naming that column, exit 2; a value in a column they do
not read changes nothing."""

from __future__ import annotations

import sqlite3
from itertools import cycle

import pytest

from fuzz_cases import LM, mutate_export, run_stats

from aiperf_lab.metrics.nsys.db import integers_or_none

KERNEL, RUNTIME = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"
# What nsys never writes where it writes an integer: text, NULL, a blob, infinities, a real, an empty text,
# and (for times) a value whose difference with another could overflow.
BAD_ANYWHERE = ["'soon'", "NULL", "X'00ff'", "1e999", "-1e999", "0.5", "''", "'12,13'"]
BAD_TIME = BAD_ANYWHERE + ["-9223372036854775808", "4611686018427387904"]
# Report -> the kernel and launch-call columns it reads.
READS = {
    "nvtx_kern_sum": ({"start", "end", "correlationId", "globalPid", "demangledName"},
                      {"start", "end", "correlationId", "globalTid"}),
    "nvtx_gpu_proj_sum": ({"start", "end", "correlationId", "globalPid"}, {"start", "end", "correlationId", "globalTid"}),
    "cuda_kern_exec_sum": ({"start", "end", "correlationId", "globalPid", "deviceId", "demangledName"},
                           {"start", "end", "correlationId", "globalTid", "nameId"}),
    "cuda_gpu_kern_sum": ({"start", "end", "demangledName"}, set()),
    "cuda_api_sum": (set(), {"start", "end", "nameId"}),
}
CASES = []
_values = cycle(BAD_TIME)
for _report, (_kernel_columns, _call_columns) in READS.items():
    for _table, _columns in ((KERNEL, _kernel_columns), (RUNTIME, _call_columns)):
        for _column in sorted(_columns):
            value = next(_values)
            if _column not in ("start", "end") and value not in BAD_ANYWHERE:
                value = BAD_ANYWHERE[len(CASES) % len(BAD_ANYWHERE)]
            CASES.append((_report, _table, _column, value))


@pytest.fixture(scope="module")
def rows():
    """A kernel of the H200 export and its launching call: rows every report above reads."""
    con = sqlite3.connect(LM)
    found = con.execute(f"SELECT k.rowid, r.rowid FROM {KERNEL} AS k JOIN {RUNTIME} AS r "
                        "ON r.correlationId = k.correlationId LIMIT 1").fetchone()
    con.close()
    return {KERNEL: found[0], RUNTIME: found[1]}


@pytest.mark.parametrize("report, table, column, value", CASES)
def test_a_wrong_value_in_a_column_read_is_named(tmp_path, rows, report, table, column, value):
    path = mutate_export(LM, tmp_path / "m.sqlite", table, column, value, rows[table])
    outcome = run_stats([path, "--report", report, "--format", "csv"])
    assert outcome.code == 2 and outcome.err.count("\n") == 1, (outcome.code, outcome.err)
    assert f"{table}.{column} holds a value that is not" in outcome.err
    assert outcome.out == ""


@pytest.mark.parametrize("report", ["nvtx_kern_sum", "cuda_gpu_kern_sum"])
def test_a_column_not_read_does_not_matter(tmp_path, rows, report):
    clean = run_stats([LM, "--report", report, "--format", "csv"])
    path = mutate_export(LM, tmp_path / "m.sqlite", KERNEL, "streamId", "'soon'", rows[KERNEL])
    assert run_stats([path, "--report", report, "--format", "csv"]).out == clean.out


def test_integers_or_none_accepts_only_integers():
    assert integers_or_none("1,-2,30", 3) == [1, -2, 30]
    assert integers_or_none(None, 0) == [] and integers_or_none(None, 1) is None
    for text in ("1,2.0", "1,Inf", "1,1e5", "1,true", "1,null", "1,,3", "1,-", "1,007", "1,[2]", "1, 2"):
        assert integers_or_none(text, 3 if text.count(",") == 2 else 2) is None, text
    assert integers_or_none("1,2", 3) is None  # a NULL skipped by group_concat


NVTX_CASES = [("start", "'soon'"), ("start", "0.5"), ("end", "X'00ff'"), ("end", "4611686018427387904"),
              ("globalTid", "'main'"), ("textId", "1e999"), ("domainId", "0.5"), ("text", "X'00ff'"),
              ("endGlobalTid", "'x'"), ("eventType", "'push'")]


@pytest.mark.parametrize("report", ["nvtx_kern_sum", "nvtx_sum", "nvtx_gpu_proj_sum"])
@pytest.mark.parametrize("column, value", NVTX_CASES)
def test_a_wrong_value_in_a_range_read_is_named(tmp_path, report, column, value):
    con = sqlite3.connect(LM)
    row = con.execute("SELECT min(rowid) FROM NVTX_EVENTS WHERE eventType = 59").fetchone()[0]
    con.close()
    path = mutate_export(LM, tmp_path / "m.sqlite", "NVTX_EVENTS", column, value, row)
    outcome = run_stats([path, "--report", report, "--format", "csv"])
    assert outcome.code == 2 and f"NVTX_EVENTS.{column} holds a value that is not" in outcome.err, outcome.err


@pytest.mark.parametrize("report", ["cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_kern_sum", "nvtx_gpu_proj_trace",
                                    "cuda_kern_exec_sum"])
def test_a_read_split_over_threads_gives_the_same_table(monkeypatch, report):
    from aiperf_lab.metrics.nsys import db

    whole = run_stats([LM, "--report", report, "--format", "csv"])
    monkeypatch.setattr(db, "SPLIT_ROWS", 50)
    monkeypatch.setattr(db.os, "cpu_count", lambda: 3)
    split = run_stats([LM, "--report", report, "--format", "csv"])
    assert whole.code == split.code == 0 and split.out == whole.out
