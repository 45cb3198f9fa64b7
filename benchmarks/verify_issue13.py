"""Issue 13's GPU verification, the parts that need no GPU: which runs grade every check of an
exercise (plan), and the results table from their run.json files (table).

    python benchmarks/verify_issue13.py plan [--multi] [EXERCISE ...]   one "exercise:variant:profile" a line
    python benchmarks/verify_issue13.py table RUNS_DIR GPU_NAME          a markdown table

The plan covers every variant of each exercise, with each profile a check of that variant needs
(a run with a profile also grades the checks that need none), and a plain run where a check asks
for `profile: none`. Without exercises: every single-GPU exercise (--multi: every multi-GPU one).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.labs.catalog import all_exercises, find_exercise  # noqa: E402


def multi_gpu(exercise) -> bool:
    return exercise.launcher == "torchrun" or exercise.min_gpus > 1


def plan(names: list[str], multi: bool = False) -> list[str]:
    exercises = [find_exercise(n) for n in names] if names else [e for e in all_exercises() if multi_gpu(e) == multi]
    specs = []
    for exercise in exercises:
        for variant in exercise.variants:
            checks = [c for c in exercise.checks if c.variant in (None, variant.name)]
            profiles = sorted({c.profile for c in checks if c.profile})
            if not profiles:
                profiles = ["none"]
            for profile in profiles:
                specs.append(f"{exercise.id[:7]}:{variant.name}:{profile}")
    return specs


def table(runs_dir: Path, gpu: str) -> str:
    from aiperf_lab.labs.history import list_runs

    lines = [f"GPU: {gpu}", "", "| exercise | variant | profile | grade | checks (status: numbers) | machine |",
             "|---|---|---|---|---|---|"]
    for run in sorted(list_runs(runs_dir), key=lambda r: r.folder.name):
        r = run.run_record
        checks = "; ".join(f"{c.id} **{c.status}** ({_short(c.detail)})" for c in r.checks)
        machine = r.measurements.get("gpu_name") or gpu
        lines.append(f"| {r.exercise[:7]} | {r.variant} | {r.profile} | {run.grade.word} ({_short(run.grade.reason)})"
                     f" | {checks} | {machine} |")
    broken = [p.parent.name for p in Path(runs_dir).glob("*/stdout.log") if not (p.parent / "run.json").exists()]
    for name in sorted(broken):
        lines.append(f"| {name} | | | no run.json (the run was killed or the runner failed: see its stdout.log) | | {gpu} |")
    return "\n".join(lines) + "\n"


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def main(argv: list[str]) -> int:
    if argv[:1] == ["plan"]:
        multi = "--multi" in argv
        print("\n".join(plan([a for a in argv[1:] if a != "--multi"], multi)))
        return 0
    if argv[:1] == ["table"] and len(argv) == 3:
        sys.stdout.write(table(Path(argv[1]), argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
