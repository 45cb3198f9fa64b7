"""aiperf-triage: one shareable archive of what the machine is and how it behaved.

    aiperf-triage --duration 120 [--output DIR] [--tag T] [--no-nsys] [--interval-ms 100] [--bench]
                  [--redact-hosts] [--progress] [-- CMD ...]
    aiperf-triage show ARCHIVE
    aiperf-triage compare A B [C ...]

This module parses arguments and maps outcomes to exit codes; the run itself is pipeline.Triage.
The archive's path is the last line on stdout. Exit codes: 0 done, 2 bad input or environment
(one line on stderr), 130 interrupted (the archive is still written, marked interrupted), 1 a bug.
"""

from __future__ import annotations

import os
import signal
import sys


# SIGHUP is what an SSH session that drops sends: handled as SIGTERM is (the archive is still written).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


# Run as a program, a stop signal from the first instant is exit 130 (the default would be 143, or a
# KeyboardInterrupt traceback): the console script starts in entry.py, which installs the handler
# before it imports this module; `python -m aiperf_lab.triage.cli` (and a console script made by an
# older version, which imports this module first) installs it here, before any heavier import.
# Imported as a library (tests calling main()), nothing is installed at import.
if __name__ == "__main__" or os.path.basename(sys.argv[0] if sys.argv else "") == "aiperf-triage":
    from aiperf_lab.triage.entry import install_early_handlers  # noqa: E402
    install_early_handlers()

import argparse  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

from aiperf_lab.cli_support import OneLineParser, folder_option, run_cli, short_path  # noqa: E402
from aiperf_lab.errors import InputError  # noqa: E402

MIN_INTERVAL_MS, MAX_INTERVAL_MS = 10, 10_000

EPILOG = """\
examples:
  aiperf-triage --duration 60          # telemetry and machine facts only
  aiperf-triage --duration 120 --bench -- python train.py --steps 200
  aiperf-triage show aiperf-triage-node7-20261122T101500Z.tar.gz
  # one bundle per node, then find the odd one:
  srun --ntasks-per-node=1 aiperf-triage --duration 60 --output /shared/triage
  aiperf-triage compare /shared/triage/*.tar.gz
"""


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most a week, got {text}")
    return value


def _interval(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {text!r}") from None
    if not MIN_INTERVAL_MS <= value <= MAX_INTERVAL_MS:
        raise argparse.ArgumentTypeError(f"must be {MIN_INTERVAL_MS} to {MAX_INTERVAL_MS} ms, got {value}")
    return value


def _tag(text: str) -> str:
    # (first and last a letter or digit: `..` or `-` would name the archive `...tar.gz` or `--.tar.gz`)
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?", text):
        raise argparse.ArgumentTypeError("use 1 to 64 letters, digits, '.', '_' or '-', starting and ending with a "
                                         "letter or digit")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="aiperf-triage", description="A shareable bundle of what this GPU machine is and how it "
                           "behaved,\nbounded in time and free of secrets.", epilog=EPILOG,
                           usage="aiperf-triage [--duration S] [--output DIR] [options] [-- CMD ...]\n"
                                 "       aiperf-triage show ARCHIVE\n"
                                 "       aiperf-triage compare A B [C ...]",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=_positive_seconds, default=120.0,
                        help="seconds of telemetry, and the longest the workload may run (default 120)")
    parser.add_argument("--output", type=folder_option, default=".", help="folder for the archive (default: here)")
    parser.add_argument("--tag", type=_tag, help="added to the archive name")
    parser.add_argument("--no-nsys", action="store_true", help="run the workload plainly, not under Nsight Systems")
    parser.add_argument("--interval-ms", type=_interval, default=100, help="telemetry period (default 100 ms)")
    parser.add_argument("--bench", action="store_true",
                        help="after the duration: copy and bf16/fp32 matmul on every GPU at once, host and "
                        "GPU-to-GPU link bandwidth, an NCCL all-reduce/all-gather sweep (needs PyTorch; each part "
                        "time-limited, 165 s at most)")
    parser.add_argument("--redact-hosts", action="store_true",
                        help="replace host names, IP and MAC addresses, GPU UUIDs and user names by placeholders (a "
                        "dotted quad the text marks as a version, as in 'cudnn version 9.1.0.70', stays)")
    parser.add_argument("--progress", action="store_true",
                        help="progress lines ('aiperf-triage: collector hardware ok 0.4 s') on stderr even when it "
                             "is not a terminal (the console reads them)")
    return parser


