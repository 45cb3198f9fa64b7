"""The activity rules (SM activity, tensor cores, DRAM bandwidth) on plain numbers, on a telemetry
recording (telemetry_findings), on an nsys export with GPU metrics, and in triage's findings."""

from __future__ import annotations

import sqlite3

from nsys_builder import ExportBuilder

from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.expert import expert_findings
from aiperf_lab.metrics.nsys.gpu_metrics import gpu_activity
from aiperf_lab.metrics import activity
from aiperf_lab.metrics.telemetry.model import GpmSample, GpuInfo, GpuSample, Tick
from aiperf_lab.metrics.telemetry.summary import telemetry_findings


def test_rules_on_plain_numbers_state_their_thresholds():
    low = activity.low_sm_activity(99.0, 12.0)
    assert low.fired and low.evidence == ("utilization 99.0% but SM activity 12.0% (fires at utilization >= 80% "
                                          "with SM activity < 50%)") and "CUDA graphs" in low.advice
    assert activity.low_sm_activity(99.0, 96.7).fired is False
    assert activity.low_sm_activity(99.0, None).state == "n/a"
    half = activity.half_precision_from_fp16_pipe(12.0)
    idle = activity.tensor_idle(70.0, 0.5, half)
    assert idle.fired and "FP16 pipe 12.0%" in idle.evidence and "fires at tensor < 5%" in idle.evidence
    assert activity.tensor_idle(70.0, 0.5, None).state == "n/a"       # no sign of half precision: cannot judge
    assert activity.tensor_idle(70.0, 60.0, half).fired is False
    bound = activity.memory_bound(82.5, 40.0)
    assert bound.fired and bound.evidence == "DRAM bandwidth 82.5% of peak, SM activity 40.0% (fires at 60%)"
    assert activity.memory_bound(None, 40.0).state == "n/a" and activity.memory_bound(20.0, None).fired is False


def _recording(gpm: GpmSample | None, util: float, seconds: int = 20) -> list[Tick]:
    return [Tick(k / 10, [GpuSample(k / 10, 0, util_gpu_pct=util, gpm=gpm)], None) for k in range(seconds * 10)]


def test_telemetry_findings_on_a_launch_bound_recording():
    ticks = _recording(GpmSample(1.0, 1.0, sm_active_pct=8.0, tensor_pct=0.0, dram_pct=3.0, fp16_pct=0.0), 100.0)
    rows = {r[0]: r for r in telemetry_findings([GpuInfo(0, gpm_reason="")], ticks).rows}
    assert rows["low_sm_activity"][2] == "yes" and "SM activity 8.0%" in rows["low_sm_activity"][3]
    assert "while busy (19.9 s at utilization >= 50%)" in rows["low_sm_activity"][3]
    assert rows["tensor_idle"][2] == "n/a" and rows["memory_bound"][2] == "no"


def test_telemetry_findings_without_gpm_say_why():
    ticks = _recording(None, 100.0)
    rows = telemetry_findings([GpuInfo(0, gpm_reason="not in this recording")], ticks).rows
    assert all(r[2] == "n/a" for r in rows) and "GPM: not in this recording" in rows[0][3]


