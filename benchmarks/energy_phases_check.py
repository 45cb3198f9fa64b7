"""Energy attribution against NVML's energy counter on a real GPU (issue 16).

Three steps, each its own process (the integrator's script benchmarks/verify_issue16.sh runs them):

    python benchmarks/energy_phases_check.py record --out telemetry.csv --hz 50 --seconds 60
        the sampler recording telemetry.csv (with utc_ns) until SIGINT/SIGTERM or the time is up; at the
        end it prints how far its monotonic clock drifted from the system clock over the recording
    python benchmarks/energy_phases_check.py workload --out boundaries.json [--phase-s 4]
        phases matmul, copy, sleep, each in its own NVTX range, several seconds each; at each boundary
        (after a synchronize) the NVML energy counter and the system clock are read
    python benchmarks/energy_phases_check.py compare EXPORT.sqlite telemetry.csv boundaries.json
        energy_by_range against the counter's deltas (goal: each range within 3%, the sum within 1%),
        and the clock residual: each NVTX push in the export (session start + timestamp) against the
        system clock the workload read right before it

Prints markdown table rows; exits 0 whatever the figures (they are recorded, not asserted).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PHASES = ["matmul", "copy", "sleep"]


def record(args) -> int:
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    writer = TelemetryWriter.to_path(Path(args.out))
    sampler = Sampler(args.hz, window_s=args.seconds + 60, recorder=writer).start()
    print(f"recording at {args.hz} Hz on {len(sampler.devices)} GPU(s)", flush=True)
    stop.wait(args.seconds)
    sampler.stop()
    drift_ns = time.time_ns() - (sampler.utc_origin_ns + round(sampler.now() * 1e9))
    writer.close()
    sampler.source.close()
    print(f"telemetry clock drift against the system clock over {sampler.now():.1f} s: {drift_ns / 1e6:+.3f} ms",
          flush=True)
    Path(args.out).with_suffix(".drift").write_text(f"{drift_ns} {sampler.now():.3f}\n")
    return 0


def workload(args) -> int:
    import pynvml
    import torch

    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(int(args.gpu))
    device = torch.device("cuda", 0)
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    src = torch.empty(1 << 31, dtype=torch.uint8, device=device)   # 2 GiB device-to-device copies
    dst = torch.empty_like(src)
    for _ in range(3):
        a @ b
        dst.copy_(src)
    torch.cuda.synchronize()
    time.sleep(1.0)   # a quiet second before the first phase
    marks = []

    def mark(name: str) -> None:
        torch.cuda.synchronize()
        marks.append({"at": name, "utc_ns": time.time_ns(),
                      "energy_mj": pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)})

    for phase in PHASES:
        mark(f"{phase} start")
        push_utc = time.time_ns()
        torch.cuda.nvtx.range_push(phase)
        end = time.perf_counter() + args.phase_s
        while time.perf_counter() < end:
            if phase == "matmul":
                for _ in range(5):
                    a @ b
                torch.cuda.synchronize()
            elif phase == "copy":
                for _ in range(4):
                    dst.copy_(src)
                torch.cuda.synchronize()
            else:
                time.sleep(0.05)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        marks[-1]["push_utc_ns"] = push_utc
        mark(f"{phase} end")
    time.sleep(1.0)
    Path(args.out).write_text(json.dumps({"phases": PHASES, "marks": marks}, indent=1))
    print("phases done:", ", ".join(f"{m['at']}" for m in marks), flush=True)
    return 0


def compare(args) -> int:
    import sqlite3

    from aiperf_lab.metrics.energy.attribution import TOTAL
    from aiperf_lab.metrics.sources import ReportOptions, open_profile

    marks = json.loads(Path(args.boundaries).read_text())["marks"]
    by_name = {m["at"]: m for m in marks}
    options = ReportOptions(telemetry=Path(args.telemetry))
    profile = open_profile(args.export)
    table = profile.report("energy_by_range", options)[0]
    rows = {r[0]: dict(zip(table.columns, r)) for r in table.rows}
    print("| range | counter delta (J) | energy_by_range (J) | difference | goal |")
    print("|---|---|---|---|---|")
    ranged = counted = 0.0
    for phase in PHASES:
        counter_j = (by_name[f"{phase} end"]["energy_mj"] - by_name[f"{phase} start"]["energy_mj"]) / 1000
        got = rows.get(f":{phase}", {}).get("Energy (J)")
        if got is None:
            print(f"| {phase} | {counter_j:.1f} | missing | - | within 3%: FAIL |")
            continue
        diff = 100 * (got - counter_j) / counter_j
        ranged, counted = ranged + got, counted + counter_j
        print(f"| {phase} | {counter_j:.1f} | {got:.1f} | {diff:+.2f}% | within 3%: {'ok' if abs(diff) <= 3 else 'FAIL'} |")
    first, last = by_name[f"{PHASES[0]} start"], by_name[f"{PHASES[-1]} end"]
    whole = (last["energy_mj"] - first["energy_mj"]) / 1000
    diff = 100 * (ranged - whole) / whole if whole else float("nan")
    print(f"| sum of the three | {whole:.1f} | {ranged:.1f} | {diff:+.2f}% | within 1%: {'ok' if abs(diff) <= 1 else 'FAIL'} |")
    span = rows.get(TOTAL, {})
    counter_note = next((n for n in table.notes if "energy counter gives" in n), "no counter note")
    print(f"\ncaptured span: {span.get('Time (s)')} s, {span.get('Energy (J)')} J; {counter_note}")
    for note in table.notes:
        if note.startswith(("clocks:", "check from the data")):
            print(f"- {note}")

    con = sqlite3.connect(f"file:{args.export}?mode=ro", uri=True)
    epoch = con.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
    starts = {text: start for text, start in con.execute(
        "SELECT coalesce(n.text, s.value), n.start FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS s ON s.id = n.textId "
        "WHERE n.eventType IN (59, 60)")}
    residuals = []
    for phase in PHASES:
        push = by_name[f"{phase} start"].get("push_utc_ns")
        if push is not None and phase in starts:
            residuals.append((epoch + starts[phase] - push) / 1e6)
    if residuals:
        print(f"\nclock residual, nsys timeline (utcEpochNs + NVTX start) minus the system clock read just before "
              f"each push: {', '.join(f'{r:+.3f} ms' for r in residuals)}")
    drift = Path(args.telemetry).with_suffix(".drift")
    if drift.is_file():
        ns, seconds = drift.read_text().split()
        print(f"telemetry clock (utc_ns origin + monotonic) minus the system clock at its end, after {seconds} s: "
              f"{int(ns) / 1e6:+.3f} ms")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", required=True)
    r.add_argument("--hz", type=float, default=50)
    r.add_argument("--seconds", type=float, default=120)
    w = sub.add_parser("workload")
    w.add_argument("--out", required=True)
    w.add_argument("--phase-s", type=float, default=4.0)
    w.add_argument("--gpu", default="0", help="NVML index of the GPU the workload uses")
    c = sub.add_parser("compare")
    c.add_argument("export")
    c.add_argument("telemetry")
    c.add_argument("boundaries")
    args = parser.parse_args()
    return {"record": record, "workload": workload, "compare": compare}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
