"""Secrets as tools lay them out over lines: Kubernetes env items and Secret data blocks, XML/Hadoop properties,
terraform sensitive values, header tuples, loguru arrows, `Name  Value` tables and env listings (`set`, `setenv`, dot leaders), .pgpass lines."""

from __future__ import annotations

import base64
import functools
import os
import re

from .assignments import NOT_A_SECRET_REFERENCE, SNAKE_NAME, _assigned_secret_at
from .judged_once import each_block_judged_once, each_line_match_judged_once
from .line_views import line_source, same_source_line
from .op_items import OP_FIELD_LIST, OP_JSON_FORMAT, _op_field_list_spans, _op_json_spans, op_json_block_lines
from .python_source import NAME_RUN_REVERSED, _name_before
from .references import NOT_SECRET_HEADER_NAMES, SECRET_FETCH
from .names import (WHOLE_EXPANSION_MESSAGE, _secret_name_cached, cannot_be_secret, is_hex_key, is_named_location,
                    looks_generated, looks_like_password, name_words, tells_when)
from .spans import REDACTED, Span, has, has_any
from .store_prints import KUBECTL_SECRET_LINE, PRINTED_ENV_NAME, SECRET_PRINT_LITERALS


# ---- secrets as common tools print them: the name in one place, the value in another ------------------
# Each finder starts from a literal (found by a plain or literal-led search), reads a bounded stretch after
# it, and goes on after what it read: no character is read a number of times that grows with the text.

PRINTED_VALUE_LIMIT = 4096
# Kubernetes env lists (kubectl -o yaml/json, helm template, ECS task definitions): an item's name, then its
# value as the next key of the same item: `- name: DB_PASSWORD\n  value: X`, `{"name": "DB_PASSWORD", "value": "X"}`.
# Also `name="X" value="V"` (XML attributes) and AWS's capitalised {"Name": ..., "Value": ...}.
ENV_ITEM_NAME = re.compile(r"ame(?<=[Nn]ame)(?<![A-Za-z0-9_][Nn]ame)[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
                           r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})[\"']?(?![A-Za-z0-9_.-])")
