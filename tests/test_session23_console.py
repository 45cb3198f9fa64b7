"""Session 23, h23r: the console.

- Results with nothing to show drew an empty bordered box (the list of tables, with none in it) under "No
  results yet": the list is hidden until there are tables, and the words say what o opens, that History (5)
  opens a run, and where a run's tables come from (an exercise's run where one can start here, else --demo).
- aiperf-console's path options had their own empty-value check (console/cli.py `_path_text`) beside
  cli_support.folder_option's: `--runs-dir ' '` was taken (a folder named by a blank, made at the first run),
  `--replay ' '` said ": no such recording" (the name invisible) and `--replay -` looked for a file named `-`.
  One check now (cli_support.path_option) for every command's path options.
"""

from __future__ import annotations

import asyncio
import contextlib
import io

import pytest

pytest.importorskip("textual")

from aiperf_lab.console.cli import main as console_main  # noqa: E402
from aiperf_lab.metrics.cli import main as stats_main  # noqa: E402
from test_console_truth import make_app  # noqa: E402

BOX = set("▔▁▊▎┌┐└┘│─╭╮╰╯")


def _results(tmp_path, cannot_start=None, pending=None):
    """The Results screen at 80x24 with nothing asked for (or `pending`): (its lines, the title's text, whether
    the list of tables is shown)."""
    async def scenario():
        app = make_app(tmp_path, gpus=0, gpu_here=False)
        if cannot_start is not None:
            app.ctx.cannot_start = cannot_start
        app.ctx.results_pending = pending
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            await pilot.pause(0.4)
            lines = [strip.text for strip in app.screen._compositor.render_strips()]
            title = str(app.screen.query_one("#results-title").render())
            listed = app.screen.query_one("#results-tables").display
            return lines, title, listed

    return asyncio.run(scenario())


def test_results_with_nothing_draws_no_empty_box_and_says_what_to_do(tmp_path):
    lines, title, listed = _results(tmp_path)
    body = lines[2:-1]   # under the tab bar and the status line, above the footer
    assert not any(set(line) & BOX for line in body), "\n".join(lines)
    assert listed is False
    words = " ".join(title.split())
    assert "o opens a profile (.nsys-rep" in words and "History (5) opens a run" in words, words
    assert "run an exercise (Labs, 1)" in words, words


def test_results_with_nothing_where_no_run_can_start_points_to_the_demo_not_to_a_run(tmp_path):
    _lines, title, _listed = _results(tmp_path, cannot_start=lambda profile: "the workloads need PyTorch")
    words = " ".join(title.split())
    assert "--demo" in words and "run an exercise" not in words, words


def test_a_run_with_no_tables_draws_no_empty_box(tmp_path):
    import json

    folder = tmp_path / "runs" / "20261125T000000Z-x"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"lab": "x", "exercise": "x", "status": "ok"}))
    lines, title, listed = _results(tmp_path, pending=("run", folder))
    assert "no tables" in title, title
    assert listed is False
    assert not any(set(line) & BOX for line in lines[4:-1]), "\n".join(lines)


def _run(main, argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("value, words", [(" ", "' ' is only blanks: name a folder"),
                                          ("\t", "'\\t' is only blanks: name a folder"),
                                          ("-", "'-' is not standard output here: the option takes a folder"),
                                          ("", "the path is empty")])
def test_runs_dir_takes_the_checks_every_folder_option_takes(value, words):
    code, out, err = _run(console_main, ["--list-labs", "--runs-dir", value])
    assert (code, out, err.count("\n")) == (2, "", 1), (code, out, err)
    assert f"argument --runs-dir: {words}" in err, err
    # the same words as aiperf-stats' -o (one check, in cli_support)
    _code, _out, stats_err = _run(stats_main, ["x.sqlite", "-o", value])
    assert f"argument --output/-o: {words}" in stats_err, stats_err


@pytest.mark.parametrize("value, words", [(" ", "' ' is only blanks: name a file"),
                                          ("-", "'-' is not standard input here: the option takes a file"),
                                          ("", "the path is empty")])
def test_replay_takes_the_same_checks_for_a_file(value, words):
    code, out, err = _run(console_main, ["--replay", value])
    assert (code, out, err.count("\n")) == (2, "", 1), (code, out, err)
    assert f"argument --replay: {words}" in err, err
