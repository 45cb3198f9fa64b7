"""GPM, per-process shares and the one NVML layer, through a fake NVML; recordings with the new fields;
the feed contract and its energy arithmetic."""

from __future__ import annotations

import os
import time

import pytest

from fake_nvml import GPU_IS_LOST, H100_MATMUL_GPM, FakeGpu, FakeNvml, FakeNvmlWithoutGpm, FakeNVMLError

from aiperf_lab.metrics.telemetry.feed import TelemetryFeed, energy_between
from aiperf_lab.metrics.telemetry.model import GPM_NAMES, GpuProcess
from aiperf_lab.metrics.telemetry.nvml import Nvml
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.recording import DEMO_RECORDING, TelemetryWriter, read_recording
from aiperf_lab.metrics.telemetry.replay import ReplayFeed
from aiperf_lab.metrics.telemetry.sampler import Sampler, share_energy
from aiperf_lab.metrics.telemetry.summary import telemetry_summary
from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed


def run_sampler(gpus, seconds=0.45, module=FakeNvml, **kwargs):
    kwargs.setdefault("gpm_every_s", 0.1)
    kwargs.setdefault("slow_every_s", 0.1)
    sampler = Sampler(50, window_s=10, source=NvmlSource.open(module(list(gpus))), **kwargs)
    sampler.start()
    time.sleep(seconds)
    sampler.stop()
    return sampler, sampler.ring.snapshot()[1]


# --- the NVML layer ------------------------------------------------------------------------------
def test_call_gives_none_and_attempt_gives_the_reason():
    session = Nvml.open(FakeNvml([FakeGpu(unsupported=("temperature",))]))
    assert session.device_call(0, "nvmlDeviceGetTemperature", 0) is None
    assert session.device_attempt(0, "nvmlDeviceGetTemperature", 0) == (None, "not supported")
    assert session.device_attempt(0, "nvmlDeviceGetNoSuchThing")[1] == "this nvidia-ml-py has no nvmlDeviceGetNoSuchThing"
    assert session.call("nvmlDeviceGetCount") == 1


def test_old_and_new_names_fall_back_in_order():
    class OldBindings(FakeNvml):
        nvmlDeviceGetCurrentClocksEventReasons = None

        def nvmlDeviceGetCurrentClocksThrottleReasons(self, gpu):
            return 0x4

    session = Nvml.open(OldBindings([FakeGpu()]))
    names = ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    assert session.device_call(0, names) == 0x4
    assert Nvml.open(FakeNvml([FakeGpu()])).device_call(0, names) == 0x4 | 0x20


def test_lost_rule_in_one_place_and_a_handle_failure_hides_no_other_gpu():
    class OneBrokenHandle(FakeNvml):
        def nvmlDeviceGetHandleByIndex(self, index):
            if index == 1:
                raise FakeNVMLError(GPU_IS_LOST)
            return self.gpus[index]

    gone = FakeGpu(lost_after_s=0.0)
    session = Nvml.open(OneBrokenHandle([gone, FakeGpu(), FakeGpu()]))
    assert session.device_count == 3 and session.no_handle == {1: "GPU is lost"}
    assert session.device_call(0, "nvmlDeviceGetName") is None and 0 in session.lost
    calls = gone.calls
    assert session.device_attempt(0, "nvmlDeviceGetName") == (None, "GPU is lost") and gone.calls == calls
    assert session.device_call(2, "nvmlDeviceGetName") == "NVIDIA H200"
    from aiperf_lab.triage.hardware import gpu_capabilities
    caps = gpu_capabilities(OneBrokenHandle([FakeGpu(), FakeGpu(), FakeGpu()]))
    assert caps["gpus"][1] == {"index": 1, "error": "no handle: GPU is lost"} and caps["gpus"][2]["name"] == "NVIDIA H200"


def test_labs_gpu_count_goes_through_the_layer(monkeypatch):
    from aiperf_lab.labs import runner
    from aiperf_lab.metrics.telemetry import nvml

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(nvml.Nvml, "open", classmethod(lambda cls, module=None: cls(FakeNvml([FakeGpu()] * 3),
                                                                                        [1, 2, 3], "")))
    assert runner.visible_gpu_count() == 3


