"""Session 22, h22r: red team of the readers, show and compare (issue 11 items 8-16), what it found.

- A PyTorch 1.8 trace (Kineto's first categories: "Kernel", "Memcpy", "Memset", "Runtime"; renamed
  "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime" from 1.9 on) was refused: "does not contain CUDA
  kernel events", exit 2, for a trace that holds them.
- A file written through Windows PowerShell's `>` is UTF-16 with a byte order mark: `ncu --csv ... >
  out.csv`, `nvidia-smi --query-gpu=... --format=csv -lms 100 > log.csv`. aiperf-stats refused both ("a
  CSV file, but neither Nsight Compute output nor a telemetry recording", "binary data"), and a trace re-saved
  that way ("not a profile"); they now read as their UTF-8 form does, to the byte.
- aiperf-triage's console script (pip's) runs `re.sub` over its argv[0] between importing the entry module
  and calling main(): a signal there met Python's defaults (a KeyboardInterrupt traceback, exit 1, seen at
  load 12 from `aiperf-triage --duration 2 --no-nsys -- sleep 5` signalled at 0.52 s). Imported by the
  console script, the entry module now installs its handler at once.
- A "regular" file whose size is 0 but whose read waits for the kernel (/proc/kmsg) hung aiperf-stats,
  `show`, `compare`, --telemetry and the console's --replay for ever; it is now read without waiting (and
  bounded), or refused in one line. `--telemetry` with a 5,000-character name was an internal error
  (Path.is_file() raises ENAMETOOLONG).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from aiperf_lab.metrics.cli import main as stats_main
from conftest import REPO

DATA = Path(__file__).parent / "data" / "h200"


def _stats(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = stats_main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


# --- PyTorch 1.8's categories ------------------------------------------------------------------------

def _trace(kernel="kernel", memcpy="gpu_memcpy", runtime="cuda_runtime") -> dict:
    """Two launches and their GPU work, as Kineto writes them (categories as given)."""
    return {"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": runtime, "name": "cudaLaunchKernel", "pid": 13721, "tid": "456", "ts": 120, "dur": 5,
         "args": {"correlation": 334, "external id": 4}},
        {"ph": "X", "cat": kernel, "name": "void gemmSN_TN_kernel_64addr", "pid": 0, "tid": "stream 7",
         "ts": 130, "dur": 15, "args": {"correlation": 334, "external id": 4, "device": 0, "stream": 7}},
        {"ph": "X", "cat": runtime, "name": "cudaMemcpyAsync", "pid": 13721, "tid": "456", "ts": 140, "dur": 20,
         "args": {"correlation": 335, "external id": 5}},
        {"ph": "X", "cat": memcpy, "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7",
         "ts": 150, "dur": 10, "args": {"stream": 7, "correlation": 335, "device": 0}},
    ]}


def test_a_pytorch_1_8_trace_reads_as_a_newer_one(tmp_path):
    old = tmp_path / "old.pt.trace.json"
    new = tmp_path / "new.pt.trace.json"
    old.write_text(json.dumps(_trace("Kernel", "Memcpy", "Runtime")))
    new.write_text(json.dumps(_trace()))
    for report in ("cuda_gpu_kern_sum", "kernel_breakdown", "gpu_idle"):
        code, out, err = _stats([old, "--report", report, "--format", "csv"])
        assert code == 0, err
        assert out == _stats([new, "--report", report, "--format", "csv"])[1]
    code, out, _ = _stats([old, "--report", "cuda_gpu_kern_sum", "--format", "json"])
    rows = json.loads(out)
    assert "void gemmSN_TN_kernel_64addr" in json.dumps(rows) and "15000" in json.dumps(rows)


# --- UTF-16 files (Windows PowerShell's `>`) ----------------------------------------------------------

@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("name,reports", [
    ("ncu_full_raw.csv", ["ncu_summary", "ncu_metrics"]),
    ("ncu_full_details.csv", ["ncu_summary"]),
    ("nvidia-smi-query-gpu-lms100.csv", ["telemetry_summary", "telemetry_findings"]),
    ("torch_encoder_layer.pt.trace.json", ["cuda_gpu_kern_sum", "torch_annotation_sum"]),
])
def test_a_utf16_file_reads_as_its_utf8_form(tmp_path, name, reports, codec):
    source = DATA / name
    wide = tmp_path / name
    text = source.read_text(encoding="utf-8")
    data = text.encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data   # PowerShell's BOM; Python's utf-16-be writes none
    wide.write_bytes(data)
    for report in reports:
        code, out, err = _stats([wide, "--report", report, "--format", "csv"])
        assert code == 0, err
        assert out == _stats([source, "--report", report, "--format", "csv"])[1]


def test_a_utf16_log_read_in_odd_pieces_reads_the_same(tmp_path):
    """The recording reader decodes a few MB at a time: a UTF-16 code unit cut between two reads is joined."""
    from aiperf_lab.metrics.telemetry import recording

    source = DATA / "nvidia-smi-query-gpu-lms100.csv"
    wide = tmp_path / "log16.csv"
    wide.write_bytes(source.read_text(encoding="utf-8").encode("utf-16"))   # 11.8 KB
    saved = recording.READ_BYTES
    recording.READ_BYTES = 4097   # odd: each read ends inside a code unit
    try:
        code, out, err = _stats([wide, "--format", "csv"])
    finally:
        recording.READ_BYTES = saved
    assert code == 0, err
    assert out == _stats([source, "--format", "csv"])[1]


def test_utf16_without_a_byte_order_mark_is_still_refused_in_one_line(tmp_path):
    """No BOM: nothing says the file is UTF-16 (ASCII text in UTF-16 without one is NUL-riddled bytes)."""
    wide = tmp_path / "log.csv"
    wide.write_bytes((DATA / "nvidia-smi-query-gpu-lms100.csv").read_text().encode("utf-16-le"))
    code, out, err = _stats([wide])
    assert code == 2 and err.count("\n") == 1 and out == ""


# --- aiperf-triage's console script between its import and main() ------------------------------------

@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_while_the_console_script_runs_its_own_code_is_exit_130_and_one_line(sig):
    """pip's console script imports entry, then runs `sys.argv[0] = re.sub(...)`, then main(): a signal in
    that re.sub (seen at load 12: a KeyboardInterrupt traceback from re/_compile, exit 1) found Python's
    defaults. The script is reproduced here, the signal sent where its re.sub is."""
    script = f"""
