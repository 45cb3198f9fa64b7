"""aiperf-triage's console entry point: SIGINT, SIGTERM and SIGHUP are owned before anything else.

Python's defaults would end a triage signalled in its first instant with exit -15 (SIGTERM), a
KeyboardInterrupt traceback (SIGINT) or -1 (SIGHUP). This module is the first of ours that the
console script imports: it imports nothing but what the interpreter has already loaded (os, and
_signal, the C module under `signal`), and its main() installs a handler that exits 130 with one
line before it imports the command itself (cli.main replaces the handler with its own once it runs).
Importing it installs nothing.

What comes before this module cannot be covered by any Python code: the interpreter's own start-up
and `site` (the .pth files of the environment; an editable install's import finder among them).
benchmarks/triage_signal_window.py measures that window; docs/benchmarks.md has the figures.
"""

import os

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


def main() -> int:
    install_early_handlers()   # the console script calls this right after importing this module
    from aiperf_lab.triage.cli import main as run_command

    return run_command()


if __name__ == "__main__":
    raise SystemExit(main())