# --- GPM -----------------------------------------------------------------------------------------
def test_gpm_fields_on_a_hopper_like_gpu():
    sampler, ticks = run_sampler([FakeGpu(gpm=H100_MATMUL_GPM)])
    info = sampler.devices[0]
    assert info.gpm_reason == "" and info.gpm_missing == {}
    gpm = ticks[-1].gpus[0].gpm
    assert gpm is not None and gpm.window_s > 0
    assert (gpm.sm_active_pct, gpm.sm_occupancy_pct, gpm.tensor_pct, gpm.dram_pct) == (96.7, 14.3, 93.8, 25.3)
    assert (gpm.tensor_hmma_pct, gpm.pcie_tx_mibps, gpm.nvlink_tx_mibps) == (93.8, 5.85, 0.0)
    windows = list({id(s.gpm): s.gpm for t in ticks for s in t.gpus if s.gpm}.values())
    assert 1 < len(windows) < len(ticks)        # GPM slower than power: rows share windows
    # graphics activity (the costly metric) in the first window of every five, empty (not stale) in the rest
    assert [w.graphics_pct for w in windows] == [100.0 if i % 5 == 0 else None for i in range(len(windows))]


def test_gpm_unsupported_device_and_fields_are_reasons_not_errors():
    no_gpm = FakeGpu(name="NVIDIA A100")                                   # pre-Hopper: no GPM
    partial = FakeGpu(gpm=H100_MATMUL_GPM, gpm_unsupported=(9, 60, 61))    # no IMMA, no NVLink
    sampler, ticks = run_sampler([no_gpm, partial])
    assert sampler.devices[0].gpm_reason.startswith("GPM not supported on this GPU")
    assert all(t.gpus[0].gpm is None for t in ticks)
    assert sampler.devices[1].gpm_reason == ""
    assert sampler.devices[1].gpm_missing == {name: "GPM metric not offered (not supported)"
                                              for name in ("tensor_imma_pct", "nvlink_rx_mibps", "nvlink_tx_mibps")}
    assert sampler.devices[1].gpm_why_missing("tensor_imma_pct").startswith("GPM metric not offered")
    assert len({*sampler.devices}) == 2           # GpuInfo stays hashable with its reasons
    gpm = ticks[-1].gpus[1].gpm
    assert gpm.tensor_imma_pct is None and gpm.sm_active_pct == 96.7 and sampler.errors == []


def test_gpm_with_old_bindings_and_with_a_failing_sample():
    sampler, ticks = run_sampler([FakeGpu(gpm=H100_MATMUL_GPM)], module=FakeNvmlWithoutGpm)
    assert sampler.devices[0].gpm_reason == "this nvidia-ml-py has no GPM functions"
    hiccup = FakeGpu(gpm=H100_MATMUL_GPM, raises_oddly=("gpm_support",))
    sampler, ticks = run_sampler([hiccup])
    assert sampler.devices[0].gpm_reason.startswith("GPM query failed: driver hiccup")
    assert ticks and ticks[-1].gpus[0].power_w == 100.0 and sampler.errors == []


def test_gpm_reads_stop_when_the_gpu_is_lost():
    sampler, ticks = run_sampler([FakeGpu(gpm=H100_MATMUL_GPM, lost_after_s=0.2), FakeGpu(gpm=H100_MATMUL_GPM)])
    assert ticks[-1].gpus[0].lost and not ticks[-1].gpus[1].lost
    assert ticks[-1].gpus[1].gpm.sm_active_pct == 96.7 and sampler.errors == []


# --- processes -----------------------------------------------------------------------------------
def test_processes_with_user_command_shares_and_an_energy_estimate():
    me, other = os.getpid(), 999_999_999
    gpu = FakeGpu(processes=[(me, 2**30), (other, 2**29)], process_utilization=[(me, 60, 20), (other, 20, 5)])
    sampler, _ticks = run_sampler([gpu], seconds=0.6)
    procs = {p.pid: p for p in sampler.slow[0].processes}
    mine = procs[me]
    assert mine.name and mine.user and mine.command and (mine.sm_pct, mine.mem_pct) == (60.0, 20.0)
    assert (procs[other].name, procs[other].user) == (None, None)     # not visible here: missing, no error
    assert mine.energy_share_pct == 75.0 and procs[other].energy_share_pct == 25.0
    assert mine.energy_est_j > 0 and mine.energy_est_j == pytest.approx(3 * procs[other].energy_est_j, rel=0.02)


def test_process_utilization_unsupported_leaves_shares_unknown():
    gpu = FakeGpu(processes=[(os.getpid(), 2**30)], unsupported=("process_utilization",))
    sampler, _ticks = run_sampler([gpu])
    proc = sampler.slow[0].processes[0]
    assert proc.sm_pct is None and proc.energy_share_pct is None and proc.energy_est_j is None