_ENV_ITEM_QUOTED = r"\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\"|'(?P<sq>(?:[^'\n]|''){1,4096})'"
ENV_ITEM_VALUE = re.compile(r"(?:[ \t,]{0,4}\r?\n[ \t]{0,64}(?:- )?[\"']?[Vv]alue[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                            r"(?:" + _ENV_ITEM_QUOTED + r"|(?P<plain>[^\s\"'#{}\[\]|>&*!][^\n]{0,4095}))"
                            r"|[ \t,]{0,4}[\"']?[Vv]alue[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                            r"(?:" + _ENV_ITEM_QUOTED.replace("?P<dq>", "?P<dq2>").replace("?P<sq>", "?P<sq2>")
                            + r"|(?P<flow>[^\s\"'#,{}\[\]|>&*!][^\n,}]{0,4095})))")
# Shell-quoted values: `declare -x NAME="a\"b"` (export -p), `NAME=$'a\nb'` (bash set), `NAME='a'"'"'b'`;
# adjacent quoted pieces are one word.
SHELL_QUOTED = re.compile(r"=(?:\"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"|\$'[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'|'[^'\n]{0,4096}')"
                          r"(?:\"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"|\$'[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'|'[^'\n]{0,4096}'|\\'){0,15}")
# loguru's diagnose=True (logger.exception, @logger.catch): a value under an arrow, its variable in the code
# line above the arrows at the arrow's column.
LOGURU_ARROW = "\u2514"
LOGURU_BAR = "\u2502"
LOGURU_BLOCK = re.compile(r"(?m)^(?P<code>[^\n\u2502\u2514]{1,4096})\n(?P<arrows>[ \u2502]{0,512}\u2514[^\n]*"
                          r"(?:\n[ \u2502]{0,512}\u2514[^\n]*){0,61})")  # (63 lines at most: see PRINTED_FORM_HOLD_LINES)
IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
# httpx/httpcore traces and header lists: (b'x-api-key', b'VALUE'), ('Authorization', 'VALUE').
HEADER_TUPLE = re.compile(r"\(b?(?P<q>['\"])(?P<name>[A-Za-z0-9_.-]{1,64})(?P=q),[ \t]{0,2}b?"
                          r"(?:'(?P<sq>[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256})'|\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\")\)")
# The rest of a quoted value, through its escapes, and its closing quote.
# the rest of a JSON string inside a JSON string (`\"a\\\"b\"`: an inner escape doubled, an inner quote `\\\"`)
ESCAPED_QUOTED_REST = re.compile(r'(?:\\\\\\\\|\\\\\\"|\\\\[^\\"\n]|\\[^\\"\n]|[^\\"\n]){0,4096}\\"').match
SHELL_SINGLE_QUOTED_REST = re.compile(r"[^'\n]{0,4096}'").match
QUOTED_REST = {'"': re.compile(r"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"").match, "'": re.compile(r"[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'").match}
# A header's name has a "-" (x-api-key, Set-Cookie) or is one word of these, a client's setting a "_" and a bytes value
# (`('client_secret', b'X')`); other pairs are code's tuples (`('token_get_all', 'token_name')`).
HEADER_WORDS = frozenset({"authorization", "cookie", "token", "apikey", "password", "passwd", "secret"})
# terraform show -json / output -json: "sensitive": true, then the same object's "value".
TERRAFORM_SENSITIVE = re.compile(r"\"sensitive\"[ \t]{0,3}:[ \t]{0,3}true")
JSON_VALUE_KEY = re.compile(r"\"value\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}"
                            r"(?:\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\"|(?P<plain>[A-Za-z0-9_.+-]{1,256}))")
# PowerShell's `Get-ChildItem env:` (and other two-column Name/Value tables).
# (and vault's `Key  Value` / `---  -----` table)
NAME_VALUE_TABLE = re.compile(r"(?:Name|Key) {2,256}Value[ \t]{0,256}\r?\n-{3,4} {2,256}-{5}[ \t]{0,256}\r?\n(?P<rows>(?:[^\n]+(?:\n|\Z)){0,61})")
# <password>VALUE</password>, <ns:apiKey>VALUE</ns:apiKey> (Maven settings.xml, app configs).
XML_ELEMENT = re.compile(r"<(?P<tag>(?:[A-Za-z_][\w.-]{0,63}:)?(?P<local>[A-Za-z_][\w.-]{0,63}))(?:[ \t][^<>\n]{0,256})?>"
                         r"(?P<value>[^<\n]{1,4096})</(?P=tag)>")
# The same element and a JSON pair escaped for HTML (a report, a log of a page): `&lt;password&gt;X&lt;/password&gt;`,
# `&quot;password&quot;: &quot;X&quot;` (Go's html/template writes `&#34;`, Python's html.escape `&#x27;` for `'`)
ESCAPED_XML_ELEMENT = re.compile(r"&lt;(?P<tag>(?:[A-Za-z_][\w.-]{0,63}:)?(?P<local>[A-Za-z_][\w.-]{0,63}))&gt;"
                                 r"(?P<value>(?:[^<&\n]|&(?!lt;)){1,4096})&lt;/(?P=tag)&gt;")
_HTML_QUOTE = r"&(?:quot|#34|#x22|#39|#x27|apos);"
ESCAPED_JSON_PAIR = re.compile(_HTML_QUOTE + r"(?P<name>[A-Za-z_][\w.-]{0,127})" + _HTML_QUOTE + r"[ \t]{0,4}[:=][ \t]{0,4}"
                               + _HTML_QUOTE + r"(?P<value>(?:[^&<\n]|&(?!quot;|#34;|#x22;|#39;|#x27;|apos;)){1,4096})"
                               + _HTML_QUOTE)
# Kubernetes Secret data (kubectl get secret -o yaml/json): a `data:` block's values are base64 of the secret,
# whatever their keys (`.dockerconfigjson`, `db-url`, `openai`); `stringData:` holds them plain.
ENV_ITEM = re.compile(ENV_ITEM_NAME.pattern + ENV_ITEM_VALUE.pattern)
# (or the name ending its line, the value behind the same log prefix on the next: _prefixed_env_value)
ENV_ITEM_OR_NAME = re.compile(ENV_ITEM_NAME.pattern + r"(?:" + ENV_ITEM_VALUE.pattern + r"|[ \t,]{0,4}(?P<open>\r?\n))")
ENV_ITEM_PLAIN = frozenset({"plain", "flow"})
DATA_BLOCK_YAML = re.compile(r"(?m)^(?P<indent>[ \t]{0,64})(?:- )?(?P<key>data|stringData)[ \t]{0,8}:[ \t]{0,8}\r?\n"
                             r"(?P<body>(?:(?P=indent)[ \t]{1,64}[^\n]*(?:\n|\Z)){0,62})")
DATA_BLOCK_JSON = re.compile(r"ata\"[ \t]{0,8}:[ \t\r\n]{0,64}\{")
DATA_JSON_ITEM = re.compile(r"\"(?P<key>[^\"\\\n]{1,256})\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}\"(?P<value>[^\"\\\n]{1,1048576})\"")
# A kubeconfig's client-key-data (and any *-data key) holds base64 of a key: it goes when the decoded text
# holds a secret shape (certificate-authority-data, a certificate, stays).
DASH_DATA = re.compile(r"-data[\"']?[ \t]{0,3}:[ \t]{0,3}[\"']?(?P<value>[A-Za-z0-9+/]{16,1048576}={0,2})(?![A-Za-z0-9+/=])")
# A Docker config.json in base64 anywhere (`kubectl get secret -o jsonpath='{.data.\.dockerconfigjson}'`):
# it starts `{"auths":` (compact, or pretty-printed by two spaces or a tab).
DOCKER_CONFIG_PREFIXES = ("eyJhdXRocyI6", "ewogICJhdXRocyI6", "ewoJImF1dGhzIjo", "eyAiYXV0aHMiO")
DOCKER_CONFIG_BASE64 = re.compile("(?:" + "|".join(f"{prefix}(?<![A-Za-z0-9+/]{prefix})" for prefix in DOCKER_CONFIG_PREFIXES)
                                  + r")[A-Za-z0-9+/]{24,1048576}={0,2}")  # (the shortest holding a secret)
DOCKER_CONFIG_SECRET = re.compile(r"\"(?:auth|password|identitytoken|registrytoken)\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}\"[^\"]{3}")
BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")


def _base64_text(value: str) -> str | None:
    """The text a base64 value encodes, when it is printable text (a key, a URL, JSON); None for binary."""
    if len(value) % 4:
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    if decoded.isprintable() or decoded.replace("\n", "").replace("\r", "").replace("\t", "").isprintable():
        return decoded or None
    return None


def _quoted_value_span(m: re.Match, groups: tuple[str, ...]) -> tuple[int, int] | None:
    for group in groups:
        if m.group(group) is not None:
            return m.span(group)
    return None


@functools.lru_cache(maxsize=8192)
def _secret_value(text: str) -> bool:
    """Whether a value found by its name can be a secret (not a setting, a small number or a path)."""
    value = text.strip().strip("'\"")
    return (len(value) >= 3 and value != REDACTED and not cannot_be_secret(value)
            and not ("/" in value and is_named_location(value))
            and not (value[0] in "<[$%" and NOT_A_SECRET_REFERENCE.fullmatch(value)))  # pad_token='<|endoftext|>'


def _env_item_spans(text: str) -> list[Span]:
    """`- name: DB_PASSWORD` then `value: X` (the next key of the same list item, on the line after or on
    the same line): X goes when the name is a secret name."""
    spans: list[Span] = []
    if not has(text, "ame") or not has(text, "alue"):
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    for m in ENV_ITEM_OR_NAME.finditer(text):
        if not secret_name(m.group("name")):
            continue
        kind = m.lastgroup
        start, end = m.span(kind)
        value = m.group(kind)
        if kind == "open":
            if (found := _prefixed_env_value(text, m.start(), end)) is None:
                continue
            kind, value, start, end = found
        if kind in ENV_ITEM_PLAIN:
            comment = value.find(" #")
            end = start + len((value[:comment] if comment >= 0 else value).rstrip())
        if secret_value(text[start:end]):
            spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


def _prefixed_env_value(text: str, name_at: int, next_start: int) -> tuple[str, str, int, int] | None:
    """`[rank0]:   - name: API_KEY` over `[rank0]:     value: X` (srun's `0: `; helm's items 8 blanks deep): the value's
    group, text and place behind the prefix both lines start with (to its last blank, `:` or `]`; not blanks alone)."""
    line_start = text.rfind("\n", 0, name_at) + 1
    common = 0
    most = min(name_at - line_start, len(text) - next_start, 128)
    while common < most and text[line_start + common] == text[next_start + common] != "\n":
        common += 1
    while common and text[line_start + common - 1] not in " \t:]":
        common -= 1
    if not text[line_start:line_start + common].strip(" \t"):
        return None   # (no prefix: ENV_ITEM read the lines as they are)
    line_end = text.find("\n", next_start)
    view = "\n" + " " * common + text[next_start + common:line_end if line_end >= 0 else len(text)]
    if (m := ENV_ITEM_VALUE.match(view)) is None:
        return None
    return m.lastgroup, m.group(m.lastgroup), next_start + m.start(m.lastgroup) - 1, next_start + m.end(m.lastgroup) - 1


def _shell_quoted_spans(text: str) -> list[Span]:
    """A secret-named variable's shell-quoted value through its escapes and adjacent quoted pieces, to its
    real closing quote: `declare -x DB_PASSWORD="a\\"b"`, `DB_PASSWORD=$'a\\nb'`, `X='a'"'"'b'`."""
    spans: list[Span] = []
    if not has_any(text, ("=\"", "='", "=$'")):
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    reverse_name = NAME_RUN_REVERSED.match
    for m in SHELL_QUOTED.finditer(text):
        at = m.start()
        if not at:
            continue  # no name before it
        size = reverse_name(text[at - 1:at - 65:-1] if at > 64 else text[at - 1::-1]).end()  # (reversed in one slice)
        if not size or not secret_name(text[at - size:at]):
            continue
        start = at + 1 + (2 if text[at + 1] == "$" else 1)
        end = m.end() - 1
        if text[at + 1] == '"' and text.startswith("$(", start) and SECRET_FETCH.fullmatch(text, start, end) is not None:
            continue   # `HF_TOKEN="$(gcloud secrets versions access latest --secret=hf)"`: the command that fetches it
        if text.startswith("${", start) and WHOLE_EXPANSION_MESSAGE.fullmatch(text, start, end) is not None:
            continue   # `X="${X:?set X}"`: the shell's message when X is unset (session 26)
        if end > start and secret_value(text[start:end].replace("\\", "")):
            spans.append((start, end, REDACTED, "secret-named value", at - size))
    return spans


def _loguru_spans(text: str) -> list[Span]:
    """loguru's diagnose arrows: `    connect(password)` then `    │       └ 'VALUE'`. A block is a code line and
    the arrow lines under it (box characters, then one arrow); the name in the code line at an arrow's
    column says whether the value after that arrow is secret."""
    spans: list[Span] = []
    if LOGURU_ARROW not in text:
        return spans
    return each_block_judged_once(LOGURU_BLOCK.finditer(text), _loguru_block_key, _loguru_places, "arrows", "code",
                                  "secret-named value")   # (a block is read once a call: a log repeats its blocks)


def _loguru_block_key(block: re.Match[str]) -> tuple[str, str]:
    return block.group("code", "arrows")


def _loguru_places(code: str, arrows: str) -> list[tuple[int, int]]:
    """The places of the secret values in a loguru block's arrow lines (from their start)."""
    places: list[tuple[int, int]] = []
    columns = _secret_name_columns(code)
    at = 0
    for line in (arrows.split("\n") if columns else ()):
        column = line.find(LOGURU_ARROW)
        if column in columns and not "\u2500" <= line[column + 1:column + 2] <= "\u257f":   # (`└── db`: a tree's entry)
            start = at + column + 1 + (line[column + 1:column + 2] == " ")
            end = at + len(line.rstrip())
            if end > start and _secret_value(arrows[start:end]):
                places.append((start, end))
        at += len(line) + 1
    return places


@functools.lru_cache(maxsize=4096)
def _secret_name_columns(code: str) -> frozenset[int]:
    """The columns of a code line where a secret name starts (a variable, or an attribute: `self.api_key`)."""
    return frozenset(m.start() for m in IDENTIFIER.finditer(code) if _secret_name_cached(m.group(0)))


def _extend_quoted_values(text: str, found: list[Span]) -> None:
    """A secret-named value that opens with a quote goes to its real closing quote: the pair patterns stop
    at a space, a comma or a backslash (`"password": "correct horse battery"`, `'pass\\'word'`, `"a\\"b"`).
    After `=` with no space, a single quote is the shell's (no escapes inside); elsewhere a backslash escapes.
    The spans in `found` are lengthened in place."""
    if "\"" not in text and "'" not in text:
        return  # (two scans in C, where a text of a million spans would have each looked at)
    size = len(text)
    # (a comprehension over the spans: a text of quoted values has one every 18 characters)
    candidates = [(span[0], index) for index, span in enumerate(found)
                  if span[3] == "secret-named value" and 0 < span[0] and span[1] < size
                  and (quote := text[span[0] - 1]) in "\"'" and (text[span[1]] != quote or text[span[1] - 1] == "\\")]
    reached = 0   # a scan that ended past a value's start ends where that value's would: each character once
    shell, rest = SHELL_SINGLE_QUOTED_REST, QUOTED_REST
    candidates.sort()
    for start, index in candidates:
        if start < reached:
            continue
        quote = text[start - 1]
        closing = 1
        if quote == '"' and text[start - 2:start - 1] == "\\":  # JSON inside JSON: closed by an escaped quote
            m, closing = ESCAPED_QUOTED_REST(text, start), 2
        else:
            m = (shell if quote == "'" and text[start - 2:start - 1] == "=" else rest[quote])(text, start)
        if m is not None:
            reached = m.end()
            span = found[index]
            if reached - closing > span[1]:
                found[index] = (start, reached - closing, span[2], span[3], span[4])


def _aws4_authorization_end(lower: str, start: int, end: int) -> int:
    """Where an `Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=HEX` value ends: at the
    quote that opened it, or the line's end (its parameters are apart by `, `, which the header's pattern stops at)."""
    line_end = lower.find("\n", end)
    line_end = len(lower) if line_end < 0 else line_end
    quote = lower[start - 1] if start else ""
    if quote in ("'", '"'):
        closing = lower.find(quote, end, line_end)
        return closing if closing >= 0 else line_end
    return line_end


def _header_tuple_spans(text: str) -> list[Span]:
    """(b'x-api-key', b'VALUE') and ('Authorization', 'VALUE') pairs whose name is a secret header's."""
    spans: list[Span] = []
    if "(" not in text:
        return spans
    for m in HEADER_TUPLE.finditer(text):
        name = m.group("name")
        if ("-" in name or "_" in name or name.lower() in HEADER_WORDS) and _secret_name_cached(name) and name.lower() not in NOT_SECRET_HEADER_NAMES:
            start, end = _quoted_value_span(m, ("sq", "dq"))
            if "_" in name and "-" not in name and text[start - 2] != "b":
                continue  # ('token_get_all', 'token_name'): code's tuple; ('api_key', b'X') a client's setting
            if _secret_value(text[start:end]):
                spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


def _terraform_sensitive_spans(text: str) -> list[Span]:
    """terraform's `"sensitive": true, "type": "string", "value": "VALUE"`: the value of the same object (the
    next "value" key before the object's "}")."""
    spans: list[Span] = []
    if not has(text, "\"sensitive\""):
        return spans
    next_value = next_close = -1
    for m in TERRAFORM_SENSITIVE.finditer(text):
        at = m.end()
        if next_value < at:  # each search starts past the last one's find: every character is read once
            found = text.find("\"value\"", at)
            next_value = len(text) if found < 0 else found
        if next_close < at:
            found = text.find("}", at)
            next_close = len(text) if found < 0 else found
        if next_value >= next_close or next_value - at > 1024:
            continue
        v = JSON_VALUE_KEY.match(text, next_value)
        if v is not None:
            start, end = _quoted_value_span(v, ("dq", "plain"))
            if v.group("dq") is not None or _secret_value(v.group("plain")):
                spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


@functools.lru_cache(maxsize=4096)
@functools.lru_cache(maxsize=1024)
def _names_token_list(name: str) -> bool:
    """A list's name that ends with a bare TOKENS (`tokens:`, `stop_tokens:`; not a secret's name: a vocabulary's tokens
    mostly): its items that are key-like (generated, hex) are credentials (`tokens: &t` then `- <key>`)."""
    return name_words(name)[-1:] == ["tokens"] and not _secret_name_cached(name)


ITEM_VERDICT_MOST_CHARS = 256   # (a longer name and value are judged each time: the memory stays small)


def _item_is_secret(name: str, value: str) -> bool:
    """An item of a list under a secret's name, judged as `name=value` on a command line (_assigned_secret_at): a
    reference, a special token, a path stay, and under a bare KEY's name (`valid_keys`, `SCHEME_KEYS`) all but a
    key-like value; under a list of TOKENS (_names_token_list) only a key-like value. Remembered per name and value
    (a log repeats its layouts: a text of them judged every item anew)."""
    if len(name) + len(value) <= ITEM_VERDICT_MOST_CHARS:
        return _item_verdict_cached(name, value)
    return _item_verdict(name, value)


def _item_verdict(name: str, value: str) -> bool:
    if _names_token_list(name):
        return looks_generated(value) or is_hex_key(value)
    if SNAKE_NAME.fullmatch(value) is not None and _secret_name_cached(value):
        return False   # compose's `secrets:\n  - hf_token`: the names of secrets, not their values
    return _assigned_secret_at(f"{name}={value}") is not None


_item_verdict_cached = functools.lru_cache(maxsize=4096)(_item_verdict)


def _name_value_table_spans(text: str) -> list[Span]:
    """PowerShell's `Get-ChildItem env:` table: a `Name  Value` header, a dashed line, then `NAME  VALUE`
    rows to the first blank line; a secret name's value goes."""
    spans: list[Span] = []
    if not has_any(text, ("Name ", "Key ")) or not has(text, "-----"):
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    for m in NAME_VALUE_TABLE.finditer(text):
        if m.start() and text[m.start() - 1] != "\n":
            continue
        offset = m.start("rows")
        for line in m.group("rows").split("\n"):
            name, gap, value = line.partition("  ")
            value = value.strip()
            if gap and value and secret_name(name) and secret_value(value):
                start = offset + line.index(value, len(name))
                spans.append((start, start + len(value), REDACTED, "secret-named value", offset))
            offset += len(line) + 1
    return spans


def _xml_element_spans(text: str) -> list[Span]:
    """<password>VALUE</password>: an element whose tag is a secret name; the element and a JSON pair of a secret name
    escaped for HTML (ESCAPED_XML_ELEMENT, ESCAPED_JSON_PAIR)."""
    spans: list[Span] = []
    found = []
    if has(text, "</"):
        found += [(m, "local") for m in XML_ELEMENT.finditer(text)]
    if has(text, "&lt;/"):
        found += [(m, "local") for m in ESCAPED_XML_ELEMENT.finditer(text)]
    if "&" in text and has_any(text, ("&quot;", "&#34;", "&#x22;", "&#39;", "&#x27;", "&apos;")):
        found += [(m, "name") for m in ESCAPED_JSON_PAIR.finditer(text)]
    for m, name in found:
        if _secret_name_cached(m.group(name)) and _secret_value(m.group("value")):
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


# Tools' own listings, the name apart from its value by blanks or dots:
# - fish's `set -x` / `set -gx` listing (`NAME VALUE`, the value quoted when it must be), its `set -gx NAME VALUE`, csh's
#   `setenv NAME VALUE`; a bare `NAME VALUE` line only when NAME is in capitals with a `_` (DB_PASSWORD), the line holds
#   nothing else and the value is quoted or looks like a password (looks_like_password: `PASSWORD_RESET sent` stays)
_LISTING_VALUE = (r"[ \t]{1,8}(?:'(?P<sq>(?:[^'\\\n]|\\[^\n]){1,4096})'|\"(?P<dq>(?:[^\"\\\n]|\\[^\n]){1,4096})\""
                  r"|(?P<bare>[^\s'\"][^\s]{0,4095}))[ \t]*(?=\r?\n|\Z)")
# (two patterns, each found fast: the commands from their literal, the bare lines from a line start in capitals; a
# command also right after a log prefix's ":", `INFO:root:set -gx NAME VALUE`)
# (fish's long options too, `set --global --export NAME X`, and a list after the value, `set -x NAME X other`)
ENV_LISTING_COMMAND = re.compile(r"set(?:(?<=^set)|(?<=[\n \t;:]set))(?:env|(?:[ \t]{1,4}-{1,2}[A-Za-z]{1,16}){1,4})[ \t]{1,4}"
                                 r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,127})"
                                 + _LISTING_VALUE.replace(r"[ \t]*(?=\r?\n|\Z)", r"(?=[ \t]|\r?\n|\Z)"))
ENV_LISTING_LINE = re.compile(r"\n[ \t]{0,8}(?P<name>[A-Z][A-Z0-9]{0,63}_[A-Z0-9_]{1,64})" + _LISTING_VALUE)
# - DeepSpeed's config print, `  comet_api_key ............... VALUE` (a name, a space, dots, a space, the value's repr
#   to the line's end), found from its dots
DOT_LEADER = re.compile(r" \.\.(?<=[A-Za-z0-9_] \.\.)\.{0,96}(?:[ \t]{0,8}[:=])? (?P<value>[^\n]{1,4096})")   # (`Password ......: X` too)
# - Windows' dotted leaders (`ipconfig /all`, `netsh`, `Get-*` as a list): `Password . . . . . . : X`, `Passphrase. . . :
#   X`; the name is the words before the dots (`Api Key . . : X`), joined as one name
SPACED_DOT_LEADER = re.compile(r"\.(?:(?<=[A-Za-z0-9_] \.)|(?<=[A-Za-z0-9_]\.))(?:[ \t]\.){1,48}[ \t]{0,8}[:=][ \t]{0,40}(?P<value>[^\s][^\n]{0,4095})")
SPACED_NAME_REVERSED = re.compile(r"[ \t]?((?:[A-Za-z0-9_-]{1,64}[ \t]){0,2}[A-Za-z0-9_-]{1,64})")
# - a label of several words aligned to its value (1Password's `op item get` fields, `describe` listings): an indented
#   `  api key:    X` line, 2+ blanks after the colon, one password-like word ending the line; the words joined as one name
#   (one word is SECRET_ASSIGNMENTS' form)
WORDS_LABEL_ALIGNED = re.compile(r"\n[ \t]{2,16}(?P<name>[A-Za-z][\w-]{0,31}(?: [A-Za-z][\w-]{0,31}){1,3}):[ \t]{2,40}"
                                 r"(?P<value>[^\s]{1,4096})[ \t]*(?=\r?\n|\Z)")
# - Rust's Debug print of an Option (TGI's launcher prints its Args so): `api_key: Some("X")`, `Some(X)`, and `{:#?}`'s
#   `api_key: Some(` then `"X",` on the next line (JSON-escaped quotes too, a log inside JSON)
RUST_SOME = re.compile(r"Some\((?<=: Some\()(?:[ \t]{0,4}\r?\n[ \t]{0,64})?(?:\\?\"(?P<dq>(?:[^\"\\\n]|\\[^\n\"]){1,4096})\\?\""
                       r"|(?P<bare>[^\s\"(),\\][^\s\"(),\\]{0,4095}))")
# - the same print without dots: an indented line of two columns, a secret's name and one word that looks like a
#   password (`  mlflow_password  X`), 2+ blanks apart, or one blank behind DeepSpeed's `:print]` prefix; a setting, a
#   word, a number, a path stay (looks_like_password)
_COLUMNS_REST = r"(?P<name>[A-Za-z_][\w.-]{0,127})(?P<gap>[ \t]{2,32})(?P<value>[^\s]{1,4096})[ \t]*(?=\r?\n|\Z)"
TWO_COLUMNS = re.compile(r"\n[ \t]{1,16}" + _COLUMNS_REST)
# ... and spark-defaults.conf's lines (`spark.hadoop.fs.s3a.secret.key    X`, a Spark property and its value apart by
#   blanks), at a line's start too
SPARK_CONF_LINE = re.compile(r"\n[ \t]{0,16}(?=spark\.)" + _COLUMNS_REST.replace("{2,32}", "{1,32}"))
PRINT_COLUMNS = re.compile(r":print\][ \t]{1,16}" + _COLUMNS_REST.replace("{2,32}", "{1,32}"))
# - Hadoop / Spark / Hive XML: `<name>fs.s3a.secret.key</name>` then `<value>X</value>`, on one line or the next
#   (a <description> between them, the value in CDATA; the <value> first and its <name> after it)
_XML_VALUE = r"(?:<!\[CDATA\[(?P<cdata>[^\]\n]{1,4096})\]\]>|(?P<value>[^<\n]{1,4096}))"
_XML_DESCRIPTION = r"(?:<description>[^<]{0,1024}</description>[ \t\r\n]{0,256})?"
HADOOP_PROPERTY = re.compile(r"<name>[ \t]{0,8}(?P<name>[^<\n]{1,256}?)[ \t]{0,8}</name>[ \t\r\n]{0,256}"
                             + _XML_DESCRIPTION + "<value>" + _XML_VALUE + "</value>")
HADOOP_PROPERTY_VALUE_FIRST = re.compile(r"<value>" + _XML_VALUE + r"</value>[ \t\r\n]{0,256}" + _XML_DESCRIPTION
                                         + r"<name>[ \t]{0,8}(?P<name>[^<\n]{1,256}?)[ \t]{0,8}</name>")
# - an element whose key= or name= attribute names a secret: its value= attribute (in any order: `<add key="ApiKey"
#   value="X"/>`, NuGet's ClearTextPassword, `<property value="X" name="..."/>`) or its text (`<entry key="db.password">X
#   </entry>`, CDATA too)
XML_NAMED_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]{0,63})(?P<attributes>[ \t](?=[^<>\n]{0,1024}?(?:key|name)[ \t]{0,2}=)"
                               r"[^<>\n]{0,1024})>(?:" + _XML_VALUE + r"</(?P=tag)>)?")
