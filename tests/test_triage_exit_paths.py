"""Exit paths from the second red-team pass (issue 11): a disk that fills under the workload's log,
a signal in triage's first instant."""

from __future__ import annotations

import builtins
import json
import os
import signal
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

from conftest import REPO

from aiperf_lab.triage import workload_output
from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.workload_output import RedactedLog


def test_a_full_disk_under_the_log_is_recorded_not_a_thread_traceback(tmp_path, monkeypatch):
    crashes = []
    monkeypatch.setattr(threading, "excepthook", crashes.append)
    # /dev/full: every flush fails with ENOSPC, as a tmpfs that filled up does
    monkeypatch.setattr(workload_output, "open", lambda path, mode="r": builtins.open("/dev/full", mode),
                        raising=False)
    log = RedactedLog(tmp_path / "stdout.log", Redactor({}), cap_bytes=1 << 20)
    read_end, write_end = os.pipe()
    log.attach(os.fdopen(read_end, "rb"))
    os.write(write_end, b"".join(b"%d\n" % i for i in range(1000)))  # fits the write buffer: fails at close
    os.close(write_end)
    log.drain(5)
    assert crashes == []
    assert log.error and "No space left on device" in log.error


def test_a_sigterm_right_after_the_entry_point_is_imported_is_exit_130():
    script = ("import sys, os, signal, time\nsys.argv[0] = 'aiperf-triage'\nimport aiperf_lab.triage.cli\n"
              "os.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(10)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_console_replay_of_a_5000_character_path_is_exit_2_one_line(tmp_path, capsys):
    from aiperf_lab.console import cli

    for args in (["--replay", str(tmp_path / ("d" * 5000))], ["--replay", str(tmp_path / ("d" * 5000) / "x.csv")],
                 ["--runs-dir", str(tmp_path / ("r" * 5000))]):
        code = cli.main(args)
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and len(err) < 400, (args[0], code, err[:300])


def test_a_collector_that_writes_after_the_archive_leaves_no_folder_behind(tmp_path):
    import pytest

    from aiperf_lab.triage.bundle import BundleClosed, BundleWriter

    bundle = BundleWriter(tmp_path, "aiperf-triage-x", Redactor({}))
    bundle.write_text("hardware", "hardware.json", "{}")
    archive = bundle.finish("host", [], interrupted=True)
    # an interrupted run archives without waiting; the software collector's thread wrote later and
    # left a .partial folder holding software.json
    with pytest.raises(BundleClosed):
        bundle.write_json("software", "software.json", {"python": "3"})
    assert [p.name for p in tmp_path.iterdir()] == [archive.name]


def test_two_runs_with_one_name_keep_both_bundles(tmp_path, monkeypatch):
    # Two triage runs starting in the same second with the same host name and --output (srun on nodes
    # that report one name): each writes in its own folder, and neither archive replaces the other.
    import os
    import tarfile
    from aiperf_lab.triage.bundle import BundleWriter
    from aiperf_lab.triage.redact import Redactor

    monkeypatch.setattr(os, "getpid", lambda: 1111)
    first = BundleWriter(tmp_path, "aiperf-triage-node-20261123T000000Z", Redactor({}))
    first.write_text("workload", "workload/stdout.log", "RUN-A\n")
    monkeypatch.setattr(os, "getpid", lambda: 2222)
    second = BundleWriter(tmp_path, "aiperf-triage-node-20261123T000000Z", Redactor({}))
    second.write_text("workload", "workload/stdout.log", "RUN-B\n")
    assert first.root != second.root and first.root.is_dir() and second.root.is_dir()
    archives = [second.finish("node", [], False)]
    monkeypatch.setattr(os, "getpid", lambda: 1111)
    archives.append(first.finish("node", [], False))
    assert [a.name for a in archives] == ["aiperf-triage-node-20261123T000000Z.tar.gz",
                                          "aiperf-triage-node-20261123T000000Z-2.tar.gz"]
    logs = []
    for archive in archives:
        with tarfile.open(archive) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("workload/stdout.log"))
            logs.append(tar.extractfile(member).read().decode())
    assert logs == ["RUN-B\n", "RUN-A\n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(a.name for a in archives)   # nothing partial left


def test_an_interrupt_stops_the_wait_for_a_backlog_of_output_to_be_redacted(tmp_path, monkeypatch):
    """Red team SG1: a workload printed 20 MB of the slowest text; Ctrl-C after the duration acted 17 s
    later, once all of it was redacted. Now the wait ends a second after the interrupt; what was not
    redacted is left out (never written raw) and the log says why."""
    from aiperf_lab.triage.redact import StreamRedactor

    slow_feed = StreamRedactor.feed

    def feed(self, text):
        time.sleep(0.05)   # each batch slow, as 1 MiB of the worst text is
        return slow_feed(self, text)

    monkeypatch.setattr(StreamRedactor, "feed", feed)
    monkeypatch.setattr(workload_output, "BATCH_BYTES", 4096)
    log = RedactedLog(tmp_path / "stdout.log", Redactor({}), cap_bytes=1 << 22)
    read_end, write_end = os.pipe()
    log.attach(os.fdopen(read_end, "rb"))
    backlog = b"".join(b"line %d\n" % i for i in range(300_000))   # ~2.6 MB: 640 batches, 32 s of feeding
    def write_all():
        try:
            os.write(write_end, backlog)
        except BrokenPipeError:   # the reader stopped after the interrupt, as triage's does
            pass
        os.close(write_end)

    writer = threading.Thread(target=write_all, daemon=True)
    writer.start()
    interrupted = threading.Event()
    threading.Timer(0.5, interrupted.set).start()
    started = time.monotonic()
    log.finish(stop=interrupted)
    took = time.monotonic() - started
    writer.join(5)
    text = (tmp_path / "stdout.log").read_text()
    assert took < 4.0, took
    assert text.startswith("line 0\n") and "bytes left out: interrupted before they were redacted]" in text
    assert log.abandoned_bytes > 0


def test_without_an_interrupt_the_backlog_is_redacted_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(workload_output, "BATCH_BYTES", 4096)
    backlog = b"".join(b"line %d\n" % i for i in range(20_000))
    log, writer = _log_fed_through_a_pipe(tmp_path, backlog, cap_bytes=1 << 22)
    log.finish(stop=threading.Event())
    writer.join(5)
    assert (tmp_path / "stdout.log").read_bytes() == backlog and log.abandoned_bytes == 0


def test_a_workload_that_kills_triage_at_once_dies_with_it(tmp_path):
    """Red team W4: `kill -KILL $PPID` as the workload's first act outlived triage in 6 of 10 runs: the
    guardian learned of the workload only after Popen returned. It now knows the run's token before."""
    marker = f"{40_000 + os.getpid() % 1000}.119"
    for _ in range(3):
        subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "3", "--no-nsys", "--output",
                        str(tmp_path), "--", "bash", "-c", f"echo x; kill -KILL $PPID; sleep {marker}"],
                       cwd=REPO, capture_output=True, timeout=60)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _running("sleep", marker):
            time.sleep(0.1)
        survivors = _running("sleep", marker)
        for pid in survivors:
            os.kill(pid, signal.SIGKILL)
        assert not survivors


