"""Values written over lines under a secret's name: YAML sequences and block scalars (`secrets:` then `- X`,
`password: |` then its lines), flow lists and mappings (`secrets: [X, Y]`, `secret: {"a": "X"}`), the same behind a
log prefix on each line, YAML complex keys (`? password` then `: X`), and multi-line strings (TOML's triple quotes, HCL and
shell heredocs)."""

from __future__ import annotations

import functools
import re
from typing import Callable

from .assignments import PREFIXED_NEXT_VALUE, PREFIX_DIGITS, _HarmlessValues
from .layouts import (HADOOP_PROPERTY, PRINTED_VALUE_LIMIT, _item_is_secret, _looks_like_password_cached, _names_token_list,
                      _secret_value)
from .line_index import copies_end
from .line_views import line_source
from .names import _secret_name_cached, says_absent
from .spans import REDACTED, Span, _edited, has, has_any

# A YAML sequence or block scalar under a secret's name, as a config dump prints it: `secrets:` then `  - X` lines (or
# `- X` at the name's own indent), `private_key: |` / `password: >-` then the lines indented under it; and a flow
# sequence after one, `secrets: [X, Y]`, `"passwords": ["X", "Y"]`, `passwords = ['X']` (YAML, JSON, Python). A mapping under the
# name (`secretKeyRef:\n  name: db`, `imagePullSecrets:\n- name: regcred`) holds names, not values: it stays.
# (a block scalar's header: its style, a chomping sign and an indentation digit in either order, `|+`, `>2-`, `|-2`; an
# anchor or a tag before it, `&t`, `!vault`, `!!seq`; a comment after it)
YAML_STYLE = r"[|>](?:[0-9][+-]|[+-]?[0-9]?)"
YAML_PROPERTIES = r"(?:[ \t]{1,8}[&!][^\s]{0,64}){0,2}"
YAML_COMMENT = r"(?:[ \t]{1,8}#[^\n]{0,256})?"
YAML_BLOCK_OPENER = re.compile(rf":(?=[ \t\r\n]){YAML_PROPERTIES}[ \t]{{0,8}}(?:(?P<style>{YAML_STYLE})[ \t]{{0,8}}{YAML_COMMENT}\r?\n"
                               rf"|{YAML_COMMENT}\r?\n(?=[ \t]{{0,64}}- ))")
YAML_BLOCK_KEY = re.compile(r"(?P<indent>[ \t]{0,64})(?:- )?[\"']?(?P<name>[A-Za-z_][\w.-]{0,127})[\"']?[ \t]{0,8}")
YAML_LINE_OPENER = re.compile(YAML_BLOCK_KEY.pattern + rf":{YAML_PROPERTIES}[ \t]{{0,8}}(?:{YAML_STYLE}[ \t]{{0,8}})?{YAML_COMMENT}")
YAML_FLOW_OPENER = re.compile(r"[:=][ \t]{0,8}[\[{]")
FLOW_KEY_REVERSED = re.compile(r"[ \t]{0,8}[\"']?(?P<name>[A-Za-z0-9_.-]{1,128})")   # (read backwards from the ":")
YAML_BLOCK_MOST_LINES = 62
# Every line's text before an opener, from a line's start on (findall: no Python per line); a loop over a text of many
# openers that name no secret (`step:` then `  - 1` lines) reads the rest of them this way, and stops where none does
YAML_OPENER_HEADS = re.compile(r"(?m)^([^\n]*?)" + YAML_BLOCK_OPENER.pattern.replace("(?P<style>", "(?:"))
# (when the first 256 that name none lie within 8 KiB: findall reads every character, the loop only the openers)
OPENERS_BEFORE_BULK = 256


def _no_opener_ahead(heads: re.Pattern[str], text: str, first: int, at: int, judge: Callable[[str], bool]) -> bool:
    """Whether a loop over the openers of a text, OPENERS_BEFORE_BULK of which (the first at `first`, the last ending
    at `at`, a line's start) named no secret, may stop: they lie within 8 KiB, and no opener after `at` has a line
    before it that `judge` takes (heads: a pattern whose one group is that line's text, as the loop reads it, one
    per line)."""
    return at - first <= 32 * OPENERS_BEFORE_BULK and not any(map(judge, set(heads.findall(text, at))))


