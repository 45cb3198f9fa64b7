"""Past runs from their run folders, and two runs side by side: what the console's History screen and
`python -m aiperf_lab.labs compare` show.

A run folder is what the runner writes: run.json, and tables/*.csv when a profile was taken.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiperf_lab.errors import InputError
from aiperf_lab.inputs import decode_text, read_bounded, shown_path
from aiperf_lab.labs.grading import Grade, grade_of_record, grade_run
from aiperf_lab.labs.record import RunRecord
from aiperf_lab.metrics.tables import Table

# A run.json or a saved table is a few KB to a few MB; a run folder copied from elsewhere is read with a
# bound (and only as a regular file: a FIFO named run.json would block the History screen).
MAX_RUN_FILE_BYTES = 64 << 20
# The columns kernel_diff reads of both runs' cuda_gpu_kern_sum.csv: integers, integers, text.
KERNEL_DIFF_COLUMNS = ("Total Time (ns)", "Instances", "Name")


@dataclass(frozen=True)
class PastRun:
    folder: Path
    record: dict[str, Any]          # run.json as read (for readers not yet moved to run_record)
    run_record: RunRecord

    @property
    def label(self) -> str:
        r = self.run_record
        return f"{r.started_utc or '?'} {r.exercise or '?'} {r.variant or '?'} ({r.profile or 'none'})"

    @property
    def grade(self) -> Grade:
        r = self.run_record
        if r.grade:
            return grade_of_record({"grade": r.grade, "grade_reason": r.grade_reason})
        return grade_run(r.exit_code, r.cancelled, r.checks)

    @property
    def passed(self) -> bool:
        return self.grade.word == "pass"

    def table(self, name: str) -> Table | None:
        """A table the runner saved (tables/<name>.csv), numbers as numbers; None where there is none, or
        it cannot be read as one (not a regular file, over the bound, not CSV, rows of another width)."""
        path = self.folder / "tables" / f"{name}.csv"
        if not path.is_file():
            return None
        try:
            rows = list(csv.reader(io.StringIO(decode_text(read_bounded(path, MAX_RUN_FILE_BYTES)), newline="")))
        except (InputError, csv.Error):
            return None
        if not rows or any(len(row) != len(rows[0]) for row in rows):
            return None
        return Table(name, name, rows[0], [[_number(cell) for cell in row] for row in rows[1:]])


def _number(text: str):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def load_run(folder: str | Path) -> PastRun:
    folder = Path(folder)
    path = folder / "run.json"
    if not path.is_file():
        raise InputError(f"{folder}: not a run folder (no run.json)")
    try:
        record = json.loads(decode_text(read_bounded(path, MAX_RUN_FILE_BYTES)))
    except (ValueError, RecursionError) as exc:   # not JSON, nested too deep, a number of 5,000 digits
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise InputError(f"{shown_path(path)}: unreadable run record ({reason})") from None
    if not isinstance(record, dict) or "exercise" not in record:
        raise InputError(f"{path}: not a lab run record")
    try:
        typed = RunRecord.from_dict(record)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    return PastRun(folder, record, typed)


def list_runs(runs_dir: str | Path) -> list[PastRun]:
    """Every readable run under runs_dir, newest first; unreadable folders are skipped."""
    runs = []
    for path in sorted(Path(runs_dir).glob("*/run.json"), reverse=True):
        try:
            runs.append(load_run(path.parent))
        except InputError:
            continue
    return runs


def answers_unlocked(exercise_id: str, runs_dir: str | Path) -> str | None:
    """None when the exercise's written answers may be shown (a run of it under runs_dir whose workload
    finished: the answers come after the learner's own numbers), else the one line that says why not.
    `labs show --answers` and the console's answers key both ask this."""
    runs = [r.run_record for r in list_runs(runs_dir) if r.run_record.exercise == exercise_id]
    if any(r.finished for r in runs):
        return None
    # list_runs is newest first: say how the latest one ended, in the words the console uses
    tried = (f": {'its one run' if len(runs) == 1 else f'the latest of its {len(runs)} runs'} there "
             f"{runs[0].outcome}") if runs else ""
    return (f"the answers come after your own numbers: run {exercise_id} first; no run of it under "
            f"{runs_dir} has finished{tried}")


