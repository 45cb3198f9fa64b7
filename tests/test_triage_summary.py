"""What `aiperf-triage show` and summary.md say about the run: the command as a shell line, what the
telemetry covers and why it ends where it does, and which captures the bundle holds or lacks and why."""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from conftest import REPO

from aiperf_lab.inputs import shell_line
from aiperf_lab.triage.facts import CaptureCoverage, DeviceTelemetry, TelemetrySpan, TriageFacts, WorkloadFacts
from aiperf_lab.triage.report import captures, summary_markdown

SHOW_ARGS = 'for a in "$@"; do printf "%s|" "$a"; done'


def triage(*args, env):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=60)


def _env_without_nsys(tmp_path: Path) -> dict:
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh", "uname", "lscpu"):   # a few tools the collectors use; nsys is not among them
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    env = dict(os.environ, PATH=str(bare))
    assert shutil.which("nsys", path=env["PATH"]) is None
    return env


def _bundle_text(archive: Path, name: str) -> str:
    with tarfile.open(archive, "r:gz") as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/" + name))
        return tar.extractfile(member).read().decode()


def test_show_says_the_command_as_given_what_telemetry_covers_and_that_nsys_is_missing(tmp_path):
    command = [sys.executable, "-c", 'print("x y")']
    done = triage("--duration", "4", "--output", tmp_path, "--progress", "--", *command,
                  env=_env_without_nsys(tmp_path))
    assert done.returncode == 0, done.stderr
    # said as it happens too, not only in the bundle
    assert "no nsys trace: nsys is not installed (not on PATH), so the workload ran without it" in done.stderr
    assert f"workload started: {shlex.join(command)}" in done.stderr
    archive = Path(done.stdout.strip().splitlines()[-1])
    shown = triage("show", archive, env=dict(os.environ))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()

    command_line = next(line for line in lines if line.startswith("- command: "))
    assert shlex.split(command_line[len("- command: "):]) == command
    assert command_line.endswith("""'print("x y")'""")

    # the telemetry line names the span of telemetry.csv and why it ends before the 4 s asked
    telemetry = next(line for line in lines if line.startswith("- telemetry ("))
    rows = [r for r in csv.reader(io.StringIO(_bundle_text(archive, "telemetry.csv"))) if r and r[0][:1].isdigit()]
    first, last = float(rows[0][0]), float(rows[-1][0])
    span = re.search(r": (\d+\.\d)-(\d+\.\d) s \((\d+) samples\); the workload ended at (\d+\.\d) s, before the 4 s "
                     r"asked, and telemetry went on (\d+\.\d) s after it \(to see the ramp-down\)", telemetry)
    assert span, telemetry
    assert float(span[1]) == round(first, 1) and float(span[2]) == round(last, 1)
    assert int(span[3]) == len(rows)
    ended, tail = float(span[4]), float(span[5])
    assert ended < 4 - 1.5 and 1.9 <= tail <= 2.5 and last <= ended + tail + 0.5

    assert "- nsys trace: none — nsys is not installed (not on PATH), so the workload ran without it" in lines
    assert "- bench: none — not asked (--bench runs it)" in lines
    assert "nsys is not installed" in _bundle_text(archive, "report.html")


def _facts(**changes) -> TriageFacts:
    facts = TriageFacts(recording=TelemetrySpan(10.0, "duration", 10.02, 10.4, first_s=0.0, last_s=10.4, samples=105))
    for key, value in changes.items():
        setattr(facts, key, value)
    return facts


def test_each_capture_says_what_the_bundle_holds_or_why_it_has_none():
    said = dict(captures(_facts(no_trace_because="--no-nsys was given, so the workload ran without nsys")))
    assert said["telemetry (host CPU and memory only, no GPU)"] == \
        "0.0-10.4 s (105 samples); the 10 s asked ran out at 10.0 s; then 0.4 s while the collectors finished"
    assert said["nsys trace"] == "none — --no-nsys was given, so the workload ran without nsys"
    assert said["bench"] == "none — not asked (--bench runs it)"

    coverage = CaptureCoverage(0.5, 9.0, 10.4, "export", 812, 40)
    said = dict(captures(_facts(coverage=coverage, bench_asked=True, bench_lines=["bf16 ..."],
                                telemetry=[DeviceTelemetry(0, 10.4)])))
    assert said["nsys trace"] == coverage.text() and said["bench"] == "see Bench below"
    assert "telemetry (GPUs and host)" in said

    failed = CaptureCoverage(None, None, 10.4, "observed", written=False, note="nsys wrote no report")
    said = dict(captures(_facts(coverage=failed, bench_asked=True)))
    assert said["nsys trace"] == "no trace: nsys wrote no report"
    assert said["bench"] == "asked, but it did not run (see Collectors)"


def test_the_telemetry_span_names_an_interrupt_and_the_bench_after_the_duration():
    interrupted = TelemetrySpan(120.0, "interrupt", 41.3, 42.0, first_s=0.0, last_s=42.0, samples=421,
                                stopped_by_words="Ctrl-C", stopped_workload=True, stop_s=0.5)
    assert interrupted.text() == ("0.0-42.0 s (421 samples); interrupted (Ctrl-C) at 41.3 s of the 120 s asked; "
                                  "then 0.5 s while the workload was stopped and 0.2 s while the collectors finished")
    under_nsys = TelemetrySpan(60.0, "workload", 20.1, 51.4, workload_end_s=18.1, first_s=0.0, last_s=51.4,
                               samples=514, stop_s=31.0, under_nsys=True)
    assert under_nsys.text() == ("0.0-51.4 s (514 samples); the workload ended at 18.1 s, before the 60 s asked, "
                                 "and telemetry went on 2.0 s after it (to see the ramp-down); then 31.0 s while "
                                 "nsys wrote its report and 0.3 s while the collectors finished")
    benched = TelemetrySpan(60.0, "duration", 60.0, 150.5, bench_s=90.0, first_s=0.0, last_s=150.5, samples=1506)
    assert benched.text().endswith("the 60 s asked ran out at 60.0 s; then 0.5 s while the collectors finished and "
                                   "90.0 s of --bench")


def test_summary_writes_a_command_with_control_characters_as_one_pasteable_line():
    command = ["echo", "a\nb", "it's", "x\x1b[2Jy"]
    meta = {"host": "h", "start_utc": "s", "end_utc": "e", "duration_s": 1.0, "command": command}
    text = summary_markdown(meta, [], _facts(workload=WorkloadFacts(True, 0, 0.1, None, [], False)))
    line = next(line for line in text.splitlines() if line.startswith("- command: "))
    assert "\x1b" not in line and line == "- command: " + shell_line(command)
    if shutil.which("bash"):
        want = subprocess.run(["bash", "-c", SHOW_ARGS, "_", *command], capture_output=True).stdout
        got = subprocess.run(["bash", "-c", f"f(){{ {SHOW_ARGS}; }}; f {shell_line(command)}"],
                             capture_output=True).stdout
        assert got == want


def test_a_workload_end_without_a_time_still_says_the_workload_ended_first():
    span = TelemetrySpan(30.0, "workload", 7.3, 7.4, first_s=0.0, last_s=7.4, samples=75)
    assert span.text() == ("0.0-7.4 s (75 samples); the workload ended before the 30 s asked; telemetry went on "
                           "until 7.3 s (a short tail, to see the ramp-down); then 0.1 s while the collectors finished")
