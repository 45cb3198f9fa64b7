"""Lines as a log or a serializer prints them, read as the rules read a line of their own: where a line begins with a
log prefix (`[rank0]: `, a timestamp, `INFO:root:`, a logging format, glog, compose's `app-1  | `, `[pod/x/main] `,
pytest's `E       `, syslog) or is a JSON string, a JSON record (`{"level": "info", "msg": "..."}`) or a repr()
(`'...'`), the rules that read a form at a line's start (printed commands, Redis, YAML/TOML/HCL layouts, value-first
pairs, listings, XML) would not see it. line_view_windows finds the lines where that matters and gives, for a few lines
around each, the edits of a view with each line's prefix cut and each quoted line's quotes cut and escapes decoded; the
Redactor reads each window's view and places its spans back (Redactor._line_view_spans). Where sources take
turns in a window (two pods' or ranks' lines interleaved), each source's lines are a view of their own (_pod_views), and
a stream holds each source's lines as if alone (interleaved_sources, StreamRedactor._sources_hold).

Cost: a text is looked at only when it holds a log prefix or a quoted line (a few substring tests) and one of the
GATE characters or words (single characters cost almost nothing to look for; two words); then only the lines holding
one of them, behind a prefix or in quotes, open a window."""

from __future__ import annotations

import functools
import operator
import re
from itertools import repeat
from operator import add, itemgetter

from .distinct_lines import few_distinct_lines
from .line_index import ALONE, PERIOD_LINE_MOST, copies_end, remember_alone, repeated_block, window_edits
from .spans import CSI, has

_FIRST, _THIRD = itemgetter(0), itemgetter(2)

# a timestamp (ISO 8601 with `T` or a blank, with or without fractions and zone), a bare time, a level, `[...]` (a
# rank, a pod, a bracketed time or level), a logging format's ` - name - LEVEL - `
_TIME = r"(?:[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?" \
        r"|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?)"
_LEVEL = r"(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|TRACE|NOTICE)"
_PIECE = (rf"(?:{_TIME}|\[[^\]\n]{{1,64}}\]:?|{_LEVEL}:?(?=[ \t])|-[ \t][\w.<>-]{{1,64}}[ \t]-[ \t]{_LEVEL}[ \t]-"
          rf"|[\w.<>-]{{1,64}}[ \t]-[ \t]{_LEVEL}[ \t]-)")
# A line's log prefix: what is cut from it in the view (its one blank after it too: the text's own indent stays)
LOG_PREFIX = re.compile(
    rf"(?:{_LEVEL}:[\w.]{{0,64}}:"                                                   # INFO:root:
    r"|E[ \t]{7}"                                                                     # pytest's E line
    r"|[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}[ \t]{1,8}[0-9]{1,10} [\w.-]{1,64}:[0-9]{1,6}\] ?"  # glog
    r"|[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [\w.-]{1,64} [\w./-]{1,64}(?:\[[0-9]{1,10}\])?: ?"  # syslog
    r"|[\w.-]{1,64}[ \t]{1,16}\| ?"                                                   # compose's `app-1  | `
    r"|\[[0-9]{1,6},[0-9]{1,6}\]<std(?:out|err)>: ?"                                  # mpirun --tag-output
    r"|\([\w.-]{0,64} ?pid=[0-9]{1,10}(?:, ip=[0-9A-Fa-f.:]{3,45})?\) "               # Ray's `(Worker pid=1, ip=..) `
    r"|[0-9]{1,5}: "                                                                  # srun --label's `0: `
    r"|[A-Za-z][\w.-]{0,62}[0-9]: "                                                  # pdsh's, DeepSpeed's `node1: `
    rf"|{_PIECE}(?:[ \t]{{1,4}}{_PIECE}){{0,4}}(?:[ \t]|(?<=[:\]])))")
# A launcher's prefix that plain words could be too, so one only where the line next to it (after, else before) starts
# with the same: kubectl logs --prefix's `pod/trainer-0 ` and stern's `trainer-0 main ` (a pod's and a container's
# names: lower-case DNS labels, the pod's with a `-`: `the model `, `Epoch 1 ` are none)
SHARED_PREFIX = re.compile(r"pod/[a-z0-9][a-z0-9.-]{0,252} |[a-z0-9][a-z0-9.]{0,62}-[a-z0-9.-]{1,200}(?P<container> [a-z0-9][a-z0-9-]{0,62} )")
# Where a text may hold a log prefix at a line's start (any of these: the first found ends the test)
PREFIX_HINTS = ("]", ": ", "pid=", "INFO", "WARN", "ERROR", "DEBUG", " | ", "E       ", "CRITICAL", "FATAL", ":0", ":1", ":2", ":3", ":4",
                ":5")
