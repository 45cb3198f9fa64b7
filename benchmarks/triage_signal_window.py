"""How soon after it starts does `aiperf-triage` own SIGTERM and SIGINT? A signal that comes while
Python itself is starting (before any line of ours runs) gets Python's default: SIGTERM kills the
process (exit -15, nothing written), SIGINT raises KeyboardInterrupt in Python's start-up. This sends
one signal at each delay, many times, and counts what came back:

    python benchmarks/triage_signal_window.py --delays-ms 0,2,4,6,8,10,15,20,30,50,100,300 --repeat 10

Outcomes: "130 nothing written" (our start-up handler: one line, exit 130), "130 archive" (the run's
handler: the archive is written, marked interrupted), "default" (Python's own handling: -15, or -2 /
a KeyboardInterrupt traceback), anything else is listed as it is. Also the start-up time itself:
`--probe` runs `python -X importtime` on the entry point and prints what is imported before the
handler is installed. Each run writes into its own temporary folder, removed after.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
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
        if proc.returncode in (-signal.SIGTERM, -signal.SIGINT) or "KeyboardInterrupt" in err:
            return "default"
        return f"exit {proc.returncode}: {err.strip().splitlines()[-1:] or ''}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delays-ms", default="0,2,4,6,8,10,15,20,30,50,100,300")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--signals", default="TERM,INT")
    args = parser.parse_args()
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
