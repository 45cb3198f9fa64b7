"""What the console's screens show, computed without Textual: the text of a GPU card, block-character
series decimated to a width, elapsed and energy formatting. Kept apart so it is testable as plain
functions and cheap to call at 4-10 Hz."""

from __future__ import annotations

from typing import Iterable, Sequence

from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, GpuStatus, HostSample, Tick

BLOCKS = " ▁▂▃▄▅▆▇█"
ASCII_BLOCKS = " .:-=+*#%"
GIB = 1 << 30


def decimate_max(values: Sequence[float | None], width: int) -> list[float | None]:
    """At most `width` points, each the max of its bucket (spikes survive), the newest last."""
    if width <= 0:
        return []
    if len(values) <= width:
        return list(values)
    out: list[float | None] = []
    step = len(values) / width
    for k in range(width):
        bucket = [v for v in values[int(k * step):int((k + 1) * step)] if v is not None]
        out.append(max(bucket) if bucket else None)
    return out


def series(values: Sequence[float | None], width: int, top: float, ascii_only: bool = False) -> str:
    """A one-line chart on a fixed scale 0..top (so 30 W and 300 W never look alike); gaps as spaces."""
    blocks = ASCII_BLOCKS if ascii_only else BLOCKS
    points = decimate_max(values, width)
    levels = len(blocks) - 1
    chars = []
    for v in points:
        if v is None or top <= 0:
            chars.append(" ")
        else:
            chars.append(blocks[max(1, min(levels, round(v / top * levels)))] if v > 0 else blocks[0])
    return "".join(chars).rjust(width)


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}{unit}"


def bar(value: float | None, top: float | None, width: int = 20, ascii_only: bool = False) -> str:
    if value is None or not top:
        return " " * width
    filled = max(0, min(width, round(value / top * width)))
    return ("#" if ascii_only else "█") * filled + ("." if ascii_only else "░") * (width - filled)


def card_lines(info: GpuInfo, history: Sequence[GpuSample], status: GpuStatus | None, width: int,
               ascii_only: bool = False) -> list[str]:
    """The text of one GPU card: name, power against its limit, energy, utilization with SM, tensor and
    DRAM activity beside it, memory, temperature, clocks, active clock-event reasons, then power,
    utilization and SM activity over the window."""
    s = history[-1] if history else GpuSample(0.0, info.index)
    limit = s.power_limit_w or info.power_limit_w
    if s.lost:
        return [f"GPU {info.index}  {info.name or ''}", "lost: the GPU fell off the bus (NVML GpuIsLost)"]
    chart = max(10, width - 12)
    top = limit or max((h.power_w or 0 for h in history), default=0) or 1.0  # no limit known: the window's peak
    power_series = series([h.power_w for h in history], chart, top, ascii_only)
    util_series = series([h.util_gpu_pct for h in history], chart, 100.0, ascii_only)
    sm_values = [h.gpm.sm_active_pct if h.gpm is not None else None for h in history]
    sm_series = series(sm_values, chart, 100.0, ascii_only) if any(v is not None for v in sm_values) else \
        f"n/a ({info.gpm_reason or 'no GPM window yet'})"
    if s.mem_used_bytes is not None and s.mem_total_bytes:
        mem = f"{s.mem_used_bytes / GIB:.1f}/{s.mem_total_bytes / GIB:.0f} GiB"
    else:
        mem = f"{s.mem_used_bytes / GIB:.1f} GiB used" if s.mem_used_bytes is not None else "n/a"
    reasons = ", ".join(s.clock_event_names) or "none"
    energy = f"{s.energy_j / 1000:.2f} kJ" if s.energy_j is not None and s.energy_j >= 1000 else fmt(s.energy_j, " J", 1)
    source = {"instant": "instant", "average": "1 s average"}.get(s.power_source, "")
    count = len(status.processes) if status is not None else 0
    return [
        f"GPU {info.index}  {info.name or 'unknown'}",
        f"power {fmt(s.power_w, ' W')} / {fmt(limit, ' W')} {bar(s.power_w, limit, 16, ascii_only)} ({source})"
        f"  energy {energy} ({s.energy_source or 'n/a'})",
        f"util {fmt(s.util_gpu_pct, '%')} gpu, {fmt(s.util_mem_pct, '%')} mem   {activity_text(info, s)}",
        f"memory {mem}   {fmt(s.temp_c, ' C')}   SM {fmt(s.sm_clock_mhz, ' MHz')}   clock events: {reasons}"
        + (f"   {count} process{'es' if count != 1 else ''}" if count else ""),
        f"power {power_series}",
        f"util  {util_series}",
        f"sm    {sm_series}",
    ]