SUMMARY_FIELDS = [("Run time (s)", lambda r: r.seconds), ("Energy (J)", lambda r: r.energy.get("joules")),
                  ("Average power (W)", lambda r: r.measurements.get("avg_power_w")),
                  ("Kernel time (ns)", lambda r: r.measurements.get("kernel_time_ns")),
                  ("Top kernel", lambda r: r.measurements.get("top_kernel"))]


def _shown(value):
    """Floats to 6 significant digits (887.7769999999999 -> 887.777): the sums of figures that run.json
    keeps; the deltas are rounded the same way."""
    return float(f"{value:.6g}") if isinstance(value, float) else value


def compare_runs(before: PastRun, after: PastRun) -> list[Table]:
    """The run summary with deltas, the measurements both runs share, and the kernel diff when both
    runs have a kernel table."""
    a_run, b_run = before.run_record, after.run_record
    rows = []
    for label, read in SUMMARY_FIELDS:
        a, b = read(a_run), read(b_run)
        rows.append([label, _shown(a), _shown(b), *_delta(a, b)])
    measured = []
    for name in sorted(set(a_run.measurements) & set(b_run.measurements)):
        a, b = a_run.measurements[name], b_run.measurements[name]
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and a != b:
            measured.append([name, _shown(a), _shown(b), *_delta(a, b)])
    tables = [Table("run_diff", f"{before.label}  ->  {after.label}", ["Quantity", "Before", "After", "Change", "After/Before"],
                    rows),
              Table("measurement_diff", "Measurements that changed", ["Measurement", "Before", "After", "Change",
                                                                       "After/Before"], measured)]
    kern_a, kern_b = before.table("cuda_gpu_kern_sum"), after.table("cuda_gpu_kern_sum")
    if _kernel_diff_reads(kern_a) and _kernel_diff_reads(kern_b):
        from aiperf_lab.metrics.analysis import kernel_diff
        tables.append(kernel_diff(kern_a, kern_b))
    for name, what in (("energy_by_range", "NVTX range"), ("energy_by_category", "category")):
        energy_a, energy_b = before.table(name), after.table(name)
        if energy_a is not None and energy_b is not None:
            tables.append(energy_diff(energy_a, energy_b, name, what))
    return tables


def _kernel_diff_reads(table: Table | None) -> bool:
    """Whether a saved cuda_gpu_kern_sum has what kernel_diff reads: its columns, integer times and counts."""
    if table is None or not all(c in table.columns for c in KERNEL_DIFF_COLUMNS):
        return False
    total, count = table.columns.index(KERNEL_DIFF_COLUMNS[0]), table.columns.index(KERNEL_DIFF_COLUMNS[1])
    return all(type(row[total]) is int and type(row[count]) is int for row in table.rows)


def energy_diff(before: Table, after: Table, name: str, what: str) -> Table:
    """Joules per range (or category) in two runs: each row's energy, share and per-instance joules,
    before and after; rows in either run, the before run's order first."""
    def by_label(table: Table) -> dict[str, dict]:
        return {str(row[table.columns[0]]): row for row in table.as_dicts()}

    a, b = by_label(before), by_label(after)
    rows = []
    for label in [*a, *(k for k in b if k not in a)]:
        ra, rb = a.get(label, {}), b.get(label, {})
        ja, jb = ra.get("Energy (J)"), rb.get("Energy (J)")
        rows.append([label, ja, jb, *_delta(ja, jb), ra.get("Share (%)"), rb.get("Share (%)"),
                     ra.get("J/Instance"), rb.get("J/Instance")])
    columns = [what.capitalize(), "Before (J)", "After (J)", "Change (J)", "After/Before", "Before Share (%)",
               "After Share (%)", "Before J/Instance", "After J/Instance"]
    return Table(f"{name}_diff", f"Energy per {what}, before and after", columns, rows)


def _delta(a, b) -> list:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        try:
            return [_shown(float(b - a)) if isinstance(b - a, float) else b - a, round(b / a, 3) if a else None]
        except OverflowError:   # an integer past a float's range beside a float (run.json holds any number)
            return ["", None]
    return ["", None]
