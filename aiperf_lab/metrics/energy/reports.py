"""The energy reports as aiperf-stats, the lab runner and triage ask for them."""

from __future__ import annotations

from pathlib import Path

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.energy.attribution import Timeline, Work, energy_by_category, energy_by_range
from aiperf_lab.metrics.energy.clocks import align, lag_estimate, refuse_clockless_header
from aiperf_lab.metrics.energy.power import series_from_recording
from aiperf_lab.metrics.tables import Table

ENERGY_REPORTS = ["energy_by_range", "energy_by_category"]


def choose_gpu(recording, requested: int | None, timeline: Timeline) -> tuple[int, int | None, list[str]]:
    """(telemetry GPU index, the profile's device whose operations count or None for all, notes)."""
    indices = [d.index for d in recording.devices]
    devices = sorted({op.device for op in timeline.ops})
    if not indices:
        raise InputError(f"{recording.path.name}: the recording has no GPU (sampled without an NVIDIA driver)")
    if requested is not None:
        if requested not in indices:
            raise InputError(f"--gpu {requested}: the recording has GPU(s) {', '.join(map(str, indices))}")
        gpu = requested
    elif len(indices) == 1:
        gpu = indices[0]
    else:
        raise InputError(f"{recording.path.name} has {len(indices)} GPUs ({', '.join(map(str, indices))}): "
                         "choose the one to attribute with --gpu N")
    if len(devices) <= 1:
        return gpu, None, []
    if gpu not in devices:
        raise InputError(f"the profile has work on devices {', '.join(map(str, devices))}, none numbered {gpu}: "
                         "the telemetry's GPU numbering differs (CUDA_VISIBLE_DEVICES?)")
    return gpu, gpu, [f"the profile's device {gpu} taken as the telemetry's GPU {gpu} (same number; "
                      "CUDA_VISIBLE_DEVICES renumbers CUDA devices)"]


def scope_to_range(timeline: Timeline, wanted: str) -> Timeline:
    """The timeline cut to the first start .. last end of the ranges named `wanted` (":train" or "train")."""
    matching = [r for r in timeline.ranges if r.name == wanted or r.name.split(":", 1)[-1] == wanted]
    if not matching:
        from aiperf_lab.errors import MissingData
        raise MissingData(f"{timeline.source} has no NVTX range named {wanted!r}.")
    span = (max(timeline.span[0], min(r.start for r in matching)), min(timeline.span[1], max(r.end for r in matching)))
    note = (f"scoped to NVTX range {wanted!r}: {(span[1] - span[0]) / 1e9:.3f} s from its first start to its last "
            f"end ({len(matching)} instance(s))")
    return Timeline(timeline.source, span, timeline.ops, timeline.ranges, [*timeline.notes, note])


def energy_tables(names: list[str], timeline: Timeline, clock, telemetry: Path, work: Work | None = None,
                  gpu: int | None = None, scope: str | None = None) -> list[Table]:
    from aiperf_lab.metrics.telemetry.recording import read_recording

    if scope:
        timeline = scope_to_range(timeline, scope)
    recording = read_recording(telemetry, refuse_clockless_header(telemetry.name))
    alignment = align(recording.utc_origin_ns, clock, telemetry.name)
    index, device, gpu_notes = choose_gpu(recording, gpu, timeline)
    power = series_from_recording(recording, index, alignment)
    bound_ms = alignment.error_bound_ns(timeline.span[1] - timeline.span[0]) / 1e6
    clock_notes = [alignment.describe() + f"; both anchors read this host's system clock: error 0.05 ms plus any "
                   f"NTP slew between the two monotonic clocks (at most {bound_ms:.1f} ms at NTP's 500 ppm limit)"]
    # only where the profile traced the GPU (plus half a second): outside it, activity is unknown, not idle
    lo, hi = timeline.span[0] - 500_000_000, timeline.span[1] + 500_000_000
    window = [(t, w) for t, w in zip(power.times_ns, power.watts) if lo <= t <= hi]
    busy = [(op.start, op.end) for op in timeline.ops if device is None or op.device == device]
    times, watts = [t for t, _ in window], [w for _, w in window]
    lag = lag_estimate(times, watts, busy)
    # The same search ten times as far: a telemetry file from another host or a stepped clock puts the power
    # seconds away from the work, and the near search alone then names a wrong, small shift.
    far = lag_estimate(times, watts, busy, max_lag_ns=FAR_LAG_NS) if lag is not None else None
    if far is not None and far[1] > lag[1] + 0.05:
        lag = far
    if lag is not None:
        clock_notes.append(f"check from the data: the power series matches GPU activity best when shifted by "
                           f"{-lag[0] / 1e6:+.0f} ms (correlation {lag[1]:.2f}; resolution one sample period, "
                           f"{power.period_s() * 1000:.0f} ms; the power sensor's own delay included)")
        expected = SENSOR_LAG_NS[power.power_source]
        if abs(lag[0]) > expected and lag[1] >= 0.4:
            clock_notes.insert(0, f"WARNING: the power series lines up with GPU activity {-lag[0] / 1e6:+.0f} ms away "
                               f"from where the clocks put it, more than the {expected // 1_000_000} ms a "
                               f"{power.power_source} power sensor lags: the telemetry and the profile may not share "
                               "a clock (recorded on other hosts, or a clock stepped between them), and then the "
                               "energy per range and category below is wrong")
    tables = []
    for name in names:
        if name == "energy_by_range":
            table = energy_by_range(timeline, power, work)
        else:
            table = energy_by_category(timeline, power, device, work)
        table.notes = [*timeline.notes, *gpu_notes, *clock_notes, *table.notes]
        tables.append(table)
    return tables


# How far power may trail the work that drew it before the clocks are suspect: instant power within tens of ms
# (-71 ms on an H100, the sensor's delay included), the driver's ~1 s average by up to about a second.
SENSOR_LAG_NS = {"instant": 250_000_000, "average": 1_200_000_000}
FAR_LAG_NS = 2_500_000_000


def work_from(amount: float | None, unit: str | None) -> Work | None:
    if amount is None:
        return None
    if not amount > 0:
        raise InputError("--work must be a positive number")
    return Work(float(amount), unit or "unit")