import os, re, signal, sys
sys.argv = [os.path.join("venv", "bin", "aiperf-triage"), "--duration", "1", "--output", os.devnull + "/x"]
from aiperf_lab.triage.entry import main
os.kill(os.getpid(), signal.{sig})
sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
print("went on")
sys.exit(main())
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr == "aiperf-triage: interrupted before it started; nothing written\n"
    assert "went on" not in done.stdout


def test_imported_as_a_library_the_entry_module_installs_nothing():
    script = """
import signal, sys
sys.argv = ["pytest"]
import aiperf_lab.triage.entry
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "True"], done.stderr


# --- inputs that are no file to read: a kernel file, a name too long ------------------------------------

def test_a_descriptor_with_nothing_to_read_yet_is_refused_not_waited_on():
    """What a size-0 'regular' file is read with: a kernel file such as /proc/kmsg has no data until the
    kernel logs, and a blocking read of it waited for ever (aiperf-stats, show, compare, --telemetry, the
    console's --replay). A pipe with its writer open and nothing written behaves the same way."""
    import os

    from aiperf_lab.errors import InputError
    from aiperf_lab.inputs import read_without_waiting

    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    try:
        with pytest.raises(InputError, match="cannot be read without waiting"):
            read_without_waiting(read_end, "/proc/kmsg", 1 << 20)
        os.write(write_end, b"x" * 10)
        with pytest.raises(InputError, match="reads as more than 4"):
            read_without_waiting(read_end, "/proc/x", 4)
    finally:
        os.close(read_end)
        os.close(write_end)


KMSG = Path("/proc/kmsg")


@pytest.mark.skipif(not (KMSG.exists() and __import__("os").access(KMSG, __import__("os").R_OK)),
                    reason="/proc/kmsg is not readable here (needs root)")
@pytest.mark.parametrize("argv", [
    ["-m", "aiperf_lab.metrics.cli", str(KMSG)],
    ["-m", "aiperf_lab.metrics.cli", str(DATA / "lm_forward.sqlite"), "--telemetry", str(KMSG), "-r", "energy_by_range"],
    ["-m", "aiperf_lab.triage.cli", "show", str(KMSG)],
    ["-m", "aiperf_lab.triage.cli", "compare", str(KMSG), str(KMSG)],
])
def test_proc_kmsg_is_one_line_and_exit_2_not_a_hang(argv):
    try:
        done = subprocess.run([sys.executable, *argv], cwd=REPO, capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{argv[1]} waited on /proc/kmsg for 30 s")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, (done.returncode, done.stderr)
    assert "kmsg" in done.stderr


def test_a_telemetry_path_too_long_is_one_line_and_exit_2():
    name = "/tmp/" + "/".join(["x" * 240] * 21)   # 5,060 characters: ENAMETOOLONG from stat()
    code, out, err = _stats([DATA / "lm_forward.sqlite", "--telemetry", name, "--report", "energy_by_range"])
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err, err
    assert err.startswith("aiperf-stats: --telemetry /tmp/xxx") and "cannot open (File name too long)" in err
    code, _, err = _stats([DATA / "lm_forward.sqlite", "--telemetry", "/nonexistent/t.csv", "-r", "energy_by_range"])
    assert (code, err) == (2, "aiperf-stats: --telemetry /nonexistent/t.csv: no such file\n")
