"""Red team h20r (session 20) on main after session 19's merges: the cases it found that broke the contract
(exit 0, or exit 2 with one line, within 10 s; no number silently wrong), each fixed outside the redaction rules.

1. An nvidia-smi query log whose clock went back (a log appended to after a reboot or an NTP step, or rows at
   one repeated time) integrated energy in file order and read the running total in time order: telemetry_summary
   said energy_j 0.0 and avg_power_w 0.0 for a GPU drawing 81 W all along (clock back an hour halfway), or an
   average power of 2,064 W over a peak of 81.8 W (every other row at the first row's time). Energy is now
   integrated in time order for a GPU whose clock went back; a log in order is read as before.
   The raw NVML layout (t_s, power_mw, ..., energy_mj) did the same: rows out of time order gave 0 J; there a
   counter that goes down in time order (the clock stepped back, the counter went on) is not read: energy is
   integrated from power, as for a log without a counter.
2. `aiperf-stats FILE --report overview` (the help says "default: overview") was "unknown report 'overview'",
   exit 2: it now gives what no --report gives; among other reports it stands for the overview's reports.
3. An nvidia-smi log of `--query-gpu=timestamp,power.draw.average,...` or `power.draw.instant` (fields drivers
   from R530 offer; the reader accepts any `power.draw*` header) was read as one without power: telemetry_summary
   left avg_power_w, peak_power_w and energy_j empty. The power column is power.draw, else .average, else
   .instant (said as instant power).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from conftest import H200

from aiperf_lab.metrics.cli import main

SMI_LOG = H200 / "nvidia-smi-query-gpu-lms100.csv"
EXPORT = H200 / "lm_forward.sqlite"


def _stats(args, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _summary(path: Path, capsys) -> list[dict[str, str]]:
    code, out, err = _stats([path, "--report", "telemetry_summary", "--format", "csv"], capsys)
    assert (code, err) == (0, ""), err
    return list(csv.DictReader(io.StringIO(out)))


def _smi_log(tmp_path: Path, name: str, stamp) -> Path:
    """The real H200 log with each row's timestamp given by stamp(row number, its timestamp)."""
    lines = SMI_LOG.read_text(encoding="utf-8").splitlines()
    body = []
    for k, line in enumerate(lines[1:]):
        cells = line.split(", ")
        body.append(", ".join([stamp(k, cells[0]), *cells[1:]]))
    path = tmp_path / f"{name}.csv"
    path.write_text("\n".join([lines[0], *body]) + "\n", encoding="utf-8")
    return path


_STEPPED = {
    "clock back an hour halfway": lambda k, s: s if k < 50 else s.replace("02:06", "01:06"),
    "clock back a year halfway": lambda k, s: s if k < 50 else s.replace("2026/", "2025/"),
    "every other row at the first time": lambda k, s: s if k % 2 else "2026/11/22 02:06:28.210",
    "rows in reverse order": None,
}


@pytest.mark.parametrize("case", list(_STEPPED))
def test_a_log_whose_clock_went_back_averages_power_within_its_readings(tmp_path, capsys, case):
    real = SMI_LOG.read_text(encoding="utf-8").splitlines()
    stamps = [line.split(", ")[0] for line in real[1:]]
    stamp = _STEPPED[case] or (lambda k, s: stamps[len(stamps) - 1 - k])
    (row,) = _summary(_smi_log(tmp_path, "stepped", stamp), capsys)
    # every reading of the real log is 81.6-81.9 W: an average outside them is no average of them
    assert 81.5 <= float(row["avg_power_w"]) <= float(row["peak_power_w"]) <= 82.0, row
    assert float(row["energy_j"]) == pytest.approx(float(row["avg_power_w"]) * float(row["duration_s"]), rel=1e-3)


def test_rows_reversed_give_the_energy_of_the_log_in_order(tmp_path, capsys):
    real = SMI_LOG.read_text(encoding="utf-8").splitlines()
    reversed_log = tmp_path / "reversed.csv"
    reversed_log.write_text("\n".join([real[0], *reversed(real[1:])]) + "\n", encoding="utf-8")
    (before,) = _summary(SMI_LOG, capsys)
    (after,) = _summary(reversed_log, capsys)
    assert after == before


def test_a_log_in_time_order_keeps_its_numbers(capsys):
    # guard: the real log, in order, reads as it always did (energy integrated once, in file order)
    (row,) = _summary(SMI_LOG, capsys)
    assert (row["samples"], row["duration_s"], row["avg_power_w"], row["energy_j"]) == ("100", "9.933", "81.71",
                                                                                       "811.616")


