"""When the bundle keeps nsys's binary .nsys-rep: only where the environment and argv are clean (the caller's
keep_report) AND the export of that very report was read and its scrub changed nothing. Text the workload
put into the trace itself (an NVTX range named after a token it read from a file) is in neither the
environment nor the arguments (red team N1: the report shipped with eight scrubbed cells in its export)."""

from __future__ import annotations

import shutil
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.nsys_capture import add_capture
from aiperf_lab.triage.redact import Redactor

LM = Path(__file__).parent / "data" / "h200" / "lm_forward.sqlite"
TOKEN = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12"


def _stand_in_nsys(tmp_path: Path, monkeypatch, export: Path | None) -> Path:
    """An nsys on the PATH whose `export` copies `export` where --output says (or fails when None)."""
    fake = tmp_path / "bin" / "nsys"
    fake.parent.mkdir()
    body = (f"shutil.copy({str(export)!r}, sys.argv[sys.argv.index('--output') + 1])\n" if export
            else "sys.exit('export failed')\n")
    fake.write_text("#!" + sys.executable + "\nimport shutil, sys\n"
                    "if sys.argv[1:] == ['export', '--help']:\n    sys.exit(0)\n" + body)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    rep = tmp_path / "work" / "workload.nsys-rep"
    rep.parent.mkdir()
    rep.write_bytes(b"NVIDIA Tegra Profiler Report 2025@3@1@0-0v0.\n\x0bL" + TOKEN.encode())
    return rep


def _export_with_range_named(tmp_path: Path, text: str) -> Path:
    export = tmp_path / "made.sqlite"
    shutil.copy(LM, export)
    with sqlite3.connect(export) as con:
        con.execute("UPDATE StringIds SET value = ? WHERE id = (SELECT min(id) FROM StringIds)", (text,))
    return export


def _capture(tmp_path: Path, rep: Path, keep_report: bool = True):
    bundle = BundleWriter(tmp_path / "out", "aiperf-triage-x", Redactor({}))
    result = add_capture(bundle, rep, keep_report=keep_report, why_not="the environment held secrets",
                         stop=threading.Event())
    return bundle, result.outcome


def test_a_clean_export_keeps_the_report(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, _export_with_range_named(tmp_path, "forward"))
    bundle, outcome = _capture(tmp_path, rep)
    assert outcome["scrubbed_cells"] == 0 and "nsys_rep_left_out" not in outcome
    assert bundle.path("nsys/workload.nsys-rep").exists()


def test_a_secret_in_the_trace_leaves_the_report_out(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, _export_with_range_named(tmp_path, f"load {TOKEN}"))
    bundle, outcome = _capture(tmp_path, rep)
    assert outcome["scrubbed_cells"] >= 1
    assert "cells scrubbed" in outcome["nsys_rep_left_out"]
    assert not bundle.path("nsys/workload.nsys-rep").exists()
    assert TOKEN.encode() not in bundle.path("nsys/workload.sqlite").read_bytes()


@pytest.mark.parametrize("name", ["request headers={'X-Api-Key': b'Zq8vN2mK5pL9xR4tW8zN3b'}",
                                  "DB_PASSWORD 'hunter2-Pa55w0rd!'", "setenv DB_PASSWORD hunter2-Pa55w0rd!"])
def test_a_bytes_value_or_a_listing_in_a_range_name_leaves_the_report_out(tmp_path, monkeypatch, name):
    # red team rt6 F1/F4: forms the rules missed kept the range name, so the scrub changed nothing
    rep = _stand_in_nsys(tmp_path, monkeypatch, _export_with_range_named(tmp_path, name))
    bundle, outcome = _capture(tmp_path, rep)
    assert outcome["scrubbed_cells"] >= 1 and not bundle.path("nsys/workload.nsys-rep").exists()
    data = bundle.path("nsys/workload.sqlite").read_bytes()
    assert b"Zq8vN2mK5pL9xR4t" not in data and b"hunter2-Pa55w0rd" not in data


def test_a_report_nsys_could_not_export_is_left_out(tmp_path, monkeypatch):
    rep = _stand_in_nsys(tmp_path, monkeypatch, None)
    bundle, outcome = _capture(tmp_path, rep)
    assert "export_error" in outcome and "could not be checked" in outcome["nsys_rep_left_out"]
    assert not bundle.path("nsys/workload.nsys-rep").exists()


@pytest.mark.parametrize("keep_report", [False])
def test_the_callers_reason_stands_when_it_says_no(tmp_path, monkeypatch, keep_report):
    rep = _stand_in_nsys(tmp_path, monkeypatch, _export_with_range_named(tmp_path, "forward"))
    _bundle, outcome = _capture(tmp_path, rep, keep_report)
    assert outcome["nsys_rep_left_out"] == "the environment held secrets"
