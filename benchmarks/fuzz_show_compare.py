"""The long fuzz run for `aiperf-triage show` and `compare`: thousands of hostile archives made from
the real H200 bundle (tests/triage_fuzz.py), each shown and compared in process. Prints the counts by
kind of mutation and outcome, the slowest case, and every failure (a crash or a control character
that reached the output).

    python benchmarks/fuzz_show_compare.py --cases 5000 --seed 1      # the figures in docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from triage_fuzz import FIXTURE, _pack, check, fixture_members, mutate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    members = fixture_members()
    packed = _pack([(m, d) for m, d in members if m.isfile()])
    compressed = FIXTURE.read_bytes()
    rng = random.Random(args.seed)
    outcomes: Counter[tuple[str, str]] = Counter()
    failures: list[str] = []
    slowest = (0.0, "")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.tar.gz"
        for case in range(args.cases):
            what, data = mutate(rng, members, packed, compressed)
            kind = what.split(" = ")[-1] if " = " in what else what.split(" '")[0].split(" (")[0]
            path.write_bytes(data)
            try:
                outcome, seconds = check(path)
            except AssertionError as exc:
                failures.append(f"case {case} ({what}): {exc}")
                outcomes[(kind, "FAILED")] += 1
                continue
            outcomes[(kind, outcome)] += 1
            if seconds > slowest[0]:
                slowest = (seconds, what)
    total = time.perf_counter() - started
    print(f"{args.cases} cases, seed {args.seed}, {total:.1f} s ({total / args.cases * 1000:.1f} ms a case), "
          f"slowest {slowest[0] * 1000:.0f} ms ({slowest[1]})")
    print("| mutation | shown | refused (exit 2) | failed |\n|---|---|---|---|")
    for kind in sorted({k for k, _ in outcomes}):
        print(f"| {kind} | {outcomes[(kind, 'ok')]} | {outcomes[(kind, 'refused')]} | {outcomes[(kind, 'FAILED')]} |")
    for failure in failures[:20]:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
