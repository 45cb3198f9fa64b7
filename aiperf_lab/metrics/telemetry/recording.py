"""Telemetry recordings on disk, and their replay.

Written layout (one row per sample per GPU; with no GPU, one host-only row per tick with `gpu` empty):

| column | meaning |
|---|---|
| t_s | seconds since the recording started |
| gpu | NVML device index |
| power_w, power_source | instant power where supported ("instant"), else the averaged reading ("average") |
| power_avg_w | nvmlDeviceGetPowerUsage, averaged by the driver over about a second |
| power_limit_w | enforced power limit |
| energy_j, energy_source | energy since the start: "counter" (NVML total energy, interpolated with instant power between reads) or "integrated" |
| util_gpu_pct, util_mem_pct | NVML utilization rates |
| mem_used_bytes, mem_total_bytes | device memory |
| temp_c, sm_clock_mhz, mem_clock_mhz | temperature, clocks |
| clock_event_reasons, clock_event_names | NVML clock-event bitmask, and its names joined by "|" |
| pcie_gen, pcie_width, pcie_gen_max, pcie_width_max | PCIe link now and at most (read about every 2 s) |
| lost | 1 when the GPU fell off the bus |
| cpu_pct, host_mem_used_bytes, host_mem_total_bytes | the host, through psutil |

Also read: the raw NVML loop layout of the H200 recording shipped with the package
(`t_s, power_mw, power_instant_mw, energy_mj, ...`, counter every 10th row) and `nvidia-smi
--query-gpu ... --format=csv` logs.
"""

from __future__ import annotations

import csv
import io
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from aiperf_lab.errors import InputError, NotAProfile
from aiperf_lab.metrics.telemetry.energy import EnergyTracker
from aiperf_lab.metrics.telemetry.meter import measure
from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, GpuStatus, HostSample, Tick
from aiperf_lab.metrics.telemetry.ring import RingBuffer

COLUMNS = ["t_s", "gpu", "power_w", "power_source", "power_avg_w", "power_limit_w", "energy_j", "energy_source",
           "util_gpu_pct", "util_mem_pct", "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz",
           "mem_clock_mhz", "clock_event_reasons", "clock_event_names", "pcie_gen", "pcie_width", "pcie_gen_max",
           "pcie_width_max", "lost", "cpu_pct", "host_mem_used_bytes", "host_mem_total_bytes"]
RAW_NVML_COLUMNS = ["t_s", "power_mw", "power_instant_mw", "energy_mj", "util_gpu", "util_mem", "mem_used_b",
                    "temp_c", "sm_clock_mhz", "mem_clock_mhz", "clock_event_reasons"]

DEMO_RECORDING = Path(__file__).with_name("data") / "nvml_100hz_matmul_copy.csv"


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e15 else repr(value)
    return str(value)


class TelemetryWriter:
    """CSV rows for each tick; flushed about once a second and on close."""

    def __init__(self, stream: TextIO, flush_every_s: float = 1.0):
        self._stream = stream
        self._writer = csv.writer(stream, lineterminator="\n")
        self._writer.writerow(COLUMNS)
        self._flush_every = flush_every_s
        self._last_flush = time.monotonic()

    @classmethod
    def to_path(cls, path: Path) -> "TelemetryWriter":
        return cls(open(path, "w", encoding="utf-8", newline=""))

    def write(self, tick: Tick, slow: dict[int, GpuStatus]) -> None:
        host = tick.host or HostSample(tick.t)
        host_cells = [_cell(host.cpu_pct), _cell(host.mem_used_bytes), _cell(host.mem_total_bytes)]
        if not tick.gpus:
            self._writer.writerow([f"{tick.t:.4f}"] + [""] * (len(COLUMNS) - 4) + host_cells)
        for s in tick.gpus:
            link = slow.get(s.index) or GpuStatus()
            self._writer.writerow([
                f"{s.t:.4f}", s.index, _cell(s.power_w), s.power_source, _cell(s.power_avg_w),
                _cell(s.power_limit_w), _cell(s.energy_j), s.energy_source, _cell(s.util_gpu_pct),
                _cell(s.util_mem_pct), _cell(s.mem_used_bytes), _cell(s.mem_total_bytes), _cell(s.temp_c),
                _cell(s.sm_clock_mhz), _cell(s.mem_clock_mhz), _cell(s.clock_event_reasons),
                "|".join(s.clock_event_names), _cell(link.pcie_gen), _cell(link.pcie_width),
                _cell(link.pcie_gen_max), _cell(link.pcie_width_max), "1" if s.lost else "0", *host_cells])
        if time.monotonic() - self._last_flush >= self._flush_every:
            self.flush()

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass
        self._last_flush = time.monotonic()

    def close(self) -> None:
        self.flush()
        self._stream.close()