XML_ATTRIBUTE = re.compile(r"(?<![\w.:-])(?P<attribute>[A-Za-z_][\w.:-]{0,63})[ \t]{0,2}=[ \t]{0,2}"
                           r"(?:\"(?P<dq>[^\"\n]{0,4096})\"|'(?P<sq>[^'\n]{0,4096})')")
# - Spark's SparkConf.getAll() as Scala prints it: `(spark.hadoop.fs.s3a.secret.key,X)`
CONF_TUPLE = re.compile(r"\((?P<name>[A-Za-z_][\w.-]{0,255}),(?P<value>[^()\s,]{1,4096})\)")
HADOOP_NAME = re.compile(r"<name>[ \t]{0,8}([^<\n]{1,256}?)[ \t]{0,8}</name>")


_looks_like_password_cached = functools.lru_cache(maxsize=4096)(looks_like_password)  # (a listing repeats its values)


UNESCAPED_QUOTE = re.compile(r'(?<!\\)"')


def _within_its_string(text: str, at: int, value: str) -> str:
    """A value read to its line's end, cut where the JSON string it sits in ends: a dotted leader inside a log record's
    message (`{"msg": "Password . . . : X", "level": "info"}`) must not take the record's other fields with it."""
    if '"' not in value:
        return value
    line_start = text.rfind("\n", 0, at) + 1
    if len(UNESCAPED_QUOTE.findall(text, line_start, at)) % 2 == 0:
        return value   # not inside a string
    end = UNESCAPED_QUOTE.search(value)
    return value[:end.start()].rstrip() if end else value


