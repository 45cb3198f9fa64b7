"""CSV text read a column at a time (metrics/telemetry/csv_blocks.py) gives the records csv.reader
gives: on the real recordings and on random text made of the cases that are not plain lines (quotes,
quoted line ends running past a piece, CR, CRLF, NUL, empty lines, other widths, fields past csv's
limit), the text cut into pieces at random line ends."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest

from aiperf_lab.metrics.telemetry import csv_blocks
from aiperf_lab.metrics.telemetry.csv_blocks import Cells, _row_blocks, blocks

DATA = Path(__file__).parent / "data"
RECORDINGS = [DATA / "h100" / "energy_04ex03_stall_telemetry.csv", DATA / "h200" / "nvidia-smi-query-gpu-lms100.csv"]


def _expected(text: str, width: int) -> tuple[list[list[str]], list[list[str]]]:
    """csv.reader's records of the text: those of at least `width` cells, and the others."""
    rows = list(csv.reader(io.StringIO(text)))
    return [r for r in rows if len(r) >= width], [r for r in rows if len(r) < width]


def _read(pieces: list[str], width: int) -> tuple[list[list[str]], list[list[str]]]:
    full, short = [], []
    for cells in blocks(iter(pieces), width):
        columns = [cells.column(c) for c in range(width)]
        rows = [list(r) for r in zip(*columns)] if columns else []
        assert len(rows) == len(cells)
        for k, row in enumerate(rows):
            assert cells.row(k)[:width] == row
            full.append(cells.row(k))
        short += cells.short
    return full, short


def _pieces(text: str, rng: random.Random) -> list[str]:
    """The text cut at random line ends (as recording._text_chunks cuts it)."""
    ends = [k + 1 for k, ch in enumerate(text) if ch == "\n"]
    cuts = sorted(rng.sample(ends, min(len(ends), rng.randint(0, 6))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)]) if b > a]


def _line(rng: random.Random, width: int) -> str:
    cells = [rng.choice(["1.5", "", "x", "0", "instant", "7e3"]) for _ in range(width)]
    kind = rng.random()
    if kind < 0.08:
        cells[rng.randrange(width)] = '"a,b"'
    elif kind < 0.12:
        cells[rng.randrange(width)] = '"multi\nline\r\n,x"'
    elif kind < 0.14:
        cells[rng.randrange(width)] = 'in"side'
    elif kind < 0.16:
        cells = cells[:rng.randrange(width)]
    elif kind < 0.18:
        cells += ["extra"]
    elif kind < 0.20:
        cells[rng.randrange(width)] = "nu\0l"
    elif kind < 0.21:
        return ""
    elif kind < 0.22:
        cells[rng.randrange(width)] = '"""quoted"" twice"'
    return ",".join(cells)


@pytest.mark.parametrize("seed", range(40))
def test_random_text_reads_as_csv_reader_reads_it(seed):
    rng = random.Random(seed)
    width = rng.randint(1, 6)
    newline = rng.choice(["\n", "\r\n"])
    text = newline.join(_line(rng, width) for _ in range(rng.randint(0, 60)))
    if rng.random() < 0.5:
        text += newline
    pieces = _pieces(text, rng)
    try:
        expected = _expected(text, width)
    except csv.Error as exc:
        with pytest.raises(csv.Error, match=str(exc)[:20]):
            _read(pieces, width)
        return
    assert _read(pieces, width) == expected


def test_a_quoted_cell_running_past_several_pieces_and_the_carried_text_limit(monkeypatch):
    width = 3
    text = "a,b,c\n" + 'x,"' + "line\n" * 50 + '",z\n' + "d,e,f\n" * 5 + 'u,"open\n' + "g,h,i\n" * 40
    expected = _expected(text, width)
    pieces = [line + "\n" for line in text.split("\n")[:-1]]  # a piece per line
    assert _read(pieces, width) == expected
    row_by_row = []
    monkeypatch.setattr(csv_blocks, "_MAX_CARRIED", 64)      # the rest read row by row
    monkeypatch.setattr(csv_blocks, "_row_blocks", lambda lines, width: row_by_row.append(1) or
                        _row_blocks(lines, width))
    assert _read(pieces, width) == expected and row_by_row
    full, short = expected
    assert full[1][1].count("\n") == 50 and short[-1][1].startswith("open\ng,h,i")


def test_a_field_past_the_limit_is_the_error_csv_reader_raises():
    text = "a,b\n" + "c," + "9" * (csv.field_size_limit() + 5) + "\n"
    with pytest.raises(csv.Error, match="field larger than field limit"):
        _read([text], 2)
    long_line = "x," * 70_000 + "y\n"  # longer than the limit, every field short
    assert _read([long_line], 70_001) == _expected(long_line, 70_001)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_real_recordings_read_as_csv_reader_reads_them(path):
    text = path.read_text(encoding="utf-8")
    width = len(next(csv.reader(io.StringIO(text.split("\n", 2)[1]))))
    assert _read(_pieces(text, random.Random(3)), width) == _expected(text, width)
    assert len(_expected(text, width)[0]) > 100


def test_cells_of_rows_are_the_rows():
    rows = [["1", "2", "3"], ["4"], ["5", "6", "7", "8"]]
    cells = Cells.of_rows(rows, 3)
    assert (len(cells), cells.column(2), cells.row(1), cells.short) == (2, ["3", "7"], ["5", "6", "7", "8"], [["4"]])
