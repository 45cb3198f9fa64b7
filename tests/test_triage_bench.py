"""The node bench (--bench): nccl-tests' arithmetic, each GPU against the node, each pair against its
link, and the orchestration with stand-in workers that finish, hang, crash or are interrupted."""

from __future__ import annotations

import json
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest

from aiperf_lab.metrics.telemetry.model import GpuSample, Tick
from aiperf_lab.triage import bench_worker
from aiperf_lab.triage.archive import compare
from aiperf_lab.triage.bench import BenchLimits, run_node_bench, run_phase
from aiperf_lab.triage.bench_analysis import (NodeBench, bus_factor, gpu_findings, gpu_rows, judge, link_expectation,
                                              nccl_findings, nccl_rows, nvlink_speed_gb_s, pair_findings, pair_rows,
                                              phase_telemetry)
from aiperf_lab.triage.bench_phase import bench_into_bundle, overall_status
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.redact import Redactor

H200 = {"name": "NVIDIA H200", "pcie_gen_max": 5, "pcie_width_max": 16,
        "nvlinks": [{"link": i, "active": True, "version": 6} for i in range(18)]}
HARDWARE = [dict(H200, index=0, uuid="GPU-a"), dict(H200, index=1, uuid="GPU-b")]
MATRIX = {"columns": ["GPU0", "GPU1"], "rows": {"GPU0": {"GPU0": "X", "GPU1": "NV18"},
                                               "GPU1": {"GPU0": "NV18", "GPU1": "X"}}}
NVLINK_STATUS = "GPU 0: NVIDIA H200 (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n"


def test_bus_bandwidth_factors_are_nccl_tests_own():
    assert bus_factor("all_reduce", 8) == pytest.approx(1.75)
    assert bus_factor("all_reduce", 2) == pytest.approx(1.0)
    assert bus_factor("all_gather", 8) == pytest.approx(0.875)
    assert bus_factor("broadcast", 8) == 1.0
    with pytest.raises(ValueError):
        bus_factor("all_to_everyone", 2)


def test_nccl_rows_compute_algbw_and_busbw_from_size_and_time():
    bench = NodeBench(nccl=[{"op": "all_reduce", "bytes": 1 << 30, "ranks": 8, "iters": 20, "time_us": 5000.0},
                            {"op": "all_gather", "bytes": 1 << 30, "ranks": 8, "iters": 20, "time_us": 4000.0},
                            {"op": "all_reduce", "bytes": 8, "ranks": 8, "iters": 50, "time_us": 0.0}])
    rows = nccl_rows(bench)
    assert len(rows) == 2          # a zero time is not a measurement
    reduce, gather = rows
    assert reduce["algbw_gb_s"] == round((1 << 30) / 5e-3 / 1e9, 2) == 214.75
    assert reduce["busbw_gb_s"] == round(214.7483648 * 1.75, 2)
    assert gather["busbw_gb_s"] == round((1 << 30) / 4e-3 / 1e9 * 0.875, 2)


def _gpu(index, uuid, copy, bf16, fp32):
    return {"index": index, "uuid": uuid, "name": "NVIDIA H200", "copy_tb_s": copy, "bf16_matmul_tflops": bf16,
            "fp32_matmul_tflops": fp32}


def test_a_gpu_more_than_ten_percent_under_the_median_is_named():
    bench = NodeBench(gpus=[_gpu(0, "GPU-a", 4.2, 700.0, 51.0), _gpu(1, "GPU-b", 4.2, 705.0, 51.2),
                            _gpu(2, "GPU-c", 4.1, 600.0, 51.1), _gpu(3, "GPU-d", 4.2, 702.0, 50.9)])
    rows = gpu_rows(bench, HARDWARE)
    found = gpu_findings(rows, 4)
    assert [f.evidence["gpu"] for f in found] == [2]
    assert "bf16" in found[0].title and "14% under" in found[0].title
    bf16 = [r for r in rows if r["key"] == "bf16_matmul_tflops"]
    assert bf16[0]["node_median"] == 701.0 and bf16[0]["datasheet"] == 989.0
    assert bf16[0]["nvml_index"] == 0 and bf16[2]["nvml_index"] is None   # GPU-c is not in the NVML facts


