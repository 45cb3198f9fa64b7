"""Token shapes that need a look around them: provider tokens cut by their gates, keys glued after a digit or
"_", a secret printed beside its id (AWS, Twilio), a .netrc or tab-separated password cell."""

from __future__ import annotations

import base64
import functools
import re
from typing import Callable

from .names import _secret_name_cached, cannot_be_secret, is_hex_key, is_named_location, looks_generated, looks_like_password
from .line_views import without_log_prefix
from .spans import REDACTED, Span, has, has_characters
from .tokens import (
    DISCORD_GROUPS, INNER_LITERAL_TOKENS, KAGGLE_JSON_FIRST_LINE, KAGGLE_JSON_KEY,
    KAGGLE_JSON_KEY_FIRST, KAGGLE_KEY, KAGGLE_WORD, SERVE_KEY_EXPIRY, SERVE_KEY_FIRST, SERVE_OPEN_LINE, PROVIDER_PATTERNS, PROVIDER_PREFIX_LENGTHS, TELEGRAM_BOT_ID, _leading_literal, _starts_token,
)


# ---- shapes that need a look around them (the fifth red-team pass) ----------------------------------------------
CONTEXT_LITERALS = frozenset({"eyJ", "gl", "AKIA", "ASIA"})   # TOKEN_SHAPES literals _context_shape_spans asks about
# A JWT glued after "_" or a digit (x_eyJhbGci..., 7eyJ...): its header starts with a JWT header's first key
# ({"alg", {"typ", {"kid", {"enc", {"cty", {"x5t"); the run it starts is read once (a second start inside a run
# that held no JWT is skipped), so "_eyJhbGci" repeated costs one pass.
GLUED_JWT_START = re.compile(r"eyJ(?<=[0-9_]eyJ)(?:hbGci|0eXAi|raWQi|lbmMi|jdHki|4NXQi)")
JWT_RUN = re.compile(r"[A-Za-z0-9_-]*")
JWT_REST = re.compile(r"\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
# Twilio API keys (SK + 32 hex) and Mailgun's key-<32 hex> (not after a name character or "-": ssh-key-<md5> stays)
TWILIO_API_KEY = re.compile(r"SK" + _starts_token("SK", "[A-Za-z0-9_]") + r"[0-9a-f]{32}(?![0-9A-Za-z])")
MAILGUN_KEY = re.compile(r"key-" + _starts_token("key-", "[A-Za-z0-9_-]") + r"[0-9a-f]{32}(?![0-9A-Za-z])")
GLUED_GITLAB = re.compile(r"gl(?<=[0-9_]gl)(?:pat|dt|rt|ptt|cbt|oas|soat|agent)-(?P<body>[A-Za-z0-9_-]{20,})")
# An Azure AD client secret: 3 characters, a digit, "Q~", 31 to 34 more (40 in all), found from its "Q~".
AZURE_CLIENT_SECRET = re.compile(r"Q~(?<=(?<![A-Za-z0-9_~.-])[A-Za-z0-9_.-]{3}[0-9]Q~)[A-Za-z0-9_~.-]{31,34}"
                                 r"(?![A-Za-z0-9_~.-])")
# An id whose secret is printed beside it on the same line: an AWS access key id and its 40-character secret key
# (a CSV credentials file, `aws configure list`-like tables), a Twilio account SID and its 32-hex auth token.
AWS_KEY_ID = re.compile(r"A(?<![A-Za-z0-9]A)[SK]IA[0-9A-Z]{16}(?![0-9A-Za-z])")
AWS_SECRET_BESIDE = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
TWILIO_ACCOUNT_SID = re.compile(r"AC(?<![A-Za-z0-9_]AC)[0-9a-f]{32}(?![0-9A-Za-z])")
TWILIO_TOKEN_BESIDE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")
BESIDE_REACH = 256
# A .netrc password line on its own (wandb's ~/.netrc: `machine api.wandb.ai` / `  login user` / `  password V`):
# the line is only `password VALUE`, and the value is key-like (hex, generated, or a password's mix).
NETRC_PASSWORD_LINE = re.compile(r"\n[ \t]{0,16}password[ \t]{1,8}(?P<value>[^\s'\"]{8,512})[ \t]*(?=\r?\n|\Z)")
# A tab-separated row's `password` cell and the cell after it (a TSV row, my_print_defaults-like listings), tabs as
# printed or escaped in a repr()/JSON string (`password\tX\tuser\troot`); the value key-like, as above.
TAB_PASSWORD_CELL = re.compile(r"(?:^|(?<=[\s'\"])|(?<=\\[tn]))password(?:\t|\\t)(?P<value>[^\s'\"\\]{8,512})"
                               r"(?=\t|\\[tnr]|\\?['\"]|\r?\n|\Z)", re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def _looks_like_key(value: str) -> bool:
    return is_hex_key(value) or looks_generated(value) or looks_like_password(value)


def _beside_spans(text: str, ids: re.Pattern[str], secret: re.Pattern[str], check: Callable[[str], bool],
                  label: str) -> list[Span]:
    """Secret-shaped runs on the same line as an id, within BESIDE_REACH characters of it; each character is read
    at most once per id pattern (a window starts where the last one ended)."""
    spans: list[Span] = []
    scanned = 0
    for m in ids.finditer(text):
        start, end = m.span()
        low = max(scanned, start - BESIDE_REACH, text.rfind("\n", max(0, start - BESIDE_REACH), start) + 1)
        high = text.find("\n", end, end + BESIDE_REACH)
        high = min(len(text), end + BESIDE_REACH) if high < 0 else high
        for found in secret.finditer(text, low, high):
            value = found.group(0)
            if found.start() != start and check(value):
                spans.append((found.start(), found.end(), REDACTED, label, found.start()))
        scanned = max(scanned, high)
    return spans


INNER_LITERAL_LEADS = [_leading_literal(pattern.pattern) for _, pattern, _ in INNER_LITERAL_TOKENS]   # NRAL, AT, ...


def _provider_token_spans(text: str) -> list[Span]:
    """PROVIDER_TOKENS (one scan a separator) and INNER_LITERAL_TOKENS (one literal-led scan each)."""
    spans: list[Span] = []
    lengths = PROVIDER_PREFIX_LENGTHS
    for pattern in PROVIDER_PATTERNS:
        for m in pattern.finditer(text):
            group = m.lastgroup
            start = m.start(group) - lengths[group]
            if lengths[group] == 2 and text[start] == "s" and not looks_generated(m.group(group)):
                continue  # Vault's s.<24>: letters of both cases and digits, not a word after "s."
            if group in DISCORD_GROUPS and not _discord_id(text[start:m.start(group) - 1]):
                continue  # a Discord bot token's first part is base64 of its bot's id (digits)
            spans.append((start, m.end(), REDACTED, "provider token", start))
    for (label, pattern, back), lead in zip(INNER_LITERAL_TOKENS, INNER_LITERAL_LEADS):
        if not has_characters(text, lead):   # (a pattern led by a literal the text cannot hold is not scanned)
            continue
        for m in pattern.finditer(text):
            start = m.start() - back
            if back == 8:  # a Telegram bot id is 8 to 10 digits
                start -= TELEGRAM_BOT_ID.match(text[max(0, start - 2):start][::-1]).end()
            spans.append((start, m.end(), REDACTED, label, start))
    return spans



@functools.lru_cache(maxsize=1024)
def _discord_id(part: str) -> bool:
    """A Discord bot token's first part: 24 to 26 characters of base64 (no padding) whose bytes are a decimal id."""
    if not 24 <= len(part) <= 26:
        return False
    try:
        decoded = base64.b64decode(part + "=" * (-len(part) % 4), validate=True)
    except ValueError:
        return False
    return 17 <= len(decoded) <= 20 and decoded.isdigit()


@functools.lru_cache(maxsize=4096)
def _mixed_key(value: str) -> bool:
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _context_shape_spans(text: str, present: set[str]) -> list[Span]:
    """Glued JWTs and GitLab tokens, Twilio and Mailgun keys, Azure AD client secrets, secrets printed beside their
    ids, a lone .netrc password line. `present`: the TOKEN_SHAPES literals the text holds (tested already). Each
    pattern is led by a literal and scanned directly: a test for a 2-character literal costs more than that scan."""
    spans: list[Span] = []
    if "eyJ" in present:
        done = 0
        for m in GLUED_JWT_START.finditer(text):
            start = m.start()
            if start < done:
                continue
            run_end = JWT_RUN.match(text, start).end()
            rest = JWT_REST.match(text, run_end)
            done = run_end if rest is None else rest.end()
            if rest is not None:
                spans.append((start, done, REDACTED, "jwt", start))
    if "gl" in present:  # a GitLab token glued after "_" or a digit (x_glpat-...): its body mixes capitals and digits
        spans.extend((m.start(), m.end(), REDACTED, "gitlab token", m.start()) for m in GLUED_GITLAB.finditer(text)
                     if _mixed_key(m.group("body")))
    for pattern, label in ((TWILIO_API_KEY, "twilio api key"), (MAILGUN_KEY, "mailgun key")):
        spans.extend((m.start(), m.end(), REDACTED, label, m.start()) for m in pattern.finditer(text))
    if "~" in text:  # (one character: a fast test)
        spans.extend((m.start() - 4, m.end(), REDACTED, "azure client secret", m.start() - 4)
                     for m in AZURE_CLIENT_SECRET.finditer(text))
    if "AKIA" in present or "ASIA" in present:
        spans.extend(_beside_spans(text, AWS_KEY_ID, AWS_SECRET_BESIDE, _mixed_key, "aws secret key"))
    spans.extend(_beside_spans(text, TWILIO_ACCOUNT_SID, TWILIO_TOKEN_BESIDE, lambda v: True, "twilio auth token"))
    if has(text, "password"):  # (the pattern is led by a newline: a test for its word first)
        looks_like_key = _looks_like_key
        spans.extend((m.start("value") - 1, m.end("value") - 1, REDACTED, "secret-named value", m.start())
                     for m in NETRC_PASSWORD_LINE.finditer("\n" + text) if looks_like_key(m.group("value")))
        if "\t" in text or "\\t" in text:
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in TAB_PASSWORD_CELL.finditer(text) if looks_like_key(m.group("value")))
    return spans


def kaggle_key_spans(lower: str) -> list[Span]:
    """Kaggle's API key in (lower-cased) text: 32 bare hex digits beside the word kaggle, and kaggle.json's "key" beside
    its "username" whatever the key's shape (KAGGLE_JSON_KEY); TorchServe's key file's keys (SERVE_KEY_FIRST,
    SERVE_KEY_EXPIRY)."""
    spans: list[Span] = []
    if has(lower, "kaggle"):
        spans.extend(_beside_spans(lower, KAGGLE_WORD, KAGGLE_KEY, is_hex_key, "kaggle key"))
    if ('"' in lower or "'" in lower) and has(lower, "username"):   # (a character first: memchr; the names are quoted)
        spans.extend((m.start("value"), m.end("value"), REDACTED, "kaggle key", m.start())
                     for pattern in (KAGGLE_JSON_KEY, KAGGLE_JSON_KEY_FIRST) for m in pattern.finditer(lower)
                     if not cannot_be_secret(m.group("value")))
    if ('"' in lower or "'" in lower) and has(lower, "key") and "{" in lower:   # (session 25: TorchServe's key file)
        spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                     for pattern in (SERVE_KEY_FIRST, SERVE_KEY_EXPIRY) for m in pattern.finditer(lower)
                     if not cannot_be_secret(m.group("value")))
    return spans


