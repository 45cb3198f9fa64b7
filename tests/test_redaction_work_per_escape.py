"""Issue 11, redaction speed on adversarial text (h20p): the view that spells an escaped secret name plainly
(spans._name_edits) reads a run of escapes with one search a kind, not a match an escape; a text where no separator can
follow a run reads none; the name before an escaped `=` is found by one rstrip, not a step back a character, and whether
it holds a secret's word is asked once a distinct name. Each test counts the work on a repeated form against a bound that
does not grow with the text; the guards compare the edits with those of the former code (copied here) on random texts of
escapes, name characters and separators. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h20p)."""

from __future__ import annotations

import random

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import spans
from aiperf_lab.triage.redaction.spans import (ENCODED_EQUALS, ESCAPED_NAME_REST, NAME_CONTINUED,
                                               NAME_SEPARATOR_AFTER, OTHER_ESCAPE, SECRET_WORD, _escape_code)

NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


class _CountedPattern:
    """A compiled pattern that counts the matches it hands out (finditer's and search's)."""

    def __init__(self, pattern):
        self.pattern, self.made = pattern, 0

    def finditer(self, *args):
        for m in self.pattern.finditer(*args):
            self.made += 1
            yield m

    def search(self, *args):
        m = self.pattern.search(*args)
        self.made += m is not None
        return m


def _counted_kinds(monkeypatch) -> list[_CountedPattern]:
    counted = [(literal, _CountedPattern(pattern)) for literal, pattern in spans.OTHER_ESCAPE_KINDS]
    monkeypatch.setattr(spans, "OTHER_ESCAPE_KINDS", tuple(counted))
    return [pattern for _, pattern in counted]


class _CountedMembers(frozenset):
    tests = 0

    def __contains__(self, item):
        _CountedMembers.tests += 1
        return frozenset.__contains__(self, item)


# ---- runs of escapes: one search a kind a run --------------------------------------------------------------------------

def test_a_long_run_of_escapes_costs_a_search_a_run_not_a_match_an_escape(monkeypatch):
    text = "%41" * 4000 + "=Zq8Das1x\n"
    expected = spans._other_escape_edits(text)
    kinds = _counted_kinds(monkeypatch)
    assert spans._other_escape_edits(text) == expected
    assert sum(pattern.made for pattern in kinds) <= 100   # (main: 4,000; here: a search each 128 escapes)


def test_runs_of_escapes_apart_cost_a_search_a_run(monkeypatch):
    text = ("\\x41" * 5 + " ") * 800 + "pass\\x77ord=Zq8Das1x\n"
    expected = spans._other_escape_edits(text)
    assert expected   # (the escaped name is read)
    kinds = _counted_kinds(monkeypatch)
    assert spans._other_escape_edits(text) == expected
    assert sum(pattern.made for pattern in kinds) <= 900   # (main: 4,001)


def test_escapes_with_no_separator_anywhere_are_not_read(monkeypatch):
    text = ("%41" * 5 + " ") * 800
    kinds = _counted_kinds(monkeypatch)
    assert spans._other_escape_edits(text) == []
    assert sum(pattern.made for pattern in kinds) == 0   # (main: 4,000)


# ---- an escaped `=` after a name: the name found in C, its words judged once a distinct name -----------------------------

def test_the_name_before_an_escaped_equals_is_found_without_a_test_a_character(monkeypatch):
    text = "msg\\nghp_R8x2Kq9LmZ4vT7wY1nB5cD3fG6hJ0kP2sQ9a%3Dhf_Zx8Lq2Wm9Rt4Yp7Kd3Nf6Hj1Bv5 " * 500
    expected = spans._encoded_equals_edits(text)
    monkeypatch.setattr(spans, "NAME_CHARACTERS", _CountedMembers(NAME_CHARACTERS))
    _CountedMembers.tests = 0
    assert spans._encoded_equals_edits(text) == expected
    assert _CountedMembers.tests <= 10   # (main: 21,000, a test a character of each name)


def test_a_repeated_name_before_an_escaped_equals_is_judged_once(monkeypatch):
    text = "url?next=%2Flogin%3Fpassword%3DZq8Das1x&x=1\n" * 2000
    expected = spans._encoded_equals_edits(text)
    assert len(expected) == 2000
    cache = getattr(spans, "_holds_secret_word", None)
    if cache is not None:
        cache.cache_clear()
    counted = Counted(SECRET_WORD, "search")
    monkeypatch.setattr(spans, "SECRET_WORD", counted)
    assert spans._encoded_equals_edits(text) == expected
    assert counted.calls <= 10   # (main: 2,000, a search a line)


@pytest.mark.parametrize("text, gone", [
    ("pass%77ord=Zq8Das1x\n", "Zq8Das1x"),
    ("%70%61%73%73%77%6f%72%64: Zq8Das1x\n", "Zq8Das1x"),
    ("api&#95;key=Zq8Das1x\n", "Zq8Das1x"),
    ("db_pass\\x77ord = Zq8Das1x\n", "Zq8Das1x"),
    ("?next=%2Flogin%3Fpassword%3DZq8Das1x\n", "Zq8Das1x"),
    ("DB_PASS\\\nWORD=Zq8Das1x\n", "Zq8Das1x"),
])
def test_escaped_names_repeated_are_read_as_before(text, gone):
    for copies in (1, 3, 200):
        out = Redactor({}).text(text * copies)
        assert gone not in out


