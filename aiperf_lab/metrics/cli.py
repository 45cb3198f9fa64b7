"""aiperf-stats: profiler output as tables, headless.

    aiperf-stats FILE [FILE ...] [--report NAME ...] [--format table|csv|json] [--output DIR] [--timeunit U]
    aiperf-stats --list-reports

Exit codes: 0 done, 2 the input or the environment is wrong (one line on stderr), 1 a bug,
130 interrupted.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from itertools import chain

from aiperf_lab.cli_support import OneLineParser, folder_option, run_cli
from aiperf_lab.errors import InputError

OVERVIEW_ROW_LIMIT = 15
OVERVIEW = "overview"   # the name of what no --report gives

ENERGY_HELP = """\
FILE may also be a lab run folder or a triage bundle (folder or .tar.gz): its
profile's reports. Energy reports line the telemetry's power up with the
profile's timeline (telemetry.csv with utc_ns, found in a run folder or bundle,
beside the export, or named with --telemetry) and split the GPU's joules by NVTX
range or by kernel category, idle included; --work N --work-unit U adds joules
per unit.
"""

EXAMPLES = """\
examples:
  aiperf-stats run.sqlite
  aiperf-stats run.sqlite --report cuda_gpu_kern_sum --format csv
  aiperf-stats run.sqlite --report kernel_breakdown --nvtx forward
  aiperf-stats run.sqlite --report nvtx_gpu --cross-thread
  aiperf-stats kernels.ncu-rep --report ncu_summary --output tables/
  aiperf-stats runs/20261123T001500Z-04-ex03-where-did-the-joules-go-stall \\
      --report energy_by_range,energy_by_category
  aiperf-stats run.sqlite --telemetry telemetry.csv --report energy_by_range \\
      --work 8192 --work-unit tokens
