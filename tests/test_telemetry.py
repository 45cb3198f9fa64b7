"""The telemetry sampler through every NVML failure, its energy, ring buffer, recordings and replay."""

from __future__ import annotations

import os
import threading
import time

import pytest

from conftest import SHARED_H200

from fake_nvml import LIBRARY_NOT_FOUND, FakeGpu, FakeNvml

from aiperf_lab.metrics.telemetry.energy import EnergyTracker
from aiperf_lab.metrics.telemetry.model import Tick, decode_clock_reasons
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING, TelemetryWriter, read_recording
from aiperf_lab.metrics.telemetry.replay import ReplayFeed
from aiperf_lab.metrics.telemetry.ring import RingBuffer
from aiperf_lab.metrics.telemetry.sampler import Sampler
from aiperf_lab.metrics.telemetry.summary import telemetry_summary


def sampler_for(*gpus, rate_hz=50.0, **kwargs):
    return Sampler(rate_hz, window_s=10, source=NvmlSource.open(FakeNvml(list(gpus))), **kwargs)


def run_for(sampler, seconds):
    sampler.start()
    time.sleep(seconds)
    sampler.stop()
    return sampler.ring.snapshot()[1]


def test_all_fields_from_a_healthy_gpu():
    sampler = sampler_for(FakeGpu(nvlinks=4, processes=[(os.getpid(), 2**30)]))
    ticks = run_for(sampler, 0.3)
    sample = ticks[-1].gpus[0]
    assert sample.power_source == "instant" and sample.power_w == 100.0 and sample.power_avg_w == 100.0
    assert (sample.util_gpu_pct, sample.util_mem_pct, sample.temp_c) == (97, 40, 55)
    assert (sample.sm_clock_mhz, sample.mem_clock_mhz, sample.power_limit_w) == (1980, 3201, 700.0)
    assert sample.clock_event_names == ["power cap", "thermal (sw)"]
    assert sample.energy_source == "counter"
    status = sampler.slow[0]
    assert (status.pcie_gen, status.pcie_width, status.pcie_gen_max, status.pcie_width_max) == (4, 8, 5, 16)
    assert (status.nvlink_active, status.nvlink_total) == (2, 4)
    assert status.processes[0].pid == os.getpid() and status.processes[0].name
    assert ticks[-1].host is not None and ticks[-1].host.mem_total_bytes > 0
    assert sampler.devices[0].name == "NVIDIA H200" and sampler.status == ""


def test_no_driver_is_a_state_not_an_error():
    sampler = Sampler(10, source=NvmlSource.open(FakeNvml([], init_error=LIBRARY_NOT_FOUND)))
    assert sampler.devices == []
    assert sampler.status == "no NVIDIA driver: NVML Shared Library Not Found"
    ticks = run_for(sampler, 0.25)
    assert ticks and all(t.gpus == [] for t in ticks) and ticks[-1].host.cpu_pct is not None


def test_real_nvml_on_this_machine_never_raises():
    sampler = Sampler(20, window_s=5)  # real pynvml; on a GPU-less CI machine: no driver
    ticks = run_for(sampler, 0.2)
    assert ticks
    assert sampler.devices or sampler.status.startswith(("no NVIDIA driver", "no NVML", "NVML found"))


def test_unsupported_instant_power_falls_back_to_the_average_and_says_so():
    ticks = run_for(sampler_for(FakeGpu(instant=False)), 0.2)
    assert {s.power_source for t in ticks for s in t.gpus} == {"average"}


def test_unsupported_counter_integrates_and_says_so():
    ticks = run_for(sampler_for(FakeGpu(energy=False)), 0.3)
    last = ticks[-1].gpus[0]
    assert last.energy_source == "integrated"
    assert last.energy_j == pytest.approx(100.0 * last.t, rel=0.05)