GPM_SHOWN = (("sm_active_pct", "SM active"), ("tensor_pct", "tensor"), ("dram_pct", "DRAM"),
             ("sm_occupancy_pct", "occupancy"))


def activity_text(info: GpuInfo, s: GpuSample) -> str:
    """SM activity, tensor activity, DRAM bandwidth and occupancy from the latest GPM window, or n/a
    with the reason."""
    if info.gpm_reason:
        return f"SM active, tensor, DRAM: n/a ({info.gpm_reason})"
    if s.gpm is None:
        return "SM active, tensor, DRAM: n/a (no GPM window yet)"
    parts = []
    for name, label in GPM_SHOWN:
        value = getattr(s.gpm, name)
        why = info.gpm_missing.get(name, "no value")
        parts.append(f"{label} {fmt(value, '%', 1)}" if value is not None else f"{label} n/a ({why})")
    return "  ".join(parts)


def sm_activity_text(info: GpuInfo, s: GpuSample | None) -> str:
    """"SM 96.7%" for strips and status lines, "SM n/a" without GPM."""
    value = s.gpm.sm_active_pct if s is not None and s.gpm is not None else None
    return f"SM {value:.0f}%" if value is not None else "SM n/a"


def power_and_sm_text(devices: Sequence[GpuInfo], latest: Tick | None, limit: int = 2) -> str:
    """"GPU 0 451 W SM 97% · GPU 1 ..." for a status line: power and SM activity of the first GPUs."""
    if not devices:
        return "no GPU telemetry"
    by_index = {s.index: s for s in latest.gpus} if latest is not None else {}
    parts = []
    for info in devices[:limit]:
        s = by_index.get(info.index)
        parts.append(f"GPU {info.index} {fmt(s.power_w if s else None, ' W')} {sm_activity_text(info, s)}")
    more = f" +{len(devices) - limit} GPUs" if len(devices) > limit else ""
    return " · ".join(parts) + more


PROCESS_COLUMNS = ("PID", "User", "Command", "GPU mem", "SM %", "Mem %", "Energy (est.)")
PROCESS_SORTS = {"memory": "GPU memory", "sm": "SM share"}


def process_rows(status: GpuStatus | None, sort_by: str = "memory", command_width: int = 40) -> list[tuple[str, ...]]:
    """The process table of one GPU, largest first by GPU memory ("memory") or SM share ("sm").
    Energy is an estimate (the GPU's energy split by SM share) and says so in its column name."""
    if status is None:
        return []
    key = (lambda p: (p.gpu_memory_bytes or -1, p.sm_pct or -1)) if sort_by == "memory" else \
        (lambda p: (p.sm_pct if p.sm_pct is not None else -1, p.gpu_memory_bytes or -1))
    rows = []
    for p in sorted(status.processes, key=key, reverse=True):
        command = p.command or p.name or "?"
        if len(command) > command_width:
            command = command[:command_width - 1] + "…"
        energy = "n/a" if p.energy_est_j is None else (
            f"{p.energy_est_j:.0f} J" + (f" ({p.energy_share_pct:.0f}%)" if p.energy_share_pct is not None else ""))
        rows.append((str(p.pid), p.user or "?", command,
                     f"{p.gpu_memory_bytes / GIB:.1f} GiB" if p.gpu_memory_bytes is not None else "n/a",
                     fmt(p.sm_pct, "", 0), fmt(p.mem_pct, "", 0), energy))
    return rows


def host_line(host: HostSample | None) -> str:
    if host is None:
        return "host: no CPU or memory readings in this feed"
    mem = (f"{host.mem_used_bytes / GIB:.1f}/{host.mem_total_bytes / GIB:.1f} GiB"
           if host.mem_used_bytes is not None and host.mem_total_bytes else "n/a")
    return f"host CPU {fmt(host.cpu_pct, '%', 1)}   memory {mem}"


def per_gpu_history(ticks: Iterable[Tick]) -> dict[int, list[GpuSample]]:
    history: dict[int, list[GpuSample]] = {}
    for tick in ticks:
        for s in tick.gpus:
            history.setdefault(s.index, []).append(s)
    return history


def host_history(ticks: Iterable[Tick]) -> list[float | None]:
    return [t.host.cpu_pct for t in ticks if t.host is not None]


def elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:d}:{secs:02d}"
