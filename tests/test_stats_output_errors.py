"""aiperf-stats's own output: a disk that fills up while a report is written, and a reader that goes away.

Red team rt6 F6: with PYTHONUNBUFFERED=1 (common in containers) Python's stdout is a text layer straight on
the file, which drops the rest of a short write without a word: a CSV cut at 77,824 of 143,278 bytes, exit 0.
rt6 F10: `aiperf-stats FILE | head -1` in table format ended with exit 1 (rich's own broken-pipe exit).
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from conftest import H200, REPO

from aiperf_lab.metrics.cli import main

LM = H200 / "lm_forward.sqlite"
FULL = "aiperf-stats: cannot write the output: No space left on device"


class FillingDisk(io.RawIOBase):
    """A file on a disk with `room` bytes left: a write past it is cut short, the next one fails (ENOSPC),
    as write(2) does on a full file system."""

    def __init__(self, room: int):
        self.room = room
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.room == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        taken = bytes(data[:self.room])
        self.data += taken
        self.room -= len(taken)
        return len(taken)


def _run_into(monkeypatch, stdout, args):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", err)
    code = main([str(a) for a in args])
    return code, err.getvalue()


def _argv(args: list) -> list[str]:
    """The command's arguments: the H200 export, then `args` (--list-reports alone: the list of every report)."""
    return [str(a) for a in (args if args == ["--list-reports"] else [LM, *args])]


