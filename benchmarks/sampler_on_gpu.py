"""The telemetry sampler against a real GPU: its CPU cost, its timing, and its energy, measured.

Goals (issue: live GPU telemetry):
  - CPU time of the sampler at 10 Hz: at most 0.5% of one core per GPU (interpreter start excluded);
    for scale, nvidia-smi's own 100 ms query loop is measured in the same run;
  - sample intervals at 10 Hz: p99 within 5 ms of the period;
  - energy from the counter and the integral of instant power on a matmul load: within 1%;
  - real readings: power under a PyTorch load well above idle, and span energy equal to the counter.
The load runs in a child process, so the CPU time measured is the sampler's alone.

    python benchmarks/sampler_on_gpu.py [--seconds 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.metrics.telemetry.sampler import Sampler  # noqa: E402

LOAD = r"""
import sys, time, torch
seconds = float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
print("ready", flush=True)
start = time.time(); n = 0
while time.time() - start < seconds:
    for _ in range(10):
        a @ b
    torch.cuda.synchronize(); n += 10
elapsed = time.time() - start
print(f"tflops {2 * 8192**3 * n / elapsed / 1e12:.1f}", flush=True)
"""


def cpu_cost(rate_hz: float, seconds: float, energy_every_s: float = 1.0, gpus: bool = True) -> dict:
    """CPU of the sampler thread over `seconds`; gpus=False measures the loop and host alone."""
    from aiperf_lab.metrics.telemetry.nvml import Nvml
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource

    source = None if gpus else NvmlSource(Nvml(None, [], "GPUs left out for this measurement"))
    sampler = Sampler(rate_hz, window_s=seconds + 5, energy_every_s=energy_every_s, source=source)
    gpus = max(1, len(sampler.devices)) if gpus else 1
    sampler.start()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    sampler.stop()
    _v, ticks = sampler.ring.snapshot()
    times = [t.t for t in ticks]
    gaps = [b - a for a, b in zip(times, times[1:])]
    deviation_ms = sorted(abs(g - 1 / rate_hz) * 1000 for g in gaps)
    sampler.close()
    return {
        "rate_hz": rate_hz, "gpus": gpus, "energy_every_s": energy_every_s, "seconds": round(wall1 - wall0, 3),
        "cpu_s": round(cpu1 - cpu0, 4),
        "pct_of_core_per_gpu": round(100 * (cpu1 - cpu0) / (wall1 - wall0) / gpus, 3),
        "ticks": len(ticks),
        "interval_ms_p50": round(statistics.median(gaps) * 1000, 3) if gaps else None,
        "interval_dev_ms_p99": round(deviation_ms[int(0.99 * (len(deviation_ms) - 1))], 3) if gaps else None,
        "interval_dev_ms_max": round(deviation_ms[-1], 3) if gaps else None,
        "errors": sampler.errors,
    }


def nvidia_smi_cost(seconds: float) -> dict | None:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    before = os.times()
    proc = subprocess.Popen([smi, "--query-gpu=timestamp,power.draw,utilization.gpu,memory.used,temperature.gpu,"
                             "clocks.sm", "--format=csv", "-lms", "100"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    proc.terminate()
    proc.wait()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"seconds": seconds, "cpu_s": round(cpu, 4), "pct_of_core": round(100 * cpu / seconds, 3)}


def nvml_call_costs(calls: int = 200) -> dict:
    """Wall and CPU time of each NVML read the sampler makes, per call, on GPU 0."""
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource, ProcessInfo

    source = NvmlSource.open()
    if not source.available:
        return {"skipped": source.status}
    reads = {
        "every tick (instant power field, utilization)": lambda: source.tick_fields(0),
        "status tier (average power, memory, temp, clocks, reasons)": lambda: source.status_fields(0),
        "energy counter": lambda: source.energy_mj(0),
        "energy counter as a field value": lambda: source.nvml.nvmlDeviceGetFieldValues(source.handles[0], [83]),
        "slow fields (pcie, nvlink, processes, limit)": lambda: source.slow(0, lambda pid: ProcessInfo()),
    }
    costs = {}
    for name, read in reads.items():
        n = calls if "slow" not in name else calls // 10
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(n):
            read()
        costs[name] = {"wall_us": round((time.perf_counter() - wall0) / n * 1e6, 1),
                       "cpu_us": round((time.process_time() - cpu0) / n * 1e6, 1)}
    field = source.nvml.nvmlDeviceGetFieldValues(source.handles[0], [83])[0]
    costs["energy field vs function (mJ)"] = {"field": field.value.ullVal, "field_return": field.nvmlReturn,
                                              "function": source.energy_mj(0)}
    source.close()
    return costs


def energy_under_load(seconds: float) -> dict:
    sampler = Sampler(10, window_s=seconds + 30)
    if not sampler.devices:
        return {"skipped": sampler.status}
    sampler.start()
    time.sleep(3)
    with sampler.measure() as idle:
        time.sleep(3)
    idle_result = idle.result()
    load = subprocess.Popen([sys.executable, "-c", LOAD, str(seconds)], stdout=subprocess.PIPE, text=True)
    ready = load.stdout.readline().strip()
    integrated0 = sampler._energy[0].integrated_j()
    with sampler.measure() as busy:
        out = load.stdout.read()
        load.wait()
    integrated1 = sampler._energy[0].integrated_j()
    busy_result = busy.result(work=None)
    sampler.close()
    gpu = busy_result.per_gpu[0]
    integrated = integrated1 - integrated0
    return {
        "load_ready": ready, "load_output": out.strip(),
        "idle_avg_power_w": round(idle_result.per_gpu[0].avg_power_w, 1),
        "load_avg_power_w": round(gpu.avg_power_w, 1), "load_peak_power_w": round(gpu.peak_power_w, 1),
        "load_seconds": round(gpu.duration_s, 3), "counter_energy_j": round(gpu.joules, 2),
        "energy_source": gpu.source, "integrated_instant_j": round(integrated, 2),
        "counter_vs_integrated_pct": round(100 * (integrated - gpu.joules) / gpu.joules, 3),
        "power_source": sampler.devices[0].instant_power and "instant" or "average",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    result = {
        "nvml_call_costs": nvml_call_costs(),
        "cpu_10hz": cpu_cost(10, args.seconds),
        "cpu_100hz": cpu_cost(100, args.seconds),
        "cpu_10hz_counter_every_5s": cpu_cost(10, args.seconds, energy_every_s=5.0),
        "cpu_10hz_no_counter_after_start": cpu_cost(10, args.seconds, energy_every_s=1e9),
        "cpu_10hz_loop_and_host_only": cpu_cost(10, args.seconds, gpus=False),
        "nvidia_smi_100ms": nvidia_smi_cost(args.seconds),
        "energy": energy_under_load(args.seconds),
    }
    print(json.dumps(result, indent=2))
    c10, c100, e = result["cpu_10hz"], result["cpu_100hz"], result["energy"]
    print("\n| measure | value | goal |\n|---|---|---|")
    print(f"| sampler CPU at 10 Hz, % of a core per GPU | {c10['pct_of_core_per_gpu']} | <= 0.5 |")
    print(f"| sampler CPU at 100 Hz, % of a core per GPU | {c100['pct_of_core_per_gpu']} | |")
    for key, label in (("cpu_10hz_counter_every_5s", "10 Hz, energy counter every 5 s"),
                       ("cpu_10hz_no_counter_after_start", "10 Hz, energy counter at start only"),
                       ("cpu_10hz_loop_and_host_only", "10 Hz loop and host, no GPU reads")):
        print(f"| {label}, % of a core | {result[key]['pct_of_core_per_gpu']} | |")
    if result["nvidia_smi_100ms"]:
        print(f"| nvidia-smi -lms 100, % of a core | {result['nvidia_smi_100ms']['pct_of_core']} | (reference) |")
    for name, cost in result["nvml_call_costs"].items():
        if isinstance(cost, dict) and "wall_us" in cost:
            print(f"| {name}: wall / CPU per read (us) | {cost['wall_us']} / {cost['cpu_us']} | |")
    print(f"| 10 Hz interval deviation p99 (ms) | {c10['interval_dev_ms_p99']} | <= 5 |")
    print(f"| 100 Hz interval deviation p99 (ms) | {c100['interval_dev_ms_p99']} | |")
    if "counter_energy_j" in e:
        print(f"| idle / load average power (W) | {e['idle_avg_power_w']} / {e['load_avg_power_w']} | load >> idle |")
        print(f"| counter vs integrated instant power (%) | {e['counter_vs_integrated_pct']} | within 1 |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
