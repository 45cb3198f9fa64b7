"""The live sampler: one thread reads every GPU (NVML) and the host (psutil) at a fixed rate.

    sampler = Sampler(rate_hz=10)
    sampler.start()
    version, ticks = sampler.ring.snapshot(window_s=60)
    with sampler.measure() as span:     # an energy meter for a span of work
        run_the_work()
    print(span.result(work=tokens, work_unit="tokens").per_gpu)
    sampler.stop()

Timing is deadline-based (no drift). The energy counter is read at start and stop, at the start and
end of every measured span (so a span's joules are the counter's, exactly), and every
`energy_every_s` (default 5 s) in between to anchor the live figure, which grows by the integral of
instant power between reads. Each read costs about 4 ms of CPU (measured on an H200 host): reading
it every second would cost 0.4-0.6% of a core by itself, more than the whole sampler's budget at
10 Hz (docs/benchmarks.md). Slow fields (PCIe, NVLink, processes) are read every `slow_every_s`,
the host (psutil) every `host_every_s`, each tick carrying the latest host reading with its own time.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

from aiperf_lab.metrics.telemetry.energy import EnergyTracker
from aiperf_lab.metrics.telemetry.host import HostSource
from aiperf_lab.metrics.telemetry.meter import measure
from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, GpuStatus, Tick
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.ring import RingBuffer

if TYPE_CHECKING:
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter

MAX_RATE_HZ = 100.0


class Sampler:
    kind = "nvml"

    def __init__(self, rate_hz: float = 10.0, window_s: float = 600.0, *, source: NvmlSource | None = None,
                 host: HostSource | None = None, energy_every_s: float = 5.0, slow_every_s: float = 2.0,
                 host_every_s: float = 1.0,
                 recorder: "TelemetryWriter | None" = None, clock: Callable[[], float] = time.monotonic):
        if not 0 < rate_hz <= MAX_RATE_HZ:
            raise ValueError(f"rate must be above 0 and at most {MAX_RATE_HZ:g} Hz")
        self.rate_hz = rate_hz
        self.period = 1.0 / rate_hz
        self.source = source if source is not None else NvmlSource.open()
        self.host = host if host is not None else HostSource()
        self.devices: list[GpuInfo] = list(self.source.infos)
        self.status = self.source.status           # "" or why there are no GPUs (show it as is)
        self.ring = RingBuffer(max(1, int(round(rate_hz * window_s))))
        self.slow: dict[int, GpuStatus] = {}
        self._energy = [EnergyTracker() for _ in self.devices]
        self._energy_lock = threading.Lock()
        self._energy_every = max(1, int(round(energy_every_s * rate_hz)))
        self._slow_every = max(1, int(round(slow_every_s * rate_hz)))
        # psutil reads /proc on every call: reading the host once a second keeps it off the budget.
        self._host_every = max(1, int(round(host_every_s * rate_hz)))
        self._host_sample = None
        self._recorder = recorder
        self._clock = clock
        self._t0: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []                # unexpected failures, kept for the caller to show

    # --- lifecycle -----------------------------------------------------------------------------
    def start(self) -> "Sampler":
        if self._thread is not None:
            return self
        self._t0 = self._clock()
        self._stop.clear()
        self._sample(0, read_counter=True)          # a first tick, with the counter, before returning
        self._thread = threading.Thread(target=self._run, name="aiperf-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        self._sample(-1, read_counter=True)          # the final counter read closes the energy account
        if self._recorder is not None:
            self._recorder.flush()

    def close(self) -> None:
        self.stop()
        self.source.close()

    def __enter__(self) -> "Sampler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def now(self) -> float:
        """Seconds since start, on the samples' clock."""
        return self._clock() - (self._t0 if self._t0 is not None else self._clock())

    # --- the loop ------------------------------------------------------------------------------
    def _run(self) -> None:
        tick = 1
        next_at = self._t0 + self.period
        while not self._stop.is_set():
            delay = next_at - self._clock()
            if delay > 0:
                # A plain sleep costs a third less CPU per wake-up than Event.wait; long periods still
                # wait on the event so that stop() is prompt.
                if delay > 0.5:
                    if self._stop.wait(delay):
                        break
                else:
                    time.sleep(delay)
                    if self._stop.is_set():
                        break
            try:
                self._sample(tick, read_counter=tick % self._energy_every == 0,
                             read_slow=tick % self._slow_every == 0)
            except Exception as exc:  # never let a bug end sampling silently: keep it, carry on
                if len(self.errors) < 20:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
            tick += 1
            next_at += self.period
            late = self._clock() - next_at
            if late > self.period:  # fell behind (suspended, overloaded): skip, do not burst
                next_at += (int(late / self.period) + 1) * self.period

    def _sample(self, tick: int, read_counter: bool, read_slow: bool = False) -> Tick:
        """One tick: fast fields of every GPU first, then the slow reads (the energy counter costs about
        4 ms), so each sample's time is when its power was read and the slow reads delay no GPU."""
        src = self.source
        t_tick = self.now()
        gpus = []
        for info in self.devices:
            i = info.index
            if i in src.lost:
                gpus.append(GpuSample(self.now(), i, lost=True))
                continue
            t = self.now()
            power, power_source, average = src.power_w(i)
            limit = self.slow[i].power_limit_w if i in self.slow else info.power_limit_w
            gpus.append(GpuSample(t, i, power, power_source, average, limit, **src.fast(i)))
        for sample, info in zip(gpus, self.devices):
            if sample.lost:
                continue
            counter = src.energy_mj(info.index) if read_counter and info.energy_counter else None
            with self._energy_lock:
                tracker = self._energy[info.index]
                tracker.add_power(sample.t, sample.power_w)
                tracker.add_counter(self.now(), counter)
                sample.energy_j, sample.energy_source = tracker.energy_j(), tracker.source
            sample.lost = info.index in src.lost
            if read_slow or info.index not in self.slow:
                self.slow[info.index] = src.slow(info.index, self.host.process_name)
        # a first host reading has no CPU share yet (see host.py): read again at the next tick, not a second later
        if self._host_sample is None or self._host_sample.cpu_pct is None or tick % self._host_every == 0 or tick < 0:
            self._host_sample = self.host.sample(self.now())
        record = Tick(t_tick, gpus, self._host_sample)
        self.ring.append(record)
        if self._recorder is not None:
            self._recorder.write(record, self.slow)
        return record

    # --- energy --------------------------------------------------------------------------------
    def energy_now(self) -> list[tuple[float | None, str]]:
        """(joules since start, source) per GPU, with a fresh counter read where supported."""
        t = self.now()
        readings = []
        for info in self.devices:
            counter = self.source.energy_mj(info.index) if info.energy_counter else None
            with self._energy_lock:
                tracker = self._energy[info.index]
                if counter is not None:
                    tracker.add_counter(t, counter)
                readings.append((tracker.energy_j(), tracker.source))
        return readings

    def measure(self, idle_baseline_w: dict[int, float] | None = None):
        """Energy meter for the work inside a `with` block: joules per GPU, average and peak power."""
        return measure(self, idle_baseline_w)