@dataclass
class Recording:
    path: Path
    layout: str                   # "aiperf", "nvml-raw" or "nvidia-smi"
    devices: list[GpuInfo]
    ticks: list[Tick]

    @property
    def duration_s(self) -> float:
        return self.ticks[-1].t - self.ticks[0].t if self.ticks else 0.0


def _number(text: str) -> float | None:
    text = text.strip()
    if not text or text in ("[N/A]", "N/A", "[Not Supported]"):
        return None
    try:
        value = float(text.split()[0].replace(",", ""))  # "81.72 W" -> 81.72
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # nan/inf: no reading


def _int(text: str) -> int | None:
    value = _number(text)
    return int(value) if value is not None else None  # _number is finite, so int() cannot fail


def sniff_recording(header: list[str]) -> str | None:
    names = [h.strip() for h in header]
    if names[:2] == ["t_s", "gpu"] and "power_w" in names:
        return "aiperf"
    if names[:3] == ["t_s", "power_mw", "power_instant_mw"] or (names[:1] == ["t_s"] and "power_mw" in names):
        return "nvml-raw"
    if names and names[0] == "timestamp" and any(n.startswith("power.draw") for n in names):
        return "nvidia-smi"
    return None


MAX_RECORDING_BYTES = 2 << 30


def read_recording(path: Path) -> Recording:
    """A recording in any of the three layouts; rows cut short (a killed writer) are skipped, values that
    are not finite numbers read as missing, times must be finite. InputError for anything else."""
    from aiperf_lab.inputs import decode_text, read_bounded

    text = decode_text(read_bounded(path, MAX_RECORDING_BYTES))
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # a field over csv's 128 KiB limit, a NUL byte
        raise InputError(f"{path}: not a telemetry recording ({exc})") from None
    if not rows:
        raise InputError(f"{path}: empty file")
    layout = sniff_recording(rows[0])
    if layout is None:
        raise NotAProfile(f"{path}: not a telemetry recording (unknown columns: {','.join(rows[0][:4])}...)")
    body = [r for r in rows[1:] if r and any(cell.strip() for cell in r)]
    reader = {"aiperf": _read_aiperf, "nvml-raw": _read_raw, "nvidia-smi": _read_smi}[layout]
    devices, ticks = reader(rows[0], body)
    ticks.sort(key=lambda tick: tick.t)  # stable: a log whose clock stepped back replays in time order
    if not ticks:
        raise InputError(f"{path}: a telemetry recording with a header but no samples")
    return Recording(path, layout, devices, ticks)


