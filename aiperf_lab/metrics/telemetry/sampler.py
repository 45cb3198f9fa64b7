"""The live sampler: one thread reads every GPU (NVML) and the host (psutil) at a fixed rate.

    sampler = Sampler(rate_hz=10)
    sampler.start()
    version, ticks = sampler.ring.snapshot(window_s=60)
    with sampler.measure() as span:     # an energy meter for a span of work
        run_the_work()
    print(span.result(work=tokens, work_unit="tokens").per_gpu)
    sampler.stop()

Timing is deadline-based (no drift). Reads come in tiers, each at its own rate, to keep the whole
sampler cheap at 10 Hz (the goal: within 0.5% of one core per GPU; measured figures in
docs/benchmarks.md); `tiers()` lists them and a recording's metadata line carries that list:

- every tick: instant power (or the driver's average where the GPU has no instant reading) and
  utilization: two NVML calls;
- every `status_every_s` (1 s): averaged power, memory, temperature, SM and memory clocks, clock-event
  reasons. Each sample carries the latest of these with the time they were read (`status_t`);
- every `slow_every_s` (2 s): the PCIe link and the processes, with their SM and memory shares when a
  process runs (the shares' call costs about 2.8 ms of CPU even when it finds nothing); the NVLink
  states and the power limit every `links_every_s` (10 s); the PCIe maximum once;
- GPM (SM, tensor, DRAM activity; Hopper and later) every `gpm_every_s` (2 s). Graphics activity alone
  costs about 1.8 ms of CPU per read and the other fourteen metrics about 0.2 ms (H200), so it is
  asked for in one window of five (nvml_source.GPM_GRAPHICS_EVERY) and is empty in the others. Every
  sample carries the latest GPM window with its own end time and length;
- the host (psutil) every `host_every_s` (1 s);
- the energy counter at start and stop, at the start and end of every measured span (so a span's
  joules are the counter's, exactly), and every `energy_every_s` (10 s) in between to anchor the live
  figure, which grows by the integral of instant power between reads. A read costs about 4 ms of CPU
  (measured on an H200 host), more than the whole sampler's per-second budget at 10 Hz.

Per-process energy is an estimate: the GPU's energy over each slow window split by SM share.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

from aiperf_lab.metrics.telemetry.energy import EnergyTracker
from aiperf_lab.metrics.telemetry.host import HostSource
from aiperf_lab.metrics.telemetry.meter import measure
from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuProcess, GpuSample, GpuStatus, Tick
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.ring import RingBuffer

if TYPE_CHECKING:
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter

MAX_RATE_HZ = 100.0


class Sampler:
    kind = "nvml"

    def __init__(self, rate_hz: float = 10.0, window_s: float = 600.0, *, source: NvmlSource | None = None,
                 host: HostSource | None = None, energy_every_s: float = 10.0, status_every_s: float = 1.0,
                 slow_every_s: float = 2.0, links_every_s: float = 10.0, host_every_s: float = 1.0,
                 gpm_every_s: float = 2.0,
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
        self._status_every = max(1, int(round(status_every_s * rate_hz)))
        self._slow_every = max(1, int(round(slow_every_s * rate_hz)))
        self._links_every = max(1, int(round(links_every_s / (self._slow_every / rate_hz))))  # in slow reads
        self._slow_reads = 0
        self._gpm_every = max(1, int(round(gpm_every_s * rate_hz)))
        self.gpm_every_s = self._gpm_every / rate_hz   # the GPM window, for a recording's header
        self._gpm: dict[int, GpmSample | None] = {}
        # GPU -> (time read, status_fields: average power, memory used and total, temperature, clocks, reasons)
        self._status: dict[int, tuple[float, tuple]] = {}
        self._process_energy: dict[int, dict[int, float]] = {}   # GPU -> pid -> estimated joules
        self._energy_mark: dict[int, float] = {}                 # GPU -> energy at the last slow read
        # psutil reads /proc on every call: reading the host once a second keeps it off the budget.
        self._host_every = max(1, int(round(host_every_s * rate_hz)))
        self._host_sample = None
        self._recorder = recorder
        self._clock = clock
        self._t0: float | None = None
        self.utc_origin_ns: int | None = None       # UTC ns at t = 0 (set by start)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []                # unexpected failures, kept for the caller to show
        if recorder is not None:
            from aiperf_lab.metrics.telemetry.recording import recording_meta
            recorder.start(recording_meta(self.devices, rate_hz, self.gpm_every_s, self.tiers()))

    def tiers(self) -> list[dict]:
        """Which fields are read how often (seconds), as a recording's metadata line says them."""
        period = self.period
        return [
            {"every_s": period, "fields": ["power_w", "util_gpu_pct", "util_mem_pct"],
             "note": "power_avg_w too where power_source is average (no instant power on the GPU)"},
            {"every_s": self._status_every * period, "time_column": "status_t_s",
             "fields": ["power_avg_w", "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz",
                        "mem_clock_mhz", "clock_event_reasons"]},
            {"every_s": self._slow_every * period, "fields": ["pcie_gen", "pcie_width", "processes"]},
            {"every_s": self._slow_every * self._links_every * period, "fields": ["power_limit_w", "nvlink"]},
            {"every_s": self.gpm_every_s, "time_column": "gpm_t_s", "fields": ["gpm_*"],
             "note": "gpm_graphics_pct only in one window of every "
                     f"{self._gpm_graphics_every()} (empty in the others)"},
            {"every_s": self._host_every * period, "fields": ["cpu_pct", "host_mem_used_bytes"]},
            {"every_s": self._energy_every * period, "fields": ["energy counter (energy_j between reads: "
                                                                 "the last read plus integrated instant power)"]},
        ]

    def _gpm_graphics_every(self) -> int:
        devices = [d for d in getattr(self.source, "gpm_devices", []) if d is not None]
        return devices[0].graphics_every if devices else 1

    # --- lifecycle -----------------------------------------------------------------------------
    def start(self) -> "Sampler":
        if self._thread is not None:
            return self
        # The system clock read on both sides of t0: its midpoint is t0 in UTC, to a few microseconds.
        before = time.time_ns()
        self._t0 = self._clock()
        self.utc_origin_ns = (before + time.time_ns()) // 2
        if self._recorder is not None:
            self._recorder.utc_origin_ns = self.utc_origin_ns
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
            self._tick(tick)
            tick += 1
            next_at += self.period
            late = self._clock() - next_at
            if late > self.period:  # fell behind (suspended, overloaded): skip, do not burst
                next_at += (int(late / self.period) + 1) * self.period

    def _tick(self, tick: int) -> None:
        """Tick number `tick` of the loop (1, 2, ...), with the tiers due at it."""
        try:
            self._sample(tick, read_counter=tick % self._energy_every == 0,
                         read_status=tick % self._status_every == 0,
                         read_slow=tick % self._slow_every == 0,
                         read_gpm=tick % self._gpm_every == self._gpm_every // 2)
        except Exception as exc:  # never let a bug end sampling silently: keep it, carry on
            if len(self.errors) < 20:
                self.errors.append(f"{type(exc).__name__}: {exc}")

    def _sample(self, tick: int, read_counter: bool, read_status: bool = False, read_slow: bool = False,
                read_gpm: bool = False) -> Tick:
        """One tick: the every-tick fields of every GPU first, then the slower tiers that are due (the
        energy counter costs about 4 ms), so each sample's time is when its power was read and the slower
        reads delay no GPU's power reading."""
        src = self.source
        now = self.now
        t_tick = now()
        readings = [None if info.index in src.lost else (now(), src.tick_fields(info.index)) for info in self.devices]
        gpus = []
        status = self._status
        for info, reading in zip(self.devices, readings):
            i = info.index
            if reading is None:
                gpus.append(GpuSample(now(), i, lost=True))
                continue
            t, (power, power_source, util_gpu, util_mem) = reading
            if read_status or i not in status:
                status[i] = (now(), src.status_fields(i))
            status_t, (average, mem_used, mem_total, temp, sm_clock, mem_clock, reasons) = status[i]
            if power_source == "average":
                average = power          # read this tick
            limit = self.slow[i].power_limit_w if i in self.slow else info.power_limit_w
            gpus.append(GpuSample(t, i, power, power_source, average, limit, None, "", util_gpu, util_mem,
                                  mem_used, mem_total, temp, sm_clock, mem_clock, reasons, status_t=status_t))
        if read_slow:
            self._slow_reads += 1
        read_links = self._slow_reads % self._links_every == 0
        for sample, info in zip(gpus, self.devices):
            if sample.lost:
                continue
            counter = src.energy_mj(info.index) if read_counter and info.energy_counter else None
            with self._energy_lock:
                tracker = self._energy[info.index]
                tracker.add_power(sample.t, sample.power_w)
                if counter is not None:
                    tracker.add_counter(now(), counter)
                sample.energy_j, sample.energy_source = tracker.energy_j(), tracker.source
            if read_gpm and info.gpm_reason == "":
                window = self._gpm[info.index] = src.gpm(info.index, now())
                if window is None:
                    self._gpm_stopped(info)
            sample.gpm = self._gpm.get(info.index)
            sample.lost = info.index in src.lost
            if read_slow or info.index not in self.slow:
                slow = src.slow(info.index, self.host.process_info, links=read_links)
                self._attribute_energy(info.index, sample.energy_j, slow.processes)
                self.slow[info.index] = slow
        # a first host reading has no CPU share yet (see host.py): read again at the next tick, not a second later
        if self._host_sample is None or self._host_sample.cpu_pct is None or tick % self._host_every == 0 or tick < 0:
            self._host_sample = self.host.sample(now())
        record = Tick(t_tick, gpus, self._host_sample)
        self.ring.append(record)
        if self._recorder is not None:
            self._recorder.write(record, self.slow)
        return record

    def _gpm_stopped(self, info: GpuInfo) -> None:
        """GPM failed mid-run (lost GPU, driver error): say why on the device, as feeds do for missing fields."""
        from dataclasses import replace

        devices = getattr(self.source, "gpm_devices", [])
        device = devices[info.index] if info.index < len(devices) else None
        reason = device.reason if device is not None and device.reason else "GPM read failed"
        position = self.devices.index(info)
        self.devices[position] = replace(info, gpm_reason=f"GPM stopped: {reason}")

    def _attribute_energy(self, index: int, energy_j: float | None, processes: list[GpuProcess]) -> None:
        before = self._energy_mark.get(index)
        if energy_j is not None:
            self._energy_mark[index] = energy_j
        window_j = energy_j - before if energy_j is not None and before is not None else None
        self._process_energy[index] = share_energy(processes, window_j, self._process_energy.get(index, {}))

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



def share_energy(processes: list[GpuProcess], window_j: float | None,
                 totals: dict[int, float]) -> dict[int, float]:
    """An ESTIMATE of each process's energy: the GPU's joules over the window split by SM share (a
    process's smUtil over the sum of all processes' smUtil). Idle energy (no SM share reported) is not
    attributed. Fills energy_share_pct and energy_est_j on the processes; returns the running totals
    per pid, for the processes still present."""
    total_sm = sum(p.sm_pct for p in processes if p.sm_pct)
    kept: dict[int, float] = {}
    for p in processes:
        so_far = totals.get(p.pid, 0.0)
        if total_sm > 0 and p.sm_pct is not None:
            share = p.sm_pct / total_sm
            p.energy_share_pct = round(100.0 * share, 1)
            if window_j is not None and window_j > 0:
                so_far += window_j * share
        elif p.sm_pct is not None:
            p.energy_share_pct = 0.0
        if p.pid in totals or p.energy_share_pct is not None:
            p.energy_est_j = round(so_far, 1)
            kept[p.pid] = so_far
    return kept
