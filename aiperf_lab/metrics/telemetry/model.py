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
    # GPM (Hopper and later): "" when this feed reads it, else why not (shown as "n/a (reason)")
    gpm_reason: str = "not measured by this feed"
    # GPM field -> why it has no value (left out of ==, so GpuInfo stays hashable)
    gpm_missing: dict[str, str] = field(default_factory=dict, compare=False)

    def gpm_why_missing(self, name: str) -> str:
        """Why GPM field `name` has no value on this GPU ("" when it should have one)."""
        return self.gpm_reason or self.gpm_missing.get(name, "")


# GPM fields: (our name, NVML metric id, what it is). Percentages are of time (or of peak for DRAM);
# throughputs are MiB/s. nvidia-smi dmon --gpm-metrics uses the same ids.
GPM_FIELDS: list[tuple[str, int, str]] = [
    ("graphics_pct", 1, "graphics engine active (any kernel running), % of time"),
    ("sm_active_pct", 2, "SM activity: SMs busy, % (averaged over SMs and time)"),
    ("sm_occupancy_pct", 3, "SM occupancy: resident warps vs the maximum, %"),
    ("tensor_pct", 5, "tensor activity, any precision, % of time"),
    ("tensor_dfma_pct", 6, "tensor activity, DFMA (FP64), %"),
    ("tensor_hmma_pct", 7, "tensor activity, HMMA (FP16/BF16/TF32), %"),
    ("tensor_imma_pct", 9, "tensor activity, IMMA (integer), %"),
    ("dram_pct", 10, "DRAM bandwidth used, % of peak"),
    ("fp64_pct", 11, "FP64 pipe (non-tensor), % of time"),
    ("fp32_pct", 12, "FP32 pipe (non-tensor), % of time"),
    ("fp16_pct", 13, "FP16 pipe (non-tensor), % of time"),
    ("pcie_tx_mibps", 20, "PCIe sent by the GPU, MiB/s"),
    ("pcie_rx_mibps", 21, "PCIe received by the GPU, MiB/s"),
    ("nvlink_rx_mibps", 60, "NVLink received, all links, MiB/s"),
    ("nvlink_tx_mibps", 61, "NVLink sent, all links, MiB/s"),
]
GPM_NAMES = [name for name, _id, _what in GPM_FIELDS]


@dataclass(frozen=True, slots=True)
class GpmSample:
    """One GPM window: NVML's performance metrics between two GPM samples, `window_s` long, ending at `t`.
    None where the GPU gave no value (why: GpuInfo.gpm_why_missing)."""

    t: float
    window_s: float
    graphics_pct: float | None = None
    sm_active_pct: float | None = None
    sm_occupancy_pct: float | None = None
    tensor_pct: float | None = None
    tensor_dfma_pct: float | None = None
    tensor_hmma_pct: float | None = None
    tensor_imma_pct: float | None = None
    dram_pct: float | None = None
    fp64_pct: float | None = None
    fp32_pct: float | None = None
    fp16_pct: float | None = None
    pcie_tx_mibps: float | None = None
    pcie_rx_mibps: float | None = None
    nvlink_rx_mibps: float | None = None
    nvlink_tx_mibps: float | None = None


@dataclass
class GpuProcess:
    """A process on a GPU, read every couple of seconds. Shares are NVML's per-process utilization
    (nvmlDeviceGetProcessUtilization) averaged over the last read's window; energy is an ESTIMATE:
    the GPU's energy over each window split by SM share (idle energy is not attributed)."""

    pid: int
    name: str | None
    gpu_memory_bytes: int | None
    user: str | None = None
    command: str | None = None            # the command line, live only (never written to recordings)
    sm_pct: float | None = None           # share of the GPU's SM time this process used, %
    mem_pct: float | None = None          # share of memory-controller time, %
    energy_share_pct: float | None = None   # estimate: its SM share of all processes' SM time, last window
    energy_est_j: float | None = None       # estimate: joules attributed since the feed first saw it


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
    gpm: GpmSample | None = None          # the latest GPM window (read every couple of seconds), if any
    # When power_avg_w, memory, temperature, clocks and clock-event reasons were read (the sampler reads
    # them about once a second and each sample carries the latest); None: read with this sample, or not said
    status_t: float | None = None

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
