"""PyTorch profiler traces: kernel and annotation summaries, old and new Kineto conventions."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS, H200, needs_corpus

from aiperf_lab.metrics.kineto import annotation_summary, kernel_summary, load_trace
from aiperf_lab.errors import MissingData

TRACE = H200 / "torch_encoder_layer.pt.trace.json"


def _key_averages():
    """Kernel rows of prof.key_averages().table() from the same run: name prefix -> (CUDA total us, calls)."""
    rows = {}
    for line in (H200 / "torch_key_averages.txt").read_text().splitlines():
        match = re.match(r"^\s*(\S.*?)\s{2,}0\.00%\s+0\.000us\s+0\.00%\s+0\.000us\s+0\.000us\s+([\d.]+)(us|ms)\s+"
                         r"[\d.]+%\s+\S+\s+\S+\s+(\d+)\s*$", line)
        if match:
            name, value, unit, calls = match.groups()
            scale = 1000 if unit == "ms" else 1
            # printed to 3 decimals of its unit: that is the comparison's resolution
            rows[name.rstrip(".")] = (float(value) * scale, int(calls), 0.0005 * scale)
    return rows


def test_kernel_totals_match_the_profilers_own_key_averages():
    ours = kernel_summary(load_trace(TRACE))
    expected = _key_averages()
    assert len(expected) >= 4
    matched = 0
    for prefix, (total_us, calls, resolution_us) in expected.items():
        rows = [r for r in ours.rows if r[-1].startswith(prefix)]
        if len(rows) == 1:  # key_averages cuts names; compare where the prefix is unique
            assert rows[0][2] == calls
            assert rows[0][1] / 1000 == pytest.approx(total_us, abs=resolution_us + 1e-9)
            matched += 1
    assert matched >= 4


def test_annotation_summary_links_gpu_work_by_correlation():
    table = annotation_summary(load_trace(TRACE))
    forward = {row[0]: row for row in table.rows}["forward"]
    assert forward[1] == 2 and forward[3] > 0 and forward[6] > 0   # 2 instances, GPU ops, GPU span


@needs_corpus
@pytest.mark.parametrize("name", ["sampled_rank-0.json.gz", "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"])
def test_old_and_new_external_id_conventions_link_every_op(name):
    trace = load_trace(CORPUS / "torch-hta" / name)
    assert trace.ops and all(op.launch_start is not None for op in trace.ops)


@needs_corpus
def test_integer_microsecond_traces_are_noted():
    table = kernel_summary(load_trace(CORPUS / "torch-hta" / "sampled_rank-0.json.gz"))
    assert any("whole microseconds" in note for note in table.notes)


@needs_corpus
@pytest.mark.parametrize("path", ["torch-kernelforge/chrome_trace.json",
                                  "torch-hta/benchmark_result_924719_1679055439_trace.json.gz"])
def test_traces_without_kernels_say_so(path):
    with pytest.raises(MissingData, match="does not contain CUDA kernel events"):
        kernel_summary(load_trace(CORPUS / path))


def _annotation_counts_by_scanning(trace):
    """torch_annotation_sum's GPU Ops and GPU Time per name, by the plain scan of every launch."""
    launches = [(trace.launch_pid.get(c), op.launch_start, op.duration)
                for op, c in zip(trace.ops, trace.op_correlation) if op.launch_start is not None and c is not None]
    out = {}
    for a in trace.annotations:
        entry = out.setdefault(a.name, [0, 0])
        for pid, start, duration in launches:
            if pid == a.pid and a.start <= start <= a.end:
                entry[0] += 1
                entry[1] += duration
    return out


@pytest.mark.parametrize("path", [TRACE, CORPUS / "torch-hta" / "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                  CORPUS / "torch-kernelforge" / "192-222-51-72_4336.1774353536539013415.pt.trace.json"])
def test_annotation_gpu_work_equals_a_scan_of_every_launch(path):
    if not path.exists():
        pytest.skip("needs ../shared/data/corpus")
    trace = load_trace(path)
    expected = _annotation_counts_by_scanning(trace)
    rows = {row[0]: row for row in annotation_summary(trace).rows}
    assert expected and any(ops for ops, _ in expected.values())
    assert {name: [rows[name][3], rows[name][4]] for name in expected} == expected


@pytest.mark.parametrize("path", [TRACE, CORPUS / "torch-hta" / "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                  CORPUS / "torch-kernelforge" / "chrome_trace.json"])
def test_small_documents_decoded_whole_give_what_the_streaming_walk_gives(path, monkeypatch):
    from aiperf_lab.metrics import json_stream

    if not path.exists():
        pytest.skip("needs ../shared/data/corpus")
    whole = json_stream.TraceReader(path)
    events = list(whole.events())
    monkeypatch.setattr(json_stream, "SMALL_DOCUMENT_BYTES", 0)  # every document walked event by event
    walked = json_stream.TraceReader(path)
    assert list(walked.events()) == events and walked.meta == whole.meta and len(events) > 900


def test_documents_the_fast_path_would_read_otherwise_are_walked(tmp_path):
    from aiperf_lab.errors import InputError
    from aiperf_lab.metrics.json_stream import TraceReader

    twice = tmp_path / "twice.json"   # json.loads keeps the last traceEvents; the walk reads both
    twice.write_text('{"traceEvents": [{"a": 1}], "traceEvents": [{"b": 2}]}')
    assert list(TraceReader(twice).events()) == [{"a": 1}, {"b": 2}]
    trailing = tmp_path / "trailing.json"
    trailing.write_text('{"traceEvents": []} {}')
    with pytest.raises(InputError, match="data after the end of the document"):
        list(TraceReader(trailing).events())
