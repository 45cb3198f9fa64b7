"""TriageFacts: everything a bundle learned, typed, in memory, for the findings and the report.

The collectors and phases fill it as they go; nothing is read back from the bundle's own files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from aiperf_lab.metrics.telemetry.model import CLOCK_EVENT_REASONS, GpuInfo, Tick
from aiperf_lab.metrics.telemetry.summary import REASON_COLUMNS, telemetry_summary
from aiperf_lab.triage.capture import CaptureLog

BUSY_UTIL_PCT = 5.0
# NVML clock-event reason bits the findings name (see telemetry/model.py CLOCK_EVENT_REASONS)
POWER_CAP, HW_SLOWDOWN, THERMAL_SW, THERMAL_HW, POWER_BRAKE = 0x4, 0x8, 0x20, 0x40, 0x80
assert all(bit in CLOCK_EVENT_REASONS for bit in (POWER_CAP, HW_SLOWDOWN, THERMAL_SW, THERMAL_HW, POWER_BRAKE))


@dataclass
class DeviceTelemetry:
    """One GPU's telemetry summary over a window (the whole run, or the workload's busy span)."""
    device: int
    duration_s: float
    avg_power_w: float | None = None
    peak_power_w: float | None = None
    energy_j: float | None = None
    energy_source: str = ""
    util_gpu_avg_pct: float | None = None
    temp_max_c: float | None = None
    sm_clock_avg_mhz: float | None = None
    reason_pct: dict[int, float] = field(default_factory=dict)   # NVML clock-event bit -> % of the time
    sm_active_avg_pct: float | None = None    # GPM means (None: no GPM on this GPU or in this window)
    tensor_avg_pct: float | None = None
    dram_avg_pct: float | None = None
    fp16_avg_pct: float | None = None
    never_busy: bool = False
    workload_s: float | None = None
    row: dict[str, Any] = field(default_factory=dict)             # the summary table's row, as written

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "DeviceTelemetry":
        return cls(device=row["device"], duration_s=row.get("duration_s") or 0.0, avg_power_w=row.get("avg_power_w"),
                   peak_power_w=row.get("peak_power_w"), energy_j=row.get("energy_j"),
                   energy_source=row.get("energy_source") or "", util_gpu_avg_pct=row.get("util_gpu_avg_pct"),
                   temp_max_c=row.get("temp_max_c"), sm_clock_avg_mhz=row.get("sm_clock_avg_mhz"),
                   reason_pct={bit: row.get(column) or 0.0 for bit, column in REASON_COLUMNS.items()},
                   sm_active_avg_pct=row.get("sm_active_avg_pct"), tensor_avg_pct=row.get("tensor_avg_pct"),
                   dram_avg_pct=row.get("dram_avg_pct"), fp16_avg_pct=row.get("fp16_avg_pct"), row=row)

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.row)
        if self.workload_s is not None:
            out.update(never_busy=self.never_busy, workload_s=self.workload_s)
        return out


def summarize_devices(devices: list[GpuInfo], ticks: list[Tick]) -> tuple[list[DeviceTelemetry], list[str]]:
    table = telemetry_summary(devices, ticks)
    return [DeviceTelemetry.from_row(row) for row in table.as_dicts()], table.notes


def busy_window(devices: list[GpuInfo], ticks: list[Tick], start: float, end: float,
                ran_s: float | None = None) -> list[DeviceTelemetry]:
    """Telemetry over the workload, from its first to its last busy sample (any GPU over 5%): nsys's
    start-up and report writing, and the interpreter's start, are not the workload's GPU time. When no
    sample was busy, the whole window, marked never_busy. The window may run past the workload's exit
    (the ramp-down tail); ran_s, when known, is how long the workload itself ran."""
    window = [t for t in ticks if start <= t.t <= end]
    busy = [i for i, t in enumerate(window) if any((s.util_gpu_pct or 0) > BUSY_UTIL_PCT for s in t.gpus)]
    trimmed = window[busy[0]:busy[-1] + 1] if busy else window
    rows = summarize_devices(devices, trimmed)[0] if trimmed else []
    for row in rows:
        row.never_busy = not busy
        row.workload_s = round(ran_s if ran_s is not None else end - start, 3)
    return rows


@dataclass
class BusyClocks:
    avg_sm_clock_mhz: float
    busy_samples: int


def busy_clocks(devices: list[GpuInfo], ticks: list[Tick]) -> dict[int, BusyClocks]:
    """Average SM clock over the samples where the GPU was over 50% busy."""
    out = {}
    for info in devices:
        clocks = [s.sm_clock_mhz for t in ticks for s in t.gpus if s.index == info.index and
                  s.util_gpu_pct is not None and s.util_gpu_pct > 50 and s.sm_clock_mhz]
        if clocks:
            out[info.index] = BusyClocks(round(sum(clocks) / len(clocks), 1), len(clocks))
    return out


@dataclass
class PcieLink:
    gen: int | None
    width: int | None


@dataclass
class HardwareFacts:
    """hardware.py's findings as it returns them: NVML per GPU, CUDA device attributes, host facts."""
    nvml: dict[str, Any] = field(default_factory=dict)
    device_attributes: dict[str, Any] = field(default_factory=dict)
    host: dict[str, Any] = field(default_factory=dict)

    @property
    def gpus(self) -> list[dict[str, Any]]:
        return self.nvml.get("gpus") or []


