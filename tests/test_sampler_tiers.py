"""The sampler's read tiers: what is read every tick, what every second or less often, and that every
carried-forward value says when it was read (in memory, in recordings and in their metadata line)."""

from __future__ import annotations

import io
import os

from fake_nvml import H100_MATMUL_GPM, FakeGpu, FakeNvml

from aiperf_lab.metrics.telemetry.nvml import Nvml
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource, ProcessInfo
from aiperf_lab.metrics.telemetry.recording import TelemetryWriter, read_recording
from aiperf_lab.metrics.telemetry.sampler import Sampler


class WarmingNvml(FakeNvml):
    """Temperature rises by one degree at every read, so a carried value tells which read it came from."""

    def nvmlDeviceGetTemperature(self, gpu, sensor):
        gpu.check("temperature")
        return 40 + gpu.counts["temperature"]


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def run_ticks(sampler: Sampler, clock: Clock, seconds: float) -> None:
    """The loop's ticks, driven by hand on a fake clock (Sampler._tick decides which tiers are due)."""
    sampler._t0 = clock()
    sampler._sample(0, read_counter=True)
    for tick in range(1, int(round(seconds * sampler.rate_hz)) + 1):
        clock.t += sampler.period
        sampler._tick(tick)
    assert not sampler.errors, sampler.errors


def make(gpus, clock, module=FakeNvml, **kwargs) -> Sampler:
    source = NvmlSource(Nvml.open(module(gpus)), clock=clock)
    return Sampler(10, window_s=60, source=source, clock=clock, **kwargs)


def test_each_tier_reads_at_its_own_rate():
    clock = Clock()
    gpu = FakeGpu(gpm=H100_MATMUL_GPM, nvlinks=4, processes=[(os.getpid(), 1 << 30)],
                  process_utilization=[(os.getpid(), 50, 10)], clock=clock)
    sampler = make([gpu], clock)
    opened = dict(gpu.counts)                 # what opening the source read (names, probes, PCIe maximum)
    run_ticks(sampler, clock, 20.0)           # 201 ticks at 10 Hz
    read = {k: gpu.counts[k] - opened.get(k, 0) for k in gpu.counts}
    assert read["field_values"] == 201        # instant power: every tick
    assert read["utilization"] == 201
    assert read["power"] == 21                # the averaged power: with the status tier
    assert read["temperature"] == 21          # status tier: tick 0, then every 10th tick
    assert read["memory"] == 21 and read["clock_reasons"] == 21
    assert read["clocks"] == 42               # SM and memory clocks
    assert read["processes"] == 11            # slow tier: tick 0, then every 2 s
    assert read["pcie"] == 22                 # the current generation and width; the maximum only at open
    assert read["power_limit"] == 3           # with the links, every 10 s: tick 0, 100, 200
    assert read["nvlink"] == 3 * 5            # 4 links and the first unsupported one, each time
    assert read["energy"] == 3                # the counter: start, 10 s, 20 s
    assert read["gpm_sample"] == 10           # one GPM sample every 2 s
    tiers = {tuple(t["fields"][:1]): t["every_s"] for t in sampler.tiers()}
    assert tiers[("power_w",)] == 0.1 and tiers[("power_avg_w",)] == 1.0 and tiers[("pcie_gen",)] == 2.0
    assert tiers[("power_limit_w",)] == 10.0 and tiers[("gpm_*",)] == 2.0


def test_carried_values_say_when_they_were_read():
    clock = Clock()
    sampler = make([FakeGpu(clock=clock)], clock, module=WarmingNvml)
    run_ticks(sampler, clock, 3.0)
    _version, ticks = sampler.ring.snapshot()
    samples = [tick.gpus[0] for tick in ticks]
    assert len(samples) == 31
    for s in samples:
        assert s.status_t is not None and s.t - 1.0 < s.status_t <= s.t + 1e-9
        read_number = round(s.status_t)          # the status read it carries: at 0, 1, 2 or 3 s
        assert s.temp_c == 40 + 1 + read_number                     # the value that read gave, not a later one
    assert [s.temp_c for s in samples[:10]] == [41] * 10 and samples[10].temp_c == 42
    assert all(s.power_w == 100.0 and s.power_source == "instant" for s in samples)   # fresh every tick