def _full_output(capsys, args) -> str:
    assert main([str(a) for a in args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("args", [
    ["--report", "cuda_api_trace", "--format", "csv"],       # rt6's case: 143 KB written in one write
    ["--report", "cuda_gpu_kern_sum", "--format", "csv"],    # 4.7 KB
    ["--report", "cuda_gpu_kern_sum", "--format", "json"],
    ["--report", "cuda_gpu_kern_sum"],                       # table
    [],                                                      # the overview
])
def test_unbuffered_stdout_filling_up_is_exit_2_not_a_silent_cut(monkeypatch, capsys, args):
    """PYTHONUNBUFFERED's stdout: TextIOWrapper(write_through) over the raw file, which ignores how much a
    write took. Half the report fits: exit 2 with one line, and what was written is the report's start."""
    whole = _full_output(capsys, [LM, *args]).encode()
    disk = FillingDisk(room=len(whole) // 2)
    stdout = io.TextIOWrapper(disk, encoding="utf-8", write_through=True)
    code, err = _run_into(monkeypatch, stdout, [LM, *args])
    assert (code, err) == (2, FULL + "\n")
    assert bytes(disk.data) == whole[:len(whole) // 2]


def test_list_reports_filling_up_is_exit_2(monkeypatch):
    """Output that would only be flushed at the interpreter's exit (print, then return 0) is flushed where an
    error is still one line and exit 2."""
    disk = FillingDisk(room=10)
    stdout = io.TextIOWrapper(io.BufferedWriter(disk, 64), encoding="utf-8")
    code, err = _run_into(monkeypatch, stdout, ["--list-reports"])
    assert (code, err) == (2, FULL + "\n")


def _limited_file_size(limit: int):
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return setup


@pytest.mark.parametrize("args, unbuffered", [
    (["--report", "cuda_api_trace", "--format", "csv"], "1"),     # rt6's case
    (["--report", "cuda_gpu_kern_sum", "--format", "csv"], "1"),
    (["--report", "cuda_api_trace", "--format", "csv"], None),
    (["--list-reports"], None),                                  # print, then return: the exit's flush
])
def test_the_command_on_a_file_that_cannot_grow_is_exit_2(tmp_path, capsys, args, unbuffered):
    """The real kernel's short write then failure, without root: a file size limit (ulimit -f) acts on the
    output file as a full disk does (a write is cut at the limit, the next fails), with EFBIG for ENOSPC."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    whole = _full_output(capsys, _argv(args)).encode()
    out = tmp_path / "out"
    with out.open("wb") as stream:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", *_argv(args)], stdout=stream,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, env=env, timeout=120,
                              preexec_fn=_limited_file_size(len(whole) // 2))
    assert done.returncode == 2
    assert done.stderr == "aiperf-stats: cannot write the output: File too large\n"
    assert whole.startswith(out.read_bytes())


@pytest.mark.parametrize("args, unbuffered", [
    ([], None),                                                   # the overview (rich tables)
    ([], "1"),
    (["--report", "cuda_gpu_trace"], None),                       # a long table, written directly
    (["--report", "cuda_gpu_trace"], "1"),
    (["--report", "cuda_gpu_kern_sum"], None),
    (["--report", "cuda_gpu_kern_sum", "--format", "csv"], None),
    (["--report", "cuda_gpu_kern_sum", "--format", "json"], "1"),
    (["--list-reports"], None),
])
def test_a_reader_that_stops_after_one_line_ends_it_quietly_in_every_format(args, unbuffered):
    """`| head -1`: exit 0, nothing on stderr, whatever the format (README: a reader that goes away is not an
    error). The pipe is made 4 KiB so every one of these outputs outgrows it and meets the closed end."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    proc = subprocess.Popen([sys.executable, "-m", "aiperf_lab.metrics.cli", *_argv(args)], stdout=write_end,
                            stderr=subprocess.PIPE, cwd=REPO, env=env)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline()
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (0, b"")


def test_output_an_exit_handler_leaves_unwritten_is_still_exit_2(tmp_path):
    """The command's quick end (cli._end_now) flushes once more after the exit handlers: output that cannot go
    out there is one line and exit 2, not exit 0 (the os._exit skipped) or the interpreter's own complaint."""
    expected = (H200 / "nsys_stats_lm_forward_cuda_gpu_kern_sum.csv").read_bytes()
    script = ("import atexit, sys\n"
              "atexit.register(lambda: sys.stdout.write('x' * 100))\n"
              "from aiperf_lab.metrics.cli import main\nsys.exit(main())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    out = tmp_path / "out"
    with out.open("wb") as stream:
        done = subprocess.run([sys.executable, "-c", script, str(LM), "--report", "cuda_gpu_kern_sum", "--format", "csv"],
                              stdout=stream, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env, timeout=120,
                              preexec_fn=_limited_file_size(len(expected)))  # the report fits, the rest not
    assert (done.returncode, done.stderr) == (2, "aiperf-stats: cannot write the output: File too large\n")
    assert out.read_bytes() == expected


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_help_to_a_full_disk_is_exit_2():
    """argparse swallows an OSError while printing --help (exit 0, nothing written, nothing said)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", "--help"], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert (done.returncode, done.stderr) == (2, FULL + "\n")


@pytest.mark.parametrize("unbuffered", ["1", None])
def test_a_non_blocking_pipe_gets_the_whole_report(capsys, unbuffered):
    """A stdout left non-blocking by whoever made it (a pipe of a node or Go parent, a shared terminal) takes
    nothing while full (EAGAIN): Python's buffered stdout then ended with an internal error (exit 120), its
    unbuffered one dropped the rest with exit 0. The report waits for its reader and arrives whole."""
    expected = _full_output(capsys, [LM, "--report", "cuda_api_trace", "--format", "csv"]).encode()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)  # full after 4 KiB: many EAGAINs
    fcntl.fcntl(write_end, fcntl.F_SETFL, fcntl.fcntl(write_end, fcntl.F_GETFL) | os.O_NONBLOCK)
    proc = subprocess.Popen([sys.executable, "-m", "aiperf_lab.metrics.cli", str(LM), "--report", "cuda_api_trace",
                             "--format", "csv"], stdout=write_end, stderr=subprocess.PIPE, cwd=REPO, env=env)
    os.close(write_end)
    time.sleep(1.0)  # a reader that comes late: the pipe is full and the writer meets EAGAIN
    with os.fdopen(read_end, "rb") as reader:
        got = reader.read()
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (0, b"")
    assert got == expected
