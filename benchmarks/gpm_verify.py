"""Issue 15 on a Hopper GPU: our sampler's GPM figures against `nvidia-smi dmon --gpm-metrics`, its CPU
cost, the cost of a GPM read, the process table, and the GPU-metrics expert rules on an nsys capture.

Phases, each PHASE_S long, in a child process (PyTorch): a bf16 8192^3 matmul loop, a 1 GiB device
copy, a small-kernel phase (a 256-element add: one block per launch) and idle. Meanwhile our sampler
records at 10 Hz with GPM (the CSV becomes the --demo recording) and dmon prints GPM metrics every
second. Per phase, the mean of each metric from both, over the phase minus its first and last second.

    python3 benchmarks/gpm_verify.py --out DIR [--phase-s 8] [--gpu 0]

Writes into DIR: results.md (the table, naming the GPU), gpm_10hz_phases.csv, dmon.txt, verify.json,
and where they can be made: monitor_gpm.svg (textual importable), gpu_metrics.sqlite and
gpu_metrics_expert.txt (nsys on the PATH). Every step records its failure and the script goes on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# dmon's column names for the GPM metric ids we ask for (nvidia-smi 580), and the ids in our order.
DMON_IDS = [1, 2, 3, 5, 7, 10, 11, 12, 13, 20, 21, 60, 61]
DMON_NAMES = {"gract": 1, "smutil": 2, "smocc": 3, "intact": 4, "mmaact": 5, "dfmaact": 6, "hmmaact": 7,
              "dmmaact": 8, "immaact": 9, "dram": 10, "fp64": 11, "fp32": 12, "fp16": 13, "pcitx": 20,
              "pcirx": 21, "nvlrx": 60, "nvltx": 61}
PERCENT_IDS = [1, 2, 3, 5, 7, 10, 11, 12, 13]          # compared in points; the rest (MiB/s) relatively
GOAL_POINTS = 5.0
PHASES = ["matmul", "copy", "small_kernels", "idle"]
TRIM_S = 1.0                                             # left out at each end of a phase

WORKLOAD = r"""
import sys, time, torch
phase_s = float(sys.argv[1])
dev = torch.device("cuda", 0)
a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
src = torch.empty(1 << 28, device=dev, dtype=torch.float32)   # 1 GiB
dst = torch.empty_like(src)
tiny = torch.zeros(256, device=dev)
for _ in range(3):
    a @ b; dst.copy_(src); tiny.add_(1)
torch.cuda.synchronize()

def phase(name, step):
    start = time.time()
    print(f"PHASE {name} {start:.3f}", flush=True)
    n = 0
    while time.time() - start < phase_s:
        step(); n += 1
        if n % 20 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    print(f"END {name} {time.time():.3f} {n}", flush=True)

