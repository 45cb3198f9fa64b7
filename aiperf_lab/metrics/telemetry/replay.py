"""A recording played as a live feed: `ReplayFeed` plays a `Recording` into a ring buffer in real time,
faster, or looped, and offers what a live Sampler offers (the TelemetryFeed contract, feed.py)."""

from __future__ import annotations

import threading
import time
from typing import Callable

from aiperf_lab.metrics.telemetry.meter import measure
from aiperf_lab.metrics.telemetry.model import GpuSample, GpuStatus, HostSample, Tick
from aiperf_lab.metrics.telemetry.recording import Recording
from aiperf_lab.metrics.telemetry.ring import RingBuffer


class ReplayFeed:
    """Plays a recording into a ring buffer in real time, faster (`speed`), or looped.

    Offers what a live Sampler offers (devices, status, ring, slow, now(), energy_now(), measure()), so
    the console and the runner read a replay exactly as they read a GPU. `slow` follows the recording's
    process and link reads as they are played.
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
            updates = self.recording.status_updates
            next_update = 0
            for tick in ticks:
                t = tick.t - first + offset
                delay = t / self.speed - (self._clock() - self._t0)
                if delay > 0 and self._stop.wait(delay):
                    return
                while next_update < len(updates) and updates[next_update][0] <= tick.t:
                    _t, index, status = updates[next_update]
                    self.slow[index] = status
                    next_update += 1
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
        if moved.gpm is not None:
            from dataclasses import replace
            moved.gpm = replace(moved.gpm, t=moved.gpm.t - s.t + t)
        if moved.status_t is not None:
            moved.status_t = moved.status_t - s.t + t
        if moved.energy_j is not None:
            moved.energy_j += energy_offset.get(s.index, 0.0)
        gpus.append(moved)
    host = HostSample(t, tick.host.cpu_pct, tick.host.mem_used_bytes, tick.host.mem_total_bytes) if tick.host else None
    return Tick(t, gpus, host)


def why_not_replayable(recording: Recording) -> str | None:
    """Why `recording` cannot be played as a feed, in words after its path, or None when it can: a sample time
    that is a number no recording reaches (nan, inf, 1e400, past MAX_TIME_S: the reports skip such a row as
    damaged, a replay would play a clock that makes no sense) or a negative one. The row is named by its
    number among the sample rows, as the reader noted it; checked without making a Tick."""
    import math

    if recording.bad_time is not None:
        row, cell = recording.bad_time
        return f"sample {row} has the time {_unreachable(cell.strip())}"
    if recording.negative_time is not None:
        row, cell = recording.negative_time
        return f"sample {row} has the time {cell.strip()} s: times must not be negative"
    if recording.columns is not None:  # the reader notes every negative time of its columns
        return None
    for tick in recording.ticks:  # (in time order: the file's row is not known here)
        if not (isinstance(tick.t, (int, float)) and math.isfinite(tick.t) and tick.t >= 0):
            return f"a sample has the time {tick.t!r} s: times must be finite and not negative"
    return None


def _unreachable(cell: str) -> str:
    """`cell` (a time past any recording) and the rule it breaks."""
    import math

    from aiperf_lab.metrics.telemetry.columns import MAX_TIME_S
    try:
        value = float(cell.split()[0].replace(",", ""))
    except (ValueError, IndexError):
        value = math.nan
    if math.isnan(value) or (math.isinf(value) and "inf" in cell.lower()):
        return f"{cell!r}: not a finite number"
    return f"{cell} s: past the {MAX_TIME_S:.0e} s (31 years) a recording can reach".replace("1e+09", "1e9")