def _leader_verdict(name: str, value: str, start: int, end: int, back: int, when: bool = True) -> tuple | None:
    """The leaders' shared tail: (start, end, the name's start back + len(name) before) where name is a secret's and
    value may be one (with when, telling no time: `Token Expiry . . : 2025-01-01`), else None."""
    if name and _secret_name_cached(name) and _secret_value(value) and not (when and tells_when(name, value)):
        return start, end, -back - len(name)
    return None


def _dot_leader_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    """A DOT_LEADER match's secret value (start, end, context; from the match's start), or None. (Reads the match and
    its line before it: the name, 64 characters back at most, stops at a line break; a string's quotes from the line's
    start.)"""
    text, at = m.string, m.start()
    value = _within_its_string(text, at, m.group("value").rstrip())
    value_start = m.start("value") - at
    return _leader_verdict(_name_before(text, at, at), value, value_start, value_start + len(value), 0)


def _spaced_dot_leader_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    """The same for SPACED_DOT_LEADER (its words read back 195 characters at most, to the line's start)."""
    text, at = m.string, m.start()
    words = SPACED_NAME_REVERSED.match(text[max(0, at - 200):at][::-1])
    name = words.group(1)[::-1].replace(" ", "_").replace("\t", "_") if words else ""
    value = _within_its_string(text, at, m.group("value").rstrip())
    value_start = m.start("value") - at
    return _leader_verdict(name, value, value_start, value_start + len(value), 0)