phase("matmul", lambda: a @ b)
phase("copy", lambda: dst.copy_(src))
phase("small_kernels", lambda: tiny.add_(1))
start = time.time(); print(f"PHASE idle {start:.3f}", flush=True)
time.sleep(phase_s)
print(f"END idle {time.time():.3f} 0", flush=True)
"""


# --- parsing and tabulating (tested without a GPU: tests/test_verify_issue15.py) -------------------
def parse_markers(text: str) -> dict[str, tuple[float, float]]:
    """PHASE/END lines of the workload -> {phase: (start epoch, end epoch)}."""
    starts, spans = {}, {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "PHASE":
            starts[parts[1]] = float(parts[2])
        elif len(parts) >= 3 and parts[0] == "END" and parts[1] in starts:
            spans[parts[1]] = (starts[parts[1]], float(parts[2]))
    return spans


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None  # "-", "–", "N/A"


def parse_dmon(text: str, gpu: int = 0) -> tuple[list[tuple[float, dict[int, float | None]]], str]:
    """`nvidia-smi dmon ... -o DT` output -> [(epoch of the row, {metric id: value})], and how columns were
    mapped ("names" or "order" when dmon's names were not all known)."""
    header: list[str] = []
    units: list[str] = []
    rows = []
    mapping = "names"
    for line in text.splitlines():
        if line.startswith("#"):
            cells = line[1:].replace(",", " ").split()
            if not header:
                header = cells
            elif not units:
                units = cells
            continue
        if not header or not line.strip():
            continue
        cells = line.replace(",", " ").split()
        if len(cells) != len(header):
            continue
        row = dict(zip(header, cells))
        try:
            stamp = time.mktime(time.strptime(f"{row['Date']} {row['Time']}", "%Y%m%d %H:%M:%S"))
        except (KeyError, ValueError):
            continue
        if row.get("gpu") not in (str(gpu), None):
            continue
        gpm_columns = [name for name, unit in zip(header, units) if unit.upper().startswith("GPM")] if units else []
        known = all(name in DMON_NAMES for name in gpm_columns)
        if gpm_columns and not known:
            mapping = "order"
        values: dict[int, float | None] = {}
        if gpm_columns and known:
            for name in gpm_columns:
                values[DMON_NAMES[name]] = _number(row[name])
        elif gpm_columns:
            for metric_id, name in zip(DMON_IDS, gpm_columns):
                values[metric_id] = _number(row[name])
        else:
            for name, metric_id in DMON_NAMES.items():
                if name in row:
                    values[metric_id] = _number(row[name])
        rows.append((stamp, values))
    return rows, mapping


def dmon_phase_means(rows, spans: dict[str, tuple[float, float]]) -> dict[str, dict[int, float | None]]:
    """A dmon row stamped T covers about (T-1, T]; rows fully inside each trimmed phase are averaged."""
    means = {}
    for phase, (start, end) in spans.items():
        inside = [v for stamp, v in rows if stamp - 1.0 >= start + TRIM_S and stamp <= end - TRIM_S + 0.999]
        means[phase] = {m: _mean([v.get(m) for v in inside]) for m in DMON_IDS}
        means[phase]["rows"] = len(inside)
    return means


def ours_phase_means(windows: list[tuple[float, float, dict[int, float | None]]],
                     spans: dict[str, tuple[float, float]]) -> dict[str, dict[int, float | None]]:
    """windows: (start epoch, end epoch, {metric id: value}) of each distinct GPM window."""
    means = {}
    for phase, (start, end) in spans.items():
        inside = [v for w0, w1, v in windows if w0 >= start + TRIM_S - 0.05 and w1 <= end - TRIM_S + 0.05]
        means[phase] = {m: _mean([v.get(m) for v in inside]) for m in DMON_IDS}
        means[phase]["rows"] = len(inside)
    return means


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.fmean(values), 2) if values else None


def comparison_rows(ours, dmon) -> list[list]:
    """[phase, metric id, ours, dmon, difference, verdict] for every phase and metric."""
    rows = []
    for phase in PHASES:
        if phase not in ours:
            continue
        for metric in DMON_IDS:
            a, b = ours[phase].get(metric), (dmon.get(phase) or {}).get(metric)
            if a is None or b is None:
                verdict = "n/a (" + ("ours missing" if a is None else "dmon missing") + ")"
                rows.append([phase, metric, a, b, None, verdict])
                continue
            diff = round(a - b, 2)
            if metric in PERCENT_IDS:
                verdict = "ok" if abs(diff) <= GOAL_POINTS else f"OFF by {abs(diff):.1f} points"
            else:
                scale = max(abs(a), abs(b), 1.0)
                verdict = "ok" if abs(diff) / scale <= 0.10 or abs(diff) < 5 else f"OFF by {100 * abs(diff) / scale:.0f}%"
            rows.append([phase, metric, a, b, diff, verdict])
    return rows


def markdown(gpu_name: str, rows: list[list], costs: dict, notes: list[str], gpm_every_s: float = 1.0) -> str:
    from aiperf_lab.metrics.telemetry.model import GPM_FIELDS

    names = {metric_id: name for name, metric_id, _what in GPM_FIELDS}
    lines = [f"# Issue 15 on {gpu_name}", "",
             f"GPM means per phase, ours (sampler at 10 Hz, GPM windows of {gpm_every_s:g} s) against `nvidia-smi dmon "
             f"--gpm-metrics` (1 s); percentages within {GOAL_POINTS:.0f} points is the goal, MiB/s within 10%.", "",
             "| phase | metric | ours | dmon | ours - dmon | verdict |", "|---|---|---|---|---|---|"]
    for phase, metric, a, b, diff, verdict in rows:
        lines.append(f"| {phase} | {metric} {names.get(metric, '')} | {_fmt(a)} | {_fmt(b)} | {_fmt(diff)} | {verdict} |")
    lines += ["", "| cost | value |", "|---|---|"]
    lines += [f"| {k} | {_fmt(v)} |" for k, v in costs.items()]
    lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def _fmt(value) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


# --- on the GPU machine ------------------------------------------------------------------------------
def thread_cpu_s(native_id: int) -> float | None:
    try:
        import psutil
        for thread in psutil.Process().threads():
            if thread.id == native_id:
                return thread.user_time + thread.system_time
    except Exception:
        return None
    return None


