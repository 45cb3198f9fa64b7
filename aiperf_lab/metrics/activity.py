"""What the GPU's activity signals say, as verdicts with their numbers. One set of rules and thresholds,
used by triage's findings, aiperf-stats's telemetry_findings (recordings) and its expert rules (nsys
exports with GPU metrics). Each rule takes plain numbers, so any source can feed it.

- low_sm_activity: utilization (a kernel was running) high, SM activity low: few blocks per kernel,
  or the GPU waits on launches between short kernels.
- tensor_idle: SMs busy, tensor cores idle, while there is evidence of bf16/fp16 math.
- memory_bound: DRAM bandwidth near its peak.
"""

from __future__ import annotations

from dataclasses import dataclass

UTIL_HIGH_PCT = 80.0          # "a kernel was running" this share of the time or more
SM_ACTIVE_LOW_PCT = 50.0      # ... while SMs were busy less than this
SM_BUSY_PCT = 30.0            # tensor_idle looks only where SMs are this busy
TENSOR_IDLE_PCT = 5.0         # tensor activity below this is "idle"
HALF_PIPE_PCT = 5.0           # FP16 pipe activity at or above this is evidence of half-precision math
DRAM_BOUND_PCT = 60.0         # DRAM bandwidth at or above this share of peak


@dataclass
class Verdict:
    rule: str
    fired: bool | None        # None: cannot judge (the data lacks the signal); evidence says why
    evidence: str
    advice: str = ""

    @property
    def state(self) -> str:
        return "n/a" if self.fired is None else ("yes" if self.fired else "no")


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def low_sm_activity(util_pct: float | None, sm_active_pct: float | None, where: str = "",
                    util_label: str = "utilization") -> Verdict:
    rule = "low_sm_activity"
    if util_pct is None or sm_active_pct is None:
        missing = "SM activity (GPM, Hopper or later)" if sm_active_pct is None else util_label
        return Verdict(rule, None, f"no {missing}{where}")
    fired = util_pct >= UTIL_HIGH_PCT and sm_active_pct < SM_ACTIVE_LOW_PCT
    return Verdict(rule, fired,
                   f"{util_label} {_pct(util_pct)}{' but' if fired else ','} SM activity {_pct(sm_active_pct)}{where} "
                   f"(fires at {util_label} "
                   f">= {UTIL_HIGH_PCT:.0f}% with SM activity < {SM_ACTIVE_LOW_PCT:.0f}%)",
                   "utilization only says a kernel was running: kernels with few blocks, or short kernels with "
                   "launch gaps, leave most SMs idle; use larger batches or more blocks per kernel, fuse kernels "
                   "(torch.compile), or launch with CUDA graphs" if fired else "")


def tensor_idle(sm_active_pct: float | None, tensor_pct: float | None, half_precision: str | None,
                where: str = "") -> Verdict:
    """`half_precision`: the evidence of bf16/fp16 math in words ("FP16 pipe 12.0%"), or None if none."""
    rule = "tensor_idle"
    if tensor_pct is None or sm_active_pct is None:
        return Verdict(rule, None, f"no tensor or SM activity{where} (GPU metrics: GPM or nsys --gpu-metrics-devices)")
    if tensor_pct >= TENSOR_IDLE_PCT:
        return Verdict(rule, False, f"tensor activity {_pct(tensor_pct)}, SM activity {_pct(sm_active_pct)}{where}: "
                                    f"the tensor cores are in use (fires at tensor < {TENSOR_IDLE_PCT:.0f}% with SM "
                                    f"activity >= {SM_BUSY_PCT:.0f}% and signs of bf16/fp16 math)")
    if half_precision is None:
        return Verdict(rule, None, f"tensor activity {_pct(tensor_pct)}, SM activity {_pct(sm_active_pct)}{where}; "
                                   "no sign of bf16/fp16 math to judge against")
    fired = sm_active_pct >= SM_BUSY_PCT and tensor_pct < TENSOR_IDLE_PCT
    return Verdict(rule, fired,
                   f"tensor activity {_pct(tensor_pct)} with SM activity {_pct(sm_active_pct)}{where} and "
                   f"{half_precision} (fires at tensor < {TENSOR_IDLE_PCT:.0f}% with SM activity >= "
                   f"{SM_BUSY_PCT:.0f}%)",
                   "bf16/fp16 math is running off the tensor cores: check matmul shapes (multiples of 8/16), "
                   "dtypes reaching the GEMMs (an fp32 upcast), and custom kernels not using MMA instructions"
                   if fired else "")


def memory_bound(dram_pct: float | None, sm_active_pct: float | None, where: str = "") -> Verdict:
    rule = "memory_bound"
    if dram_pct is None:
        return Verdict(rule, None, f"no DRAM bandwidth signal{where} (GPM, or nsys --gpu-metrics-devices)")
    fired = dram_pct >= DRAM_BOUND_PCT
    sm = f", SM activity {_pct(sm_active_pct)}" if sm_active_pct is not None else ""
    return Verdict(rule, fired,
                   f"DRAM bandwidth {_pct(dram_pct)} of peak{sm}{where} (fires at {DRAM_BOUND_PCT:.0f}%)",
                   "memory-bandwidth bound: fuse elementwise kernels, keep data in lower precision, reuse "
                   "tiles from shared memory or L2; more SM work will not help" if fired else "")


def verdicts(util_pct: float | None, sm_active_pct: float | None, tensor_pct: float | None,
             dram_pct: float | None, half_precision: str | None, where: str = "",
             util_label: str = "utilization") -> list[Verdict]:
    return [low_sm_activity(util_pct, sm_active_pct, where, util_label),
            tensor_idle(sm_active_pct, tensor_pct, half_precision, where),
            memory_bound(dram_pct, sm_active_pct, where)]


def half_precision_from_fp16_pipe(fp16_pct: float | None) -> str | None:
    """Telemetry's evidence of half-precision math: the FP16 pipe busy at least HALF_PIPE_PCT."""
    if fp16_pct is None or fp16_pct < HALF_PIPE_PCT:
        return None
    return f"FP16 pipe {_pct(fp16_pct)} (evidence of half-precision math at >= {HALF_PIPE_PCT:.0f}%)"
