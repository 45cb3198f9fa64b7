"""Run folders as `python -m aiperf_lab.labs history/compare` and the console's History screen read them:
a damaged or hostile run.json or tables/*.csv is skipped (history) or refused in one line (compare), never
a traceback, and nothing from them reaches the terminal raw."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from aiperf_lab.labs.__main__ import main as labs_main
from aiperf_lab.labs.history import compare_runs, list_runs, load_run

DEMO = Path(__file__).resolve().parents[1] / "aiperf_lab" / "console" / "demo_runs"
RUN = DEMO / "20261122T050335Z-01-ex02-kernel-overlap-baseline"


def _labs(argv: list) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = labs_main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _run_with(tmp_path: Path, run_json: bytes | None = None, table: tuple[str, bytes] | None = None) -> Path:
    folder = tmp_path / "runs" / RUN.name
    shutil.copytree(RUN, folder)
    if run_json is not None:
        (folder / "run.json").write_bytes(run_json)
    if table is not None:
        (folder / "tables" / table[0]).write_bytes(table[1])
    return folder


RECORD = json.loads((RUN / "run.json").read_text())
BAD_RECORDS = {
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "not UTF-8 (UTF-16)": json.dumps(RECORD).encode("utf-16"),
    "a 5,000-digit number": json.dumps(RECORD).encode().replace(b'"seconds": 8.23', b'"seconds": ' + b"9" * 5000),
}


@pytest.mark.parametrize("what", sorted(BAD_RECORDS))
def test_a_damaged_run_json_is_skipped_by_history_and_refused_by_compare_in_one_line(tmp_path, what):
    folder = _run_with(tmp_path, BAD_RECORDS[what])
    assert list_runs(folder.parent) == []
    code, out, err = _labs(["history", "--runs-dir", folder.parent])
    assert code == 0 and out == "" and "no runs under" in err
    code, out, err = _labs(["compare", folder, RUN])
    assert code == 2 and err.count("\n") == 1 and "run.json" in err and "internal error" not in err, err


def test_a_run_json_that_is_not_utf8_in_one_string_is_read(tmp_path):
    folder = _run_with(tmp_path, json.dumps(RECORD).encode().replace(b"baseline", b"base\xffline"))
    assert load_run(folder).run_record.variant == "base\ufffdline"


def test_history_escapes_what_a_run_json_says(tmp_path):
    hostile = dict(RECORD, exercise="01-ex02\x1b]52;c;aGk=\x07\x1b[2J", started_utc="\x9b31m")
    folder = _run_with(tmp_path, json.dumps(hostile).encode())
    code, out, err = _labs(["history", "--runs-dir", folder.parent])
    assert code == 0 and "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert "01-ex02\\x1b]52;c;aGk=\\x07" in out


def test_huge_integers_in_two_run_records_compare_without_a_crash(tmp_path):
    before = _run_with(tmp_path / "a", json.dumps(dict(RECORD, seconds=10 ** 4000)).encode())
    tables = compare_runs(load_run(before), load_run(RUN))
    assert tables[0].rows[0][0] == "Run time (s)"


KERNEL_TABLE = (RUN / "tables" / "cuda_gpu_kern_sum.csv").read_bytes()
BAD_TABLES = {
    "a column renamed": KERNEL_TABLE.replace(b"Total Time (ns)", b"Total Time\x1b[2J", 1),
    "a 200,000-character field": KERNEL_TABLE + b'"' + b"x" * 200_000 + b'"\n',
    "not UTF-8": KERNEL_TABLE + b"\xff\xfe\n",
    "a ragged row": KERNEL_TABLE + b"1,2,3\n",
    "text in every cell": KERNEL_TABLE.split(b"\n", 1)[0] + b"\n"
    + b",".join([b"x"] * (KERNEL_TABLE.split(b"\n", 1)[0].count(b",") + 1)) + b"\n",
}


@pytest.mark.parametrize("what", sorted(BAD_TABLES))
def test_a_damaged_kernel_table_leaves_the_kernel_diff_out(tmp_path, what):
    folder = _run_with(tmp_path, table=("cuda_gpu_kern_sum.csv", BAD_TABLES[what]))
    code, out, err = _labs(["compare", folder, RUN, "--format", "csv"])
    assert code == 0 and err == "", err
    assert "Run time (s)" in out and "Change (ns)" not in out and "\x1b" not in out
    tables = compare_runs(load_run(folder), load_run(RUN))
    assert [t.name for t in tables][:2] == ["run_diff", "measurement_diff"]
    assert "kernel_diff" not in [t.name for t in tables]


def test_a_good_kernel_table_still_gives_the_kernel_diff(tmp_path):
    folder = _run_with(tmp_path)
    assert "kernel_diff" in [t.name for t in compare_runs(load_run(folder), load_run(RUN))]


def test_a_fifo_among_a_runs_saved_tables_is_skipped_without_blocking(tmp_path):
    # The console's Results screen counts each tables/*.csv's rows when it opens a run: a FIFO there
    # blocked it for ever.
    import os
    import threading
    from types import SimpleNamespace

    from aiperf_lab.console.screens.results import SavedTable

    (tmp_path / "tables").mkdir()
    os.mkfifo(tmp_path / "tables" / "cuda_gpu_kern_sum.csv")
    box = []
    worker = threading.Thread(target=lambda: box.append(SavedTable(SimpleNamespace(folder=tmp_path), "cuda_gpu_kern_sum")),
                              daemon=True)
    worker.start()
    worker.join(10)
    if not box:   # let the blocked open() go (a writer opens the FIFO), so the test process ends
        fd = os.open(tmp_path / "tables" / "cuda_gpu_kern_sum.csv", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    assert box and box[0].count == -1