QUOTE_HINTS = ('"', "'")
# A quoted line, after its prefix: a JSON string or a repr() (b'..' too) to its end (a `,` after it), or a JSON record.
# Of any length (a message of 100,000 characters is read as a short one is), and linear: matched only at a line's start
# (one try a line, each character given back at most once on a failure); a record's strings are found by _json_strings.
QUOTED_LINE = re.compile(r"[ \t]{0,16}(?:b?'[^'\\\n]*(?:\\.[^'\\\n]*)*'|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\")[ \t]{0,4},?\r?$"
                         r"|[ \t]{0,16}\{[ \t]{0,4}\"", re.M)
# the keys a JSON log record keeps its message under (structlog, loguru's serialize, Docker's json-file, bunyan, GCP)
# (session 25: the one list of them; _line_edits asks a key lower-cased, and known_secrets' wrap rule reads the same keys
# in any case through MESSAGE_KEY_PATTERN: `{"Message": ...}` and `{"MSG": ...}` are records to both)
MESSAGE_KEYS = frozenset({"msg", "message", "log", "text", "line", "event", "textpayload"})
MESSAGE_KEY_PATTERN = "(?i:" + "|".join(sorted(MESSAGE_KEYS)) + ")"
ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\\\"'/nrtbf])")
SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "\\": "\\", '"': '"', "'": "'", "/": "/"}
# What a form the line-start rules read holds, one of them at least: single characters (a complex key `?`, a comment
# `#`, an anchor `&`, a tag `!`, a heredoc `<<` or XML `<value>`, a block scalar `>-`, a Windows path `\\srv` or prompt
# `PS C:\>`, a jsonpath `'{.data.password}'` or a JSON document: each found by memchr, almost free), and four words
# (Redis's AUTH; `- value:`, `ParameterValue`, az's `Value` column; a password's or a secret's name over a block or a
# listing's two columns), each a substring test of about 0.6 ms per MB. A line is a candidate only where one of these
# is on it. (`|`, `token` and `key` are left out: plain training logs hold them on most lines.)
GATE_CHARACTERS = ("?", "#", "&", "!", "<", ">", "\\", "{")
GATE_WORDS = ("auth", "passw", "secret", "vault", "op://", "decryption", "pass ", "--reveal", "--extract", "cat ", "printenv ", "echo $", "echo \"$", "set -", "setenv ",
              "token  ", "  token", "  key", "  value", "- name:", "-access-token", "out[", "signature:",
              "| token")
# (all but the first two: a secret store's print, whose value comes bare on the next line: `gcloud secrets versions
# access`, `vault read -field=`, `op read op://`, `get-parameter --with-decryption`, `pass [show] X` / `gopass show`,
# `op item get --fields F --reveal`, `sops -d --extract`; `set -` and `setenv `: fish's `set -gx NAME X` and csh's
# `setenv NAME X` inside a JSON string or repr(), read in the view; each word tested as `has` does, its rarest characters
# first; session 24: a listing's header words as a column (`token` or `key` or `value` with two blanks beside it, each
# mark a word's edge: `tokens/s` is none), a Kubernetes env item's `- name:`, a cloud CLI's `-access-token`, and
# IPython's `Out[3]:`, so each is read inside a JSON record's message too; session 26: a signer's logger line
# `DEBUG:app.signer:Signature:`, its signature on the next record; and a bar table's TOKEN column, `| user | token |`, whose
# rows tables' header rule reads behind an ISO time or compose's bar, or in JSON records, only in the view)
BEFORE_LINES = 4     # lines read before a candidate (CloudFormation's ParameterKey above its ParameterValue)
AFTER_LINES = 64     # and after it (a YAML block, a heredoc, a table: the rules read no further: PRINTED_FORM_HOLD_LINES)


