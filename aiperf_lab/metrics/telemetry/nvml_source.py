"""What the telemetry sampler reads from each GPU, through the one NVML layer (nvml.py): a failing or
unsupported query yields a missing value, never an exception.

`NvmlSource.open()` never raises either: with no driver (or no nvidia-ml-py) it returns a source with no
GPUs and a one-line `status` saying why, which a caller can show as is. A GPU that falls off the bus
(NVML_ERROR_GPU_IS_LOST) is marked lost by the layer and not queried again, while the others go on.

Reads come in tiers, so that a 10 Hz sampler stays cheap (docs/benchmarks.md): `tick_fields` (instant
power and utilization: two NVML calls, every tick), `status_fields` (averaged power, memory, temperature,
clocks, clock-event reasons: six calls, about once a second), `slow` (PCIe link, processes; NVLink
states and the power limit only when asked: `links=True`). The PCIe maximum is read once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from aiperf_lab.metrics.telemetry.gpm import GpmDevice
from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuProcess, GpuStatus
from aiperf_lab.metrics.telemetry.nvml import Nvml

FI_DEV_POWER_INSTANT = 186
# (field id, scope id) pairs: pynvml takes a pair without the TypeError it raises and catches for a bare id
INSTANT_POWER_FIELD = [(FI_DEV_POWER_INSTANT, 0)]
CLOCK_SM, CLOCK_MEM = 1, 2
TEMPERATURE_GPU = 0
CLOCK_REASONS = ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")


@dataclass
class ProcessInfo:
    name: str | None = None
    user: str | None = None
    command: str | None = None


# GPM's graphics activity is asked for in one GPM window of this many (its read costs about 9x the other
# fourteen metrics together: see gpm.GpmDevice).
GPM_GRAPHICS_EVERY = 5


class NvmlSource:
    """Reads every GPU through the NVML layer. Construct with `open()`; pass a fake module to test error paths."""

    kind = "nvml"

    def __init__(self, nvml: Nvml, gpm: bool = True, clock: Callable[[], float] = time.monotonic,
                 gpm_graphics_every: int = GPM_GRAPHICS_EVERY):
        self.session = nvml
        self.handles = nvml.handles
        self.status = nvml.status              # "" when GPUs were found, else why there are none
        self.lost = nvml.lost                  # the layer's set: one lost-GPU rule for every caller
        self._instant_ok: dict[int, bool] = {}
        self._energy_ok: dict[int, bool] = {}
        self._util_seen: dict[int, int] = {}   # per GPU: newest process-utilization timestamp read (us)
        # per GPU: pid -> name, user, command of the processes seen at the previous read (a pid still
        # listed is the same process: psutil is asked only about new pids)
        self._process_infos: dict[int, dict[int, ProcessInfo]] = {}
        self._links: dict[int, tuple[float | None, int | None, int | None]] = {}  # limit, NVLink up, total
        self.gpm_devices = [GpmDevice(nvml, i, clock, graphics_every=gpm_graphics_every) if gpm else None
                            for i in range(len(nvml.handles))]
        self.infos = [self._info(i) for i in range(len(nvml.handles))]
        self._pcie_max = [(self._call(i, "nvmlDeviceGetMaxPcieLinkGeneration"),
                           self._call(i, "nvmlDeviceGetMaxPcieLinkWidth")) for i in range(len(nvml.handles))]
        self._bind_readers()

    def _bind_readers(self) -> None:
        """The per-tick and per-status calls, bound to their handles once (nvml.Nvml.device_reader)."""
        reader = self.session.device_reader
        count = len(self.handles)
        self._read_fields = [reader(i, "nvmlDeviceGetFieldValues") for i in range(count)]
        self._read_power_average = [reader(i, "nvmlDeviceGetPowerUsage") for i in range(count)]
        self._read_utilization = [reader(i, "nvmlDeviceGetUtilizationRates") for i in range(count)]
        self._read_memory = [reader(i, "nvmlDeviceGetMemoryInfo") for i in range(count)]
        self._read_temperature = [reader(i, "nvmlDeviceGetTemperature") for i in range(count)]
        self._read_clock = [reader(i, "nvmlDeviceGetClockInfo") for i in range(count)]
        self._read_reasons = [reader(i, CLOCK_REASONS) for i in range(count)]

    @classmethod
    def open(cls, nvml: Any = None, gpm: bool = True, gpm_graphics_every: int = GPM_GRAPHICS_EVERY) -> "NvmlSource":
        """`nvml`: a pynvml-like module (tests pass a fake); None imports nvidia-ml-py."""
        return cls(Nvml.open(nvml), gpm=gpm, gpm_graphics_every=gpm_graphics_every)

    @property
    def nvml(self) -> Any:
        return self.session.module

    @property
    def available(self) -> bool:
        return bool(self.handles)

    def close(self) -> None:
        for device in self.gpm_devices:
            if device is not None:
                device.close()
        self.session.close()

    def _call(self, index: int, function: str | tuple[str, ...], *args: Any) -> Any:
        return self.session.device_call(index, function, *args)

    def _info(self, index: int) -> GpuInfo:
        name = self._call(index, "nvmlDeviceGetName")
        uuid = self._call(index, "nvmlDeviceGetUUID")
        memory = self._call(index, "nvmlDeviceGetMemoryInfo")
        limit = self._call(index, "nvmlDeviceGetEnforcedPowerLimit")
        self._instant_ok[index] = self._instant_power_mw(index) is not None
        self._energy_ok[index] = self.energy_mj(index) is not None
        gpm = self.gpm_devices[index]
        return GpuInfo(index, name, uuid, getattr(memory, "total", None),
                       limit / 1000.0 if limit is not None else None,
                       self._energy_ok[index], self._instant_ok[index],
                       gpm_reason=gpm.reason if gpm is not None else "GPM reads turned off",
                       gpm_missing=dict(gpm.missing) if gpm is not None else {})

    def _instant_power_mw(self, index: int) -> float | None:
        values = self._call(index, "nvmlDeviceGetFieldValues", [FI_DEV_POWER_INSTANT])
        if not values:
            return None
        value = values[0]
        if getattr(value, "nvmlReturn", 1) != 0:
            return None
        return float(value.value.uiVal)

    # --- what a sampler reads ------------------------------------------------------------------
    def tick_fields(self, index: int) -> tuple[float | None, str, float | None, float | None]:
        """(power W, "instant" or "average" or "", GPU utilization %, memory utilization %): what a
        sampler reads every tick. Instant power where the GPU has it (one field read), else the
        driver's average."""
        power = None
        source = ""
        if self._instant_ok.get(index):
            values = self._read_fields[index](INSTANT_POWER_FIELD)
            if values and values[0].nvmlReturn == 0:
                power, source = values[0].value.uiVal / 1000.0, "instant"
        if power is None:
            average = self._read_power_average[index]()
            if average is not None:
                power, source = average / 1000.0, "average"
        util = self._read_utilization[index]()
        if util is None:
            return power, source, None, None
        return power, source, util.gpu, util.memory

    def status_fields(self, index: int) -> tuple:
        """(averaged power W, memory used, memory total, temperature C, SM clock MHz, memory clock MHz,
        clock-event reasons): what changes slowly or is itself an average, read about once a second."""
        average = self._read_power_average[index]()
        memory = self._read_memory[index]()
        clock = self._read_clock[index]
        return (average / 1000.0 if average is not None else None,
                getattr(memory, "used", None), getattr(memory, "total", None),
                self._read_temperature[index](TEMPERATURE_GPU), clock(CLOCK_SM), clock(CLOCK_MEM),
                self._read_reasons[index]())

    def energy_mj(self, index: int) -> float | None:
        value = self._call(index, "nvmlDeviceGetTotalEnergyConsumption")
        return float(value) if value is not None else None

    def power_limit_w(self, index: int) -> float | None:
        limit = self._call(index, "nvmlDeviceGetEnforcedPowerLimit")
        return limit / 1000.0 if limit is not None else None

    def gpm(self, index: int, t: float) -> GpmSample | None:
        """The GPM window since the previous call (None without GPM on this GPU)."""
        device = self.gpm_devices[index] if index < len(self.gpm_devices) else None
        if device is None or index in self.lost:
            return None
        return device.read(t)

    def slow(self, index: int, process_info: Callable[[int], ProcessInfo], links: bool = True) -> GpuStatus:
        """The PCIe link now and the processes; with `links` (or at the first call) also the power limit
        and the NVLink states (up to 18 calls), else those of the previous read."""
        gen_max, width_max = self._pcie_max[index] if index < len(self._pcie_max) else (None, None)
        if links or index not in self._links:
            self._links[index] = (self.power_limit_w(index), *self._nvlink_states(index))
        limit, active, total = self._links[index]
        return GpuStatus(
            pcie_gen=self._call(index, "nvmlDeviceGetCurrPcieLinkGeneration"),
            pcie_width=self._call(index, "nvmlDeviceGetCurrPcieLinkWidth"),
            pcie_gen_max=gen_max, pcie_width_max=width_max, nvlink_active=active, nvlink_total=total,
            power_limit_w=limit, processes=self.processes(index, process_info))

    def _nvlink_states(self, index: int) -> tuple[int | None, int | None]:
        """(links up, links) or (None, None) where the GPU has no NVLink."""
        states = []
        for link in range(self.session.constant("NVML_NVLINK_MAX_LINKS", 18)):
            state = self._call(index, "nvmlDeviceGetNvLinkState", link)
            if state is None:
                break  # links are numbered from 0; the first unsupported one ends the list
            states.append(state)
        if not states:
            return None, None
        return sum(1 for s in states if s), len(states)

    def processes(self, index: int, process_info: Callable[[int], ProcessInfo]) -> list[GpuProcess]:
        """Compute processes with their memory, and their SM and memory shares since the last call."""
        running = self._call(index, "nvmlDeviceGetComputeRunningProcesses") or []
        # The shares are asked for only when there is a process to give them to: the call costs about
        # 2.8 ms of CPU on an H100 even when it finds nothing (measured), a tenth of the sampler's budget.
        shares = self._process_utilization(index) if running else {}
        found = []
        known = self._process_infos.get(index, {})
        infos: dict[int, ProcessInfo] = {}
        for proc in running:
            pid = getattr(proc, "pid", None)
            if pid is None:
                continue
            memory = getattr(proc, "usedGpuMemory", None)
            info = infos[pid] = known.get(pid) or process_info(pid)
            sm, mem = shares.get(pid, (None, None))
            if shares and pid not in shares:
                sm = mem = 0.0  # the driver reported others' samples but none for it: it was idle
            found.append(GpuProcess(pid, info.name, memory if isinstance(memory, int) else None, info.user,
                                    info.command, sm, mem))
        self._process_infos[index] = infos
        return found

    def _process_utilization(self, index: int) -> dict[int, tuple[float, float]]:
        """pid -> (SM %, memory %), averaged over the samples NVML kept since the previous call."""
        since = self._util_seen.get(index, 0)
        samples = self._call(index, "nvmlDeviceGetProcessUtilization", since)
        if not samples:
            return {}  # NOT_FOUND (no sample in the window) or unsupported: shares unknown
        sums: dict[int, list[float]] = {}
        newest = since
        for sample in samples:
            pid = getattr(sample, "pid", None)
            stamp = getattr(sample, "timeStamp", 0) or 0
            if pid is None or stamp <= since:
                continue
            newest = max(newest, stamp)
            entry = sums.setdefault(pid, [0.0, 0.0, 0])
            entry[0] += float(getattr(sample, "smUtil", 0) or 0)
            entry[1] += float(getattr(sample, "memUtil", 0) or 0)
            entry[2] += 1
        self._util_seen[index] = newest
        return {pid: (round(sm / n, 1), round(mem / n, 1)) for pid, (sm, mem, n) in sums.items()}


