"""aiperf-triage's console entry point: SIGINT, SIGTERM and SIGHUP are owned before anything else.

Python's defaults would end a triage signalled in its first instant with exit -15 (SIGTERM), a
KeyboardInterrupt traceback (SIGINT) or -1 (SIGHUP). This module is the first of ours that the
console script imports: it imports nothing but what the interpreter has already loaded (os, and
_signal, the C module under `signal`), and its main() installs a handler that exits 130 with one
line before it imports the command itself (cli.main replaces the handler with its own once it runs).
Imported as a library it installs nothing; imported by the console script (argv[0] is aiperf-triage)
it installs the handler at once, since the script still runs code of its own before main().

What comes before this module cannot be covered by any Python code: the interpreter's own start-up
and `site` (the .pth files of the environment; an editable install's import finder among them).
benchmarks/triage_signal_window.py measures that window; docs/benchmarks.md has the figures.
"""

import os
import sys as _sys   # loaded by the interpreter at start-up

try:
    import _signal as _signals   # loaded by the interpreter at start-up: importing it costs nothing
except ImportError:              # another Python implementation
    import signal as _signals    # type: ignore[no-redef]

STOP_SIGNAL_NUMBERS = (_signals.SIGINT, _signals.SIGTERM, _signals.SIGHUP)


def exit_130_before_anything_is_written(_signum, _frame) -> None:
    try:
        os.write(2, b"aiperf-triage: interrupted before it started; nothing written\n")
    except OSError:   # SIGHUP: the terminal is gone
        pass
    os._exit(130)


def install_early_handlers() -> None:
    for number in STOP_SIGNAL_NUMBERS:
        _signals.signal(number, exit_130_before_anything_is_written)


# Imported by the console script (its argv[0] is the script: .../bin/aiperf-triage), the handlers go in
# now: the script runs `re.sub` over argv[0] between this import and main(), and a signal there gave a
# KeyboardInterrupt traceback or exit -15 (h22r). Imported as a library (tests, another program),
# nothing is installed at import.
if os.path.basename(_sys.argv[0] if getattr(_sys, "argv", None) else "") == "aiperf-triage":
    install_early_handlers()


def main() -> int:
    install_early_handlers()   # the console script calls this right after importing this module
    from aiperf_lab.triage.cli import main as run_command

    return run_command()


if __name__ == "__main__":
    raise SystemExit(main())
