"""1Password's `op item get ... --reveal` prints: the fields' values on one line (`--fields a,b`) or as JSON over lines
(`--format json`), each value a secret unless its field names a user, a host or a title (layouts._kubectl_secret_spans
reads them after the command's line)."""

from __future__ import annotations

import re

from .names import cannot_be_secret
from .spans import REDACTED, Span


# `op item get X --fields username,password --reveal` prints the fields' values on one line, joined by commas in the
# order asked (`alice,X`); each field may be named `label=F` (lower-cased text)
OP_FIELD_LIST = re.compile(r"--fields?[ \t=]{1,4}['\"]?(?P<fields>[^\s'\",]{1,64}(?:,[^\s'\",]{1,64}){1,31})")
OP_PLAIN_FIELD = re.compile(r"(?:label=|type=)?(?:username|user|user_?name|login|email|e-mail|url|website|host|hostname"
                            r"|server|port|database|title|type|notesplain|notes)")


# ... and with `--format json`, each field an object over lines (`"label": "password",` then `"value": "X"`; a list of
# them for more than one field), as 1Password prints it
OP_JSON_FORMAT = re.compile(r"--format[ \t=]{1,4}['\"]?json")
OP_JSON_MEMBER = re.compile(r"[ \t]{0,16}\"(?P<key>[a-z_]{1,32})\"[ \t]{0,4}:[ \t]{0,4}\"(?P<value>(?:[^\"\\\n]|\\.){0,4096})\"")
OP_PLAIN_PURPOSES = frozenset({"USERNAME", "NOTES"})
OP_JSON_LINES = 64   # lines of the print read (PRINTED_FORM_HOLD_LINES: what a stream holds back)


def op_json_block_lines(text: str, start: int) -> tuple[int, bool]:
    """Where the JSON that `op item get --format json` printed from start ends (the line after its closing `}` or
    `]` at the line's start), OP_JSON_LINES lines at most, and whether it closed there."""
    at = start
    for _ in range(OP_JSON_LINES):
        newline = text.find("\n", at)
        if newline < 0:
            return len(text), False
        line = text[at:newline].rstrip("\r")
        at = newline + 1
        if line in ("}", "]"):   # (at the line's start: an object of the list closes indented)
            return at, True
    return at, True


def _op_json_spans(text: str, start: int, context: int) -> list[Span]:
    """The secret fields' values in the JSON `op item get --fields F --reveal --format json` printed from start: each
    object's `value` unless its label or id is a user name, a host or a title (OP_PLAIN_FIELD) or its purpose USERNAME."""
    end, _ = op_json_block_lines(text, start)
    spans: list[Span] = []
    members: dict[str, str] = {}
    value = None
    at = start
    while at < end:
        newline = text.find("\n", at, end)
        newline = end if newline < 0 else newline
        m = OP_JSON_MEMBER.match(text, at, newline)
        if m is not None:
            if m.group("key") == "value":
                value = m.span("value")
            else:
                members[m.group("key")] = m.group("value")
        if m is None and "}" in text[at:newline] or newline >= end:   # an object ends: its value judged
            plain = (any(OP_PLAIN_FIELD.fullmatch(members.get(k, "").lower()) for k in ("label", "id"))
                     or members.get("purpose") in OP_PLAIN_PURPOSES)
            if value is not None and value[1] > value[0] and not plain and not cannot_be_secret(text[value[0]:value[1]]):
                spans.append((*value, REDACTED, "secret-named value", context))
            members, value = {}, None
        at = newline + 1
    return spans


def _op_field_list_spans(text: str, start: int, fields: str, context: int) -> list[Span]:
    """The secret fields' values in the line `op item get --fields A,B --reveal` printed at start (a field that is
    no user name, host or title: OP_PLAIN_FIELD)."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    line = text[start:end].rstrip("\r")
    names = fields.split(",")
    values = line.split(",")
    if len(values) != len(names):   # (a value with a comma in it, or no such print: the line is not read)
        return []
    spans: list[Span] = []
    at = start
    for name, value in zip(names, values):
        bare = value.strip(" \t")
        if bare and not OP_PLAIN_FIELD.fullmatch(name) and not cannot_be_secret(bare):
            first = at + value.index(bare)
            spans.append((first, first + len(bare), REDACTED, "secret-named value", context))
        at += len(value) + 1
    return spans