def test_bench_tables_list_gpus_by_index_whatever_order_the_workers_finished_in():
    """The real two-H200 bundle's Bench table read GPU 1, GPU 0 (the workers' order), sorted by nothing said."""
    bench = NodeBench(gpus=[_gpu(1, "GPU-b", 4.125, 758.1, 50.2), _gpu(0, "GPU-a", 4.183, 785.1, 50.2)],
                      host_links=[{"index": 1, "uuid": "GPU-b", "h2d_gb_s": 55.3, "d2h_gb_s": 55.1},
                                  {"index": 0, "uuid": "GPU-a", "h2d_gb_s": 55.5, "d2h_gb_s": 55.3}],
                      pairs=[{"src": 1, "dst": 0, "gb_s": 387.47}, {"src": 0, "dst": 1, "gb_s": 387.21}])
    verdict = judge(bench, hardware_gpus=HARDWARE, matrix=MATRIX, nvlink_status=NVLINK_STATUS)
    assert [(r["figure"][:4], r["gpu"]) for r in verdict.tables["bench_gpus"]] == \
        [("devi", 0), ("devi", 1), ("bf16", 0), ("bf16", 1), ("fp32", 0), ("fp32", 1)]
    assert [r["gpu"] for r in verdict.tables["bench_host_links"]] == [0, 1]
    assert [(r["src"], r["dst"]) for r in verdict.tables["bench_pairs"]] == [(0, 1), (1, 0)]


def test_one_gpu_is_never_compared_with_itself():
    bench = NodeBench(gpus=[_gpu(0, "GPU-a", 4.2, 300.0, 51.0)])
    assert gpu_findings(gpu_rows(bench, HARDWARE), 1) == []


def test_link_expectations_from_the_topology_and_nvlink_status():
    assert nvlink_speed_gb_s(NVLINK_STATUS) == 26.562
    nv = link_expectation(HARDWARE[0], HARDWARE[1], MATRIX, 26.562)
    assert nv["link"] == "NV18" and nv["nominal_gb_s"] == round(18 * 26.562, 1)
    from_version = link_expectation(HARDWARE[0], HARDWARE[1], MATRIX, None)
    assert from_version["nominal_gb_s"] == 450.0 and "NVML" in from_version["basis"]
    pcie_matrix = {"rows": {"GPU0": {"GPU1": "SYS"}}}
    pcie = link_expectation(HARDWARE[0], dict(HARDWARE[1], pcie_gen_max=4), pcie_matrix, None)
    assert pcie["link"] == "SYS" and pcie["nominal_gb_s"] == round(1.969 * 16, 1)
    assert link_expectation(None, HARDWARE[1], MATRIX, None)["nominal_gb_s"] is None


def test_a_pair_below_what_its_link_promises_is_flagged_and_a_healthy_one_is_not():
    bench = NodeBench(pairs=[
        {"src": 0, "dst": 1, "src_uuid": "GPU-a", "dst_uuid": "GPU-b", "peer_access": True, "gb_s": 390.0,
         "bidir_gb_s": 760.0, "small_copy_us": 11.0},
        {"src": 1, "dst": 0, "src_uuid": "GPU-b", "dst_uuid": "GPU-a", "peer_access": False, "gb_s": 150.0,
         "bidir_gb_s": 300.0, "small_copy_us": 30.0}])
    rows = pair_rows(bench, HARDWARE, MATRIX, NVLINK_STATUS)
    assert rows[0]["of_nominal"] == round(390 / 478.1, 3)
    found = pair_findings(rows)
    assert [(f.evidence["src"], f.evidence["dst"]) for f in found] == [(1, 0)]
    assert "Peer access is off" in found[0].detail


def test_nccl_is_judged_only_on_large_messages_against_the_slowest_link():
    pairs = [{"nominal_gb_s": 478.1}, {"nominal_gb_s": 63.0}]
    slow = nccl_rows(NodeBench(nccl=[{"op": "all_reduce", "bytes": 1 << 30, "ranks": 2, "time_us": 1e5}]))
    assert slow[0]["busbw_gb_s"] < 0.5 * 63.0
    assert [f.id for f in nccl_findings(slow, pairs)] == ["bench_nccl_slow"]
    small = nccl_rows(NodeBench(nccl=[{"op": "all_reduce", "bytes": 1 << 20, "ranks": 2, "time_us": 1e5}]))
    assert nccl_findings(small, pairs) == []