def _yaml_block_spans(text: str) -> list[Span]:
    """The items of a sequence and the lines of a block scalar under a secret's name (YAML_BLOCK_OPENER), and the
    items of a flow sequence after one (YAML_FLOW_OPENER)."""
    spans: list[Span] = []
    harmless = _HarmlessValues()
    openers: dict[str, int | None] = {}   # a line before its ":" -> its indent when it names a secret (a log repeats them)
    bodies: dict[tuple[str, bool, str], list[tuple[int, int]]] = {}   # and a key line's body -> its spans
    names: dict[str, str] = {}   # a key line -> its name
    no_value: dict[tuple[int, str], bool] = {}   # (an indent, the line after an opener) -> _no_item_value's verdict
    misses = first_miss = 0   # openers that name no secret, and where the first is
    read_to = 0   # where the last body read ends
    tries = 1   # (_block_copies: after a block with no copies, the next 1, 2, 4 .. BLOCK_COPIES_BACKOFF are not asked)
    tries_left = 0

    def names_secret(head: str) -> bool:
        if head not in openers:
            key = YAML_BLOCK_KEY.fullmatch(head)
            openers[head] = (len(key.group("indent")) if key is not None
                             and (_secret_name_cached(key.group("name")) or _names_token_list(key.group("name")))
                             else None)
            names[head] = key.group("name") if key is not None else ""
        return openers[head] is not None

    matches = YAML_BLOCK_OPENER.finditer(text) if ":" in text else iter(())
    while (m := next(matches, None)) is not None:
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()]
        indent = openers.get(head, -1)
        if indent == -1:
            names_secret(head)
            indent = openers[head]
        if indent is None:
            if not misses:
                first_miss = m.start()
            misses += 1
            if misses == OPENERS_BEFORE_BULK and _no_opener_ahead(YAML_OPENER_HEADS, text, first_miss, m.end(),
                                                                  names_secret):
                break   # (none of the rest names a secret)
            continue
        scalar = m.group("style") is not None
        if not scalar and m.start() < read_to:
            # (an opener inside the last body read, whose own body holds no value, is not read: `secrets:` then
            # `- secrets:` lines, each read the 62 lines under it; that is judged by the next line alone, once a line)
            line_end = text.find("\n", m.end())
            item = (indent, text[m.end():line_end if line_end >= 0 else len(text)])
            if (empty := no_value.get(item)) is None:
                empty = no_value[item] = _no_item_value(text, m.end(), indent)
            if empty:
                # (the same opener's line again and again, `- secrets:` lines: a copy whose next line is a copy too
                # and whose opener starts inside that body is judged as this one was; those are passed over)
                line = text[line_start:m.end()]
                at, step = m.end(), len(line)
                while text.startswith(line, at) and text.startswith(line, at + step) and (
                        at + m.start() - line_start < read_to):
                    at += step
                if at > m.end():
                    matches = YAML_BLOCK_OPENER.finditer(text, at)
                continue
        body = _yaml_body(indent, scalar).match(text, m.end()).group()
        read_to = m.end() + len(body)
        if (found := bodies.get((head, scalar, body))) is None:
            found = _yaml_body_spans(body, indent, scalar, harmless)
            if found and not scalar:
                name = names[head]   # each item judged as `name=item` on a command line (`valid_keys:` needs key-like ones)
                found = [(start, end) for start, end in found if _item_is_secret(name, body[start:end])]
            bodies[head, scalar, body] = found
        if found:
            at = m.end()
            spans += [(at + start, at + end, REDACTED, "secret-named value", line_start) for start, end in found]
            if tries_left:
                tries_left -= 1
            elif (copies := _block_copies(text, m, line_start, read_to)) is None:
                tries_left = tries = min(2 * tries, BLOCK_COPIES_BACKOFF)
            else:
                period, passed = copies
                tries = 1
                spans += [(at + k + start, at + k + end, REDACTED, "secret-named value", line_start + k)
                          for k in range(period, (passed + 1) * period, period) for start, end in found]
                read_to += passed * period
                matches = YAML_BLOCK_OPENER.finditer(text, line_start + (passed + 1) * period)
        elif not body and text.startswith(line := text[line_start:m.end()], m.end()):
            # The same opener's line again and again (`password: |` lines): a copy whose next line is the same one
            # has an empty body too (a body's first line fails on that line alone), so it adds nothing and ends
            # where the next copy starts; those copies are passed over, the last one is read as any opener.
            at, step = m.end(), len(line)
            while text.startswith(line, at + step):
                at += step
            if at > m.end():
                read_to = at
                matches = YAML_BLOCK_OPENER.finditer(text, at)
    if has(text, "? "):
        spans += _yaml_complex_key_spans(text)
    if "[" in text or "{" in text:
        closes = {"[": -1, "{": -1}
        newline = -1
        flow_items: dict[tuple[str, bool], list[tuple[int, int]]] = {}   # a list's text -> its items' spans (a log repeats them)
        flow_kept: dict[tuple[str, bool, str], list[tuple[int, int]]] = {}   # and those its secret's name keeps
        flow_names: dict[str, str] = {}   # the text before an opener -> the secret's name that ends it, or ""
        for m in YAML_FLOW_OPENER.finditer(text):
            if text.startswith(REDACTED, m.end() - 1):
                continue   # `password: [REDACTED]`, redacted before (a bundle's file read again)
            at = m.end()
            bracket = text[at - 1]
            if (close := closes[bracket]) < at:   # (each the first after the last opener looked at: found once for many openers)
                close = closes[bracket] = text.find("]" if bracket == "[" else "}", at) % (len(text) + 1)
            if newline < at:
                newline = text.find("\n", at) % (len(text) + 1)
            if close == len(text) or newline < close or close - at > PRINTED_VALUE_LIMIT:
                continue   # (tested first: what the text before an opener names costs more)
            window = text[max(0, m.start() - 140):m.start()]
            if (secret := flow_names.get(window)) is None:
                key = FLOW_KEY_REVERSED.match(window[::-1])
                name = key.group("name")[::-1] if key is not None else ""
                secret = flow_names[window] = (name if name and (name[0].isalpha() or name[0] == "_")
                                               and (_secret_name_cached(name) or _names_token_list(name)) else "")
            if not secret:
                continue
            items = text[at:close]
            code = text[m.start()] == "="   # `passwords = [...]`: code, where a bare item is a variable's name
            if (found := flow_kept.get((bracket + items, code, secret))) is None:   # (each judged once per secret's name)
                if bracket == "[" and says_absent(f"[{items}]"):   # (the list's text alone decides: once a distinct one)
                    flow_kept[bracket + items, code, secret] = []
                    continue   # (`password: [not set]`: says there is none)
                if (found := flow_items.get((bracket + items, code))) is None:
                    found = flow_items[bracket + items, code] = (_flow_item_spans(items, harmless, code) if bracket == "["
                                                                 else _flow_mapping_spans(items, harmless, code))
                found = flow_kept[bracket + items, code, secret] = [(start, end) for start, end in found
                                                                    if _item_is_secret(secret, items[start:end])]
            spans += [(at + start, at + end, REDACTED, "secret-named value", m.start()) for start, end in found]
    return spans


