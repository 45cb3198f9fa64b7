"""`python -m aiperf_lab.labs list` and `show` on an 80-column terminal: the catalog's titles and the
walkthroughs (written in lines of about 100 characters) were broken mid-word by the terminal. On a
terminal they are refilled at words; piped, they stay as written (one exercise a line, for grep)."""

from __future__ import annotations

import io
import sys

import pytest

from conftest import REPO

from aiperf_lab.cli_support import reflow_markdown
from aiperf_lab.labs.__main__ import main as labs_main
from aiperf_lab.labs.catalog import list_labs

WALKTHROUGHS = sorted((REPO / "aiperf_lab" / "labs" / "walkthroughs").rglob("*.md"))


class Terminal(io.StringIO):
    def isatty(self):
        return True


def labs_output(args, monkeypatch, terminal: bool) -> str:
    out = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setenv("COLUMNS", "80")
    assert labs_main(args) == 0
    return out.getvalue()


def test_the_catalog_on_an_80_column_terminal_wraps_titles_at_words_under_their_column(monkeypatch):
    lines = labs_output(["list"], monkeypatch, terminal=True).splitlines()
    assert max(len(line) for line in lines) < 80
    labs = list_labs()
    starts = [i for i, line in enumerate(lines) if not line.startswith(" ")]
    assert [lines[i].split()[0] for i in starts] == [lab["id"] for lab in labs]
    title_column = lines[0].index(labs[0]["title"].split()[0])
    for lab, start, end in zip(labs, starts, starts[1:] + [len(lines)]):
        entry = lines[start:end]
        assert all(line[:title_column].strip() == "" for line in entry[1:])          # under the title column
        assert " ".join(line[title_column:].strip() for line in entry) == lab["title"]   # every word whole


def test_the_catalog_piped_is_one_exercise_a_line_as_before(monkeypatch):
    lines = labs_output(["list"], monkeypatch, terminal=False).splitlines()
    assert lines == [f"{lab['id']:<32} {'*' * lab['difficulty']:<6} {lab['title']}" for lab in list_labs()]


def test_a_walkthrough_on_an_80_column_terminal_is_refilled_at_words(monkeypatch):
    shown = labs_output(["show", "02-ex04"], monkeypatch, terminal=True)
    written = labs_output(["show", "02-ex04"], monkeypatch, terminal=False)
    assert max(len(line) for line in written.splitlines()) > 80                   # as written: too wide
    assert max(len(line) for line in shown.splitlines()) <= 80
    assert shown.split() == written.split()                                       # the same words, in order
    assert "3. How close to a plain copy can a transpose get, and what stands in the way of\n   the last" in shown


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.stem if p.parent.name != "answers"
                         else f"answers-{p.stem}")
def test_every_walkthrough_and_answer_refills_to_80_columns_keeping_its_words_and_structure(path):
    text = path.read_text(encoding="utf-8")
    refilled = reflow_markdown(text, 80)
    assert refilled.split() == text.split()
    fenced = False
    for line in refilled.splitlines():
        fenced ^= line.startswith("```")
        assert len(line) <= 80 or fenced or len(line.split()[-1]) > 40, line   # code as written; a long word whole
    keep = [line for line in text.splitlines() if line.startswith(("#", "```")) or not line.strip()]
    assert [line for line in refilled.splitlines() if line.startswith(("#", "```")) or not line.strip()] == keep