def _rust_some_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    """The same for RUST_SOME (the name before `: Some(`, 64 characters back at most, to the line's start)."""
    at, group = m.start(), "dq" if m.group("dq") is not None else "bare"
    name = _name_before(m.string, at - 2, at - 2)
    return _leader_verdict(name, m.group(group), m.start(group) - at, m.end(group) - at, 2, when=False)


def _tool_listing_spans(text: str) -> list[Span]:
    """Values of secret names in fish / csh environment listings, DeepSpeed's config print and Hadoop XML (above)."""
    spans: list[Span] = []
    blanks = " " in text or "\t" in text
    newline_first = "\n" + text if blanks else ""   # (the line patterns start at a "\n": the first line has one too)
    if blanks:
        for shift, pattern, lined in ((1, ENV_LISTING_LINE, newline_first), (0, ENV_LISTING_COMMAND, text)):
            for m in pattern.finditer(lined):
                if not _secret_name_cached(m.group("name")):
                    continue
                group = "sq" if m.group("sq") is not None else "dq" if m.group("dq") is not None else "bare"
                start, end = m.start(group) - shift, m.end(group) - shift
                value = text[start:end]
                if _secret_value(value) and (pattern is ENV_LISTING_COMMAND or group != "bare"
                                             or _looks_like_password_cached(value)):
                    spans.append((start, end, REDACTED, "secret-named value", max(0, m.start() - shift)))
    if has(text, " .."):   # (each verdict reads the match and its line before it: judged once a line head and match)
        spans += each_line_match_judged_once(text, DOT_LEADER.finditer(text), _dot_leader_verdict)
    if blanks and ":  " in text:
        for m in WORDS_LABEL_ALIGNED.finditer(newline_first):
            value = m.group("value")
            if (_secret_name_cached(m.group("name").replace(" ", "_")) and _looks_like_password_cached(value)
                    and _item_is_secret(m.group("name").replace(" ", "_"), value)):
                spans.append((m.start("value") - 1, m.end("value") - 1, REDACTED, "secret-named value",
                              max(0, m.start() - 1)))
    if ". ." in text:
        spans += each_line_match_judged_once(text, SPACED_DOT_LEADER.finditer(text), _spaced_dot_leader_verdict)
    if "(" in text and "Some(" in text:   # (a character first: memchr)
        spans += each_line_match_judged_once(text, RUST_SOME.finditer(text), _rust_some_verdict)
    for shift, pattern, lined in ((1, TWO_COLUMNS, newline_first),
                                  (0, PRINT_COLUMNS, text if has(text, ":print]") else ""),
                                  (1, SPARK_CONF_LINE, newline_first if "spark." in text else "")):
        for m in pattern.finditer(lined):
            value = m.group("value")
            if (_secret_name_cached(m.group("name")) and _looks_like_password_cached(value)
                    and _item_is_secret(m.group("name"), value)):
                spans.append((m.start("value") - shift, m.end("value") - shift, REDACTED, "secret-named value",
                              max(0, m.start() - shift)))
    if has(text, "<name>"):
        patterns = (HADOOP_PROPERTY, HADOOP_PROPERTY_VALUE_FIRST) if has(text, "<value>") else (HADOOP_PROPERTY,)
        for pattern in patterns:
            for m in pattern.finditer(text):
                group = "value" if m.group("value") is not None else "cdata"
                if _secret_name_cached(m.group("name")) and _secret_value(m.group(group)):
                    spans.append((m.start(group), m.end(group), REDACTED, "secret-named value", m.start()))
    if "=" in text and "<" in text:
        spans += _xml_named_element_spans(text)
    if "|" in text or (not text.isascii() and any(bar in text for bar in BOX_BARS)) or has_any(text, ("CREDENTIALS\t", "eyName")):
        spans += _cloud_cli_spans(text)
    if "," in text and "(" in text:
        for m in CONF_TUPLE.finditer(text):
            if _secret_name_cached(m.group("name")) and _item_is_secret(m.group("name"), m.group("value")):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


# Cloud CLIs' printed credentials (rt8 L1 L3 L5): a table row of two cells, a secret's name and a password-like value
# (`aws ... --output table`'s `||  SecretAccessKey |  X  ||`, secretsmanager's SecretString, `ngc config current`'s
# `| apikey | X |`); `aws ... --output text`'s CREDENTIALS line (its SecretAccessKey and SessionToken fields);
# `az storage account keys list`: the value beside a keyName in JSON, the Value column of its table. (A flag in the name
# cell: a launcher's args printed as a table, `| --api-key | X |`.)
# (behind a log prefix: `[rank0]: | token | X |`, `... INFO | token | X |`; a bar after a digit and a blank is a progress
# line's, `1200/5000 | consumed ...`, and is not read; an indented row is, `    | db_password | X |`, and a spaced name)
PIPE_ROW = re.compile(r"\|(?:(?<=^\|)|(?<=[\n|]\|)|(?<=[\]:\n ] \|)|(?<=\t\|)|(?<=INFO \|)|(?<=WARN \|)|(?<=NING \|)|(?<=ERROR \|)|(?<=DEBUG \|)|(?<=^ \|))[ \t]{0,8}(?P<name>(?:--?)?[A-Za-z_][\w.-]{0,63}(?: [A-Za-z_][\w.-]{0,31}){0,2})[ \t]{0,64}\|[ \t]{0,8}"
                      r"(?:(?P<value>[^|\s]{1,4096})[ \t]{0,256}\|{1,2}(?=[ \t]*(?:\r?\n|\Z)|[^\n]{0,4096}\|[ \t]*(?:\r?\n|\Z))"
                      r"|(?=[ \t]*\r?(?:\n|\Z)))")   # (or the row's one cell: `| q7Lm2Xk9...Ko4 |`, its name group the cell)
# (rich's and other box-drawing tables: `│ password       │ X │`, the row indented or behind a log prefix, more cells
# after it, rich's heavy and double bars `┃`, `║`; every bar tried as a row's first: the match is the bar alone)
BOX_BARS = "\u2502\u2503\u2551"
BOX_ROW = re.compile(r"[\u2502\u2503\u2551](?=[ \t]{0,8}(?P<name>(?:--?)?[A-Za-z_][\w.-]{0,63})[ \t]{0,64}[\u2502\u2503\u2551][ \t]{0,8}"
                     r"(?P<value>[^\u2502\u2503\u2551\s]{1,4096})[ \t]{0,256}[\u2502\u2503\u2551])")
# (a box's cell holding nothing but a generated value of 40 characters or more, whatever the cell beside it says:
# `│ q7Lm2Xk9...Ko4 │`; the closing bar looked at, not taken, so the next cell is read too; letters, digits and `_`
# alone: a framed certificate's base64 lines are no secret, and a text with a BEGIN line is not read so)
BOX_CELL_TOKEN = re.compile(r"[\u2502\u2503\u2551][ \t]{0,8}(?P<value>[A-Za-z0-9_]{40,256})(?=[ \t]{0,256}[\u2502\u2503\u2551])")
BOX_CELL_VALUE = re.compile(r"[A-Za-z0-9_]{40,256}")
AWS_TEXT_CREDENTIALS = re.compile(r"CREDENTIALS\t[^\t\n]{1,256}\t[^\t\n]{1,64}\t(?P<secret>[^\t\n]{1,4096})\t(?P<token>[^\t\n]{1,8192})")
AZ_KEY_JSON = re.compile(r"\"keyName\"[ \t]{0,4}:[ \t]{0,4}\"[^\"\n]{0,64}\"[^{}]{0,512}?\"value\"[ \t]{0,4}:[ \t]{0,4}"
                         r"\"(?P<value>[^\"\n]{8,4096})\"")
AZ_KEYS_TABLE = re.compile(r"KeyName {2,64}Permissions {2,64}Value[ \t]{0,8}\r?\n-{3,64}(?: {2,64}-{3,256}){2}[ \t]{0,8}\r?\n"
                           r"(?P<rows>(?:[^\n]+(?:\n|\Z)){0,16})")


# `az keyvault secret show ... -o table`: under its header and the dashes, the row's cell in the Value column
AZ_SECRET_TABLE_COMMAND = re.compile(r"keyvault[ \t]{1,4}secret[ \t]{1,4}show[ \t](?=[^\n]{0,300}(?:-o|--output)[ \t=]{1,4}table)"
                                     r"[^\n]{0,300}\r?\n")
