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

import re

from .names import _secret_name_cached, cannot_be_secret, looks_generated, looks_like_password
from .spans import REDACTED, Span

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
