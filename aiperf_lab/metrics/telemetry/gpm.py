"""GPM (GPU Performance Monitoring, Hopper and later): SM, tensor, DRAM, pipe and link activity.

A GPM metric is computed from two samples of the GPU's counters (`nvmlGpmSampleGet`) taken some time
apart (`nvmlGpmMetricsGet`). Each device keeps two sample buffers and alternates them, so one read
costs one sample plus one metrics computation and yields the window since the previous read. A read
cost 2.4 ms of CPU on an H100 and 2.2 ms on an H200 (docs/benchmarks.md), so the sampler reads GPM
every couple of seconds, not at its power rate.

Nothing here raises: a device without GPM, or a metric the device does not offer, gets a reason.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from aiperf_lab.metrics.telemetry.model import GPM_FIELDS, GpmSample
from aiperf_lab.metrics.telemetry.nvml import SUCCESS, Nvml, error_text

METRICS_GET_VERSION = 1
PROBE_GAP_S = 0.02


class GpmDevice:
    """GPM for one GPU. `reason` is "" when it works, else why there is none."""

    def __init__(self, nvml: Nvml, index: int, clock: Callable[[], float], graphics_every: int = 1):
        self.nvml = nvml
        self.index = index
        self.clock = clock
        # Graphics activity costs about 1.8 ms of CPU to compute, the other 14 metrics together about
        # 0.2 ms (H200, measured): with graphics_every = N it is asked for in every Nth window only, and
        # the other windows carry None for it (not a stale value).
        self.graphics_every = max(1, graphics_every)
        self._reads = 0
        self.reason = ""
        self.missing: dict[str, str] = {}
        self._samples: list[Any] = []
        self._previous_t: float | None = None
        self._turn = 0
        module = nvml.module
        if module is None:
            self.reason = nvml.status or "no NVML session"
            return
        if not nvml.has("nvmlGpmSampleGet") or getattr(module, "c_nvmlGpmMetricsGet_t", None) is None:
            self.reason = "this nvidia-ml-py has no GPM functions"
            return
        support, why = nvml.device_attempt(index, "nvmlGpmQueryDeviceSupport")
        if support is None:
            self.reason = f"GPM query failed: {why}"
            return
        if not getattr(support, "isSupportedDevice", 0):
            self.reason = "GPM not supported on this GPU (Hopper or later, not in MIG mode)"
            return
        # (request, the metric each slot holds): every metric, and all but graphics activity
        light_fields = [f for f in GPM_FIELDS if f[0] != "graphics_pct"]
        self._requests = {False: (self._new_request(GPM_FIELDS), GPM_FIELDS),
                          True: (self._new_request(light_fields), light_fields)}
        for _ in range(2):
            sample, why = nvml.attempt("nvmlGpmSampleAlloc")
            if sample is None:
                self.reason = f"GPM sample allocation failed: {why}"
                self.close()
                return
            self._samples.append(sample)
        # Two samples close together tell which metrics this GPU offers; that window is discarded. Back
        # to back first; should the driver refuse so short a window, once more 20 ms apart.
        for gap_s in (0.0, PROBE_GAP_S):
            if not self._take(0):
                self.close()
                return
            if gap_s:
                time.sleep(gap_s)
            if not self._take(1):
                self.close()
                return
            values, per_metric = self._metrics(self._samples[0], self._samples[1])
            if values:
                break
        if not values:
            self.reason = self.reason or "GPM offered none of the metrics asked for"
            self.close()
            return
        self.reason = ""
        # Only what the GPU does not offer is missing for good: a value that is unusable in the probe's
        # short first window (DRAM bandwidth read NaN there on an H100) comes in later windows.
        self.missing = {name: why for name, why in per_metric.items() if why.startswith("GPM metric not offered")}
        self._previous_t = self.clock()
        self._turn = 0              # the next read fills buffer 0; buffer 1 holds the latest sample

    @property
    def supported(self) -> bool:
        return not self.reason

    def _take(self, slot: int) -> bool:
        _value, why = self.nvml.device_attempt(self.index, "nvmlGpmSampleGet", self._samples[slot])
        if why:
            self.reason = f"GPM sample failed: {why}"
            return False
        return True

    def _new_request(self, fields: list[tuple[str, int, str]]) -> Any:
        """A metrics request (a 19 KB structure in nvidia-ml-py 13), made once and reused by every read."""
        module = self.nvml.module
        request = module.c_nvmlGpmMetricsGet_t()
        request.version = getattr(module, "NVML_GPM_METRICS_GET_VERSION", METRICS_GET_VERSION)
        request.numMetrics = len(fields)
        for slot, (_name, metric_id, _what) in enumerate(fields):
            request.metrics[slot].metricId = metric_id
        return request

    def _metrics(self, first: Any, second: Any, light: bool = False) -> tuple[dict[str, float] | None,
                                                                              dict[str, str]]:
        request, fields = self._requests[light]
        request.sample1 = first
        request.sample2 = second
        result, why = self.nvml.attempt("nvmlGpmMetricsGet", request)
        if result is None:
            self.reason = f"GPM metrics failed: {why}"
            return None, {}
        values: dict[str, float] = {}
        reasons: dict[str, str] = {}
        for slot, (name, _metric_id, _what) in enumerate(fields):
            metric = result.metrics[slot]
            code = getattr(metric, "nvmlReturn", SUCCESS)
            if code != SUCCESS:
                reasons[name] = f"GPM metric not offered ({error_text(code)})"
                continue
            value = float(metric.value)
            if value != value or value < 0:  # NaN or negative: no usable value
                reasons[name] = "GPM gave no usable value"
                continue
            values[name] = value
            reasons[name] = ""
        return values, reasons

    def read(self, t: float) -> GpmSample | None:
        """The window since the previous read, stamped `t` (the feed's clock); None when GPM fails."""
        if self.reason:
            return None
        slot = self._turn
        now = self.clock()
        if not self._take(slot):
            return None
        previous = self._samples[1 - slot]
        light = self._reads % self.graphics_every != 0
        self._reads += 1
        values, _reasons = self._metrics(previous, self._samples[slot], light=light)
        if values is None:
            return None
        window = now - self._previous_t if self._previous_t is not None else 0.0
        self._previous_t = now
        self._turn = 1 - slot
        return GpmSample(t, round(window, 4), **{k: round(v, 3) for k, v in values.items()})

    def close(self) -> None:
        for sample in self._samples:
            self.nvml.call("nvmlGpmSampleFree", sample)
        self._samples = []
        if not self.reason:
            self.reason = "GPM closed"