def _running(program: str, argument: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if handle.read().split(b"\0")[:2] == [program.encode(), argument.encode()]:
                        found.append(int(entry))
            except OSError:
                pass
    return found


def test_output_left_behind_by_a_redactor_still_busy_is_said_and_counted(tmp_path, monkeypatch):
    """Red team rt9 S1: a text slow to redact (terminal hyperlinks, 8 s of CPU per MB then) kept the redactor
    inside one 1 MiB batch after finish() gave up on it: the log kept 1.1 of 6.3 MB and said nothing, as
    the bytes left out were counted only when the redactor stopped. Now the log ends with a note of exactly
    what was received and not written, and the redactor, once it returns, writes nothing more."""
    from aiperf_lab.triage.redact import StreamRedactor

    slow_feed = StreamRedactor.feed
    fed = threading.Event()

    def feed(self, text):
        if fed.is_set():
            time.sleep(1.0)   # every piece after the first: far slower than the wait allows
        fed.set()
        return slow_feed(self, text)

    monkeypatch.setattr(StreamRedactor, "feed", feed)
    monkeypatch.setattr(workload_output, "ABANDON_WAIT_S", 0.2)
    backlog = b"".join(b"line %d\n" % i for i in range(100_000))   # ~0.8 MB: one batch, 13 pieces
    log, writer = _log_fed_through_a_pipe(tmp_path, backlog, cap_bytes=1 << 24)
    log.finish(redact_s=0.5)
    writer.join(5)
    text = (tmp_path / "stdout.log").read_text()
    kept, _, note = text.partition("\n[last ")
    assert note.endswith(" bytes left out: not redacted in time]\n"), text[-200:]
    left_out = int(note.split()[0])
    assert backlog.startswith(kept.encode()) and len(kept.encode()) + left_out == len(backlog) > left_out > 0
    assert log.abandoned_bytes == left_out
    time.sleep(1.5)   # the redactor returns from its piece: it must not write into the finished log
    assert (tmp_path / "stdout.log").read_text() == text and os.listdir(tmp_path) == ["stdout.log"]


def test_summary_says_when_output_was_left_out_for_want_of_time(tmp_path, monkeypatch):
    """The same loss seen from the bundle: summary.md and workload.json say how much of the output was left
    out and why (rt9 S1: only received_bytes against kept_bytes told, in workload.json)."""
    from aiperf_lab.triage.redact import StreamRedactor

    slow_feed = StreamRedactor.feed
    monkeypatch.setattr(StreamRedactor, "feed", lambda self, text: (time.sleep(0.3), slow_feed(self, text))[1])
    monkeypatch.setattr(workload_output, "REDACT_WAIT_S", 0.3)
    monkeypatch.setattr(workload_output, "ABANDON_WAIT_S", 0.1)
    state, read = _triage_in_process(tmp_path, "[print('line', i) for i in range(200_000)]")
    assert state["left_out_bytes"] > 0 and state["left_out_because"] == "not redacted in time"
    assert f"- workload output: stdout.log: the last {state['left_out_bytes']} of {state['received_bytes']} bytes " \
           "left out (not redacted in time; never written unredacted)" in read["summary.md"]
    assert read["stdout.log"].endswith(f"[last {state['left_out_bytes']} bytes left out: not redacted in time]\n")


def test_a_redaction_that_raises_costs_its_piece_not_the_rest_of_the_log(tmp_path, monkeypatch):
    """Red team rt9 X1 (fault injected: no input is known to make redaction raise): the log kept 1 of 4,000 lines,
    with no note, and the redactor thread's traceback went to triage's stderr. Now the piece that raised is left out
    (never written raw) with a one-line note in its place, and the output after it is kept."""
    from aiperf_lab.triage.redact import StreamRedactor

    feed = StreamRedactor.feed

    def raising_feed(self, text):
        if "BOOM" in text:
            raise RuntimeError("a bug that quotes the text: BOOM")
        return feed(self, text)

    monkeypatch.setattr(StreamRedactor, "feed", raising_feed)
    lines = [b"line %d\n" % i for i in range(40_000)]
    lines[20_000] = b"BOOM\n"
    output = b"".join(lines)
    log, writer = _log_fed_through_a_pipe(tmp_path, output, cap_bytes=1 << 24)
    log.finish()
    writer.join(5)
    text = (tmp_path / "stdout.log").read_text()
    assert "BOOM" not in text and log.failed_because == "RuntimeError" and log.failed_bytes > 0
    before, note, after = text.partition(f"\n[{log.failed_bytes} bytes left out here: redaction failed (RuntimeError)]\n")
    assert note and before.startswith("line 0\n") and after.endswith("line 39999\n")
    kept = (before + after).encode()
    assert len(kept) + log.failed_bytes == len(output) and output.startswith(before.encode())
    assert output.endswith(after.encode())


def test_summary_says_where_redaction_failed(tmp_path, monkeypatch):
    from aiperf_lab.triage.redact import StreamRedactor

    feed = StreamRedactor.feed
    monkeypatch.setattr(StreamRedactor, "feed", lambda self, text: (
        (_ for _ in ()).throw(ValueError("BOOM")) if "BOOM" in text else feed(self, text)))
    state, read = _triage_in_process(
        tmp_path, "print('before'); print('BOOM', flush=True); import time; time.sleep(0.5); print('after')")
    assert state["redaction_failed_bytes"] > 0 and state["redaction_failed_because"] == "ValueError"
    assert (f"- workload output: stdout.log: {state['redaction_failed_bytes']} bytes left out where redaction failed "
            "(ValueError; the log says where)") in read["summary.md"]
    assert "BOOM" not in read["stdout.log"] and read["stdout.log"].endswith("after\n")


def test_a_command_line_whose_redaction_raises_is_hidden_whole(monkeypatch):
    """rt9 X1 on argv (fault injected): a rule that raises while the command line is read must not end the run; every
    argument is hidden instead, and the report counts it."""
    from aiperf_lab.triage.redaction import redactor as redactor_module

    def broken(self, argv):
        raise RuntimeError("a rule's bug")

    monkeypatch.setattr(redactor_module.Redactor, "_redacted_argv", broken)
    redactor = Redactor({})
    assert redactor.argv(["python3", "train.py", "--lr", "0.1"]) == ["python3"] + ["[REDACTED]"] * 3
    assert redactor.report()["rules_applied"] == {"command line not read (redaction failed)": 1}


def _triage_in_process(tmp_path, program: str) -> tuple[dict, dict[str, str]]:
    """Runs triage in this process (so a test's monkeypatches hold) on `python -c program`; stdout.log's state in
    workload.json, and summary.md, workload.json and stdout.log as text."""
    from aiperf_lab.triage import cli

    assert cli.main(["--duration", "5", "--no-nsys", "--output", str(tmp_path), "--", sys.executable, "-c",
                     program]) == 0
    (archive,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as bundle:
        read = {Path(n).name: bundle.extractfile(n).read().decode() for n in bundle.getnames()
                if n.endswith(("summary.md", "workload.json", "stdout.log"))}
    return json.loads(read["workload.json"])["logs"]["stdout.log"], read


def _log_fed_through_a_pipe(tmp_path, output: bytes, cap_bytes: int) -> tuple[RedactedLog, threading.Thread]:
    """stdout.log reading a pipe, as a workload's, and a started thread that writes output into the pipe and closes it."""
    log = RedactedLog(tmp_path / "stdout.log", Redactor({}), cap_bytes=cap_bytes)
    read_end, write_end = os.pipe()
    log.attach(os.fdopen(read_end, "rb"))
    writer = threading.Thread(target=lambda: (os.write(write_end, output), os.close(write_end)))
    writer.start()
    return log, writer
