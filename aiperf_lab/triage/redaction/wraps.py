"""A secret folded over lines (`fold -w 80`, a log line wrapped at a width): the rules find its first piece at the end
of a full line, and the pieces on the lines after it are the rest of it (a fold inside a text box's frame, `│ ... │`,
is not read). A line goes with it when it is
nothing but token characters and as wide as the first line (the fold's width), or, last, shorter and holding a digit
(a word such as `Done` after it stays). A stream holds a line that may be such a secret's first piece, and its
continuations, until the line after them is read."""

from __future__ import annotations

import re

from .line_views import without_log_prefix
from .spans import REDACTED, Span, has

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


# A line that may be a continuation (_continuation): CONTINUATION's characters only, then the line's end (a `\r` at most);
# a line that is none cannot hold a continuation, whatever the width
MAY_CONTINUE = re.compile(r"[A-Za-z0-9_.+/=\"'`,;)\]}-]{1,8192}\r?(?:\n|\Z)")


def wrapped_continuation_spans(text: str, spans: list[Span]) -> list[Span]:
    """The continuation lines of each secret span that ends a line of WRAP_WIDTH characters or more. A span whose next
    line cannot continue it (MAY_CONTINUE, asked once a line) is passed over before its line is measured."""
    out: list[Span] = []
    starts: set[int] | None = None
    may_continue: dict[int, bool] = {}
    for start, end, replacement, label, context in spans:
        if replacement != REDACTED or end - start < WRAP_FIRST_PIECE:
            continue
        newline = end + (text[end:end + 1] == "\r")
        if text[newline:newline + 1] != "\n":
            continue
        at = newline + 1
        verdict = may_continue.get(at)
        if verdict is None:
            verdict = may_continue[at] = MAY_CONTINUE.match(text, at) is not None
        if not verdict:
            continue   # (the first line after is no continuation: the loop below would read none)
        line_start = text.rfind("\n", 0, start) + 1
        width = end - line_start
        if width < WRAP_WIDTH or TOKEN_END.search(text, max(line_start, end - 20), end) is None:
            continue
        if starts is None:
            starts = {span[0] for span in spans}
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


# A JWT folded before its second dot (`fold -w 20..100` of a bare token or a line ending in one): no rule finds its first
# piece, which is no JWT yet. Its head, `eyJ` and the token's characters (one dot at most) ending a line of
# FOLDED_JWT_WIDTH characters or more, is read with the lines after it: the fold's full-width lines of token characters
# and the next line's leading ones; where these, joined, make a JWT (FOLDED_JWT), the pieces of it on each line go.
FOLDED_JWT_WIDTH = 16
# (the fold may cut `eyJ` itself: `e` or `ey` ending the line, the rest starting the next)
FOLDED_JWT_HEAD = re.compile(r"e(?<![A-Za-z0-9_.-]e)(?:yJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?|y(?=\r?\nJ)|(?=\r?\nyJ))(?=\r?\n)")
FOLDED_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
TOKEN_LINE = re.compile(r"[A-Za-z0-9_.-]+")
TOKEN_TAIL_END = re.compile(r"[\"'`]?[,;)\]}]?")   # (after a token that ends its line: its closing quote, a comma)
SHORTEST_SIGNATURE = 43   # (HS256's, in base64url; RS256's is 342, ES256's 86)
TOKEN_RUN = re.compile(r"[A-Za-z0-9_.-]*")
HEADER_RUN = re.compile(r"[A-Za-z0-9_-]*")


def _folded_pieces(text: str, head_start: int, head_end: int) -> list[tuple[int, int]]:
    """The pieces (start, end) of the token a head at text[head_start:head_end] begins, line by line: the head, the
    full-width token lines after it, the leading run of the line after those."""
    line_start = text.rfind("\n", 0, head_start) + 1
    width = head_end - line_start
    pieces = [(head_start, head_end)]
    at = head_end + (text[head_end:head_end + 1] == "\r") + 1
    for _ in range(WRAP_LINES):
        if at >= len(text):
            break
        end = _line_end(text, at)
        stop = end - 1 if end > at and text[end - 1] == "\r" else end
        if stop - at == width and TOKEN_LINE.fullmatch(text, at, stop):
            pieces.append((at, stop))
            at = end + 1
            continue
        run = TOKEN_RUN.match(text, at, stop).end()
        if run > at and (run == stop or TOKEN_TAIL_END.fullmatch(text, run, stop) or not _signed(pieces, text)):
            pieces.append((at, run))
        break
    return pieces


def _signed(pieces: list[tuple[int, int]], text: str) -> bool:
    """Whether the pieces joined hold a JWT with a whole signature (SHORTEST_SIGNATURE characters or more after its second
    dot): a line after them that goes on past its leading run (`step 2 ...`, `2026-11-24 ...`) is no more of it."""
    jwt = FOLDED_JWT.match("".join(text[a:b] for a, b in pieces))
    return jwt is not None and len(jwt.group().split(".")[2]) >= SHORTEST_SIGNATURE


