"""aiperf-stats on a real .nsys-rep, under the real nsys (the GPU machine): the export nsys writes into a partial file
and renamed into place, its tables equal to `nsys stats`, a second open reusing it, and an export interrupted
(SIGINT, as Ctrl-C sends it, once nsys has begun the partial file) leaving nothing beside the report that a later open would take for finished.

    source .nsyslibs/nsys-env.sh && python3 benchmarks/verify_nsys_rep_open.py OUT_DIR

Writes OUT_DIR/verify_nsys_rep_open.md (the table) and the commands' outputs. Changes no clock or power limit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

WORKLOAD = ("import torch\n"
            "x = torch.randn(2048, 2048, device='cuda')\n"
            "for _ in range(50):\n"
            "    x = torch.tanh(x @ x / 2048)\n"
            "torch.cuda.synchronize()\n")
REPORTS = ("cuda_gpu_kern_sum", "cuda_api_sum")


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    began = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    done.seconds = round(time.monotonic() - began, 2)
    return done


def stats(rep: Path, report: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "aiperf_lab.metrics.cli", str(rep), "--report", report, "--format", "csv"])


def beside(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    nsys = shutil.which("nsys")
    rows: list[tuple[str, bool, str]] = []
    if nsys is None:
        (out / "verify_nsys_rep_open.md").write_text("nsys is not on the PATH: nothing measured.\n")
        return 0
    work = out / "work"
    work.mkdir(exist_ok=True)
    script = work / "workload.py"
    script.write_text(WORKLOAD)
    profiled = run([nsys, "profile", "-t", "cuda,nvtx", "--force-overwrite", "true", "-o", str(work / "run"),
                    sys.executable, str(script)])
    rep = work / "run.nsys-rep"
    rows.append(("nsys profile wrote run.nsys-rep", rep.is_file(), f"{profiled.seconds} s, exit {profiled.returncode}"))
    if not rep.is_file():
        (out / "profile.log").write_text(profiled.stdout + profiled.stderr)
        return finish(out, rows)

    # the first open exports: into a partial file, renamed when nsys succeeded
    first = stats(rep, REPORTS[0])
    (out / "first.stderr").write_text(first.stderr)
    left = beside(work)
    rows.append(("first open: exit 0, 'exported' said, run.sqlite beside, no partial file",
                 first.returncode == 0 and "exported run.nsys-rep to" in first.stderr and "run.sqlite" in left
                 and not any(".partial-" in name for name in left), f"{first.seconds} s; beside: {left}"))

    # the tables equal nsys stats' on the same export
    for report in REPORTS:
        ours = stats(rep, report)
        prefix = work / f"nsys_{report}"
        theirs = run([nsys, "stats", "--report", report, "--format", "csv", "--output", str(prefix),
                      "--force-overwrite", "true", "--force-export", "false", str(work / "run.sqlite")])
        made = sorted(work.glob(f"nsys_{report}*.csv"))
        same = bool(made) and made[0].read_text() == ours.stdout
        (out / f"ours_{report}.csv").write_text(ours.stdout)
        rows.append((f"{report}: byte-identical to nsys stats", same and ours.returncode == 0,
                     f"{len(ours.stdout.splitlines())} lines; nsys exit {theirs.returncode}"))

    # the second open reuses the export
    second = stats(rep, REPORTS[0])
    rows.append(("second open: the existing export reused", second.returncode == 0
                 and "using the existing export" in second.stderr and second.stdout == first.stdout,
                 f"{second.seconds} s"))

    # an export interrupted 0.3 s in: nothing left that a later open would take for finished
    fresh = work / "interrupted"
    fresh.mkdir(exist_ok=True)
    copy = fresh / "run.nsys-rep"
    shutil.copy(rep, copy)
    child = subprocess.Popen([sys.executable, "-m", "aiperf_lab.metrics.cli", str(copy), "--report", REPORTS[0],
                              "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    began, seen = time.monotonic(), False
    while child.poll() is None and time.monotonic() - began < 1.5:   # until nsys has begun the partial file
        if any(".partial-" in name for name in beside(fresh)):
            seen = True
            break
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGINT)   # the terminal sends Ctrl-C to the whole foreground group
    _out, err = child.communicate(timeout=60)
    time.sleep(0.5)
    left = beside(fresh)
    finished = child.returncode == 0
    rows.append(("interrupted export: no .sqlite or partial left (or it had finished)",
                 finished or not any(name.endswith(".sqlite") for name in left),
                 f"partial seen before the interrupt: {seen}; exit {child.returncode}; beside: {left}; "
                 f"stderr: {err.strip()[-160:]!r}"))
    again = stats(copy, REPORTS[0])
    rows.append(("open after the interrupt: exports anew, same table", again.returncode == 0
                 and again.stdout == first.stdout, f"{again.seconds} s; {again.stderr.strip()[:120]!r}"))
    return finish(out, rows)


def finish(out: Path, rows: list[tuple[str, bool, str]]) -> int:
    gpu = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]).stdout.strip()
    version = run([shutil.which("nsys") or "nsys", "--version"]).stdout.strip() if shutil.which("nsys") else "none"
    lines = [f"# aiperf-stats on a real .nsys-rep ({gpu}; {version})", "", "| check | result | detail |", "|---|---|---|"]
    lines += [f"| {name} | {'pass' if ok else 'FAIL'} | {detail} |" for name, ok, detail in rows]
    lines.append(f"\n{sum(ok for _, ok, _ in rows)} of {len(rows)} pass")
    (out / "verify_nsys_rep_open.md").write_text("\n".join(lines) + "\n")
    (out / "verify_nsys_rep_open.json").write_text(json.dumps(rows, indent=1))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "verify_nsys_rep_open_out")))
