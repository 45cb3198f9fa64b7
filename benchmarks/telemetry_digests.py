"""The sha256 of every telemetry output on every recording given, to compare two checkouts byte for byte
(issue 11: the telemetry read made faster must read every recording the same).

    python benchmarks/telemetry_digests.py --build DIR          # odd recordings made from the H100 fixture
    PYTHONPATH=CHECKOUT python benchmarks/telemetry_digests.py --out DIGESTS.json RECORDING.csv [DIR ...]
    python benchmarks/telemetry_digests.py --compare BEFORE.json AFTER.json

Per recording, in this one process (the checkout on PYTHONPATH is the one measured): the Recording as
read (layout, devices, metadata, status updates, UTC origin, duration and every Tick, or the error
line); aiperf-stats' default report, telemetry_summary and telemetry_findings in table, CSV and JSON;
energy_by_range and energy_by_category of the H100 fixture's export against it. Each output's digest
covers stdout, stderr and the exit code. Directories are searched for *.csv (regular files only).
--build writes the fixture shuffled, with two GPUs, lost and host-only rows, odd cells, rows cut short
or longer, CRLF with a BOM, quoted cells holding a newline or a comma, a lone CR, a NUL, a field over
csv's limit, an unclosed quote, old columns and a header alone.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import random
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "h100" / "energy_04ex03_stall_telemetry.csv"
EXPORT = ROOT / "tests" / "data" / "h100" / "energy_04ex03_stall.sqlite"
FORMATS = ("table", "csv", "json")


def _fixture() -> tuple[str, list[str], list[list[str]]]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    rows = list(csv.reader(lines[1:]))
    return lines[0], rows[0], rows[1:]


def _write(path: Path, meta: str | None, header: list[str], body: list[list[str]], newline: str = "\n",
           bom: bool = False) -> None:
    out = io.StringIO()
    csv.writer(out, lineterminator=newline).writerows([header, *body])
    text = (meta + newline if meta else "") + out.getvalue()
    path.write_bytes((("\ufeff" if bom else "") + text).encode("utf-8"))


def build(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    meta, header, body = _fixture()
    col = {name: i for i, name in enumerate(header)}
    rng = random.Random(11)
    made = {}

    shuffled = body * 3
    rng.shuffle(shuffled)
    made["shuffled"] = (meta, header, shuffled)
    two = []
    for row in body:
        other = list(row)
        other[col["gpu"]] = "1"
        other[col["temp_c"]] = str(rng.randint(30, 90))
        if rng.random() < 0.05:
            other[col["lost"]] = "1"
        if rng.random() < 0.03:
            other[col["power_w"]] = rng.choice(["", "N/A", "nan", "12 W", "1,5", "inf", " 7"])
        two += [row, other]
        if rng.random() < 0.02:
            two.append([row[0]] + [""] * (len(row) - 1))
        if rng.random() < 0.01:
            two.append(row[:5])
        if rng.random() < 0.01:
            two.append(row[:col["utc_ns"] + 1])           # short of the last column, past utc_ns
        if rng.random() < 0.01:
            two.append(row + ["extra", "cells"])
    made["two_gpus_odd"] = (meta, header, two)
    quoted = [list(row) for row in body]
    for k in range(0, len(quoted), 37):
        quoted[k][col["power_source"]] = "inst\nant" if k % 2 else "a,b"
    made["quoted_cells"] = (meta, header, quoted)
    made["times_repeated"] = (meta, header, [[f"{float(r[0]) // 0.5 * 0.5:.4f}", *r[1:]] for r in body])
    made["old_columns"] = (None, header[:col["host_mem_total_bytes"] + 1],
                           [r[:col["host_mem_total_bytes"] + 1] for r in body])
    made["header_only"] = (meta, header, [])
    no_time = [list(r) for r in body]
    for k in range(0, len(no_time), 11):
        no_time[k][0] = rng.choice(["", "x", "nan", "-inf", "1e300", "12 s"])
    made["odd_times"] = (meta, header, no_time)
    paths = []
    for name, (m, h, b) in made.items():
        path = folder / f"{name}.csv"
        _write(path, m, h, b)
        paths.append(path)
    path = folder / "crlf_bom.csv"
    _write(path, meta, header, body, newline="\r\n", bom=True)
    paths.append(path)
    text = FIXTURE.read_text(encoding="utf-8").split("\n")
    for name, edit in [("lone_cr", lambda s: s.replace(",instant,", ",inst\rant,", 1)),
                       ("nul_cell", lambda s: s.replace(",counter,", ",coun\0ter,", 1)),
                       ("unclosed_quote", lambda s: s.replace(",instant,", ',"instant,', 1)),
                       ("quote_inside", lambda s: s.replace(",instant,", ',inst"ant,', 1))]:
        lines = list(text)
        lines[len(lines) // 2] = edit(lines[len(lines) // 2])
        path = folder / f"{name}.csv"
        path.write_text("\n".join(lines), encoding="utf-8", newline="")
        paths.append(path)
    lines = list(text)
    lines[100] = lines[100].replace(",instant,", "," + "9" * 140_000 + ",", 1)
    path = folder / "field_over_limit.csv"
    path.write_text("\n".join(lines), encoding="utf-8", newline="")
    paths.append(path)
    return paths


def _run(argv: list[str]) -> str:
    import contextlib

    from aiperf_lab.metrics import cli

    out, err = io.StringIO(), io.StringIO()
    code: int | str = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # noqa: BLE001 (a crash is a result to compare too)
            code = f"crash {type(exc).__name__}"
    return hashlib.sha256(f"{code}\n{out.getvalue()}\n--\n{err.getvalue()}".encode()).hexdigest()


def _recording(path: Path) -> str:
    from aiperf_lab.errors import InputError, NotAProfile
    from aiperf_lab.metrics.telemetry.recording import read_recording

    try:
        r = read_recording(path)
        seen = repr((r.layout, r.devices, r.meta, r.status_updates, r.utc_origin_ns, r.duration_s, r.ticks))
    except (InputError, NotAProfile) as exc:
        seen = f"{type(exc).__name__}: {exc}"
    return hashlib.sha256(seen.encode()).hexdigest()


def digests(paths: list[Path]) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in paths:
        found[f"{path}|recording"] = _recording(path)
        found[f"{path}|default"] = _run([str(path)])
        for fmt in FORMATS:
            for report in ("telemetry_summary", "telemetry_findings"):
                found[f"{path}|{report}|{fmt}"] = _run([str(path), "-r", report, "-f", fmt])
            for report in ("energy_by_range", "energy_by_category"):
                found[f"{path}|{report}|{fmt}"] = _run([str(EXPORT), "-r", report, "--telemetry", str(path),
                                                        "-f", fmt])
    return found


def _csv_files(paths: list[str]) -> list[Path]:
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            for folder, _dirs, names in os.walk(path):
                files += [Path(folder) / n for n in sorted(names) if n.endswith(".csv")
                          and stat.S_ISREG(os.lstat(Path(folder) / n).st_mode)]
        else:
            files.append(path)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--out")
    parser.add_argument("--build", type=Path, metavar="DIR")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.build:
        print(f"{len(build(args.build))} recordings written to {args.build}")
        return 0
    if args.compare:
        from report_digests import compare   # (this folder is on the path when run as a script)

        return compare(*args.compare)
    files = _csv_files(args.paths)
    found = digests(files)
    Path(args.out).write_text(json.dumps(found, indent=0, sort_keys=True))
    print(f"{len(found)} digests of {len(files)} recordings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
