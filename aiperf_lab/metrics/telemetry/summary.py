"""telemetry_summary: per device, what a run cost and how the GPU behaved."""

from __future__ import annotations

from aiperf_lab.metrics.tables import Table
from aiperf_lab.metrics.telemetry.model import CLOCK_EVENT_REASONS, GpuInfo, Tick


def _reason_column(name: str) -> str:
    return "clock_event_" + name.replace(" ", "_").replace("(", "").replace(")", "") + "_pct"


REASON_COLUMNS = {bit: _reason_column(name) for bit, name in CLOCK_EVENT_REASONS.items()}
COLUMNS = ["device", "samples", "duration_s", "avg_power_w", "peak_power_w", "energy_j", "energy_source",
           "util_gpu_avg_pct", "util_mem_avg_pct", "mem_used_peak_bytes", "temp_max_c", "sm_clock_avg_mhz",
           *REASON_COLUMNS.values()]


def telemetry_summary(devices: list[GpuInfo], ticks: list[Tick]) -> Table:
    """Per device: duration, average and peak power, energy (counter where recorded, else integrated),
    mean utilization, peak memory, hottest temperature, and the share of time under each clock-event
    reason. Means and shares are time-weighted (each sample stands for the time to the next)."""
    rows = []
    notes = []
    for info in devices:
        series = [s for tick in ticks for s in tick.gpus if s.index == info.index and not s.lost]
        if not series:
            continue
        duration = series[-1].t - series[0].t
        weights = [b.t - a.t for a, b in zip(series, series[1:])] + [0.0]
        if duration <= 0:
            weights = [1.0] * len(series)

        def mean(attr: str) -> float | None:
            pairs = [(getattr(s, attr), w) for s, w in zip(series, weights) if getattr(s, attr) is not None]
            total_w = sum(w for _v, w in pairs)
            return round(sum(v * w for v, w in pairs) / total_w, 2) if pairs and total_w > 0 else None

        energies = [s for s in series if s.energy_j is not None]
        energy = energies[-1].energy_j - energies[0].energy_j if len(energies) > 1 else None
        source = energies[-1].energy_source if energies else ""
        powers = [s.power_w for s in series if s.power_w is not None]
        peak_source = {s.power_source for s in series if s.power_w is not None}
        reason_time = {bit: 0.0 for bit in CLOCK_EVENT_REASONS}
        for s, w in zip(series, weights):
            for bit in CLOCK_EVENT_REASONS:
                if s.clock_event_reasons and s.clock_event_reasons & bit:
                    reason_time[bit] += w
        total_weight = sum(weights) or 1.0
        mem_peaks = [s.mem_used_bytes for s in series if s.mem_used_bytes is not None]
        temps = [s.temp_c for s in series if s.temp_c is not None]
        rows.append([
            info.index, len(series), round(duration, 4),
            round(energy / duration, 2) if energy is not None and duration > 0 else mean("power_w"),
            round(max(powers), 2) if powers else None,
            round(energy, 3) if energy is not None else None, source,
            mean("util_gpu_pct"), mean("util_mem_pct"), max(mem_peaks) if mem_peaks else None,
            max(temps) if temps else None, mean("sm_clock_mhz"),
            *(round(100.0 * reason_time[bit] / total_weight, 2) for bit in CLOCK_EVENT_REASONS)])
        if peak_source == {"average"}:
            notes.append(f"device {info.index}: no instant power field; peak_power_w is the peak of the "
                         "driver's 1 s averages and understates short spikes")
        if source == "integrated":
            notes.append(f"device {info.index}: no energy counter in this recording; energy_j integrates "
                         "power over time")
    notes.append("avg_power_w is energy_j / duration_s; clock_event_*_pct are shares of time with that reason set.")
    return Table("telemetry_summary", "Telemetry Summary", COLUMNS, rows, notes)