def kaggle_json_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a line that ends with kaggle.json's "username" or "key" and a comma (`jq .`'s print over
    lines: the other comes on the next line), or with TorchServe's `"management": {` (its "key" next): the line's
    start; `end` where there is none."""
    if end - start > 512:
        return end
    line = text[start:end].lower()
    if ("username" in line or "key" in line) and KAGGLE_JSON_FIRST_LINE.search(line):
        return start
    if "{" in line and (SERVE_OPEN_LINE.search(line) or SERVE_OPEN_LINE.search(without_log_prefix(line))):
        return start   # (TorchServe's key file: its "key" on the next line; in a JSON record's message too)
    if ("key" in line and ("\\" in line or "'" in line) and (view := without_log_prefix(line)) is not line
            and KAGGLE_JSON_FIRST_LINE.search(view)):
        return start   # (`"key": "X",` in a JSON record's message or a repr(): session 25)
    return end


# (session 25) A protobuf text format's map entry (Triton's config.pbtxt `parameters`, printed by `cat` or at a server's
# start): `key: "NAME"` then `value: { string_value: "X" }` (or `value: "X"`), on one line or over lines (3 at most),
# NAME a secret's name (is_secret_name): X goes (lower-cased text; `key: "tokenizer_dir"` stays)
PBTXT_PARAMETER = re.compile(r"key(?<![\w-]key)[ \t]{0,4}:[ \t]{0,4}\"(?P<name>[a-z0-9_.-]{1,64})\"[ \t]{0,4}(?:\r?\n[ \t]{0,16})?"
                             r"value[ \t]{0,4}:?[ \t]{0,4}(?:\{[ \t]{0,4}(?:\r?\n[ \t]{0,16})?string_value[ \t]{0,4}:[ \t]{0,4})?"
                             r"\"(?P<value>[^\"\\\n$<{][^\"\\\n]{0,511})\"")
PBTXT_KEY_LINE = re.compile(r"[ \t]{0,64}(?:parameters[ \t]{0,4}:?[ \t]{0,4}\{[ \t]{0,4})?key[ \t]{0,4}:[ \t]{0,4}\"(?P<name>[a-z0-9_.-]{1,64})\""
                            r"(?:[ \t]{0,4}value[ \t]{0,4}:?[ \t]{0,4}\{?)?[ \t]{0,4}\r?\n?")
PBTXT_VALUE_OPEN = re.compile(r"[ \t]{0,64}value[ \t]{0,4}:?[ \t]{0,4}\{[ \t]{0,4}\r?\n?")


def pbtxt_parameter_spans(lower: str) -> list[Span]:
    """The values of PBTXT_PARAMETER entries under a secret's name (read where the text holds `string_value` or
    `key: "`: substring tests)."""
    if not (has(lower, "string_value") or has(lower, 'key: "')):
        return []
    return [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
            for m in PBTXT_PARAMETER.finditer(lower)
            if _secret_name_cached(m.group("name")) and not cannot_be_secret(m.group("value"))]


def pbtxt_parameter_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a protobuf text map entry whose value is still to come: a last line `key: "NAME"` (NAME a
    secret's name), or `value: {` under one; the key line's start, `end` where there is none."""
    piece = text[start:end]
    if end - start > 512 or ("key" not in piece and "value" not in piece):
        return end
    line = without_log_prefix(piece).lower()
    if (m := PBTXT_KEY_LINE.fullmatch(line)) is not None:
        return start if _secret_name_cached(m.group("name")) else end
    if PBTXT_VALUE_OPEN.fullmatch(line) is not None and start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        if (m := PBTXT_KEY_LINE.fullmatch(without_log_prefix(text[above:start]).lower())) is not None and (
                _secret_name_cached(m.group("name"))):
            return above
    return end


