"""Issue 11's hostile inputs that were slow rather than wrong, timed before and after.

Builds each input from the real fixtures in tests/data (nothing downloaded), then runs the command a
user would type, in a fresh interpreter, `--repeat` times; reports the median wall time and the median
CPU time of the child (user + system: on a shared, loaded machine the wall time is mostly waiting).

  - show of a 1 MB bundle with 100,000 empty members; aiperf-stats of the same bundle
  - compare of 5 copies of a bundle listing 60,000 GPUs
  - the aiperf-stats overview of lm_forward.sqlite with 3 kernel names of 5 MB each, and its
    cuda_gpu_trace at COLUMNS=120 (one block per row; 71 rows carry a 5 MB name)
  - an ncu details CSV of 3,000 kernels (the real file's first 30 rows repeated, 43 MB): ncu_summary at
    COLUMNS=120 as a table (one block per row), ncu_metrics as CSV and as JSON

With --before DIR (a checkout of an earlier commit) each command runs against that code too.

  python benchmarks/hostile_inputs.py --workdir DIR [--repeat 3] [--before CHECKOUT] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
TIMEOUT_S = 120
MANIFEST = {"tool": "aiperf-triage", "schema_version": 1, "host": "h", "start_utc": "2026-01-01T00:00:00Z"}
sys.path.insert(0, str(REPO / "tests"))

from fuzz_cases import bundle_of_empty_members  # noqa: E402


# The fields compare reads of each GPU; a whole entry (900 bytes) times 60,000 is over the 16 MiB a
# member may have, and compare would only say it did not read it.
GPU_FIELDS = ("index", "name", "max_sm_clock_mhz", "power_limit_enforced_w", "pcie_gen_current", "pcie_width_current",
              "pcie_gen_max", "pcie_width_max", "nvlinks", "persistence_mode", "ecc_errors_uncorrected_aggregate")


def many_gpus(path: Path, count: int = 60_000) -> Path:
    """The real H200 bundle with its GPU list grown to `count` entries (its first GPU's compared fields)."""
    with tarfile.open(DATA / "triage" / "h200-fixture.tar.gz", "r:gz") as source:
        members = [(m, source.extractfile(m).read() if m.isfile() else None) for m in source.getmembers()]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for member, data in members:
            if member.name.endswith("/hardware_capabilities.json"):
                hw = json.loads(data)
                first = {key: value for key, value in hw["nvml"]["gpus"][0].items() if key in GPU_FIELDS}
                hw["nvml"]["gpus"] = [dict(first, index=i) for i in range(count)]
                data = json.dumps(hw).encode()
                assert len(data) < 16 << 20, len(data)
            if data is not None:
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data) if data is not None else None)
    path.write_bytes(gzip.compress(raw.getvalue(), 6))
    return path


def long_names(path: Path, size: int = 5_000_000, count: int = 3) -> Path:
    shutil.copyfile(DATA / "h200" / "lm_forward.sqlite", path)
    con = sqlite3.connect(path)
    ids = [r[0] for r in con.execute("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT ?", (count,))]
    for string_id in ids:
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", ("A" * size, string_id))
    con.commit()
    con.close()
    return path


def many_kernels(path: Path, count: int = 3000) -> Path:
    lines = (DATA / "h200" / "ncu_full_details.csv").read_text().splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith('"ID","Process ID"'))
    rows = [line for line in lines[header_at + 1:] if line.startswith('"')]
    first_id = rows[0].split(",")[0]
    one_kernel = [row for row in rows if row.split(",")[0] == first_id][:30]  # the red team's 43 MB shape
    out = [lines[header_at]]
    for k in range(count):
        out += [f'"{k}"' + row[len(first_id):] for row in one_kernel]
    path.write_text("\n".join(out) + "\n")
    return path


def cases(work: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    members = bundle_of_empty_members(work / "many_members.tar.gz", 100_000, MANIFEST)
    gpus = many_gpus(work / "many_gpus.tar.gz")
    names = long_names(work / "long_names.sqlite")
    kernels = many_kernels(work / "many_kernels.csv")
    triage, stats = ["-m", "aiperf_lab.triage.cli"], ["-m", "aiperf_lab.metrics.cli"]
    wide = {"COLUMNS": "120"}
    return {
        "show_100k_members": ([*triage, "show", str(members)], {}),
        "stats_100k_members": ([*stats, str(members)], {}),
        "compare_5x_60k_gpus": ([*triage, "compare", *[str(gpus)] * 5], {}),
        "overview_3_names_of_5MB": ([*stats, str(names)], {}),
        "gpu_trace_3_names_of_5MB_blocks": ([*stats, str(names), "-r", "cuda_gpu_trace"], wide),
        "ncu_summary_3000_kernels_table": ([*stats, str(kernels), "-r", "ncu_summary"], wide),
        "ncu_metrics_3000_kernels_csv": ([*stats, str(kernels), "-r", "ncu_metrics", "-f", "csv"], wide),
        "ncu_metrics_3000_kernels_json": ([*stats, str(kernels), "-r", "ncu_metrics", "-f", "json"], wide),
    }


def timed(code: Path, argv: list[str], env_extra: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit code); CPU from the children's rusage around the run."""
    env = dict(os.environ, PYTHONPATH=str(code), **env_extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    try:
        done = subprocess.run([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=env, cwd=code, timeout=TIMEOUT_S)
        code_ = done.returncode
    except subprocess.TimeoutExpired:  # killed at TIMEOUT_S and reaped: its CPU until then is counted
        code_ = -9
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code_


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare against")
    parser.add_argument("--only", help="comma-separated case names")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    table = cases(args.workdir)
    if args.only:
        table = {k: v for k, v in table.items() if k in args.only.split(",")}
    checkouts = [("before", args.before.resolve())] if args.before else []
    checkouts.append(("now", REPO))
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; median of {args.repeat}")
    print("| case | " + " | ".join(f"{label} wall s | {label} CPU s | {label} exit" for label, _ in checkouts) + " |")
    print("|---|" + "---|---|---|" * len(checkouts))
    for name, (argv, env_extra) in table.items():
        cells = []
        for _label, code in checkouts:
            runs = [timed(code, argv, env_extra) for _ in range(args.repeat)]
            cells += [f"{statistics.median(r[0] for r in runs):.2f}", f"{statistics.median(r[1] for r in runs):.2f}",
                      ",".join(sorted({str(r[2]) for r in runs}))]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