AZ_SECRET_TABLE = re.compile(AZ_SECRET_TABLE_COMMAND.pattern + r"(?P<header>[^\n]{0,512}?(?<![^ \t:\]])Value(?![^ \t\r\n])[^\n]{0,512})\n"
                             r"(?P<rule>[^\n]{0,256}?-{2,}(?:[ \t]{1,8}-{2,}){0,16}[ \t]{0,8}\r?)\n(?P<row>[^\n]{1,8192})")
AZ_TABLE_LINES = 3   # the header, the dashes and the row after the command


def az_secret_table_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds `az keyvault secret show -o table` until its row has come (AZ_TABLE_LINES lines after
    it): the command's line start; `end` where there is none."""
    at = text.rfind("keyvault", max(0, end - 2048), end)
    if at < 0:
        return end
    line_start = text.rfind("\n", 0, at) + 1
    if AZ_SECRET_TABLE_COMMAND.match(text, at) is None or text.count("\n", at, end) > AZ_TABLE_LINES:
        return end
    return line_start


def az_secret_table_spans(text: str) -> list[Span]:
    """The Value cell of `az keyvault secret show -o table`'s row (AZ_SECRET_TABLE); read where the text holds `secret`
    (Redactor._printed_form_spans' words)."""
    spans: list[Span] = []
    if not has(text, "keyvault"):
        return spans
    for m in AZ_SECRET_TABLE.finditer(text):
        header, rule, row = m.group("header"), m.group("rule").rstrip("\r"), m.group("row").rstrip("\r")
        column = header.rfind("Value")
        if rule[column:column + 2] != "--" or len(row) <= column:
            continue   # (the column's dashes start under its name)
        cell_end = row.find("  ", column)
        cell = row[column:cell_end if cell_end >= 0 else len(row)].strip()
        if cell and _secret_value(cell) and not cannot_be_secret(cell.strip("()<>")):   # (`(none)`: no value)
            first = m.start("row") + row.index(cell, column)
            spans.append((first, first + len(cell), REDACTED, "secret-named value", m.start()))
    return spans


_looks_generated_cached = functools.lru_cache(maxsize=4096)(looks_generated)   # (a table repeats its cells)


def _cloud_cli_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    if "|" in text:
        for m in PIPE_ROW.finditer(text):
            value = m.group("value")
            # (a generated value alone in a cell, whatever the cell beside it says, as BOX_CELL_TOKEN reads a box's: the
            # row's one cell is its name group)
            cell = "value" if value is not None else "name"
            if len(m.group(cell)) >= 40 and BOX_CELL_VALUE.fullmatch(m.group(cell)) and _looks_generated_cached(m.group(cell)):
                spans.append((m.start(cell), m.end(cell), REDACTED, "generated value", m.start()))
            if value is None:
                continue
            if text[m.start() - 1:m.start()] in (" ", "\t") and text.rfind("|", text.rfind("\n", 0, m.start()) + 1,
                                                                           m.start()) >= 0:
                continue   # (a row behind a log prefix starts at the line's first bar: not a cell in the middle)
            if _secret_name_cached(m.group("name").replace(" ", "_")) and _looks_like_password_cached(value) and _secret_value(value):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    boxed = not text.isascii() and any(bar in text for bar in BOX_BARS)
    if boxed:
        for m in BOX_ROW.finditer(text):
            value = m.group("value")
            if (_secret_name_cached(m.group("name")) and _looks_like_password_cached(value) and _secret_value(value)
                    and _item_is_secret(m.group("name").lstrip("-"), value)):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    if boxed and not has(text, "-----BEGIN"):
        spans += [(m.start("value"), m.end("value"), REDACTED, "generated value", m.start())
                  for m in BOX_CELL_TOKEN.finditer(text) if _looks_generated_cached(m.group("value"))]
    if has(text, "CREDENTIALS\t"):
        spans += [(m.start(group), m.end(group), REDACTED, "secret-named value", m.start())
                  for m in AWS_TEXT_CREDENTIALS.finditer(text) for group in ("secret", "token")]
    if has(text, "keyName"):
        spans += [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                  for m in AZ_KEY_JSON.finditer(text)]
    if has(text, "KeyName "):
        for m in AZ_KEYS_TABLE.finditer(text):
            offset = m.start("rows")
            for line in m.group("rows").split("\n"):
                fields = line.split()
                if len(fields) >= 3 and len(fields[-1]) >= 16:
                    start = offset + line.rindex(fields[-1])
                    spans.append((start, start + len(fields[-1]), REDACTED, "secret-named value", m.start()))
                offset += len(line) + 1
    return spans


def _xml_named_element_spans(text: str) -> list[Span]:
    """The value= attribute or the text of an element whose key= or name= attribute names a secret."""
    spans: list[Span] = []
    for m in XML_NAMED_ELEMENT.finditer(text):
        attributes = {a.group("attribute").lower(): a for a in XML_ATTRIBUTE.finditer(m.group("attributes"))}
        named = attributes.get("key") or attributes.get("name")
        if named is None or not _secret_name_cached(named.group("dq") if named.group("dq") is not None else named.group("sq")):
            continue
        at = m.start("attributes")
        if (value := attributes.get("value")) is not None:
            group = "dq" if value.group("dq") is not None else "sq"
            if _secret_value(value.group(group)):
                spans.append((at + value.start(group), at + value.end(group), REDACTED, "secret-named value", m.start()))
        group = "value" if m.group("value") is not None else "cdata" if m.group("cdata") is not None else None
        if group is not None and _secret_value(m.group(group)):
            spans.append((m.start(group), m.end(group), REDACTED, "secret-named value", m.start()))
    return spans


@functools.lru_cache(maxsize=8192)
def _data_value_is_secret(kind: str, value: str) -> bool:
    """A value in a Kubernetes Secret's data block: base64 of printable text (a password, a URL, a config
    JSON, a PEM key) or a long base64 run (a keystore); in stringData any value that can be a secret."""
    value = value.strip().strip("'\"").strip()
    if kind == "stringdata":
        return value not in ("|", ">", "|-", ">-", "|+", ">+") and _secret_value(value)
    if len(value) < 8:
        return False
    return _base64_text(value) is not None or (len(value) >= 64 and BASE64_TEXT.fullmatch(value) is not None
                                                and len(value) % 4 == 0)


def _json_data_block_kind(text: str, at: int) -> str | None:
    """Which data block a found `ata": {` belongs to, from the characters before it: "data" or
    "stringData" ("binaryData", a ConfigMap's, is not secret)."""
    if text.startswith("\"d", at - 2):
        return "data"
    return "stringdata" if text.startswith("\"stringD", at - 8) else None


def _yaml_data_block_spans(text: str) -> list[Span]:
    """`data:` / `stringData:` and the lines indented under it (a Secret as kubectl -o yaml prints it)."""
    spans: list[Span] = []
    if not has(text, "ata:"):
        return spans
    return each_block_judged_once(DATA_BLOCK_YAML.finditer(text), _data_block_key, _data_block_places, "body", 0,
                                  "kubernetes secret data")   # (a body is read once a call: a log repeats its blocks)


def _data_block_key(m: re.Match[str]) -> tuple[str, str]:
    return "stringdata" if m.group("key")[0] == "s" else "data", m.group("body")


def _data_block_places(kind: str, body: str) -> list[tuple[int, int]]:
    """The places of the secret values in a `data:` block's body (from its start)."""
    places: list[tuple[int, int]] = []
    offset = 0
    for line in body.split("\n"):  # `  key: value` lines (and deeper ones, read alike)
        key, colon, value = line.partition(": ")
        if colon and _data_value_is_secret(kind, value.strip()):
            places.append((offset + len(key) + 2 + len(value) - len(value.lstrip()), offset + len(line.rstrip())))
        offset += len(line) + 1
    return places


def _json_data_block_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    done = 0
    for m in DATA_BLOCK_JSON.finditer(text):
        at = m.start()
        if at < done:
            continue
        kind = _json_data_block_kind(text, at)
        if kind is None:
            continue
        limit = m.end()   # the block is read over PRINTED_FORM_HOLD_LINES lines at most, as a stream holds it
        for _ in range(PRINTED_FORM_HOLD_LINES - 2):
            limit = text.find("\n", limit) + 1
            if not limit:
                limit = len(text)
                break
        close = text.find("}", m.end(), limit)
        close = limit if close < 0 else close
        for item in DATA_JSON_ITEM.finditer(text, m.end(), close):
            if _data_value_is_secret(kind, item.group("value")):
                spans.append((item.start("value"), item.end("value"), REDACTED, "kubernetes secret data", at))
        done = close
    return spans