# A password hash in crypt(3)'s form, as htpasswd and /etc/shadow hold it (`bob:$apr1$SALT$HASH`,
# `root:$6$SALT$HASH:19000:0:99999:7:::`, bcrypt's `$2b$10$...`, yescrypt's `$y$j9T$SALT$HASH`): crackable offline, a
# secret's equivalent. What follows the scheme's `$id$` goes (salt and hash); the user before it stays. Led by its
# `$` (the engine skips to it); after a `:`, a blank, a quote or `=`, or at a line's start; 16+ characters that hold a
# `$` past the salt (bcrypt's cost `NN$` and 53 characters).
PASSWORD_HASH = re.compile(r"\$(?:(?<=[:\s\"'=]\$)|(?<![^\n]\$))(?:1|5|6|apr1|y|gy|7|sha1|md5|2[abxy])\$"
                           r"(?P<value>(?=[./A-Za-z0-9=,]{0,256}\$)[./A-Za-z0-9=,$]{16,512})(?![./A-Za-z0-9=,$])")


def password_hash_spans(text: str) -> list[Span]:
    """crypt(3) password hashes (PASSWORD_HASH); read where the text holds a `$` (a character first: memchr)."""
    if "$" not in text:
        return []
    return [(m.start("value"), m.end("value"), REDACTED, "password hash", m.start()) for m in PASSWORD_HASH.finditer(text)]


