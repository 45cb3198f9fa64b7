"""NVML access where a failing or unsupported query yields a missing value, never an exception.

`NvmlSource.open()` never raises either: with no driver (or no nvidia-ml-py) it returns a source with no
GPUs and a one-line `status` saying why, which a caller can show as is. A GPU that falls off the bus
(NVML_ERROR_GPU_IS_LOST) is marked lost and not queried again, while the others go on.
"""

from __future__ import annotations

from typing import Any, Callable

from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuProcess, GpuStatus

# NVML return codes we treat specially (values from nvml.h, stable across releases).
GPU_IS_LOST = 15
NOT_SUPPORTED = 3
FI_DEV_POWER_INSTANT = 186
CLOCK_SM, CLOCK_MEM = 1, 2
TEMPERATURE_GPU = 0


class GpuLost(Exception):
    """Raised inside this module only, to stop querying a lost GPU."""


class NvmlSource:
    """Reads every GPU through NVML. Construct with `open()`; pass a fake module to test error paths."""

    kind = "nvml"

    def __init__(self, nvml: Any, handles: list[Any], status: str):
        self.nvml = nvml
        self.handles = handles
        self.status = status              # "" when GPUs were found, else why there are none
        self.lost: set[int] = set()
        self._instant_ok: dict[int, bool] = {}
        self._energy_ok: dict[int, bool] = {}
        self.infos = [self._info(i) for i in range(len(handles))]

    @classmethod
    def open(cls, nvml: Any = None) -> "NvmlSource":
        if nvml is None:
            try:
                import pynvml as nvml  # the nvidia-ml-py package
            except ImportError:
                return cls(None, [], "no NVML: the nvidia-ml-py package is not installed")
        try:
            nvml.nvmlInit()
        except Exception as exc:  # NVMLError_LibraryNotFound, _DriverNotLoaded, OSError from ctypes
            return cls(None, [], f"no NVIDIA driver: {_describe(exc)}")
        try:
            count = nvml.nvmlDeviceGetCount()
            handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        except Exception as exc:
            _shutdown(nvml)
            return cls(None, [], f"NVML found no usable GPU: {_describe(exc)}")
        if not handles:
            _shutdown(nvml)
            return cls(None, [], "the NVIDIA driver is loaded but reports no GPU")
        return cls(nvml, handles, "")

    @property
    def available(self) -> bool:
        return bool(self.handles)

    def close(self) -> None:
        if self.nvml is not None:
            _shutdown(self.nvml)
            self.nvml = None

    # --- one call, any failure -> None ---------------------------------------------------------
    def _call(self, index: int, function: str, *args: Any) -> Any:
        """nvml.<function>(handle, *args); None when it fails, is unsupported or this nvidia-ml-py lacks it."""
        if index in self.lost or self.nvml is None:
            return None
        fn = getattr(self.nvml, function, None)
        if fn is None:
            return None
        try:
            return fn(self.handles[index], *args)
        except Exception as exc:
            if getattr(exc, "value", None) == GPU_IS_LOST:
                self.lost.add(index)
            return None

    def _info(self, index: int) -> GpuInfo:
        name = self._call(index, "nvmlDeviceGetName")
        uuid = self._call(index, "nvmlDeviceGetUUID")
        memory = self._call(index, "nvmlDeviceGetMemoryInfo")
        limit = self._call(index, "nvmlDeviceGetEnforcedPowerLimit")
        self._instant_ok[index] = self._instant_power_mw(index) is not None
        self._energy_ok[index] = self.energy_mj(index) is not None
        return GpuInfo(index, _text(name), _text(uuid), getattr(memory, "total", None),
                       limit / 1000.0 if limit is not None else None,
                       self._energy_ok[index], self._instant_ok[index])

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
        n = self.nvml
        util = self._call(index, "nvmlDeviceGetUtilizationRates")
        memory = self._call(index, "nvmlDeviceGetMemoryInfo")
        reasons_fn = "nvmlDeviceGetCurrentClocksEventReasons" if hasattr(n, "nvmlDeviceGetCurrentClocksEventReasons") \
            else "nvmlDeviceGetCurrentClocksThrottleReasons"  # the older name, in older nvidia-ml-py
        return {
            "util_gpu_pct": getattr(util, "gpu", None),
            "util_mem_pct": getattr(util, "memory", None),
            "mem_used_bytes": getattr(memory, "used", None),
            "mem_total_bytes": getattr(memory, "total", None),
            "temp_c": self._call(index, "nvmlDeviceGetTemperature", TEMPERATURE_GPU),
            "sm_clock_mhz": self._call(index, "nvmlDeviceGetClockInfo", CLOCK_SM),
            "mem_clock_mhz": self._call(index, "nvmlDeviceGetClockInfo", CLOCK_MEM),
            "clock_event_reasons": self._call(index, reasons_fn),
        }

    def power_limit_w(self, index: int) -> float | None:
        limit = self._call(index, "nvmlDeviceGetEnforcedPowerLimit")
        return limit / 1000.0 if limit is not None else None

    def slow(self, index: int, process_name: Callable[[int], str | None]) -> GpuStatus:
        n = self.nvml
        status = GpuStatus(
            pcie_gen=self._call(index, "nvmlDeviceGetCurrPcieLinkGeneration"),
            pcie_width=self._call(index, "nvmlDeviceGetCurrPcieLinkWidth"),
            pcie_gen_max=self._call(index, "nvmlDeviceGetMaxPcieLinkGeneration"),
            pcie_width_max=self._call(index, "nvmlDeviceGetMaxPcieLinkWidth"),
            power_limit_w=self.power_limit_w(index),
        )
        states = []
        for link in range(getattr(n, "NVML_NVLINK_MAX_LINKS", 18)):
            state = self._call(index, "nvmlDeviceGetNvLinkState", link)
            if state is None:
                break  # links are numbered from 0; the first unsupported one ends the list
            states.append(state)
        if states:
            status.nvlink_total = len(states)
            status.nvlink_active = sum(1 for s in states if s)
        for proc in self._call(index, "nvmlDeviceGetComputeRunningProcesses") or []:
            pid = getattr(proc, "pid", None)
            if pid is None:
                continue
            memory = getattr(proc, "usedGpuMemory", None)
            status.processes.append(GpuProcess(pid, process_name(pid), memory if isinstance(memory, int) else None))
        return status


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def _describe(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _shutdown(nvml: Any) -> None:
    try:
        nvml.nvmlShutdown()
    except Exception:
        pass