@dataclass
class WorkloadFacts:
    ran: bool
    returncode: int | None
    seconds: float
    stopped_by: str | None
    signals_sent: list[str]
    under_nsys: bool
    cpu_affinity: list[int] | None = None
    capture: CaptureLog | None = None
    log_notes: list[str] = field(default_factory=list)   # "stdout.log cut by a full disk: ..."
    not_started_because: str | None = None   # "cannot start ./train: No such file ..." (ran is False then)


@dataclass
class CaptureCoverage:
    """What the nsys trace covers, on the telemetry's clock (seconds since telemetry started)."""
    start_s: float | None
    end_s: float | None
    telemetry_s: float
    source: str                     # "export" (nsys's own session times) or "observed" (what triage saw)
    kernels: int | None = None      # None: the export has no kernel table
    nvtx_ranges: int | None = None
    kernel_span_s: tuple[float, float] | None = None
    written: bool = True            # False: nsys wrote no report
    note: str = ""
    workload_span_s: tuple[float, float] | None = None   # the workload's own span, same clock

    def text(self) -> str:
        if not self.written:
            return f"no trace: {self.note}" if self.note else "no trace"
        span = (f"{self.start_s:.0f}-{self.end_s:.0f} s" if self.start_s is not None and self.end_s is not None
                else "an unknown span")
        counts = (f"{self.kernels if self.kernels is not None else 'no'} kernels, "
                  f"{self.nvtx_ranges if self.nvtx_ranges is not None else 'no'} NVTX ranges")
        ran = (f", workload {self.workload_span_s[0]:.0f}-{self.workload_span_s[1]:.0f} s"
               if self.workload_span_s else "")
        return f"trace covers {span} of {self.telemetry_s:.0f} s ({counts}{ran})"

    def misses_workload_s(self) -> float:
        """Seconds of the workload's span the trace does not cover (0 when unknown)."""
        if self.start_s is None or self.end_s is None or self.workload_span_s is None:
            return 0.0
        first, last = self.workload_span_s
        return max(0.0, self.start_s - first) + max(0.0, last - self.end_s)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "text": self.text()}