def _read_aiperf(header: list[str], body: list[list[str]]):
    col = {name: i for i, name in enumerate(header)}
    ticks: dict[float, Tick] = {}
    devices: dict[int, GpuInfo] = {}
    for row in body:
        if len(row) < len(header):
            continue  # a truncated last line (the sampler was killed mid-write)
        get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
        t = _number(get("t_s"))
        if t is None:
            continue
        tick = ticks.get(t)
        if tick is None:
            host = HostSample(t, _number(get("cpu_pct")), _int(get("host_mem_used_bytes")),
                              _int(get("host_mem_total_bytes")))
            tick = ticks[t] = Tick(t, [], host)
        index = _int(get("gpu"))
        if index is None:
            continue
        sample = GpuSample(
            t, index, _number(get("power_w")), get("power_source"), _number(get("power_avg_w")),
            _number(get("power_limit_w")), _number(get("energy_j")), get("energy_source"),
            _number(get("util_gpu_pct")), _number(get("util_mem_pct")), _int(get("mem_used_bytes")),
            _int(get("mem_total_bytes")), _number(get("temp_c")), _number(get("sm_clock_mhz")),
            _number(get("mem_clock_mhz")), _int(get("clock_event_reasons")), get("lost") == "1")
        tick.gpus.append(sample)
        if index not in devices:
            devices[index] = GpuInfo(index, mem_total_bytes=sample.mem_total_bytes, power_limit_w=sample.power_limit_w,
                                     energy_counter=sample.energy_source == "counter",
                                     instant_power=sample.power_source == "instant")
    return [devices[i] for i in sorted(devices)], sorted(ticks.values(), key=lambda k: k.t)


def _read_raw(header: list[str], body: list[list[str]]):
    """The raw pynvml loop layout: mW, mJ (the counter every few rows), one GPU."""
    col = {name: i for i, name in enumerate(header)}
    tracker = EnergyTracker()
    ticks = []
    instant_seen = counter_seen = False
    for row in body:
        if len(row) < len(header):
            continue
        get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
        t = _number(get("t_s"))
        if t is None:
            continue
        average = _number(get("power_mw"))
        instant = _number(get("power_instant_mw"))
        power_mw, source = (instant, "instant") if instant is not None else (average, "average" if average else "")
        power = power_mw / 1000.0 if power_mw is not None else None
        tracker.add_power(t, power)
        counter = _number(get("energy_mj"))
        tracker.add_counter(t, counter)
        instant_seen |= instant is not None
        counter_seen |= counter is not None
        ticks.append(Tick(t, [GpuSample(
            t, 0, power, source, average / 1000.0 if average is not None else None, None,
            tracker.energy_j(), tracker.source, _number(get("util_gpu")), _number(get("util_mem")),
            _int(get("mem_used_b")), None, _number(get("temp_c")), _number(get("sm_clock_mhz")),
            _number(get("mem_clock_mhz")), _int(get("clock_event_reasons")))], None))
    return [GpuInfo(0, energy_counter=counter_seen, instant_power=instant_seen)], ticks