def test_share_energy_arithmetic():
    procs = [GpuProcess(1, "a", None, sm_pct=30.0), GpuProcess(2, "b", None, sm_pct=10.0),
             GpuProcess(3, "c", None, sm_pct=0.0)]
    totals = share_energy(procs, 400.0, {1: 50.0})
    assert totals == {1: 350.0, 2: 100.0, 3: 0.0}
    assert [p.energy_share_pct for p in procs] == [75.0, 25.0, 0.0]
    idle = [GpuProcess(1, "a", None, sm_pct=0.0)]
    assert share_energy(idle, 100.0, {1: 350.0}) == {1: 350.0}      # idle energy is not attributed
    unknown = [GpuProcess(1, "a", None)]
    share_energy(unknown, 100.0, {})
    assert unknown[0].energy_share_pct is None and unknown[0].energy_est_j is None


# --- recordings ----------------------------------------------------------------------------------
def test_recording_round_trip_with_gpm_processes_and_reasons(tmp_path):
    path = tmp_path / "gpm.csv"
    writer = TelemetryWriter.to_path(path)
    gpus = [FakeGpu(gpm=H100_MATMUL_GPM, gpm_unsupported=(9,), processes=[(os.getpid(), 2**30)],
                    process_utilization=[(os.getpid(), 80, 30)]), FakeGpu(name="NVIDIA A100")]
    sampler, ticks = run_sampler(gpus, recorder=writer)
    writer.close()
    text = path.read_text()
    assert text.startswith("# aiperf-telemetry {") and "gpm_sm_active_pct" in text.splitlines()[1]
    assert " ".join(text.split()).count(os.path.basename(__file__)) == 0     # command lines never written
    recording = read_recording(path)
    assert recording.meta["rate_hz"] == 50 and recording.meta["gpm_every_s"] == 0.1
    hopper, ampere = recording.devices
    assert hopper.name == "NVIDIA H200" and hopper.gpm_reason == "" and "tensor_imma_pct" in hopper.gpm_missing
    assert ampere.gpm_reason.startswith("GPM not supported")
    last = [s for t in recording.ticks for s in t.gpus if s.index == 0][-1]
    assert last.gpm.sm_active_pct == 96.7 and last.gpm.tensor_imma_pct is None
    status = [status for _t, index, status in recording.status_updates if index == 0][-1]
    proc = status.processes[0]
    assert (proc.pid, proc.sm_pct, proc.mem_pct, proc.command) == (os.getpid(), 80.0, 30.0, None)

    table = telemetry_summary(recording.devices, recording.ticks)
    rows = table.as_dicts()
    assert rows[0]["sm_active_avg_pct"] == 96.7 and rows[0]["tensor_avg_pct"] == 93.8
    assert rows[0]["dram_avg_pct"] == 25.3 and rows[0]["sm_active_low_time_pct"] == 0.0
    assert rows[1]["sm_active_avg_pct"] is None
    assert any("device 1: GPM not supported" in note for note in table.notes)


def test_old_recordings_read_as_before_with_gpm_not_recorded():
    recording = read_recording(DEMO_RECORDING)          # the raw NVML loop layout
    assert recording.devices[0].gpm_reason == "not in this recording"
    row = telemetry_summary(recording.devices, recording.ticks).as_dicts()[0]
    assert row["sm_active_avg_pct"] is None and row["energy_j"] > 8000


def test_replay_carries_gpm_and_the_process_table(tmp_path):
    path = tmp_path / "gpm.csv"
    writer = TelemetryWriter.to_path(path)
    run_sampler([FakeGpu(gpm=H100_MATMUL_GPM, processes=[(os.getpid(), 2**30)],
                         process_utilization=[(os.getpid(), 80, 30)])], recorder=writer)
    writer.close()
    feed = ReplayFeed(read_recording(path), speed=50.0).start()
    assert feed.finished.wait(5)
    feed.stop()
    latest = feed.ring.latest().gpus[0]
    assert latest.gpm.sm_active_pct == 96.7 and latest.gpm.t <= latest.t
    assert feed.slow[0].processes[0].sm_pct == 80.0


# --- the feed contract ---------------------------------------------------------------------------
def test_every_feed_meets_the_contract(tmp_path):
    sampler = Sampler(10, source=NvmlSource.open(FakeNvml([FakeGpu()])))
    feeds = [sampler, ReplayFeed(read_recording(DEMO_RECORDING)), SyntheticFeed(gpus=2)]
    assert all(isinstance(feed, TelemetryFeed) for feed in feeds)
    sampler.close()


