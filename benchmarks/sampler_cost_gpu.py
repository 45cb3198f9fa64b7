"""The telemetry sampler's CPU cost on a real GPU, and where it goes (issue 15: at most 0.5% of one core
per GPU at 10 Hz, GPM included).

1. NVML per-call costs, spaced out as the sampler spaces them (each kind once per round of about
   120 ms, a few ms apart: a call made back to back with itself finds warm caches and costs less), CPU
   time of the calling thread; the tight-loop cost beside it. Alternatives are timed too: instant and
   averaged power in one field read, the energy counter as field 83 and field 191, the NVLink states
   as one field read.
2. From those, the predicted cost of each tier at the sampler's default rates.
3. The sampler itself at 10 Hz, process CPU time over wall time per GPU: GPM on and off, idle and under
   a bf16 matmul in a child process (its CPU is not ours); and the loop and host alone (no GPU reads).

    python3 benchmarks/sampler_cost_gpu.py --out DIR [--seconds 25] [--gpu 0]

Writes DIR/sampler_cost.md (the table, naming the GPU) and DIR/sampler_cost.json. Never raises on a
failed measurement: it is recorded in the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GOAL_PCT = 0.5
ROUNDS = 21
GAP_S = 0.004

LOAD = r"""
import sys, time, torch
seconds = float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
print("ready", flush=True)
start = time.time()
while time.time() - start < seconds:
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
"""


# --- arithmetic (tested without a GPU: tests/test_verify_issue15.py) ------------------------------------
def spaced_costs(calls: dict[str, Callable[[], Any]], rounds: int = ROUNDS, gap_s: float = GAP_S,
                 clock: Callable[[], float] = time.thread_time, sleep: Callable[[float], None] = time.sleep
                 ) -> dict[str, float]:
    """Median CPU microseconds of each call, the calls interleaved round after round with a gap before each."""
    seen: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            sleep(gap_s)
            start = clock()
            try:
                call()
            except Exception:  # a call that fails now and then is still a call: its cost counts
                pass
            seen[name].append((clock() - start) * 1e6)
    return {name: round(statistics.median(values), 1) for name, values in seen.items() if values}


def tier_prediction(costs_us: dict[str, float], rate_hz: float, tiers: dict[str, float]) -> list[tuple[str, float]]:
    """[(tier, predicted ms of CPU per second)] from per-read costs (`costs_us` keyed by tier read names
    below) and the sampler's periods (`tiers`: name -> seconds)."""
    per_second = {
        "every tick: instant power + utilization": (costs_us.get("tick_fields"), rate_hz),
        "status: avg power, memory, temperature, clocks, reasons": (costs_us.get("status_fields"),
                                                                    1 / tiers["status_every_s"]),
        "slow: PCIe link, processes": (costs_us.get("slow"), 1 / tiers["slow_every_s"]),
        "links: NVLink states, power limit": (costs_us.get("links"), 1 / tiers["links_every_s"]),
        "energy counter": (costs_us.get("energy_mj"), 1 / tiers["energy_every_s"]),
        "GPM read (sample + metrics)": (costs_us.get("gpm_read"), 1 / tiers["gpm_every_s"]),
        "host CPU and memory (psutil; once per sampler, not per GPU)": (costs_us.get("host"),
                                                                       1 / tiers.get("host_every_s", 1.0)),
    }
    return [(name, round(cost * per_s / 1000.0, 3)) for name, (cost, per_s) in per_second.items()
            if cost is not None]