def sampler_cost(seconds: float, gpm: bool, gpm_every_s: float = 1.0) -> dict:
    """CPU of the sampler at 10 Hz over `seconds` of an idle GPU, with GPM every `gpm_every_s` or without."""
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    sampler = Sampler(10, window_s=seconds + 5, source=NvmlSource.open(gpm=gpm), gpm_every_s=gpm_every_s).start()
    gpus = max(1, len(sampler.devices))
    tid = sampler._thread.native_id
    cpu0, t0, p0 = thread_cpu_s(tid), time.perf_counter(), time.process_time()
    time.sleep(seconds)
    cpu1, t1, p1 = thread_cpu_s(tid), time.perf_counter(), time.process_time()
    sampler.close()
    return {"gpus": gpus, "process_pct_per_gpu": round(100 * (p1 - p0) / (t1 - t0) / gpus, 3),
            "thread_pct_per_gpu": round(100 * (cpu1 - cpu0) / (t1 - t0) / gpus, 3) if cpu0 is not None else None,
            "errors": sampler.errors}


def gpm_read_cost(reads: int = 40, spacing_s: float = 0.05) -> dict:
    """CPU time of nvmlGpmSampleGet alone and of a whole GpmDevice.read (sample + metrics), spaced out."""
    import pynvml

    from aiperf_lab.metrics.telemetry.gpm import GpmDevice
    from aiperf_lab.metrics.telemetry.nvml import Nvml

    session = Nvml.open()
    device = GpmDevice(session, 0, time.monotonic)
    if device.reason:
        session.close()
        return {"error": device.reason}
    sample = pynvml.nvmlGpmSampleAlloc()
    get_costs, read_costs = [], []
    for _ in range(reads):
        c0 = time.thread_time()
        pynvml.nvmlGpmSampleGet(session.handles[0], sample)
        get_costs.append(time.thread_time() - c0)
        time.sleep(spacing_s)
        c0 = time.thread_time()
        device.read(0.0)
        read_costs.append(time.thread_time() - c0)
        time.sleep(spacing_s)
    pynvml.nvmlGpmSampleFree(sample)
    device.close()
    session.close()
    return {"nvmlGpmSampleGet_ms_median": round(1000 * statistics.median(get_costs), 3),
            "gpm_read_ms_median": round(1000 * statistics.median(read_costs), 3), "reads": reads}


