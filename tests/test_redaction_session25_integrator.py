"""Issue 11, session 25 integrator: names.SERVICE_KEY_KEYWORD (lane h25a's service key names) is built as nested
look-behinds (the words' last two letters, then the last letter, then each word) for speed; it must match exactly
where the plain form (one look-behind a word, with and without a separator) matches."""

from __future__ import annotations

import random
import re

import pytest

from aiperf_lab.triage.redaction import assignments, names

PLAIN = re.compile("key(?:" + "|".join(f"(?<={word}[_-]key)|(?<={word}key)" for word in names.SERVICE_KEY_WORDS)
                   + ")(?![a-z])")
NESTED = re.compile(names.SERVICE_KEY_KEYWORD)
PIECES = list(names.SERVICE_KEY_WORDS) + ["key", "_", "-", "api", "y", "k", "e", "x", " ", "=", ":", "keys", "ai",
                                          "i", "KEY", "ey", "deplo", "\n"]


@pytest.mark.parametrize("seed", range(20))
def test_nested_keyword_matches_as_the_plain_form(seed):
    rng = random.Random(seed)
    for _ in range(500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        assert [m.span() for m in NESTED.finditer(text)] == [m.span() for m in PLAIN.finditer(text)], text


def test_every_word_is_read_with_and_without_a_separator():
    for word in names.SERVICE_KEY_WORDS:
        for text in (f"{word}_key", f"{word}-key", f"{word}key", f"x{word}_key"):
            assert NESTED.search(text) is not None, text
        assert NESTED.search(f"{word}_keys") is None


def test_the_apart_scans_drop_every_look_behind():
    # (assignments._apart_scans reads the keyword without its look-behinds: one holding a group would be left in)
    assert "(?<" not in assignments._LOOKBEHIND_GROUP.sub("", names.SERVICE_KEY_KEYWORD)


def test_the_keyword_tries_few_look_behinds_at_a_key_of_no_word():
    # (the plain form tried one look-behind a word at each `key`; the nested one fails at the first for `key-key-`)
    assert NESTED.pattern.index("(?<=") < 10 and NESTED.search("key-" * 100) is None
    assert NESTED.pattern.count("(?<=") == 2 * (1 + len(names.SERVICE_KEY_WORDS_BY_LAST) + len(names.SERVICE_KEY_WORDS))
