"""Terminal tables: long tables are written directly in exactly rich's layout; data is never markup."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import H200, python_calls

from aiperf_lab.metrics import render
from aiperf_lab.metrics.sources import open_profile
from aiperf_lab.metrics.tables import Table

HOSTILE = Table("x", "Hostile [bold]title[/]", ["Name", "n"],
                [["日本語カーネル名前" * 3, 1], ["ascii", 22], ["é" * 40, 3], ["[bold]x[/]\x1b[2J", 4],
                 ["[/]", 5]], ["a note [red]" * 30])


def _both(tables, limit, monkeypatch) -> tuple[str, str]:
    outputs = []
    for threshold in (10**9, 0):  # through rich, then direct
        monkeypatch.setattr(render, "PLAIN_ROWS_FROM", threshold)
        buffer = io.StringIO()
        render.render_terminal(tables, buffer, limit)
        outputs.append(buffer.getvalue())
    return outputs[0], outputs[1]


@pytest.mark.parametrize("columns", ["240", "70"])
@pytest.mark.parametrize("path, report", [(H200 / "lm_forward.sqlite", "nvtx_kern_sum"),
                                          (H200 / "lm_forward.sqlite", "gpu_idle"),
                                          (H200 / "ncu_raw_metrics.csv", "ncu_metrics")])
def test_direct_layout_is_rich_layout_byte_for_byte(monkeypatch, columns, path, report):
    monkeypatch.setenv("COLUMNS", columns)
    tables = open_profile(path).report(report)
    for table in tables:
        table.rows = table.rows[:400]  # enough to take the direct path; rich is slow on more
    for limit in (None, 3):
        through_rich, direct = _both(tables, limit, monkeypatch)
        assert through_rich == direct and len(direct) > 300   # (piped lines carry no trailing blanks)


@pytest.mark.parametrize("columns", ["240", "30"])
def test_wide_characters_markup_and_escapes(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    through_rich, direct = _both([HOSTILE], None, monkeypatch)
    assert through_rich == direct
    assert "[bold]x[/]\\x1b[2J" in direct if columns == "240" else "[bold]" in direct
    assert "\x1b" not in direct and "Hostile [bold]title[/]" in direct


@settings(max_examples=60, deadline=None, derandomize=True)
@given(pieces=st.lists(st.sampled_from(["a", "\u65e5", "\u0301", "\u200b", "[", "e\u0301", " "]), min_size=1,
                       max_size=400),
       columns=st.integers(12, 70))
def test_a_long_cell_is_clipped_before_rich_measures_it_without_changing_the_table(pieces, columns):
    # rich measures every character of a cell: a 5 MB kernel name cost seconds to cut to 100 columns.
    text = "".join(pieces)
    clipped = render._clip(text, 10)
    assert text.startswith(clipped) and (len(clipped) <= 48 or clipped == text)
    outputs = []
    for clip in (render._clip, lambda cell, width: cell):  # the reference: rich given every cell whole
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("COLUMNS", str(columns))
            patch.setattr(render, "_clip", clip)
            for threshold in (10**9, 0):  # through rich, then direct
                patch.setattr(render, "PLAIN_ROWS_FROM", threshold)
                buffer = io.StringIO()
                render.render_terminal([Table("x", "t", ["Name", "n"], [[text, 1], ["b", 2]])], buffer)
                outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[2] and outputs[1] == outputs[3]


NUMBERS = [10**15 + i for i in range(8)]
WIDE = Table("w", "Wide [bold]", ["Name [x]", "Why", "Empty", "Spaces", "Long", "Marks"] + [f"n{i}" for i in range(8)],
             [["日本語カーネル名前" * 9, "word " * 40, "", " lead trail ", "a" * 300, "é" * 70, *NUMBERS],
              ["[/]", "tab\\tand\\n", "e\u0301" * 50, "\u200b" * 30 + "z", "a b", "x", *NUMBERS[:7], None]] * 3,
             ["note"])


@pytest.mark.parametrize("columns", ["120", "70", "41", "24"])
@pytest.mark.parametrize("source", ["ncu_summary", "wide", "nvtx_kern_sum"])
def test_direct_records_are_rich_records_byte_for_byte(monkeypatch, columns, source):
    # A table wider than the terminal is shown one block per row; past PLAIN_ROWS_FROM rows the blocks
    # are written directly (rich took 3 ms a row: 9 s for an ncu_summary of 3,000 kernels).
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(render, "_drop_to_fit", lambda *args: None)   # blocks, not a table without the spread
    if source == "wide":
        tables = [WIDE]
    elif source == "ncu_summary":
        tables = open_profile(H200 / "ncu_full_details.csv").report("ncu_summary")
    else:
        tables = open_profile(H200 / "lm_forward.sqlite").report("nvtx_kern_sum")
        monkeypatch.setenv("COLUMNS", str(int(columns) // 2 + 10))  # narrow enough for blocks
    through_rich, direct = _both(tables, None, monkeypatch)
    assert through_rich == direct
    assert "\nrow 1\n" in direct and "(one" in direct


def test_direct_records_cost_no_rich_layout_per_row(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setattr(render, "_drop_to_fit", lambda *args: None)
    table = open_profile(H200 / "ncu_full_details.csv").report("ncu_summary")[0]
    table.rows = table.rows * (300 // len(table.rows) + 1)
    calls = python_calls(lambda: render.render_terminal([table], io.StringIO()))
    assert calls < 1000 * len(table.rows)  # about 340 a row (two values folded); rich's layout: 5,400


@pytest.mark.parametrize("rows", [3, 300])
def test_a_megabyte_value_in_a_block_is_cut_with_a_marker(monkeypatch, rows):
    # One block per row folds every value in full: three 5 MB kernel names made cuda_gpu_trace print
    # 100 MB (55,000 lines a row) and take minutes.
    monkeypatch.setenv("COLUMNS", "60")
    name = "k" * 1_000_000
    table = Table("t", "t", ["Name", *(f"number {i}" for i in range(6))], [[name, *NUMBERS[:6]]] * rows)
    buffer = io.StringIO()
    render.render_terminal([table], buffer)
    out = buffer.getvalue()
    assert f"(cut at 4,096 of {len(name):,} characters: --format csv or json shows it whole)" in " ".join(out.split())
    assert len(out) < rows * 40_000


def test_a_kernel_summary_at_80_columns_is_a_table_without_its_spread_not_blocks(monkeypatch):
    """`aiperf-stats` on a PyTorch trace at 80 columns printed 15 blocks of 11 lines (277 lines): the
    spread (Min, Max, StdDev) is left out and said so, the rest a table a reader reads down."""
    monkeypatch.setenv("COLUMNS", "80")
    tables = open_profile(H200 / "torch_encoder_layer.pt.trace.json").report("cuda_gpu_kern_sum")
    buffer = io.StringIO()
    render.render_terminal(tables, buffer, 15)
    out = buffer.getvalue()
    lines = out.splitlines()
    assert "one block per row" not in out and len(lines) < 30, out
    assert max(map(len, lines)) <= 80 and not any(line.endswith(" ") for line in lines)   # piped: no padding
    header = next(k for k, line in enumerate(lines) if "Instances" in line)
    assert "Avg (ns)" in lines[header] and "Name" in lines[header] and "StdDev" not in lines[header]
    assert lines[header + 2].split()[:3] == ["18.2", "1025409", "6"]
    note = next(k for k, line in enumerate(lines) if "columns left out" in line)
    assert "Min (ns), Max (ns), StdDev (ns)" in " ".join(lines[note:note + 2])
    assert lines[note + 1].startswith("        ") and lines[note + 1].strip()   # a note's further lines indented


def test_piped_notes_continue_under_their_first_word():
    table = Table("t", "T", ["Name", "n"], [["k", 1]], notes=["word " * 30])
    buffer = io.StringIO()
    render.render_terminal([table], buffer)
    note = [line for line in buffer.getvalue().splitlines() if line.strip().startswith("word") or "note:" in line]
    assert note[0].startswith("  note: word") and all(line.startswith("        word") for line in note[1:])
    assert not any(line.endswith(" ") for line in buffer.getvalue().splitlines())
