"""aiperf-stats FILE on an 80-column terminal: a table's title is one line where it fits, and broken at
words on purpose where it does not, never cut mid-phrase by the terminal or by a narrow table's width."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

from conftest import DATA, H200

from aiperf_lab.metrics.cli import main
from aiperf_lab.metrics.render import _title_lines

TELEMETRY = DATA / "h100" / "energy_04ex03_stall_telemetry.csv"
TORCH_TRACE = H200 / "torch_encoder_layer.pt.trace.json"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def on_terminal(args, monkeypatch, columns=80) -> list[str]:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main([str(a) for a in args]) == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", terminal.getvalue())   # (the notes are dim)
    return [line.rstrip() for line in plain.splitlines()]


def titles(args, monkeypatch) -> list[str]:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main([str(a) for a in args] + ["--format", "json"]) == 0
    return [f"{table['title']} ({table['report']})" for table in json.loads(out.getvalue())]


def test_a_table_shown_one_block_per_row_says_so_on_its_own_line_under_a_whole_title(monkeypatch):
    """Was: 'Telemetry Summary (telemetry_summary) (one block per row: the table is wider' and, on the
    next line, 'than the terminal)'."""
    lines = on_terminal([TELEMETRY], monkeypatch)
    for title, why in (("Telemetry Summary (telemetry_summary)", "the table is wider than the terminal"),
                       ("Telemetry Findings (telemetry_findings)", "its sentences would be cut")):
        at = lines.index(title)
        assert lines[at + 1] == f"(one block per row: {why})"
    assert max(len(line) for line in lines) <= 80


def test_a_title_longer_than_its_narrow_table_stays_one_line_where_the_terminal_has_room(monkeypatch):
    """Was: rich wrapped the title at the table's own width (77), so '... top 15 of 27' and 'rows' took two
    lines on an 80-column terminal."""
    lines = on_terminal([TORCH_TRACE], monkeypatch)
    assert "CUDA GPU Kernel Summary (PyTorch trace) (cuda_gpu_kern_sum): top 15 of 27 rows" in lines
    assert "rows" not in lines
    assert max(len(line) for line in lines) <= 80


@pytest.mark.parametrize("args", [
    [H200 / "lm_forward.sqlite"],
    [H200 / "lm_forward.sqlite", "--report", "cuda_gpu_kern_gb_sum,cuda_kern_exec_sum,nvtx_gpu_proj_sum,gpu_idle"],
    [TORCH_TRACE],
    [H200 / "ncu_full_details.csv"],
    [TELEMETRY],
], ids=["nsys-overview", "nsys-wide-reports", "torch-overview", "ncu", "telemetry"])
def test_every_title_of_an_overview_is_a_whole_line_at_80_columns(args, monkeypatch):
    expected = titles(args, monkeypatch)
    lines = on_terminal(args, monkeypatch)
    for title in expected:
        assert any(line == title or line.startswith(title + ":") for line in lines), title


def test_a_title_wider_than_the_terminal_is_broken_at_words_and_its_aside_kept_whole():
    title = "CUDA Kernel Launch & Exec Time Summary (cuda_kern_exec_sum) of rank 12 of a very long run"
    aside = "(one block per row: the table is wider than the terminal)"
    lines = _title_lines(title, 60, aside)
    assert lines[-1] == aside and all(len(line) <= 60 for line in lines)
    assert " ".join(lines[:-1]) == title
    assert _title_lines("Telemetry Summary (telemetry_summary)", 240, aside) == [
        "Telemetry Summary (telemetry_summary) (one block per row: the table is wider than the terminal)"]