BLOCK_COPIES_BACKOFF = 64


def _block_copies(text: str, m: re.Match[str], line_start: int, end: int) -> tuple[int, int] | None:
    """Where _yaml_block_spans' loop, having read the block of opener m (from its line's start to `end`, where its body
    ends) and found values in it, may pass over its copies: (period, n) where the next opener is m moved down by
    `period` characters, on a line starting `period` after m's, its body's end not past that line, and the text from
    m's line repeats with that period k + 2 times at least: copies 1 .. n (= k) are then found and judged as m (each
    one's reading, the search for the next opener after it included, ends inside the copy after it), and the loop goes
    on at copy n + 1. None where no copy may be passed over (one search: the next opener)."""
    if text[end - 1:end] != "\n":
        return None
    after = YAML_BLOCK_OPENER.search(text, m.end())
    if after is None:
        return None
    period = after.start() - m.start()
    if end > line_start + period or text.rfind("\n", 0, after.start()) + 1 != line_start + period or after.regs != tuple(
            (a + period, b + period) if a >= 0 else (a, b) for a, b in m.regs):
        return None
    unit = text[line_start:line_start + period]
    copies = (copies_end(text, text, unit, unit, line_start) - line_start) // period
    return (period, copies - 2) if copies >= 3 else None


# A block over lines behind a log prefix on each (`[rank0]: password: |` / `[rank0]:   X`, compose's `app-1  | `,
# `INFO:root:`, a timestamp): the opener (a secret's name ending its line with `:`, `: |`, `: >-`, or a Hadoop
# `<name>` line) has text before its name; that text (its digits free: times differ line to line) is cut from the
# opener's line and each line after it that starts with it, and the block rules read that view.
PREFIXED_OPENER = re.compile(rf"(?::{YAML_PROPERTIES}[ \t]{{0,8}}(?P<style>{YAML_STYLE}[ \t]{{0,8}})?|(?P<xml></name>)[ \t]{{0,8}})\r?\n")
PREFIXED_OPENER_HEADS = re.compile(r"(?m)^([^\n]*?)" + PREFIXED_OPENER.pattern.replace("(?P<style>", "(?:")
                                   .replace("(?P<xml>", "(?:"))   # (see YAML_OPENER_HEADS)