# (session 26) A shell parameter expansion's default under a secret's name (`DB_PASSWORD=${DB_PASSWORD:-hunter22x}`,
# `${X-default}`, `${X:=default}`, `${X=default}`; in a compose file, a shell script, `bash -x`'s trace, an echo): the
# default is the password whenever the variable is unset. The reference (`${DB_PASSWORD}`), a `:?` message (`${X:?set
# it}`), a default that is a reference (`${X:-$Y}`, `${X:-${Y}}`), empty or no secret (a number, a setting word, a path
# of words: `${HF_TOKEN_TTL:-3600}`), and any default under a name that says no secret (`${HOME:-/root}`) stay; `:+`'s
# alternative (a flag, `${HF_TOKEN:+--token}`) is not read here. One literal-led scan, each default bounded.
SHELL_DEFAULT = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]{0,127}):?[-=](?P<value>[^\s{}$\"'`\\]{1,256})\}")


def shell_default_spans(text: str) -> list[Span]:
    """The defaults of SHELL_DEFAULT under a secret's name."""
    if "${" not in text:
        return []
    return [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start("value"))
            for m in SHELL_DEFAULT.finditer(text)
            if _secret_name_cached(m.group("name")) and not _no_secret_default(m.group("value"))]


@functools.lru_cache(maxsize=1024)
def _no_secret_default(value: str) -> bool:
    return cannot_be_secret(value) or (value[0] in "/~." and is_named_location(value))


# (session 26) SDK clients whose first positional argument is the key, whose keys have no shape of their own: Cohere's
# `co = cohere.Client("X")` (also ClientV2, AsyncClient, AsyncClientV2; its keys are 40 letters and digits, which no shape
# tells from a hash) and Replicate's `replicate.Client("X")` (api_token first). A quoted string only (a variable, a
# call, `os.environ[...]` name where the key is), escaped quotes in a JSON string too.
KEY_FIRST_CLIENT = re.compile(r"(?:cohere\.(?:Async)?Client(?:V2)?|replicate\.Client)\([ \t]{0,4}(?P<q>\\{0,3}[\"'])"
                              r"(?P<value>[^\s\"'\\]{8,256})(?P=q)")


def key_first_client_spans(text: str) -> list[Span]:
    """The quoted first argument of KEY_FIRST_CLIENT's calls, where it can be a secret."""
    if "Client" not in text:
        return []
    return [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
            for m in KEY_FIRST_CLIENT.finditer(text) if not cannot_be_secret(m.group("value"))]
