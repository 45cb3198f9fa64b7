"""The non-GPU logic of benchmarks/gpm_verify.py (issue 15's GPU verification): parsing dmon and the
workload's phase markers, per-phase means, the comparison and its table."""

from __future__ import annotations

import sys
import time

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import gpm_verify as v  # noqa: E402

T0 = time.mktime(time.strptime("20261123 00:31:00", "%Y%m%d %H:%M:%S"))


def dmon_text(names=("gract", "smutil", "smocc", "mmaact", "hmmaact", "dram", "fp64", "fp32", "fp16", "pcitx",
                     "pcirx", "nvlrx", "nvltx")) -> str:
    header = "#Date       Time        gpu    pwr  gtemp     sm    mem  " + "  ".join(names)
    units = "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %  " + "  ".join("GPM:%" for _ in names)
    lines = [header, units]
    for k in range(20):
        stamp = time.strftime("%Y%m%d   %H:%M:%S", time.localtime(T0 + k + 1))
        busy = k < 10
        values = [100, 96, 14, 93, 93, 25, 0, 1, 0, 6, 3, "-", "-"] if busy else [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "-", "-"]
        lines.append(f" {stamp}      0    650     60    100     20  " + "  ".join(map(str, values[:len(names)])))
    return "\n".join(lines) + "\n"


def test_markers_and_dmon_parse():
    spans = v.parse_markers("noise\nPHASE matmul 100.5\nEND matmul 108.5 4000\nPHASE idle 108.6\n")
    assert spans == {"matmul": (100.5, 108.5)}
    rows, mapping = v.parse_dmon(dmon_text())
    assert mapping == "names" and len(rows) == 20
    stamp, values = rows[0]
    assert stamp == T0 + 1 and values[2] == 96.0 and values[5] == 93.0 and values[60] is None


def test_unknown_dmon_names_map_by_the_order_asked_for():
    rows, mapping = v.parse_dmon(dmon_text(names=tuple(f"m{i}" for i in range(13))))
    assert mapping == "order" and rows[0][1][2] == 96.0 and rows[0][1][61] is None


def test_phase_means_comparison_and_table():
    spans = {"matmul": (T0, T0 + 10), "idle": (T0 + 10, T0 + 20)}
    dmon_rows, _ = v.parse_dmon(dmon_text())
    theirs = v.dmon_phase_means(dmon_rows, spans)
    assert theirs["matmul"][2] == 96.0 and theirs["matmul"]["rows"] == 8       # first and last second left out
    windows = [(T0 + k, T0 + k + 1, {2: 97.5 if k < 10 else 0.0, 5: 80.0 if k < 10 else 0.0, 20: 6.5 if k < 10 else 0})
               for k in range(20)]
    ours = v.ours_phase_means(windows, spans)
    assert ours["matmul"][2] == 97.5 and ours["matmul"]["rows"] == 8
    rows = {(r[0], r[1]): r for r in v.comparison_rows(ours, theirs)}
    assert rows[("matmul", 2)][4:] == [1.5, "ok"]
    assert rows[("matmul", 5)][5] == "OFF by 13.0 points"
    assert rows[("matmul", 20)][5] == "ok"                      # MiB/s: within 10%
    assert rows[("matmul", 1)][5] == "n/a (ours missing)"
    table = v.markdown("NVIDIA H100 80GB HBM3, 580.159.04", list(rows.values()), {"gpm_read_ms_median": 0.8},
                       ["a note"])
    assert table.startswith("# Issue 15 on NVIDIA H100 80GB HBM3")
    assert "| matmul | 2 sm_active_pct | 97.5 | 96 | 1.5 | ok |" in table and "- a note" in table


# --- benchmarks/sampler_cost_gpu.py: the sampler's CPU cost on the GPU machine --------------------------
import sampler_cost_gpu as cost  # noqa: E402


def test_spaced_costs_time_each_call_apart_and_take_the_median():
    clock = [0.0]
    order = []

    def call(name, seconds):
        def run():
            order.append(name)
            clock[0] += seconds
            if name == "flaky" and len(order) % 2:
                raise RuntimeError("NVML hiccup")     # still timed: a failing call costs CPU too
        return run

    slept = []
    costs = cost.spaced_costs({"fast": call("fast", 10e-6), "flaky": call("flaky", 40e-6)}, rounds=5, gap_s=0.004,
                              clock=lambda: clock[0], sleep=slept.append)
    assert costs == {"fast": 10.0, "flaky": 40.0}
    assert order[:4] == ["fast", "flaky", "fast", "flaky"] and slept == [0.004] * 10   # interleaved, a gap before each


def test_tier_prediction_and_table():
    periods = {"status_every_s": 1.0, "slow_every_s": 2.0, "links_every_s": 10.0, "gpm_every_s": 2.0,
               "energy_every_s": 5.0}
    us = {"tick_fields": 40.0, "status_fields": 150.0, "slow": 300.0, "links": 900.0, "energy_mj": 5000.0,
          "gpm_read": 2400.0}
    prediction = dict(cost.tier_prediction(us, 10.0, periods))
    assert prediction["every tick: instant power + utilization"] == 0.4        # 40 us x 10 per second
    assert prediction["status: avg power, memory, temperature, clocks, reasons"] == 0.15
    assert prediction["energy counter"] == 1.0 and prediction["GPM read (sample + metrics)"] == 1.2
    assert prediction["links: NVLink states, power limit"] == 0.09
    runs = [{"name": "idle, GPM on", "seconds": 25.0, "ticks": 260, "pct_per_gpu": 0.42},
            {"name": "bf16 matmul, GPM on", "seconds": 25.0, "ticks": 260, "pct_per_gpu": 0.61},
            {"name": "bf16 matmul, GPM off", "error": "see notes"}]
    table = cost.markdown("NVIDIA H200, 580.95.05", {"field 186 instant power": {"spaced_us": 21.0, "tight_us": 6.1,
                                                                                 "value": "81000"}},
                          list(prediction.items()), runs, ["a note"])
    assert table.startswith("# Sampler CPU cost on NVIDIA H200")
    assert "| idle, GPM on | 25.0 | 260 | 0.420 | within |" in table
    assert "| bf16 matmul, GPM on | 25.0 | 260 | 0.610 | OVER |" in table
    assert "| bf16 matmul, GPM off | n/a | n/a | n/a | failed: see notes |" in table
    assert "| all reads | 2.990 |" in table and "| field 186 instant power | 21.0 | 6.1 | 81000 |" in table