# (a word's mark where the word alone marks too many lines: `pass ` is pass's and gopass's command, not sshpass's)
MARK_PATTERNS = {"pass ": r"pass (?:(?<![\w-]pass )|(?<=gopass ))", "cat ": r"cat (?<![\w-]cat )",
                 "token  ": r"token  (?<![\w-]token  )", "  token": r"  token(?![\w/-])", "  key": r"  key(?![\w/-])",
                 "  value": r"  value(?![\w/-])", "out[": r"out\[(?<![\w.]out\[)[0-9]{1,6}\]:",
                 "| token": r"\| token(?![\w/.-])"}   # (not `concat `)   # (led by its literal: the engine skips to it)


@functools.lru_cache(maxsize=512)
def _marks(found: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(MARK_PATTERNS.get(word) or re.escape(word) for word in found))


def prefix_alone(line: str) -> bool:
    """Whether a line holds a log prefix and nothing after it (`api-1  | `, `[rank0]: `): a blank line behind one."""
    line = line.strip(" \t\r")
    return bool(line) and (m := LOG_PREFIX.match(line + " ")) is not None and m.end() >= len(line)


def without_log_prefixes(line: str) -> str:
    """without_log_prefix, and where the line is quoted (a JSON record, a JSON string, a repr()), its view read so once
    more, as the Redactor reads a view of a view (redactor.LINE_VIEW_DEPTH): Docker's json-file record of an app that
    logs JSON records (session 25; known_secrets' nested-record hold reads it)."""
    view = without_log_prefix(line)
    if view is line or not ('"' in line or "'" in line):
        return view
    return without_log_prefix(view)


def without_log_prefix(line: str) -> str:
    """line as its window's view reads it (without its colour codes, its log prefix, its quotes and escapes), for a
    stream's hold, which judges a line as the rules will read it (holding one more is harmless)."""
    if "\x1b" in line:
        line = CSI.sub("", line)
    newline = line.rstrip("\r\n")
    edits = _line_edits(line, 0, len(newline)) if newline else []
    if not edits and (m := SHARED_PREFIX.match(newline)) is not None and m.end() < len(newline):
        # (a launcher's prefix only where the next line has it too: unknown here, so the line is judged as behind one;
        # a log's prefix after it, stern's `pod container 2026-11-24T03:00:01Z `, as the view of the view reads it)
        edits = _line_edits(line, 0, len(newline), m.end())
        if (after := LOG_PREFIX.match(line, m.end(), len(newline))) is not None and after.end() < len(newline):
            edits = [(0, after.end(), "")] + _line_edits(line, after.end(), len(newline), -1)
    if not edits:
        return line
    out, at = [], 0
    for start, end, replacement in edits:
        out += [line[at:start], replacement]
        at = end
    out.append(line[at:])
    return "".join(out)


