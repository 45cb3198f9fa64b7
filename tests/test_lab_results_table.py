"""benchmarks/lab_results.py: docs/lab-results.md's tables from run records of several machines."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile

from conftest import REPO


def _run(folder, exercise, variant, profile, gpu, statuses, used=1, stamp="20261123T010000Z"):
    path = folder / f"{stamp}-{exercise}-{variant}"
    path.mkdir(parents=True)
    checks = [{"id": f"c{i}", "text": "t", "expr": "e", "status": s, "detail": f"x={i}"} for i, s in enumerate(statuses)]
    failed = [c["id"] for c in checks if c["status"] == "fail"]
    (path / "run.json").write_text(json.dumps({
        "exercise": exercise, "variant": variant, "profile": profile, "exit_code": 0, "seconds": 12.5,
        "energy": {"joules": 1234.4}, "device": {"used_gpus": list(range(used))},
        "measurements": {"gpu_name": gpu, "gpus_used": used}, "checks": checks,
        "grade": "failed" if failed else "pass",
        "grade_reason": f"1 of {len(checks)} checks failed: {failed[0]}" if failed else "all passed"}))


def _tables(*args):
    return subprocess.run([sys.executable, "benchmarks/lab_results.py", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO)


def test_two_machines_side_by_side_from_a_folder_and_a_tarball(tmp_path):
    h100, h200 = tmp_path / "h100", tmp_path / "h200" / "runs"
    _run(h100, "02-ex04-optimization-loop", "v3", "ncu", "NVIDIA H100 80GB HBM3", ["pass", "fail"])
    _run(h100, "02-ex04-optimization-loop", "v3", "ncu", "NVIDIA H100 80GB HBM3", ["pass", "pass"],
         stamp="20261123T020000Z")   # the newer run of the same spec is the one shown
    _run(h100, "05-ex01-single-gpu-baseline", "single", "none", "NVIDIA H100 80GB HBM3", ["pass", "fail"])
    _run(h200, "02-ex04-optimization-loop", "v3", "ncu", "NVIDIA H200", ["pass", "pass"])
    _run(h200, "05-ex01-single-gpu-baseline", "single", "none", "NVIDIA H200", ["pass", "pass"])
    _run(h200, "05-ex02-multi-gpu-scaling", "strong", "none", "NVIDIA H200", ["pass"], used=2)
    archive = tmp_path / "issue13_runs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(h200, arcname="runs")
    done = _tables(h100, archive)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "| exercise | variant | profile | H100 80GB HBM3 | H200 | 2x H200 | |" in text
    assert "| 02-ex04 | v3 | ncu | pass | pass | not run |  |" in text
    assert "| 05-ex01 | single | none | failed | pass | not run | differs |" in text
    assert "| 05-ex02 | strong | none | not run | not run | pass |  |" in text
    assert ("| 02-ex04 | v3 | ncu | H100 80GB HBM3 | pass (all passed) | 12.5 | 1234 | c0 **pass** (x=0); "
            "c1 **pass** (x=1) |") in text
    assert "- 05-ex01 single (none) `c1`: H100 80GB HBM3 fail, H200 pass" in text
    named = _tables(f"{h100}=H100 SXM")
    assert "| 02-ex04 | v3 | ncu | H100 SXM |" in named.stdout


def test_bad_sources_are_one_line_and_exit_2(tmp_path):
    done = _tables(tmp_path / "missing")
    assert done.returncode == 2 and done.stderr.strip().endswith("neither a runs folder nor a .tar.gz of one")
    (tmp_path / "empty").mkdir()
    done = _tables(tmp_path / "empty")
    assert done.returncode == 2 and "no run.json found" in done.stderr
    evil = tmp_path / "evil.tar.gz"
    (tmp_path / "x").write_text("x")
    with tarfile.open(evil, "w:gz") as tar:
        tar.add(tmp_path / "x", arcname="../escape/run.json")
    done = _tables(evil)
    assert done.returncode == 2 and "refusing the archive member '../escape/run.json'" in done.stderr
    assert not (tmp_path / "escape").exists()
