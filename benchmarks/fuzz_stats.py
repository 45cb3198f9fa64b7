"""The long fuzz run of aiperf-stats: every report, in every format, over many mutated real fixtures and
every crafted hostile file (the CI run, tests/test_input_fuzz.py, takes a small sample of the same).

Contract per case: exit 0, or exit 2 with one line on stderr; no traceback, no exit 1, under 10 s; JSON
output parses; no raw control character in any output. Prints a markdown summary; exits 1 if any case
broke the contract (each breach is listed).

    python benchmarks/fuzz_stats.py --workdir WORKDIR [--cases 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import fuzz_cases as fc  # noqa: E402

from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING  # noqa: E402

FORMATS = ("json", "csv", "table")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--cases", type=int, default=300, help="mutated files per input kind")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    counts: dict[str, list[int]] = {}  # kind -> [runs, exit 0, exit 2]
    breaches: list[str] = []
    slowest = (0.0, "")

    def check(path: Path, kind: str, formats=FORMATS, reports=None) -> None:
        nonlocal slowest
        for report in [None, *(reports if reports is not None else fc.REPORTS[kind])]:
            for fmt in formats:
                argv = [path, "--format", fmt] + (["--report", report] if report else [])
                outcome = fc.run_stats(argv)
                tally = counts.setdefault(kind, [0, 0, 0])
                tally[0] += 1
                tally[1 if outcome.code == 0 else 2] += outcome.code in (0, 2)
                if outcome.seconds > slowest[0]:
                    slowest = (outcome.seconds, f"{path.name} {report or 'overview'} {fmt}")
                problem = outcome.problem(fmt)
                if problem:
                    breaches.append(f"{kind} {path.name} {report or 'overview'} {fmt}: {problem}")

    began = time.monotonic()
    small = fc.small_export(work / "small.sqlite")
    # crafted nsys exports
    for i, (table, column) in enumerate(fc.EXPORT_CELLS):
        for j, value in enumerate(fc.HOSTILE_SQL_VALUES):
            path = fc.mutate_export(small, work / f"cell_{i}_{j}.sqlite", table, column, value, rng.randint(1, 5))
            check(path, "nsys", formats=("json",))
    check(fc.export_with_names(small, work / "names.sqlite", fc.HOSTILE_NAMES), "nsys")
    check(fc.export_with_recursive_view(small, work / "view.sqlite"), "nsys", formats=("json",))
    check(fc.export_with_osrt_injection(small, work / "inject.sqlite"), "nsys", formats=("csv",))
    check(fc.export_with_names(fc.LM, work / "lm_names.sqlite", fc.HOSTILE_NAMES), "nsys", formats=("table",))
    # page-level damage of the export
    data = small.read_bytes()
    for n in range(args.cases // 3):
        path = work / f"pages_{n}.sqlite"
        path.write_bytes(fc.mutate_bytes(data, rng, edits=rng.randint(1, 12)))
        check(path, "nsys", formats=("json",))
    # Kineto
    for name, text in fc.CRAFTED_TRACES.items():
        path = work / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        check(path, "torch")
    trace = fc.TRACE.read_bytes()
    for n in range(args.cases):
        path = work / f"trace_{n}.json"
        path.write_bytes(fc.mutate_bytes(trace, rng, edits=rng.randint(1, 8)))
        if n % 5 == 0:
            path = path.with_suffix(".json.gz")
            path.write_bytes(gzip.compress(fc.mutate_bytes(trace, rng)))
        check(path, "torch", formats=("json",))
    bomb = work / "bomb.json.gz"
    blanks = gzip.compress(b" " * (16 << 20), compresslevel=9)
    with bomb.open("wb") as handle:  # 2 GiB of blanks inside traceEvents, 2 MB on disk
        handle.write(gzip.compress(b'{"traceEvents": ['))
        for _ in range(128):
            handle.write(blanks)
    check(bomb, "torch", formats=("json",), reports=[])
    # telemetry and ncu
    for source in (DEMO_RECORDING, fc.SMI_LOG):
        for name, text in fc.telemetry_variants(source.read_text()).items():
            path = work / f"{source.stem}_{name}.csv"
            path.write_text(text)
            check(path, "telemetry")
        raw = source.read_bytes()
        for n in range(args.cases // 2):
            path = work / f"{source.stem}_{n}.csv"
            path.write_bytes(fc.mutate_bytes(raw, rng, edits=rng.randint(1, 10)))
            check(path, "telemetry", formats=("json",))
    for name, text in fc.ncu_variants().items():
        path = work / f"ncu_{name}.csv"
        path.write_text(text)
        check(path, "ncu")
    for n in range(args.cases):
        source = rng.choice(fc.NCU_FILES)
        path = work / f"ncu_{n}.csv"
        path.write_bytes(fc.mutate_bytes(source.read_bytes(), rng, edits=rng.randint(1, 10)))
        check(path, "ncu", formats=("json",))
    # a FIFO, in a child process (in this one a hang would stop the run)
    fifo = work / "pipe.sqlite"
    if not fifo.exists():
        os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(fifo)], capture_output=True,
                          text=True, timeout=30, cwd=REPO)
    counts.setdefault("fifo", [0, 0, 0])[0] += 1
    if done.returncode != 2 or done.stderr.count("\n") != 1:
        breaches.append(f"fifo: exit {done.returncode}: {done.stderr[:200]!r}")
    else:
        counts["fifo"][2] += 1
    # a regular export with a FIFO under SQLite's journal name beside it (SQLite opens it to see if it is hot)
    journaled = work / "journaled.sqlite"
    journaled.write_bytes(small.read_bytes())
    if not os.path.exists(f"{journaled}-journal"):
        os.mkfifo(f"{journaled}-journal")
    try:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(journaled)], capture_output=True,
                              text=True, timeout=30, cwd=REPO)
        code, err = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        code, err = None, "hung for 30 s\n"
    counts.setdefault("journal fifo", [0, 0, 0])[0] += 1
    if code != 2 or err.count("\n") != 1:
        breaches.append(f"journal fifo: exit {code}: {err[:200]!r}")
    else:
        counts["journal fifo"][2] += 1

    total = sum(c[0] for c in counts.values())
    print("| input kind | runs | exit 0 | exit 2 (one line) |\n|---|---|---|---|")
    for kind, (runs, ok, refused) in counts.items():
        print(f"| {kind} | {runs} | {ok} | {refused} |")
    print(f"\n{total} runs in {time.monotonic() - began:.0f} s; slowest {slowest[0]:.2f} s ({slowest[1]}); "
          f"{len(breaches)} breaches of the contract")
    for breach in breaches[:50]:
        print(f"- {breach}")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