BLOCK_KEPT_CHARS = 16384   # a prefixed block longer than this (what its loop read) is not kept for its copies


def _prefixed_block_spans(text: str) -> list[Span]:
    """The YAML sequence / block scalar items, the value on the next line and Hadoop XML values (_yaml_block_spans,
    HADOOP_PROPERTY) of blocks whose every line has a log prefix (PREFIXED_OPENER), each block read without its
    prefixes."""
    if not has_any(text, (":\n", ": |", ": >", "</name>", ":\r\n")) and not ("&" in text and ": &" in text) and not (
            "!" in text and ": !" in text):   # (a character first: memchr)
        return []
    spans: list[Span] = []
    edits: list[tuple[int, int, str]] = []
    done = 0
    openers: dict[str, tuple[str, str, int, str] | None] = {}   # an opener's line -> _opener_prefix (a log repeats them)
    # an opener's line -> the last block read under it: the text the loop read, its edits and where it stopped (offsets
    # from the block's start)
    blocks: dict[str, tuple[str, list[tuple[int, int]], int]] = {}
    misses = first_miss = 0   # openers that name no secret, and where the first is

    def may_open(head: str) -> bool:   # (the loop judges a line by its first opener's kind: one not seen yet, by both)
        if head in openers:
            return openers[head] is not None
        return _opener_prefix(head, False) is not None or _opener_prefix(head, True) is not None

    matches = PREFIXED_OPENER.finditer(text)
    while (m := next(matches, None)) is not None:
        line_start = text.rfind("\n", 0, m.start()) + 1
        if line_start < done:
            continue
        head = text[line_start:m.start()]
        if (opener := openers.get(head, ())) == ():
            opener = openers[head] = _opener_prefix(head, m.group("xml") is not None)
        if opener is None:
            if not misses:
                first_miss = m.start()
            misses += 1
            if misses == OPENERS_BEFORE_BULK and _no_opener_ahead(PREFIXED_OPENER_HEADS, text, first_miss, m.end(),
                                                                  may_open):
                break   # (none of the rest opens a block)
            continue
        prefix, name, indent, shape = opener
        if m.group("style") is None and m.group("xml") is None:   # `P password:` then `P   X`, or `P   - X` items
            after = m.end() + len(prefix) + indent   # (past the name's indent: more must follow)
            if text[after:after + 1] not in (" ", "\t") or not text.startswith(prefix, m.end()) and text[
                    m.end():m.end() + len(prefix)].translate(PREFIX_DIGITS) != shape:
                continue
            nested = PREFIXED_NEXT_VALUE.match(text, m.end() + len(prefix))
            if nested is None or len(nested.group("indent")) <= indent:
                continue
            value = nested.group("value")
            if value != "-":
                if not value.endswith(":") and _item_is_secret(name, value):   # (`secretKeyRef:`: a mapping, names)
                    spans.append((nested.start("value"), nested.end("value"), REDACTED, "secret-named value",
                                  line_start))
                continue
        if (known := blocks.get(head)) is not None and text.startswith(known[0], line_start):
            # (the block read before under this opener's line, again: what the loop read here is its copy)
            edits += [(line_start + a, line_start + b, "") for a, b in known[1]]
            done = line_start + known[2]
            matches = PREFIXED_OPENER.finditer(text, done)
            continue
        first_edit = len(edits)
        at = line_start
        source: str | None = None
        sources: set[str] = set()   # (the sources whose lines stay in the view: the opener's, and each that opens a block)
        for _ in range(YAML_BLOCK_MOST_LINES + 1):
            exact = text.startswith(prefix, at)
            if not exact and text[at:at + len(prefix)].translate(PREFIX_DIGITS) != shape:
                read = at + len(prefix)   # (the loop read this line's prefix, no more of it)
                break
            newline = text.find("\n", at)
            if not exact and _other_source_line(text, line_start, at, newline, source := (
                    line_source(text, line_start, m.start()) if source is None else source), sources):
                edits.append((at, len(text) if newline < 0 else newline + 1, ""))   # (another rank's line: left out)
            else:
                edits.append((at, at + len(prefix), ""))
            if newline < 0:
                at, read = len(text), len(text) + 1   # (the text's end read: kept for no other place)
                break
            at = newline + 1
        else:
            read = at
        done = at
        if read <= len(text) and read - line_start <= BLOCK_KEPT_CHARS:
            # (what the loop read, from the opener's line on, decides its edits: the opener's line, each line's prefix
            # and, on another source's line, that line alone: a later copy of it is given them without the loop)
            blocks[head] = (text[line_start:read], [(a - line_start, b - line_start) for a, b, _ in edits[first_edit:]],
                            at - line_start)
        # (an opener before `done` is passed over: the search goes on from there, a line start, where the next
        # opener not passed over starts: none found before it ends past it)
        matches = PREFIXED_OPENER.finditer(text, done)
    if edits:   # (one view for all blocks: a log repeats its blocks, the rules' caches serve them all)
        view, where = _edited(text, edits)
        found = _yaml_block_spans(view)
        if "<name>" in view:
            found += [(v.start("value"), v.end("value"), REDACTED, "secret-named value", v.start())
                      for v in HADOOP_PROPERTY.finditer(view)
                      if _secret_name_cached(v.group("name")) and _secret_value(v.group("value"))]
        spans += where.place_back(found)
    return spans


