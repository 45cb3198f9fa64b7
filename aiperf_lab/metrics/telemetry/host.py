"""Host CPU and memory through psutil; a failing read gives missing values, never an exception."""

from __future__ import annotations

import time

# psutil.cpu_percent(interval=None) compares with the previous call: right after the first (priming)
# call it has no interval to measure and says 0.0, which read as "the host was idle" on a busy machine.
MIN_CPU_INTERVAL_S = 0.1

from aiperf_lab.metrics.telemetry.model import HostSample


class HostSource:
    def __init__(self) -> None:
        try:
            import psutil
        except ImportError:  # psutil is a dependency, but a broken install must not stop GPU sampling
            psutil = None
        self._psutil = psutil
        self._cpu_since = time.monotonic()
        if psutil is not None:
            try:
                psutil.cpu_percent(interval=None)  # the first call only sets the reference point
            except Exception:
                pass

    def sample(self, t: float) -> HostSample:
        if self._psutil is None:
            return HostSample(t)
        cpu = None
        if time.monotonic() - self._cpu_since >= MIN_CPU_INTERVAL_S:  # else unknown, not a false 0%
            try:
                cpu = self._psutil.cpu_percent(interval=None)
                self._cpu_since = time.monotonic()
            except Exception:
                cpu = None
        try:
            memory = self._psutil.virtual_memory()
            used, total = memory.total - memory.available, memory.total
        except Exception:
            used = total = None
        return HostSample(t, cpu, used, total)

    def process_name(self, pid: int) -> str | None:
        return self.process_info(pid).name

    def process_info(self, pid: int) -> "ProcessInfo":
        """Name, user and command line of a pid; missing parts stay None (gone, another user's process,
        or a pid from another PID namespace, as NVML reports host pids inside containers)."""
        from aiperf_lab.metrics.telemetry.nvml_source import ProcessInfo

        info = ProcessInfo()
        if self._psutil is None:
            return info
        try:
            process = self._psutil.Process(pid)
            with process.oneshot():
                info.name = _safe(process.name)
                info.user = _safe(process.username)
                command = _safe(process.cmdline)
                info.command = " ".join(command) if command else None
        except Exception:
            pass
        return info


def _safe(getter):
    try:
        return getter()
    except Exception:
        return None
