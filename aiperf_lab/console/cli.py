"""aiperf-console: the lab console.

    aiperf-console                live NVML telemetry, the labs, runs in ./runs
    aiperf-console --demo         a real DEMO_GPU recording
                                  replayed, with real H200 runs bundled
    aiperf-console --replay FILE  play a telemetry recording (aiperf CSV, NVML
                                  raw, nvidia-smi CSV)
    aiperf-console --list-labs    the lab catalog as JSON, and exit

Without an NVIDIA driver it still starts: it says why in one line, shows CPU
telemetry and the labs, and points to --demo. `--list-labs` imports no Textual,
so scripts can ask for the catalog cheaply. A profile you have (.nsys-rep,
.sqlite, ncu, PyTorch trace): Results (4), o, its path. Keys: ? in the app."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from aiperf_lab.cli_support import OneLineParser, file_option, folder_option, run_cli, short_path
from aiperf_lab.errors import InputError

# The H200 demo recording's columns carry no device name or power limit; it was taken on an NVIDIA H200
# whose `nvidia-smi -q` reported a 700 W power limit, which is what the cards show against. (The GPM
# recording names its GPU and limit in its header line.)
DEMO_DEVICE = {"name": "NVIDIA H200 (recorded)", "power_limit_w": 700.0}


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"sampling rate must be 1 to 100 Hz, not {text!r}")
    return value


def _file_path(text: str) -> Path:
    """--replay's value: cli_support's checks of every path option (empty, blanks, `-`)."""
    return Path(file_option(text))


def _folder_path(text: str) -> Path:
    """--runs-dir's value: the same checks, for a folder."""
    return Path(folder_option(text))


def build_parser() -> argparse.ArgumentParser:
    from aiperf_lab.metrics.telemetry.recording import demo_gpu_name

    demo_gpu = demo_gpu_name()      # from the recording's own header: the help names what --demo plays
    parser = OneLineParser(prog="aiperf-console", description=__doc__.replace("DEMO_GPU", demo_gpu),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list-labs", action="store_true",
                        help='print the lab catalog as JSON: [{"module","id","title","difficulty","topic"}]')
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--demo", action="store_true", help=f"replay a real {demo_gpu} recording and show bundled H200 runs")
    source.add_argument("--replay", type=_file_path, metavar="FILE", help="play a telemetry recording instead of NVML")
    parser.add_argument("--runs-dir", type=_folder_path, default=Path("runs"),
                        help="where runs are written (default ./runs)")
    parser.add_argument("--rate", type=_rate, default=10.0, metavar="HZ", help="NVML sampling rate (default 10)")
    parser.add_argument("--ascii", action="store_true", help="charts in plain ASCII characters")
    return parser


def make_context(args: argparse.Namespace):
    """The feed and the paths for the mode asked for. Raises InputError for a bad recording."""
    from aiperf_lab.console.context import DEMO_RUNS, ConsoleContext

    ascii_only = args.ascii or bool(os.environ.get("NO_COLOR"))
    if args.demo or args.replay:
        from aiperf_lab.metrics.telemetry.recording import demo_recording, read_recording
        from aiperf_lab.metrics.telemetry.replay import ReplayFeed

        path = demo_recording() if args.demo else args.replay
        if not path.is_file():
            raise InputError(f"{path}: no such recording")
        checked = getattr(args, "checked_recording", None)  # read once: run() checked it before the screens
        feed = ReplayFeed(checked if checked is not None else _checked_recording(path, read_recording), loop=True)
        if args.demo:
            from dataclasses import replace
            feed.devices = [replace(d, name=d.name or DEMO_DEVICE["name"],
                                    power_limit_w=d.power_limit_w or DEMO_DEVICE["power_limit_w"]) for d in feed.devices]
        feed.start()
        named = feed.devices[0].name if feed.devices and feed.devices[0].name else None
        gpu = (f"an {named}" if named and not named.endswith("(recorded)") else "an NVIDIA H200") if args.demo \
            else (named or "a GPU")
        what = "matmuls, copies, small kernels and idle" if feed.devices and not feed.devices[0].gpm_reason \
            else "matmuls and copies"
        notice = (f"DEMO: telemetry is a looped recording of {gpu} running {what}; History holds real H200 "
                  f"runs. Runs you start are real, on this machine."
                  if args.demo else f"REPLAY of {path.name} (looped), not live telemetry")
        model = gpu.removeprefix("an ").removeprefix("a ").removeprefix("NVIDIA ").split()[0]   # "H100"
        short = (f"DEMO: looped {model} recording; History: real H200 runs; runs you start are real"
                 if args.demo else None)
        history = [args.runs_dir, DEMO_RUNS] if args.demo else [args.runs_dir]
        from aiperf_lab.labs.runner import cannot_start_here, visible_gpu_count

        ctx = ConsoleContext(feed, runs_dir=args.runs_dir, history_dirs=history, notice=notice, notice_short=short,
                             notice_name=None if args.demo else path.name, replay_path=path.absolute(), demo=args.demo,
                             ascii_only=ascii_only, gpu_here=visible_gpu_count() > 0, cannot_start=cannot_start_here)
        if args.demo:
            newest = sorted(DEMO_RUNS.glob("*/run.json"))
            if newest:
                ctx.results_pending = ("run", newest[-1].parent)
        return ctx
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    feed = Sampler(args.rate, window_s=900).start()
    notice = short = None
    if not feed.devices:
        from aiperf_lab.metrics.telemetry.recording import demo_gpu_name
        notice = (f"No NVIDIA GPU telemetry: {feed.status}. Showing CPU telemetry and the labs; "
                  f"aiperf-console --demo replays a real {demo_gpu_name()} recording.")
        short = f"No GPU telemetry: {feed.status}; try --demo"
    from aiperf_lab.labs.runner import cannot_start_here

    return ConsoleContext(feed, runs_dir=args.runs_dir, notice=notice, notice_short=short, ascii_only=ascii_only,
                          gpu_here=bool(feed.devices), cannot_start=cannot_start_here)