OPENS_A_BLOCK = re.compile(PREFIXED_OPENER.pattern)   # (_other_source_line's own: the loop's search is PREFIXED_OPENER)


def _other_source_line(text: str, line_start: int, at: int, newline: int, source: str, sources: set[str]) -> bool:
    """Whether the line at `at`, whose prefix is the block's opener's (at line_start) but for its digits, is another
    source's (line_views.line_source: `[rank1]: ` after `[rank0]: password: |`, ranks taking turns in runs) and opens
    no block itself: it is left out of the block's view (the block reads on over it, as the ranks' own views do); one
    that opens a block stays in it, as before, and so do its source's lines after it (`sources`: the block it opens
    is read in this view, its lines hidden with the block's)."""
    if not source:
        return False
    end = len(text) if newline < 0 else newline
    other = line_source(text, at, end)
    if not other or other == source or other in sources:
        return False
    if OPENS_A_BLOCK.search(text, at, end + 1) is None:
        return True
    sources.add(other)
    return False


def _opener_prefix(head: str, xml: bool) -> tuple[str, str, int, str] | None:
    """The log prefix before an opener's secret name on its line (without the blanks that end it, the name's
    indent), the name, that indent and the prefix's shape (PREFIX_DIGITS); None: no text before the name, or no
    secret's name."""
    if xml:
        at = head.rfind("<name>")
        name = head[at + 6:].strip(" \t")
        if at <= 0 or not name or "<" in name or not _secret_name_cached(name):
            return None
    else:
        key = FLOW_KEY_REVERSED.match(head[::-1])
        name = key.group("name")[::-1] if key is not None else ""
        if not name or not (name[0].isalpha() or name[0] == "_") or not (_secret_name_cached(name)
                                                                        or _names_token_list(name)):
            return None
        at = len(head) - key.end()
        if at and head[at - 1] in "\"'":
            at -= 1   # `"password": |`: the name's opening quote is the YAML's
    before = head[:at]
    if before.endswith("- "):
        before = before[:-2]   # `[rank0]:   - password: |`: an item's marker is the YAML's
    prefix = before.rstrip(" \t")
    if not prefix or prefix[0] == "\t":
        return None
    return prefix, name, len(before) - len(prefix), prefix.translate(PREFIX_DIGITS)


@functools.lru_cache(maxsize=256)
def _yaml_body(indent: int, scalar: bool) -> re.Pattern[str]:
    """The lines a block scalar (more indented than its name, or blank) or a sequence (`- ` items at its name's
    indent or deeper) under a name at this indent runs over, YAML_BLOCK_MOST_LINES at most."""
    line = rf"(?:[ \t]{{{indent + 1},64}}[^\n]*|[ \t]*\r?)" if scalar else rf"[ \t]{{{indent},64}}- [^\n]*"
    return re.compile(rf"(?:{line}(?:\n|\Z)){{0,{YAML_BLOCK_MOST_LINES}}}")


