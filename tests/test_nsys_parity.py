"""Our nsys reports against what `nsys stats` itself printed for the same exports."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from conftest import CORPUS, DATA, H200, needs_corpus
from nsys_text import parse_stats_text, same_name

from aiperf_lab.metrics.nsys import nvtx as nsys_nvtx, reports as nsys_reports
from aiperf_lab.metrics.cli import main
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.tables import format_value

# nsys 2025.3.1's own CSVs for the H200 export, kept in full for the summaries (the long traces are
# checked through their sha256 below).
GROUND_TRUTH_REPORTS = sorted(p.stem[len("nsys_stats_lm_forward_"):] for p in H200.glob("nsys_stats_lm_forward_*.csv"))
DIGESTS = json.loads((DATA / "nsys_2025_3_1_corpus_digests.json").read_text())["outputs"]


@pytest.mark.parametrize("report", GROUND_TRUTH_REPORTS)
def test_csv_stdout_is_byte_identical_to_nsys_stats(report, capsys):
    """nsys 2025.3.1 on an H200: `nsys stats --report R --format csv` for lm_forward.sqlite (written by nsys
    on the GPU machine for this project, or with the data)."""
    code = main([str(H200 / "lm_forward.sqlite"), "--report", report, "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0
    expected = (H200 / f"nsys_stats_lm_forward_{report}.csv").read_text()
    assert out == expected


def test_ground_truth_exercises_the_hard_cases():
    """The fixture holds what parity must get right: ties in rounding, n=1 stdev, nesting, no-range kernels."""
    kern = (H200 / "nsys_stats_lm_forward_nvtx_kern_sum.csv").read_text().splitlines()
    assert kern[1].startswith(",,")  # a kernel launched outside every range
    assert any(",0.0," in line for line in kern)  # single-instance groups: stdev 0.0
    api = (H200 / "nsys_stats_lm_forward_cuda_api_sum.csv").read_text()
    assert ",cudaLaunchKernel\n" in api and "cudaLaunchKernelExC_v11060" in api  # version-suffix rule


def _compare_text_report(ours, text_rows):
    assert len(ours.rows) == len(text_rows) - 1
    for want, got in zip(text_rows[1:], ours.rows):
        cells = [format_value(v) for v in got]
        assert want[:-1] == cells[:-1], (want, cells)
        assert same_name(want[-1], cells[-1])


@needs_corpus
@pytest.mark.parametrize("export,stats_text", [
    ("result_2_7B.sqlite", "nsys_stats.txt"),
    ("result_2_7B_clean.sqlite", "nsys_stats_clean.txt"),
    ("result_2_7B_compile_ro.sqlite", "nsys_stats_compile_ro.txt"),
])
def test_corpus_parity_with_nsys_2024_text(export, stats_text):
    """nsys 2024.6.2 column output stored beside three A100 exports: every row of every report we have."""
    folder = CORPUS / "cs336-zx3xyy"
    db = NsysDatabase(folder / export)
    text = parse_stats_text((folder / stats_text).read_text())
    compared = 0
    for name, rows in text.items():
        if hasattr(nsys_reports, name):
            _compare_text_report(getattr(nsys_reports, name)(db), rows)
            compared += 1
    assert compared >= 2


@needs_corpus
@pytest.mark.parametrize("export", ["cudf.sqlite", "workflow.sqlite", "cupy.sqlite"])
def test_corpus_parity_with_stats_nsys_2020_stored_in_the_file(export):
    """nsys 2020.3.2 wrote its kernel and NVTX stats into the export itself."""
    path = CORPUS / "nvtx-examples-2020" / export
    con = sqlite3.connect(path)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    stored = {names[i]: (n, lo, hi, avg, total)
              for i, n, lo, hi, avg, total in con.execute("SELECT * FROM cudaKernelStats")}
    ours = nsys_reports.cuda_gpu_kern_sum(NsysDatabase(path))
    assert len(ours.rows) == len(stored)
    for _pct, total, n, avg, _med, lo, hi, _sd, name in ours.rows:
        s_n, s_lo, s_hi, s_avg, s_total = stored[name]
        assert (total, n, lo, hi) == (s_total, s_n, s_lo, s_hi)
        assert avg == pytest.approx(s_avg, abs=0.0500001)
    ranges = list(con.execute("SELECT tag, num, min, max, total FROM nvtxPushPopRangeStats"))
    if ranges:
        ours_nvtx = {row[-1]: row for row in nsys_nvtx.nvtx_sum(NsysDatabase(path)).rows if row[-2] == "PushPop"}
        for tag, n, lo, hi, total in ranges:
            # 2020 printed "domain:name" without the leading colon for the default domain
            row = ours_nvtx.get(tag) or ours_nvtx[":" + tag]
            assert (row[1], row[2], row[5], row[6]) == (total, n, lo, hi)


# nsys 2025.3.1 refuses some reports on old exports for their schema (no greenContextId column, no enum
# tables) although the data is there; aiperf-stats computes them (with the enum's standard labels). A
# documented difference: there we accept a table or a refusal, never a wrong header.
SCHEMA_REFUSALS = ("greenContextId", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND")


def _export_path(export: str):
    return H200 / export.split("/", 1)[1] if export.startswith("h200/") else CORPUS / export


def _digest_groups() -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for key in sorted(DIGESTS):
        groups.setdefault(key.split("::")[0], []).append(key.split("::")[1])
    return groups


def _run_spec(path, spec: str, capsys) -> tuple[int, str]:
    report, _, unit = spec.partition("@")
    argv = [str(path), "--report", report, "--format", "csv"] + (["--timeunit", unit] if unit else [])
    code = main(argv)
    return code, capsys.readouterr().out


def _check_against_nsys(export: str, spec: str, code: int, out: str) -> None:
    want = DIGESTS[f"{export}::{spec}"]
    if not want["empty"]:
        assert code == 0, (export, spec)
        assert hashlib.sha256(out.encode()).hexdigest() == want["sha256"], (export, spec)
    elif any(reason in want.get("nsys_said", "") for reason in SCHEMA_REFUSALS) and code == 0:
        assert out and "," in out.splitlines()[0], (export, spec)
    else:  # no data (SKIPPED), or an argument nsys does not take (ERROR): one line on stderr, exit 2
        assert code == 2 and out == "", (export, spec, want.get("nsys_said"))


H200_SPECS = _digest_groups().get("h200/lm_forward.sqlite", [])


@pytest.mark.parametrize("spec", H200_SPECS)
def test_every_report_on_the_h200_export_matches_nsys_2025_byte_for_byte(spec, capsys):
    """Every report nsys 2025.3.1 has for a CUDA + NVTX + OS-runtime trace, with :base, :mangled and
    --timeunit usec, on the H200 export in tests/data (nsys's output kept as sha256)."""
    code, out = _run_spec(H200 / "lm_forward.sqlite", spec, capsys)
    _check_against_nsys("h200/lm_forward.sqlite", spec, code, out)


def test_the_h200_ground_truth_covers_every_nsys_stats_report_we_offer():
    from aiperf_lab.metrics.registry import reports_for

    covered = {spec.split(":")[0].split("@")[0] for spec in H200_SPECS}
    offered = {r.name for r in reports_for("nsys") if r.nsys_stats}
    assert offered <= covered, offered - covered


@needs_corpus
@pytest.mark.parametrize("export", [e for e in _digest_groups() if not e.startswith("h200/")])
def test_corpus_parity_with_nsys_2025_csv(export, capsys):
    """Every report of every corpus export (nsys 2020.3 to 2026.2) against nsys 2025.3.1's CSV."""
    path = _export_path(export)
    for spec in _digest_groups()[export]:
        code, out = _run_spec(path, spec, capsys)
        _check_against_nsys(export, spec, code, out)