def markdown(gpu: str, calls: dict[str, dict], prediction: list[tuple[str, float]], runs: list[dict],
             notes: list[str]) -> str:
    lines = [f"# Sampler CPU cost on {gpu}", "",
             f"Sampler at 10 Hz, default tiers; process CPU time over wall time, per GPU (goal: at most "
             f"{GOAL_PCT}% of one core, GPM included).", "",
             "| run | seconds | ticks | % of one core per GPU | verdict |", "|---|---|---|---|---|"]
    for run in runs:
        pct = run.get("pct_per_gpu")
        verdict = "n/a" if pct is None else ("within" if pct <= GOAL_PCT else "OVER")
        if run.get("error"):
            verdict = f"failed: {run['error']}"
            pct = None
        lines.append(f"| {run['name']} | {run.get('seconds', 'n/a')} | {run.get('ticks', 'n/a')} | "
                     f"{'n/a' if pct is None else f'{pct:.3f}'} | {verdict} |")
    lines += ["", "Predicted from the spaced per-call costs below (ms of CPU per second per GPU; 1 ms/s is 0.1% "
              "of a core; the loop's own wake-ups and bookkeeping come on top):", "",
              "| tier | ms/s |", "|---|---|"]
    lines += [f"| {name} | {ms:.3f} |" for name, ms in prediction]
    if prediction:
        lines.append(f"| all reads | {sum(ms for _n, ms in prediction):.3f} |")
    lines += ["", "NVML reads, CPU microseconds per call: spaced (median of "
              f"{ROUNDS}, each kind once per round) and back to back (mean of 100):", "",
              "| read | spaced us | tight-loop us | value |", "|---|---|---|---|"]
    for name, c in calls.items():
        lines.append(f"| {name} | {c.get('spaced_us', 'n/a')} | {c.get('tight_us', 'n/a')} | {c.get('value', '')} |")
    lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


# --- on the GPU machine ----------------------------------------------------------------------------------
# NVML value types (nvmlValueType_t) -> the member of nvmlValue_t that holds the value
VALUE_MEMBERS = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}


def _describe(value: Any) -> str:
    """A read's value, short, for the table (field reads: each field's value or its NVML return code)."""
    if isinstance(value, (list, tuple)) and value and hasattr(value[0], "nvmlReturn"):
        out = []
        for v in value:
            member = VALUE_MEMBERS.get(getattr(v, "valueType", 1), "uiVal")
            out.append(f"ret {v.nvmlReturn}" if v.nvmlReturn != 0 else str(getattr(v.value, member, "?")))
        return " ".join(out)[:80]
    if isinstance(value, tuple):
        return str(tuple(value))[:80]
    return str(value)[:80]