def grace_policy():
    """Grace periods of the capture's stop: AIPERF_TRIAGE_GRACE='app=10,term=5,settle=5,stop=10,write=180'."""
    from aiperf_lab.triage.capture import StopPolicy

    try:
        return StopPolicy.parse(os.environ.get("AIPERF_TRIAGE_GRACE"))
    except ValueError as exc:
        raise InputError(f"aiperf-triage: AIPERF_TRIAGE_GRACE: {exc}") from None


def run_triage(args: argparse.Namespace, command: list[str], original_argv: list[str]) -> int:
    # The arguments are good: from here a stop signal gets the archive (marked interrupted, the workload not
    # started). Importing the pipeline takes 0.6 s CPU (2 s and more at a load of 10), most of it redaction's
    # patterns; a signal meanwhile is kept and handed to the run as its first signal (it ended triage with
    # "interrupted", nothing written).
    pending: list[int] = []

    def keep(signum, _frame) -> None:
        pending.append(signum)
    try:
        for sig in STOP_SIGNALS:
            signal.signal(sig, keep)
    except ValueError:   # not the main thread (tests calling main from a thread): the run's own handler only
        pass
    from aiperf_lab.triage.pipeline import Triage, TriageOptions
    from aiperf_lab.triage.progress import Emitter

    options = TriageOptions(duration_s=args.duration, output=Path(args.output), tag=args.tag,
                            use_nsys=not args.no_nsys, interval_ms=args.interval_ms, bench=args.bench,
                            redact_hosts=args.redact_hosts,
                            command=command, arguments=original_argv, policy=grace_policy())
    return Triage(options, Emitter(enabled=args.progress or sys.stderr.isatty())).run(pending)


SHOW_HELP = """usage: aiperf-triage show ARCHIVE

Print a bundle's summary, findings and hardware without extracting it (members are checked; nothing
from the bundle reaches the terminal unescaped). ARCHIVE may also be the folder `tar xf` unpacked it
into, read by the same rules (files and folders only: a link or device inside is refused)."""
COMPARE_HELP = """usage: aiperf-triage compare A B [C ...]

Bundles (archives, or folders unpacked from them) side by side, one column each (e.g. one per node): the workload (command, how it ended,
seconds, output kept, nsys trace), the GPUs, topology, bench, telemetry means and findings; a field
that differs from the others is marked *. A per-GPU field shows one value when every GPU has it;
"-" is a value that bundle lacks, and what no bundle holds is one line under the table. The table
fits the terminal (or COLUMNS); a value cut to fit ends with "…"."""


def _show(argv: list[str]) -> int:
    from aiperf_lab.triage.archive import show

    if argv[:1] in (["-h"], ["--help"]):
        print(SHOW_HELP)
        return 0
    if len(argv) != 1:
        raise InputError("aiperf-triage: show takes one archive")
    from aiperf_lab.triage.fit import fit_markdown

    notes: list[str] = []
    sys.stdout.write(fit_markdown(show(Path(argv[0]), warn=notes.append), _output_columns()))
    return _said_after_output(notes)


def _compare(argv: list[str]) -> int:
    from aiperf_lab.triage.archive import compare

    if argv[:1] in (["-h"], ["--help"]):
        print(COMPARE_HELP)
        return 0
    notes: list[str] = []
    absent: list[str] = []
    labels, rows, odd = compare([Path(a) for a in argv], warn=notes.append, absent=absent.append)
    sys.stdout.write(compare_table(labels, rows, odd, _output_columns(), absent))
    return _said_after_output(notes)


def _said_after_output(notes: list[str]) -> int:
    """Lines on stderr that do not stop the command (a bundle from a newer version), said once the output is
    written: a later bundle that is refused, or an output that cannot be written (a full disk), is then an exit
    2 in one line."""
    sys.stdout.flush()
    for line in notes:
        print(f"aiperf-triage: note: {line}", file=sys.stderr)
    return 0


def _output_columns() -> int | None:
    """COLUMNS when set, else the terminal's width; None (no limit) when writing to a file or a pipe."""
    import shutil

    if os.environ.get("COLUMNS", "").isdigit() or sys.stdout.isatty():
        return max(shutil.get_terminal_size().columns, 40)
    return None