PROFILE_READ_ELSEWHERE = "aiperf-stats reads it"   # how the telemetry package ends a profile's refusal


def _checked_recording(path: Path, read_recording):
    """A recording fit to replay, or one line saying why not, before the screens start (the reasons are the
    telemetry package's: replay.why_not_replayable)."""
    from aiperf_lab.metrics.telemetry.replay import why_not_replayable

    try:
        recording = read_recording(path)
    except InputError:
        raise
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, UnicodeDecodeError, RecursionError) as exc:
        # the error's type, not its words: they can quote the file (a cell, a line), which is not shown
        raise InputError(f"{short_path(path)}: not a telemetry recording this console can replay (reading it "
                         f"raised {type(exc).__name__})") from None
    reason = why_not_replayable(recording)
    if reason is not None:
        raise InputError(f"{short_path(path)}: {reason}")
    return recording


def _kind_of(mode: int) -> str:
    import stat

    return ("a folder" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode) else "a FIFO"
            if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode) else "a block device"
            if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")


def _path_mode(option: str, path: Path) -> int | None:
    """What a path option names (its st_mode, links followed), None where nothing is there yet; the same
    checks for every path option: a link that loops or points nowhere, a name too long, no permission, a
    file on the way are one line each."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        try:
            target = os.readlink(path)
        except OSError:   # not a link (or gone since): nothing is there yet
            return None
        raise InputError(f"{option} {short_path(path)}: a link to nothing ({short_path(target)} is not there)") from None
    except OSError as exc:  # a looping link, a 5,000-character name, no permission, a file on the way
        raise InputError(f"{option} {short_path(path)}: cannot use this path ({exc.strerror or exc})") from None


def _check_recording_path(path: Path) -> None:
    """--replay names a regular file, or one line saying what it names instead."""
    import stat

    mode = _path_mode("--replay", path)
    if mode is None:
        raise InputError(f"{short_path(path)}: no such recording")
    if stat.S_ISDIR(mode):
        raise InputError(f"--replay {short_path(path)}: is a folder, not a recording")
    if not stat.S_ISREG(mode):
        raise InputError(f"--replay {short_path(path)}: {_kind_of(mode)}, not a regular file (a recording is read "
                         f"from a file)")


def _check_runs_dir(path: Path) -> None:
    """--runs-dir names a folder, or nothing yet (it is made when a run starts)."""
    import stat

    mode = _path_mode("--runs-dir", path)
    if mode is not None and not stat.S_ISDIR(mode):
        what = "a file" if stat.S_ISREG(mode) else _kind_of(mode)
        raise InputError(f"--runs-dir {short_path(path)}: is {what}, not a folder")


def _unreadable_replay(path: Path, exc: OSError) -> InputError:
    return InputError(f"--replay {short_path(path)}: cannot read it ({exc.strerror or exc})")


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.list_labs and (args.replay is not None or args.demo):
        # --list-labs prints the catalog for a script and exits; a replay needs the screens, which a script's
        # pipe has not: one or the other, said, rather than the replay dropped without a word
        raise InputError(f"aiperf-console: --list-labs prints the lab catalog and exits, it plays no recording: "
                         f"give --list-labs or {'--demo' if args.demo else '--replay'}, not both")
    _check_runs_dir(args.runs_dir)
    if args.replay is not None:
        _check_recording_path(args.replay)
    if args.list_labs:
        from aiperf_lab.labs.catalog import list_labs

        print(json.dumps(list_labs(), indent=2))
        return 0
    if args.replay is not None:  # a bad recording is one line here, not a traceback over the screens
        from aiperf_lab.metrics.telemetry.recording import read_recording
        try:
            args.checked_recording = _checked_recording(args.replay, read_recording)
        except OSError as exc:
            raise _unreadable_replay(args.replay, exc) from None
        except InputError as exc:
            if str(exc).endswith(PROFILE_READ_ELSEWHERE):   # a profile: this console shows its tables too
                raise InputError(f"{exc}, and so does this console: Results (4), o, its path") from None
            raise
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise InputError("needs a terminal (stdin and stdout); for scripts use --list-labs, "
                         "python -m aiperf_lab.labs, aiperf-stats or aiperf-triage")
    ctx = make_context(args)
    from aiperf_lab.console.app import LabConsole

    app = LabConsole(ctx, watch_tty=True)
    try:
        app.run()
    finally:
        ctx.stop_work()       # no workload or triage child outlives the console, on any exit path
        ctx.feed.close()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    return run_cli("aiperf-console", run, argv)


if __name__ == "__main__":
    sys.exit(main())