def line_view_windows(text: str, lower: str, words: frozenset[str] | None = None
                      ) -> list[tuple[int, int, list[tuple[int, int, str]]]]:
    """The windows (start, end, the view's edits in the window's own offsets) to be read as views; none for most
    texts. (`words`: those of GATE_WORDS, at least, that lower holds, where the caller looked for them already.)"""
    # (the hints asked as `has` asks: a hint with a character the text lacks is not searched for, and the answers are
    # the Redactor.spans call's, which asks this again of each read)
    prefixed = any(has(text, hint) for hint in PREFIX_HINTS) or _shared_prefix_hint(text)
    quoted = any(hint in text for hint in QUOTE_HINTS)
    if not (prefixed or quoted):
        return []
    found = [c for c in GATE_CHARACTERS if c in text] + [w for w in GATE_WORDS
                                                          if (w in words if words is not None else has(lower, w))]
    if has(text, "eyJ"):   # (a JWT folded over prefixed lines: asked of the text by the token rules already)
        found.append("eyj")
    if not found:
        return []
    if (distinct := few_distinct_lines(text)) is not None and all(
            not line or line in ALONE and LINE_EDITS.get(line) == [] for line in distinct):
        return []   # (a text of few distinct lines, each empty or known to have no edits wherever it is: none is a candidate)
    read: dict[int, list[tuple[int, int, str]]] = {}   # each line looked at: its edits (none: a plain line)
    candidates: list[int] = []
    seen: dict[str, int] = {}   # a line the loop came to by a mark -> where it last did (repeated_block)
    entered: list[int] = []     # where the loop came to a line by a mark, in order
    retry = 0
    marks = _marks(tuple(found))   # (one search a line for all the marks the text holds, in the lower-cased text)
    m = marks.search(lower)
    while m is not None:
        at = m.start()
        line_start = text.rfind("\n", 0, at) + 1
        if m.group() == "{" and not text[line_start:at].strip(" \t"):
            m = marks.search(lower, at + 1)   # (a JSON record's own brace: only a mark inside it counts)
            continue
        newline = text.find("\n", at)
        if line_start not in read:
            line_end = newline if newline >= 0 else len(text)
            line = text[line_start:line_end]
            if (prev := seen.get(line)) is not None and line_start >= retry and newline >= 0:
                # (a line met again: where the lines from its last place repeat, copies of them get that block's
                # reading shifted, in C: line_index.repeated_block)
                if resume := repeated_block(text, lower, prev, line_start, read, candidates, entered, seen):
                    m = marks.search(lower, resume)
                    continue
                retry = 2 * line_start - prev   # (not asked again before a period has passed)
            if line_end - line_start <= PERIOD_LINE_MOST:
                seen[line] = line_start
                entered.append(line_start)
            # (a line's own edits, where LINE_EDITS knows the line and it has some, are all it has: no call)
            known = LINE_EDITS.get(line)
            if known or known is not None and line in ALONE:   # (ALONE: no edits, whatever lines are around it)
                edits = read[line_start] = known
            else:
                edits = read[line_start] = _line_edits_in(text, line_start, line_end)
                if not edits:
                    remember_alone(line, LINE_EDITS, SHARED_PREFIX.match)
            if known and newline >= 0 and text.startswith(line := text[line_start:newline + 1], newline + 1):
                # (the same line again: each copy is a candidate with the same edits, its mark where the line's is)
                candidates.append(line_start)
                after = copies_end(text, lower, line, lower[line_start:newline + 1], newline + 1)
                copies = range(newline + 1, after, len(line))   # (their places, read and candidates filled in C)
                read.update(dict.fromkeys(copies, edits))
                candidates += copies
                m = marks.search(lower, after)
                continue
            if edits:
                candidates.append(line_start)
            elif newline >= 0 and text.startswith(line := text[line_start:newline + 1], newline + 1):
                # (the same line again: its copies, no candidates either, are passed over; a window reads them anew)
                # (a run of them passed over in blocks doubled: line_index.copies_end)
                after = copies_end(text, lower, line, lower[line_start:newline + 1], newline + 1)
                m = marks.search(lower, after)
                continue
        if newline < 0:
            break
        m = marks.search(lower, newline + 1)
    if not candidates:
        return []
    # (the windows' lines found by index in C, their edits gathered in C where LINE_EDITS knows the line: line_index;
    # a window of interleaved sources read as a view per source: _pod_views)
    return window_edits(text, candidates, BEFORE_LINES, AFTER_LINES, LINE_EDITS,
                        lambda at, end: read[at] if at in read else _line_edits_in(text, at, end), SHARED_PREFIX.match,
                        lambda start, end, lines: _pod_views(text, start, end, lines, read))


# Interleaved sources: kubectl logs --prefix of several pods, stern, ranks (`[rank0]: ` / `[rank1]: `), srun's `0: ` /
# `1: `, pdsh's `host1: ` / `host2: `. A form read over lines (`cat` of a token file then the value, a Secret's data, an
# env item, arrows) has its lines among another source's, so the window's view (every line without its prefix) reads
# them apart, and reads another source's line as the value after a name (`password: |`, a store's command). Where a
# source whose lines have another's between them in a window holds a candidate, the window is read as a view per
# source instead: its lines without their prefix, the other sources' lines left out (lines with no prefix, or one of
# times and levels only, stay in every view: a message's next lines). A source is its prefix without its times, levels,
# blanks and colons (`[rank0]: 2026-11-24T03:00:01Z INFO ` is `[rank0]: `'s). A window whose lines share one prefix (a plain
# log), or whose sources take turns in runs, is read as before: one comparison of strings a line.
POD_VIEWS_MOST = 8   # sources in a window at most (more, each a view: the window's one view as before)
_PREFIX_NOISE = re.compile(rf"{_TIME}|{_LEVEL}")
_NOT_IN_SOURCE = str.maketrans("", "", " \t:")


