"""How fast the console shows its first frame, and what its redraws cost.

    python benchmarks/console_speed.py [--seconds 20] [--runs 5] [--json OUT]

- first frame: wall time from starting a fresh interpreter to the first painted frame of the real
  CLI path (make_context + LabConsole, headless), median of --runs; the live feed there is NVML (or
  no-driver CPU telemetry on a machine without one).
- UI cost: one core's share used by the app while the Monitor screen shows 8 GPUs at 10 Hz from the
  synthetic feed, minus what the feed alone costs, at 200x60 and 80x24; and the Labs screen with the
  same feed running (nothing to redraw). Process CPU time from resource.getrusage, so it counts every
  thread. Headless: Textual composes every frame but writes it nowhere, so a real terminal adds the
  cost of writing the escape sequences.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

FIRST_FRAME = r"""
import sys, time
from aiperf_lab.console.cli import build_parser, make_context
from aiperf_lab.console.app import LabConsole
ctx = make_context(build_parser().parse_args(sys.argv[1:]))
app = LabConsole(ctx)
def painted():
    print(time.time(), flush=True)
    app.exit()
app.call_after_refresh(painted)
app.run(headless=True, size=(120, 40))
ctx.feed.close()
"""

UI_COST = r"""
import resource, sys, time
from pathlib import Path
from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed
mode, seconds, width, height = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
feed = SyntheticFeed(8, 10.0).start()
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
if mode == "feed":
    time.sleep(2); c0 = cpu(); time.sleep(seconds); print(cpu() - c0); feed.stop(); sys.exit()
from aiperf_lab.console.app import LabConsole
from aiperf_lab.console.context import ConsoleContext
app = LabConsole(ConsoleContext(feed, runs_dir=Path("/tmp/aiperf-console-bench")))
result = {}
async def pilot(p):
    if mode == "monitor":
        await p.press("2")
    await p.pause(2.0)
    c0 = cpu()
    await p.pause(seconds)
    result["cpu"] = cpu() - c0
    app.exit()
app.run(headless=True, size=(width, height), auto_pilot=pilot)
feed.stop()
print(result["cpu"])
"""


def first_frame_s(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.time()
        done = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, timeout=60)
        times.append(float(done.stdout.strip().splitlines()[-1]) - t0)
    return times


def cpu_s(mode: str, seconds: float, width: int = 200, height: int = 60) -> float:
    done = subprocess.run([sys.executable, "-c", UI_COST, mode, str(seconds), str(width), str(height)],
                          capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    frames = first_frame_s(args.runs)
    feed = cpu_s("feed", args.seconds)
    monitor = cpu_s("monitor", args.seconds)
    monitor_small = cpu_s("monitor", args.seconds, 80, 24)
    labs = cpu_s("labs", args.seconds)
    share = lambda c: round(100 * (c - feed) / args.seconds, 2)  # noqa: E731
    result = {"first_frame_s": [round(f, 3) for f in frames], "first_frame_median_s": round(statistics.median(frames), 3),
              "feed_alone_pct": round(100 * feed / args.seconds, 2), "monitor_8gpu_200x60_ui_pct": share(monitor),
              "monitor_8gpu_80x24_ui_pct": share(monitor_small), "labs_idle_ui_pct": share(labs),
              "seconds": args.seconds}
    for key, value in result.items():
        print(f"{key:>28}: {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