def test_every_unsupported_or_odd_failure_is_a_missing_value():
    fields = ("utilization", "temperature", "clocks", "clock_reasons", "memory", "pcie", "nvlink", "processes")
    gpu = FakeGpu(unsupported=fields[:4], raises_oddly=fields[4:])
    sampler = sampler_for(gpu)
    ticks = run_for(sampler, 0.2)
    sample = ticks[-1].gpus[0]
    assert sample.util_gpu_pct is None and sample.temp_c is None and sample.sm_clock_mhz is None
    assert sample.clock_event_reasons is None and sample.mem_used_bytes is None
    assert sample.power_w == 100.0  # what works still works
    assert sampler.slow[0].pcie_gen is None and sampler.slow[0].processes == []
    assert sampler.errors == []


def test_a_lost_gpu_is_marked_while_the_others_go_on():
    sampler = sampler_for(FakeGpu("good"), FakeGpu("dies", lost_after_s=0.15))
    ticks = run_for(sampler, 0.5)
    last = ticks[-1]
    assert last.gpus[1].lost and last.gpus[1].power_w is None
    assert not last.gpus[0].lost and last.gpus[0].power_w == 100.0
    assert len(ticks) > 10
    dying = sampler.source.handles[1]
    calls = dying.calls
    time.sleep(0.05)
    assert dying.calls == calls  # a lost GPU is not queried again


def test_rate_bounds():
    for bad in (0, -1, 101):
        with pytest.raises(ValueError):
            Sampler(bad, source=NvmlSource.open(FakeNvml([])))


def test_ring_buffer_memory_is_fixed_by_rate_window_and_gpus():
    sampler = Sampler(100, window_s=0.2, source=NvmlSource.open(FakeNvml([FakeGpu(), FakeGpu()])))
    run_for(sampler, 0.6)
    assert sampler.ring.capacity == 20 and len(sampler.ring) == 20
    version, ticks = sampler.ring.snapshot()
    assert all(len(t.gpus) == 2 for t in ticks) and version > 20


def test_ring_snapshot_window_and_concurrent_readers():
    ring = RingBuffer(1000)
    stop = threading.Event()

    def writer():
        t = 0.0
        while not stop.is_set():
            ring.append(Tick(t, [], None))
            t += 0.01

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(200):
            _version, ticks = ring.snapshot(window_s=1.0)
            assert all(b.t >= a.t for a, b in zip(ticks, ticks[1:]))
            if ticks:
                assert ticks[-1].t - ticks[0].t <= 1.0 + 1e-9
    finally:
        stop.set()
        thread.join()


def test_energy_meter_for_a_span_of_work():
    sampler = sampler_for(FakeGpu(power_w=300.0), rate_hz=50)
    sampler.start()
    try:
        with sampler.measure(idle_baseline_w={0: 80.0}) as span:
            time.sleep(0.5)
        result = span.result(work=1.5e12, work_unit="FLOP")
    finally:
        sampler.stop()
    gpu = result.per_gpu[0]
    assert gpu.source == "counter"
    assert gpu.joules == pytest.approx(300.0 * result.duration_s, rel=0.02)
    assert gpu.avg_power_w == pytest.approx(300.0, rel=0.02) and gpu.peak_power_w == 300.0
    assert gpu.net_joules == pytest.approx(gpu.joules - 80.0 * result.duration_s)
    assert gpu.work_per_joule == pytest.approx(1.5e12 / gpu.joules)
    assert result.as_dict()["per_gpu"][0]["joules"] == gpu.joules


def test_tracker_interpolates_between_counter_reads_and_snaps_back():
    tracker = EnergyTracker()
    tracker.add_power(0.0, 100.0)
    tracker.add_counter(0.0, 1_000_000)
    tracker.add_power(0.5, 100.0)
    assert tracker.energy_j() == pytest.approx(50.0) and tracker.source == "counter"
    tracker.add_power(1.0, 100.0)
    tracker.add_counter(1.0, 1_120_000)  # the counter says 120 J, power said 100: the counter wins
    assert tracker.energy_j() == pytest.approx(120.0)
    assert tracker.integrated_j() == pytest.approx(100.0)


