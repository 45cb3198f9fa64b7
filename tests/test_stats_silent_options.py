"""Options and inputs that changed nothing without a word (red team rt6 F12): each now applies, or is one line
and exit 2, or is said on stderr.

- --nvtx with a report that ignores it printed whole-run numbers under a scoped command line: refused, naming
  the reports that take it (kernel_breakdown, energy_by_range, energy_by_category); --nvtx '' is bad input.
- One file given twice became two ranks with zero spread: refused (same path or same inode).
- n0/rank0.sqlite n1/rank0.sqlite were renumbered 0 and 1 silently: stderr says which file is which rank.
- A bundle without a profile was refused whole although its telemetry.csv has the telemetry reports.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path

import pytest

from conftest import DATA, H200

from aiperf_lab.metrics.cli import build_parser, main
from aiperf_lab.metrics.nsys.ranks import rank_labels

LM = H200 / "lm_forward.sqlite"
RANK0, RANK1 = DATA / "h200x2" / "nccl_rank0.sqlite", DATA / "h200x2" / "nccl_rank1.sqlite"
BUNDLE = DATA / "triage" / "h200-fixture.tar.gz"   # a real triage bundle: telemetry.csv, no nsys export


def _stats(args, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("reports, ignoring", [
    (["--report", "cuda_gpu_kern_sum"], "cuda_gpu_kern_sum"),
    (["--report", "kernel_breakdown,nvtx_sum"], "nvtx_sum"),
    ([], "the overview's cuda_gpu_kern_sum, nvtx_sum, gpu_idle"),
])
def test_nvtx_with_a_report_that_would_ignore_it_is_refused(capsys, reports, ignoring):
    code, out, err = _stats([LM, "--nvtx", "forward", *reports], capsys)
    assert out == ""
    assert f"--nvtx would be ignored by {ignoring}: only kernel_breakdown, energy_by_range, energy_by_category " \
           "take it for nsys input" in _one_line(code, err)


def test_nvtx_with_a_pytorch_trace_names_what_takes_it_there(capsys):
    code, _out, err = _stats([H200 / "torch_encoder_layer.pt.trace.json", "--nvtx", "x", "--report", "kernel_breakdown"],
                             capsys)
    assert "ignored by kernel_breakdown: only energy_by_range, energy_by_category take it for PyTorch" in _one_line(code, err)


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_nvtx_range_is_bad_input(capsys, name):
    code, out, err = _stats([LM, "--nvtx", name, "--report", "kernel_breakdown"], capsys)
    assert out == "" and "--nvtx needs a range name" in _one_line(code, err)


def test_nvtx_still_scopes_the_reports_that_take_it(capsys):
    code, scoped, _err = _stats([LM, "--report", "kernel_breakdown", "--nvtx", "computing_softmax", "--format", "csv"],
                                capsys)
    code_all, whole, _err = _stats([LM, "--report", "kernel_breakdown", "--format", "csv"], capsys)
    assert code == code_all == 0 and scoped != whole and scoped.startswith("Category,")


def test_help_and_the_list_say_which_reports_take_nvtx(capsys):
    nvtx_help = next(a.help for a in build_parser()._actions if "--nvtx" in a.option_strings)
    assert "Only kernel_breakdown, energy_by_range, energy_by_category take it" in nvtx_help
    assert main(["--list-reports"]) == 0
    listed = capsys.readouterr().out.splitlines()
    takers = [line.split()[:2] for line in listed if "--nvtx RANGE scopes it" in line]
    assert takers == [["nsys", "kernel_breakdown[:RANGE]"], ["nsys", "energy_by_range"], ["nsys", "energy_by_category"],
                      ["torch", "energy_by_range"], ["torch", "energy_by_category"]]


def test_the_same_file_twice_is_refused(tmp_path, capsys):
    code, out, err = _stats([RANK1, RANK1, "--report", "nccl_sum"], capsys)
    assert out == "" and "the same file is given twice; give each rank's file once" in _one_line(code, err)
    other_name = tmp_path / "rank7.sqlite"
    other_name.symlink_to(RANK1)
    code, out, err = _stats([RANK1, other_name, "--report", "nccl_sum"], capsys)
    assert out == "" and f"twice (as {RANK1} and {other_name})" in _one_line(code, err)


def test_ranks_numbered_by_order_say_which_file_is_which(tmp_path, capsys):
    (tmp_path / "n0").mkdir()
    (tmp_path / "n1").mkdir()
    first, second = tmp_path / "n0" / "rank0.sqlite", tmp_path / "n1" / "rank0.sqlite"
    shutil.copyfile(RANK0, first)
    shutil.copyfile(RANK1, second)
    code, out, err = _stats([first, second, "--report", "nccl_sum", "--format", "csv"], capsys)
    assert code == 0
    assert err == (f"aiperf-stats: the file names do not number the ranks (no number ending each name, or one number "
                   f"twice), so the ranks are the files' order: 0 = {first}, 1 = {second}\n")
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["0", "0", "1", "1"]
    code, out, err = _stats([RANK1, RANK0, "--report", "nccl_sum", "--format", "csv"], capsys)
    assert code == 0 and err == ""  # the names number them: rank 1 first, as named
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["1", "1", "0", "0"]


def test_numbers_that_are_one_number_written_twice_are_not_distinct_ranks():
    assert rank_labels([Path("rank01.sqlite"), Path("rank1.sqlite")]) == ["0", "1"]


def test_a_bundle_without_a_profile_gives_its_telemetry_reports(capsys):
    code, out, err = _stats([BUNDLE, "--report", "telemetry_summary", "--format", "csv"], capsys)
    assert code == 0 and out.startswith("device,samples,")
    assert err == (f"aiperf-stats: {BUNDLE} holds no profile (the workload ran without nsys or the PyTorch profiler, "
                   f"or the export failed): the reports of its telemetry.csv only, telemetry_summary, telemetry_findings\n")
    code, out, err = _stats([BUNDLE, "--report", "cuda_gpu_kern_sum"], capsys)
    assert code == 2 and out == ""
    refused, = err.splitlines()   # one line: the refusal, then why (the bundle holds no profile)
    assert "'cuda_gpu_kern_sum' does not apply to this telemetry file; for this file: telemetry_summary" in refused
    assert refused.index("does not apply") < refused.index("holds no profile")


def test_a_run_folder_without_a_profile_gives_its_telemetry_reports(tmp_path, capsys):
    with tarfile.open(BUNDLE) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/telemetry.csv"))
        (tmp_path / "telemetry.csv").write_bytes(tar.extractfile(member).read())
    code, out, _err = _stats([tmp_path, "--report", "telemetry_summary", "--format", "csv"], capsys)
    assert code == 0 and out.startswith("device,samples,")
    os.remove(tmp_path / "telemetry.csv")
    code, _out, err = _stats([tmp_path], capsys)
    assert "is a directory with no profile in it" in _one_line(code, err)


H100_STALL = DATA / "h100" / "energy_04ex03_stall.sqlite"
H100_TELEMETRY = DATA / "h100" / "energy_04ex03_stall_telemetry.csv"


@pytest.mark.parametrize("report", ["nvtx_kern_sum", "nvtx_sum", "nvtx_gpu"])
def test_nvtx_with_an_nvtx_report_says_what_to_do_instead_not_the_report_itself(capsys, report):
    # The refusal for nvtx_kern_sum used to end "kernels per NVTX range, as nsys makes them: --report nvtx_kern_sum".
    code, out, err = _stats([LM, "--report", report, "--nvtx", "forward"], capsys)
    line = _one_line(code, err)
    assert out == "" and "--report nvtx_kern_sum" not in line
    assert "--format csv | grep ':forward'" in line and "--report kernel_breakdown --nvtx forward" in line


@pytest.mark.parametrize("args, refused", [
    (["--report", "nvtx_sum", "--cross-thread"], "--cross-thread would be ignored by nvtx_sum"),
    (["--cross-thread"], "--cross-thread would be ignored by the overview's"),
    (["--report", "kernel_breakdown", "--cross-thread"], "--cross-thread with kernel_breakdown needs a range"),
    (["--report", "cuda_gpu_kern_sum", "--work", "5", "--work-unit", "tokens"], "--work would be ignored by cuda_gpu_kern_sum"),
    (["--report", "cuda_gpu_kern_sum", "--gpu", "3"], "--gpu would be ignored by cuda_gpu_kern_sum"),
    (["--report", "cuda_gpu_kern_sum", "--telemetry", H100_TELEMETRY], "--telemetry would be ignored by cuda_gpu_kern_sum"),
    (["--report", "kernel_breakdown:forward", "--nvtx", "step_0"], "kernel_breakdown:forward and --nvtx step_0"),
])
def test_options_a_report_would_ignore_are_refused_in_one_line(capsys, args, refused):
    code, out, err = _stats([LM, *args], capsys)
    assert out == "" and refused in _one_line(code, err), err


def test_work_unit_without_work_is_refused(capsys):
    code, out, err = _stats([H100_STALL, "--telemetry", H100_TELEMETRY, "--report", "energy_by_range",
                             "--work-unit", "tokens"], capsys)
    assert out == "" and "--work-unit needs --work" in _one_line(code, err)


def test_the_options_still_apply_where_they_are_taken(capsys):
    code, out, err = _stats([H100_STALL, "--telemetry", H100_TELEMETRY, "--report", "energy_by_range", "--gpu", "0",
                             "--work", "8", "--work-unit", "tokens", "--format", "csv"], capsys)
    assert code == 0 and "tokens" in out, err
    code, out, err = _stats([LM, "--report", "nvtx_gpu,kernel_breakdown", "--nvtx", "computing_softmax",
                             "--cross-thread"], capsys)
    assert code == 2  # nvtx_gpu does not take --nvtx
    code, out, err = _stats([LM, "--report", "kernel_breakdown:computing_softmax", "--cross-thread", "--format", "csv"],
                            capsys)
    assert code == 0 and out.startswith("Category,"), err


def test_help_says_which_reports_take_each_option():
    helps = {a.option_strings[0]: a.help for a in build_parser()._actions if a.option_strings}
    assert "Only kernel_breakdown (with a range), nvtx_gpu take it" in helps["--cross-thread"]
    for option in ("--telemetry", "--work", "--work-unit", "--gpu"):
        assert "only energy_by_range, energy_by_category take it" in helps[option], option