def nvml_calls(gpu: int, notes: list[str]) -> tuple[dict[str, dict], dict[str, float]]:
    """Per-call costs of every read the sampler makes, the alternatives, and the sampler's tier reads."""
    import pynvml

    from aiperf_lab.metrics.telemetry.gpm import GpmDevice
    from aiperf_lab.metrics.telemetry.model import GPM_FIELDS
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource, ProcessInfo

    from aiperf_lab.metrics.telemetry.host import HostSource

    host = HostSource()
    source = NvmlSource.open(gpm=False)
    if not source.available:
        notes.append(f"no NVML: {source.status}")
        return {}, {}
    h = source.handles[gpu]
    links = 0
    for link in range(18):
        try:
            pynvml.nvmlDeviceGetNvLinkState(h, link)
            links += 1
        except Exception:
            break
    raw: dict[str, Callable[[], Any]] = {
        "field 186 instant power": lambda: pynvml.nvmlDeviceGetFieldValues(h, [(186, 0)]),
        "field 186 + 185 (instant + average power)": lambda: pynvml.nvmlDeviceGetFieldValues(h, [(186, 0), (185, 0)]),
        "nvmlDeviceGetPowerUsage": lambda: pynvml.nvmlDeviceGetPowerUsage(h),
        "nvmlDeviceGetUtilizationRates": lambda: (lambda u: (u.gpu, u.memory))(pynvml.nvmlDeviceGetUtilizationRates(h)),
        "nvmlDeviceGetMemoryInfo": lambda: pynvml.nvmlDeviceGetMemoryInfo(h).used,
        "nvmlDeviceGetTemperature": lambda: pynvml.nvmlDeviceGetTemperature(h, 0),
        "nvmlDeviceGetClockInfo SM": lambda: pynvml.nvmlDeviceGetClockInfo(h, 1),
        "nvmlDeviceGetClockInfo memory": lambda: pynvml.nvmlDeviceGetClockInfo(h, 2),
        "nvmlDeviceGetCurrentClocksEventReasons": lambda: pynvml.nvmlDeviceGetCurrentClocksEventReasons(h),
        "nvmlDeviceGetCurrPcieLinkGeneration": lambda: pynvml.nvmlDeviceGetCurrPcieLinkGeneration(h),
        "nvmlDeviceGetEnforcedPowerLimit": lambda: pynvml.nvmlDeviceGetEnforcedPowerLimit(h),
        "nvmlDeviceGetComputeRunningProcesses": lambda: len(pynvml.nvmlDeviceGetComputeRunningProcesses(h)),
        "nvmlDeviceGetProcessUtilization": lambda: _attempt(lambda: len(pynvml.nvmlDeviceGetProcessUtilization(h, 0))),
        f"nvmlDeviceGetNvLinkState x{links} links": lambda: [pynvml.nvmlDeviceGetNvLinkState(h, k) for k in range(links)],
        f"field 165 NVLink state, {links} links in one read": lambda: pynvml.nvmlDeviceGetFieldValues(
            h, [(165, k) for k in range(links)]) if links else None,
        "nvmlDeviceGetTotalEnergyConsumption": lambda: pynvml.nvmlDeviceGetTotalEnergyConsumption(h),
        "field 83 total energy": lambda: pynvml.nvmlDeviceGetFieldValues(h, [(83, 0)]),
        "field 191 energy": lambda: pynvml.nvmlDeviceGetFieldValues(h, [(191, 0)]),
    }
    tiers: dict[str, Callable[[], Any]] = {
        "tick_fields": lambda: source.tick_fields(gpu),
        "status_fields": lambda: source.status_fields(gpu),
        "slow": lambda: source.slow(gpu, lambda pid: ProcessInfo(), links=False),
        "links": lambda: (source.power_limit_w(gpu), source._nvlink_states(gpu)),
        "energy_mj": lambda: source.energy_mj(gpu),
        "host": lambda: host.sample(0.0),
    }
    device = GpmDevice(source.session, gpu, time.monotonic)
    if device.reason:
        notes.append(f"GPM: {device.reason}")
    else:
        tiers["gpm_read"] = lambda: device.read(0.0)
        pair = GpmPair(pynvml, h)
        every, alone = pair.request([m for _n, m, _w in GPM_FIELDS]), pair.request([2])
        no_nvlink = pair.request([m for _n, m, _w in GPM_FIELDS if m not in (60, 61)])
        raw["nvmlGpmSampleGet"] = pair.sample
        raw[f"nvmlGpmMetricsGet, {len(GPM_FIELDS)} metrics"] = lambda: pair.metrics(every)
        raw["nvmlGpmMetricsGet, SM activity alone"] = lambda: pair.metrics(alone)
        raw["nvmlGpmMetricsGet, without the 2 NVLink metrics"] = lambda: pair.metrics(no_nvlink)
        for name, metric, _w in GPM_FIELDS:     # which metric makes a read cost milliseconds
            one = pair.request([metric])
            raw[f"nvmlGpmMetricsGet, {metric} {name} alone"] = lambda one=one: pair.metrics(one)
    calls: dict[str, dict] = {}
    for name, call in {**raw, **{f"tier: {k}": v for k, v in tiers.items()}}.items():
        try:
            calls[name] = {"value": _describe(call())}
        except Exception as exc:
            calls[name] = {"value": f"failed: {type(exc).__name__}: {exc}"[:80]}
    working = {name: call for name, call in {**raw, **{f"tier: {k}": v for k, v in tiers.items()}}.items()
               if not calls[name]["value"].startswith("failed")}
    for name, us in spaced_costs(working).items():
        calls[name]["spaced_us"] = us
    for name, call in working.items():
        n = 10 if any(slow in name for slow in ("nergy", "NvLink", "tier", "Gpm", "Process")) else 100
        start = time.thread_time()
        for _ in range(n):
            call()
        calls[name]["tight_us"] = round((time.thread_time() - start) / n * 1e6, 1)
    device.close()
    if "nvmlGpmSampleGet" in raw:
        pair.close()
    source.close()
    tier_costs = {k: calls[f"tier: {k}"].get("spaced_us") for k in tiers if f"tier: {k}" in calls}
    return calls, {k: v for k, v in tier_costs.items() if v is not None}


