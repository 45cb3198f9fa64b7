"""Several ranks in one call: nccl_sum, rank_spread, and the single-file reports with a Rank column.

The exports are built by hand (tests/nsys_builder.py) until real two-GPU captures are kept as fixtures
(benchmarks/verify_issue17.sh makes them on the GPU machine's two-GPU kind).
"""

from __future__ import annotations

import csv
import io

import pytest

from nsys_builder import ExportBuilder

from aiperf_lab.metrics.cli import main
from aiperf_lab.metrics.nsys.ranks import bus_factor, rank_labels

MiB = 1 << 20
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32"


def _rank(tmp_path, rank: int, gemm_ns: int, *, payload: bool = True):
    """One rank's export: NCCL's NVTX range around each all-reduce launch (with its payload), the
    all-reduce kernels, and a GEMM whose duration differs per rank (the straggler has the longest)."""
    b = ExportBuilder(pid=1000 + rank, device=rank)
    b.domain(tid=1, domain=7, name="NCCL")
    t = 1_000
    for step in range(4):
        b.range(1, t, t + 20_000, "train_step")
        b.launch(1, t + 100, t + 900, GEMM, gpu_start=t + 1_000, duration=gemm_ns)
        size = '{"Message size [bytes]": %d, "Reduction operation": "Sum"}' % (4 * MiB)
        b.range(1, t + 1_000, t + 2_000, "ncclAllReduce", domain=7, payload=size if payload else None)
        b.launch(1, t + 1_100, t + 1_900, ALLREDUCE, gpu_start=t + 1_000 + gemm_ns, duration=100_000)
        t += 200_000
    b.range(1, t, t + 2_000, "ncclAllGather", domain=7, payload='{"Message size [bytes]": %d}' % MiB if payload else None)
    b.launch(1, t + 100, t + 900, ALLGATHER, gpu_start=t + 1_000, duration=50_000)
    return b.write(tmp_path / f"rank{rank}.sqlite")


def _csv(capsys, argv):
    code = main(argv + ["--format", "csv"])
    captured = capsys.readouterr()
    return code, list(csv.reader(io.StringIO(captured.out))), captured.err


def test_bus_bandwidth_factors_are_nccl_tests():
    assert bus_factor("AllReduce", 8) == pytest.approx(2 * 7 / 8)
    assert bus_factor("AllGather", 4) == pytest.approx(3 / 4)
    assert bus_factor("ReduceScatter", 2) == pytest.approx(1 / 2)
    assert bus_factor("Broadcast", 4) == 1.0 and bus_factor("Reduce", 4) == 1.0
    assert bus_factor("AllReduce", 1) is None  # no bus with one rank


def test_ranks_come_from_the_names_or_the_order(tmp_path):
    from pathlib import Path
    assert rank_labels([Path("rank1.sqlite"), Path("rank0.sqlite")]) == ["1", "0"]
    assert rank_labels([Path("a.sqlite"), Path("b.sqlite")]) == ["0", "1"]
    assert rank_labels([Path("x1.sqlite"), Path("y1.sqlite")]) == ["0", "1"]  # not distinct: the order


def test_nccl_sum_counts_bytes_time_and_bandwidths_per_rank(tmp_path, capsys):
    files = [str(_rank(tmp_path, r, gemm_ns=10_000 * (r + 1))) for r in range(2)]
    code, rows, _ = _csv(capsys, files + ["--report", "nccl_sum"])
    assert code == 0
    header, body = rows[0], rows[1:]
    assert header == ["Rank", "Collective", "Count", "Bytes", "Time (ns)", "Avg (us)", "AlgBW (GB/s)",
                      "BusBW (GB/s)", "Ranks"]
    by_key = {(r[0], r[1]): r for r in body}
    allreduce = by_key[("0", "AllReduce")]
    assert allreduce[2:6] == ["4", str(4 * 4 * MiB), "400000", "100.000"]
    algbw = 4 * 4 * MiB / 400_000  # bytes per ns = GB/s
    assert float(allreduce[6]) == pytest.approx(algbw, abs=5e-4)
    assert float(allreduce[7]) == pytest.approx(algbw * 2 * (2 - 1) / 2, abs=5e-4)
    allgather = by_key[("1", "AllGather")]
    assert allgather[3] == str(2 * MiB)  # nccl-tests' size: n x the per-rank message
    assert float(allgather[7]) == pytest.approx(2 * MiB / 50_000 / 2, abs=5e-4)
    assert all(r[8] == "2" for r in body)