# ---- the former code, compared on random texts --------------------------------------------------------------------------

def _former_other_escape_edits(text: str) -> list[tuple[int, int, str]]:
    edits: list[tuple[int, int, str]] = []
    firsts = sorted(m.start() for literal, pattern in spans.OTHER_ESCAPE_KINDS if literal in text
                    for m in pattern.finditer(text))
    end = 0
    for first in firsts:
        if first < end:
            continue
        end = ESCAPED_NAME_REST.match(text, first).end()
        if NAME_SEPARATOR_AFTER.match(text, end) is not None:
            start = first
            while start > 0 and first - start < 128 and text[start - 1] in NAME_CHARACTERS:
                start -= 1
            run = text[start:end]
            escapes = list(OTHER_ESCAPE.finditer(run))
            decoded = OTHER_ESCAPE.sub(lambda e: _escape_code(e.group()), run)
            if all(c in NAME_CHARACTERS for c in decoded) and SECRET_WORD.search(decoded) is not None:
                edits += [(start + e.start(), start + e.end(), _escape_code(e.group())) for e in escapes]
        end = max(end, first + 1)
    return edits


def _former_encoded_equals_edits(text: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in ENCODED_EQUALS.finditer(text):
        start = m.start()
        while start > 0 and m.start() - start < 64 and text[start - 1] in NAME_CHARACTERS:
            start -= 1
        if start < m.start() and SECRET_WORD.search(text, start, m.start()) is not None:
            edits.append((m.start(), m.end(), "="))
    return edits


def _former_continued_name_edits(text: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in NAME_CONTINUED.finditer(text):
        start = m.start()
        while start > 0 and m.start() - start < 64 and text[start - 1] in NAME_CHARACTERS:
            start -= 1
        end = ESCAPED_NAME_REST.match(text, m.end()).end()
        if SECRET_WORD.search(text[start:m.start()] + text[m.end():end]) is not None:
            edits.append((m.start(), m.end(), ""))
    return edits


PIECES = ["%41", "%77", "%3d", "%3D", "%2F", "\\x41", "\\x77", "&#65;", "&#119;", "&#x41;", "&#1234;", "\\101",
          "\\167", "\\0", "\\1", "\\u{77}", "\\u{0041}", "\\N{LATIN SMALL LETTER W}", "\\N{NO SUCH}", "\\u003d", "\\x3d",
          "pass", "word", "token", "PASS", "key", "a", "Z9", "_", "-", ".", "=", ":", '"', "'", " ", "\t", "\u00a0",
          "\n", "\\", "\\\n", "x" * 70, "é", "%", "&#", "=Zq8Das1x "]


@pytest.mark.parametrize("seed", range(40))
def test_the_name_edits_are_those_of_the_former_code(seed):
    rng = random.Random(seed)
    for _ in range(30):
        parts = []
        for _ in range(rng.randint(1, 60)):
            piece = rng.choice(PIECES)
            parts.append(piece * (rng.randint(1, 200) if rng.random() < 0.15 else 1))
        text = "".join(parts)
        assert spans._other_escape_edits(text) == _former_other_escape_edits(text), text
        assert spans._encoded_equals_edits(text) == _former_encoded_equals_edits(text), text
        assert spans._continued_name_edits(text) == _former_continued_name_edits(text), text


# ---- a coloured text's view: the codes cut by one split(), no Python per code --------------------------------------------



def test_a_coloured_texts_view_runs_no_python_per_colour_code():
    text = "\x1b[36mclient_secret\x1b[0m=\x1b[35mZq8Wm3Kx7Lp2Rv9T\x1b[0m\n" * 500   # (2,000 codes)
    (view, where), lines = python_lines_run(spans._without_csi, text)
    assert view == "client_secret=Zq8Wm3Kx7Lp2Rv9T\n" * 500
    assert len(where.text_starts) == 2000
    assert lines <= 50   # (main: 22,012, a list item and an _edited round a code)


@pytest.mark.parametrize("seed", range(20))
def test_a_coloured_texts_view_is_that_of_the_former_code(seed):
    rng = random.Random(seed)
    for _ in range(200):
        text = "".join(rng.choice(["a", "pw=", "\x1b[31m", "\x1b[0m", "\\x1b[1m", "\\e[2K", "\\u001b[4m", "\\033[0m",
                                   "\n", "\x1b[", "\x1b[3", "\x1b[38;5;208m", "é"]) for _ in range(rng.randint(0, 40)))
        view, where = spans._without_csi(text)
        former_view, former_where = spans._edited(text, [(m.start(), m.end(), "") for m in spans.CSI.finditer(text)])
        assert (view, tuple(where)) == (former_view, tuple(former_where)), text