def folded_jwt_spans(text: str) -> list[Span]:
    """The pieces of each JWT folded over lines before its second dot (see FOLDED_JWT_HEAD)."""
    spans: list[Span] = []
    done = 0
    for m in FOLDED_JWT_HEAD.finditer(text):
        start, end = m.span()
        width = end - (text.rfind("\n", 0, start) + 1)
        if start < done or m.group().count(".") > 1 or width < FOLDED_JWT_WIDTH or text.count(
                ".", start, start + (WRAP_LINES + 2) * (width + 2)) < 2:
            continue   # (a JWT holds two dots: none within the lines a fold of it could take, no JWT)
        if "." not in m.group():   # (its header goes on on the next line: 8 characters at least with the head, to a dot
            at = end + (text[end:end + 1] == "\r") + 1   # or the line's end)
            run = HEADER_RUN.match(text, at).end()
            if (end - start) + (run - at) < 8 or text[run:run + 1] not in ".\r\n":
                continue
        pieces = _folded_pieces(text, start, end)
        if len(pieces) < 2:
            continue
        joined = "".join(text[a:b] for a, b in pieces)
        jwt = FOLDED_JWT.match(joined)
        if jwt is None or jwt.end() <= end - start:
            done = pieces[-1][0]   # (no JWT, or one whole on its first line: the token rule's; a head inside these
            continue               # lines is not read again, so each line is joined once: `eyJaaaa` lines repeated)
        left = jwt.end()
        for a, b in pieces:
            if left <= 0:
                break
            spans.append((a, min(b, a + left), REDACTED, "jwt", start))
            left -= b - a
        done = spans[-1][1]
    return spans


def _ends_in_head(line: str) -> bool:
    """Whether a line (its break left out) ends in a folded JWT's head: the run of token characters ending it starts
    with `eyJ` and holds one dot at most, or is `e` or `ey` (FOLDED_JWT_HEAD, read back from the end)."""
    if len(line) < FOLDED_JWT_WIDTH:
        return False
    run = len(line) - TOKEN_RUN.match(line[-4096:][::-1]).end()
    return (line.startswith("eyJ", run) and line.count(".", run) <= 1) or line[run:] in ("e", "ey")


def _view(text: str, start: int, end: int) -> str:
    """The line text[start:end] as a line view reads it (without its log prefix: `[rank0]: `), its break left out."""
    return without_log_prefix(text[start:end]).rstrip("\r\n")


def folded_jwt_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a line that may be a folded JWT's head (FOLDED_JWT_HEAD at its end) or one of its full-width
    lines after it, while the line after has not come: the head's line start; `end` where there is none. Each line is
    judged as the rules read it, bare or (in a line view) without its log prefix."""
    stop = end - (text[end - 1:end] == "\n")
    stop -= text[stop - 1:stop] == "\r"
    if stop - start < FOLDED_JWT_WIDTH or text[stop - 1] not in TOKEN_CHARACTERS:
        return end
    tail = text[max(start, stop - FOLDED_JWT_WIDTH):stop]
    run = tail[len(tail) - TOKEN_RUN.match(tail[::-1]).end():]
    if len(run) < FOLDED_JWT_WIDTH and "eyJ" not in run and run not in ("e", "ey"):
        return end   # (most lines: a short run of token characters at the end, no head)
    for read in (_raw, _view):   # (the text as it is, then as a line view reads it)
        line = read(text, start, end)
        if _ends_in_head(line):
            return start
        width = len(line)
        if width < FOLDED_JWT_WIDTH or not TOKEN_LINE.fullmatch(line):
            continue
        first = start
        for _ in range(WRAP_LINES):   # (up over full-width token lines to the line that ends in the head)
            if first == 0:
                break
            above = text.rfind("\n", 0, first - 1) + 1
            line = read(text, above, first)
            if _ends_in_head(line):
                return above
            if len(line) != width or not TOKEN_LINE.fullmatch(line):
                break
            first = above
    return end


def _raw(text: str, start: int, end: int) -> str:
    return text[start:end].rstrip("\r\n")


TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def folded_spans(text: str, found: list[Span]) -> list[Span]:
    """The pieces of secrets folded over lines: a JWT's before its second dot (folded_jwt_spans, where the text holds
    `eyJ`), then the lines after each secret span found that ends a full line (wrapped_continuation_spans)."""
    jwt = folded_jwt_spans(text) if has(text, "eyJ") else []
    found = found + jwt if jwt else found
    return jwt + wrapped_continuation_spans(text, found) if found else jwt
