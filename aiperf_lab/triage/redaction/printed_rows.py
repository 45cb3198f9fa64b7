"""Table rows a CLI prints with a secret's name and its value, where the row stands behind a log prefix that the
layouts' row rule does not read (session 23, h23a): `ngc config current`'s `| apikey | X |` behind compose's `api-1  | `
(the row's bar after the prefix's bar), behind an ISO time (`...123Z | apikey | X |`), or opening a JSON record's
message (`{"msg": "| apikey | X |"}`). The name is judged by names.is_secret_name; the value stays where it cannot be a
secret (names.cannot_be_secret).

Also a prompt for a secret with the answer typed after it on the same line, as a terminal's capture (script, pexpect,
a notebook) keeps it: `Enter API key [no-apikey]. Choices: [<VALID_APIKEY>, 'no-apikey']: X` (ngc config set), `Enter
your token (input will not be visible): X`, `Paste your API key: X`; the answer must read as generated or as a
password (names.looks_generated, looks_like_password)."""

from __future__ import annotations

import functools
import re

from .line_views import without_log_prefix
from .names import _secret_name_cached, cannot_be_secret, looks_generated, looks_like_password
from .spans import REDACTED, Span
from .tables import TABLE_HOLD_LINES, _header, _separator

# (the row's first bar, found from its literal; what stands before it read by fixed look-behinds: a compose prefix's
# bar and one blank, an ISO time's `Z` and one blank, a JSON string's opening quote; a progress line's `1200/5000 |`
# is not one of them)
# (a row named only TOKEN or KEY is a tokenizer's as often as a key's: its value must read as generated, as
# tables.BARE_COLUMNS' cells)
BARE_NAMES = frozenset({"token", "key", "tokens", "keys"})
PREFIXED_PIPE_ROW = re.compile(r"\|(?:(?<= \| \|)|(?<=[0-9]Z \|)|(?<=\"\|)|(?<=\" \|))[ \t]{0,8}"
                               r"(?P<name>[A-Za-z_][\w.-]{0,63})[ \t]{0,64}\|[ \t]{0,8}"
                               r"(?P<value>[^|\s\"\\]{1,4096})[ \t]{0,256}\|")


def prefixed_row_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in PREFIXED_PIPE_ROW.finditer(text):
        if m.group("name").lower() in BARE_NAMES and not looks_generated(m.group("value")):
            continue   # (a tokenizer's `| token | id |` header or `| hello | 5 |` row: words, not a key)
        if _secret_name_cached(m.group("name")) and not cannot_be_secret(value := m.group("value")) and value != REDACTED:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


# (lower-cased; the prompt's verb at a word's start, its noun within the line, the answer alone to the line's end or to
# a JSON string's closing quote; every repetition bounded)
TYPED_PROMPT = re.compile(r"(?<![a-z])(?:enter|paste)[ \t][^\n:]{0,80}?(?:api[ _-]?key|token|password|passphrase|secret)"
                          r"[^\n]{0,120}?:[ \t]{1,4}(?P<value>[^\s'\"\\]{6,512})[ \t]{0,4}(?=\r?$|\\?\")", re.M)
PROMPT_GATES = ("nter ", "aste ")   # (`Enter`/`enter`, `Paste`/`paste`: the verbs' tails, one scan each)


def typed_prompt_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    for m in TYPED_PROMPT.finditer(lower):
        value = text[m.start("value"):m.end("value")]
        if value != REDACTED and not cannot_be_secret(value) and (looks_generated(value) or looks_like_password(value)):
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


# (session 26) `env` / `printenv` print a value that holds newlines over lines of its own: `DB_PASSWORD=first` then
# `second` then the next `NAME=` line. After a secret-named variable's line (its name in capitals with a secret word;
# is_secret_name decides), the 1 to MOST_CONTINUED lines with no blank, a letter or digit, no `#` first and no `NAME=`,
# closed by a `NAME=` line, are its value's rest (a rule (`-----`) or a comment is none). Each line read as its view
# (behind a log prefix, in a JSON record). A stream holds such lines until the closing line comes (env_continuation_hold);
# it cannot see a line it let out before, so the line before the name's is not asked about.
ENV_SECRET_WORD = re.compile(r"(?:PASS|TOKEN|SECRET|KEY|AUTH|CRED|JWT|PWD)[A-Z0-9_]{0,64}=")
ENV_LINE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}=")
ENV_CONTINUATION = re.compile(r"(?=[^\s]{0,4095}[A-Za-z0-9])[^\s#][^\s]{0,4095}")
MOST_CONTINUED = 4
HOLD_WALK = 12   # lines a stream's hold walks back over at most


CACHED_LINE_MOST_CHARS = 512   # longer lines are read each time, never kept (4,096 lines of 1 MiB would be 4 GiB)


