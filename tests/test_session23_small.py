"""A workload that never started is not said to have run (without nsys): its summary, its capture line and compare's
row say it did not start and why."""
from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

from aiperf_lab.triage.archive import _nsys_trace
from aiperf_lab.triage.facts import TelemetrySpan, TriageFacts, WorkloadFacts
from aiperf_lab.triage.report import captures, summary_markdown

META = {"host": "h", "start_utc": "s", "end_utc": "e", "duration_s": 1.0, "command": ["./missing"]}
WHY = "cannot start ./missing: No such file or directory"


def _facts(workload: WorkloadFacts, no_trace_because: str | None = None) -> TriageFacts:
    facts = TriageFacts(recording=TelemetrySpan(1.0, "duration", 1.0, 1.1, first_s=0.0, last_s=1.1, samples=11))
    facts.workload = workload
    facts.no_trace_because = no_trace_because
    return facts


def test_a_workload_that_did_not_start_is_never_said_to_have_run_without_nsys():
    for because in (None, "--no-nsys was given, so the workload ran without nsys",
                    "nsys is not installed (not on PATH), so the workload ran without it"):
        facts = _facts(WorkloadFacts(False, None, 0.0, None, [], False, not_started_because=WHY), because)
        assert dict(captures(facts))["nsys trace"] == "none — the workload did not start"
        text = summary_markdown(META, [], facts)
        assert f"- workload: {WHY}" in text.splitlines()
        assert "ran without" not in text


def test_a_workload_that_ran_keeps_its_lines():
    facts = _facts(WorkloadFacts(True, 0, 1.0, None, [], False), "--no-nsys was given, so the workload ran without nsys")
    assert dict(captures(facts))["nsys trace"] == "none — --no-nsys was given, so the workload ran without nsys"
    assert "- workload: exit code 0, 1.0 s" in summary_markdown(META, [], facts)


def test_compare_row_of_a_workload_that_did_not_start():
    assert _nsys_trace({"members": {}, "workload": {"exit_code": None, "error": WHY, "under_nsys": False}}) == \
        "none (the workload did not start)"
    assert _nsys_trace({"members": {}, "workload": {"exit_code": 0, "error": None, "under_nsys": False}}) == \
        "none (ran without nsys)"


def test_triage_of_a_program_that_cannot_be_executed_says_it_did_not_start(tmp_path: Path):
    program = tmp_path / "not-a-program"   # executable, but no format the kernel runs: Popen fails (ENOEXEC)
    program.write_bytes(b"\x00\x01\x02 not an executable\n")
    program.chmod(0o755)
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "1", "--no-nsys",
                           "--output", str(tmp_path), "--", str(program)],
                          capture_output=True, text=True, timeout=120)
    archive = Path(done.stdout.strip().splitlines()[-1])
    with tarfile.open(archive) as tar:
        summary = next(tar.extractfile(m).read().decode() for m in tar.getmembers() if m.name.endswith("/summary.md"))
    assert "- workload: cannot start " in summary
    assert "- nsys trace: none — the workload did not start" in summary
    assert "ran without" not in summary