def test_power_average_is_fresh_where_it_is_the_power_reading():
    clock = Clock()
    sampler = make([FakeGpu(instant=False, clock=clock)], clock)
    run_ticks(sampler, clock, 1.0)
    _version, ticks = sampler.ring.snapshot()
    assert all(t.gpus[0].power_source == "average" and t.gpus[0].power_avg_w == t.gpus[0].power_w == 100.0
               for t in ticks)


def test_energy_counter_still_closes_every_span():
    """Tiers leave the energy account alone: the counter at start, every 5 s and at stop."""
    clock = Clock()
    gpu = FakeGpu(power_w=250.0, clock=clock)
    sampler = make([gpu], clock)
    run_ticks(sampler, clock, 12.0)
    _version, ticks = sampler.ring.snapshot()
    assert ticks[-1].gpus[0].energy_source == "counter"
    assert abs(ticks[-1].gpus[0].energy_j - 250.0 * 12.0) < 0.01     # the counter, to its 1 mJ


def test_process_details_are_asked_once_per_process():
    clock = Clock()
    gpu = FakeGpu(processes=[(101, 1 << 30)], process_utilization=[(101, 50, 10)], clock=clock)
    sampler = make([gpu], clock)
    asked: list[int] = []

    def process_info(pid: int) -> ProcessInfo:
        asked.append(pid)
        return ProcessInfo(name=f"proc{pid}", user="alice", command=f"python train_{pid}.py")

    sampler.host.process_info = process_info
    run_ticks(sampler, clock, 4.0)
    assert asked == [101]
    gpu.processes.append((202, 1 << 29))           # a new process: asked about once
    run_more = [sampler._tick(k) for k in range(41, 61)]
    assert run_more and asked == [101, 202]
    assert [p.name for p in sampler.slow[0].processes] == ["proc101", "proc202"]
    gpu.processes[:] = [(202, 1 << 29)]            # 101 left; should its pid come back, it is asked again
    sampler._tick(80)
    gpu.processes.append((101, 1 << 30))
    sampler._tick(100)
    assert asked == [101, 202, 101]


def test_recording_carries_tiers_and_status_times(tmp_path):
    clock = Clock()
    stream = io.StringIO()
    writer = TelemetryWriter(stream)
    sampler = make([FakeGpu(clock=clock)], clock, module=WarmingNvml, recorder=writer)
    run_ticks(sampler, clock, 2.5)
    path = tmp_path / "tiers.csv"
    path.write_text(stream.getvalue())
    recording = read_recording(path)
    assert recording.meta["version"] == 3
    periods = {t["fields"][0]: t["every_s"] for t in recording.meta["tiers"]}
    assert periods["power_w"] == 0.1 and periods["power_avg_w"] == 1.0 and periods["gpm_*"] == 2.0
    samples = [tick.gpus[0] for tick in recording.ticks]
    assert len(samples) == 26
    assert all(s.status_t is not None and s.status_t <= s.t + 1e-4 for s in samples)
    assert {round(s.status_t, 1) for s in samples} == {0.0, 1.0, 2.0}
    assert samples[5].temp_c == 41 and samples[15].temp_c == 42


def test_recordings_made_before_tiers_read_as_before():
    from aiperf_lab.metrics.telemetry.recording import DEMO_GPM_RECORDING

    recording = read_recording(DEMO_GPM_RECORDING)
    assert "tiers" not in recording.meta and recording.meta["gpm_every_s"] == 1.0
    assert all(s.status_t is None for tick in recording.ticks[:50] for s in tick.gpus)
    assert any(s.temp_c is not None for tick in recording.ticks[:50] for s in tick.gpus)


