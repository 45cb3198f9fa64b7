"""A bounded ring buffer of ticks with a cheap, thread-safe snapshot.

Memory is fixed by rate x window x GPUs: the deque holds rate x window ticks, each with one sample
per GPU. Readers that redraw at 4-10 Hz take a snapshot (a list copy under the lock) and compare
`version` to skip redraws when nothing changed.
"""

from __future__ import annotations

import threading
from collections import deque

from aiperf_lab.metrics.telemetry.model import Tick


class RingBuffer:
    def __init__(self, capacity_ticks: int):
        if capacity_ticks < 1:
            raise ValueError("capacity_ticks must be at least 1")
        self._ticks: deque[Tick] = deque(maxlen=capacity_ticks)
        self._lock = threading.Lock()
        self.version = 0  # bumped on every append
        self.capacity = capacity_ticks

    def append(self, tick: Tick) -> None:
        with self._lock:
            self._ticks.append(tick)
            self.version += 1

    def snapshot(self, window_s: float | None = None) -> tuple[int, list[Tick]]:
        """(version, ticks), the newest last; only the last `window_s` seconds if given."""
        with self._lock:
            ticks = list(self._ticks)
            version = self.version
        if window_s is not None and ticks:
            cutoff = ticks[-1].t - window_s
            start = 0
            for start in range(len(ticks) - 1, -1, -1):  # from the end: windows are short
                if ticks[start].t < cutoff:
                    start += 1
                    break
            ticks = ticks[start:]
        return version, ticks

    def latest(self) -> Tick | None:
        with self._lock:
            return self._ticks[-1] if self._ticks else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._ticks)
