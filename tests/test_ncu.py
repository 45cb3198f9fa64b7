"""Nsight Compute CSV in every shape real files take, and the verdicts drawn from it."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, H200, needs_corpus

from aiperf_lab.errors import InputError
from aiperf_lab.metrics.ncu import (detect_number_style, metric_id, ncu_summary, parse_ncu_csv, parse_number,
                                    read_ncu_file, verdict)


def summary_by_id(path):
    return {row["ID"]: row for row in ncu_summary(read_ncu_file(path)).as_dicts()}


def test_details_page_and_raw_page_of_one_report_agree():
    """The same H200 report exported as --page details (labels, rounded) and --page raw (ids, 6 decimals)."""
    details = summary_by_id(H200 / "ncu_full_details.csv")
    raw = summary_by_id(H200 / "ncu_full_raw.csv")
    assert details.keys() == raw.keys() == {0, 1, 2, 3}
    for kernel_id in details:
        d, r = details[kernel_id], raw[kernel_id]
        assert d["Duration (ns)"] == pytest.approx(r["Duration (ns)"], rel=0.01)  # "6.72 us" against 6720 ns
        for column in ("SM Throughput (%)", "DRAM Throughput (%)", "L2 Throughput (%)", "Achieved Occupancy (%)"):
            assert d[column] == pytest.approx(r[column], abs=0.006)               # details: 2 decimals
        assert d["Verdict"] == r["Verdict"]


def test_live_raw_output_with_prof_lines_and_program_output():
    text = (H200 / "ncu_raw_metrics.csv").read_text()
    assert text.startswith("==PROF==") and "\nok\n" in text
    kernels = parse_ncu_csv(text)
    assert len(kernels) == 12
    assert kernels[0].metrics["gpu__time_duration.sum"].unit in ("us", "usecond", "ns", "nsecond")


def test_verdict_rules_show_their_numbers():
    assert verdict(85.0, 40.0, 50.0)[0] == "compute-bound"
    # an H200 bf16 GEMM under ncu 2025.3: SM 93.3%, memory 94.5% (shared memory), DRAM 21%, L2 48.6%
    label, why = verdict(93.32, 94.49, 14.78, offchip=48.59)
    assert label == "compute-bound" and "on chip" in why
    assert verdict(37.5, 89.1, 80.3, offchip=89.1)[0] == "memory-bound"
    assert "on-chip memory" in verdict(11.8, 97.5, 65.4, offchip=1.7)[1]
    assert verdict(20.0, 90.0, 50.0)[0] == "memory-bound"
    assert verdict(20.0, 25.0, 12.5) == ("low occupancy",
                                         "SM 20.0% and memory 25.0% both < 60%; achieved occupancy 12.5% < 30%")
    label, why = verdict(40.0, 45.0, 70.0)
    assert label == "latency-bound" and "SM 40.0%" in why and "memory 45.0%" in why
    assert verdict(None, None, None)[0] == "unknown"


def test_short_kernels_are_flagged():
    row = summary_by_id(H200 / "ncu_full_raw.csv")[0]
    assert "short kernel" in row["Why"]


@pytest.mark.parametrize("text, style, value", [
    ("32,768", "en", 32768.0), ("32768", "en", 32768.0), ("5,901.85", "en", 5901.85),
    ("27.595.520", "eu", 27595520.0), ("65,77", "eu", 65.77), ("no data", "en", "no data"),
    ("PolicySpread", "en", "PolicySpread"), ("", "en", ""), ("-3.5", "en", -3.5), ("1e+06", "en", 1e6),
])
def test_parse_number(text, style, value):
    assert parse_number(text, style) == value


def test_style_is_detected_from_the_file():
    assert detect_number_style(["1,024", "3.18", "10,023"]) == "en"
    assert detect_number_style(["27.595.520", "65,77"]) == "eu"
    assert detect_number_style(["32768", "5"]) == "en"


def test_raw_column_prefixes_are_dropped():
    assert metric_id("FBSP.TriageCompute.dramc__read_throughput.avg.pct_of_peak_sustained_elapsed") == \
        "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"
    assert metric_id("gpu__time_duration.sum") == "gpu__time_duration.sum"


def _long_csv(values, grouping):
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                     "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
                     "Metric Value"])
    for i, value in enumerate(values):
        text = f"{value:,}" if grouping == "en" else (f"{value:,}".replace(",", ".") if grouping == "eu" else str(value))
        writer.writerow([str(i), "1", "a.out", "h", f"k{i}(int)", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0",
                         "Command line profiler metrics", "gpu__time_duration.sum", "nsecond", text])
    return buffer.getvalue()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**12), min_size=1, max_size=20),
       st.sampled_from(["en", "eu", "C"]))
def test_integer_metrics_survive_every_grouping_style(values, grouping):
    if grouping == "eu":
        values = values + [1234567]  # "1.000" alone is ambiguous: a file needs one value that shows its style
    kernels = parse_ncu_csv("==PROF== Connected to process 1\n" + _long_csv(values, grouping))
    assert [k.duration_ns() for k in kernels] == [float(v) for v in values]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_garbage_never_escapes_as_anything_but_input_error(text):
    try:
        kernels = parse_ncu_csv(text)
    except InputError:
        return
    ncu_summary(kernels)  # whatever parsed must also summarise


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text(alphabet='ab,"1.\n', max_size=8), min_size=0, max_size=16), max_size=6))
def test_quoted_rows_after_a_real_header_never_crash(rows):
    header = (H200 / "ncu_full_details.csv").read_text().splitlines()[0]
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    try:
        ncu_summary(parse_ncu_csv(header + "\n" + buffer.getvalue()))
    except InputError:
        pass


@needs_corpus
@pytest.mark.parametrize("name", ["profile", "vector-based", "silu-pytorch", "rms_norm_triton", "smemReduceInteger"])
def test_corpus_details_and_raw_pages_agree(name):
    details = summary_by_id(CORPUS / "ncu-derived" / f"{name}__details.csv")
    raw = summary_by_id(CORPUS / "ncu-derived" / f"{name}__raw.csv")
    assert details.keys() == raw.keys()
    for kernel_id in details:
        assert details[kernel_id]["Verdict"] == raw[kernel_id]["Verdict"]


@needs_corpus
def test_corpus_locales_and_units_give_the_same_numbers():
    folder = CORPUS / "ncu-derived"
    auto = read_ncu_file(folder / "readWriteOffset_ca__raw.csv")        # en_US grouping, auto units
    c_locale = read_ncu_file(folder / "readWriteOffset_ca__raw_LC_de.csv")  # no grouping
    base = read_ncu_file(folder / "readWriteOffset_ca__raw_units_base.csv")  # ns, bytes
    for a, c, b in zip(auto, c_locale, base):
        assert a.duration_ns() == c.duration_ns() == b.duration_ns()
        assert a.metrics["launch__grid_size"].value == c.metrics["launch__grid_size"].value


@needs_corpus
def test_corpus_grouped_and_ungrouped_live_csv():
    esmm = read_ncu_file(CORPUS / "ncu-esmm" / "metrics.csv")
    assert esmm[0].duration_ns() == 10776576.0  # "10,776,576" nsecond
    lashi = read_ncu_file(CORPUS / "ncu-lashi" / "ncu_reduceInteger.csv")  # starts with ==PROF== lines
    assert len(lashi) == 9 and lashi[0].duration_ns() == 814048.0


@needs_corpus
def test_session_page_and_console_text_are_refused_with_a_reason():
    with pytest.raises(InputError, match="session page"):
        read_ncu_file(CORPUS / "ncu-derived" / "smemReduceInteger__session.csv")
    with pytest.raises(InputError, match="not Nsight Compute CSV"):
        read_ncu_file(CORPUS / "ncu-cs599k" / "silu-pytorch-ncu-report.txt")
