"""Host CPU and memory through psutil; a failing read gives missing values, never an exception."""

from __future__ import annotations

from aiperf_lab.metrics.telemetry.model import HostSample


class HostSource:
    def __init__(self) -> None:
        try:
            import psutil
        except ImportError:  # psutil is a dependency, but a broken install must not stop GPU sampling
            psutil = None
        self._psutil = psutil
        if psutil is not None:
            try:
                psutil.cpu_percent(interval=None)  # the first call only sets the reference point
            except Exception:
                pass

    def sample(self, t: float) -> HostSample:
        if self._psutil is None:
            return HostSample(t)
        try:
            cpu = self._psutil.cpu_percent(interval=None)
        except Exception:
            cpu = None
        try:
            memory = self._psutil.virtual_memory()
            used, total = memory.total - memory.available, memory.total
        except Exception:
            used = total = None
        return HostSample(t, cpu, used, total)

    def process_name(self, pid: int) -> str | None:
        if self._psutil is None:
            return None
        try:
            return self._psutil.Process(pid).name()
        except Exception:  # gone, or another user's process in a container
            return None
