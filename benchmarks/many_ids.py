"""The red team's slow cases of issue 11 that grew with the count of ids in a file, timed before and after.

Builds each input from the real fixtures in tests/data (nothing downloaded) and runs the command a user
would type in a fresh interpreter; prints wall time, CPU time (user + system) and peak RSS of the child,
and its exit code. A run past --timeout is killed and shown as such.

  - telemetry (the H100 recording's rows, times running on) whose gpu column names N distinct ids:
    `aiperf-stats FILE -r telemetry_summary` for 1,000, 4,000 and 81,000 ids (one per row), and for
    64 ids (the most a recording may name) over the same 81,000 rows
  - lm_forward.sqlite's first 40 rows per table (tests/fuzz_cases.small_export) with StringIds rebuilt
    without its primary key and each kernel and API name id 3,000 times: `-r cuda_gpu_trace`, overview
  - `-r energy_by_category` / `energy_by_range` of that small export with --telemetry a recording whose
    header has no utc_ns column (the H100 rows, 300,000 of them) and with the 81,000-id one

  python benchmarks/many_ids.py --workdir DIR [--before CHECKOUT] [--timeout 120] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TELEMETRY = REPO / "tests" / "data" / "h100" / "energy_04ex03_stall_telemetry.csv"
sys.path.insert(0, str(REPO / "tests"))

from fuzz_cases import small_export  # noqa: E402


def telemetry_rows(path: Path, rows: int, gpu_of=None, drop: str | None = None) -> Path:
    """The H100 recording's rows repeated to `rows`, times running on at 10 ms; the gpu cell of row k
    gpu_of(k) (else kept); the column `drop` left out."""
    lines = TELEMETRY.read_text(encoding="utf-8").splitlines()
    meta, header, body = lines[0], lines[1].split(","), [line.split(",") for line in lines[2:]]
    keep = [k for k, name in enumerate(header) if name != drop]
    out = [meta, ",".join(header[k] for k in keep)]
    for k in range(rows):
        row = list(body[k % len(body)])
        row[0] = f"{k * 0.01:.4f}"
        if gpu_of is not None:
            row[1] = str(gpu_of(k))
        out.append(",".join(row[c] for c in keep))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def repeated_string_ids(path: Path, copies: int = 3000) -> Path:
    small_export(path)
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE s2 AS SELECT * FROM StringIds; DROP TABLE StringIds; "
                      "ALTER TABLE s2 RENAME TO StringIds;")
    ids = [r[0] for r in con.execute("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    ids += [r[0] for r in con.execute("SELECT DISTINCT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME")]
    con.executemany("INSERT INTO StringIds(id, value) VALUES (?, ?)", [(i, f"dup{i}_{k}") for i in ids
                                                                        for k in range(copies)])
    con.commit()
    con.close()
    return path


def cases(work: Path) -> dict[str, list[str]]:
    stats = ["-m", "aiperf_lab.metrics.cli"]
    distinct = {n: telemetry_rows(work / f"tel_{n}_ids.csv", n, gpu_of=lambda k: k) for n in (1000, 4000, 81000)}
    bound = telemetry_rows(work / "tel_64_ids.csv", 81000, gpu_of=lambda k: k % 64)
    clockless = telemetry_rows(work / "tel_no_utc_300k.csv", 300_000, drop="utc_ns")
    small = small_export(work / "small.sqlite")
    repeated = repeated_string_ids(work / "repeated_string_ids.sqlite")
    table = {f"telemetry_summary, {n:,} ids": [*stats, str(path), "-r", "telemetry_summary"]
             for n, path in distinct.items()}
    table["telemetry_summary, 64 ids over 81,000 rows"] = [*stats, str(bound), "-r", "telemetry_summary"]
    table["cuda_gpu_trace, StringIds 3,000 copies per id"] = [*stats, str(repeated), "-r", "cuda_gpu_trace"]
    table["overview, StringIds 3,000 copies per id"] = [*stats, str(repeated)]
    for report in ("energy_by_category", "energy_by_range"):
        table[f"{report}, telemetry without utc_ns, 300k rows"] = [*stats, str(small), "-r", report,
                                                                   "--telemetry", str(clockless)]
    table["energy_by_category, telemetry of 81,000 ids"] = [*stats, str(small), "-r", "energy_by_category",
                                                            "--telemetry", str(distinct[81000])]
    return table


def timed(code: Path, argv: list[str], timeout: float, scratch: Path) -> tuple[float, float, int, str]:
    """(wall s, CPU s, peak RSS MB, exit: the code, or 'killed' past the timeout) of one fresh process,
    measured by GNU time (the child of a small process: a child forked from this one would count this
    one's memory in its peak)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    report = scratch / "time.txt"
    child = subprocess.Popen(["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(report), sys.executable, *argv],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=code,
                             start_new_session=True)
    try:
        exit_code = str(child.wait(timeout))
    except subprocess.TimeoutExpired:  # GNU time and the command, both in the child's own session
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return timeout, float("nan"), 0, "killed"
    wall, user, system, rss_kb = report.read_text().split()[-4:]
    return float(wall), float(user) + float(system), int(rss_kb) // 1024, exit_code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare against")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", help="comma-separated words; the cases whose names hold one of them")
    args = parser.parse_args()
    args.workdir = args.workdir.resolve()
    args.workdir.mkdir(parents=True, exist_ok=True)
    table = cases(args.workdir)
    if args.only:
        table = {k: v for k, v in table.items() if any(word in k for word in args.only.split(","))}
    checkouts = [("before", args.before.resolve())] if args.before else []
    checkouts.append(("now", REPO))
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; timeout {args.timeout:.0f} s")
    print("| case | " + " | ".join(f"{label}: wall s, CPU s, RSS MB, exit" for label, _ in checkouts) + " |")
    print("|---|" + "---|" * len(checkouts))
    for name, argv in table.items():
        cells = []
        for _label, code in checkouts:
            wall, cpu, rss, exit_code = timed(code, argv, args.timeout, args.workdir)
            cells.append(f"{wall:.1f}, {cpu:.1f}, {rss}, {exit_code}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
