"""Rules over what a bundle collected: small functions over TriageFacts, each finding with its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from aiperf_lab.triage.facts import (HW_SLOWDOWN, POWER_BRAKE, POWER_CAP, THERMAL_HW, THERMAL_SW, TriageFacts)
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


Rule = Callable[[TriageFacts], list[Finding]]


def _version_tuple(text: str | None) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in str(text).split(".")[:2])
    except (TypeError, ValueError):
        return None


def _label(g: dict) -> str:
    return f"GPU {g.get('index')} ({g.get('name')})"


def pcie_below_max(facts: TriageFacts) -> list[Finding]:
    found = []
    util = {row.device: row.util_gpu_avg_pct for row in facts.telemetry}
    for g in facts.hardware.gpus:
        seen = facts.pcie_seen.get(g.get("index"))
        gen = max(filter(None, [seen.gen if seen else None, g.get("pcie_gen_current")]), default=None)
        width = max(filter(None, [seen.width if seen else None, g.get("pcie_width_current")]), default=None)
        gen_max, width_max = g.get("pcie_gen_max"), g.get("pcie_width_max")
        if not (gen and width and gen_max and width_max and (gen < gen_max or width < width_max)):
            continue
        busy = util.get(g.get("index")) or 0
        found.append(Finding(
            "pcie_below_max", "warning" if busy >= 20 else "info", f"{_label(g)}: PCIe link below its maximum",
            f"The link ran at gen {gen} x{width} at best, against gen {gen_max} x{width_max}. "
            + ("Links drop to a lower generation when idle, and the GPU was mostly idle here: rerun under "
               "load to confirm." if busy < 20 else "This was with the GPU busy: check the slot, riser and "
               "BIOS settings; host-device copies run slower."),
            {"gen_seen": gen, "width_seen": width, "gen_max": gen_max, "width_max": width_max,
             "util_gpu_avg_pct": busy}))
    return found


def persistence_off(facts: TriageFacts) -> list[Finding]:
    return [Finding("persistence_off", "info", f"{_label(g)}: persistence mode is off",
                    "Without persistence the driver may tear down the GPU state between jobs, so each job's first "
                    "CUDA call pays the initialisation again (an admin sets it with nvidia-smi -pm 1 or "
                    "nvidia-persistenced).", {"persistence_mode": False})
            for g in facts.hardware.gpus if g.get("persistence_mode") is False]


def memory_errors(facts: TriageFacts) -> list[Finding]:
    found = []
    for g in facts.hardware.gpus:
        uncorrected = sum(v or 0 for k, v in g.items() if k.startswith("ecc_errors_uncorrected"))
        corrected = sum(v or 0 for k, v in g.items() if k.startswith("ecc_errors_corrected"))
        remapped = g.get("remapped_rows") or {}
        if uncorrected or remapped.get("pending") or remapped.get("failure") or g.get("retired_pages_pending"):
            found.append(Finding("ecc_uncorrected", "error", f"{_label(g)}: uncorrectable memory errors or pending "
                                 "repairs", "Uncorrectable ECC errors, pending row remapping or page retirement: "
                                 "results may be wrong and the GPU needs a reset or service.",
                                 {"uncorrected": uncorrected, "remapped_rows": remapped,
                                  "retired_pages_pending": g.get("retired_pages_pending")}))
        elif corrected:
            found.append(Finding("ecc_corrected", "warning", f"{_label(g)}: corrected ECC errors",
                                 f"{corrected} corrected errors: harmless alone, a sign of failing memory if they grow.",
                                 {"corrected": corrected}))
    return found


def mig_on(facts: TriageFacts) -> list[Finding]:
    return [Finding("mig_on", "info", f"{_label(g)}: MIG is on",
                    "The GPU is split into MIG instances: a job sees only its slice's SMs and memory.", {"mig_mode": True})
            for g in facts.hardware.gpus if g.get("mig_mode_current")]


def xid_errors(facts: TriageFacts) -> list[Finding]:
    if not facts.xid:
        return []
    codes = sorted(set(facts.xid))
    return [Finding("xid_errors", "error", "NVIDIA Xid errors in the kernel log",
                    f"{len(facts.xid)} Xid events (codes {', '.join(map(str, codes))}): the driver reported GPU faults "
                    "(79 = fallen off the bus, 48/63/64/94/95 = memory errors, 13/31/43 = application faults).",
                    {"xid_codes": codes, "count": len(facts.xid)})]


CLOCK_RULES = [  # (reason bit, finding id, label, severity, share of time from which it fires)
    (POWER_CAP, "clocks_power_cap", "power-capped", "warning", 5.0),
    (THERMAL_SW, "clocks_thermal_sw", "thermally slowed (software)", "warning", 1.0),
    (THERMAL_HW, "clocks_thermal_hw", "thermally slowed (hardware)", "error", 0.1),
    (HW_SLOWDOWN, "clocks_hw_slowdown", "slowed by hardware (power brake or overheat)", "error", 0.1),
    (POWER_BRAKE, "clocks_power_brake", "held by the power brake", "error", 0.1),
]


def clocks_held_back(facts: TriageFacts) -> list[Finding]:
    found = []
    for row in facts.telemetry:
        for bit, finding_id, label, severity, floor in CLOCK_RULES:
            share = row.reason_pct.get(bit, 0.0)
            if share >= floor:
                found.append(Finding(finding_id, severity, f"GPU {row.device}: {label} {share:.0f}% of the time",
                                     f"Clocks were held back ({label}) for {share:.1f}% of the sampled time; average "
                                     f"power {row.avg_power_w} W, peak {row.peak_power_w} W.",
                                     {"reason_bit": bit, "time_pct": share, "avg_power_w": row.avg_power_w,
                                      "peak_power_w": row.peak_power_w, "temp_max_c": row.temp_max_c}))
    return found


def gpu_use_during_workload(facts: TriageFacts) -> list[Finding]:
    found = []
    for row in facts.telemetry_workload:
        util = row.util_gpu_avg_pct
        evidence = {"util_gpu_avg_pct": util, "busy_span_s": row.duration_s, "workload_s": row.workload_s}
        if row.never_busy:
            found.append(Finding("gpu_never_used", "warning", f"GPU {row.device}: the workload never used it",
                                 f"Utilization stayed under 5% for all {row.workload_s} s the workload ran: it failed "
                                 "early, ran on another GPU or the CPU, or spent the time starting up.", evidence))
        elif util is not None and util < 50:
            found.append(Finding("gpu_idle_during_workload", "warning", f"GPU {row.device}: mostly idle while the "
                                 "workload ran", f"Average utilization {util:.0f}% over the {row.duration_s} s from the "
                                 f"first to the last busy moment (of {row.workload_s} s the workload ran): the GPU "
                                 "waited on the CPU, data loading or communication (see the nsys tables for gaps).",
                                 evidence))
    return found


def low_clocks_under_load(facts: TriageFacts) -> list[Finding]:
    found = []
    by_index = {g.get("index"): g for g in facts.hardware.gpus}
    for i, stats in facts.busy_clocks.items():
        max_clock = (by_index.get(i) or {}).get("max_sm_clock_mhz")
        if max_clock and stats.avg_sm_clock_mhz < 0.7 * max_clock:
            found.append(Finding("low_clocks_under_load", "warning", f"GPU {i}: SM clock far below its maximum under "
                                 "load", f"While busy (utilization over 50%), the SM clock averaged "
                                 f"{stats.avg_sm_clock_mhz:.0f} MHz against a maximum of {max_clock} MHz; see the "
                                 "clock-event reasons.", {"avg_sm_clock_mhz": stats.avg_sm_clock_mhz,
                                                          "busy_samples": stats.busy_samples,
                                                          "max_sm_clock_mhz": max_clock}))
    return found


def numa_mismatch(facts: TriageFacts) -> list[Finding]:
    process_cpus = set((facts.workload.cpu_affinity if facts.workload else None) or [])
    if not process_cpus or not facts.gpu_cpu_affinity:
        return []
    far = [gpu for gpu, spec in facts.gpu_cpu_affinity.items() if cpu_list(spec) and not (cpu_list(spec) & process_cpus)]
    if not far:
        return []
    return [Finding("numa_mismatch", "warning", "The workload ran on CPUs far from its GPUs",
                    f"The workload's CPUs share no NUMA node with {', '.join(far)}: every host-device copy crosses the "
                    "socket interconnect. Pin it (numactl --cpunodebind) next to the GPU.",
                    {"process_cpus": sorted(process_cpus)[:64], "gpu_cpu_affinity": facts.gpu_cpu_affinity})]


def cpu_governor(facts: TriageFacts) -> list[Finding]:
    governor = facts.hardware.host.get("cpu_governor") or ""
    if not governor or governor.startswith("not exposed") or governor == "performance":
        return []
    return [Finding("cpu_governor", "warning", f"CPU frequency governor is '{governor}'",
                    "Not 'performance': CPU-bound phases (kernel launches, data loading) run at lower clocks.",
                    {"cpu_governor": governor})]


def driver_cuda_mismatch(facts: TriageFacts) -> list[Finding]:
    nvml, attributes = facts.hardware.nvml, facts.hardware.device_attributes
    torch_cuda, driver_cuda = _version_tuple(attributes.get("torch_cuda")), _version_tuple(nvml.get("cuda_driver_version"))
    if not (torch_cuda and driver_cuda and torch_cuda > driver_cuda):
        return []
    return [Finding("driver_cuda_mismatch", "error", "PyTorch needs a newer driver than this one",
                    f"PyTorch was built for CUDA {attributes.get('torch_cuda')}, the driver supports up to CUDA "
                    f"{nvml.get('cuda_driver_version')}: CUDA calls will fail or fall back.",
                    {"torch_cuda": attributes.get("torch_cuda"), "driver_cuda": nvml.get("cuda_driver_version"),
                     "driver_version": nvml.get("driver_version")})]


def trace_incomplete(facts: TriageFacts) -> list[Finding]:
    """The nsys trace is missing, or covers little of the run, or lost its CUDA activity."""
    coverage = facts.coverage
    if coverage is None:
        return []
    evidence = coverage.as_dict()
    if not coverage.written:
        return [Finding("trace_missing", "warning", "The workload's nsys trace could not be kept",
                        f"{coverage.note or 'nsys wrote no report'}. See workload/workload.json for what was sent "
                        "and what nsys printed.", evidence)]
    if coverage.kernels is None:
        return [Finding("trace_without_kernels", "warning", "The nsys trace holds no CUDA kernels",
                        f"{coverage.text()}: the workload launched no kernel while nsys collected, or its CUDA "
                        "activity was not flushed (the application was killed rather than stopped).", evidence)]
    missed = coverage.misses_workload_s()
    if coverage.workload_span_s and missed > max(2.0, 0.2 * (coverage.workload_span_s[1] - coverage.workload_span_s[0])):
        return [Finding("trace_partial", "info", "The nsys trace covers part of the workload",
                        f"{coverage.text()}: {missed:.0f} s of the workload's run are not in the trace (nsys starts "
                        "collecting after it launches the application, and stops when the collection is stopped).",
                        evidence)]
    return []


def gpu_activity(facts: TriageFacts) -> list[Finding]:
    """SM activity, tensor cores and DRAM bandwidth (GPM), over the workload's busy span when a workload
    ran, else over the whole capture: activity_findings on each GPU's means."""
    rows = facts.telemetry_workload or facts.telemetry
    scope = "while the workload ran" if facts.telemetry_workload else "over the capture"
    found = []
    for row in rows:
        found += activity_findings(row.device, row.util_gpu_avg_pct, row.sm_active_avg_pct, row.tensor_avg_pct,
                                   row.dram_avg_pct, row.fp16_avg_pct, facts.gpm_reasons.get(row.device), scope)
    return found


def bench_results(facts: TriageFacts) -> list[Finding]:
    """The node bench's own verdicts (triage/bench_analysis.py): GPUs under the node's median, links
    under what they promise, NCCL under the slowest link."""
    return list(facts.bench_findings)


RULES: list[Rule] = [bench_results, pcie_below_max, persistence_off, memory_errors, mig_on, xid_errors, clocks_held_back,
                     gpu_use_during_workload, low_clocks_under_load, numa_mismatch, cpu_governor,
                     driver_cuda_mismatch, trace_incomplete, gpu_activity]


def evaluate(facts: TriageFacts, rules: list[Rule] | None = None) -> list[Finding]:
    found = [f for rule in (rules or RULES) for f in rule(facts)]
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