def test_nccl_sum_says_unknown_without_the_payload(tmp_path, capsys):
    files = [str(_rank(tmp_path, r, gemm_ns=10_000, payload=False)) for r in range(2)]
    code, rows, _ = _csv(capsys, files + ["--report", "nccl_sum"])
    assert code == 0
    assert {r[3] for r in rows[1:]} == {"unknown"} and {r[6] for r in rows[1:]} == {""}


def test_nccl_sum_without_nccl_is_one_line_and_exit_2(tmp_path, capsys):
    b = ExportBuilder()
    b.launch(1, 0, 10, GEMM, gpu_start=20, duration=5)
    path = b.write(tmp_path / "plain.sqlite")
    code = main([str(path), "--report", "nccl_sum"])
    err = capsys.readouterr().err
    assert code == 2 and "does not contain NCCL kernels" in err and len(err.strip().splitlines()) == 1


def test_rank_spread_names_the_straggler(tmp_path, capsys):
    files = [str(_rank(tmp_path, r, gemm_ns=10_000 if r != 2 else 90_000)) for r in range(3)]
    code, rows, _ = _csv(capsys, files + ["--report", "rank_spread"])
    assert code == 0
    header = rows[0]
    gemm = next(r for r in rows[1:] if r[1] == GEMM)
    row = dict(zip(header, gemm))
    assert row["Kind"] == "kernel" and row["Ranks"] == "3/3" and row["Count"] == "4"
    assert row["Slowest Rank"] == "2" and row["Max Total (ns)"] == str(4 * 90_000)
    assert row["Spread (ns)"] == str(4 * 80_000)
    assert rows[1][1] == GEMM  # the largest spread comes first


def test_rank_spread_needs_two_ranks(tmp_path, capsys):
    code = main([str(_rank(tmp_path, 0, 10_000)), "--report", "rank_spread"])
    assert code == 2 and "two or more ranks" in capsys.readouterr().err


def test_single_file_reports_over_several_ranks_get_a_rank_column(tmp_path, capsys):
    files = [str(_rank(tmp_path, r, gemm_ns=10_000 * (r + 1))) for r in range(2)]
    code, rows, _ = _csv(capsys, files + ["--report", "cuda_gpu_kern_sum"])
    assert code == 0
    assert rows[0][:2] == ["Rank", "Time (%)"]
    assert {r[0] for r in rows[1:]} == {"0", "1"}
    single = {}
    for rank, path in enumerate(files):
        _, own, _ = _csv(capsys, [path, "--report", "cuda_gpu_kern_sum"])
        single[str(rank)] = own[1:]
    assert [r[1:] for r in rows[1:] if r[0] == "0"] == single["0"]  # each rank's rows, as alone


def test_a_trace_report_over_ranks_streams_with_its_rank(tmp_path, capsys):
    files = [str(_rank(tmp_path, r, gemm_ns=10_000)) for r in range(2)]
    code, rows, _ = _csv(capsys, files + ["--report", "cuda_kern_exec_trace"])
    assert code == 0 and rows[0][0] == "Rank" and len(rows) == 1 + 2 * 9


