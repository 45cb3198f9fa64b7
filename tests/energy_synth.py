"""A synthetic but realistic telemetry + nsys export pair with a known clock offset and known energies.

Profile clock: 0 .. 12 s. Phases, each in its own NVTX range: matmul 1-4 s (back-to-back gemm kernels,
600 W), copy 4-7 s (host-to-device copies, 250 W), sleep 7-10 s (nothing, idle 100 W), with a nested
range "matmul/inner" 2-3 s. The sampler starts `offset_s` after the nsys session start and samples
every `period_s`; its energy column is the exact integral of the true power (as NVML's counter is),
read every `counter_every` samples and grown by the trapezoid in between, as the sampler records it.
"""

from __future__ import annotations

from pathlib import Path

from aiperf_lab.metrics.telemetry.model import GpuSample, HostSample, Tick
from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
from nsys_builder import ExportBuilder

S = 1_000_000_000
SESSION_UTC_NS = 1_795_312_870_456_982_943
IDLE_W, GEMM_W, COPY_W = 100.0, 600.0, 250.0
PHASES = {":matmul": (1 * S, 4 * S, GEMM_W), ":copy": (4 * S, 7 * S, COPY_W), ":sleep": (7 * S, 10 * S, IDLE_W)}


def true_power(t_ns: float) -> float:
    for start, end, watts in PHASES.values():
        if start <= t_ns < end:
            return watts
    return IDLE_W


def true_energy(a_ns: float, b_ns: float) -> float:
    """Exact joules of the true (piecewise-constant) power over [a, b]."""
    points = sorted({a_ns, b_ns, *[x for s, e, _ in PHASES.values() for x in (s, e) if a_ns < x < b_ns]})
    return sum((q - p) / S * true_power(p) for p, q in zip(points, points[1:]))


def build_export(path: Path, kernel_ns: int = 1_000_000) -> Path:
    b = ExportBuilder()
    b.session_start_utc_ns = SESSION_UTC_NS
    b.analysis_span = (0, 12 * S)
    start, end, _ = PHASES[":matmul"]
    t = start
    while t < end:
        b.launch(1, t - 50_000, t - 40_000, "sm90_xmma_gemm_bf16bf16_bf16f32", t, min(kernel_ns, end - t))
        t += kernel_ns
    start, end, _ = PHASES[":copy"]
    for t in range(start, end, 10_000_000):
        b.memcpy(1, t - 20_000, t, 10_000_000)
    for name, (start, end, _) in PHASES.items():
        b.range(1, start, end, name.lstrip(":"))
    b.range(1, 2 * S, 3 * S, "matmul/inner")
    return b.write(path)


def write_telemetry(path: Path, offset_s: float = 0.5, period_s: float = 0.01, clock_error_s: float = 0.0,
                    seconds: float = 12.0, counter_every: int = 50) -> Path:
    """Samples at telemetry time t (0 .. seconds); profile time = t + offset_s. `clock_error_s` makes the
    recorded utc_ns wrong by that much (the samples' power stays true), to test the lag check."""
    writer = TelemetryWriter(path.open("w", encoding="utf-8", newline=""))
    writer.utc_origin_ns = SESSION_UTC_NS + round((offset_s + clock_error_s) * S)
    n = int(round(seconds / period_s))
    energy = counter = 0.0
    last_counter_t, last_p = 0.0, None
    for i in range(n + 1):
        t = i * period_s
        profile_t = (t + offset_s) * S
        p = true_power(profile_t)
        if i % counter_every == 0 or i == n:
            counter = true_energy(offset_s * S, profile_t)
            energy, last_counter_t = counter, t
        elif last_p is not None:
            energy += period_s * (p + last_p) / 2
        last_p = p
        sample = GpuSample(t, 0, p, "instant", p, 700.0, energy, "counter", 50.0, 10.0, 1 << 30, 80 << 30, 40.0,
                           1980.0, 2619.0, 0, False)
        writer.write(Tick(t, [sample], HostSample(t, 5.0, 1 << 30, 64 << 30)), {})
    writer.close()
    return path
