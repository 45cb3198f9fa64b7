"""A secret folded over lines (`fold -w 80`, a log line wrapped at a width): the rules find its first piece at the end
of a full line, and the pieces on the lines after it are the rest of it (a fold inside a text box's frame, `│ ... │`,
is not read). A line goes with it when it is
nothing but token characters and as wide as the first line (the fold's width), or, last, shorter and holding a digit
(a word such as `Done` after it stays). A stream holds a line that may be such a secret's first piece, and its
continuations, until the line after them is read."""

from __future__ import annotations

import re

from .spans import REDACTED, Span

WRAP_WIDTH = 60          # the narrowest fold read as one (a line this long or longer, ending in the secret)
WRAP_FIRST_PIECE = 16    # the first piece's length at the least (a short value at a line's end is no folded token)
WRAP_LINES = 64          # continuation lines at the most
# (a token's characters: base64, base64url, a JWT's dots; then at most its closing quote and a comma or bracket)
CONTINUATION = re.compile(r"(?P<token>[A-Za-z0-9_.+/-]{1,4096}={0,2})[\"'`]?[,;)\]}]?")
# A line that may begin a folded secret ends in 16 of CONTINUATION's characters: the text rule extends only a secret
# ending such a line, and a stream holds every such line, so the two read the same lines together
TOKEN_END = re.compile(r"[A-Za-z0-9_.+/-]{16}={0,2}\r?\n?\Z")


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _continuation(text: str, at: int, width: int) -> tuple[int, bool] | None:
    """Where the continuation on the line at `at` ends, and whether it is a full one (the fold's width); None when
    the line is no piece of a folded token."""
    end = _line_end(text, at)
    stop = end - 1 if end > at and text[end - 1] == "\r" else end
    m = CONTINUATION.fullmatch(text, at, stop) if stop > at else None
    if m is None:
        return None
    if stop - at == width and m.end("token") == stop:
        return stop, True
    if stop - at <= width and any(c.isdigit() for c in m.group("token")):
        return m.end("token"), False
    return None


def wrapped_continuation_spans(text: str, spans: list[Span]) -> list[Span]:
    """The continuation lines of each secret span that ends a line of WRAP_WIDTH characters or more."""
    out: list[Span] = []
    starts = {span[0] for span in spans}
    for start, end, replacement, label, context in spans:
        if replacement != REDACTED or end - start < WRAP_FIRST_PIECE:
            continue
        newline = end + (text[end:end + 1] == "\r")
        if text[newline:newline + 1] != "\n":
            continue
        line_start = text.rfind("\n", 0, start) + 1
        width = end - line_start
        if width < WRAP_WIDTH or TOKEN_END.search(text, max(line_start, end - 20), end) is None:
            continue
        at = newline + 1
        for _ in range(WRAP_LINES):
            if at in starts:
                break   # (the line is a secret's already, found by a rule; its own end goes on from there)
            piece = _continuation(text, at, width)
            if piece is None:
                break
            out.append((at, piece[0], REDACTED, label, context))
            if not piece[1]:
                break
            at = _line_end(text, at) + 1
    return out


def wrapped_token_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a line that may be a folded secret's first piece (WRAP_WIDTH characters or more, ending in
    16 token characters) or its full-width continuations, while the line after them has not come: the first such
    line's start; `end` where there is none or the next line, whole, is no continuation."""
    line = text[start:end].rstrip("\r\n")
    if len(line) < WRAP_WIDTH or TOKEN_END.search(line) is None:
        return end
    if text.find("\n", end) >= 0 and _continuation(text, end, len(line)) is None:
        return end
    first = start
    for _ in range(WRAP_LINES):   # (up over full-width continuations to the line that began the token)
        if first == 0:
            return first
        above = text.rfind("\n", 0, first - 1) + 1
        above_line = text[above:first].rstrip("\r\n")
        if len(above_line) != len(line) or TOKEN_END.search(above_line) is None:
            return first
        first = above
    return end   # (more full lines than a folded secret takes: a dump's or a table's, held no longer)
