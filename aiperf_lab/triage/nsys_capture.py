"""What a workload's nsys capture adds to a bundle: the SQLite export with secrets scrubbed from
every text cell, our stats tables, and the .nsys-rep itself when it provably holds nothing to redact."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.config import nsys_export_argv
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.commands import run_command
from aiperf_lab.triage.redact import Redactor

STATS_REPORTS = ["cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "kernel_breakdown", "gpu_idle"]


def scrub_sqlite(path: Path, redactor: Redactor) -> int:
    """Redact every text cell of an nsys export in place (environment, command lines, paths), then
    VACUUM so the old values do not survive in free pages. Returns the number of cells changed."""
    con = sqlite3.connect(path)
    con.text_factory = lambda raw: raw.decode("utf-8", "replace")
    changed = 0
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [r[1] for r in con.execute(f"PRAGMA table_info([{table}])")]
            for column in columns:
                rows = con.execute(f"SELECT rowid, [{column}] FROM [{table}] WHERE typeof([{column}]) = 'text'").fetchall()
                updates = [(clean, rowid) for rowid, value in rows if (clean := redactor.text(value)) != value]
                if updates:
                    con.executemany(f"UPDATE [{table}] SET [{column}] = ? WHERE rowid = ?", updates)
                    changed += len(updates)
        con.commit()
        con.execute("VACUUM")
    finally:
        con.close()
    return changed


def add_capture(bundle: BundleWriter, report: Path, keep_report: bool, why_not: str, stop: threading.Event) -> dict:
    """Export, scrub and summarize an nsys report into the bundle; returns what happened, for the manifest."""
    outcome: dict = {"nsys_rep": str(report.name)}
    nsys = shutil.which("nsys")
    export = report.with_suffix(".sqlite")
    result = run_command(nsys_export_argv(str(report), str(export), nsys=nsys), timeout_s=300,
                         stop=stop) if nsys else None
    if result is None or not result.ok or not export.exists():
        outcome["export_error"] = result.describe() if result else "nsys is not on the PATH"
    else:
        outcome["scrubbed_cells"] = scrub_sqlite(export, bundle.redactor)
        bundle.add_file("workload", "nsys/workload.sqlite", export, move=True)
        outcome["tables"] = _stats_tables(bundle, bundle.path("nsys/workload.sqlite"))
    if keep_report:
        bundle.add_file("workload", "nsys/workload.nsys-rep", report)
    else:
        outcome["nsys_rep_left_out"] = why_not
    return outcome


def _stats_tables(bundle: BundleWriter, export: Path) -> dict:
    from aiperf_lab.errors import MissingData
    from aiperf_lab.metrics.sources import open_profile
    from aiperf_lab.metrics.tables import to_csv

    written, skipped = [], {}
    try:
        profile = open_profile(export)
    except InputError as exc:
        return {"error": str(exc)}
    for report in STATS_REPORTS:
        try:
            for table in profile.report(report):
                bundle.write_text("workload", f"nsys/stats/{table.name}.csv", to_csv(table))
                written.append(table.name)
        except MissingData as exc:
            skipped[report] = str(exc)
    return {"written": written, "skipped": skipped}
