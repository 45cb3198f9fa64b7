"""Whole-process timings and peak memory of aiperf-stats against `nsys stats` and a bare sqlite3 GROUP BY,
with a byte-for-byte check of the CSVs (issue 17). Used by benchmarks/verify_issue17.sh on the GPU machine;
runs here too (without nsys only our figures and sqlite3's).

    python benchmarks/issue17_bench.py EXPORT.sqlite --out DIR [--repeat 5] [--reports a,b] [--small SMALL.sqlite]
                                       [--before CHECKOUT]

Each command is run --repeat times, interleaved (a noisy machine slows every command alike); the table
gives the median wall time and CPU time (user + system, from wait4: what a loaded machine disturbs least)
of each and the ratios of medians taken in this one run. The bare GROUP BY is the sqlite3 command-line
tool's where there is one (else the same query from a Python process):
`SELECT demangledName, count(*), sum/avg/min/max([end]-start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1`.
The least join a report that puts kernels under their launches must make is timed as well, in bare SQL
(sqlite3): the kernels joined to their runtime calls by correlation id and process, grouped by name.
So is `python -c pass` with the same interpreter: the start-up and exit no report can cut (0.025 s on the
development VM, 0.073 s on the GPU machine, whose environment runs .pth files at every start).
With --before, the same reports from another checkout (e.g. `git archive COMMIT aiperf_lab | tar -x -C
DIR`) are timed in the same run and their CSVs compared with ours byte for byte.
Peak RSS of the trace reports (with --small, or --traces) comes from the kernel (os.wait4). Writes
DIR/bench.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPORTS = ["nvtx_kern_sum", "nvtx_gpu_proj_sum", "nvtx_gpu_proj_trace", "cuda_gpu_kern_sum", "cuda_kern_exec_sum",
           "nvtx_pushpop_trace"]
TRACES = ["cuda_gpu_trace", "cuda_api_trace", "cuda_kern_exec_trace", "nvtx_pushpop_trace", "nvtx_gpu_proj_trace"]
GROUP_BY = ("SELECT demangledName, count(*), sum([end]-start), avg([end]-start), min([end]-start), "
            "max([end]-start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY demangledName")
LEAST_JOIN = ("SELECT k.demangledName, count(*), sum(k.[end]-k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
              "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
              "AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) GROUP BY k.demangledName")


def run(argv: list[str], stdout=subprocess.DEVNULL, timeout: float = 300, cwd: str | None = None,
        env: dict | None = None) -> tuple[float, int, int, float]:
    """(wall seconds, exit code, peak RSS in KiB, CPU seconds) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env=dict(env or os.environ, LC_ALL="C"), cwd=cwd)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return (time.perf_counter() - start, os.waitstatus_to_exitcode(status), usage.ru_maxrss,
                    usage.ru_utime + usage.ru_stime)
        if time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return float("nan"), 124, 0, float("nan")
        time.sleep(0.002)


def ours(export: str, report: str) -> list[str]:
    return [sys.executable, "-m", "aiperf_lab.metrics.cli", export, "--report", report, "--format", "csv"]


