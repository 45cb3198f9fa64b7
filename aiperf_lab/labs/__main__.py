"""python -m aiperf_lab.labs: list the exercises, show a walkthrough, run an exercise.

    python -m aiperf_lab.labs list [--json]
    python -m aiperf_lab.labs show EXERCISE [--answers [--runs-dir DIR]] [--knobs]
    python -m aiperf_lab.labs run EXERCISE [--variant V] [--profile none|nsys|ncu|torch] [--size tiny|full]
                                  [--seconds N] [--runs-dir DIR] [--set NAME=VALUE ...]
    python -m aiperf_lab.labs history [--runs-dir DIR]
    python -m aiperf_lab.labs compare RUN_BEFORE RUN_AFTER [--format table|csv]

A run's grade (run.json "grade", history, the console): `pass` (every check that could be evaluated
passed), `failed` (the workload failed, or a check failed), `not graded` (no check could be evaluated:
the workload ran on the CPU or at --size tiny, the profile the checks need was not taken, the device is
not in the datasheet table, or a what-if run with --set), always with the reason.

Exit codes of `run`: 0 pass or not graded, 3 failed, 2 bad input or the workload could not run here
(no GPU, no profiler), 1 an internal error, 130 interrupted.
How the workload ended, in the same words here, in `show --answers` and on the console's Run screen:
`finished (exit 0)`, `failed (exit N)` (a non-zero exit), `cancelled (exit N)`, `did not finish`.
`show --answers` reveals the answers to the walkthrough's questions once the exercise has a finished
run (the workload exited 0, whatever the grade) in --runs-dir; the console's answers key (a) asks the
same of its runs folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aiperf_lab.cli_support import OneLineParser, reflow_markdown, run_cli, terminal_columns
from aiperf_lab.errors import InputError

PROG = "python -m aiperf_lab.labs"


def run(argv: list[str]) -> int:
    from aiperf_lab.labs.catalog import PROFILERS, find_exercise, list_labs

    parser = OneLineParser(prog=PROG, description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="the exercises")
    listing.add_argument("--json", action="store_true")
    show = commands.add_parser("show", help="an exercise's walkthrough")
    show.add_argument("exercise")
    show.add_argument("--answers", action="store_true", help="the answers to the questions (after a run)")
    show.add_argument("--knobs", action="store_true", help="the what-if knobs `run --set` accepts")
    show.add_argument("--runs-dir", type=Path, default=Path("runs"))
    start = commands.add_parser("run", help="run an exercise and check its outcome")
    start.add_argument("exercise")
    start.add_argument("--variant")
    start.add_argument("--profile", choices=PROFILERS, default="none")
    start.add_argument("--size", choices=["tiny", "full"], default="full")
    start.add_argument("--seconds", type=float)
    start.add_argument("--runs-dir", type=Path, default=Path("runs"))
    start.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="a what-if knob the exercise declares (see show --knobs); the run is not graded")
    past = commands.add_parser("history", help="past runs, newest first")
    past.add_argument("--runs-dir", type=Path, default=Path("runs"))
    diff = commands.add_parser("compare", help="two run folders side by side")
    diff.add_argument("before", type=Path)
    diff.add_argument("after", type=Path)
    diff.add_argument("--format", choices=["table", "csv"], default="table")
    args = parser.parse_args(argv)

    if args.command in ("history", "compare"):
        return _history(args)

    if args.command == "list":
        labs = list_labs()
        if args.json:
            print(json.dumps(labs, indent=2))
        else:
            _print_catalog(labs, terminal_columns())
        return 0
    try:
        exercise = find_exercise(args.exercise)
    except KeyError as exc:
        raise InputError(f"{exc.args[0]}") from None
    if args.command == "show":
        return _show(exercise, args)

    from aiperf_lab.labs.grading import EXIT_FAILED
    from aiperf_lab.labs.runner import run_exercise

    record = run_exercise(exercise.id, args.variant, args.profile, args.size, args.runs_dir, args.seconds,
                          on_line=lambda line: print(f"  | {line}", flush=True), knobs=args.set)
    print(f"\n{record.outcome}, {record.seconds} s"
          + (f", {record.energy.get('joules'):.1f} J" if record.energy.get("joules") is not None else ""))
    for check in record.checks:
        print(f"  [{check.status:>7}] {check.text}: {check.detail}")
    for note in record.notes:
        print(f"  note: {note}")
    print(record.folder)
    if record.exit_code == 2:
        print(f"grade: {record.grade} ({record.grade_reason})")
        raise InputError(f"the workload could not run here (see {record.folder}/stdout.log)")
    if exercise.answers_text() is not None and record.finished:
        # the same rule as `show --answers` (labs.history.answers_unlocked): a finished run
        print(f"answers to the walkthrough's questions: {PROG} show {exercise.id} --answers")
    print(f"grade: {record.grade} ({record.grade_reason})")
    return EXIT_FAILED if record.grade == "failed" else 0


def _show(exercise, args) -> int:
    if args.knobs:
        if not exercise.knobs:
            print(f"{exercise.id} has no what-if knobs")
        for k in exercise.knobs:
            only = f" (variant {', '.join(k.variants)} only)" if k.variants else ""
            print(f"--set {k.name}=<{k.kind} {k.minimum:g}..{k.maximum:g}, default {k.default:g}>  {k.help}{only}")
        return 0
    if not args.answers:
        sys.stdout.write(_fitted(exercise.walkthrough_text()))
        return 0
    from aiperf_lab.labs.history import answers_unlocked

    answers = exercise.answers_text()
    if answers is None:
        raise InputError(f"{exercise.id} has no written answers")
    locked = answers_unlocked(exercise.id, args.runs_dir)
    if locked is not None:
        raise InputError(f"{locked}; {PROG} run {exercise.id}")
    sys.stdout.write(_fitted(answers))
    return 0


def _fitted(markdown: str) -> str:
    """A walkthrough refilled to the terminal at words (its lines are about 100 characters: 80 columns
    broke them mid-word); piped, as written."""
    width = terminal_columns()
    return markdown if width is None else reflow_markdown(markdown, width)


def _print_catalog(labs: list[dict], width: int | None) -> None:
    """One exercise a line; on a terminal the titles wrap at words under their column (80 columns broke
    them mid-word), the id column as wide as the longest id."""
    if width is None:
        for lab in labs:
            print(f"{lab['id']:<32} {'*' * lab['difficulty']:<6} {lab['title']}")
        return
    import textwrap

    id_width = max(len(lab["id"]) for lab in labs)
    indent = " " * (id_width + 8)
    for lab in labs:
        lead = f"{lab['id']:<{id_width}} {'*' * lab['difficulty']:<6} "
        print("\n".join(textwrap.wrap(lab["title"], max(20, width - 1), initial_indent=lead, subsequent_indent=indent,
                                     break_long_words=False, break_on_hyphens=False)))


def _history(args) -> int:
    from aiperf_lab.inputs import printable
    from aiperf_lab.labs.history import compare_runs, list_runs, load_run
    from aiperf_lab.metrics.render import render_terminal
    from aiperf_lab.metrics.tables import to_csv

    if args.command == "history":
        runs = list_runs(args.runs_dir)
        if not runs:
            print(f"no runs under {args.runs_dir}", file=sys.stderr)
        for run in runs:
            grade = run.grade
            print(printable(f"{grade.word:<10}  {run.label}  {run.folder}  ({grade.reason})"))
        return 0
    tables = compare_runs(load_run(args.before), load_run(args.after))
    if args.format == "csv":
        for table in tables:
            sys.stdout.write(to_csv(table))
    else:
        render_terminal(tables)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_cli(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())
