"""Red team h19r (session 19) on main after session 18's merges: the cases it found that broke the contract
(exit 0, or exit 2 with one line, within 10 s), each fixed outside the redaction rules.

1. An nsys export whose kernel table holds a text or a real in a grid or block dimension (gridX..blockZ) ended
   `aiperf-stats --report cuda_gpu_kern_gb_sum` (sorting the groups) and `cuda_kern_exec_trace` (formatting
   "GridXYZ") in "internal error" (exit 1); a text in staticSharedMemory or dynamicSharedMemory ended
   cuda_gpu_trace (its MB). These columns are now checked, as the others are, by the reports that read them
   (not by the overview's scan of the whole kernel table, which does not read them).
2. `aiperf-stats -o X` where X is a file, a link to a file, a dangling or a looping link said mkdir's
   "cannot write to X: File exists"; it says "not a folder", as aiperf-triage --output does (h17r's E5).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import H200

from aiperf_lab.metrics.cli import main

NCCL_RANK0 = H200.parent / "h200x2" / "nccl_rank0.sqlite"
KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"


def _stats(args, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _export_with(tmp_path: Path, column: str, value) -> Path:
    path = tmp_path / "export.sqlite"
    shutil.copy(NCCL_RANK0, path)
    with sqlite3.connect(path) as con:
        con.execute(f"UPDATE {KERNEL} SET [{column}] = ? WHERE rowid % 2 = 0", (value,))
    con.close()
    return path


_GRID_BLOCK = [("cuda_gpu_kern_gb_sum", c) for c in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")] + [
    ("cuda_kern_exec_trace", "gridX"), ("cuda_kern_exec_trace", "blockZ")]


@pytest.mark.parametrize("report, column, value", [
    *[(report, column, value) for report, column in _GRID_BLOCK for value in ("x[b]", 2.5)],
    ("cuda_gpu_trace", "staticSharedMemory", "x[b]"), ("cuda_gpu_trace", "dynamicSharedMemory", "x[b]"),
])
def test_a_wrong_value_in_a_kernel_column_a_report_reads_is_one_line(tmp_path, capsys, report, column, value):
    code, out, err = _stats([_export_with(tmp_path, column, value), "--report", report, "--format", "json"], capsys)
    assert (code, err.count("\n")) == (2, 1), err
    assert f"{KERNEL}.{column} holds a value that is not an integer" in err
    assert out == ""


@pytest.mark.parametrize("report", ["cuda_gpu_kern_gb_sum", "cuda_kern_exec_trace", "cuda_gpu_trace"])
def test_the_real_export_still_gives_these_reports(capsys, report):
    code, out, err = _stats([NCCL_RANK0, "--report", report, "--format", "csv"], capsys)
    assert code == 0 and err == ""
    assert out.count("\n") > 5


def test_the_overview_does_not_check_the_columns_it_does_not_read(tmp_path, capsys):
    code, out, err = _stats([_export_with(tmp_path, "gridX", "x")], capsys)
    assert code == 0, err
    assert "CUDA GPU Kernel Summary" in out


@pytest.mark.parametrize("kind", ["file", "link to a file", "dangling link", "looping link"])
def test_aiperf_stats_output_that_is_no_folder_says_so(tmp_path, capsys, kind):
    """`-o X` where X is no folder: "not a folder", as aiperf-triage --output says, not mkdir's "File exists"."""
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("x")
    elif kind == "link to a file":
        (tmp_path / "f").write_text("x")
        out.symlink_to(tmp_path / "f")
    elif kind == "dangling link":
        out.symlink_to(tmp_path / "nowhere" / "x")
    else:
        out.symlink_to(out)
    code, _out, err = _stats([NCCL_RANK0, "--report", "cuda_gpu_kern_sum", "-o", out], capsys)
    assert (code, err.count("\n")) == (2, 1), err
    assert err.endswith(f"cannot write to {out}: not a folder\n")