def test_power_and_clocks_per_phase_come_from_the_ticks_inside_its_window():
    ticks = [Tick(t, [GpuSample(t, 0, power_w=p, sm_clock_mhz=c, clock_event_reasons=r)], None)
             for t, p, c, r in ((0.5, 80.0, 345, 0x1), (1.5, 650.0, 1400, 0x4), (2.5, 700.0, 1500, 0x4),
                                (3.5, 90.0, 345, 0x1))]
    rows = phase_telemetry(ticks, {"gpus": (1.0, 3.0)})
    assert rows == [{"phase": "gpus", "nvml_index": 0, "samples": 2, "avg_power_w": 675.0, "peak_power_w": 700.0,
                     "avg_sm_clock_mhz": 1450, "clock_events": "power cap"}]


def test_worker_sizes_follow_free_memory_and_nccl_tests_sweep():
    sizes = bench_worker.sweep_sizes(1 << 30)
    assert sizes[0] == 8 and sizes[-1] == 1 << 30 and len(sizes) == 28
    assert bench_worker.sweep_sizes(1 << 20)[-1] == 1 << 20
    assert bench_worker._copy_bytes(80 << 30) == 1 << 30
    assert bench_worker._copy_bytes(400 << 20) == 100 << 20
    assert bench_worker._matmul_size(80 << 30, 2) == 8192
    assert bench_worker._matmul_size(1 << 30, 4) < 8192
    parsed = bench_worker._parse_cpus(["GPU-a=0-3,8", "GPU-b=junk", "=1"])
    assert parsed == {"GPU-a": {0, 1, 2, 3, 8}}
    assert bench_worker._cpu_text(parsed["GPU-a"]) == "0-3,8"


