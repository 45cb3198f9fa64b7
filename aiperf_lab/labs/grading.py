"""A run's grade: one word for the whole run, the same everywhere it is shown.

- `failed`: the workload exited non-zero, was cancelled, or a graded check failed or errored.
- `pass`: the workload exited 0 and at least one check was evaluated, and all evaluated ones passed.
- `not graded`: the workload exited 0 but no check could be evaluated (no GPU, tiny size, no
  profile taken, ...); the reason says why.

The runner stores it in run.json as `"grade"` and `"grade_reason"`; readers of older run.json files
(without those keys) get the same answer computed from the exit code and the checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Literal, Mapping

GradeWord = Literal["pass", "failed", "not graded"]
GRADES: tuple[GradeWord, ...] = ("pass", "failed", "not graded")
# `python -m aiperf_lab.labs run` exits with this when the run is graded `failed`
# (0 is pass or not graded, 2 bad input, 1 a bug, 130 interrupted).
EXIT_FAILED = 3


@dataclass(frozen=True)
class Grade:
    word: GradeWord
    reason: str

    @property
    def failed(self) -> bool:
        return self.word == "failed"


def _status(check: Any) -> str:
    return str(check.get("status") if isinstance(check, Mapping) else getattr(check, "status", ""))


def _detail(check: Any) -> str:
    return str(check.get("detail", "") if isinstance(check, Mapping) else getattr(check, "detail", ""))


def _id(check: Any) -> str:
    return str(check.get("id", "?") if isinstance(check, Mapping) else getattr(check, "id", "?"))


def grade_run(exit_code: int | None, cancelled: bool, checks: Iterable[Any]) -> Grade:
    """The grade of a run from its exit code, whether it was cancelled, and its check results
    (CheckResult objects or their dicts from run.json)."""
    checks = list(checks)
    if cancelled:
        return Grade("failed", "cancelled before it finished")
    if exit_code is None:
        return Grade("failed", "the workload did not finish")
    if exit_code != 0:
        return Grade("failed", f"the workload exited {exit_code}")
    failed = [c for c in checks if _status(c) in ("fail", "error")]
    if failed:
        names = ", ".join(_id(c) for c in failed)
        return Grade("failed", f"{len(failed)} of {len(checks)} checks failed: {names}")
    passed = [c for c in checks if _status(c) == "pass"]
    if passed:
        skipped = len(checks) - len(passed)
        extra = f" ({skipped} not evaluated)" if skipped else ""
        return Grade("pass", f"{len(passed)} of {len(checks)} checks passed{extra}")
    if not checks:
        return Grade("not graded", "this run has no checks")
    # a what-if run's details carry the would-be verdict after "; as written": the reason is the part before
    reasons = sorted({_detail(c).split("; as written")[0] for c in checks if _detail(c)})
    why = "; ".join(reasons[:3]) if reasons else "no check could be evaluated"
    return Grade("not graded", f"no check could be evaluated: {why}")


def grade_of_record(record: Mapping[str, Any]) -> Grade:
    """The grade stored in a run.json dict, or computed from it for records written before grades."""
    word = record.get("grade")
    if word in GRADES:
        return Grade(word, str(record.get("grade_reason") or ""))
    exit_code = record.get("exit_code")
    return grade_run(exit_code if isinstance(exit_code, int) else None, bool(record.get("cancelled")),
                     [c for c in (record.get("checks") or []) if isinstance(c, Mapping)])
