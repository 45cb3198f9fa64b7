"""What the telemetry sampler reads from each GPU, through the one NVML layer (nvml.py): a failing or
unsupported query yields a missing value, never an exception.

`NvmlSource.open()` never raises either: with no driver (or no nvidia-ml-py) it returns a source with no
GPUs and a one-line `status` saying why, which a caller can show as is. A GPU that falls off the bus
(NVML_ERROR_GPU_IS_LOST) is marked lost by the layer and not queried again, while the others go on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from aiperf_lab.metrics.telemetry.gpm import GpmDevice
from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuProcess, GpuStatus
from aiperf_lab.metrics.telemetry.nvml import Nvml

FI_DEV_POWER_INSTANT = 186
CLOCK_SM, CLOCK_MEM = 1, 2
TEMPERATURE_GPU = 0
CLOCK_REASONS = ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")


@dataclass
class ProcessInfo:
    name: str | None = None
    user: str | None = None
    command: str | None = None


class NvmlSource:
    """Reads every GPU through the NVML layer. Construct with `open()`; pass a fake module to test error paths."""

    kind = "nvml"

    def __init__(self, nvml: Nvml, gpm: bool = True, clock: Callable[[], float] = time.monotonic):
        self.session = nvml
        self.handles = nvml.handles
        self.status = nvml.status              # "" when GPUs were found, else why there are none
        self.lost = nvml.lost                  # the layer's set: one lost-GPU rule for every caller
        self._instant_ok: dict[int, bool] = {}
        self._energy_ok: dict[int, bool] = {}
        self._util_seen: dict[int, int] = {}   # per GPU: newest process-utilization timestamp read (us)
        self.gpm_devices = [GpmDevice(nvml, i, clock) if gpm else None for i in range(len(nvml.handles))]
        self.infos = [self._info(i) for i in range(len(nvml.handles))]

    @classmethod
    def open(cls, nvml: Any = None, gpm: bool = True) -> "NvmlSource":
        """`nvml`: a pynvml-like module (tests pass a fake); None imports nvidia-ml-py."""
        return cls(Nvml.open(nvml), gpm=gpm)

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
    def power_w(self, index: int) -> tuple[float | None, str, float | None]:
        """(power, "instant" or "average", averaged power) in watts."""
        average = self._call(index, "nvmlDeviceGetPowerUsage")
        average_w = average / 1000.0 if average is not None else None
        if self._instant_ok.get(index):
            instant = self._instant_power_mw(index)
            if instant is not None:
                return instant / 1000.0, "instant", average_w
        return average_w, ("average" if average_w is not None else ""), average_w

    def energy_mj(self, index: int) -> float | None:
        value = self._call(index, "nvmlDeviceGetTotalEnergyConsumption")
        return float(value) if value is not None else None

    def fast(self, index: int) -> dict[str, Any]:
        """Utilization, memory, temperature, clocks and clock-event reasons; missing values are None.
        (The power limit changes rarely: read it with the slow fields, through power_limit_w.)"""
        util = self._call(index, "nvmlDeviceGetUtilizationRates")
        memory = self._call(index, "nvmlDeviceGetMemoryInfo")
        return {
            "util_gpu_pct": getattr(util, "gpu", None),
            "util_mem_pct": getattr(util, "memory", None),
            "mem_used_bytes": getattr(memory, "used", None),
            "mem_total_bytes": getattr(memory, "total", None),
            "temp_c": self._call(index, "nvmlDeviceGetTemperature", TEMPERATURE_GPU),
            "sm_clock_mhz": self._call(index, "nvmlDeviceGetClockInfo", CLOCK_SM),
            "mem_clock_mhz": self._call(index, "nvmlDeviceGetClockInfo", CLOCK_MEM),
            "clock_event_reasons": self._call(index, CLOCK_REASONS),
        }

    def power_limit_w(self, index: int) -> float | None:
        limit = self._call(index, "nvmlDeviceGetEnforcedPowerLimit")
        return limit / 1000.0 if limit is not None else None

    def gpm(self, index: int, t: float) -> GpmSample | None:
        """The GPM window since the previous call (None without GPM on this GPU)."""
        device = self.gpm_devices[index] if index < len(self.gpm_devices) else None
        if device is None or index in self.lost:
            return None
        return device.read(t)

    def slow(self, index: int, process_info: Callable[[int], ProcessInfo]) -> GpuStatus:
        status = GpuStatus(
            pcie_gen=self._call(index, "nvmlDeviceGetCurrPcieLinkGeneration"),
            pcie_width=self._call(index, "nvmlDeviceGetCurrPcieLinkWidth"),
            pcie_gen_max=self._call(index, "nvmlDeviceGetMaxPcieLinkGeneration"),
            pcie_width_max=self._call(index, "nvmlDeviceGetMaxPcieLinkWidth"),
            power_limit_w=self.power_limit_w(index),
        )
        states = []
        for link in range(self.session.constant("NVML_NVLINK_MAX_LINKS", 18)):
            state = self._call(index, "nvmlDeviceGetNvLinkState", link)
            if state is None:
                break  # links are numbered from 0; the first unsupported one ends the list
            states.append(state)
        if states:
            status.nvlink_total = len(states)
            status.nvlink_active = sum(1 for s in states if s)
        status.processes = self.processes(index, process_info)
        return status

    def processes(self, index: int, process_info: Callable[[int], ProcessInfo]) -> list[GpuProcess]:
        """Compute processes with their memory, and their SM and memory shares since the last call."""
        shares = self._process_utilization(index)
        found = []
        for proc in self._call(index, "nvmlDeviceGetComputeRunningProcesses") or []:
            pid = getattr(proc, "pid", None)
            if pid is None:
                continue
            memory = getattr(proc, "usedGpuMemory", None)
            info = process_info(pid)
            sm, mem = shares.get(pid, (None, None))
            if shares and pid not in shares:
                sm = mem = 0.0  # the driver reported others' samples but none for it: it was idle
            found.append(GpuProcess(pid, info.name, memory if isinstance(memory, int) else None, info.user,
                                    info.command, sm, mem))
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


