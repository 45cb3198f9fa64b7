"""aiperf-stats on a long nvidia-smi query log (issue 11 item 16): CPU time and peak RSS, this code and another.

The log is the real `tests/data/h200/nvidia-smi-query-gpu-lms100.csv` (`nvidia-smi --query-gpu=timestamp,...
--format=csv -lms 100`, 100 rows) grown to --rows rows: its rows repeated, each repeat's timestamps moved on by
the log's span, so the times keep increasing at 100 ms (400,000 rows: 11 hours, 23 MB). With --gpus G the
log has an index column and G rows per time (a multi-GPU query).

Each command (`FILE --list-reports`, `FILE --report telemetry_summary --format csv`, and the overview `FILE
--format csv`) runs as its own whole process, --repeat times, this code and --before's alternating in each
round; the table gives the median CPU time (user + system, from wait4) and the median peak RSS (the child's
own VmHWM), and says whether the two codes printed the same bytes.

    python benchmarks/smi_scale.py --workdir DIR [--rows 400000] [--gpus 0] [--repeat 3] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from process_measure import run_measured, stats_child  # noqa: E402
from smi_logs import grow  # noqa: E402  (the grown log, shared with tests/test_telemetry_smi_scale.py)

REPO = Path(__file__).resolve().parent.parent
COMMANDS = {"--list-reports": ["--list-reports"], "telemetry_summary": ["--report", "telemetry_summary", "--format",
                                                                       "csv"], "overview": ["--format", "csv"]}


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return stats_child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--gpus", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout to run the same commands on")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    log = grow(args.workdir / f"smi_{args.rows}_{args.gpus}.csv", args.rows, args.gpus)
    codes = [("this code", REPO)] + ([("before", args.before.resolve())] if args.before else [])
    cpu: dict[tuple[str, str], list[float]] = {}
    rss: dict[tuple[str, str], list[float]] = {}
    outputs: dict[tuple[str, str], set[str]] = {}
    for _round in range(args.repeat):
        for name, extra in COMMANDS.items():
            for code_name, code in codes:
                env = dict(os.environ, PYTHONPATH=str(code), COLUMNS="200")
                argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(log), *extra]
                measured = run_measured(argv, env)
                if measured.exit_code != 0:
                    print(f"{code_name} {name}: exit {measured.exit_code}: {measured.last_stderr_line}", file=sys.stderr)
                cpu.setdefault((name, code_name), []).append(measured.cpu_s)
                rss.setdefault((name, code_name), []).append(measured.peak_rss_mb)
                if _round == 0:
                    printed = subprocess.run(argv, env=env, capture_output=True).stdout
                    outputs.setdefault((name, code_name), set()).add(hashlib.sha256(printed).hexdigest())
    print(f"{args.rows:,} rows ({args.gpus or 1} GPU{'s' if args.gpus > 1 else ''}, {log.stat().st_size / 1e6:.1f} MB), "
          f"medians of {args.repeat} runs, load average {os.getloadavg()[0]:.1f} at the end\n")
    print("| command | code | CPU s | peak RSS MB | output |")
    print("|---|---|---|---|---|")
    for name in COMMANDS:
        for code_name, _code in codes:
            same = ""
            if len(codes) > 1 and code_name != "before":
                same = "same bytes as before" if outputs[(name, code_name)] == outputs[(name, "before")] else "DIFFERS"
            print(f"| `{name}` | {code_name} | {median(cpu[(name, code_name)]):.2f} | "
                  f"{median(rss[(name, code_name)]):.0f} | {same} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