"""


def build_parser() -> argparse.ArgumentParser:
    from aiperf_lab.metrics.registry import help_text, nvtx_reports, reports_taking

    epilog = (help_text() + "\nWith no --report: an overview (top kernels, category breakdown, NVTX ranges,\n"
              "idle time).\n"
              + ENERGY_HELP + "\n" + EXAMPLES)
    parser = OneLineParser(prog="aiperf-stats", description="Tables from nsys, ncu and PyTorch profiler output.",
                           epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", metavar="FILE", help="profile: .sqlite/.nsys-rep, ncu .csv/.ncu-rep, "
                        "PyTorch .json[.gz], telemetry .csv, or a lab run folder or triage bundle; several: one per rank (a Rank column, and the "
                        "multi-rank reports nccl_sum and rank_spread)")
    parser.add_argument("--report", "-r", action="append", default=[], metavar="NAME",
                        help="report to produce; repeat or separate with commas (default: overview)")
    parser.add_argument("--format", "-f", choices=["table", "csv", "json"], default=None,
                        help="output format (default: table; csv when writing files)")
    parser.add_argument("--output", "-o", metavar="DIR", type=folder_option, help="write one file per table into DIR")
    parser.add_argument("--nvtx", metavar="RANGE", help="scope a report to an NVTX range (name with or without "
                        "its domain, e.g. forward): kernel_breakdown to the kernels launched inside it, energy reports "
                        "to the span from its first start to its last end. Only " + ", ".join(nvtx_reports())
                        + " take it; with any other report it is refused")
    threads = ", ".join(f"{name} (with a range)" if name == "kernel_breakdown" else name
                        for name in reports_taking("takes_cross_thread"))
    energy = f"; only {', '.join(reports_taking('takes_telemetry'))} take it, with any other report it is refused"
    parser.add_argument("--cross-thread", action="store_true", help="also count kernels launched from other "
                        f"threads while the range was open. Only {threads} take it; with any other report it is refused")
    parser.add_argument("--timeunit", choices=["nsec", "usec", "msec", "sec"], help="every \"(ns)\" column in "
                        "this unit, as nsys stats --timeunit prints it (default: nsec)")
    parser.add_argument("--telemetry", metavar="FILE", help="energy reports: the telemetry recording (telemetry.csv) "
                        "taken during the profile" + energy)
    parser.add_argument("--work", type=float, metavar="N", help="energy reports: work done in the captured span "
                        "(tokens, samples, FLOP...), adds a joules-per-unit column" + energy)
    parser.add_argument("--work-unit", metavar="UNIT", default=None, help="the unit of --work (default: unit)" + energy)
    parser.add_argument("--gpu", type=int, metavar="N", help="energy reports: the telemetry's GPU to attribute "
                        "(needed when it recorded several)" + energy)
    parser.add_argument("--limit", type=int, metavar="N", help="show at most N rows per table (table format)")
    parser.add_argument("--list-reports", action="store_true", help="list every report (with FILE: those this file supports)")
    return parser


def run(argv: list[str]) -> int:
    import gc

    # The reports hold hundreds of thousands of tuples and ints, none in a cycle: the cycle collector
    # would walk them over and over (5-7% of nvtx_kern_sum on 150,000 kernels) and free nothing.
    # Reference counting still frees everything, so streamed traces keep their bounded memory.
    # Switched back on afterwards for a caller in the same process (the tests).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(argv)
    finally:
        if was_enabled:
            gc.enable()


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.limit is not None and args.limit < 1:
        raise InputError("aiperf-stats: --limit must be at least 1")
    from aiperf_lab.metrics.sources import ReportOptions, open_profiles, report_tables
    from aiperf_lab.inputs import printable
    from aiperf_lab.metrics.tables import write_csv, write_json

    if not args.files:
        if args.list_reports:
            import shutil

            from aiperf_lab.metrics.registry import listing
            # on a terminal, wrapped to it (80 columns made 39 lines of one over its width); piped, a line each
            print(listing(width=shutil.get_terminal_size().columns if sys.stdout.isatty() else None))
            return 0
        raise InputError("aiperf-stats: name a profile file (or use --list-reports; see aiperf-stats --help)")
    profile = open_profiles(args.files)
    # What opening the files noted is said once the reports are made: an exit 2 on the way (a report that
    # does not apply, a bad option) is then one line, the refusal with the notes after it.
    said = len(profile.notices)
    if args.list_reports:
        print("\n".join(profile.reports))
        sys.stdout.flush()   # (the notes after it: stdout on a full disk is an exit 2 in one line)
        _say(profile.notices)
        return 0
    try:
        specs = [s.strip() for chunk in args.report for s in chunk.split(",") if s.strip()]
        # `--report overview` names what no --report gives (the help says "default: overview"); with other
        # reports, it stands for the overview's reports among them
        overview = not specs or set(specs) == {OVERVIEW}
        if OVERVIEW in specs and not overview:
            specs = list(dict.fromkeys(chain.from_iterable(profile.overview_reports if s == OVERVIEW else [s]
                                                           for s in specs)))
        specs = profile.overview_reports if overview else specs
        if args.nvtx is not None:
            _check_nvtx(args.nvtx, specs, profile.kind, overview)
        _check_options(args, specs, profile.kind, overview)
        if args.work is not None and not args.work > 0:
            raise InputError("aiperf-stats: --work must be a positive number")
        telemetry = Path(args.telemetry) if args.telemetry else None
        if telemetry is not None:
            _check_telemetry_path(telemetry)
        options = ReportOptions(nvtx_range=args.nvtx, cross_thread=args.cross_thread, timeunit=args.timeunit,
                                telemetry=telemetry,
                                work=args.work, work_unit=args.work_unit, gpu=args.gpu)
        tables, skipped = report_tables(profile, specs, options)   # everything asked for missing: one line, exit 2
    except InputError as exc:
        if not said:
            raise
        # one line: the refusal, then what opening the files noted (why a bundle has only telemetry reports)
        raise type(exc)(f"{exc} ({'; '.join(profile.notices[:said])})") from None
    # What opening the files noted, the reports with no data (SKIPPED, as nsys says it) and the notes the reports
    # made (a rank without the data a report needs) are said once the output is written: an output that cannot be
    # written (a full disk, an --output folder taken by a file) is then an exit 2 in one line.
    notes = [printable(f"aiperf-stats: {notice}") for notice in profile.notices[:said]]
    notes += [printable(f"SKIPPED: {reason}") for reason in skipped]
    fmt = args.format or ("csv" if args.output else "table")
    if fmt == "table":  # the trace reports stream their rows to CSV and JSON; a table sizes its columns from all
        for table in tables:
            table.rows = list(table.rows)
    if args.output:
        from aiperf_lab.metrics.render import write_tables
        stem = Path(args.files[0]).name.split(".")[0] if len(args.files) == 1 else "ranks"
        try:
            paths = write_tables(tables, Path(args.output), stem, fmt)
        except OSError as exc:
            # the table's own name when renaming onto it failed (a folder already has that name), not the folder;
            # mkdir says "File exists" of a file, a link to one, a dangling or looping link at the folder's name
            why = exc.strerror or exc
            if isinstance(exc, FileExistsError) and not exc.filename2 and not Path(args.output).is_dir():
                why = "not a folder"
            raise InputError(f"cannot write to {exc.filename2 or args.output}: {why}") from None
        print("\n".join(printable(str(p)) for p in paths))
    elif fmt == "csv":
        for i, table in enumerate(tables):
            if len(tables) > 1:
                sys.stdout.write(("\n" if i else "") + printable(f"# {table.name}: {table.title}") + "\n")
            write_csv(table, sys.stdout)
    elif fmt == "json":
        write_json(tables, sys.stdout)
        sys.stdout.write("\n")
    else:
        from aiperf_lab.metrics.render import render_terminal
        limit = args.limit if args.limit is not None else (OVERVIEW_ROW_LIMIT if overview else None)
        render_terminal(tables, sys.stdout, limit)
    sys.stdout.flush()
    notes += [printable(f"aiperf-stats: {notice}") for notice in profile.notices[said:]]
    if notes:
        print("\n".join(notes), file=sys.stderr)
    return 0


def _say(notices: list[str]) -> None:
    from aiperf_lab.inputs import printable

    for notice in notices:
        print(printable(f"aiperf-stats: {notice}"), file=sys.stderr)


def _check_nvtx(range_name: str, specs: list[str], kind: str, overview: bool) -> None:
    """--nvtx is a range name, and every report asked for is one it scopes: a report that would ignore it
    would print whole-run numbers under a scoped command line."""
    from aiperf_lab.metrics import registry

    if not range_name.strip():
        raise InputError("aiperf-stats: --nvtx needs a range name (e.g. --nvtx forward)")
    ignoring = []
    for spec in specs:
        entry = registry.find(kind, spec.partition(":")[0])
        if entry is not None and not entry.takes_nvtx:  # (an unknown name is refused by the report itself)
            ignoring.append(entry.name)
    if ignoring:
        takers = registry.nvtx_reports(kind)
        scoped = f"only {', '.join(takers)} take it for {registry.KINDS[kind].split(' (')[0]} input" if takers else \
            f"no report of {registry.KINDS[kind].split(' (')[0]} input takes it"
        which = "the overview's " if overview else ""
        hint = ""
        if kind == "nsys":
            nvtx_named = [name for name in ignoring if name.startswith("nvtx_")]
            hint = (f"; {', '.join(dict.fromkeys(nvtx_named))} already lists every range: keep one range's rows with "
                    f"--format csv | grep ':{range_name}', or its kernels by category with "
                    f"--report kernel_breakdown --nvtx {range_name}") if nvtx_named else \
                "; kernels per NVTX range, as nsys makes them: --report nvtx_kern_sum"
        raise InputError(f"aiperf-stats: --nvtx would be ignored by {which}{', '.join(dict.fromkeys(ignoring))}: "
                         f"{scoped}{hint}")


def _entries(specs: list[str], kind: str) -> list[tuple[str, str, object]]:
    """(name, argument, registry entry) of every report asked for that the registry knows for this input."""
    from aiperf_lab.metrics import registry

    out = []
    for spec in specs:
        name, _, argument = spec.partition(":")
        entry = registry.find(kind, name)
        if entry is not None:   # (an unknown name is refused by the report itself)
            out.append((name, argument, entry))
    return out


def _check_options(args: argparse.Namespace, specs: list[str], kind: str, overview: bool) -> None:
    """--cross-thread, --telemetry, --work, --work-unit and --gpu change only the reports whose registry entry
    takes them: with any other report they would print what they print without them, so they are refused."""
    from aiperf_lab.metrics import registry

    entries = _entries(specs, kind)
    for name, argument, entry in entries:
        if args.nvtx is not None and argument and entry.takes_nvtx:
            raise InputError(f"aiperf-stats: {name}:{argument} and --nvtx {args.nvtx} name two ranges: give one "
                             f"(--report {name} --nvtx RANGE)")
    if args.work_unit is not None and args.work is None:
        raise InputError("aiperf-stats: --work-unit needs --work N (the work done, e.g. --work 8192 --work-unit tokens)")
    given = [(option, flag) for option, value, flag in (
        ("--cross-thread", args.cross_thread, "takes_cross_thread"), ("--telemetry", args.telemetry, "takes_telemetry"),
        ("--work", args.work, "takes_telemetry"), ("--work-unit", args.work_unit, "takes_telemetry"),
        ("--gpu", args.gpu, "takes_telemetry")) if value not in (None, False)]
    kind_name = registry.KINDS[kind].split(" (")[0]
    for option, flag in given:
        ignoring = [entry.name for _n, _a, entry in entries if not getattr(entry, flag)]
        if ignoring:
            takers = registry.reports_taking(flag, kind)
            scoped = f"only {', '.join(takers)} take it for {kind_name} input" if takers else \
                f"no report of {kind_name} input takes it"
            which = "the overview's " if overview else ""
            raise InputError(f"aiperf-stats: {option} would be ignored by {which}{', '.join(dict.fromkeys(ignoring))}: "
                             f"{scoped}")
    if args.cross_thread:
        for name, argument, entry in entries:
            if name == "kernel_breakdown" and not argument and args.nvtx is None:
                raise InputError("aiperf-stats: --cross-thread with kernel_breakdown needs a range (--nvtx RANGE): "
                                 "without one it counts every kernel already")


def _check_telemetry_path(path: Path) -> None:
    """--telemetry names a regular file, or one line says what it is (Path.is_file() raised OSError on a name
    too long: an internal error)."""
    from aiperf_lab.inputs import check_regular

    try:
        check_regular(path)
    except InputError as exc:
        raise InputError(f"aiperf-stats: --telemetry {exc}") from None


def main(argv: list[str] | None = None) -> int:
    previous = _end_on_sigterm_as_on_ctrl_c()
    try:
        code = run_cli("aiperf-stats", run, argv)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if argv is None:  # the command itself, not a caller in the same process
        code = _end_now(code)
    return code


def _end_now(code: int) -> int:
    """End the process at once with `code` once everything it wrote is out: Python's own finalization frees
    the report's hundreds of thousands of ints and lists one by one (6 of 510 ms of nvtx_kern_sum on 150,000
    kernels), for nothing. The atexit handlers still run (the energy reports' copies out of a bundle are
    removed). Returns (and the ordinary exit follows) where anything could be lost: output that cannot be
    flushed (said here in one line, exit 2: run_cli flushed stdout already, so only what an exit handler wrote
    can be left), a thread that is not a daemon, stdout or stderr replaced by a caller."""
    import atexit
    import os

    streams = (sys.stdout, sys.stderr)
    if None in streams or streams != (sys.__stdout__, sys.__stderr__):
        return code
    if any(not thread.daemon for thread in threading.enumerate() if thread is not threading.main_thread()):
        return code
    atexit._run_exitfuncs()  # (and forgets them: the ordinary exit below, if it comes to that, runs none twice)
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        if not isinstance(exc, BrokenPipeError):  # (a reader that went away: nothing to say)
            print(f"aiperf-stats: cannot write the output: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
            code = code or 2
        try:  # what could not be written is dropped, not tried again by the interpreter's own flush at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return code
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        return code
    os._exit(code)


def _end_on_sigterm_as_on_ctrl_c() -> dict:
    """SIGTERM and SIGHUP (a scheduler's kill, a dropped SSH session) end aiperf-stats as Ctrl-C does, through
    KeyboardInterrupt: exit 130, and what it copied out of a bundle into a temporary folder is removed on
    the way out (the default action would leave a 70 MB export in $TMPDIR). Only where nobody else
    handles them, and only from the main thread (where Python runs signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for number in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) is signal.SIG_DFL:
            previous[number] = signal.signal(number, _interrupt)
    return previous


def _interrupt(_number, _frame) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