@functools.lru_cache(maxsize=4096)
def _source(prefix: str) -> str:
    """The source a line's prefix names (its times and levels taken out); "" where it names none (a prefix of times and
    levels, a quote)."""
    if prefix[-1:] in "\"'{":
        return ""
    source = _PREFIX_NOISE.sub("", prefix) if any(c.isdigit() or c.isupper() for c in prefix) else prefix
    source = source.translate(_NOT_IN_SOURCE)   # (`[rank0]: INFO ` is `[rank0]: `'s: blanks and colons aside)
    return source if any(c.isalnum() for c in source) else ""


def _pod_views(text: str, start: int, end: int, lines: list[tuple[int, int, list[tuple[int, int, str]]]],
               read: dict[int, list[tuple[int, int, str]]]) -> list[tuple[int, int, list[tuple[int, int, str]]]]:
    """The views of a window's sources where they are interleaved (above), as line_view_windows gives windows; none
    where the window's one view reads it."""
    own = lines[0][2]
    if all(map(operator.is_, map(_THIRD, lines), repeat(own))):   # (a line and its copies: one edits list, in C)
        if not own or own[0][0] or own[0][2]:
            return []   # (no line has a prefix: all "", one source)
        size = own[0][1]
        ats = list(map(_FIRST, lines))
        if len(set(map(text.__getitem__, map(slice, ats, map(add, ats, repeat(size)))))) == 1:
            return []   # (one prefix on every line: the window's one view reads it)
    prefixes = [text[at:at + edits[0][1]] if edits and not edits[0][0] and not edits[0][2] else ""
                for at, _, edits in lines]
    first = prefixes[0]
    if all(prefix == first for prefix in prefixes):
        return []
    sources = [_source(prefix) if prefix else "" for prefix in prefixes]
    where: dict[str, list[int]] = {}
    for index, source in enumerate(sources):
        if source:
            where.setdefault(source, []).append(index)
    if len(where) < 2:
        return []
    if len(where) > POD_VIEWS_MOST or not any(
            any(read.get(lines[index][0]) for index in indexes)
            and any(sources[index] and sources[index] != source for index in range(indexes[0], len(sources)))
            for source, indexes in where.items()):
        return []   # (no source with a candidate line has another's lines between its own: the window's view reads them)
    out = []
    for source, indexes in where.items():
        edits: list[tuple[int, int, str]] = []
        for (at, line_end, own), other in zip(lines, sources):
            if other and other != source:
                edits.append((at - start, min(line_end + 1, end) - start, ""))
            elif own:
                edits += [(a + at - start, b + at - start, r) for a, b, r in own]
        out.append((start, end, edits))
    return out


# A line's edits (_line_edits, in the line's own offsets), by the line: a log repeats its lines, and a text where every
# line is prefixed or quoted reads each in a window. Only short lines with few edits are kept (a line of escapes has
# one edit per escape), and the table is emptied when full: its memory stays a few MB.
LINE_EDITS: dict[str, list[tuple[int, int, str]]] = {}
LINE_EDITS_MOST_CHARS = 512
LINE_EDITS_MOST_EDITS = 32
LINE_EDITS_MOST_LINES = 4096


def _shared_prefix_hint(text: str) -> bool:
    """Whether text may hold SHARED_PREFIX lines (where no PREFIX_HINTS is in it): it starts with one, and one of its kind
    is on a later line (`\npod/`, stern's container name) or it is one line (a stream's piece)."""
    m = SHARED_PREFIX.match(text)
    if m is None:
        return False
    kind = m.group("container") or "\npod/"
    return kind in text[m.end():] or text.find("\n") in (-1, len(text) - 1)


def _shared_prefix(text: str, start: int, end: int) -> int:
    """The length of text[start:end]'s (a line's) SHARED_PREFIX where the next line or the last one starts with one of
    the same kind (`pod/x `, or stern's of the same container: pods' lines interleave), or is not in text (a stream's
    piece may begin or end there: what it holds of the lines around is all it can ask); 0 where none. (A neighbour's
    kind by string tests: its `pod/`, or its first blank then the container's name.)"""
    m = SHARED_PREFIX.match(text, start, end)
    if m is None or m.end() == end:
        return 0
    if end + 1 >= len(text) or not start:
        return m.end() - start
    container = m.group("container")
    for at in (end + 1, text.rfind("\n", 0, start - 1) + 1):
        if container is None:
            if text.startswith("pod/", at):
                return m.end() - start
        elif (blank := text.find(" ", at, at + 264)) > at and text.startswith(container, blank):
            return m.end() - start
    return 0


