"""A verdict of _assignment_spans on one match reused for its copies: a log (or a text made to be slow) repeats its
lines, and a match's verdict reads only a bounded window of the text around it (assignments._judge says where it read
further). A match whose text is the one of an earlier match of the same pattern and whose window is a copy of that
match's window (the text and its lower-cased form, compared in C) is judged as that one was, its spans moved."""

from __future__ import annotations

import re

from .spans import Span

# The window: MEMO_BEFORE characters before the match's start (the reads back from a name: a bracket's opening on the
# line, 4,096 from the name's start; a pytest id's opening, 1,155; the signature/docstring test's 320, a failure's words'
# 96, a backquote's 64; the name 64 before the keyword), and after its end MEMO_AFTER
# (a negation's next word or a nested value: 4,096; an annotation's types: about 2,450; a placeholder of words 1,040),
# (a flow list's `]`, 4,096 from the value's start), then on to the first character that ends every run a test reads
# unbounded (RUN_END: blanks, `[ \t]*`, and letters, `[^\W\d_]{2,}`, as a sentence's word), and MEMO_TAIL more (what a
# test reads after such a run: a comment of 256, a flow list's next character).
MEMO_BEFORE = 4200
MEMO_AFTER = 4200
MEMO_TAIL = 320
RUN_END = re.compile(r"[^\w \t]")
RUN_END_REACH = 256   # (a window whose end is in a longer run of word characters or blanks: none, judged alone)


def window(text: str, lower: str, start: int, end: int) -> tuple[str, str | None] | None:
    """The window of the match at start..end: text's, and lower's where the text's holds a character that is not ASCII
    (an ASCII window's lower-cased form is its own, character for character; str.lower reads a final sigma's
    neighbours); None where the window does not lie whole in the text."""
    if start < MEMO_BEFORE:
        return None
    at = end + MEMO_AFTER
    run_end = RUN_END.search(text, at, at + RUN_END_REACH)
    if run_end is None or run_end.end() + MEMO_TAIL > len(text):
        return None
    piece = text[start - MEMO_BEFORE:run_end.end() + MEMO_TAIL]
    return piece, None if piece.isascii() else lower[start - MEMO_BEFORE:run_end.end() + MEMO_TAIL]


REFERENCES = 4   # matches kept per text (a line may hold the same assignment twice: `password=X password=X`)
MOST_SKIPPED = 64   # (after a match that no kept one is a copy of, the next 1, 2, 4, ... up to this are judged alone)


class _Entry:
    """The matches kept for one text of a match (each [start, verdict, window: None until cut, False where none, whether
    a copy's call verdict is asked again]), and
    the backoff of the tries that found no copy (a text met in ever new windows is not cut and compared at each)."""

    __slots__ = ("kept", "wait", "backoff", "skipped")

    def __init__(self) -> None:
        self.kept: list[list] = []
        self.wait, self.backoff, self.skipped = 0, 1, False


def recalled(memo: dict, key: str, text: str, lower: str, start: int, call_verdict) -> tuple[list[Span], int] | None:
    """The spans and the value's end (0: not taken) of the match at start whose text is key, where a match kept with
    that text read only its window and the window at start is a copy of it (and where its value held a call,
    call_verdict, which reads on past the window, gives the copy's the same answer); None where not."""
    entry = memo.get(key)
    if entry is None or start < MEMO_BEFORE:
        return None
    if entry.wait:
        entry.wait -= 1
        entry.skipped = True
        return None
    for reference in entry.kept:
        if reference[2] is None:   # (cut once, where a second match with its text is met)
            reference[2] = window(text, lower, reference[0], reference[0] + len(key)) or False
            # (a call's verdict never reads past its value's line, CODE_CALL_CHAIN and SECRET_FETCH holding no line
            # break: where that line ends inside the window, a copy of the window is a copy of what it reads)
            if reference[2] and (probe := reference[1][4]) is not None and reference[2][0].find(
                    "\n", MEMO_BEFORE + probe[0]) >= 0:
                reference[3] = False
        copy = reference[2]
        if not copy or not text.startswith(copy[0], start - MEMO_BEFORE) or (
                copy[1] is not None and not lower.startswith(copy[1], start - MEMO_BEFORE)):
            continue
        verdict = reference[1]
        if (probe := verdict[4]) is not None and reference[3]:
            kept, literals = call_verdict(text, start + probe[0], start + probe[1])
            if kept != probe[2] or [(first - start, end - start) for first, end in literals] != probe[3]:
                continue
        entry.backoff = 1
        added, value_end = verdict[0], verdict[1]
        if shift := start - reference[0]:
            if len(added) == 1:
                first, end, replacement, label, name = added[0]
                added = [(first + shift, end + shift, replacement, label, name + shift)]
            else:
                added = [(first + shift, end + shift, replacement, label, name + shift)
                         for first, end, replacement, label, name in added]
            value_end = value_end + shift if value_end else 0
        return added, value_end
    entry.wait, entry.backoff = entry.backoff, min(2 * entry.backoff, MOST_SKIPPED)
    return None


def remember(memo: dict, key: str, start: int, verdict: tuple) -> None:
    """A live verdict (assignments._judge's) on the match at start whose text is key, kept for its copies where it
    read only its window (the oldest of REFERENCES dropped)."""
    entry = memo.get(key)
    if entry is None:
        entry = memo[key] = _Entry()
    elif entry.skipped:
        entry.skipped = False
        return
    if verdict[2]:
        entry.kept.append([start, verdict, None, True])   # (start, verdict, window, whether a copy's call is asked)
        if len(entry.kept) > REFERENCES:
            del entry.kept[0]
