"""The energy and telemetry reports on inputs built to the sizes that used to hang them (issue 11, red
team E1/E2), each command measured as its own process (benchmarks/process_measure.py):

- NVTX-heavy exports: the H100 fixture (tests/data/h100/energy_04ex03_stall.sqlite) with N nested
  push/pop ranges added ("nested"), or N back-to-back ranges each with its own name ("distinct"),
  against the fixture's telemetry: energy_by_range and energy_by_category.
- A long telemetry recording: the fixture's telemetry rows repeated, times running on, to R rows (100 Hz:
  900,000 rows = 2.5 h, about 200 MB): the default report (telemetry_summary), telemetry_findings, and
  energy_by_range and energy_by_category of the fixture's export against it. In the same run, `wc -l`
  and a bare csv.reader pass over the same file, so that the figures can be read against this machine's
  speed at the time.

    python benchmarks/energy_scale.py [--ranges 120000] [--rows 900000] [--keep DIR] [--before CHECKOUT]
                                      [--only nvtx|telemetry] [--telemetry-file CSV]

Prints one line per command: wall, CPU (user + system) and peak RSS; with --before, each command is run
on that checkout too (`git archive main | tar -x -C DIR`), right after this one's. --telemetry-file
measures a recording you have instead of building one. Expected runtime on a 2-core VM shared with other
jobs: 2-4 minutes (twice that with --before).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.process_measure import run_measured, stats_child  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "h100" / "energy_04ex03_stall.sqlite"
TELEMETRY = ROOT / "tests" / "data" / "h100" / "energy_04ex03_stall_telemetry.csv"
PUSHPOP = 59


def nvtx_export(target: Path, ranges: int, shape: str) -> Path:
    """The fixture with `ranges` push/pop ranges added on the thread of its own ranges, inside its
    captured span: nested one in the next ("nested"), or one after another with names "step N"."""
    shutil.copyfile(FIXTURE, target)
    db = sqlite3.connect(target)
    tid, = db.execute(f"SELECT globalTid FROM NVTX_EVENTS WHERE eventType = {PUSHPOP} LIMIT 1").fetchone()
    first, last = db.execute("SELECT min(start), max([end]) FROM NVTX_EVENTS").fetchone()
    span = last - first
    if shape == "nested":
        step = span // (2 * ranges + 2)
        rows = ((first + (i + 1) * step, last - (i + 1) * step, f"level {i % 7}") for i in range(ranges))
    else:
        step = span // (ranges + 1)
        rows = ((first + i * step, first + (i + 1) * step - 1, f"step {i}") for i in range(ranges))
    db.executemany(f"INSERT INTO NVTX_EVENTS (start, [end], eventType, text, globalTid) VALUES (?, ?, {PUSHPOP}, ?, ?)",
                   ((a, b, name, tid) for a, b, name in rows))
    db.commit()
    db.close()
    return target


def long_telemetry(target: Path, rows: int) -> Path:
    """The fixture's telemetry repeated to `rows` rows, t_s and utc_ns running on (one copy after the other)."""
    lines = TELEMETRY.read_text(encoding="utf-8").splitlines()
    meta = [line for line in lines[:1] if line.startswith("#")]
    reader = list(csv.reader(lines[len(meta):]))
    header, body = reader[0], [r for r in reader[1:] if len(r) == len(reader[0])]
    t_col, utc_col = header.index("t_s"), header.index("utc_ns")
    period = float(body[-1][t_col]) - float(body[0][t_col]) + 0.01
    with target.open("w", encoding="utf-8", newline="") as out:
        for line in meta:
            out.write(line + "\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        copy = 0
        written = 0
        while written < rows:
            shift = copy * period
            for row in body:
                if written == rows:
                    break
                row = list(row)
                row[t_col] = f"{float(row[t_col]) + shift:.4f}"
                if row[utc_col]:
                    row[utc_col] = str(int(row[utc_col]) + round(shift * 1e9))
                writer.writerow(row)
                written += 1
            copy += 1
    return target


BEFORE: Path | None = None  # --before: another checkout, measured the same way


def measure(label: str, args: list[str]) -> None:
    for root, tag in [(ROOT, "now"), *([(BEFORE, "before")] if BEFORE else [])]:
        env = dict(os.environ, PYTHONPATH=str(root))
        # the checkout first on the path (the current folder would come before PYTHONPATH)
        code = f"import sys; sys.path.insert(0, {str(root)!r}); from benchmarks.process_measure import " \
               f"stats_child; sys.exit(stats_child({args!r}))"
        m = run_measured([sys.executable, "-c", code], env)
        status = "ok" if m.exit_code == 0 else f"exit {m.exit_code}: {m.last_stderr_line}"
        print(f"{label + (f' [{tag}]' if BEFORE else ''):<53} wall {m.wall_s:6.2f} s  CPU {m.cpu_s:6.2f} s  "
              f"peak RSS {m.peak_rss_mb:6.0f} MB  {status}", flush=True)


def baselines(path: Path) -> None:
    began = time.monotonic()
    subprocess.run(["wc", "-l", str(path)], stdout=subprocess.DEVNULL, check=False)
    print(f"{'wc -l':<44} wall {time.monotonic() - began:6.2f} s", flush=True)
    code = ("import csv, sys\nn = 0\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
            "    for row in csv.reader(f):\n        n += 1\n")
    m = run_measured([sys.executable, "-c", code, str(path)], dict(os.environ))
    print(f"{'bare csv.reader pass':<44} wall {m.wall_s:6.2f} s  CPU {m.cpu_s:6.2f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranges", type=int, default=120_000)
    parser.add_argument("--rows", type=int, default=900_000)
    parser.add_argument("--keep", type=Path, help="build the inputs here and leave them")
    parser.add_argument("--before", type=Path, help="another checkout to measure the same way")
    parser.add_argument("--only", choices=["nvtx", "telemetry"], help="only the NVTX exports or the recording")
    parser.add_argument("--telemetry-file", type=Path, help="a long recording to measure (not built)")
    args = parser.parse_args()
    global BEFORE
    BEFORE = args.before.resolve() if args.before else None
    folder = args.keep or Path(tempfile.mkdtemp(prefix="energy-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for shape in ("nested", "distinct") if args.only != "telemetry" else ():
            export = nvtx_export(folder / f"nvtx_{shape}.sqlite", args.ranges, shape)
            for report in ("energy_by_range", "energy_by_category"):
                measure(f"{report}, {args.ranges} {shape} ranges",
                        [str(export), "-r", report, "--telemetry", str(TELEMETRY)])
        if args.only == "nvtx":
            return 0
        recording = args.telemetry_file or long_telemetry(folder / "telemetry_long.csv", args.rows)
        print(f"telemetry: {recording.name}, {recording.stat().st_size / 1e6:.0f} MB", flush=True)
        baselines(recording)
        measure("telemetry_summary (the default report)", [str(recording)])
        measure("telemetry_findings", [str(recording), "-r", "telemetry_findings"])
        measure("energy_by_range against it", [str(FIXTURE), "-r", "energy_by_range", "--telemetry", str(recording)])
        measure("energy_by_category against it", [str(FIXTURE), "-r", "energy_by_category", "--telemetry",
                                                  str(recording)])
        baselines(recording)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
