"""The sha256 of every nsys report of aiperf-stats on every export given, to compare two checkouts byte for byte.

    PYTHONPATH=CHECKOUT python benchmarks/report_digests.py --out DIGESTS.json EXPORT.sqlite [DIR ...]
    python benchmarks/report_digests.py --compare BEFORE.json AFTER.json

Each (export, report, format) runs `aiperf-stats EXPORT --report R --format F` in this one process (the
checkout on PYTHONPATH is the one measured) with stdout and stderr captured: the digest covers both and
the exit code (main's return value). Directories are searched for *.sqlite. --compare prints how many
are the same and every one that differs. Used for issue 17's speed work: every output must stay byte-identical.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
from pathlib import Path

FORMATS = ("csv", "json")


def _reports() -> list[str]:
    from aiperf_lab.metrics.registry import REPORTS

    return [report.name for report in REPORTS if report.kind == "nsys"]


def _run(argv: list[str]) -> str:
    from aiperf_lab.metrics import cli

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # noqa: BLE001 (a crash is a result to compare too)
            code = f"crash {type(exc).__name__}"
    return hashlib.sha256(f"{code}\n{out.getvalue()}\n--\n{err.getvalue()}".encode()).hexdigest()


def compare(before_path: str, after_path: str) -> int:
    """Print how many digests of two runs are the same and every one that differs; 1 when any does."""
    before, after = (json.loads(Path(p).read_text()) for p in (before_path, after_path))
    same = [k for k in before if after.get(k) == before[k]]
    differ = sorted(set(before) ^ set(after) | {k for k in before if k in after and after[k] != before[k]})
    print(f"{len(same)} of {len(before)} identical; {len(differ)} differ or are missing")
    for key in differ:
        print("  differs:", key)
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--out")
    parser.add_argument("--reports", help="comma-separated (default: every nsys report)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    exports = []
    for path in map(Path, args.paths):
        exports += sorted(path.rglob("*.sqlite")) if path.is_dir() else [path]
    reports = args.reports.split(",") if args.reports else _reports()
    digests = {}
    for export in exports:
        for report in reports:
            for fmt in FORMATS:
                digests[f"{export}|{report}|{fmt}"] = _run([str(export), "--report", report, "--format", fmt])
    Path(args.out).write_text(json.dumps(digests, indent=0, sort_keys=True))
    print(f"{len(digests)} digests of {len(exports)} exports x {len(reports)} reports x {len(FORMATS)} formats")
    return 0


if __name__ == "__main__":
    sys.exit(main())