def _line_edits_in(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """_line_edits_own, or where the line has none, those behind a launcher's prefix its neighbour repeats
    (SHARED_PREFIX: what the line does not tell alone, so not remembered by the line)."""
    edits = _line_edits_own(text, start, end)
    if edits or not (shared := _shared_prefix(text, start, end)):
        return edits
    line = text[start:end]
    return _line_edits(line, 0, len(line), shared)


def _line_edits_at(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """_line_edits of text[start:end], a whole line (end at a newline or the text's end: _line_edits reads nothing
    past it then but the newline), remembered by the line."""
    if end - start > LINE_EDITS_MOST_CHARS:
        return _line_edits(text, start, end)
    edits = _line_edits_own(text, start, end)
    return [(a + start, b + start, r) for a, b, r in edits] if edits else []


def _line_edits_own(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """_line_edits_at's edits in the line's own offsets (from its start), as LINE_EDITS keeps them (line_view_windows
    places each line's once, in its window's offsets)."""
    if end - start > LINE_EDITS_MOST_CHARS:
        return [(a - start, b - start, r) for a, b, r in _line_edits(text, start, end)]
    line = text[start:end]
    edits = LINE_EDITS.get(line)
    if edits is None:
        edits = _line_edits(line, 0, len(line))
        if len(edits) <= LINE_EDITS_MOST_EDITS:
            if len(LINE_EDITS) >= LINE_EDITS_MOST_LINES:
                LINE_EDITS.clear()
            LINE_EDITS[line] = edits
    return edits


def _json_strings(text: str, start: int, end: int):
    """The JSON strings of text[start:end] (a line), in order, as (opening quote, closing quote): each closing quote the
    first after its opening one with an even run of backslashes before it. Linear: a string never closed ends the
    search (no quote inside it is tried as an opening one)."""
    at = text.find('"', start, end)
    while at >= 0:
        close = at
        while True:
            close = text.find('"', close + 1, end)
            if close < 0:
                return
            before = close
            while before > at + 1 and text[before - 1] == "\\":
                before -= 1
            if (close - before) % 2 == 0:
                break
        yield at, close
        at = text.find('"', close + 1, end)


def _line_edits(text: str, start: int, end: int, shared: int = 0) -> list[tuple[int, int, str]]:
    """The edits of one line's view (text[start:end], without its newline): its log prefix (or the `shared` characters
    at its start: _shared_prefix) cut; a quoted line's quotes (a JSON record: all but its longest string value) cut and
    its escapes decoded. None: a plain line."""
    edits: list[tuple[int, int, str]] = []
    at = start
    m = None if shared else LOG_PREFIX.match(text, start, end)
    if shared > 0:
        edits.append((start, start + shared, ""))
        at = start + shared
    elif m is not None and m.end() < end:
        edits.append((start, m.end(), ""))
        at = m.end()
    q = QUOTED_LINE.match(text, at, end)
    if q is None:
        return edits
    line_end = end - (text[end - 1:end] == "\r")
    if q.group().lstrip(" \t")[:1] == "{":   # a JSON record: its message's value (else its longest string) is the line
        best = None
        key = ""
        for opening, closing in _json_strings(text, q.end() - 1, line_end):
            if text[closing + 1:closing + 5].lstrip(" \t")[:1] == ":":
                key = text[opening + 1:closing].lower() if closing - opening <= 16 else ""
                continue
            if key in MESSAGE_KEYS:
                best = (opening, closing)
                break
            if best is None or closing - opening > best[1] - best[0]:
                best = (opening, closing)
            key = ""
        if best is None:
            return edits
        open_at, close_at = best[0] + 1, best[1]
    else:
        body = text.find("'" if text[at:q.end()].lstrip(" \tb")[:1] == "'" else "\"", at, end)
        open_at = body + 1
        close_at = text.rfind(text[body], open_at, line_end)
        if close_at < open_at:
            return edits
    edits.append((at, open_at, ""))
    for e in ESCAPE.finditer(text, open_at, close_at):
        code = e.group()
        if code == "\\n" and e.end() == close_at:
            edits.append((e.start(), e.end(), ""))   # (Docker's json-file: each record's line ends in its newline)
            continue
        edits.append((e.start(), e.end(), chr(int(code[2:], 16)) if code[1] in "ux" else SIMPLE_ESCAPES[code[1]]))
    edits.append((close_at, line_end, ""))
    return edits


SOURCE_HOLD_LINES = 256   # lines a stream's cut looks up for sources taking turns (4 * PRINTED_FORM_HOLD_LINES)
SOURCE_LOOK_LINES = 16    # lines of the last line's source (or of none) before another's: farther, no turns seen


# line_source's answers by the line's text (a prefix is matched within the line alone, no look-behind before it: its
# answer is the line's): lines of SOURCE_MOST_CHARS at most, the table emptied when it holds SOURCE_MOST_LINES
SOURCES: dict[str, str] = {}
SOURCE_MOST_CHARS = 512
SOURCE_MOST_LINES = 4096


def line_source(text: str, start: int, end: int) -> str:
    """The source (above) that text[start:end]'s prefix (a line's, its newline or not) names; "" where none."""
    if end - start > SOURCE_MOST_CHARS:
        return _line_source(text, start, end)
    line = text[start:end]
    source = SOURCES.get(line)
    if source is None:
        if len(SOURCES) >= SOURCE_MOST_LINES:
            SOURCES.clear()
        source = SOURCES[line] = _line_source(text, start, end)
    return source


def _line_source(text: str, start: int, end: int) -> str:
    """line_source, read from the text."""
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    m = LOG_PREFIX.match(text, start, end)
    if m is None or m.end() == end:
        m = SHARED_PREFIX.match(text, start, end)
        if m is None or m.end() == end:
            return ""
    elif text.startswith("|", m.end() - 1 - (text[m.end() - 1] == " ")) and (
            inner := LOG_PREFIX.match(text, m.end(), end)) is not None and inner.end() < end:
        return _source(m.group()) + _source(inner.group())   # (compose's `api-1  | ` then `[rank0]: `: the rank's too)
    return _source(m.group())


def same_source_line(text: str, line_start: int, next_start: int) -> int:
    """Where the line of the same source as text's line at line_start (its prefix's: line_source) goes on after it,
    next_start being the start of the line after it: next_start where that line is of the same source or of none
    (a value, a message's next line), or the line at line_start names none; else the first line of its source among
    the SOURCE_LOOK_LINES after (the other sources' lines between passed over: pods, ranks, hosts taking turns);
    next_start where none is (the value rules read the next line, as for one source)."""
    source = None
    at = next_start
    for _ in range(SOURCE_LOOK_LINES):
        if at >= len(text):
            return next_start
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        other = line_source(text, at, end)
        if not other:
            return at   # (a line of no source: a source's message goes on there)
        if source is None:
            source = line_source(text, line_start, next_start)
            if not source:
                return next_start
        if other == source:
            return at
        at = end + 1
    return next_start


def interleaved_sources(text: str, cut: int) -> tuple[list[int], list[str]] | None:
    """For a stream's cut: where the line before it is of a source (its prefix's: line_source) and another source's
    line is among the SOURCE_LOOK_LINES lines above it, the last SOURCE_HOLD_LINES lines' starts and sources (within
    16 KiB); else None (a plain log, or one source's lines: a few prefix matches)."""
    end = cut
    start = text.rfind("\n", 0, end - 1) + 1
    last = line_source(text, start, end)
    if not last:
        return None
    for _ in range(SOURCE_LOOK_LINES):
        if start <= 0:
            return None
        end = start
        start = text.rfind("\n", 0, end - 1) + 1
        source = line_source(text, start, end)
        if source and source != last:
            break
    else:
        return None
    floor = max(0, cut - 16384)
    starts: list[int] = []
    end = cut
    while len(starts) < SOURCE_HOLD_LINES and end > floor:
        start = text.rfind("\n", floor, end - 1) + 1
        if start == 0 and floor:
            break
        starts.append(start)
        end = start
    starts.reverse()
    ends = starts[1:] + [cut]
    return starts, [line_source(text, a, b) for a, b in zip(starts, ends)]
