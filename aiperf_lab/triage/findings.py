"""Rules over what a bundle collected; each finding carries the evidence it stands on."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from aiperf_lab.triage.topology import cpu_list

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass
class Finding:
    id: str
    severity: str        # error, warning, info
    title: str
    detail: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _version_tuple(text: str | None) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in str(text).split(".")[:2])
    except (TypeError, ValueError):
        return None


def evaluate(facts: dict[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    nvml = facts.get("nvml") or {}
    gpus = nvml.get("gpus") or []
    telemetry = {row["device"]: row for row in facts.get("telemetry") or []}
    during = {row["device"]: row for row in facts.get("telemetry_workload") or []}
    pcie_seen = facts.get("pcie_seen") or {}

    for g in gpus:
        i = g.get("index")
        name = f"GPU {i} ({g.get('name')})"
        seen = pcie_seen.get(i, {})
        gen = max(filter(None, [seen.get("gen"), g.get("pcie_gen_current")]), default=None)
        width = max(filter(None, [seen.get("width"), g.get("pcie_width_current")]), default=None)
        gen_max, width_max = g.get("pcie_gen_max"), g.get("pcie_width_max")
        if gen and width and gen_max and width_max and (gen < gen_max or width < width_max):
            busy = (telemetry.get(i) or {}).get("util_gpu_avg_pct") or 0
            found.append(Finding(
                "pcie_below_max", "warning" if busy >= 20 else "info", f"{name}: PCIe link below its maximum",
                f"The link ran at gen {gen} x{width} at best, against gen {gen_max} x{width_max}. "
                + ("Links drop to a lower generation when idle, and the GPU was mostly idle here: rerun under "
                   "load to confirm." if busy < 20 else "This was with the GPU busy: check the slot, riser and "
                   "BIOS settings; host-device copies run slower."),
                {"gen_seen": gen, "width_seen": width, "gen_max": gen_max, "width_max": width_max,
                 "util_gpu_avg_pct": busy}))
        if g.get("persistence_mode") is False:
            found.append(Finding("persistence_off", "info", f"{name}: persistence mode is off",
                                 "Without persistence the driver may tear down the GPU state between jobs, so each "
                                 "job's first CUDA call pays the initialisation again (an admin sets it with "
                                 "nvidia-smi -pm 1 or nvidia-persistenced).", {"persistence_mode": False}))
        uncorrected = sum(v or 0 for k, v in g.items() if k.startswith("ecc_errors_uncorrected"))
        corrected = sum(v or 0 for k, v in g.items() if k.startswith("ecc_errors_corrected"))
        remapped = g.get("remapped_rows") or {}
        if uncorrected or remapped.get("pending") or remapped.get("failure") or g.get("retired_pages_pending"):
            found.append(Finding("ecc_uncorrected", "error", f"{name}: uncorrectable memory errors or pending repairs",
                                 "Uncorrectable ECC errors, pending row remapping or page retirement: results may be "
                                 "wrong and the GPU needs a reset or service.",
                                 {"uncorrected": uncorrected, "remapped_rows": remapped,
                                  "retired_pages_pending": g.get("retired_pages_pending")}))
        elif corrected:
            found.append(Finding("ecc_corrected", "warning", f"{name}: corrected ECC errors",
                                 f"{corrected} corrected errors: harmless alone, a sign of failing memory if they grow.",
                                 {"corrected": corrected}))
        if g.get("mig_mode_current"):
            found.append(Finding("mig_on", "info", f"{name}: MIG is on",
                                 "The GPU is split into MIG instances: a job sees only its slice's SMs and memory.",
                                 {"mig_mode": True}))

    xids = facts.get("xid") or []
    if xids:
        found.append(Finding("xid_errors", "error", "NVIDIA Xid errors in the kernel log",
                             f"{len(xids)} Xid events (codes {', '.join(map(str, sorted(set(xids))))}): the driver "
                             "reported GPU faults (79 = fallen off the bus, 48/63/64/94/95 = memory errors, "
                             "13/31/43 = application faults).", {"xid_codes": sorted(set(xids)), "count": len(xids)}))

    for i, row in telemetry.items():
        for column, label, severity, floor in (
                ("clock_event_power_cap_pct", "power-capped", "warning", 5.0),
                ("clock_event_thermal_sw_pct", "thermally slowed (software)", "warning", 1.0),
                ("clock_event_thermal_hw_pct", "thermally slowed (hardware)", "error", 0.1),
                ("clock_event_hw_slowdown_pct", "slowed by hardware (power brake or overheat)", "error", 0.1),
                ("clock_event_power_brake_pct", "held by the power brake", "error", 0.1)):
            share = row.get(column) or 0.0
            if share >= floor:
                found.append(Finding(f"clocks_{column.split('clock_event_')[1][:-4]}", severity,
                                     f"GPU {i}: {label} {share:.0f}% of the time",
                                     f"Clocks were held back ({label}) for {share:.1f}% of the sampled time; average "
                                     f"power {row.get('avg_power_w')} W, peak {row.get('peak_power_w')} W.",
                                     {column: share, "avg_power_w": row.get("avg_power_w"),
                                      "peak_power_w": row.get("peak_power_w"), "temp_max_c": row.get("temp_max_c")}))

    workload = facts.get("workload") or {}
    by_index = {g.get("index"): g for g in gpus}
    for i, row in during.items():
        util = row.get("util_gpu_avg_pct")
        evidence = {"util_gpu_avg_pct": util, "busy_span_s": row.get("duration_s"), "workload_s": row.get("workload_s")}
        if row.get("never_busy"):
            found.append(Finding("gpu_never_used", "warning", f"GPU {i}: the workload never used it",
                                 f"Utilization stayed under 5% for all {row.get('workload_s')} s the workload ran: it "
                                 "failed early, ran on another GPU or the CPU, or spent the time starting up.", evidence))
        elif util is not None and util < 50:
            found.append(Finding("gpu_idle_during_workload", "warning", f"GPU {i}: mostly idle while the workload ran",
                                 f"Average utilization {util:.0f}% over the {row.get('duration_s')} s from the first to "
                                 f"the last busy moment (of {row.get('workload_s')} s the workload ran): the GPU waited "
                                 "on the CPU, data loading or communication (see the nsys tables for gaps).", evidence))
    for i, stats in (facts.get("busy_clocks") or {}).items():
        max_clock = (by_index.get(i) or {}).get("max_sm_clock_mhz")
        if max_clock and stats.get("avg_sm_clock_mhz") and stats["avg_sm_clock_mhz"] < 0.7 * max_clock:
            found.append(Finding("low_clocks_under_load", "warning", f"GPU {i}: SM clock far below its maximum under load",
                                 f"While busy (utilization over 50%), the SM clock averaged {stats['avg_sm_clock_mhz']:.0f} "
                                 f"MHz against a maximum of {max_clock} MHz; see the clock-event reasons.",
                                 {**stats, "max_sm_clock_mhz": max_clock}))

    affinity = facts.get("gpu_cpu_affinity") or {}
    process_cpus = set(workload.get("cpu_affinity") or [])
    if process_cpus and affinity:
        far = [gpu for gpu, spec in affinity.items() if cpu_list(spec) and not (cpu_list(spec) & process_cpus)]
        if far:
            found.append(Finding("numa_mismatch", "warning", "The workload ran on CPUs far from its GPUs",
                                 f"The workload's CPUs share no NUMA node with {', '.join(far)}: every host-device "
                                 "copy crosses the socket interconnect. Pin it (numactl --cpunodebind) next to the GPU.",
                                 {"process_cpus": sorted(process_cpus)[:64], "gpu_cpu_affinity": affinity}))

    gpm_reasons = facts.get("gpm_reasons") or {}
    for i, row in (during or telemetry).items():
        found += activity_findings(i, row.get("util_gpu_avg_pct"), row.get("sm_active_avg_pct"),
                                   row.get("tensor_avg_pct"), row.get("dram_avg_pct"), row.get("fp16_avg_pct"),
                                   gpm_reasons.get(i), "while the workload ran" if during else "over the capture")

    host = facts.get("host") or {}
    governor = host.get("cpu_governor") or ""
    if governor and not governor.startswith("not exposed") and governor != "performance":
        found.append(Finding("cpu_governor", "warning", f"CPU frequency governor is '{governor}'",
                             "Not 'performance': CPU-bound phases (kernel launches, data loading) run at lower clocks.",
                             {"cpu_governor": governor}))

    attributes = facts.get("device_attributes") or {}
    torch_cuda, driver_cuda = _version_tuple(attributes.get("torch_cuda")), _version_tuple(nvml.get("cuda_driver_version"))
    if torch_cuda and driver_cuda and torch_cuda > driver_cuda:
        found.append(Finding("driver_cuda_mismatch", "error", "PyTorch needs a newer driver than this one",
                             f"PyTorch was built for CUDA {attributes.get('torch_cuda')}, the driver supports up to CUDA "
                             f"{nvml.get('cuda_driver_version')}: CUDA calls will fail or fall back.",
                             {"torch_cuda": attributes.get("torch_cuda"), "driver_cuda": nvml.get("cuda_driver_version"),
                              "driver_version": nvml.get("driver_version")}))
    found.sort(key=lambda f: (SEVERITY_ORDER.get(f.severity, 3), f.id, f.title))
    return found


ACTIVITY_TITLES = {
    "low_sm_activity": "utilization high but SM activity low (few blocks or launch-bound)",
    "tensor_idle": "tensor cores idle during bf16/fp16 math",
    "memory_bound": "memory-bandwidth bound (DRAM activity high)",
}


def activity_findings(gpu: int, util_pct: float | None, sm_active_pct: float | None, tensor_pct: float | None,
                      dram_pct: float | None, fp16_pct: float | None, gpm_reason: str | None = None,
                      scope: str = "while the workload ran") -> list[Finding]:
    """The GPU activity rules (metrics/activity.py) on plain numbers (GPM means); a finding for
    each rule that fires, and one info finding saying the checks could not be made where GPM is missing."""
    from aiperf_lab.metrics import activity

    if sm_active_pct is None and tensor_pct is None and dram_pct is None:
        if gpm_reason is None:
            return []
        return [Finding("gpu_activity_not_measured", "info", f"GPU {gpu}: SM, tensor and DRAM activity not measured",
                        f"{gpm_reason}: the checks for low SM activity, idle tensor cores and memory-bandwidth "
                        "bound could not be made (utilization alone cannot tell them apart).",
                        {"gpm": gpm_reason})]
    evidence = {"util_gpu_avg_pct": util_pct, "sm_active_avg_pct": sm_active_pct, "tensor_avg_pct": tensor_pct,
                "dram_avg_pct": dram_pct, "fp16_avg_pct": fp16_pct}
    where = f" {scope}"
    found = []
    for verdict in activity.verdicts(util_pct, sm_active_pct, tensor_pct, dram_pct,
                                     activity.half_precision_from_fp16_pipe(fp16_pct), where):
        if verdict.fired:
            found.append(Finding(verdict.rule, "warning", f"GPU {gpu}: {ACTIVITY_TITLES[verdict.rule]}",
                                 f"{verdict.evidence[:1].upper()}{verdict.evidence[1:]}. {verdict.advice}.",
                                 {**evidence, "thresholds": _thresholds(verdict.rule)}))
    return found


def _thresholds(rule: str) -> dict[str, float]:
    from aiperf_lab.metrics import activity

    return {"low_sm_activity": {"util_at_least_pct": activity.UTIL_HIGH_PCT,
                                "sm_active_below_pct": activity.SM_ACTIVE_LOW_PCT},
            "tensor_idle": {"sm_active_at_least_pct": activity.SM_BUSY_PCT,
                            "tensor_below_pct": activity.TENSOR_IDLE_PCT, "fp16_pipe_at_least_pct": activity.HALF_PIPE_PCT},
            "memory_bound": {"dram_at_least_pct": activity.DRAM_BOUND_PCT}}[rule]
