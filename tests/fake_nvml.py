"""A stand-in for the pynvml module, to drive the sampler through every failure a real driver shows."""

from __future__ import annotations

import time
from types import SimpleNamespace

NOT_SUPPORTED, GPU_IS_LOST, LIBRARY_NOT_FOUND, UNKNOWN = 3, 15, 12, 999


class FakeNVMLError(Exception):
    def __init__(self, value: int):
        super().__init__({NOT_SUPPORTED: "Not Supported", GPU_IS_LOST: "GPU is lost",
                          LIBRARY_NOT_FOUND: "NVML Shared Library Not Found"}.get(value, f"error {value}"))
        self.value = value


class FakeGpu:
    """Constant power; the energy counter follows it exactly (mJ = W x ms since creation)."""

    def __init__(self, name: str = "NVIDIA H200", power_w: float = 100.0, *, instant: bool = True,
                 energy: bool = True, unsupported: tuple[str, ...] = (), lost_after_s: float | None = None,
                 raises_oddly: tuple[str, ...] = (), nvlinks: int = 0, processes=(), clock=time.monotonic):
        self.name, self.power_w = name, power_w
        self.instant, self.energy = instant, energy
        self.unsupported, self.raises_oddly = set(unsupported), set(raises_oddly)
        self.lost_after_s = lost_after_s
        self.nvlinks, self.processes = nvlinks, list(processes)
        self.clock = clock
        self.born = clock()
        self.calls = 0

    def check(self, what: str) -> None:
        self.calls += 1
        if self.lost_after_s is not None and self.clock() - self.born >= self.lost_after_s:
            raise FakeNVMLError(GPU_IS_LOST)
        if what in self.unsupported:
            raise FakeNVMLError(NOT_SUPPORTED)
        if what in self.raises_oddly:
            raise RuntimeError(f"driver hiccup in {what}")  # not even an NVMLError


class FakeNvml:
    NVML_NVLINK_MAX_LINKS = 18

    def __init__(self, gpus: list[FakeGpu], init_error: int | None = None):
        self.gpus = gpus
        self.init_error = init_error
        self.shutdowns = 0

    def nvmlInit(self):
        if self.init_error is not None:
            raise FakeNVMLError(self.init_error)

    def nvmlShutdown(self):
        self.shutdowns += 1

    def nvmlDeviceGetCount(self):
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        return self.gpus[index]

    def nvmlDeviceGetName(self, gpu):
        gpu.check("name")
        return gpu.name

    def nvmlDeviceGetUUID(self, gpu):
        gpu.check("uuid")
        return f"GPU-{id(gpu):08x}"

    def nvmlDeviceGetMemoryInfo(self, gpu):
        gpu.check("memory")
        return SimpleNamespace(total=141 * 2**30, used=2**30, free=140 * 2**30)

    def nvmlDeviceGetEnforcedPowerLimit(self, gpu):
        gpu.check("power_limit")
        return 700_000

    def nvmlDeviceGetPowerUsage(self, gpu):
        gpu.check("power")
        return int(gpu.power_w * 1000)

    def nvmlDeviceGetFieldValues(self, gpu, field_ids):
        gpu.check("field_values")
        ok = 0 if gpu.instant else NOT_SUPPORTED
        return [SimpleNamespace(nvmlReturn=ok, value=SimpleNamespace(uiVal=int(gpu.power_w * 1000)))
                for _ in field_ids]

    def nvmlDeviceGetTotalEnergyConsumption(self, gpu):
        gpu.check("energy")
        if not gpu.energy:
            raise FakeNVMLError(NOT_SUPPORTED)
        return int(5_000_000 + gpu.power_w * (gpu.clock() - gpu.born) * 1000)

    def nvmlDeviceGetUtilizationRates(self, gpu):
        gpu.check("utilization")
        return SimpleNamespace(gpu=97, memory=40)

    def nvmlDeviceGetTemperature(self, gpu, sensor):
        gpu.check("temperature")
        return 55

    def nvmlDeviceGetClockInfo(self, gpu, clock_type):
        gpu.check("clocks")
        return 1980 if clock_type == 1 else 3201

    def nvmlDeviceGetCurrentClocksEventReasons(self, gpu):
        gpu.check("clock_reasons")
        return 0x4 | 0x20

    def nvmlDeviceGetCurrPcieLinkGeneration(self, gpu):
        gpu.check("pcie")
        return 4

    def nvmlDeviceGetCurrPcieLinkWidth(self, gpu):
        gpu.check("pcie")
        return 8

    def nvmlDeviceGetMaxPcieLinkGeneration(self, gpu):
        gpu.check("pcie")
        return 5

    def nvmlDeviceGetMaxPcieLinkWidth(self, gpu):
        gpu.check("pcie")
        return 16

    def nvmlDeviceGetNvLinkState(self, gpu, link):
        gpu.check("nvlink")
        if link >= gpu.nvlinks:
            raise FakeNVMLError(NOT_SUPPORTED)
        return 1 if link % 2 == 0 else 0

    def nvmlDeviceGetComputeRunningProcesses(self, gpu):
        gpu.check("processes")
        return [SimpleNamespace(pid=pid, usedGpuMemory=memory) for pid, memory in gpu.processes]