def _view(text: str, start: int, end: int) -> str:
    line = text[start:end]
    return _line_view(line) if len(line) <= CACHED_LINE_MOST_CHARS else without_log_prefix(line).rstrip("\r\n")


@functools.lru_cache(maxsize=4096)
def _line_view(line: str) -> str:   # (once per distinct line: a log repeats its lines, and the holds ask again)
    return without_log_prefix(line).rstrip("\r\n")


def _env_secret_line(view: str) -> bool:
    return _env_secret_line_cached(view) if len(view) <= CACHED_LINE_MOST_CHARS else _env_secret_line_read(view)


def _env_secret_line_read(view: str) -> bool:
    """A secret-named `NAME=` line whose value can be a secret's first line (`PASS=1`, `TOKEN=false` are counts and
    settings)."""
    name = ENV_LINE.match(view)
    return name is not None and ENV_SECRET_WORD.search(view, 0, name.end()) is not None and _secret_name_cached(
        view[:name.end() - 1]) and not cannot_be_secret(view[name.end():])


_env_secret_line_cached = functools.lru_cache(maxsize=4096)(_env_secret_line_read)


def env_continuation_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    read_from = 0   # matches before it are on a line read already (or a value's rest): each line's ends found once
    for m in ENV_SECRET_WORD.finditer(text):
        if m.start() < read_from:
            continue   # (a long line of `DB_PASSWORD="a\"` pieces: its ends were searched for at every match, n^2)
        start = text.rfind("\n", max(0, read_from - 1), m.start()) + 1
        end = text.find("\n", m.end())
        if end < 0:
            break   # (the last line, with no newline: nothing after it can close a value)
        read_from = end + 1
        if not _env_secret_line(_view(text, start, end)):
            continue
        rest: list[tuple[int, int, str]] = []
        at = end + 1
        for _ in range(MOST_CONTINUED + 1):
            if at >= len(text):
                rest = []
                break
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            view = _view(text, at, line_end)
            if ENV_LINE.match(view) is not None:
                break
            if ENV_CONTINUATION.fullmatch(view) is None:
                rest = []
                break
            rest.append((at, line_end, view))
            at = line_end + 1
        else:
            rest = []
        for line_start, line_end, view in rest:
            where = text.find(view, line_start, line_end)
            first, last = (where, where + len(view)) if where >= 0 else (line_start, line_end)
            spans.append((first, last, REDACTED, "secret-named value", start))
        read_from = max(read_from, at)
    return spans


def env_continuation_hold(text: str, start: int, cut: int) -> int:
    """Where a stream's cut goes so that a secret-named env line and the lines that may continue its value are read
    together: the start of the earliest such line among the last lines (walked back over continuation-shaped lines and
    secret-named env lines only), or cut."""
    hold, line_start, line_end = cut, start, cut   # (the last line's view first: most end with a blank or a `NAME=`)
    for _ in range(HOLD_WALK):
        view = _view(text, line_start, line_end)
        if _env_secret_line(view):
            hold = line_start
        elif ENV_CONTINUATION.fullmatch(view) is None or ENV_LINE.match(view) is not None:
            break
        if line_start == 0:
            break
        line_end = line_start - 1
        line_start = text.rfind("\n", 0, line_end) + 1
    return hold


# (session 26) A bar table whose header names a TOKEN column (`| user | token |`) behind a log prefix the header rule reads
# only in a line's view (an ISO time, compose's `api-1  | `, a JSON record: line_views' `| token` gate word): a stream
# holds its rows back to the header, read as views, as tables.table_hold does for bare ones.
PREFIXED_TOKEN_HEADER = re.compile(r"\| (?i:token)(?![\w/.-])")
TABLE_HOLD_REACH = 64 * 512   # characters looked back for a header's mark (TABLE_HOLD_LINES lines of 512)


def prefixed_table_hold(text: str, start: int, cut: int) -> int:
    """The start of the header line whose view is a bar table's with a TOKEN column, where the last line's view and
    the lines' views between are its rows or rules (TABLE_HOLD_LINES up at most); else cut."""
    if "|" not in (view := _view(text, start, cut)) and not _separator(view):
        return cut   # (the last line's view first: compose's bar is a prefix's)
    low = max(0, start - TABLE_HOLD_REACH)
    if text.rfind("| token", low, cut) < 0 and text.rfind("| TOKEN", low, cut) < 0 and text.rfind("| Token", low, cut) < 0:
        return cut   # (no header's mark above: substring scans in C, not a pattern tried at every bar)
    at, end = start, cut
    for _ in range(TABLE_HOLD_LINES):
        view = _view(text, at, end)
        if "|" not in view and not _separator(view):
            return cut
        if PREFIXED_TOKEN_HEADER.search(view) is not None and _header(view) is not None:
            return at
        if at == 0:
            return cut
        end = at - 1
        at = text.rfind("\n", 0, end) + 1
    return cut