def _worker(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "worker.py"
    script.write_text("import json, sys, time\n"
                      "def emit(**r):\n    print(json.dumps(r), flush=True)\n" + body)
    return [sys.executable, str(script)]


def test_a_worker_that_finishes_has_every_line_kept(tmp_path):
    argv = _worker(tmp_path, "emit(kind='start', phase='gpus')\n"
                             "emit(kind='gpu', index=0, uuid='GPU-a', copy_tb_s=4.2, bf16_matmul_tflops=700.0)\n"
                             "print('a library talking')\n"
                             "emit(kind='done', phase='gpus')\n")
    bench, progress = NodeBench(), []
    run_phase(argv, 10.0, bench, "gpus", on_progress=progress.append)
    assert bench.phases["gpus"]["status"] == "ok"
    assert bench.gpus[0]["bf16_matmul_tflops"] == 700.0
    assert any("GPU 0: copy 4.2 TB/s" in p for p in progress)


def test_a_worker_that_hangs_is_stopped_at_its_limit_and_keeps_what_it_printed(tmp_path):
    argv = _worker(tmp_path, "emit(kind='pair', src=0, dst=1, gb_s=390.0)\ntime.sleep(60)\n")
    bench = NodeBench()
    started = time.monotonic()
    run_phase(argv, 1.5, bench, "links")
    assert time.monotonic() - started < 10
    assert bench.phases["links"]["status"] == "timeout"
    assert bench.pairs == [{"src": 0, "dst": 1, "gb_s": 390.0}]


def test_a_worker_that_crashes_is_failed_with_its_last_error_line(tmp_path):
    argv = _worker(tmp_path, "emit(kind='gpu', index=0, copy_tb_s=4.2)\n"
                             "sys.stderr.write('Traceback...\\nRuntimeError: CUDA error: out of memory\\n')\n"
                             "sys.exit(1)\n")
    bench = NodeBench()
    run_phase(argv, 10.0, bench, "gpus")
    state = bench.phases["gpus"]
    assert state["status"] == "failed" and "out of memory" in state["error"]
    assert len(bench.gpus) == 1


def test_an_interrupted_phase_keeps_its_figures_and_later_phases_do_not_start(tmp_path):
    stop = threading.Event()
    script = _worker(tmp_path, "phase = sys.argv[1]\n"
                               "emit(kind='gpu', index=0, uuid='GPU-a', copy_tb_s=4.0)\n"
                               "emit(kind='gpu', index=1, uuid='GPU-b', copy_tb_s=4.1)\n"
                               "time.sleep(60)\n")
    threading.Timer(1.0, stop.set).start()
    bench, windows = run_node_bench(limits=BenchLimits(5, 5, 5), stop=stop,
                                    argv_for=lambda phase, limit: [*script, phase])
    assert bench.phases["gpus"]["status"] == "interrupted"
    assert [g["copy_tb_s"] for g in bench.gpus] == [4.0, 4.1]
    assert bench.phases["links"]["status"] == "skipped" and bench.phases["nccl"]["status"] == "skipped"
    assert set(windows) == {"gpus"}


def test_one_gpu_runs_the_single_gpu_parts_and_says_what_it_skipped(tmp_path):
    script = _worker(tmp_path, "phase = sys.argv[1]\n"
                               "if phase == 'gpus':\n    emit(kind='gpu', index=0, uuid='GPU-a', copy_tb_s=4.0)\n"
                               "else:\n    emit(kind='note', phase='links', note='one GPU: host links only')\n"
                               "    emit(kind='host_link', index=0, uuid='GPU-a', h2d_gb_s=55.0, d2h_gb_s=54.0)\n")
    calls = []
    bench, _ = run_node_bench(limits=BenchLimits(10, 10, 10),
                              argv_for=lambda phase, limit: calls.append(phase) or [*script, phase])
    assert calls == ["gpus", "links"]
    assert bench.phases["nccl"] == {"status": "skipped", "seconds": 0.0, "error": "needs 2 or more GPUs; 1 visible"}
    assert any("one GPU" in note for note in bench.notes)
    assert overall_status(bench.phases) == ("ok", "nccl skipped: needs 2 or more GPUs; 1 visible")


def test_no_pytorch_or_no_gpu_skips_the_whole_bench():
    phases = {p: {"status": "skipped", "error": "PyTorch sees no CUDA device"} for p in ("gpus", "links", "nccl")}
    status, error = overall_status(phases)
    assert status == "skipped" and "no CUDA device" in error


class _Ring:
    def __init__(self, ticks):
        self.ticks = ticks

    def snapshot(self):
        return None, self.ticks


class _Sampler:
    def __init__(self):
        self.clock = 0.0
        self.ring = _Ring([Tick(t, [GpuSample(t, 0, power_w=600.0, sm_clock_mhz=1500)], None) for t in (1.0, 2.0)])

    def now(self) -> float:
        self.clock += 1.0
        return self.clock


def _fake_run(**kwargs):
    bench = NodeBench(gpus=[_gpu(0, "GPU-a", 4.2, 700.0, 51.0), _gpu(1, "GPU-b", 4.2, 560.0, 51.0)],
                      pairs=[{"src": 0, "dst": 1, "src_uuid": "GPU-a", "dst_uuid": "GPU-b", "peer_access": True,
                              "gb_s": 380.0, "bidir_gb_s": 740.0, "small_copy_us": 12.0}],
                      nccl=[{"op": "all_reduce", "bytes": 1 << 30, "ranks": 2, "iters": 10, "time_us": 3200.0}],
                      nccl_info={"nccl": "2.27.5"},
                      phases={p: {"status": "ok", "seconds": 1.0, "error": None} for p in ("gpus", "links", "nccl")})
    return bench, {"gpus": (0.5, 2.5)}


def test_the_bench_lands_in_the_bundle_with_tables_findings_and_summary(tmp_path):
    bundle = BundleWriter(tmp_path, "aiperf-triage-test", Redactor())
    found, lines = bench_into_bundle(bundle, sampler=_Sampler(), hardware={"nvml": {"gpus": HARDWARE}},
                                     topology={"matrix": MATRIX, "gpu_affinity": {}}, nvlink_status=NVLINK_STATUS,
                                     stop=None, say=lambda _: None, run=_fake_run)
    assert [f.id for f in found] == ["bench_gpu_under_median"]
    saved = json.loads(bundle.path("bench.json").read_text())
    assert saved["tables"]["bench_nccl"][0]["busbw_gb_s"] == round((1 << 30) / 3.2e-3 / 1e9, 2)
    assert saved["tables"]["bench_power"][0]["avg_power_w"] == 600.0
    assert bundle.path("bench/bench_pairs.csv").read_text().splitlines()[0].startswith("src,dst,")
    assert bundle.record("bench").status == "ok"
    assert any("| all_reduce | 1073741824 |" in line for line in lines)


def _bundle_with_bench(path: Path, host: str, busbw_time_us: float) -> Path:
    bench, _ = _fake_run()
    bench.nccl[0]["time_us"] = busbw_time_us
    tables = judge(bench, hardware_gpus=HARDWARE, matrix=MATRIX, nvlink_status=NVLINK_STATUS).tables
    top = f"aiperf-triage-{host}-20261123T000000Z"
    files = {"manifest.json": {"tool": "aiperf-triage", "schema_version": 1, "host": host, "start_utc": "2026-11-23"},
             "hardware_capabilities.json": {"nvml": {"driver_version": "580", "gpus": HARDWARE}},
             "bench.json": {"measured": bench.as_dict(), "tables": tables}}
    with tarfile.open(path, "w:gz") as tar:
        for name, content in files.items():
            data = json.dumps(content).encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            import io
            tar.addfile(info, io.BytesIO(data))
    return path


def test_compare_sets_the_nodes_sweeps_side_by_side(tmp_path):
    a = _bundle_with_bench(tmp_path / "a.tar.gz", "node1", 3200.0)
    b = _bundle_with_bench(tmp_path / "b.tar.gz", "node2", 6400.0)
    _labels, rows, odd = compare([a, b])
    by_field = {r[0]: (r[1:], o) for r, o in zip(rows, odd)}
    values, flagged = by_field["NCCL all-reduce busbw GB/s @ 1 GiB"]
    assert values == [f"{round((1 << 30) / 3.2e-3 / 1e9, 2)} (2 GPUs)", f"{round((1 << 30) / 6.4e-3 / 1e9, 2)} (2 GPUs)"]
    assert flagged == {0, 1}
    assert by_field["bench bf16 TFLOP/s"][0] == ["700.0,560.0", "700.0,560.0"]


def test_redacted_uuids_in_the_bundle_still_match_the_workers_through_the_samplers_devices(tmp_path):
    from aiperf_lab.metrics.telemetry.model import GpuInfo

    sampler = _Sampler()
    sampler.devices = [GpuInfo(0, "NVIDIA H200", "GPU-a"), GpuInfo(1, "NVIDIA H200", "GPU-b")]
    redacted = [dict(g, uuid=f"gpu-uuid-{g['index'] + 1}") for g in HARDWARE]
    bundle = BundleWriter(tmp_path, "aiperf-triage-test", Redactor())
    bench_into_bundle(bundle, sampler=sampler, hardware={"nvml": {"gpus": redacted}},
                      topology={"matrix": MATRIX, "gpu_affinity": {}}, nvlink_status=NVLINK_STATUS,
                      stop=None, say=lambda _: None, run=_fake_run)
    pairs = json.loads(bundle.path("bench.json").read_text())["tables"]["bench_pairs"]
    assert pairs[0]["link"] == "NV18" and pairs[0]["nominal_gb_s"] == 478.1


REAL_NODE = Path(__file__).parent / "data" / "triage" / "h200x2-bench.tar.gz"


def test_a_real_two_gpu_bench_bundle_shows_and_compares():
    """`aiperf-triage --duration 3 --bench --no-nsys --redact-hosts` on two NVLink H200s (environment.txt
    and the kernel log removed before it was kept)."""
    from aiperf_lab.triage.archive import show

    text = show(REAL_NODE)
    assert "## Bench" in text and "| 0 | 1 | NV18 | 387.21 | 696.56 |" in text
    assert "| all_reduce | 1073741824 | 3301.96 | 325.18 | 325.18 |" in text
    labels, rows, _odd = compare([REAL_NODE, Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"])
    by_field = {r[0]: r[1:] for r in rows}
    assert by_field["NCCL all-reduce busbw GB/s @ 1 GiB"] == ["325.18 (2 GPUs)", "-"]
    assert by_field["bench GPU pairs GB/s (min-max)"][0] == "387.21-387.47"


def test_an_nvlink_generation_we_have_no_rate_for_is_not_judged():
    newer = [dict(g, nvlinks=[{"link": i, "active": True, "version": 8} for i in range(18)]) for g in HARDWARE]
    expect = link_expectation(newer[0], newer[1], MATRIX, None)
    assert expect["nominal_gb_s"] is None and expect["basis"] == "NVLink rate unknown"