@functools.lru_cache(maxsize=256)
def _yaml_first_item(indent: int) -> re.Pattern[str]:
    """A sequence's first line under a name at this indent, as _yaml_body reads it."""
    return re.compile(rf"[ \t]{{{indent},64}}- [^\n]*")


def _no_item_value(text: str, at: int, indent: int) -> bool:
    """Whether the sequence from `at` under a name at this indent yields no value to _yaml_body_spans before reading
    its body: it has no item, or its first item is a mapping (`- name: regcred`, `- secrets:`), where the reading
    stops."""
    first = _yaml_first_item(indent).match(text, at)
    if first is None:
        return True
    value = first.group().lstrip(" \t")[2:].strip()
    quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
    return not quoted and (": " in value or value.endswith(":"))


def _yaml_body_spans(body: str, indent: int, scalar: bool, harmless: _HarmlessValues) -> list[tuple[int, int]]:
    """In a body _yaml_body gives: each line of a block scalar; each item of a sequence, without its quotes, up to
    an item that is a mapping (`- name: regcred`: names, not values)."""
    found = []
    at = 0
    for line in body.split("\n"):
        text = line.rstrip("\r")
        content = text.lstrip(" \t")
        depth = len(text) - len(content)
        if scalar and content:
            found.append((at + depth, at + len(text)))
        elif not scalar and content:
            value = content[2:].strip()
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
            if not quoted and (": " in value or value.endswith(":")):
                break
            bare = value[1:-1] if quoted else value
            if bare and not harmless[bare]:
                first = at + depth + 2 + content[2:].index(value[0]) + quoted
                found.append((first, first + len(bare)))
        at += len(line) + 1
    return found


def _flow_item_spans(items: str, harmless: _HarmlessValues, quoted_only: bool = False) -> list[tuple[int, int]]:
    """The items of a flow sequence's text (between its brackets) that may be secrets, each without its quotes (only
    quoted ones in code, where a bare item is a variable); a nested sequence or mapping holds names, not values."""
    found = []
    at = 0
    for item in items.split(","):
        value = item.strip()
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        bare = value[1:-1] if quoted else value
        if bare and (quoted or not quoted_only) and FLOW_ITEM_NESTED.search(bare) is None and not harmless[bare]:
            first = at + item.index(value) + quoted
            found.append((first, first + len(bare)))
        at += len(item) + 1
    return found


FLOW_ITEM_NESTED = re.compile(r"[\[\]{}:]")
# A mapping under a secret's name (`secret: {"a": "X"}`, `credentials: {prod: X, dev: Y}`) holds secrets as its values
# where they look like passwords (`"token": {"id": 1917, "text": " world"}`, a streamed LLM token, holds none);
# a key that names a reference says the mapping holds names (`secretKeyRef: {name: db, key: password}`, a volume's
# `secret: {secretName: tls}`): that value stays.
REFERENCE_KEY = re.compile(r"(?i)[\w.-]{0,64}(?:name|ref)|key|kind|type|path|file|optional|mode|items|version|enabled")


def _flow_mapping_spans(items: str, harmless: _HarmlessValues, quoted_only: bool = False) -> list[tuple[int, int]]:
    """The values of a flow mapping's text (between its braces) that may be secrets, each without its quotes."""
    found = []
    at = 0
    for item in items.split(","):
        key, colon, value = item.partition(":")
        key = key.strip().strip("\"'")
        value_text = value.strip()
        quoted = len(value_text) >= 2 and value_text[0] == value_text[-1] and value_text[0] in "'\""
        bare = value_text[1:-1] if quoted else value_text
        if (colon and key and bare and (quoted or not quoted_only) and REFERENCE_KEY.fullmatch(key) is None
                and FLOW_ITEM_NESTED.search(bare) is None and not harmless[bare] and _looks_like_password_cached(bare)):
            first = at + item.index(colon) + 1 + value.index(value_text) + quoted
            found.append((first, first + len(bare)))
        at += len(item) + 1
    return found


# `? password` then `: X` on the next line: YAML's explicit (complex) key, its value after the `:` that starts a line.
YAML_COMPLEX_KEY = re.compile(r"\?(?:(?<=^\?)|(?<=[\n \t]\?))[ \t]{1,8}[\"']?(?P<name>[A-Za-z_][\w.-]{0,127})[\"']?[ \t]{0,8}\r?\n"
                              r"[ \t]{0,64}:[ \t]{1,8}(?P<value>[^\n]{1,4096})")


