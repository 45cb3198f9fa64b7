"""Session 22, integrator: an output folder option given `-`, nothing or blanks is refused in one line.

`-o -` reads as "standard output" to anyone used to Unix tools; aiperf-stats and aiperf-triage wrote into a new
folder named `-` (or named by blanks) instead.
"""

from __future__ import annotations

import pytest

from aiperf_lab.metrics import cli as stats_cli
from aiperf_lab.triage import cli as triage_cli

NCU = "tests/data/h200/ncu_full_raw.csv"


@pytest.mark.parametrize("value, words", [("-", "'-' is not standard output here"), ("", "the path is empty"),
                                           ("   ", "is only blanks")])
@pytest.mark.parametrize("argv_before", [["aiperf-stats", NCU, "-o"], ["aiperf-stats", NCU, "--output"],
                                         ["aiperf-triage", "--no-nsys", "--duration", "1", "--output"]])
def test_an_output_folder_that_is_no_folder_is_refused(argv_before, value, words, tmp_path, monkeypatch, capsys):
    from pathlib import Path

    ncu = Path(NCU).resolve()
    monkeypatch.chdir(tmp_path)
    prog, *argv = [str(ncu) if part == NCU else part for part in argv_before]
    main = stats_cli.main if prog == "aiperf-stats" else triage_cli.main
    code = main(argv + [value] + (["--", "true"] if prog == "aiperf-triage" else []))
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and words in err and err.startswith(prog)
    assert list(tmp_path.iterdir()) == []      # no folder named `-` or by blanks, nothing else made


def test_a_folder_whose_name_starts_with_a_dash_still_works(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    ncu = Path(NCU).resolve()
    monkeypatch.chdir(tmp_path)
    assert stats_cli.main([str(ncu), "--report", "ncu_summary", "--output=-tables"]) == 0
    assert [path.suffix for path in (tmp_path / "-tables").iterdir()] == [".csv"]
