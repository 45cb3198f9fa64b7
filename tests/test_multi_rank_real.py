"""nccl_sum and rank_spread on a real two-rank capture: two NVLink-connected H200s, torchrun, one nsys per
rank (benchmarks/verify_issue17.sh part2), rank 1 doing a second matmul each step (a straggler)."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data" / "h200x2"
RANKS = [str(DATA / "nccl_rank0.sqlite"), str(DATA / "nccl_rank1.sqlite")]


def _report(name: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", *RANKS, "--report", name, "--format", "csv"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_nccl_sum_counts_each_ranks_collectives():
    rows = {(r["Rank"], r["Collective"]): r for r in _report("nccl_sum")}
    assert {k: r["Count"] for k, r in rows.items()} == {("0", "AllGather"): "5", ("0", "AllReduce"): "23",
                                                        ("1", "AllGather"): "5", ("1", "AllReduce"): "23"}
    # The bytes (NVTX extended payloads, or why they are unknown): tests/test_nccl_payload.py.


def test_rank_spread_names_the_straggler():
    rows = [r for r in _report("rank_spread") if r["Kind"] == "kernel" and "sgemm" in r["Name"]]
    assert len(rows) == 1 and rows[0]["Slowest Rank"] == "1" and rows[0]["Fastest Rank"] == "0"
    assert float(rows[0]["Spread (%)"]) > 50
