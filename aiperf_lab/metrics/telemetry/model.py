"""The values a telemetry feed carries: one GpuSample per GPU per tick, one HostSample per tick."""

from __future__ import annotations

from dataclasses import dataclass, field

# NVML clock-event ("throttle") reason bits and the names we show for them.
CLOCK_EVENT_REASONS: dict[int, str] = {
    0x1: "idle",
    0x2: "applications clocks",
    0x4: "power cap",
    0x8: "hw slowdown",
    0x10: "sync boost",
    0x20: "thermal (sw)",
    0x40: "thermal (hw)",
    0x80: "power brake",
    0x100: "display clocks",
}


def decode_clock_reasons(mask: int | None) -> list[str]:
    """Names of the reasons set in an NVML clock-event bitmask, in bit order."""
    if not mask:
        return []
    names = [name for bit, name in CLOCK_EVENT_REASONS.items() if mask & bit]
    unknown = mask & ~sum(CLOCK_EVENT_REASONS)
    if unknown:
        names.append(f"other(0x{unknown:x})")
    return names


@dataclass(frozen=True)
class GpuInfo:
    """What does not change while sampling."""

    index: int
    name: str | None = None
    uuid: str | None = None
    mem_total_bytes: int | None = None
    power_limit_w: float | None = None
    energy_counter: bool = False     # NVML's total-energy counter works on this GPU
    instant_power: bool = False      # the power-instant field works on this GPU


@dataclass
class GpuProcess:
    pid: int
    name: str | None
    gpu_memory_bytes: int | None


@dataclass
class GpuStatus:
    """Fields read slowly (every couple of seconds): links, processes and the power limit."""

    pcie_gen: int | None = None
    pcie_width: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_max: int | None = None
    nvlink_active: int | None = None      # links up; None where the GPU has no NVLink
    nvlink_total: int | None = None
    power_limit_w: float | None = None
    processes: list[GpuProcess] = field(default_factory=list)


@dataclass(slots=True)
class GpuSample:
    t: float                              # seconds since the feed started
    index: int
    power_w: float | None = None          # instant power where supported, else the averaged reading
    power_source: str = ""                # "instant", "average" or "" (no reading)
    power_avg_w: float | None = None      # nvmlDeviceGetPowerUsage (averaged over about a second)
    power_limit_w: float | None = None
    energy_j: float | None = None         # since the feed started
    energy_source: str = ""               # "counter" (NVML total energy, interpolated) or "integrated"
    util_gpu_pct: float | None = None
    util_mem_pct: float | None = None
    mem_used_bytes: int | None = None
    mem_total_bytes: int | None = None
    temp_c: float | None = None
    sm_clock_mhz: float | None = None
    mem_clock_mhz: float | None = None
    clock_event_reasons: int | None = None
    lost: bool = False                    # the GPU fell off the bus (GpuIsLost); values stay missing

    @property
    def clock_event_names(self) -> list[str]:
        return decode_clock_reasons(self.clock_event_reasons)


@dataclass(slots=True)
class HostSample:
    t: float
    cpu_pct: float | None = None
    mem_used_bytes: int | None = None
    mem_total_bytes: int | None = None


@dataclass
class Tick:
    """Everything read at one moment."""

    t: float
    gpus: list[GpuSample]
    host: HostSample | None