def _read_smi(header: list[str], body: list[list[str]]):
    """`nvidia-smi --query-gpu=timestamp,power.draw,... --format=csv`: average power only, integrated."""
    from datetime import datetime

    names = [h.strip() for h in header]
    col = {name.split(" [")[0]: i for i, name in enumerate(names)}
    trackers: dict[int, EnergyTracker] = {}
    ticks: list[Tick] = []
    t0 = None
    for row in body:
        if len(row) < len(names):
            continue  # a line cut short (the log was still being written)
        row = [c.strip() for c in row]
        try:
            stamp = datetime.strptime(row[col["timestamp"]], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        except (ValueError, IndexError, OverflowError, OSError):
            continue
        t0 = stamp if t0 is None else t0
        t = stamp - t0
        index = _int(row[col["index"]]) if "index" in col else 0
        tracker = trackers.setdefault(index, EnergyTracker())
        power = _number(row[col["power.draw"]]) if "power.draw" in col else None
        tracker.add_power(t, power)
        mem_used = _number(row[col["memory.used"]]) if "memory.used" in col else None
        sample = GpuSample(t, index, power, "average" if power is not None else "", power, None, tracker.energy_j(),
                           tracker.source,
                           _number(row[col["utilization.gpu"]]) if "utilization.gpu" in col else None,
                           _number(row[col["utilization.memory"]]) if "utilization.memory" in col else None,
                           _int(str(mem_used * 1024 * 1024)) if mem_used is not None else None, None,
                           _number(row[col["temperature.gpu"]]) if "temperature.gpu" in col else None,
                           _number(row[col["clocks.current.sm"]]) if "clocks.current.sm" in col else None)
        if ticks and abs(ticks[-1].t - t) < 1e-9:
            ticks[-1].gpus.append(sample)
        else:
            ticks.append(Tick(t, [sample], None))
    return [GpuInfo(i) for i in sorted(trackers)], ticks


class ReplayFeed:
    """Plays a recording into a ring buffer in real time, faster (`speed`), or looped.

    Offers what a live Sampler offers (devices, status, ring, now(), energy_now(), measure()), so the
    console and the runner read a replay exactly as they read a GPU.
    """

    kind = "replay"

    def __init__(self, recording: Recording, speed: float = 1.0, loop: bool = False, window_s: float = 600.0,
                 clock: Callable[[], float] = time.monotonic):
        if speed <= 0:
            raise ValueError("speed must be above 0")
        self.recording = recording
        self.speed = speed
        self.loop = loop
        self.devices = recording.devices
        self.status = f"replaying {recording.path.name}" + (" (looped)" if loop else "")
        rate = len(recording.ticks) / recording.duration_s if recording.duration_s > 0 else 10.0
        self.ring = RingBuffer(max(1, int(rate * window_s)))
        self.slow: dict[int, GpuStatus] = {}
        self._clock = clock
        self._t0 = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.finished = threading.Event()

    def start(self) -> "ReplayFeed":
        if self._thread is None:
            self._t0 = self._clock()
            self._thread = threading.Thread(target=self._run, name="aiperf-replay", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    close = stop

    def now(self) -> float:
        return (self._clock() - self._t0) * self.speed if self._t0 is not None else 0.0

    def _run(self) -> None:
        ticks = self.recording.ticks
        first = ticks[0].t
        span = self.recording.duration_s + (ticks[1].t - ticks[0].t if len(ticks) > 1 else 0.1)
        lap = 0
        while not self._stop.is_set():
            offset = lap * span
            energy_offset = {d.index: self._lap_energy(d.index) * lap for d in self.devices}
            for tick in ticks:
                t = tick.t - first + offset
                delay = t / self.speed - (self._clock() - self._t0)
                if delay > 0 and self._stop.wait(delay):
                    return
                self.ring.append(_shift(tick, t, energy_offset))
            lap += 1
            if not self.loop:
                break
        self.finished.set()

    def _lap_energy(self, index: int) -> float:
        """Energy of one pass through the recording, for a GPU (looping keeps energy growing)."""
        for tick in reversed(self.recording.ticks):
            for s in tick.gpus:
                if s.index == index and s.energy_j is not None:
                    return s.energy_j
        return 0.0

    def energy_now(self) -> list[tuple[float | None, str]]:
        latest = self.ring.latest()
        by_index = {s.index: s for s in latest.gpus} if latest else {}
        return [(by_index[d.index].energy_j, by_index[d.index].energy_source) if d.index in by_index else (None, "")
                for d in self.devices]

    def measure(self, idle_baseline_w: dict[int, float] | None = None):
        return measure(self, idle_baseline_w)


def _shift(tick: Tick, t: float, energy_offset: dict[int, float]) -> Tick:
    gpus = []
    for s in tick.gpus:
        moved = GpuSample(**{name: getattr(s, name) for name in GpuSample.__slots__})
        moved.t = t
        if moved.energy_j is not None:
            moved.energy_j += energy_offset.get(s.index, 0.0)
        gpus.append(moved)
    host = HostSample(t, tick.host.cpu_pct, tick.host.mem_used_bytes, tick.host.mem_total_bytes) if tick.host else None
    return Tick(t, gpus, host)