def test_energy_between_on_the_synthetic_feed():
    feed = SyntheticFeed(gpus=2).fill(30.0)         # energy grows 300 J a second per GPU, samples every 0.1 s
    assert energy_between(feed, 10.0, 20.0) == pytest.approx(6000.0)
    assert energy_between(feed, 9.97, 19.97) == pytest.approx(6000.0)   # 9.9 -> 19.9: last sample at or before
    assert energy_between(feed, 25.0, 40.0) == pytest.approx(3000.0)    # to the newest sample
    assert energy_between(feed, -5.0, 1.0) == pytest.approx(600.0)      # from the first sample
    assert energy_between(feed, 20.0, 10.0) is None
    assert energy_between(SyntheticFeed(gpus=1), 0.0, 1.0) is None       # empty ring


def test_gpm_failing_mid_run_stops_with_the_reason_and_power_goes_on():
    gpu = FakeGpu(gpm=H100_MATMUL_GPM)
    sampler = Sampler(50, window_s=10, source=NvmlSource.open(FakeNvml([gpu])), gpm_every_s=0.1)
    sampler.start()
    time.sleep(0.25)
    gpu.raises_oddly = {"gpm_sample"}
    time.sleep(0.3)
    sampler.stop()
    ticks = sampler.ring.snapshot()[1]
    assert sampler.devices[0].gpm_reason == "GPM stopped: GPM sample failed: driver hiccup in gpm_sample"
    assert ticks[-1].gpus[0].gpm is None and ticks[-1].gpus[0].power_w == 100.0 and sampler.errors == []
    assert any(t.gpus[0].gpm is not None for t in ticks)


def test_writer_scrubs_process_names_and_can_leave_users_out():
    import io

    from aiperf_lab.metrics.telemetry.model import GpuSample, GpuStatus, Tick

    stream = io.StringIO()
    writer = TelemetryWriter(stream, scrub=lambda text: text.replace("alice", "user-1"), users=False)
    status = GpuStatus(processes=[GpuProcess(7, "alice_job", 1 << 30, "alice", "python3 --token=s3cret", 50.0)])
    writer.write(Tick(0.0, [GpuSample(0.0, 0)], None), {0: status})
    text = stream.getvalue()
    assert '[[7,""user-1_job"",null,1073741824,50.0' in text and "alice" not in text and "s3cret" not in text


def test_gpm_probe_retries_a_refused_short_window_and_reports_a_lasting_refusal():
    class RefusesFirstWindow(FakeNvml):
        refusals = 1

        def nvmlGpmMetricsGet(self, request):
            if self.refusals:
                self.refusals -= 1
                raise FakeNVMLError(2)
            return super().nvmlGpmMetricsGet(request)

    sampler, ticks = run_sampler([FakeGpu(gpm=H100_MATMUL_GPM)], module=RefusesFirstWindow)
    assert sampler.devices[0].gpm_reason == "" and ticks[-1].gpus[0].gpm.sm_active_pct == 96.7
    sampler, ticks = run_sampler([FakeGpu(gpm=H100_MATMUL_GPM, raises_oddly=("gpm_metrics",))])
    assert sampler.devices[0].gpm_reason == "GPM metrics failed: driver hiccup in gpm_metrics"
    assert ticks[-1].gpus[0].gpm is None and ticks[-1].gpus[0].power_w == 100.0


def test_a_recording_of_sixteen_gpus_is_recognised_by_aiperf_stats(tmp_path):
    from aiperf_lab.metrics.sources import open_profile

    path = tmp_path / "sixteen.csv"
    writer = TelemetryWriter.to_path(path)
    gpus = [FakeGpu(gpm=H100_MATMUL_GPM, gpm_unsupported=(6, 9, 60, 61)) for _ in range(16)]
    run_sampler(gpus, seconds=0.2, recorder=writer)
    writer.close()
    assert len(path.read_text().splitlines()[0]) > 4096          # longer than the sniffer's head
    profile = open_profile(path)
    assert profile.kind == "telemetry"
    rows = profile.report("telemetry_summary")[0].as_dicts()
    assert len(rows) == 16 and rows[15]["sm_active_avg_pct"] == 96.7


def test_a_value_unusable_only_in_the_first_window_is_not_marked_missing():
    # The H100: DRAM bandwidth read NaN in the probe's short first window, then real values.
    gpu = FakeGpu(gpm={**H100_MATMUL_GPM, 10: float("nan")})
    source = NvmlSource.open(FakeNvml([gpu]))        # the probe reads the NaN
    gpu.gpm[10] = 25.3                               # later windows have the value
    sampler = Sampler(50, window_s=10, source=source, gpm_every_s=0.1, slow_every_s=0.1)
    sampler.start()
    time.sleep(0.45)
    sampler.stop()
    assert "dram_pct" not in sampler.devices[0].gpm_missing
    assert any(s.gpm is not None and s.gpm.dram_pct == 25.3 for t in sampler.ring.snapshot()[1] for s in t.gpus)