@pytest.mark.parametrize("source", [EXPORT, SMI_LOG, H200 / "ncu_full_raw.csv", H200 / "torch_encoder_layer.pt.trace.json"])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_report_overview_is_what_no_report_gives(capsys, source, fmt):
    plain = _stats([source, "--format", fmt], capsys)
    named = _stats([source, "--report", "overview", "--format", fmt], capsys)
    assert plain[0] == 0 and named == plain


def test_overview_among_other_reports_stands_for_its_reports(capsys):
    code, out, err = _stats([EXPORT, "--report", "overview,osrt_sum,nvtx_sum", "--format", "csv"], capsys)
    assert (code, err) == (0, "")
    names = [line.split(":")[0][2:] for line in out.splitlines() if line.startswith("# ")]
    # the overview's reports in their order, then osrt_sum; nvtx_sum (one of them) once
    assert names == ["cuda_gpu_kern_sum", "kernel_breakdown", "nvtx_sum", "gpu_idle", "gpu_idle_gaps", "osrt_sum"]


def test_an_unknown_report_is_still_refused(capsys):
    code, out, err = _stats([EXPORT, "--report", "overviews"], capsys)
    assert (code, out, err.count("\n")) == (2, "", 1) and "unknown report 'overviews'" in err


NVML_HEADER = "t_s,power_mw,power_instant_mw,energy_mj,util_gpu,util_mem,mem_used_b,temp_c,sm_clock_mhz,mem_clock_mhz"


def _nvml_rows(counter: bool) -> list[str]:
    """A raw NVML log of 101 rows, 10 Hz, 400 W all along; the counter (mJ) read every 10th row."""
    rows = []
    for k in range(101):
        energy = str(5_000_000 + k * 40_000) if counter and k % 10 == 0 else ""
        rows.append(f"{k / 10:.1f},400000,400000,{energy},50,10,1000,40,1980,2619")
    return rows


@pytest.mark.parametrize("counter", [True, False], ids=["counter", "no counter"])
@pytest.mark.parametrize("order", ["reversed", "second half an hour back"])
def test_a_raw_nvml_log_out_of_time_order_averages_its_power(tmp_path, capsys, counter, order):
    rows = _nvml_rows(counter)
    if order == "reversed":
        rows = rows[::-1]
    else:
        rows = rows[:50] + [f"{float(r.split(',', 1)[0]) - 3600:.1f},{r.split(',', 1)[1]}" for r in rows[50:]]
    path = tmp_path / "raw.csv"
    path.write_text("\n".join([NVML_HEADER, *rows]) + "\n", encoding="utf-8")
    (row,) = _summary(path, capsys)
    assert float(row["avg_power_w"]) == pytest.approx(400.0), row
    assert float(row["energy_j"]) == pytest.approx(400.0 * float(row["duration_s"]), rel=1e-6)


@pytest.mark.parametrize("counter", [True, False], ids=["counter", "no counter"])
def test_a_raw_nvml_log_in_order_keeps_its_energy(tmp_path, capsys, counter):
    # guard: in time order the counter (10 s x 400 W = 4,000 J) or the integral gives what it gave
    path = tmp_path / "raw.csv"
    path.write_text("\n".join([NVML_HEADER, *_nvml_rows(counter)]) + "\n", encoding="utf-8")
    (row,) = _summary(path, capsys)
    assert (row["energy_j"], row["energy_source"]) == ("4000.0", "counter" if counter else "integrated")


@pytest.mark.parametrize("field", ["power.draw.average", "power.draw.instant"])
def test_a_log_of_power_draw_average_or_instant_has_its_power(tmp_path, capsys, field):
    lines = SMI_LOG.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "smi.csv"
    path.write_text("\n".join([lines[0].replace("power.draw [W]", f"{field} [W]"), *lines[1:]]) + "\n",
                    encoding="utf-8")
    (row,) = _summary(path, capsys)
    (real,) = _summary(SMI_LOG, capsys)
    assert (row["avg_power_w"], row["peak_power_w"], row["energy_j"]) == ("81.71", "81.81", "811.616"), row
    assert row == real


def test_a_log_with_power_draw_and_its_instant_form_reads_power_draw(tmp_path, capsys):
    lines = SMI_LOG.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "smi.csv"
    body = [line.replace(" W,", " W, 300.00 W,", 1) for line in lines[1:]]
    path.write_text("\n".join([lines[0].replace("power.draw [W]", "power.draw [W], power.draw.instant [W]"), *body])
                    + "\n", encoding="utf-8")
    (row,) = _summary(path, capsys)
    assert (row["avg_power_w"], row["peak_power_w"]) == ("81.71", "81.81"), row