def test_a_rank_without_the_data_drops_out_and_is_named(tmp_path, capsys):
    with_nvtx = _rank(tmp_path, 0, gemm_ns=10_000)
    b = ExportBuilder(pid=2001, device=1)
    b.launch(1, 0, 10, GEMM, gpu_start=20, duration=5)
    b.nvtx.clear()
    without = b.write(tmp_path / "rank1.sqlite")
    import sqlite3
    con = sqlite3.connect(without)
    con.execute("DROP TABLE NVTX_EVENTS")
    con.commit()
    con.close()
    code, rows, err = _csv(capsys, [str(with_nvtx), str(without), "--report", "nvtx_sum"])
    assert code == 0 and {r[0] for r in rows[1:]} == {"0"}
    assert "rank 1:" in err and "does not contain NV Tools Extension (NVTX) data" in err


def test_kernels_launched_at_group_end_are_said_to_have_no_size(tmp_path, capsys):
    """Grouped calls (ncclGroupStart; ncclAllGather x2; ncclGroupEnd): NCCL launches at ncclGroupEnd, whose
    range holds no size; the kernel keeps its collective from its name, and the note says why no bytes."""
    files = []
    for rank in range(2):
        b = ExportBuilder(pid=1000 + rank, device=rank)
        b.domain(tid=1, domain=7, name="NCCL")
        b.range(1, 1_000, 1_100, "ncclGroupStart", domain=7)
        b.range(1, 1_200, 1_300, "ncclAllGather", domain=7, payload='{"Message size [bytes]": 1024}')
        b.range(1, 1_400, 1_500, "ncclAllGather", domain=7, payload='{"Message size [bytes]": 1024}')
        b.range(1, 1_600, 3_000, "ncclGroupEnd", domain=7)
        b.launch(1, 1_700, 2_000, ALLGATHER, gpu_start=5_000, duration=50_000)
        files.append(str(b.write(tmp_path / f"rank{rank}.sqlite")))
    code, rows, _ = _csv(capsys, files + ["--report", "nccl_sum"])
    assert code == 0 and [(r[1], r[3]) for r in rows[1:]] == [("AllGather", "unknown")] * 2
    assert main(files + ["--report", "nccl_sum", "--format", "json"]) == 0
    assert "Bytes unknown for 2 kernels: launched inside ncclGroupEnd" in capsys.readouterr().out


def test_the_sweep_finds_the_same_innermost_range_as_the_plain_scan():
    import random

    from aiperf_lab.metrics.collectives import innermost_holders
    from aiperf_lab.metrics.nsys.ranks import _innermost

    rng = random.Random(7)
    ranges = []

    def nest(start, end, depth):  # properly nested push/pop ranges, as one thread makes them
        t = start
        while depth < 4 and t < end - 10 and rng.random() < 0.8:
            a = rng.randint(t, end - 10)
            b = rng.randint(a + 1, min(end, a + (end - start) // 2 + 2))
            ranges.append((a, b, "c", depth))
            nest(a, b, depth + 1)
            t = b + 1

    nest(0, 100_000, 0)
    calls = []
    for _ in range(2000):
        a = rng.randint(0, 100_000)
        calls.append((a, a + rng.randint(0, 50)))
    assert len(ranges) > 50
    assert innermost_holders(ranges, calls) == [_innermost(ranges, a, b) for a, b in calls]


def test_a_call_that_launches_two_kernels_counts_its_bytes_once(tmp_path, capsys):
    b = ExportBuilder(pid=1000, device=0)
    b.domain(tid=1, domain=7, name="NCCL")
    b.range(1, 1_000, 5_000, "ncclAllReduce", domain=7, payload='{"Message size [bytes]": 4096}')
    b.launch(1, 1_100, 1_900, ALLREDUCE, gpu_start=10_000, duration=1_000)
    b.launch(1, 2_100, 2_900, ALLREDUCE, gpu_start=12_000, duration=1_000)
    path = b.write(tmp_path / "rank0.sqlite")
    code, rows, _ = _csv(capsys, [str(path), "--report", "nccl_sum"])
    assert code == 0 and [(r[1], r[2], r[3], r[4]) for r in rows[1:]] == [("AllReduce", "2", "4096", "2000")]