def compare_table(labels: list[str], rows: list[list[str]], odd: list[set[int]], columns: int | None,
                  absent: list[str] = ()) -> str:
    """The compare table: a bundle's label on two lines (host, then start time), a value marked * where it
    differs; columns too wide for the width are cut with '…' (the * stays) and a last line says so. `absent`:
    lines saying what no bundle holds (no rows of "-"), after the table, wrapped to the width."""
    heads = [label.split(" ", 1) if " " in label else [label, ""] for label in labels]
    cells = [[value + ("*" if i in different else "") for i, value in enumerate(row[1:])]
             for row, different in zip(rows, odd)]
    first = max(len("field"), *(len(row[0]) for row in rows))
    widths = [max(len(heads[i][0]), len(heads[i][1]), *(len(r[i]) for r in cells)) for i in range(len(labels))]
    cut = False
    if columns is not None and first + sum(w + 2 for w in widths) > columns:
        widths, cut = _fair_share(widths, columns - first - 2 * len(widths)), True

    def line(name: str, values: list[str]) -> str:
        shown = [v if len(v) <= w else v[:w - 2] + "…*" if v.endswith("*") else v[:w - 1] + "…"
                 for v, w in zip(values, widths)]
        return "  ".join([name.ljust(first)] + [v.ljust(w) for v, w in zip(shown, widths)]).rstrip() + "\n"

    text = line("field", [h[0] for h in heads]) + line("", [h[1] for h in heads])
    text += "".join(line(row[0], values) for row, values in zip(rows, cells))
    if any(odd):
        text += "\n* differs from the other bundles\n"
    if cut:
        text += f"(values cut to fit {columns} columns: a wider terminal, or COLUMNS=250, shows more)\n"
    if absent:
        import textwrap

        text += "\n" + "".join((textwrap.fill(line, columns) if columns else line) + "\n" for line in absent)
    return text


def _fair_share(widths: list[int], room: int) -> list[int]:
    """Column widths that fit room: narrow columns keep their width, the rest share what is left (8 at least)."""
    capped = sorted(range(len(widths)), key=widths.__getitem__)
    result = list(widths)
    for done, i in enumerate(capped):
        share = max(room // (len(widths) - done), 8)
        result[i] = min(widths[i], share)
        room -= result[i]
    return result


def run(argv: list[str]) -> int:
    if argv[:1] == ["show"]:
        return _show(argv[1:])
    if argv[:1] == ["compare"]:
        return _compare(argv[1:])
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1:]
        if not command:
            raise InputError("aiperf-triage: nothing after '--': give the command to run, or leave out '--'")
    else:
        options, command = argv, []
    args = build_parser().parse_args(options)
    if command and not _runnable(command[0]):
        raise InputError(f"aiperf-triage: cannot run {command[0]!r}: not found on the PATH or not executable")
    return run_triage(args, command, argv)


def _runnable(program: str) -> bool:
    import shutil

    if os.sep in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def _disk_errors_are_input_errors(run_command):
    """A full disk, a read-only or too-long path, a missing permission: exit 2 with one line."""
    import errno

    def guarded(argv: list[str]) -> int:
        try:
            return run_command(argv)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG, errno.EROFS, errno.EACCES, errno.EPERM,
                             errno.EMFILE, errno.ENFILE, errno.EIO, errno.ELOOP, errno.ENOTDIR, errno.EFBIG):
                where = f" ({short_path(exc.filename)})" if exc.filename else ""
                raise InputError(f"aiperf-triage: {exc.strerror or exc}{where}") from None
            raise
    return guarded


def _early_signals() -> dict:
    """From the first instant: SIGTERM, like SIGINT, ends triage with exit 130 until the run installs
    its own handler (after which either one stops the run and still writes the archive). Returns the
    handlers it replaced."""
    def interrupt(_signum, _frame) -> None:
        raise KeyboardInterrupt
    previous = {}
    for sig in STOP_SIGNALS:
        try:
            previous[sig] = signal.signal(sig, interrupt)
        except ValueError:  # not the main thread (tests calling main from a thread)
            break
    return previous


def main(argv: list[str] | None = None) -> int:
    previous: dict = {}

    def run_with_early_signals(arguments: list[str]) -> int:
        previous.update(_early_signals())  # inside run_cli, so the KeyboardInterrupt they raise is exit 130
        return run(arguments)
    try:
        return run_cli("aiperf-triage", _disk_errors_are_input_errors(run_with_early_signals), argv)
    finally:
        # Run as the program, the work is done now (the archive written, or the one line printed): a
        # signal while Python exits is ignored, not reported as "interrupted before it started".
        early = getattr(sys.modules.get("aiperf_lab.triage.entry"), "exit_130_before_anything_is_written", None)
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if early is not None and handler is early else handler)


if __name__ == "__main__":
    sys.exit(main())