def _attempt(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:  # NOT_FOUND when no process ran in the window: still a call, still timed
        return f"raised {type(exc).__name__}"


class GpmPair:
    """Two GPM sample buffers of our own, for timing nvmlGpmSampleGet and nvmlGpmMetricsGet apart: each
    sample() fills the older buffer; metrics() computes from the older to the newer."""

    def __init__(self, pynvml: Any, handle: Any):
        self.nvml, self.handle = pynvml, handle
        self.buffers = [pynvml.nvmlGpmSampleAlloc(), pynvml.nvmlGpmSampleAlloc()]
        self.turn = 0
        self.sample()
        time.sleep(0.05)
        self.sample()

    def sample(self) -> None:
        self.nvml.nvmlGpmSampleGet(self.handle, self.buffers[self.turn])
        self.turn = 1 - self.turn

    def request(self, metric_ids: list[int]) -> Any:
        request = self.nvml.c_nvmlGpmMetricsGet_t()
        request.version, request.numMetrics = getattr(self.nvml, "NVML_GPM_METRICS_GET_VERSION", 1), len(metric_ids)
        for slot, metric_id in enumerate(metric_ids):
            request.metrics[slot].metricId = metric_id
        return request

    def metrics(self, request: Any) -> str:
        request.sample1, request.sample2 = self.buffers[self.turn], self.buffers[1 - self.turn]
        self.nvml.nvmlGpmMetricsGet(request)
        return " ".join(f"{request.metrics[k].value:.1f}" if request.metrics[k].nvmlReturn == 0 else "-"
                        for k in range(request.numMetrics))

    def close(self) -> None:
        for buffer in self.buffers:
            self.nvml.nvmlGpmSampleFree(buffer)


def sampler_run(name: str, seconds: float, gpm: bool, gpus: bool = True, **periods: float) -> dict:
    from aiperf_lab.metrics.telemetry.nvml import Nvml
    from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
    from aiperf_lab.metrics.telemetry.sampler import Sampler

    source = NvmlSource.open(gpm=gpm) if gpus else NvmlSource(Nvml(None, [], "GPUs left out"))
    sampler = Sampler(10, window_s=seconds + 10, source=source, **periods)
    count = max(1, len(sampler.devices))
    sampler.start()
    time.sleep(1.0)                       # past the first reads (GPM probe, process names)
    p0, w0 = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    p1, w1 = time.process_time(), time.perf_counter()
    sampler.stop()
    _v, ticks = sampler.ring.snapshot()
    tiers = {t["fields"][0]: t["every_s"] for t in sampler.tiers()}
    sampler.close()
    result = {"name": name, "seconds": round(w1 - w0, 1), "ticks": len(ticks), "gpus": count,
              "pct_per_gpu": round(100 * (p1 - p0) / (w1 - w0) / count, 3), "errors": sampler.errors,
              "tiers": tiers}
    if gpus and not sampler.devices:     # a sampler reading no GPU is cheap and proves nothing
        result["error"] = f"no GPU read ({sampler.status})"
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=25.0)
    parser.add_argument("--gpu", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    gpu = "unknown GPU"
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader", "-i",
                              str(args.gpu)], capture_output=True, text=True, timeout=30).stdout.strip() or gpu
    except Exception as exc:
        notes.append(f"nvidia-smi: {exc}")
    result: dict[str, Any] = {"gpu": gpu}
    calls: dict[str, dict] = {}
    tier_costs: dict[str, float] = {}
    runs: list[dict] = []

    def step(name: str, fn: Callable[[], Any]) -> Any:
        started = time.time()
        try:
            return fn()
        except Exception as exc:
            notes.append(f"{name} failed: {type(exc).__name__}: {exc}")
            result.setdefault("tracebacks", {})[name] = traceback.format_exc()
            return None
        finally:
            print(f"{name}: {time.time() - started:.1f} s", flush=True)

    found = step("NVML call costs", lambda: nvml_calls(args.gpu, notes))
    if found:
        calls, tier_costs = found

    def run(name: str, gpm: bool, gpus: bool = True, seconds: float = args.seconds, **periods: float) -> None:
        measured = step(name, lambda: sampler_run(name, seconds, gpm, gpus, **periods))
        runs.append(measured or {"name": name, "error": "see notes"})

    run("idle, GPM on", True)
    run("idle, GPM off", False)
    # The slower choices, measured beside the defaults: what GPM every 4 s and the counter every 10 s buy.
    run("idle, GPM on every 4 s, counter every 10 s", True, gpm_every_s=4.0, energy_every_s=10.0)
    load = None
    load_ok = False
    try:
        load = subprocess.Popen([sys.executable, "-c", LOAD, str(2 * args.seconds + 12)], stdout=subprocess.PIPE,
                                text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": str(args.gpu)})
        ready = load.stdout.readline().strip()
        load_ok = ready == "ready"
        if not load_ok:
            notes.append(f"matmul load did not start ({ready!r})")
    except Exception as exc:
        notes.append(f"matmul load failed: {exc}")
    run("bf16 matmul, GPM on", True)
    run("bf16 matmul, GPM off", False)
    if load is not None:
        finished_early = load.poll() is not None
        load.terminate()
        load.wait(30)
        if load_ok and finished_early:
            notes.append("the matmul load ended before its two runs did: they were partly idle")
    if not load_ok:
        for r in runs[-2:]:
            r.setdefault("error", "no matmul load ran")
    run("the loop and host alone (no GPU reads)", False, gpus=False, seconds=min(10.0, args.seconds))
    tiers = next((r["tiers"] for r in runs if r.get("tiers")), {})
    periods = {"status_every_s": tiers.get("power_avg_w", 1.0), "slow_every_s": tiers.get("pcie_gen", 2.0),
               "links_every_s": tiers.get("power_limit_w", 10.0), "gpm_every_s": tiers.get("gpm_*", 2.0),
               "energy_every_s": next((v for k, v in tiers.items() if k.startswith("energy")), 5.0),
               "host_every_s": tiers.get("cpu_pct", 1.0)}
    prediction = tier_prediction(tier_costs, 10.0, periods)
    measured = {r["name"]: r.get("pct_per_gpu") for r in runs}
    alone, idle = measured.get("the loop and host alone (no GPU reads)"), measured.get("idle, GPM on")
    if prediction and alone is not None and idle is not None:
        gpu_reads = sum(m for n, m in prediction if not n.startswith("host")) / 10
        notes.append(f"idle with GPM, measured {idle:.3f}% = loop and host {alone:.3f}% + GPU reads "
                     f"{idle - alone:.3f}%; the spaced per-call costs predict {gpu_reads:.3f}% for the GPU reads")
    for r in runs:
        if r.get("errors"):
            notes.append(f"{r['name']}: sampler errors {r['errors'][:3]}")
    notes.append(f"tier periods (s): {periods}")
    text = markdown(gpu, calls, prediction, runs, notes)
    (args.out / "sampler_cost.md").write_text(text)
    result.update(calls=calls, tier_costs_us=tier_costs, prediction=prediction, runs=runs, notes=notes)
    (args.out / "sampler_cost.json").write_text(json.dumps(result, indent=1, default=str))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
