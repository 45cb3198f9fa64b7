"""JSON written as the rows come (write_json) is to_json's text byte for byte, and never holds a trace's rows."""

from __future__ import annotations

import io
import json

import pytest

from aiperf_lab.metrics.tables import Table, to_json, write_json


def _tables() -> list[Table]:
    return [
        Table("cuda_gpu_kern_sum", "CUDA GPU kernels", ["Name", "Time (ns)", "Ratio"],
              [["gemm \"big\"\n", 12, 0.5], ["caf\u00e9 \ud800", None, float("nan")], ["inf", 3, float("inf")]],
              notes=["one note", "caf\u00e9"]),
        Table("empty", "nothing", ["A"], []),
        Table("stack", "nested", ["RangeStack", "Name"], [["[1,2,3]", "x"]] * 3, notes=[]),
    ]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_streamed_json_is_to_jsons_text(count):
    out = io.StringIO()
    write_json(_tables()[:count], out)
    assert out.getvalue() == to_json(_tables()[:count])
    json.loads(out.getvalue())


def test_rows_are_read_once_as_they_are_written():
    """The rows go out one by one: a generator is read once, and what was written before the last row is
    already on the stream when that row is made."""
    out = io.StringIO()
    seen = []

    def rows():
        for i in range(3):
            seen.append(len(out.getvalue()))
            yield [i, f"r{i}"]

    write_json([Table("t", "T", ["I", "S"], rows())], out)
    assert seen[0] < seen[1] < seen[2]
    assert json.loads(out.getvalue())[0]["rows"] == [{"I": i, "S": f"r{i}"} for i in range(3)]


def test_streamed_json_leaves_no_garbage_for_a_process_without_the_cycle_collector():
    """aiperf-stats runs with the cycle collector off; json.dumps(indent=...) leaves reference cycles per call,
    which grew a 534 MB JSON trace's process to 400 MB. The rows' JSON is made without them."""
    import gc

    rows = [[i, f"name {i}", 0.5 * i, None] for i in range(200)]
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        write_json([Table("t", "T", ["I", "Name", "F", "N"], iter(rows))], io.StringIO())
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert grown < 50, grown
