"""A run's record: what run.json holds, written by the runner and read back (RunRecord.from_dict)
by history, compare and the console."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aiperf_lab.errors import InputError


def finished(exit_code: int | None, cancelled: bool) -> bool:
    """A run's workload finished: it exited 0 and was not cancelled (whatever the checks say)."""
    return exit_code == 0 and not cancelled


def outcome(exit_code: int | None, cancelled: bool) -> str:
    """How a run's workload ended, in the words the console, history and the labs CLI all use:
    `finished (exit 0)`, `failed (exit 2)`, `cancelled (exit -2)`, or `did not finish` (no exit code)."""
    if cancelled:
        return f"cancelled (exit {exit_code})" if exit_code is not None else "cancelled"
    if exit_code is None:
        return "did not finish"
    return f"{'finished' if finished(exit_code, cancelled) else 'failed'} (exit {exit_code})"


@dataclass
class CheckResult:
    id: str
    text: str
    expr: str
    status: str          # pass, fail, skipped, error
    detail: str


@dataclass
class RunRecord:
    exercise: str
    variant: str
    profile: str
    size: str
    folder: str
    argv: list[str]
    env_delta: dict[str, str]
    started_utc: str
    ended_utc: str = ""
    seconds: float = 0.0
    exit_code: int | None = None
    cancelled: bool = False
    device: dict[str, Any] = field(default_factory=dict)
    energy: dict[str, Any] = field(default_factory=dict)
    measurements: dict[str, Any] = field(default_factory=dict)
    tables: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    grade: str = ""          # pass, failed, not graded (aiperf_lab.labs.grading)
    grade_reason: str = ""
    knobs: dict[str, Any] = field(default_factory=dict)   # what-if knobs (--set), {} for the exercise as written

    @property
    def passed(self) -> bool:
        return self.grade == "pass"

    @property
    def finished(self) -> bool:
        return finished(self.exit_code, self.cancelled)

    @property
    def outcome(self) -> str:
        return outcome(self.exit_code, self.cancelled)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunRecord":
        """A run.json read back: unknown keys are ignored, missing ones take their defaults, and a field
        of the wrong type is an InputError naming it."""
        if not isinstance(data, dict):
            raise InputError("not a run record (a JSON object is expected)")
        kinds = {"exercise": str, "variant": str, "profile": str, "size": str, "folder": str, "argv": list,
                 "env_delta": dict, "started_utc": str, "ended_utc": str, "seconds": (int, float),
                 "exit_code": (int, type(None)), "cancelled": bool, "device": dict, "energy": dict,
                 "measurements": dict, "tables": list, "checks": list, "notes": list, "grade": str,
                 "grade_reason": str, "knobs": dict}
        values: dict[str, Any] = {}
        for name, kind in kinds.items():
            if name not in data:
                continue
            value = data[name]
            if not isinstance(value, kind):
                raise InputError(f"run record field {name!r} has the wrong type ({type(value).__name__})")
            values[name] = value
        for name in ("exercise", "variant", "profile", "size", "folder", "argv", "env_delta", "started_utc"):
            values.setdefault(name, [] if name == "argv" else {} if name == "env_delta" else "")
        checks = []
        for c in values.get("checks", []):
            if not isinstance(c, dict):
                raise InputError("run record field 'checks' holds something that is not a check")
            checks.append(CheckResult(*(str(c.get(k, "")) for k in ("id", "text", "expr", "status", "detail"))))
        values["checks"] = checks
        return cls(**values)