PRINTED_FORM_HOLD_LINES = 64     # lines a stream holds back after one that opens a form read over lines


# A .pgpass line, host:port:database:user:password (port a number or *), printed whole: found from the colon
# after its host (a literal), the host checked in code; exactly five fields, so an IPv6 address or a time is none.
PGPASS_PORT = re.compile(r":[0-9]{1,5}:[^\s:]")
PGPASS_LINE = re.compile(r":(?:[0-9]{1,5}|\*):[^\s:]{1,256}:[^\s:]{1,256}:(?P<value>[^\s:'\"]{4,512})(?![^\s'\"])")
PGPASS_HOST_REVERSED = re.compile(r"[A-Za-z0-9_.*\]\[-]{1,253}(?=[\s=\"']|\Z)")


def _pgpass_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    at = 0
    for m in PGPASS_LINE.finditer(text):
        start = m.start()
        low = max(at, start - 254)   # (never further back than the last line found: linear)
        host = PGPASS_HOST_REVERSED.match(text[low:start][::-1])
        if host is None or (host.end() == start - low and low > 0) or host.group().isdigit():
            continue  # no host, or one that does not start at a word's start, or digits (`1234:5678:...:6745A1B2`, an id)
        if cannot_be_secret(m.group("value")):
            continue
        spans.append((m.start("value"), m.end("value"), REDACTED, "pgpass password", start - host.end()))
        at = m.end()
    return spans