def run_phases(out: Path, phase_s: float, gpu: int, notes: list[str]) -> dict:
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    dmon_file = (out / "dmon.txt").open("w")
    smi = shutil.which("nvidia-smi")
    dmon = None
    if smi:
        dmon = subprocess.Popen([smi, "dmon", "-i", str(gpu), "--gpm-metrics", ",".join(map(str, DMON_IDS)),
                                 "--gpm-options", "d", "-d", "1", "-o", "DT"], stdout=dmon_file,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    else:
        notes.append("nvidia-smi not found: no dmon comparison")
    writer = TelemetryWriter.to_path(out / "gpm_10hz_phases.csv")
    sampler = Sampler(10, window_s=600, recorder=writer).start()
    epoch_at_zero = time.time() - sampler.now()
    tid = sampler._thread.native_id
    cpu0, p0, t0 = thread_cpu_s(tid), time.process_time(), time.perf_counter()
    processes_seen = []

    def watch_processes(stop: threading.Event) -> None:
        while not stop.wait(1.0):
            status = sampler.slow.get(gpu)
            if status is not None:
                processes_seen.append([time.time(), [{**vars(p), "command": (p.command or "")[:80]}
                                                     for p in status.processes]])

    stop = threading.Event()
    watcher = threading.Thread(target=watch_processes, args=(stop,), daemon=True)
    watcher.start()
    child = subprocess.run([sys.executable, "-c", WORKLOAD, str(phase_s)], capture_output=True, text=True,
                           timeout=phase_s * 4 + 120, env={**os.environ, "CUDA_VISIBLE_DEVICES": str(gpu)})
    time.sleep(1.5)                      # the last dmon row and GPM window of the idle phase
    stop.set()
    cpu1, p1, t1 = thread_cpu_s(tid), time.process_time(), time.perf_counter()
    sampler.stop()
    writer.close()
    if dmon is not None:
        dmon.terminate()
        dmon.wait(5)
    dmon_file.close()
    if child.returncode != 0:
        notes.append(f"workload exited {child.returncode}: {child.stderr.strip().splitlines()[-1:] }")
    spans = parse_markers(child.stdout)
    _v, ticks = sampler.ring.snapshot()
    windows, seen = [], set()
    for tick in ticks:
        for s in tick.gpus:
            if s.index == gpu and s.gpm is not None and s.gpm.t not in seen:
                seen.add(s.gpm.t)
                g = s.gpm
                end = epoch_at_zero + g.t
                windows.append((end - g.window_s, end, {m: getattr(g, name) for name, m in _field_ids().items()}))
    info = sampler.devices[gpu] if gpu < len(sampler.devices) else None
    gpus = max(1, len(sampler.devices))
    return {"spans": spans, "windows": windows, "gpm_every_s": sampler.gpm_every_s,
            "gpm_reason": info.gpm_reason if info else "no GPU",
            "gpm_missing": info.gpm_missing if info else {}, "child_pid": None, "child_stdout": child.stdout,
            "processes_seen": processes_seen[-30:], "errors": sampler.errors,
            "cost_during_phases": {"process_pct_per_gpu": round(100 * (p1 - p0) / (t1 - t0) / gpus, 3),
                                   "thread_pct_per_gpu": round(100 * (cpu1 - cpu0) / (t1 - t0) / gpus, 3)
                                   if cpu0 is not None and cpu1 is not None else None}}


def _field_ids() -> dict[str, int]:
    from aiperf_lab.metrics.telemetry.model import GPM_FIELDS
    return {name: metric_id for name, metric_id, _what in GPM_FIELDS}


def nsys_gpu_metrics(out: Path, notes: list[str]) -> None:
    """A short capture with --gpu-metrics-devices: small kernels then matmuls; our expert rules on it."""
    nsys = shutil.which("nsys")
    if not nsys:
        notes.append("nsys not on the PATH: no GPU-metrics capture (source .nsyslibs/nsys-env.sh first)")
        return
    work = Path(tempfile.mkdtemp(prefix="aiperf-issue15-"))
    run = subprocess.run([nsys, "profile", "-t", "cuda", "-s", "none", "--cpuctxsw=none", "--gpu-metrics-devices=0",
                          "--gpu-metrics-frequency=1000", "--force-overwrite", "true", "-o", str(work / "gm"),
                          sys.executable, "-c", WORKLOAD, "2"], capture_output=True, text=True, timeout=180)
    if run.returncode != 0:
        notes.append(f"nsys profile failed ({run.returncode}): {run.stderr.strip().splitlines()[-1:]}")
        return
    export = subprocess.run([nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "-o",
                             str(work / "gm.sqlite"), str(work / "gm.nsys-rep")], capture_output=True, text=True,
                            timeout=180)
    if export.returncode != 0:
        notes.append(f"nsys export failed ({export.returncode}): {export.stderr.strip().splitlines()[-1:]}")
        return
    from aiperf_lab.metrics.nsys.db import NsysDatabase
    from aiperf_lab.metrics.nsys.expert import expert_findings
    from aiperf_lab.metrics.nsys.gpu_metrics import gpu_activity
    db = NsysDatabase(work / "gm.sqlite")
    names = db.query("SELECT DISTINCT metricName FROM TARGET_INFO_GPU_METRICS") if db.has("TARGET_INFO_GPU_METRICS") else []
    text = ["metric names: " + "; ".join(n for (n,) in names), f"activity: {gpu_activity(db)}", ""]
    text += [" | ".join(map(str, row)) for row in expert_findings(db).rows]
    (out / "gpu_metrics_expert.txt").write_text("\n".join(text) + "\n")
    size = (work / "gm.sqlite").stat().st_size
    if size <= 30 * 1024 * 1024:
        shutil.copy(work / "gm.sqlite", out / "gpu_metrics.sqlite")
    else:
        notes.append(f"gpu_metrics.sqlite is {size / 1e6:.0f} MB: not copied")


def monitor_screenshot(out: Path, notes: list[str]) -> None:
    """The Monitor replaying the recording just made, headless, as SVG (needs textual: carry .whl)."""
    try:
        import textual  # noqa: F401
    except ImportError:
        notes.append("textual not importable here: no Monitor screenshot (carry .whl, see ../shared/device/README.md)")
        return
    import asyncio

    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.context import ConsoleContext
    from aiperf_lab.metrics.telemetry.recording import read_recording
    from aiperf_lab.metrics.telemetry.replay import ReplayFeed

    feed = ReplayFeed(read_recording(out / "gpm_10hz_phases.csv"), speed=8.0).start()
    feed.finished.wait(60)

    async def shoot() -> None:
        app = LabConsole(ConsoleContext(feed, runs_dir=Path(tempfile.mkdtemp(prefix="aiperf-issue15-runs-"))))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("2")
            await pilot.pause(0.5)
            app.save_screenshot(str(out / "monitor_gpm.svg"))

    asyncio.run(shoot())
    feed.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--phase-s", type=float, default=8.0)
    parser.add_argument("--gpu", type=int, default=0)
    parser.add_argument("--agreement-only", action="store_true",
                        help="only the phases against dmon (the sampler's cost: benchmarks/sampler_cost_gpu.py)")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    gpu_name = "unknown GPU"
    try:
        gpu_name = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader",
                                   "-i", str(args.gpu)], capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as exc:
        notes.append(f"nvidia-smi: {exc}")
    result: dict = {"gpu": gpu_name}
    rows: list[list] = []
    costs: dict = {}
    gpm_every_s = 1.0

    def step(name: str, fn) -> None:
        started = time.time()
        try:
            fn()
        except Exception as exc:
            notes.append(f"{name} failed: {type(exc).__name__}: {exc}")
            result.setdefault("tracebacks", {})[name] = traceback.format_exc()
        print(f"{name}: {time.time() - started:.1f} s", flush=True)

    def phases() -> None:
        nonlocal rows, gpm_every_s
        measured = run_phases(out, args.phase_s, args.gpu, notes)
        gpm_every_s = measured["gpm_every_s"]
        dmon_rows, mapping = parse_dmon((out / "dmon.txt").read_text(errors="replace"), args.gpu)
        ours = ours_phase_means(measured["windows"], measured["spans"])
        theirs = dmon_phase_means(dmon_rows, measured["spans"])
        rows = comparison_rows(ours, theirs)
        if mapping != "names":
            notes.append("dmon's GPM column names were not all known: columns mapped by the order asked for")
        notes.append(f"GPM on this GPU: {measured['gpm_reason'] or 'read'}; fields missing: "
                     f"{measured['gpm_missing'] or 'none'}")
        notes.append(f"GPM windows per phase (ours): {[ours[p]['rows'] for p in ours]}; dmon rows per phase: "
                     f"{[theirs[p]['rows'] for p in theirs]}")
        matmul_procs = [p for stamp, procs in measured["processes_seen"] for p in procs
                        if "matmul" in measured["spans"] and
                        measured["spans"]["matmul"][0] + 1 <= stamp <= measured["spans"]["matmul"][1]]
        if matmul_procs:
            top = max(matmul_procs, key=lambda p: p.get("sm_pct") or -1)
            notes.append(f"process table during the matmul: pid {top['pid']} user {top['user']} "
                         f"name {top['name']} SM {top['sm_pct']}% mem {top['mem_pct']}% "
                         f"energy share {top['energy_share_pct']}% est {top['energy_est_j']} J")
        else:
            notes.append("process table during the matmul: no process seen")
        costs.update({f"sampler during phases, {k}": v for k, v in measured["cost_during_phases"].items()})
        result.update(ours=ours, dmon=theirs, measured={k: v for k, v in measured.items() if k != "windows"})

    step("phases", phases)
    if args.agreement_only:
        return finish(out, gpu_name, rows, costs, notes, gpm_every_s, result)
    step("sampler cost with GPM", lambda: costs.update(
        {f"sampler idle 10 s with GPM every 1 s, {k}": v
         for k, v in sampler_cost(10.0, True).items() if k != "errors"}))
    step("sampler cost with GPM every 2 s", lambda: costs.update(
        {f"sampler idle 10 s with GPM every 2 s (default), {k}": v
         for k, v in sampler_cost(10.0, True, 2.0).items() if k != "errors"}))
    step("sampler cost without GPM", lambda: costs.update(
        {f"sampler idle 10 s without GPM, {k}": v for k, v in sampler_cost(10.0, False).items() if k != "errors"}))
    step("gpm read cost", lambda: costs.update(gpm_read_cost()))
    step("monitor screenshot", lambda: monitor_screenshot(out, notes))
    step("nsys gpu metrics", lambda: nsys_gpu_metrics(out, notes))
    return finish(out, gpu_name, rows, costs, notes, gpm_every_s, result)


def finish(out: Path, gpu_name: str, rows: list[list], costs: dict, notes: list[str], gpm_every_s: float,
           result: dict) -> int:
    (out / "results.md").write_text(markdown(gpu_name, rows, costs, notes, gpm_every_s))
    result.update(rows=rows, costs=costs, notes=notes)
    (out / "verify.json").write_text(json.dumps(result, indent=1, default=str))
    print((out / "results.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