def test_the_card_says_when_carried_values_are_old():
    from aiperf_lab.console.view_model import activity_text, card_lines
    from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuSample

    info = GpuInfo(0, "NVIDIA H100 80GB HBM3", gpm_reason="")
    window = GpmSample(9.0, 2.0, sm_active_pct=95.0, tensor_pct=90.0, dram_pct=20.0, sm_occupancy_pct=14.0)
    fresh = GpuSample(10.0, 0, 300.0, "instant", temp_c=60.0, status_t=9.1, gpm=window)
    line = next(x for x in card_lines(info, [fresh], None, 100) if x.startswith("memory"))
    assert "60 C" in line and "ago" not in line                     # within its tier: shown as current
    assert "ago" not in activity_text(info, fresh)
    old = GpuSample(16.0, 0, 300.0, "instant", temp_c=60.0, status_t=9.1, gpm=window)
    line = next(x for x in card_lines(info, [old], None, 100) if x.startswith("memory"))
    assert line.endswith("clock events: none (read 7 s ago)")
    assert activity_text(info, old).endswith("(window ended 7 s ago)")


def test_gpm_windows_pair_with_the_samples_they_cover():
    """GPM is read every 2 s and each sample carries the window read before it; the summary and the
    findings pair each window with the samples inside its span instead, so a phase change is not
    judged 2 s late. Here: a matmul (SM 95%) for 4 s, then single-block kernels (SM 5%) for 4 s, at 100%
    utilization throughout: half the time is 'utilization high, SM activity low'."""
    from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuSample, Tick
    from aiperf_lab.metrics.telemetry.summary import SHARE_COLUMNS, covering_windows, telemetry_summary

    windows = {end: GpmSample(float(end), 2.0, sm_active_pct=95.0 if end <= 4 else 5.0, tensor_pct=90.0 if end <= 4
                              else 0.0, dram_pct=20.0) for end in (2, 4, 6, 8)}
    ticks = []
    for k in range(81):
        t = k / 10
        carried = max((end for end in windows if end <= t), default=None)   # the sampler's carry-forward
        ticks.append(Tick(t, [GpuSample(t, 0, 300.0, "instant", util_gpu_pct=100.0,
                                        gpm=windows[carried] if carried else None)], None))
    series = [tick.gpus[0] for tick in ticks]
    covering = covering_windows(series)
    assert covering[45] is windows[6] and covering[40] is windows[4] and covering[0] is windows[2]
    assert series[45].gpm is windows[4]                    # what the sample itself carries: the past window
    table = telemetry_summary([GpuInfo(0, gpm_reason="")], ticks)
    row = dict(zip(table.columns, table.rows[0]))
    # 3.9 s of 8 (the sample at 4.0 s belongs to the matmul window that ends there); the windows each
    # sample carries would say 2 s of 6 (33.3%)
    assert row[SHARE_COLUMNS[0]] == 48.75
    assert abs(row["sm_active_avg_pct"] - (95.0 * 4.1 + 5.0 * 3.9) / 8.0) < 0.01


def test_process_shares_are_asked_for_only_when_a_process_runs():
    # nvmlDeviceGetProcessUtilization costs milliseconds even when it finds nothing (H100 measured):
    # an idle GPU must not pay it every slow tick.
    clock = Clock()
    idle = FakeGpu(process_utilization=[(os.getpid(), 50, 10)], clock=clock)
    busy = FakeGpu(processes=[(os.getpid(), 1 << 30)], process_utilization=[(os.getpid(), 50, 10)], clock=clock)
    sampler = make([idle, busy], clock)
    run_ticks(sampler, clock, 10.0)
    assert idle.counts.get("process_utilization", 0) == 0 and idle.counts["processes"] == 6
    assert busy.counts["process_utilization"] == 6
    assert sampler.slow[0].processes == []
    assert [(p.pid, p.sm_pct, p.mem_pct) for p in sampler.slow[1].processes] == [(os.getpid(), 50.0, 10.0)]