def checkout_env(checkout: Path) -> dict:
    """The environment that makes `python -m aiperf_lab...` (run in `checkout`) import that checkout."""
    return dict(os.environ, PYTHONPATH=str(checkout))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def nccl_payload(export: str) -> int:
    """What an export holds of NCCL's NVTX ranges: the columns, how many carry a payload, one row in full."""
    import sqlite3

    con = sqlite3.connect(export)
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    cols = [r[1] for r in con.execute("PRAGMA table_info(NVTX_EVENTS)")]
    print("NVTX_EVENTS columns:", ", ".join(cols))
    tables = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE name LIKE '%PAYLOAD%' OR name LIKE '%SCHEMA%'")]
    print("payload/schema tables:", tables)
    for table in tables:
        print(table, [r[1] for r in con.execute(f"PRAGMA table_info([{table}])")],
              con.execute(f"SELECT * FROM [{table}] LIMIT 2").fetchall())
    domains = con.execute("SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND "
                          "coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) = 'NCCL'").fetchall()
    if not domains:
        print("no NCCL domain in NVTX_EVENTS")
        return 0
    ids = ",".join(str(d) for (d,) in domains)
    n = con.execute(f"SELECT count(*) FROM NVTX_EVENTS WHERE domainId IN ({ids}) AND eventType IN (59, 60)").fetchone()[0]
    print(f"NCCL ranges: {n}")
    row = con.execute(f"SELECT * FROM NVTX_EVENTS WHERE domainId IN ({ids}) AND eventType IN (59, 60) "
                      "ORDER BY start LIMIT 1").fetchone()
    for col, value in zip(cols, row or ()):
        shown = value.hex() if isinstance(value, bytes) else value
        print(f"  {col} = {str(shown)[:300]}")
    return 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--nccl-payload":
        return nccl_payload(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reports", default=",".join(REPORTS))
    parser.add_argument("--small", help="a small export: trace reports' peak memory there, for comparison")
    parser.add_argument("--traces", action="store_true", help="measure the trace reports' peak memory")
    parser.add_argument("--before", type=Path, help="another checkout (holding aiperf_lab/) to time in the same run")
    parser.add_argument("--budget", type=float, help="seconds: start no further round of runs that would end past "
                        "this (the table says how many rounds were run)")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parent.parent
    before = args.before.resolve() if args.before else None
    # Byte-compiled first, as pip install leaves a package: with PYTHONDONTWRITEBYTECODE set every run would
    # compile each module again.
    for checkout in (repo, before):
        if checkout is not None:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "aiperf_lab")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = Path(args.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    export = str(Path(args.export).resolve())
    nsys = shutil.which("nsys")
    sqlite3 = shutil.which("sqlite3")
    results: dict = {"export": export, "nsys": bool(nsys), "repeat": args.repeat, "reports": {}, "traces": {}}

    commands: dict[str, list[str]] = {}
    places: dict[str, tuple[str | None, dict | None]] = {}  # command -> (cwd, env) where not ours
    if sqlite3:
        commands["sqlite3 GROUP BY"] = [sqlite3, export, GROUP_BY]
        commands["sqlite3 least join"] = [sqlite3, export, LEAST_JOIN]
    commands["python -c pass"] = [sys.executable, "-c", "pass"]  # the interpreter's own start-up and exit
    commands["python sqlite3 GROUP BY"] = [sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                                           f"c.execute({GROUP_BY!r}).fetchall()", export]
    reports = [r for r in args.reports.split(",") if r]
    for report in reports:
        commands[f"aiperf {report}"] = ours(export, report)
        places[f"aiperf {report}"] = (str(repo), checkout_env(repo))
        if before:
            commands[f"before {report}"] = ours(export, report)
            places[f"before {report}"] = (str(before), checkout_env(before))
        if nsys:
            commands[f"nsys {report}"] = [nsys, "stats", "--report", report, "--format", "csv", "--output",
                                          str(work / "nsys"), "--force-overwrite", "true", "--force-export", "false",
                                          export]
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    codes: dict[str, int] = {}
    began = time.perf_counter()
    for done in range(args.repeat):
        spent = time.perf_counter() - began
        if done and args.budget and spent + spent / done > args.budget:
            break
        results["repeat"] = done + 1
        for name, argv in commands.items():
            cwd, env = places.get(name, (None, None))
            wall, code, _rss, cpu = run(argv, cwd=cwd, env=env)
            codes[name] = code
            if code == 0:
                walls[name].append(wall)
                cpus[name].append(cpu)
    median = {name: statistics.median(values) for name, values in walls.items() if values}
    median_cpu = {name: statistics.median(values) for name, values in cpus.items() if values}
    base_name = "sqlite3 GROUP BY" if "sqlite3 GROUP BY" in median else "python sqlite3 GROUP BY"
    base = median.get(base_name)
    for report in reports:
        entry = {"aiperf_s": median.get(f"aiperf {report}"), "aiperf_runs_s": walls[f"aiperf {report}"],
                 "aiperf_cpu_s": median_cpu.get(f"aiperf {report}"), "aiperf_exit": codes.get(f"aiperf {report}")}
        with (work / f"ours_{report}.csv").open("wb") as handle:
            run(ours(export, report), stdout=handle, cwd=str(repo), env=checkout_env(repo))
        if before:
            entry["before_s"] = median.get(f"before {report}")
            entry["before_cpu_s"] = median_cpu.get(f"before {report}")
            entry["before_exit"] = codes.get(f"before {report}")
            with (work / f"before_{report}.csv").open("wb") as handle:
                run(ours(export, report), stdout=handle, cwd=str(before), env=checkout_env(before))
            entry["same_as_before"] = sha(work / f"before_{report}.csv") == sha(work / f"ours_{report}.csv")
        if nsys:
            entry["nsys_s"] = median.get(f"nsys {report}")
            entry["nsys_runs_s"] = walls[f"nsys {report}"]
            entry["nsys_exit"] = codes.get(f"nsys {report}")
            theirs = work / f"nsys_{report}.csv"
            entry["identical"] = theirs.exists() and sha(theirs) == sha(work / f"ours_{report}.csv")
            entry["nsys_sha256"] = sha(theirs)
        results["reports"][report] = entry
    results["group_by"] = {"name": base_name, "median_s": base, "runs_s": walls.get(base_name),
                           "cpu_s": median_cpu.get(base_name),
                           "python_median_s": median.get("python sqlite3 GROUP BY")}
    results["least_join"] = {"median_s": median.get("sqlite3 least join"), "cpu_s": median_cpu.get("sqlite3 least join"),
                             "sql": LEAST_JOIN}
    results["python_startup"] = {"median_s": median.get("python -c pass"), "cpu_s": median_cpu.get("python -c pass")}
    results["before"] = str(before) if before else None
    if args.small or args.traces:
        for trace in TRACES:
            entry = {}
            for label, path in (("big", export), ("small", args.small)):
                if path:
                    wall, code, rss, _cpu = run(ours(str(Path(path).resolve()), trace), cwd=str(repo),
                                                env=checkout_env(repo))
                    entry[label] = {"wall_s": wall, "exit": code, "peak_rss_kib": rss}
            results["traces"][trace] = entry
    (out / "bench.json").write_text(json.dumps(results, indent=1))
    print(table(results))
    return 0


def _s(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "failed"


def _x(value: float | None, base: float | None) -> str:
    return f"{value / base:.2f}x" if value and base else "n/a"


def table(results: dict) -> str:
    """The markdown the verify script keeps: per report, medians and the ratios of medians."""
    group_by, join = results["group_by"], results.get("least_join", {})
    base, base_cpu = group_by["median_s"], group_by.get("cpu_s")
    nsys, before = results["nsys"], results.get("before")
    lines = [f"Median of {results['repeat']} whole-process runs each, interleaved; bare GROUP BY = {group_by['name']} "
             f"({_s(base)} s wall, {_s(base_cpu)} s CPU; from a Python process {_s(group_by['python_median_s'])} s); "
             f"the least join in bare SQL (kernels joined to their calls, grouped by name): {_s(join.get('median_s'))} s "
             f"wall, {_s(join.get('cpu_s'))} s CPU ({_x(join.get('median_s'), base)} / {_x(join.get('cpu_s'), base_cpu)} "
             "the GROUP BY). Python's own start-up and exit (`python -c pass`, the same interpreter): "
             f"{_s(results.get('python_startup', {}).get('median_s'))} s wall, "
             f"{_s(results.get('python_startup', {}).get('cpu_s'))} s CPU." + (" Before: the same reports from the checkout before this change." if before else ""),
             "",
             "| report | aiperf-stats wall (s) | CPU (s) | x bare GROUP BY, wall / CPU (goal <= 3; cuda_gpu_kern_sum <= 2) | "
             "x least join, wall / CPU | nsys stats (s) | faster than nsys (goal >= 3) | CSV identical to nsys |"
             + (" before: wall / CPU (s) | before / now, wall / CPU | CSV same as before |" if before else ""),
             "|---|---|---|---|---|---|---|---|" + ("---|---|---|" if before else "")]
    for report, e in results["reports"].items():
        a, c, n = e.get("aiperf_s"), e.get("aiperf_cpu_s"), e.get("nsys_s")
        exit_note = "" if e.get("aiperf_exit") == 0 else f" (exit {e.get('aiperf_exit')})"
        line = (f"| {report} | {_s(a)}{exit_note} | {_s(c)} | {_x(a, base)} / {_x(c, base_cpu)} | "
                f"{_x(a, join.get('median_s'))} / {_x(c, join.get('cpu_s'))} | {_s(n) if nsys else 'no nsys'} | "
                f"{_x(n, a) if nsys else 'n/a'} | {e.get('identical', 'no nsys')} |")
        if before:
            b, bc = e.get("before_s"), e.get("before_cpu_s")
            line += f" {_s(b)} / {_s(bc)} | {_x(b, a)} / {_x(bc, c)} | {e.get('same_as_before')} |"
        lines.append(line)
    if results["traces"]:
        lines += ["", "| trace report | wall (s), big | peak RSS (MiB), big | peak RSS (MiB), small |", "|---|---|---|---|"]
        for trace, e in results["traces"].items():
            big, small = e.get("big", {}), e.get("small", {})
            lines.append(f"| {trace} | {big.get('wall_s', float('nan')):.2f} (exit {big.get('exit')}) | "
                         f"{big.get('peak_rss_kib', 0) / 1024:.0f} | {small.get('peak_rss_kib', 0) / 1024:.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