@dataclass
class TelemetrySpan:
    """What telemetry.csv covers (seconds on its own clock) and why it ends where it does.

    The capture waits for the duration asked, or for the workload's end plus a short tail (to see the
    ramp-down), or for an interrupt; telemetry then goes on while the collectors finish and the bench runs."""
    asked_s: float
    ended_by: str                        # "duration", "workload" or "interrupt": what ended the capture's wait
    wait_end_s: float                    # when the wait ended
    stopped_s: float                     # when telemetry stopped
    workload_end_s: float | None = None
    bench_s: float = 0.0                 # of the time after the wait, spent in --bench
    first_s: float | None = None         # the recording's first and last rows
    last_s: float | None = None
    samples: int = 0
    stopped_by_words: str = ""           # the signal, in words, when ended_by is "interrupt"
    stopped_workload: bool = False       # the workload was still running when the wait ended
    stop_s: float = 0.0                  # of the time after the wait, spent stopping the workload (and nsys's report)
    under_nsys: bool = False

    def text(self) -> str:
        if not self.samples or self.first_s is None or self.last_s is None:
            rows = "no rows"
        else:
            rows = f"{self.first_s:.1f}-{self.last_s:.1f} s ({self.samples} samples)"
        if self.ended_by == "workload" and self.workload_end_s is not None:
            tail = round(self.wait_end_s, 1) - round(self.workload_end_s, 1)
            why = (f"the workload ended at {self.workload_end_s:.1f} s, before the {self.asked_s:g} s asked, "
                   f"and telemetry went on {tail:.1f} s after it (to see the ramp-down)")
        elif self.ended_by == "workload":
            why = (f"the workload ended before the {self.asked_s:g} s asked; telemetry went on until "
                   f"{self.wait_end_s:.1f} s (a short tail, to see the ramp-down)")
        elif self.ended_by == "interrupt":
            why = (f"interrupted ({self.stopped_by_words or 'Ctrl-C'}) at {self.wait_end_s:.1f} s "
                   f"of the {self.asked_s:g} s asked")
        else:
            why = f"the {self.asked_s:g} s asked ran out at {self.wait_end_s:.1f} s"
        # from the figures as shown, so that they add up on the page
        end = self.last_s if self.last_s is not None else self.stopped_s
        stop, bench = round(self.stop_s, 1), round(self.bench_s, 1)
        collectors = round(end, 1) - round(self.wait_end_s, 1) - stop - bench
        extra = []
        if stop >= 0.05:
            what = ["the workload was stopped"] if self.stopped_workload else []
            what += ["nsys wrote its report"] if self.under_nsys else []
            extra.append(f"{stop:.1f} s while {' and '.join(what) or 'the workload was stopped'}")
        if collectors >= 0.05:
            extra.append(f"{collectors:.1f} s while the collectors finished")
        if bench >= 0.05:
            extra.append(f"{bench:.1f} s of --bench")
        return f"{rows}; {why}" + (f"; then {', '.join(extra[:-1])}{' and ' if len(extra) > 1 else ''}{extra[-1]}"
                                   if extra else "")


@dataclass
class KernelRow:
    time_pct: float
    total_ns: int
    instances: int
    name: str


@dataclass
class TriageFacts:
    hardware: HardwareFacts = field(default_factory=HardwareFacts)
    gpu_cpu_affinity: dict[str, str] = field(default_factory=dict)   # "GPU0" -> "0-15"
    xid: list[int] = field(default_factory=list)
    telemetry: list[DeviceTelemetry] = field(default_factory=list)
    telemetry_workload: list[DeviceTelemetry] = field(default_factory=list)
    pcie_seen: dict[int, PcieLink] = field(default_factory=dict)
    gpm_reasons: dict[int, str] = field(default_factory=dict)       # GPU -> "" (GPM read) or why not
    busy_clocks: dict[int, BusyClocks] = field(default_factory=dict)
    workload: WorkloadFacts | None = None
    coverage: CaptureCoverage | None = None
    kernel_top: list[KernelRow] = field(default_factory=list)
    bench: dict[str, Any] | None = None
    bench_lines: list[str] = field(default_factory=list)       # the bench's part of summary.md
    bench_findings: list[Any] = field(default_factory=list)    # findings.Finding, judged by bench_analysis
    recording: TelemetrySpan | None = None
    bench_asked: bool = False
    no_trace_because: str | None = None    # why the bundle has no nsys trace when none was attempted
    report_left_out_because: str | None = None   # why the bundle has the SQLite export but not the .nsys-rep
