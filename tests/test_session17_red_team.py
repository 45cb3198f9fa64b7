"""Red team h17r (session 17) on main after session 16's merges: the cases it found that broke the contract
(exit 0, or exit 2 with one line; nothing from a file's data steers the terminal), each fixed outside the
redaction rules.

1. `aiperf-triage show` and `compare` let bidirectional marks (U+200E, U+200F, U+061C), the line and paragraph
   separators (U+2028, U+2029) and lone surrogates from a bundle reach the terminal, where aiperf-stats escapes
   the same characters (inputs.printable).
2. aiperf-stats printed its SKIPPED lines (a report with no data) and the notes of opening the files before the
   output, so an output it then could not write (stdout on a full disk, an --output folder where a folder has a
   table's name) was an exit 2 in two or more lines; the folder's message named the folder, not the table. The
   same for `aiperf-stats BUNDLE --list-reports` (its note that the bundle holds no profile) and for `aiperf-triage
   show/compare` (the note that a newer version wrote a bundle, then a refused bundle or a full disk).
3. Started with stderr closed (`2>&-`), every command printed what was meant for stderr into its output
   (print(file=None) writes to stdout): the SKIPPED lines inside aiperf-stats' JSON, which then did not parse, and
   an error message as the result.
4. `aiperf-triage --output FILE` (a file, a FIFO, /dev/full at the name) said "cannot write to FILE: File exists",
   mkdir's words, where the folder it needs is not one."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import REPO

from aiperf_lab.inputs import printable
from aiperf_lab.metrics.cli import main as stats_main
from aiperf_lab.triage import archive

FIXTURE = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"
EXPORT = Path(__file__).parent / "data" / "h200" / "lm_forward.sqlite"
# cuda_gpu_kern_sum has rows; lm_forward.sqlite has no CPU samples and no NVTX start/end ranges (two SKIPPED lines)
REPORTS = "cuda_gpu_kern_sum,cpu_sample_sum,nvtx_startend_sum"
MANIFEST = {"tool": "aiperf-triage", "schema_version": 1, "host": "node7", "start_utc": "2026-11-22T00:00:00"}
# Characters that reorder or break the line a terminal shows, which aiperf-stats escapes and show/compare printed raw.
MARKS = ["\u200e", "\u200f", "\u061c", "\u2028", "\u2029"]
# A JSON member can also hold a lone surrogate (summary.md is decoded with replacement, so show never sees one).
JSON_MARKS = [*MARKS, "\ud800", "\udfff"]


def _bundle(path: Path, members: dict[str, bytes]) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


@pytest.mark.parametrize("mark", MARKS, ids=[f"U+{ord(m):04X}" for m in MARKS])
def test_show_escapes_what_aiperf_stats_escapes(tmp_path, mark):
    assert printable(mark) != mark   # aiperf-stats never prints it raw
    summary = f"# node7\n\nfile: {mark}gnp.exe\n".encode("utf-8", "surrogatepass")
    shown = archive.show(_bundle(tmp_path / "b.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode(),
                                                         "b/summary.md": summary}))
    assert "gnp.exe" in shown and mark not in shown, ascii(shown)


@pytest.mark.parametrize("mark", JSON_MARKS, ids=[f"U+{ord(m):04X}" for m in JSON_MARKS])
def test_compare_escapes_what_aiperf_stats_escapes(tmp_path, mark):
    manifest = dict(MANIFEST, host=f"node{mark}7")
    # no summary.md: show falls back to the manifest's text
    path = _bundle(tmp_path / "b.tar.gz", {"b/manifest.json": json.dumps(manifest).encode()})
    labels, rows, _odd = archive.compare([path, FIXTURE])
    cells = [*labels, *(cell for row in rows for cell in row)]
    assert any("node" in cell for cell in cells)
    assert not any(mark in cell for cell in cells), [ascii(c) for c in cells if "node" in c]
    assert mark not in archive.show(path)


def test_stats_skipped_reports_and_an_output_folder_it_cannot_write_are_one_line(tmp_path, capsys):
    (tmp_path / "lm_forward_cuda_gpu_kern_sum.csv").mkdir()   # a folder where the table goes
    code = stats_main([str(EXPORT), "-r", REPORTS, "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err == f"aiperf-stats: cannot write to {tmp_path / 'lm_forward_cuda_gpu_kern_sum.csv'}: Is a directory\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_stats_skipped_reports_and_stdout_on_a_full_disk_are_one_line(fmt):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(EXPORT), "-r", REPORTS, "-f", fmt],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2 and done.stderr == "aiperf-stats: cannot write the output: No space left on device\n", \
        done.stderr


def test_stats_skipped_reports_are_still_said_once_the_output_is_written(capsys):
    code = stats_main([str(EXPORT), "-r", REPORTS, "-f", "csv"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("Time (%),Total Time (ns)")
    assert err.splitlines() == ["SKIPPED: lm_forward.sqlite does not contain CPU sampling data.",
                                "SKIPPED: lm_forward.sqlite does not contain NVTX start/end ranges."]


def _newer_bundle(path: Path) -> Path:
    """The H200 fixture, its manifest saying a newer schema (show and compare note it on stderr)."""
    with tarfile.open(FIXTURE) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    name = next(n for n in members if n.endswith("/manifest.json"))
    members[name] = json.dumps(dict(json.loads(members[name]), schema_version=99)).encode()
    return _bundle(path, members)


def _run(module: str, *args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          cwd=REPO, timeout=60)


def test_compare_of_a_newer_bundle_then_a_refused_one_is_one_line(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("not a bundle\n")
    done = _run("aiperf_lab.triage.cli", "compare", str(_newer_bundle(tmp_path / "new.tar.gz")), str(other))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "not a triage archive" in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["show", "compare"])
def test_show_and_compare_of_a_newer_bundle_on_a_full_disk_are_one_line(tmp_path, command):
    newer = str(_newer_bundle(tmp_path / "new.tar.gz"))
    args = [newer] if command == "show" else [newer, str(FIXTURE)]
    with open("/dev/full", "w") as full:
        done = _run("aiperf_lab.triage.cli", command, *args, stdout=full)
    assert done.returncode == 2 and done.stderr == "aiperf-triage: No space left on device\n", done.stderr


@pytest.mark.parametrize("command", ["show", "compare"])
def test_the_newer_bundle_note_is_still_said_after_the_output(tmp_path, command):
    newer = str(_newer_bundle(tmp_path / "new.tar.gz"))
    done = _run("aiperf_lab.triage.cli", command, *([newer] if command == "show" else [newer, str(FIXTURE)]))
    assert done.returncode == 0 and "host-1" in done.stdout
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("aiperf-triage: note: ") and "schema 99" in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stats_list_reports_of_a_bundle_on_a_full_disk_is_one_line():
    with open("/dev/full", "w") as full:
        done = _run("aiperf_lab.metrics.cli", str(FIXTURE), "--list-reports", stdout=full)
    assert done.returncode == 2 and done.stderr == "aiperf-stats: cannot write the output: No space left on device\n", \
        done.stderr


def _stderr_closed(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-m", module, *args],
                          stdout=subprocess.PIPE, text=True, cwd=REPO, timeout=60)


def test_stats_json_with_stderr_closed_is_only_json():
    done = _stderr_closed("aiperf_lab.metrics.cli", str(EXPORT), "-r", REPORTS, "-f", "json")
    assert done.returncode == 0
    assert [t["report"] for t in json.loads(done.stdout)] == ["cuda_gpu_kern_sum"], done.stdout[-300:]


@pytest.mark.parametrize("module, args", [("aiperf_lab.metrics.cli", ["/nonexistent/x.sqlite"]),
                                          ("aiperf_lab.triage.cli", ["show", "/nonexistent/x.tar.gz"]),
                                          ("aiperf_lab.triage.cli", ["--duration", "nan"])])
def test_an_error_with_stderr_closed_is_not_written_as_the_output(module, args):
    done = _stderr_closed(module, *args)
    assert done.returncode == 2 and done.stdout == ""


@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_triage_output_that_is_no_folder_says_so(tmp_path, kind):
    target = tmp_path / "out"
    if kind == "file":
        target.write_text("x\n")
    else:
        os.mkfifo(target)
    done = _run("aiperf_lab.triage.cli", "--duration", "1", "--no-nsys", "--output", str(target))
    assert done.returncode == 2 and done.stderr == f"aiperf-triage: cannot write to {target}: not a folder\n", done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_triage_with_stdout_on_a_full_disk_says_the_archive_is_written(tmp_path):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "1", "--output",
                               str(tmp_path), "--", sys.executable, "-c", "print('step 1')"],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    (written,) = list(tmp_path.glob("*.tar.gz"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "the archive is written" in done.stderr and written.name in done.stderr


# (session 19: --list-labs with any --replay is one line and exit 2, a good recording too: the listing would
# drop the replay without a word; tests/test_console_session19.py)
@pytest.mark.parametrize("replay,code", [("/nonexistent/recording.csv", 2), ("tests/data/h200", 2),
                                         ("tests/data/h200/nvidia-smi-query-gpu-lms100.csv", 2)])
def test_list_labs_checks_replay_as_it_checks_runs_dir(replay, code):
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.console.cli", "--list-labs", "--replay", replay],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == code, done.stderr
    assert done.stderr.count("\n") == (1 if code else 0), done.stderr
