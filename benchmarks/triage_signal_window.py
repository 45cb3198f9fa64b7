"""How soon after it starts does `aiperf-triage` own SIGTERM, SIGINT and SIGHUP? A signal that comes
while Python itself is starting (before any line of ours runs) gets Python's default: SIGTERM and
SIGHUP kill the process (exit -15, -1; nothing written), SIGINT raises KeyboardInterrupt in Python's
start-up. This sends one signal at each delay, many times, and counts what came back:

    python benchmarks/triage_signal_window.py --delays-ms 0,10,20,30,40,50,60,80,100,150,300 --repeat 10

Outcomes: "130 nothing written" (our start-up handler: one line, exit 130), "130 archive" (the run's
handler: the archive is written, marked interrupted), "default" (Python's own handling: -15, -1, or
-2 / a KeyboardInterrupt traceback), anything else is listed as it is. Each run writes into its own
temporary folder, removed after.

`--probe` measures the window itself instead (median of --repeat runs of each): a bare interpreter
(`python -S -c pass`), the interpreter with `site` (`python -c pass`: the environment's .pth files,
an editable install's import finder among them), and the interpreter up to the point where
aiperf-triage's handlers are installed (import aiperf_lab.triage.entry, install); then prints what
`site` imports (`python -X importtime`), the part no Python code of ours can run before.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def entry_point() -> list[str]:
    """The installed console script when there is one (what a user runs), else the module."""
    script = Path(sys.executable).with_name("aiperf-triage")
    return [str(script)] if script.exists() else [sys.executable, "-m", "aiperf_lab.triage.cli"]


def one(command: list[str], sig: signal.Signals, delay_s: float) -> str:
    folder = Path(tempfile.mkdtemp(prefix="aiperf-signal-"))
    try:
        proc = subprocess.Popen([*command, "--duration", "30", "--no-nsys", "--output", str(folder)], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONPATH=str(REPO)))
        time.sleep(delay_s)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
        archives = list(folder.glob("*.tar.gz"))
        others = [p.name for p in folder.iterdir() if p not in archives]
        if others:
            return f"left files {others}"
        if proc.returncode == 130 and archives:
            return "130 archive"
        if proc.returncode == 130 and err.count("\n") == 1:
            return "130 nothing written"
        if proc.returncode in (-signal.SIGTERM, -signal.SIGINT, -signal.SIGHUP) or "KeyboardInterrupt" in err:
            return "default"
        return f"exit {proc.returncode}: {err.strip().splitlines()[-1:] or ''}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _median_ms(argv: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def probe(repeat: int) -> None:
    python = sys.executable
    handlers = "from aiperf_lab.triage import entry; entry.install_early_handlers()"
    rows = [("bare interpreter: python -S -c pass", [python, "-S", "-c", "pass"]),
            ("interpreter and site: python -c pass", [python, "-c", "pass"]),
            ("up to aiperf-triage's handlers", [python, "-c", handlers])]
    print(f"median of {repeat} runs each (process start to exit)")
    print("| what | ms |")
    print("|---|---|")
    for label, argv in rows:
        print(f"| {label} | {_median_ms(argv, repeat):.1f} |", flush=True)
    trace = subprocess.run([python, "-X", "importtime", "-c", handlers], cwd=REPO, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(REPO))).stderr
    print("\nimported before the handlers (python -X importtime, top-level entries, microseconds):")
    for line in trace.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and not parts[2].startswith("  ") and parts[1].strip().isdigit():
            print(f"  {parts[2].strip():<40} {parts[1].strip():>8}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delays-ms", default="0,10,20,30,40,50,60,80,100,150,300")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--signals", default="TERM,INT,HUP")
    parser.add_argument("--probe", action="store_true", help="measure the start-up window instead of signalling")
    args = parser.parse_args()
    if args.probe:
        probe(args.repeat)
        return 0
    command = entry_point()
    delays = [float(d) for d in args.delays_ms.split(",")]
    print(f"entry point: {' '.join(Path(c).name for c in command)}; {args.repeat} runs per delay and signal")
    print("| signal | delay (ms) | outcomes |")
    print("|---|---|---|")
    for name in args.signals.split(","):
        sig = signal.Signals[f"SIG{name}"]
        for delay in delays:
            outcomes = collections.Counter(one(command, sig, delay / 1000) for _ in range(args.repeat))
            print(f"| {sig.name} | {delay:g} | {', '.join(f'{k}: {v}' for k, v in sorted(outcomes.items()))} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
