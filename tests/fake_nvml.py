"""A stand-in for the pynvml module, to drive the sampler through every failure a real driver shows."""

from __future__ import annotations

import time
from collections import Counter
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
                 raises_oddly: tuple[str, ...] = (), nvlinks: int = 0, processes=(), clock=time.monotonic,
                 gpm: dict[int, float] | None = None, gpm_unsupported: tuple[int, ...] = (),
                 process_utilization=()):
        """gpm: GPM metric id -> value (None: the GPU has no GPM); gpm_unsupported: metric ids the GPU
        does not offer; process_utilization: (pid, smUtil, memUtil) samples, each stamped when read."""
        self.name, self.power_w = name, power_w
        self.instant, self.energy = instant, energy
        self.unsupported, self.raises_oddly = set(unsupported), set(raises_oddly)
        self.lost_after_s = lost_after_s
        self.nvlinks, self.processes = nvlinks, list(processes)
        self.clock = clock
        self.born = clock()
        self.calls = 0
        self.counts: Counter[str] = Counter()   # calls by kind ("temperature", "nvlink", ...)
        self.gpm, self.gpm_unsupported = gpm, set(gpm_unsupported)
        self.process_utilization = list(process_utilization)
        self.gpm_samples_taken = 0

    def check(self, what: str) -> None:
        self.calls += 1
        self.counts[what] += 1
        if self.lost_after_s is not None and self.clock() - self.born >= self.lost_after_s:
            raise FakeNVMLError(GPU_IS_LOST)
        if what in self.unsupported:
            raise FakeNVMLError(NOT_SUPPORTED)
        if what in self.raises_oddly:
            raise RuntimeError(f"driver hiccup in {what}")  # not even an NVMLError


class FakeGpmSample:
    def __init__(self):
        self.gpu: FakeGpu | None = None
        self.freed = False


class FakeGpmMetricsGet:
    """Stands for pynvml.c_nvmlGpmMetricsGet_t."""

    def __init__(self):
        self.version = 0
        self.numMetrics = 0
        self.sample1 = self.sample2 = None
        self.metrics = [SimpleNamespace(metricId=0, nvmlReturn=0, value=0.0) for _ in range(210)]


class FakeNvml:
    NVML_NVLINK_MAX_LINKS = 18
    NVML_GPM_METRICS_GET_VERSION = 1
    c_nvmlGpmMetricsGet_t = FakeGpmMetricsGet

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

    def nvmlDeviceGetProcessUtilization(self, gpu, last_seen_us):
        gpu.check("process_utilization")
        stamp = int((gpu.clock() - gpu.born) * 1e6) + 1
        samples = [SimpleNamespace(pid=pid, timeStamp=stamp, smUtil=sm, memUtil=mem, encUtil=0, decUtil=0)
                   for pid, sm, mem in gpu.process_utilization]
        if not samples or stamp <= last_seen_us:
            raise FakeNVMLError(6)  # NVML_ERROR_NOT_FOUND: no sample since last_seen_us
        return samples

    # --- GPM ---
    def nvmlGpmQueryDeviceSupport(self, gpu):
        gpu.check("gpm_support")
        return SimpleNamespace(version=1, isSupportedDevice=1 if gpu.gpm is not None else 0)

    def nvmlGpmSampleAlloc(self):
        return FakeGpmSample()

    def nvmlGpmSampleFree(self, sample):
        sample.freed = True

    def nvmlGpmSampleGet(self, gpu, sample):
        gpu.check("gpm_sample")
        if gpu.gpm is None:
            raise FakeNVMLError(NOT_SUPPORTED)
        sample.gpu = gpu
        gpu.gpm_samples_taken += 1
        return sample

    def nvmlGpmMetricsGet(self, request):
        gpu = request.sample2.gpu
        if gpu is None or request.sample1.gpu is not gpu:
            raise FakeNVMLError(2)
        gpu.check("gpm_metrics")
        for slot in range(request.numMetrics):
            metric = request.metrics[slot]
            if metric.metricId in gpu.gpm_unsupported or metric.metricId not in gpu.gpm:
                metric.nvmlReturn, metric.value = NOT_SUPPORTED, 0.0
            else:
                metric.nvmlReturn, metric.value = 0, float(gpu.gpm[metric.metricId])
        return request


class FakeNvmlWithoutGpm(FakeNvml):
    """An nvidia-ml-py older than GPM (before 12.x bindings)."""

    nvmlGpmSampleGet = None
    c_nvmlGpmMetricsGet_t = None


# What an H100 showed under a bf16 matmul (issue 15), by GPM metric id.
H100_MATMUL_GPM = {1: 100.0, 2: 96.7, 3: 14.3, 5: 93.8, 6: 0.0, 7: 93.8, 9: 0.0, 10: 25.3, 11: 0.0, 12: 1.2,
                   13: 0.1, 20: 5.85, 21: 3.1, 60: 0.0, 61: 0.0}
