"""aiperf-stats as a user meets it: formats, files, and one clear line for every bad input."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPUS, H200, REPO, corpus_files, needs_corpus

from aiperf_lab.metrics.cli import main

LM = H200 / "lm_forward.sqlite"


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, fragment):
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert fragment in err


def _file(name, data):
    def make(folder):
        path = folder / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return path
    return make


@pytest.mark.parametrize("make, fragment", [
    (lambda d: d / "missing.sqlite", "no such file"),
    (lambda d: d, "is a directory"),
    (_file("empty.sqlite", b""), "empty file"),
    (_file("notes.txt", "hello\n"), "not a profile"),
    (_file("x.csv", "a,b\n1,2\n"), "neither Nsight Compute"),
    (_file("t.json", '{"traceEvents": ['), "not valid JSON"),
    (_file("t.json.gz", gzip.compress(b'{"traceEvents": []}')[:20]), "gzip"),
    (_file("o.json", '{"a": 1}'), "not a PyTorch profiler trace"),
    (_file("bin.dat", bytes(range(256)) * 4), "not a profile"),
    (_file("latin1.csv", '"ID","Process ID"\n\xe9\xff'.encode("latin-1")), "ncu"),
])
def test_bad_files_get_exit_2_and_one_line(tmp_path, capsys, make, fragment):
    code, out, err = run_cli([make(tmp_path)], capsys)
    assert_one_line_error(code, err, fragment)
    assert out == ""


def test_truncated_export_is_reported_not_crashed(tmp_path, capsys):
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(LM.read_bytes()[: LM.stat().st_size // 3])
    code, _out, err = run_cli([cut, "--report", "cuda_gpu_kern_sum"], capsys)
    assert_one_line_error(code, err, "cut.sqlite")


def test_sqlite_that_is_not_an_export(tmp_path, capsys):
    other = tmp_path / "app.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE users(id INTEGER)")
    con.commit()
    con.close()
    code, _out, err = run_cli([other], capsys)
    assert_one_line_error(code, err, "not an Nsight Systems export")


def test_nsys_rep_without_nsys_names_the_tool_and_version(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no nsys
    rep = tmp_path / "run.nsys-rep"
    rep.write_bytes(b"NVIDIA Tegra Profiler Report 2024@6@2@225-246235244400v0.\n\x0bL")
    code, _out, err = run_cli([rep], capsys)
    assert_one_line_error(code, err, "needs Nsight Systems' `nsys`")
    assert "2024.6.2.225" in err



def _stand_in_nsys(tmp_path, monkeypatch, lists_blobs: bool):
    """A stand-in nsys on the PATH that logs its export argv to argv.txt and writes the real lm_forward export
    where --output says (its `export --help` lists --include-blobs when lists_blobs); returns a .nsys-rep."""
    fake = tmp_path / "bin" / "nsys"
    fake.parent.mkdir()
    help_lines = ("if sys.argv[1:] == ['export', '--help']:\n"
                  "    print('  --include-blobs=<true|false>')\n"
                  "    sys.exit(0)\n") if lists_blobs else ""
    fake.write_text("#!" + sys.executable + "\n"
                    "import shutil, sys\n" + help_lines +
                    f"open({str(tmp_path / 'argv.txt')!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
                    f"shutil.copy({str(LM)!r}, sys.argv[sys.argv.index('--output') + 1])\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    rep = tmp_path / "run.nsys-rep"
    rep.write_bytes(b"NVIDIA Tegra Profiler Report 2025@3@1@0-0v0.\n\x0bL")
    return rep


def test_nsys_rep_is_exported_by_nsys_and_read(tmp_path, capsys, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, lists_blobs=False)
    code, out, err = run_cli([rep, "--report", "cuda_gpu_kern_sum", "--format", "csv"], capsys)
    assert code == 0, err
    argv = (tmp_path / "argv.txt").read_text().split("\n")
    assert argv[:6] == ["export", "--type", "sqlite", "--force-overwrite", "true", "--output"] and argv[7:] == [str(rep)]
    assert Path(argv[6]).parent == tmp_path and Path(argv[6]).name.startswith(".run.partial-")   # then renamed
    assert (tmp_path / "run.sqlite").read_bytes() == LM.read_bytes() and not Path(argv[6]).exists()
    expected = (H200 / "nsys_stats_lm_forward_cuda_gpu_kern_sum.csv").read_text()
    assert out == expected


def test_nsys_rep_is_exported_with_payload_blobs_where_nsys_has_the_option(tmp_path, capsys, monkeypatch):
    # NCCL's message sizes are NVTX payload blobs, which nsys exports only with --include-blobs=true.
    rep = _stand_in_nsys(tmp_path, monkeypatch, lists_blobs=True)
    code, _out, err = run_cli([rep, "--report", "cuda_gpu_kern_sum", "--format", "csv"], capsys)
    assert code == 0, err
    assert (tmp_path / "argv.txt").read_text().split("\n")[:4] == ["export", "--type", "sqlite", "--include-blobs=true"]

def test_unknown_report_and_bad_option(capsys):
    code, _out, err = run_cli([LM, "--report", "no_such_report"], capsys)
    assert_one_line_error(code, err, "unknown report 'no_such_report'")
    assert "for this file: cuda_gpu_kern_sum" in err
    code, _out, err = run_cli([LM, "--report", "ncu_summary"], capsys)
    assert_one_line_error(code, err, "does not apply to this nsys file")
    code, _out, err = run_cli([LM, "--format", "xml"], capsys)
    assert_one_line_error(code, err, "invalid choice")
    code, _out, err = run_cli([LM, "--limit", "0"], capsys)
    assert_one_line_error(code, err, "--limit must be at least 1")


def test_report_missing_from_the_file_is_skipped_with_a_reason(capsys):
    code, out, err = run_cli([LM, "--report", "cuda_api_sum,nvtx_sum", "--format", "csv"], capsys)
    assert code == 0 and "# nvtx_sum" in out
    code, _out, err = run_cli([H200 / "ncu_full_raw.csv", "--report", "cuda_gpu_kern_sum"], capsys)
    assert_one_line_error(code, err, "does not apply to this ncu file")


def test_output_dir_gets_one_file_per_table_named_like_nsys(tmp_path, capsys):
    code, out, _err = run_cli([LM, "--report", "cuda_gpu_kern_sum", "--report", "gpu_idle", "--output", tmp_path],
                              capsys)
    assert code == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["lm_forward_cuda_gpu_kern_sum.csv", "lm_forward_gpu_idle.csv", "lm_forward_gpu_idle_gaps.csv"]
    assert out.splitlines() == [str(tmp_path / name) for name in ["lm_forward_cuda_gpu_kern_sum.csv",
                                                                 "lm_forward_gpu_idle.csv", "lm_forward_gpu_idle_gaps.csv"]]
    assert (tmp_path / "lm_forward_cuda_gpu_kern_sum.csv").read_text() == \
        (H200 / "nsys_stats_lm_forward_cuda_gpu_kern_sum.csv").read_text()


def test_unwritable_output_is_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _out, err = run_cli([LM, "--report", "cuda_api_sum", "--output", blocker / "sub"], capsys)
    assert_one_line_error(code, err, "cannot write")


@pytest.mark.parametrize("fmt, ext", [("csv", "csv"), ("json", "json"), ("table", "txt")])
def test_a_symlink_at_an_output_name_is_replaced_never_followed(tmp_path, capsys, fmt, ext):
    # In a shared folder someone may have put a link where the table will go: writing through it
    # would overwrite whatever it points at.
    victim = tmp_path / "victim"
    victim.write_text("ORIGINAL\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    link = out_dir / f"lm_forward_cuda_gpu_kern_sum.{ext}"
    link.symlink_to(victim)
    code, _out, err = run_cli([LM, "--report", "cuda_gpu_kern_sum", "--format", fmt, "--output", out_dir], capsys)
    assert code == 0, err
    assert victim.read_text() == "ORIGINAL\n"
    assert not link.is_symlink() and "Instances" in link.read_text()
    assert [p.name for p in out_dir.iterdir()] == [link.name]  # no temporary file left beside it
    assert link.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    import os

    current = os.umask(0)
    os.umask(current)
    return current


def test_json_is_machine_readable(capsys):
    code, out, _err = run_cli([LM, "--report", "kernel_breakdown", "--format", "json"], capsys)
    assert code == 0
    (table,) = json.loads(out)
    shares = [row["Time (%)"] for row in table["rows"]]
    assert table["report"] == "kernel_breakdown" and table["rows"][0]["Category"] == "gemm"
    assert sum(shares) == pytest.approx(100, abs=0.5)


def test_overview_shows_top_kernels_breakdown_nvtx_and_idle(capsys):
    code, out, _err = run_cli([LM], capsys)
    assert code == 0
    for title in ("CUDA GPU Kernel Summary", "Kernel Category Breakdown", "NVTX Range Summary", "GPU Idle Time"):
        assert title in out
    assert "top 15 of 16 rows" in out


def test_kernel_breakdown_within_an_nvtx_range(capsys):
    code, out, _err = run_cli([LM, "--report", "kernel_breakdown", "--nvtx", "computing_softmax", "--format", "csv"],
                              capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("softmax,100.0,919104,28,")  # the range launches only the softmax kernel
    code, _out, err = run_cli([LM, "--report", "kernel_breakdown", "--nvtx", "nope"], capsys)
    assert_one_line_error(code, err, "no NVTX range named 'nope'")


def test_installed_console_script_runs_as_a_process():
    """The real entry point, in a child process: exit code and stderr as a shell user sees them."""
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(LM), "--report", "nvtx_sum",
                           "--format", "csv"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0
    assert done.stdout == (H200 / "nsys_stats_lm_forward_nvtx_sum.csv").read_text()
    bad = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", "/nonexistent.sqlite"],
                         capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@needs_corpus
@pytest.mark.parametrize("path", [p for p in corpus_files("**/*") if p.is_file()],
                         ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_no_corpus_file_ever_shows_a_traceback(path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # .nsys-rep and .ncu-rep need tools this machine lacks
    code, out, err = run_cli([path], capsys)
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err
    if code == 2:
        assert err.strip().count("\n") == 0 or err.startswith("SKIPPED")


def test_list_reports_needs_no_file_and_lists_every_registered_report(capsys):
    from aiperf_lab.metrics.registry import REPORTS

    code, out, _err = run_cli(["--list-reports"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(REPORTS)
    for line, report in zip(lines, REPORTS):
        assert line.split()[:2] == [report.kind, report.name + (f"[{report.arguments}]" if report.arguments else "")]


def test_help_names_every_report_and_the_readme_table_is_the_registry_s():
    from aiperf_lab.metrics.cli import build_parser
    from aiperf_lab.metrics.registry import REPORTS, markdown_table

    text = build_parser().format_help()
    assert all(r.name in text for r in REPORTS)
    readme = (REPO / "README.md").read_text()
    assert markdown_table() in readme, "README's report table is stale: python -m aiperf_lab.metrics.registry --markdown"


def test_every_registered_builder_exists_and_every_overview_report_is_registered():
    import importlib

    from aiperf_lab.metrics.registry import OVERVIEWS, REPORTS, find

    for report in REPORTS:
        module, _, function = report.builder.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), report.builder
    for kind, names in OVERVIEWS.items():
        assert all(find(kind, name) for name in names), kind


@pytest.mark.parametrize("columns", [80, 120])
def test_every_nsys_report_fits_the_terminal_width(columns, capsys, monkeypatch):
    """Tables fit COLUMNS: number headers wrap, text columns give way, and a table that still cannot fit
    is shown one block per row; nothing is cut from a number."""
    from aiperf_lab.metrics.registry import reports_for

    monkeypatch.setenv("COLUMNS", str(columns))
    names = [r.name for r in reports_for("nsys") if not r.multi_rank]
    for name in names:
        code = main([str(LM), "--report", name, "--limit", "4"])
        out = capsys.readouterr().out
        if code == 2:
            continue  # no data for this report in the fixture
        assert code == 0, name
        assert max(len(line) for line in out.splitlines()) <= columns, name
    code = main([str(LM), "--report", "cuda_kern_exec_sum", "--limit", "1"])
    out = capsys.readouterr().out
    assert "5491153.6" in out and "cudaLaunchKernelExC_v11060" in out  # the row in full, in blocks at 80


def test_a_table_a_little_too_wide_closes_its_gaps_before_going_one_block_per_row(capsys, monkeypatch):
    """nccl_sum over two ranks is 89 columns with rich's 3-column gaps: at 80 it is shown as a table with
    2-column gaps (76 wide), every number whole; at 60 even that does not fit, so one block per row."""
    files = [str(REPO / "tests/data/h200x2/nccl_rank0.sqlite"), str(REPO / "tests/data/h200x2/nccl_rank1.sqlite")]
    monkeypatch.setenv("COLUMNS", "80")
    assert main(files + ["--report", "nccl_sum"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "one block per row" not in lines[0] and max(len(line) for line in lines) <= 80
    row = next(line for line in lines if "AllReduce" in line and line.lstrip().startswith("0"))
    assert row.split() == ["0", "AllReduce", "23", "385875968", "8458143", "367.75", "45.62", "45.62", "2"]
    monkeypatch.setenv("COLUMNS", "60")
    assert main(files + ["--report", "nccl_sum"]) == 0
    out = capsys.readouterr().out
    assert "(one block per row: the" in out and "row 4" in out and "385875968" in out


def test_an_nsys_report_we_do_not_make_says_so_in_one_line(capsys):
    code = main([str(LM), "--report", "um_sum", "--format", "csv"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "um_sum is an `nsys stats` report aiperf-stats does not make" in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_recording_without_gpus_says_so_instead_of_an_empty_table(tmp_path, capsys):
    # What triage writes on a machine where NVML sees no GPU: the metadata names no device and the
    # rows hold host CPU and memory only.
    recording = tmp_path / "telemetry.csv"
    recording.write_text(
        '# aiperf-telemetry {"version":2,"rate_hz":10.0,"devices":[]}\n'
        "t_s,gpu,power_w,energy_j,util_gpu_pct,cpu_pct,host_mem_used_bytes,host_mem_total_bytes,utc_ns\n"
        "0.0000,,,,,,930484224,25276063744,1795403485674097996\n"
        "0.1000,,,,,12.5,930484224,25276063744,1795403485774097996\n")
    for args in ([recording], [recording, "--report", "telemetry_findings"],
                 [recording, "--report", "telemetry_summary,telemetry_findings"]):
        code, out, err = run_cli(args, capsys)
        assert_one_line_error(code, err, "has no GPU rows")
        assert out == ""
        assert err.count("has no GPU rows") == 1


@pytest.mark.parametrize("columns", ["0", "-5", "abc", ""])
def test_a_columns_value_that_is_not_a_width_is_ignored_not_obeyed(columns, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    code, out, err = run_cli([LM, "--report", "cuda_gpu_kern_sum", "--limit", "2"], capsys)
    assert code == 0 and err == ""
    assert "CUDA GPU Kernel Summary" in out and max(len(line) for line in out.splitlines()) <= 240


def _stats_process(args: list[str], **popen) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", *args], capture_output=False,
                          stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120, **popen)


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_output_to_a_full_disk_is_one_line_and_exit_2(fmt):
    with open("/dev/full", "w") as full:
        done = _stats_process([str(LM), "--format", fmt], stdout=full)
    assert done.returncode == 2
    assert done.stderr.strip() == "aiperf-stats: cannot write the output: No space left on device"


def test_closed_stdout_and_an_ascii_only_one_are_handled():
    import os

    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(LM)], preexec_fn=lambda: os.close(1),
                          stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == "aiperf-stats: standard output is closed"
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(LM)], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ, PYTHONIOENCODING="ascii"), timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert "CUDA GPU Kernel Summary" in done.stdout and "\\u" in done.stdout  # escaped, not a crash


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_while_a_bundle_is_read_removes_what_was_copied_out(tmp_path, sig):
    """Red team TM1: SIGTERM or SIGHUP left the export copied out of a bundle in $TMPDIR (SIGINT cleaned up)."""
    bundle = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"
    work = tmp_path / "tmp"
    work.mkdir()
    # a reader slowed at the copy (the bundle is small): the signal arrives while the export is out
    script = ("import shutil, sys, time\n"
              "real = shutil.copyfileobj\n"
              "def slow(*a, **k):\n    real(*a, **k)\n    print('copied', flush=True)\n    time.sleep(30)\n"
              "shutil.copyfileobj = slow\n"
              "from aiperf_lab.metrics.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(bundle), "--report", "energy_by_category"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, "TMPDIR": str(work)})
    assert proc.stdout.readline().strip() == "copied"
    assert list(work.iterdir()), "the copy is made in TMPDIR"
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.strip() == "aiperf-stats: interrupted"
    assert list(work.iterdir()) == []


def test_the_command_ignores_a_second_ctrl_c_while_it_ends_on_the_first():
    """Ctrl-C twice within a few ms (red team rt4 F10): the second one hit the handler of the first and printed a
    30-line traceback. The command (argv None: the entry point) ignores SIGINT once it is ending on one; a caller
    in the same process (argv given) keeps its own handler."""
    import signal

    from aiperf_lab.cli_support import run_cli

    def interrupted(argv):
        raise KeyboardInterrupt

    previous = signal.getsignal(signal.SIGINT)
    try:
        assert run_cli("aiperf-stats", interrupted, ["x"]) == 130
        assert signal.getsignal(signal.SIGINT) is previous
        assert run_cli("aiperf-stats", interrupted, None) == 130
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def _stats_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "aiperf_lab.metrics.cli", *args]


def test_a_report_larger_than_a_pipe_arrives_whole_with_its_exit_code(capsys):
    """The command ends at once when its output is out (cli._end_now, os._exit): a 170 KB trace through a pipe
    that a slow reader drains after the report is done comes out byte for byte as the report writes it in
    process, last newline included, with exit 0 and nothing on stderr."""
    import time

    args = [str(LM), "--report", "cuda_gpu_trace", "--format", "csv"]
    code, expected, _err = run_cli(args, capsys)
    assert code == 0 and len(expected) > 1 << 17  # more than a pipe holds: the writer waits for the reader
    proc = subprocess.Popen(_stats_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    time.sleep(1.0)  # the report is written up to the pipe's capacity, the rest waits in its flush
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""
    assert out.decode() == expected and out.endswith(b"\n")


def test_a_reader_that_goes_away_early_ends_the_command_quietly():
    """| head: the rest of the report is dropped, exit 0, no complaint on stderr (at exit either)."""
    proc = subprocess.Popen(_stats_command(str(LM), "--report", "cuda_gpu_trace", "--format", "csv"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    assert proc.stdout.read(100).startswith(b"Start (ns),")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == b""


def test_the_command_still_runs_its_exit_handlers(tmp_path):
    """A triage bundle's export is copied into a temporary folder that an atexit handler removes: the command's
    quick end (os._exit) runs the handlers first, so nothing is left in $TMPDIR after a report."""
    import shutil
    import tarfile

    root = tmp_path / "aiperf-triage-host-20261123T000000Z"
    (root / "nsys").mkdir(parents=True)
    shutil.copyfile(LM, root / "nsys" / "workload.sqlite")
    (root / "manifest.json").write_text(json.dumps({"tool": "aiperf-triage", "host": "host"}))
    bundle = tmp_path / "bundle.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    work = tmp_path / "tmp"
    work.mkdir()
    done = subprocess.run(_stats_command(str(bundle), "--report", "nvtx_sum", "--format", "csv"),
                          capture_output=True, text=True, cwd=REPO, timeout=120, env={**os.environ, "TMPDIR": str(work)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == (H200 / "nsys_stats_lm_forward_nvtx_sum.csv").read_text()
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("columns", ["80", "240"])
def test_findings_are_never_cut_mid_sentence_they_go_one_block_per_row(columns, capsys, monkeypatch):
    """At 80 columns the expert rules' evidence and advice were cut to 22 characters ("53 of 53
    host-device…", "pin the host buffers…"); at any width, a sentence that would be cut puts the table
    one block per row, values folded, so every word of it is printed."""
    monkeypatch.setenv("COLUMNS", columns)
    code, out, err = run_cli([LM, "--report", "expert_findings"], capsys)
    assert code == 0 and err == ""
    assert "(one block per row: its sentences would be cut)" in out.replace("\n", " ")
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= int(columns)
    words = " ".join(out.split())
    for sentence in ("53 of 53 host-device copies use pageable memory (174.9 MB, 18.55 ms on the GPU)",
                     "pin the host buffers (tensor.pin_memory(), DataLoader(pin_memory=True)) and copy with "
                     "non_blocking=True", "0 synchronous memcpy calls, 0.00 ms of CPU time in them"):
        assert sentence in words


def test_list_reports_on_an_80_column_terminal_fits_it_and_says_what_the_star_means(capsys, monkeypatch):
    """On an 80-column terminal 39 of its lines were wider than the terminal, which wrapped them through
    the name column; `*` was explained only in --help. Piped, it stays one line per report (for grep)."""
    import io

    from aiperf_lab.metrics.registry import REPORTS, STATS_MARK_LEGEND

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["--list-reports"]) == 0
    lines = terminal.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[-1] == STATS_MARK_LEGEND == "* the same columns and numbers as `nsys stats --report NAME`"
    named = [line.split()[:2] for line in lines if line and not line.startswith(" ")][:-1]
    assert named == [[r.kind, r.name + (f"[{r.arguments}]" if r.arguments else "")] for r in REPORTS]
    words = " ".join(terminal.getvalue().split())
    assert "joules per kernel category and GPU idle (needs telemetry); --nvtx RANGE scopes it" in words
