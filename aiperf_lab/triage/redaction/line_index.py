"""The lines of a text's stretch found by index in C (one split, sums of lengths), and line_views' windows made from
them: each window's lines and their view edits gathered and placed in the window's offsets with no Python step a line
where a line's edits are known by the line (line_views.LINE_EDITS). A text where every line is behind a log prefix is
read in windows over all of it, so a step a line was the windows' cost (2.7 us a line, 0.1-0.3 s/MB on prefixed
texts). Lines with no view edits whatever lines are around them are kept by the line (ALONE), for line_views' marked
lines and a window's plain ones. (leaf: the line edits are given by the caller)"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, chain, compress, repeat
from operator import add, ge, itemgetter, sub
from typing import Callable

Edits = list[tuple[int, int, str]]
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def window_edits(text: str, candidates: list[int], before: int, after: int, known: dict[str, Edits],
                 edits_of: Callable[[int, int], Edits], shared_prefix: Callable[[str], re.Match[str] | None],
                 views: Callable[[int, int, list[tuple[int, int, Edits]]], list[tuple[int, int, Edits]]]
                 ) -> list[tuple[int, int, Edits]]:
    """The windows (start, end, edits in the window's offsets; those with no edit left out) around candidates (line
    starts, in order): from `before` lines above a candidate to `after` lines below it (the text's end at most),
    windows that meet or overlap made one. A line's edits: known[line] where that is a non-empty list (the line's own
    edits, which a line with some gets whatever its neighbours), none where the line is in ALONE, else edits_of(start,
    end) (end: its newline, or the text's end). A window of more than two lines is given to views first (its lines'
    starts, ends and edits): the windows it gives, if any, stand for it."""
    lo = candidates[0]
    for _ in range(before):
        if lo == 0:
            break
        lo = text.rfind("\n", 0, lo - 1) + 1
    hi = candidates[-1]
    for _ in range(after + 1):
        newline = text.find("\n", hi)
        if newline < 0:
            hi = len(text)
            break
        hi = newline + 1
    lines = text[lo:hi].split("\n")   # (hi after a newline: the last item is empty, the line past the stretch)
    starts = list(accumulate(map(add, map(len, lines), repeat(1)), initial=lo))   # starts[i]: line i's start
    count = len(lines)
    size = len(text)
    windows = _windows(candidates, starts, count, size, before, after)
    own = list(map(known.get, lines))
    out = []
    for first, last, end in windows:
        start = starts[first]
        if last >= count:   # (to the text's end: the lines that start before it)
            last = count if starts[count - 1] < end else count - 1
        chosen = own[first:last]
        if None in chosen or [] in chosen:
            for k, edits in enumerate(chosen):
                if edits is None or edits == [] and (line := lines[first + k]) not in ALONE:
                    chosen[k] = edits_of(starts[first + k], starts[first + k + 1] - 1)
                    if edits == [] and not chosen[k]:
                        remember_alone(line, known, shared_prefix)
        flat = list(chain.from_iterable(chosen))
        if not flat:
            continue
        if last - first > 2 and (found := views(start, end, list(zip(starts[first:last], map(
                sub, starts[first + 1:last + 1], repeat(1)), chosen)))):
            out += found   # (sources taking turns: a view each; given each line's (start, end, own edits))
            continue
        shifts = list(chain.from_iterable(map(repeat, map(sub, starts[first:last], repeat(start)), map(len, chosen))))
        out.append((start, end, list(zip(map(add, map(_FIRST, flat), shifts), map(add, map(_SECOND, flat), shifts),
                                         map(_THIRD, flat)))))
    return out


def _windows(candidates: list[int], starts: list[int], count: int, size: int, before: int, after: int) -> list[list[int]]:
    """[first line, line past the last (count: to the text's end), end] of each window around candidates: a candidate
    before the end of the window of the one before it extends that window; another opens one, which takes in the window
    before it where its first line starts there or before. The candidates that extend a window (a run of them: a line
    and its copies, each a candidate) are found in C, so a Python step is taken a window, not a candidate."""
    if not candidates:
        return []
    lasts = list(map(add, map(bisect.bisect_left, repeat(starts), candidates), repeat(after + 1)))
    end_of = starts[:count] + [size]   # (a window's end: the start of the line past it, or the text's end)
    ends = list(map(end_of.__getitem__, map(min, lasts, repeat(count))))
    opening = [0, *compress(range(1, len(candidates)), map(ge, candidates[1:], ends))]   # (each opens a window)
    windows: list[list[int]] = []
    for k, next_opening in zip(opening, [*opening[1:], len(candidates)]):
        first = max(0, lasts[k] - after - 1 - before)
        if windows and starts[first] <= windows[-1][2]:
            first = windows.pop()[0]
        windows.append([first, lasts[next_opening - 1], ends[next_opening - 1]])
    return windows


# Lines with no edits of their own (known[line] == []) where no prefix shared with a neighbour can be read either
# (shared_prefix(line) is None, or is all of the line): none whatever lines are around them (line_views._line_edits_in),
# so a window's plain lines are passed over by a look-up. Emptied when full; its lines are LINE_EDITS' (512 characters
# at most).
ALONE: set[str] = set()
MOST_ALONE = 4096


def remember_alone(line: str, known: dict[str, Edits], shared_prefix: Callable[[str], re.Match[str] | None]) -> None:
    """line into ALONE where it has no edits of its own (known[line] == []) and no prefix shared with a neighbour can
    be read in it; the caller has found that it has no edits where it is."""
    if known.get(line) == [] and ((shared := shared_prefix(line)) is None or shared.end() == len(line)):
        if len(ALONE) >= MOST_ALONE:
            ALONE.clear()
        ALONE.add(line)


COPIES_BLOCK_MOST = 1 << 20   # (a block of copies is made no longer: a long run is passed over in 1 MiB steps)


def copies_end(text: str, lower: str, line: str, folded: str, at: int) -> int:
    """Where the run of copies of line (folded: its lower-cased form, as long) that starts at `at` ends, a copy being
    line in text and folded in lower at the same place: blocks of copies doubled while both go on with them, then
    halved (each block's startswith a C scan; a run of n copies costs about 2 log2(n) steps, not n)."""
    block, lowered = line, folded
    while text.startswith(block, at) and lower.startswith(lowered, at):
        at += len(block)
        if len(block) < COPIES_BLOCK_MOST:
            block, lowered = block + block, lowered + lowered
    while len(block) > len(line):
        block, lowered = block[:len(block) // 2], lowered[:len(lowered) // 2]
        if text.startswith(block, at) and lower.startswith(lowered, at):
            at += len(block)
    return at


# Blocks of lines repeated (a log's cycle of lines: ranks taking turns, an app's records): line_views.line_view_windows
# comes to a line by a mark, reads it and goes on; where it comes to a line it came to before, and the lines from there
# up to this one (a block) are there before it too and again after it, the copies of that block are read as it was.
PERIOD_MOST = 4096          # characters of a block looked for at most
PERIOD_LINE_MOST = 512      # a line longer is not remembered for it
PERIOD_MARGIN = 1024        # characters of copies kept after the last block placed (a line's reading looks at the next
# line and up to 264 characters past its start, and a line's length more: line_views._shared_prefix)


def repeated_block(text: str, lower: str, prev: int, at: int, read: dict[int, Edits], candidates: list[int],
                   entered: list[int], seen: dict[str, int]) -> int:
    """Where line_view_windows' loop goes on (0: the loop reads the line at `at` itself) when it comes by a mark to the
    line at `at`, a line it came to at `prev` last: where text[prev:at] (a block of whole lines) is in text (and lower,
    at the same places) right before prev and is repeated from `at` on, the loop's reading of the block (what it put in
    `read` and `candidates` from prev on: every line's reading depends on the lines around it, which are the same for
    each copy away from the run's ends) is placed on each copy but the last ones, in C; the loop goes on at the first
    copy left. `entered`/`seen` (the lines it came to by a mark, and where each was last) move on to the last copy placed."""
    period = at - prev
    if period > PERIOD_MOST or prev < period or len(lower) != len(text):
        return 0
    block, folded = text[prev:at], lower[prev:at]
    if not (text.startswith(block, prev - period) and lower.startswith(folded, prev - period)):
        return 0
    end = copies_end(text, lower, block, folded, at)
    count = (end - at - period - PERIOD_MARGIN) // period   # (copies placed: each with a copy and the margin after it)
    if count < 1:
        return 0
    keys = []
    for key in reversed(read):   # (read in order of its keys: the block's are the last)
        if key < prev:
            break
        keys.append(key)
    keys.reverse()
    values = list(map(read.__getitem__, keys))
    own = candidates[bisect.bisect_left(candidates, prev):]
    for shift in range(period, (count + 1) * period, period):
        read.update(zip(map(add, keys, repeat(shift)), values))
        candidates += map(add, own, repeat(shift))
    shift = count * period
    last = list(map(add, entered[bisect.bisect_left(entered, prev):], repeat(shift)))
    entered += last
    for start in last:
        seen[text[start:text.find("\n", start)]] = start
    return at + shift