# Name/value pairs in the other order or under other keys: a Kubernetes env item with its value first
# (`- value: X\n  name: DB_PASSWORD`, `{"value": "X", "name": "DB_PASSWORD"}`: the name the next key of the same
# item, never after a new `- `), CloudFormation's `ParameterKey`/`ParameterValue` (JSON, or the CLI's
# `ParameterKey=K,ParameterValue=X`), an SSM parameter of Type SecureString (`"Type": "SecureString", "Value": "X"`, in
# either order inside one object).
ENV_ITEM_VALUE_FIRST = re.compile(r"alue(?<=[Vv]alue)(?<![A-Za-z0-9_][Vv]alue)[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                                  r"(?:\"(?P<dq>[^\"\\\n]{1,4096})\"|'(?P<sq>[^'\n]{1,4096})'"
                                  r"|(?P<plain>[^\s\"'#,{}\[\]|>&*!][^\s,}]{0,4095}))"
                                  r"[ \t]{0,4}(?:,[ \t]{0,4}|,?[ \t]{0,4}\r?\n[ \t]{0,64})"
                                  r"[\"']?[Nn]ame[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})"
                                  r"[\"']?(?![A-Za-z0-9_.-])")
CFN_PARAMETER = re.compile(r"ParameterKey[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?(?P<name>[A-Za-z0-9_.-]{1,255})[\"']?"
                           r"[ \t]{0,4}(?:,[ \t\r\n]{0,64}|\r?\n[ \t]{0,64})[\"']?ParameterValue[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                           r"(?:\"(?P<dq>[^\"\\\n]{1,4096})\"|(?P<plain>[^\s,\"'}\]]{1,4096}))")
SECURE_STRING_VALUE = re.compile(r"\"Type\"[ \t]{0,3}:[ \t]{0,3}\"SecureString\"[^{}]{0,512}?\"Value\"[ \t]{0,3}:[ \t]{0,3}"
                                 r"\"(?P<after>[^\"\\\n]{1,4096})\""
                                 r"|\"Value\"[ \t]{0,3}:[ \t]{0,3}\"(?P<before>[^\"\\\n]{1,4096})\"[^{}]{0,512}?"
                                 r"\"Type\"[ \t]{0,3}:[ \t]{0,3}\"SecureString\"")
# (SSM's other outputs: `--output yaml`'s `Type: SecureString` then `Value: X` a few keys below; `--output text`'s
# `PARAMETER\t...\tSecureString\tX\t3`; `aws iam create-access-key --output text`'s `ACCESSKEY\tAKIA..\tDATE\tX\tActive`)
SECURE_STRING_OTHER = re.compile(r"Type:[ \t]{1,4}SecureString[ \t]*\r?\n(?:[ \t]{0,64}[A-Za-z]{1,32}:[^\n]{0,512}\r?\n){0,8}?"
                                 r"[ \t]{0,64}Value:[ \t]{1,4}(?P<yaml>[^\s]{1,4096})|\tSecureString\t(?P<text>[^\t\n]{1,4096})\t")
IAM_ACCESS_KEY_TEXT = re.compile(r"ACCESSKEY\t[^\t\n]{1,64}\t[^\t\n]{0,64}\t(?P<secret>[^\t\n]{8,4096})\t(?:Active|Inactive)")
NEXT_LINE_VALUE = re.compile(r"[ \t]{0,16}[\"']?(?P<value>[^\s'\",;]{3,})")
BASE64_WORD = re.compile(r"(?:[A-Za-z0-9+/]{4}){1,4096}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
# (gcloud's help wraps a command over lines: `--out-file=/tmp/secret` under it goes on with the command, no value)
CONTINUED_FLAG = re.compile(r"--[a-z][a-z0-9-]{1,40}(?:=[^\s]{0,256})?")
TRACED_ASSIGNMENT = re.compile(r"[^\n+]{0,120}?\++[ \t](?:(?:export|declare[ \t]-x|local|readonly)[ \t])?[A-Za-z_]\w{0,127}="
                               r"['\"]?(?P<value>[^\s'\"]{3,})['\"]?[ \t]*(?:\r?\n|\Z)")
ALONE_ON_ITS_LINE = re.compile(r"['\"]?[ \t]*(?:\r?\n|\Z)")


# Terraform's `variable "db_password" {` then `default = "X"` in its block
TERRAFORM_VARIABLE_DEFAULT = re.compile(r"variable[ \t]{1,4}\"(?P<name>[A-Za-z0-9_-]{1,128})\"[ \t]{0,4}\{[^{}]{0,2048}?"
                                        r"\bdefault[ \t]{0,16}=[ \t]{0,16}\"(?P<value>[^\"\\\n]{1,4096})\"")


def _reordered_pair_spans(text: str) -> list[Span]:
    """Values named apart in the orders above; each pattern runs only where its literal is in the text."""
    spans: list[Span] = []
    if has(text, "alue") and has(text, "ame"):
        for m in ENV_ITEM_VALUE_FIRST.finditer(text):
            group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "plain"
            if _secret_name_cached(m.group("name")) and _secret_value(m.group(group)):
                spans.append((*m.span(group), REDACTED, "secret-named value", m.start()))
    if has(text, "ParameterKey"):
        for m in CFN_PARAMETER.finditer(text):
            group = "dq" if m.group("dq") is not None else "plain"
            if _secret_name_cached(m.group("name")) and _secret_value(m.group(group)):
                spans.append((*m.span(group), REDACTED, "secret-named value", m.start()))
    if has(text, "SecureString"):
        for m in SECURE_STRING_VALUE.finditer(text):
            group = "after" if m.group("after") is not None else "before"
            if _secret_value(m.group(group)):
                spans.append((*m.span(group), REDACTED, "secret-named value", m.start()))
        for m in SECURE_STRING_OTHER.finditer(text):
            group = "yaml" if m.group("yaml") is not None else "text"
            if _secret_value(m.group(group)):
                spans.append((*m.span(group), REDACTED, "secret-named value", m.start()))
    if '"' in text and 'variable "' in text:   # (a character first: memchr)
        for m in TERRAFORM_VARIABLE_DEFAULT.finditer(text):
            if _secret_name_cached(m.group("name")) and _secret_value(m.group("value")):
                spans.append((*m.span("value"), REDACTED, "secret-named value", m.start()))
    if "\t" in text and "ACCESSKEY\t" in text:
        spans += [(*m.span("secret"), REDACTED, "secret-named value", m.start()) for m in IAM_ACCESS_KEY_TEXT.finditer(text)]
    return spans


def _pass_folder_listing(text: str, tail: str, m: re.Match[str]) -> bool:
    """Whether the word after `pass show X` is the folder X that pass prints before its tree (`prod`, then `└── db`)."""
    words = tail.split()
    if words and m.group("value").lower().rstrip("/") == words[-1].strip("'\"").rstrip("/").rsplit("/", 1)[-1]:
        return True
    newline = text.find("\n", m.end())
    return newline >= 0 and text[newline + 1:newline + 65].lstrip(" \t|`").startswith(("\u251c", "\u2514"))


def op_json_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds the JSON `op item get --format json` prints while it is still open at end (the line
    text[start:end] is its last one so far): the command's line start; `end` where there is none."""
    at = text.rfind("op item", max(0, end - 8192), end)   # (OP_JSON_LINES lines of 128 characters)
    if at < 0:
        return end
    line_start = text.rfind("\n", 0, at) + 1
    newline = text.find("\n", at, end)
    if newline < 0 or newline + 1 >= end:
        return end   # (the command's line is the last: VALUE_ON_NEXT_LINE holds it)
    tail = text[max(line_start, newline + 1 - 120):newline + 1].lower()
    if OP_JSON_FORMAT.search(tail) is None or KUBECTL_SECRET_LINE.search(tail) is None:
        return end
    block_end, closed = op_json_block_lines(text, newline + 1)
    return line_start if block_end >= end and not (closed and block_end == end) else end


PASS_COMMAND = re.compile(r"pass (?:(?<![\w-]pass )|(?<=gopass ))")   # (not `sshpass `, `bypass `)


def _pass_command_at(lower: str, start: int) -> int:
    """Where the next `pass ` that is pass's or gopass's command word is, from start; -1 where none is."""
    m = PASS_COMMAND.search(lower, start)
    return m.start() if m is not None else -1


def _prints_secret_variable(tail: str) -> bool:
    """A line that ends with `printenv NAME` or `echo $NAME` of a secret-named variable (is_secret_name)."""
    m = PRINTED_ENV_NAME.search(tail)
    return m is not None and _secret_name_cached(m.group("name"))


def _prefix_again(text: str, at: int, next_start: int) -> int:
    """The length of the prefix a command's line (the command at `at`) and the next line start with, where it holds a
    word (`n1: `, `trainer-0 main `, `[pod/x/main] `: a launcher's or log's, repeated; not the value after it, nor a
    prompt's `$ ` alone): their common start up to its last blank, `:` or `]`; 0 where none."""
    line_start = text.rfind("\n", 0, at) + 1
    if at == line_start:
        return 0
    head = text[line_start:at]
    common = os.path.commonprefix([head, text[next_start:next_start + len(head)]])
    common = common[:max(common.rfind(" "), common.rfind("\t"), common.rfind(":"), common.rfind("]")) + 1]
    return len(common) if any(c.isalnum() for c in common) else 0


# A command substitution whose output a variable takes (`HF_TOKEN=$(`, `export X="$(`, a backquote): nothing is printed
ASSIGNED_SUBSTITUTION = re.compile(r"(?<![a-z0-9_])[a-z_][a-z0-9_]{0,127}=[\"']?(?:\$\(|`)[^()`\n]{0,512}\Z")


def _two_lines_value(text: str, lower: str, literal: str, at: int, line_start: int, newline: int, tail: str,
                     values: dict) -> tuple[int, int] | None:
    """_kubectl_secret_spans' value after a store's print at `at` (not `op item`'s nor `pass`'s, which read further):
    where the print's line and the next are of one source or of none (same_source_line reads no further), the verdict
    reads those two lines only, and is kept in values by their text and at's place for the copies a log repeats."""
    next_end = text.find("\n", newline + 1)
    next_end = len(text) if next_end < 0 else next_end + 1
    key = (literal, at - line_start, text[line_start:next_end], lower[line_start:next_end])
    if (found := values.get(key, False)) is not False:
        return None if found is None else (at + found[0], at + found[1])
    place = None
    value_line = same_source_line(text, line_start, newline + 1)
    if not ASSIGNED_SUBSTITUTION.search(lower, max(line_start, at - 640), at):
        m = NEXT_LINE_VALUE.match(text, value_line + _prefix_again(text, at, value_line))
        if (m and text.find("\n", value_line, m.end()) < 0 and not cannot_be_secret(m.group("value"))
                and CONTINUED_FLAG.fullmatch(m.group("value")) is None
                and (ALONE_ON_ITS_LINE.match(text, m.end()) is not None if literal != "kubectl"
                     else "base64" in tail or "template" not in tail and "jsonpath" not in tail
                     or BASE64_WORD.fullmatch(m.group("value")) is not None)):
            place = m.span("value")
        elif literal == "cat " and "++" in tail and (m := TRACED_ASSIGNMENT.match(text, newline + 1)):
            place = m.span("value")
    if value_line == newline + 1 and (newline + 1 >= len(text) or not (source := line_source(text, newline + 1, next_end))
                                      or line_source(text, line_start, newline + 1) in ("", source)):
        values[key] = None if place is None else (place[0] - at, place[1] - at)
    return place


def _kubectl_secret_spans(text: str, lower: str) -> list[Span]:
    """The value on the line after a printed `kubectl get secret ... | base64 -d` or another store's print of a secret
    (KUBECTL_SECRET_LINE, read as a stream reads a piece's last line: its last 120 characters), as the stream's
    value_next takes it."""
    spans: list[Span] = []
    read: set[int] = set()   # (the lines already read: one may hold two of the literals)
    prints: dict[str, bool] = {}   # a line's tail -> whether it is a store's print (a log repeats its commands)
    values: dict[tuple, tuple[int, int] | None] = {}   # a print's two lines -> its value's place (_two_lines_value)
    for literal in SECRET_PRINT_LITERALS:
        if not has(lower, literal):   # (a character first: most texts lack most literals)
            continue
        find = _pass_command_at if literal == "pass " else lower.find   # (`sshpass -p`: no store's command)
        at = find(literal) if literal != "pass " else find(lower, 0)
        while at >= 0:
            newline = lower.find("\n", at)
            if newline < 0:
                break
            if newline not in read:
                read.add(newline)
                line_start = lower.rfind("\n", 0, at) + 1
                tail = lower[max(line_start, newline + 1 - 120):newline + 1]
                if (printed := prints.get(tail)) is None:
                    printed = prints[tail] = KUBECTL_SECRET_LINE.search(tail) is not None and (
                        literal not in ("printenv", "echo ", "print(os.") or _prints_secret_variable(tail))
                if printed and literal != "op item" and literal != "pass ":
                    if (place := _two_lines_value(text, lower, literal, at, line_start, newline, tail, values)) is not None:
                        spans.append((place[0], place[1], REDACTED, "secret-named value", at))
                elif printed and ASSIGNED_SUBSTITUTION.search(lower, max(line_start, at - 640), at):
                    pass   # `export HF_TOKEN=$(gcloud secrets versions access ...)`: the value went to the variable
                elif printed:
                    if literal == "op item" and OP_JSON_FORMAT.search(tail) is not None:
                        spans += _op_json_spans(text, newline + 1, at)
                        at = lower.find(literal, newline)
                        continue
                    if literal == "op item" and (listed := OP_FIELD_LIST.search(tail)) is not None:
                        spans += _op_field_list_spans(text, newline + 1, listed.group("fields"), at)
                        at = lower.find(literal, newline)
                        continue
                    value_line = same_source_line(text, text.rfind("\n", 0, at) + 1, newline + 1)
                    m = NEXT_LINE_VALUE.match(text, value_line + _prefix_again(text, at, value_line))
                    if (m and text.find("\n", value_line, m.end()) < 0 and not cannot_be_secret(m.group("value"))
                            and CONTINUED_FLAG.fullmatch(m.group("value")) is None
                            and (ALONE_ON_ITS_LINE.match(text, m.end()) is not None if literal != "kubectl"
                                 else "base64" in tail or "template" not in tail and "jsonpath" not in tail
                                 or BASE64_WORD.fullmatch(m.group("value")) is not None)
                            and (literal != "pass " or not _pass_folder_listing(text, tail, m))):
                        # (kubectl's jsonpath without `| base64 -d` prints base64: `secret/x created` after it stays)
                        # (the other stores' value is the line's only word: an error line after the command stays)
                        spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", at))
                    elif literal == "cat " and "++" in tail and (m := TRACED_ASSIGNMENT.match(text, newline + 1)):
                        # (bash -x: `++ cat /run/secrets/x` inside `HF=$(cat ...)`, then `+ HF=X`: X is the print)
                        spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", at))
            at = lower.find(literal, newline) if literal != "pass " else find(lower, newline)
    return spans
