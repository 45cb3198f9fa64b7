"""nccl_sum over PyTorch profiler traces: collectives from record_param_comms, bytes = elements x dtype size,
GPU time from the NCCL kernels each call launched."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest

from conftest import CORPUS, H200, needs_corpus

from aiperf_lab.metrics.cli import main

HTA = CORPUS / "torch-hta"


def _nccl_sum(capsys, paths):
    code = main([str(p) for p in paths] + ["--report", "nccl_sum", "--format", "csv"])
    captured = capsys.readouterr()
    return code, list(csv.DictReader(io.StringIO(captured.out))), captured.err


@needs_corpus
def test_bytes_are_each_calls_elements_times_its_dtype_size(capsys):
    """A ResNet run with NCCL 2.17 (no NVTX payloads) on one rank: the sizes come from PyTorch's own record."""
    path = HTA / "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    expected: dict[str, list[int]] = {}
    for e in events:
        if e.get("name") == "record_param_comms" and e["args"]["Collective name"] != "wait":  # wait: not one
            a = e["args"]
            width = {"Float": 4, "Long": 8}[a["dtype"]]   # the dtypes this trace has
            entry = expected.setdefault(a["Collective name"], [0, 0])
            entry[0] += 1
            entry[1] += max(a["In msg nelems"], a["Out msg nelems"]) * width
    code, rows, _ = _nccl_sum(capsys, [path])
    assert code == 0
    assert {r["Collective"]: [int(r["Count"]), int(r["Bytes"])] for r in rows} == \
        {"AllReduce": expected["allreduce"], "Broadcast": expected["broadcast"]}
    # One rank (Group size 1): NCCL launched no kernel, so no time and no bandwidth is claimed.
    assert {(r["Time (ns)"], r["AlgBW (GB/s)"], r["Ranks"]) for r in rows} == {("0", "", "1")}


@needs_corpus
def test_older_pytorch_without_sizes_says_so_and_still_times_the_kernels(capsys):
    path = HTA / "sampled_rank-0.json.gz"
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    nccl_time = sum(round(e["dur"] * 1000) for e in events if e.get("cat") == "kernel" and e["name"].startswith("nccl"))
    code, rows, _ = _nccl_sum(capsys, [path])
    assert code == 0
    assert {r["Collective"]: r["Count"] for r in rows} == {"AllReduce": "4", "AllToAll": "4", "AllGather": "2"}
    assert {r["Bytes"] for r in rows} == {"unknown"} and {r["Ranks"] for r in rows} == {"128"}
    assert sum(int(r["Time (ns)"]) for r in rows) == nccl_time
    assert main([str(path), "--report", "nccl_sum", "--format", "json"]) == 0
    assert "record_param_comms carries no element counts" in capsys.readouterr().out


def _rank_trace(tmp_path, rank: int, kernel_us: float):
    """Two ranks' all-gather of 1M floats each (In 1M, Out 2M elements) and an all-reduce of 4M bf16."""
    events = []
    t = 1000.0
    for collective, dtype, n_in, n_out, corr in (("allgather", "Float", 1 << 20, 2 << 20, 7),
                                                  ("allreduce", "BFloat16", 4 << 20, 4 << 20, 8)):
        events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 10, "tid": 11, "ts": t,
                       "dur": 50.0, "args": {"Collective name": collective, "dtype": dtype, "In msg nelems": n_in,
                                             "Out msg nelems": n_out, "Group size": 2}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11,
                       "ts": t + 10, "dur": 5.0, "args": {"correlation": corr}})
        events.append({"ph": "X", "cat": "kernel", "name": f"ncclDevKernel_{collective}(ncclDevKernelArgsStorage)",
                       "pid": rank, "tid": 7, "ts": t + 20, "dur": kernel_us,
                       "args": {"correlation": corr, "device": rank, "stream": 7}})
        t += 1000
    path = tmp_path / f"rank{rank}.pt.trace.json"
    path.write_text(json.dumps({"traceEvents": events, "distributedInfo": {"rank": rank, "world_size": 2}}))
    return path


def test_two_ranks_get_nccl_tests_sizes_and_bandwidths(tmp_path, capsys):
    code, rows, err = _nccl_sum(capsys, [_rank_trace(tmp_path, r, 100.0 * (r + 1)) for r in range(2)])
    assert code == 0, err
    by = {(r["Rank"], r["Collective"]): r for r in rows}
    gather, reduce = by[("1", "AllGather")], by[("1", "AllReduce")]
    assert gather["Bytes"] == str(2 * (1 << 20) * 4) and reduce["Bytes"] == str(4 * (1 << 20) * 2)
    assert gather["Time (ns)"] == "200000" and gather["Ranks"] == "2"
    assert float(gather["AlgBW (GB/s)"]) == pytest.approx(8 * (1 << 20) / 200_000, abs=5e-4)
    assert float(gather["BusBW (GB/s)"]) == pytest.approx(8 * (1 << 20) / 200_000 / 2, abs=5e-4)
    assert float(reduce["BusBW (GB/s)"]) == pytest.approx(8 * (1 << 20) / 200_000 * 1.0, abs=5e-4)


def test_a_trace_without_collectives_is_one_line_and_exit_2(capsys):
    code = main([str(H200 / "torch_encoder_layer.pt.trace.json"), "--report", "nccl_sum"])
    err = capsys.readouterr().err
    assert code == 2 and "has no collectives" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("nelems, expected", [(10 ** 400, str(1024 * 4)), (-5, str(1024 * 4)), (1 << 60, str(1024 * 4))])
def test_an_element_count_no_message_could_have_is_not_used(tmp_path, capsys, nelems, expected):
    """A 400-digit 'In msg nelems' crashed the bandwidth's division; such a count is left out and the
    other one (Out msg nelems) gives the size."""
    trace = {"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 1000, "dur": 50,
         "args": {"Collective name": "allreduce", "dtype": "Float", "In msg nelems": nelems,
                  "Out msg nelems": 1024, "Group size": 2}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 5,
         "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)", "pid": 0, "tid": 7,
         "ts": 1020, "dur": 30, "args": {"correlation": 7, "device": 0, "stream": 7}}]}
    path = tmp_path / "rank0.pt.trace.json"
    path.write_text(json.dumps(trace))
    code, rows, err = _nccl_sum(capsys, [path])
    assert code == 0, err
    assert [r["Bytes"] for r in rows] == [expected]