def _export_with_metrics(path, sm: int, tensor: int, dram_read: int, dram_write: int, kernel: str):
    builder = ExportBuilder()
    for k in range(50):
        builder.launch(1, k * 1000, k * 1000 + 50, kernel, 1_000_000 + k * 20_000, 15_000)
    builder.write(path)
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE TARGET_INFO_GPU_METRICS(typeId INTEGER, sourceId INTEGER, typeName TEXT, metricId INTEGER,
                                             metricName TEXT);
        CREATE TABLE GPU_METRICS(timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);""")
    names = [(0, "GR Active [Throughput %]"), (1, "SMs Active [Throughput %]"), (2, "Tensor Active [Throughput %]"),
             (3, "DRAM Read Bandwidth [Throughput %]"), (4, "DRAM Write Bandwidth [Throughput %]"),
             (5, "GPC Clock Frequency [MHz]")]
    type_id = 0x10000 | 0   # GPU 0
    con.executemany("INSERT INTO TARGET_INFO_GPU_METRICS VALUES (?,?,?,?,?)",
                    [(type_id, 0, "GH100", m, n) for m, n in names])
    values = {0: 99, 1: sm, 2: tensor, 3: dram_read, 4: dram_write, 5: 1980}
    samples = [(t, type_id, m, v) for t in range(0, 3_000_000, 10_000) for m, v in values.items()]
    con.executemany("INSERT INTO GPU_METRICS VALUES (?,?,?,?)", samples)
    con.commit()
    con.close()
    return NsysDatabase(path)


def test_nsys_gpu_metrics_decide_the_expert_rules(tmp_path):
    db = _export_with_metrics(tmp_path / "small.sqlite", sm=9, tensor=0, dram_read=2, dram_write=1,
                              kernel="void elementwise_kernel<float>(float*)")
    (gpu,) = gpu_activity(db)
    assert (gpu.gpu, gpu.gr_active, gpu.sm_active, gpu.tensor, gpu.dram, gpu.samples) == (0, 99.0, 9.0, 0.0, 3.0, 100)
    rows = {r[0]: r for r in expert_findings(db).rows}
    assert rows["low_sm_activity"][1] == "yes" and rows["low_sm_activity"][2].startswith(
        "GR Active 99.0% but SM activity 9.0% on GPU 0 (nsys GPU metrics, 100 samples over the 1.0 ms")
    assert rows["tensor_idle"][1] == "n/a"          # fp32 kernel names: no evidence of half precision
    assert rows["memory_bound"][1] == "no"


def test_nsys_tensor_idle_and_memory_bound(tmp_path):
    db = _export_with_metrics(tmp_path / "half.sqlite", sm=85, tensor=1, dram_read=50, dram_write=30,
                              kernel="void vectorized_elementwise_kernel<c10::BFloat16, bf16_add>(...)")
    rows = {r[0]: r for r in expert_findings(db).rows}
    assert rows["tensor_idle"][1] == "yes" and "100.0% of kernel time in kernels named for bf16/fp16" in rows["tensor_idle"][2]
    assert rows["memory_bound"][1] == "yes" and "DRAM bandwidth 80.0% of peak" in rows["memory_bound"][2]
    assert rows["low_sm_activity"][1] == "no"


def test_triage_activity_findings_carry_their_numbers():
    from aiperf_lab.triage.facts import DeviceTelemetry, TriageFacts
    from aiperf_lab.triage.findings import activity_findings, evaluate, gpu_activity

    found = activity_findings(0, 99.0, 12.0, 0.0, 75.0, None, "")
    assert [f.id for f in found] == ["low_sm_activity", "memory_bound"]
    assert found[0].title == "GPU 0: utilization high but SM activity low (few blocks or launch-bound)"
    assert found[0].detail.startswith("Utilization 99.0% but SM activity 12.0% while the workload ran (fires at")
    assert found[0].evidence["sm_active_avg_pct"] == 12.0 and found[0].evidence["thresholds"]["sm_active_below_pct"] == 50
    assert [f.id for f in activity_findings(0, 99.0, 60.0, 1.0, 10.0, 20.0, "")] == ["tensor_idle"]
    none = activity_findings(1, 99.0, None, None, None, None, "GPM not supported on this GPU (Hopper or later)")
    assert none[0].id == "gpu_activity_not_measured" and none[0].severity == "info"
    assert activity_findings(1, 99.0, None, None, None, None, None) == []
    row = DeviceTelemetry.from_row({"device": 0, "duration_s": 3.0, "util_gpu_avg_pct": 98.0, "sm_active_avg_pct": 20.0})
    facts = TriageFacts(telemetry=[row], gpm_reasons={0: ""})
    assert [f.id for f in gpu_activity(facts)] == ["low_sm_activity"]
    assert "over the capture" in gpu_activity(facts)[0].detail
    assert "low_sm_activity" in [f.id for f in evaluate(facts)]


def test_triage_report_shows_gpm_means_and_an_sm_activity_chart():
    from aiperf_lab.triage.facts import DeviceTelemetry, TriageFacts
    from aiperf_lab.triage.report import report_html, summary_markdown

    meta = {"host": "h", "start_utc": "a", "end_utc": "b", "duration_s": 3, "command": None}
    rows = [{"device": 0, "duration_s": 3.0, "avg_power_w": 500.0, "peak_power_w": 600.0, "energy_j": 1500.0,
             "energy_source": "counter", "util_gpu_avg_pct": 99.0, "temp_max_c": 60.0, "clock_event_power_cap_pct": 0.0,
             "sm_active_avg_pct": 12.0, "tensor_avg_pct": 0.0, "dram_avg_pct": 3.0},
            {"device": 1, "duration_s": 3.0, "avg_power_w": 90.0, "peak_power_w": 95.0, "energy_j": 270.0,
             "energy_source": "counter", "util_gpu_avg_pct": 0.0, "temp_max_c": 40.0, "clock_event_power_cap_pct": 0.0}]
    facts = TriageFacts(telemetry=[DeviceTelemetry.from_row(r) for r in rows])
    text = summary_markdown(meta, [], facts)
    assert "| 0 | 3.0 | 500.0 | 600.0 | 1500.0 (counter) | 99.0 | 12.0 | 0.0 | 3.0 | 60.0 | 0.0 |" in text
    assert "| 1 | 3.0 | 90.0 | 95.0 | 270.0 (counter) | 0.0 | n/a | n/a | n/a | 40.0 | 0.0 |" in text
    ticks = [Tick(k / 10, [GpuSample(k / 10, 0, power_w=500.0, gpm=GpmSample(k / 10, 1.0, sm_active_pct=12.0))], None)
             for k in range(20)]
    page = report_html(meta, [], facts, ticks, [0], {0: 700.0})
    assert "SM activity (GPM) (%)" in page and "<td>12.0</td>" in page
