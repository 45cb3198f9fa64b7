"""Verdicts of the layout finders (layouts.py) made once for the copies a log repeats: a finder's verdict on a match
that reads only the match and what lies within a bounded reach of it is kept by that text and placed at each copy.

- each_block_judged_once: a block whose verdict reads only its own groups (a `data:` block's body, a loguru code line
  and its arrows): the values' places in it, by the groups' text.
- each_line_match_judged_once: a match whose verdict reads only the match and its line's text before it (a dotted
  leader's name, read back from the dots, stops at the line's start): by that line head and the match's text.
- each_match_judged_once: a match whose verdict reads only the match and a bounded stretch before it (a callee's name
  read back from a call's parenthesis): by that stretch and the match's text."""

from __future__ import annotations

import re
from typing import Callable, Hashable, Iterable

from .spans import REDACTED, Span

LINE_HEAD_REACH = 256   # (a match whose line starts further back is judged alone: no slice of a long line at each match)


def each_block_judged_once(blocks: Iterable[re.Match[str]], key: Callable[[re.Match[str]], Hashable],
                           judge: Callable[..., list[tuple[int, int]]], body: str, context: str | int,
                           label: str) -> list[Span]:
    """The spans of each block (a match of blocks): judge(*key(block)) gives the values' places from the start of
    the block's group `body`, read once for each distinct key; each span's context is the start of group `context`."""
    spans: list[Span] = []
    read: dict = {}   # key -> the values' places
    for block in blocks:
        k = key(block)
        places = read.get(k)
        if places is None:
            places = read[k] = judge(*k)
        if places:
            at, origin = block.start(body), block.start(context)
            spans += [(at + first, at + last, REDACTED, label, origin) for first, last in places]
    return spans


def each_line_match_judged_once(text: str, matches: Iterable[re.Match[str]],
                                judge: Callable[[re.Match[str]], tuple[int, int, int] | None]) -> list[Span]:
    """The spans of secret-named values of matches: judge(m) gives the value's start and end and the span's context,
    each from m's start, or None; it reads only m and m's line before m.start(), so a later match with the same
    text behind the same line head gets the same answer (lines further than LINE_HEAD_REACH are judged each time)."""
    spans: list[Span] = []
    judged: dict = {}
    get, rfind, reach = judged.get, text.rfind, LINE_HEAD_REACH
    for m in matches:
        at = m.start()
        if (newline := rfind("\n", at - reach if at > reach else 0, at)) < 0 and at > reach:
            found = judge(m)
        elif (found := get(key := (text[newline + 1:at], m.group()), False)) is False:
            found = judged[key] = judge(m)
        if found is not None:
            spans.append((at + found[0], at + found[1], REDACTED, "secret-named value", at + found[2]))
    return spans


def each_match_judged_once(text: str, matches: Iterable[re.Match[str]],
                           judge: Callable[[re.Match[str]], tuple[int, int, int] | None], back: int) -> list[Span]:
    """each_line_match_judged_once for a judge that reads only m and the `back` characters before m.start() (a text's
    start where nearer): a later match with the same text behind the same `back` characters gets the same answer."""
    spans: list[Span] = []
    judged: dict = {}
    get = judged.get
    for m in matches:
        at = m.start()
        if (found := get(key := (text[at - back if at > back else 0:at], m.group()), False)) is False:
            found = judged[key] = judge(m)
        if found is not None:
            spans.append((at + found[0], at + found[1], REDACTED, "secret-named value", at + found[2]))
    return spans