def test_clock_reason_names():
    assert decode_clock_reasons(0x1 | 0x4) == ["idle", "power cap"]
    assert decode_clock_reasons(0) == []
    assert decode_clock_reasons(0x10000) == ["other(0x10000)"]


def test_recording_round_trip_and_summary(tmp_path):
    path = tmp_path / "rec.csv"
    writer = TelemetryWriter.to_path(path)
    sampler = sampler_for(FakeGpu(power_w=250.0), FakeGpu(power_w=120.0, instant=False), recorder=writer)
    run_for(sampler, 0.4)
    writer.close()
    recording = read_recording(path)
    assert recording.layout == "aiperf" and [d.index for d in recording.devices] == [0, 1]
    rows = {r["device"]: r for r in telemetry_summary(recording.devices, recording.ticks).as_dicts()}
    assert rows[0]["avg_power_w"] == pytest.approx(250.0, rel=0.03)
    assert rows[0]["energy_source"] == "counter" and rows[0]["clock_event_power_cap_pct"] == 100.0
    assert rows[1]["peak_power_w"] == 120.0


def test_truncated_recording_keeps_what_was_written(tmp_path):
    text = DEMO_RECORDING.read_text()
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\n0.5,8113")  # half a last line
    recording = read_recording(cut)
    assert 800 < len(recording.ticks) < 1000


def test_real_h200_recording_energy_matches_its_counter():
    """19.4 s of a real H200 at 100 Hz: the counter says 8520 J from its first to its last read."""
    recording = read_recording(DEMO_RECORDING)
    (row,) = telemetry_summary(recording.devices, recording.ticks).as_dicts()
    assert row["energy_source"] == "counter"
    assert row["energy_j"] == pytest.approx(8520.1, rel=0.01)
    assert row["peak_power_w"] > 700 and row["clock_event_power_cap_pct"] > 30  # the capped matmul phase
    integrated = sum((b.t - a.t) * (a.gpus[0].power_w + b.gpus[0].power_w) / 2
                     for a, b in zip(recording.ticks, recording.ticks[1:]))
    assert integrated == pytest.approx(row["energy_j"], rel=0.01)


@pytest.mark.skipif(not SHARED_H200.is_dir(), reason="../shared/data/h200 is not present")
def test_shipped_demo_recording_is_the_real_one():
    assert DEMO_RECORDING.read_bytes() == (SHARED_H200 / "nvml_100hz_matmul_copy.csv").read_bytes()


def test_replay_plays_faster_and_loops():
    recording = read_recording(DEMO_RECORDING)
    feed = ReplayFeed(recording, speed=200.0).start()
    assert feed.finished.wait(5)
    feed.stop()
    _version, ticks = feed.ring.snapshot()
    assert len(ticks) == len(recording.ticks)
    assert feed.energy_now()[0][0] == pytest.approx(8526, rel=0.01)
    looped = ReplayFeed(recording, speed=400.0, loop=True).start()
    deadline = time.monotonic() + 5  # a lap takes about 0.05 s at 400x; a loaded machine may need longer
    while (looped.ring.latest() is None or looped.ring.latest().t <= recording.duration_s) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    looped.stop()
    assert looped.ring.latest().t > recording.duration_s
    assert looped.energy_now()[0][0] > 8526


def test_replay_of_nvidia_smi_logs():
    csv = ("timestamp, index, power.draw [W], utilization.gpu [%], memory.used [MiB]\n"
           "2026/11/22 02:06:28.200, 0, 100.00 W, 50 %, 10 MiB\n"
           "2026/11/22 02:06:29.200, 0, 300.00 W, 90 %, 20 MiB\n")
    path = DEMO_RECORDING.parent / "__tmp_smi.csv"
    try:
        path.write_text(csv)
        recording = read_recording(path)
    finally:
        path.unlink()
    (row,) = telemetry_summary(recording.devices, recording.ticks).as_dicts()
    assert row["energy_j"] == pytest.approx(200.0) and row["energy_source"] == "integrated"
