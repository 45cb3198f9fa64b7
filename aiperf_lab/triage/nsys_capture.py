"""What a workload's nsys capture adds to a bundle: the SQLite export with secrets scrubbed from
every text cell, our stats tables, and the .nsys-rep itself when it provably holds nothing to redact."""

from __future__ import annotations

import re
import shutil
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.config import nsys_export_argv, nsys_export_has_blobs
from aiperf_lab.metrics.tables import Table
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.commands import run_command
from aiperf_lab.triage.redact import Redactor

STATS_REPORTS = ["cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "kernel_breakdown", "gpu_idle"]


# nsys writes UUIDs bare (TARGET_INFO_GPU.uuid, the profiling session's id), without the GPU- prefix the
# redactor's rule for GPU UUIDs looks for.
BARE_UUID = re.compile(r"(?<![0-9A-Za-z-])[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(?![0-9A-Za-z-])")


def scrub_sqlite(path: Path, redactor: Redactor) -> int:
    """Redact every text cell of an nsys export in place (environment, command lines, paths), and the
    text inside blob cells; with --redact-hosts, bare UUIDs too (as the GPU UUIDs of the rest of the
    bundle are). A table whose rows cannot be addressed (no rowid: a virtual or WITHOUT ROWID table,
    which nsys does not write) is emptied. Then VACUUM, so the old values do not survive in free pages.
    Returns the number of cells changed."""
    con = sqlite3.connect(path)
    con.text_factory = lambda raw: raw.decode("utf-8", "replace")

    def clean_text(value: str) -> str:
        value = redactor.text(value)
        if redactor.redact_hosts:
            value = BARE_UUID.sub(lambda m: redactor.placeholder("gpu-uuid", "GPU-" + m.group(0)), value)
        return value

    def clean_blob(value: bytes) -> bytes:
        # latin-1 maps every byte to one character and back: ASCII secrets inside binary data are found,
        # and the bytes around them are kept as they were.
        text = bytes(value).decode("latin-1")
        cleaned = clean_text(text)
        return value if cleaned == text else cleaned.encode("latin-1", "replace")

    changed = 0
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            try:
                columns = [r[1] for r in con.execute(f"PRAGMA table_info([{table}])")]
                for column in columns:
                    for kind, clean in (("text", clean_text), ("blob", clean_blob)):
                        rows = con.execute(f"SELECT rowid, [{column}] FROM [{table}] "
                                           f"WHERE typeof([{column}]) = '{kind}'").fetchall()
                        updates = [(new, rowid) for rowid, value in rows if (new := clean(value)) != value]
                        if updates:
                            con.executemany(f"UPDATE [{table}] SET [{column}] = ? WHERE rowid = ?", updates)
                            changed += len(updates)
            except sqlite3.OperationalError:
                changed += _empty(con, table)
        con.commit()
        con.execute("VACUUM")
    finally:
        con.close()
    return changed


def _empty(con: sqlite3.Connection, table: str) -> int:
    """A table that cannot be scrubbed row by row holds nothing afterwards (dropped if it cannot be emptied)."""
    try:
        return con.execute(f"DELETE FROM [{table}]").rowcount
    except sqlite3.Error:
        con.execute(f"DROP TABLE IF EXISTS [{table}]")
        return 1


@dataclass
class ExportSpan:
    """What an nsys SQLite export holds, in its own time base (ns from the session's start)."""
    session_start_epoch_ns: int | None = None
    collection_ns: tuple[int, int] | None = None      # ANALYSIS_DETAILS startTime, stopTime
    kernels: int | None = None                        # None: no kernel table (none traced, or not flushed)
    kernel_ns: tuple[int, int] | None = None
    nvtx_ranges: int | None = None


def export_span(path: Path) -> ExportSpan:
    """Counts and time spans of an export, read with fixed queries over tables checked to exist."""
    span = ExportSpan()
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "TARGET_INFO_SESSION_START_TIME" in tables:
            row = con.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1").fetchone()
            span.session_start_epoch_ns = int(row[0]) if row and row[0] is not None else None
        if "ANALYSIS_DETAILS" in tables:
            row = con.execute("SELECT startTime, stopTime FROM ANALYSIS_DETAILS LIMIT 1").fetchone()
            if row and row[0] is not None and row[1] is not None:
                span.collection_ns = (int(row[0]), int(row[1]))
        if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
            count, first, last = con.execute("SELECT count(*), min(start), max([end]) FROM CUPTI_ACTIVITY_KIND_KERNEL"
                                             ).fetchone()
            span.kernels = int(count)
            span.kernel_ns = (int(first), int(last)) if count else None
        if "NVTX_EVENTS" in tables:
            # push/pop and start/end ranges (59, 60, 70, 71), not marks or domain rows
            span.nvtx_ranges = int(con.execute("SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71)"
                                               ).fetchone()[0])
    finally:
        con.close()
    return span


@dataclass
class CaptureResult:
    outcome: dict = field(default_factory=dict)       # for workload.json
    span: ExportSpan | None = None
    kernel_table: Table | None = None                 # cuda_gpu_kern_sum, when the export has kernels


def add_capture(bundle: BundleWriter, report: Path, keep_report: bool, why_not: str,
                stop: threading.Event) -> CaptureResult:
    """Export, scrub and summarize an nsys report into the bundle; returns what happened, for the manifest."""
    result_out = CaptureResult()
    outcome: dict = result_out.outcome
    outcome["nsys_rep"] = str(report.name)
    nsys = shutil.which("nsys")
    export = report.with_suffix(".sqlite")
    # NVTX payload blobs (NCCL's message sizes) where this nsys can export them; scrub_sqlite cleans the
    # text inside blob cells as it does every other cell.
    result = run_command(nsys_export_argv(str(report), str(export), nsys=nsys,
                                          include_blobs=nsys_export_has_blobs(nsys)), timeout_s=300,
                         stop=stop) if nsys else None
    if result is None or not result.ok or not export.exists():
        outcome["export_error"] = result.describe() if result else "nsys is not on the PATH"
    else:
        outcome["scrubbed_cells"] = scrub_sqlite(export, bundle.redactor)
        bundle.add_file("workload", "nsys/workload.sqlite", export, move=True)
        try:
            result_out.span = export_span(bundle.path("nsys/workload.sqlite"))
        except sqlite3.Error as exc:
            outcome["span_error"] = f"cannot read the export's time span: {exc}"
        outcome["tables"], result_out.kernel_table = _stats_tables(bundle, bundle.path("nsys/workload.sqlite"))
    # The report is nsys's binary format: it goes only where its export was read and found clean. Text the
    # workload put into the trace itself (an NVTX range named after a token it read from a file) is in no
    # environment or argument, and only the scrub of the export sees it.
    if keep_report and "export_error" in outcome:
        keep_report, why_not = False, ("nsys could not export it, so its text could not be checked for secrets; "
                                       "re-run to get a trace")
    elif keep_report and outcome.get("scrubbed_cells"):
        keep_report, why_not = False, (f"its text held secrets ({outcome['scrubbed_cells']} cells scrubbed in the "
                                       "SQLite export), which cannot be removed from nsys's binary format; the "
                                       "scrubbed SQLite export is in the bundle")
    if keep_report:
        bundle.add_file("workload", "nsys/workload.nsys-rep", report)
    else:
        outcome["nsys_rep_left_out"] = why_not
    return result_out


def _stats_tables(bundle: BundleWriter, export: Path) -> tuple[dict, Table | None]:
    from aiperf_lab.errors import MissingData
    from aiperf_lab.metrics.sources import open_profile
    from aiperf_lab.metrics.tables import to_csv

    written, skipped, kernels = [], {}, None
    try:
        profile = open_profile(export)
    except InputError as exc:
        return {"error": str(exc)}, None
    for report in STATS_REPORTS:
        try:
            for table in profile.report(report):
                bundle.write_text("workload", f"nsys/stats/{table.name}.csv", to_csv(table))
                written.append(table.name)
                if table.name == "cuda_gpu_kern_sum":
                    kernels = table
        except MissingData as exc:
            skipped[report] = str(exc)
    # Energy per NVTX range and per kernel category, from the bundle's telemetry.csv (found beside nsys/)
    from aiperf_lab.metrics.sources import ENERGY_REPORTS
    for report in ENERGY_REPORTS if profile.telemetry is not None else ():
        try:
            for table in profile.report(report):
                bundle.write_text("workload", f"nsys/stats/{table.name}.csv", to_csv(table))
                written.append(table.name)
        except InputError as exc:  # MissingData included: no clock, no GPU, no overlap
            skipped[report] = str(exc)
    return {"written": written, "skipped": skipped}, kernels