def _yaml_complex_key_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in YAML_COMPLEX_KEY.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].strip(" \t") or not _secret_name_cached(m.group("name")):
            continue
        value = m.group("value").rstrip(" \t\r")
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        bare = value[1:-1] if quoted else value
        if bare and _item_is_secret(m.group("name"), bare):
            first = m.start("value") + quoted
            spans.append((first, first + len(bare), REDACTED, "secret-named value", m.start()))
    return spans


# TOML's multi-line strings and HCL's / Terraform's heredocs under a secret's name: `password = """` ... `"""`,
# `api_key = '''X'''`, `password = <<EOT` ... `EOT` (`<<-EOT`, `<<~EOT`, a quoted tag): each line of the body goes.
MULTILINE_STRING = re.compile(r"=[ \t]{0,8}(?:(?P<q>\"\"\"|\'\'\')|<<[-~]?[ \t]{0,4}(?P<tq>[\"']?)(?P<tag>[A-Za-z_]\w{0,31})(?P=tq)"
                              r"[ \t]{0,8}\r?\n)")
MULTILINE_STRING_LITERALS = ('"""', "'''", "<<")


def _multiline_string_name(text: str, at: int) -> str:
    """The secret's name that ends text before `at` (an opener's `=`), or ""."""
    return _name_ending(text[max(0, at - 140):at])


@functools.lru_cache(maxsize=4096)
def _name_ending(window: str) -> str:   # (a log repeats its lines: the same window, one reading)
    key = FLOW_KEY_REVERSED.match(window[::-1])
    name = key.group("name")[::-1] if key is not None else ""
    return name if name and (name[0].isalpha() or name[0] == "_") and _secret_name_cached(name) else ""


def _opens_string_over_lines(line: str) -> bool:
    """Whether a line opens a TOML multi-line string or a heredoc under a secret's name, or is YAML's `? name` of
    one (their values come on later lines: a stream holds the line back)."""
    if any(literal in line for literal in MULTILINE_STRING_LITERALS):
        if any(_multiline_string_name(line, m.start()) for m in MULTILINE_STRING.finditer(line.rstrip("\r\n") + "\n")):
            return True
    if "? " in line:
        m = YAML_COMPLEX_KEY_LINE.fullmatch(line.rstrip("\r\n"))
        return m is not None and _secret_name_cached(m.group("name"))
    return False


YAML_COMPLEX_KEY_LINE = re.compile(r"[ \t]{0,64}\?[ \t]{1,8}[\"']?(?P<name>[A-Za-z_][\w.-]{0,127})[\"']?[ \t]{0,8}")


HEREDOC_REACH = YAML_BLOCK_MOST_LINES * 256   # characters a heredoc's body may run over


@functools.lru_cache(maxsize=256)
def _heredoc_end(tag: str) -> re.Pattern[str]:
    return re.compile(rf"(?m)^[ \t]{{0,64}}{re.escape(tag)}[ \t\r]{{0,8}}$")


def _multiline_string_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    scanned: dict[str, tuple[int, int]] = {}   # a heredoc's tag -> (searched up to, the close found there or -1)
    for m in MULTILINE_STRING.finditer(text):   # (one scan, led by its "=": cheaper than three substring tests)
        if not _multiline_string_name(text, m.start()):
            continue
        at = m.end()
        if m.group("q"):
            end = text.find(m.group("q"), at, at + YAML_BLOCK_MOST_LINES * PRINTED_VALUE_LIMIT)
            if end < 0 or text.count("\n", at, end) > YAML_BLOCK_MOST_LINES:
                continue
        else:   # the tag's closing line within HEREDOC_REACH, each part of the text searched once per tag
            tag = m.group("tag")
            until, close = scanned.get(tag, (0, -1))
            if close < at:
                reach = at + HEREDOC_REACH
                found = _heredoc_end(tag).search(text, max(at, until), reach) if until < reach else None
                close = found.start() if found is not None else -1
                scanned[tag] = (reach if found is None else found.start(), close)
            if close < 0 or close - at > HEREDOC_REACH:
                continue
            end = close
        line_at = at
        for line in text[at:end].split("\n"):
            content = line.strip(" \t\r")
            if content and _secret_value(content):
                first = line_at + line.index(content)
                spans.append((first, first + len(content), REDACTED, "secret-named value", m.start()))
            line_at += len(line) + 1
    return spans
