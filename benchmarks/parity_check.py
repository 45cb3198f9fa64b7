"""Compare aiperf-stats CSV with `nsys stats` CSV for every export and report given.

    python benchmarks/parity_check.py --nsys-out DIR EXPORT.sqlite [EXPORT.sqlite ...]

For each export, runs `nsys stats --report R --format csv --output DIR/<stem>` (nsys writes
DIR/<stem>_<R>.csv), then our CLI, and compares byte for byte. Prints a table and writes
parity.json with each result and the sha256 of nsys's output (the tests keep those digests).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPORTS = ["cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "nvtx_kern_sum", "cuda_gpu_mem_time_sum",
           "cuda_gpu_mem_size_sum"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nsys-out", required=True)
    parser.add_argument("exports", nargs="+")
    args = parser.parse_args()
    nsys = shutil.which("nsys")
    if not nsys:
        print("nsys is not on the PATH", file=sys.stderr)
        return 2
    out = Path(args.nsys_out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for export in map(Path, args.exports):
        stem = export.parent.name + "__" + export.stem
        argv = [nsys, "stats", "--format", "csv", "--output", str(out / stem), "--force-overwrite", "true",
                "--force-export", "false"]
        for report in REPORTS:
            argv += ["--report", report]
        done = subprocess.run(argv + [str(export)], capture_output=True, text=True)
        (out / f"{stem}.nsys.log").write_text(done.stdout + done.stderr)
        for report in REPORTS:
            theirs_path = out / f"{stem}_{report}.csv"
            ours = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(export), "--report", report,
                                   "--format", "csv"], capture_output=True, text=True)
            entry = {"export": str(export), "report": report, "ours_exit": ours.returncode}
            if theirs_path.exists():
                theirs = theirs_path.read_text()
                entry["nsys_sha256"] = hashlib.sha256(theirs.encode()).hexdigest()
                entry["identical"] = ours.stdout == theirs
                if not entry["identical"]:
                    (out / f"{stem}_{report}.ours.csv").write_text(ours.stdout)
            else:
                entry["nsys_skipped"] = True
                entry["ours_stderr"] = ours.stderr.strip()[-200:]
            results.append(entry)
    (out / "parity.json").write_text(json.dumps(results, indent=2))
    compared = [r for r in results if "identical" in r]
    same = sum(r["identical"] for r in compared)
    print("\n| export | report | result |\n|---|---|---|")
    for r in results:
        state = "identical" if r.get("identical") else ("nsys skipped" if r.get("nsys_skipped") else "DIFFERS")
        print(f"| {Path(r['export']).parent.name}/{Path(r['export']).name} | {r['report']} | {state} |")
    print(f"\nparity: {same} of {len(compared)} compared reports identical; "
          f"{len(results) - len(compared)} skipped by nsys")
    return 0


if __name__ == "__main__":
    sys.exit(main())
