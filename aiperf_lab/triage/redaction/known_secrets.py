"""The known secrets' rules (values gathered by the Redactor): each value and its escaped forms as literals, pieces of a
value (FRAGMENT characters or more, anywhere), a short value broken over lines, and the heads a stream holds back
(head_over_lines). Their cost does not grow with the number of known secrets: which literals, needles and broken values
may be in a text is asked once for all of them (Candidates: the text's characters at every s-th place, a set of
q-grams, met with an index of every key's q-grams at its first s places), and the per-value rules run only for those;
nothing is compiled per value (a piece is found by str.find and grown by comparing slices). An environment of 5,000
secret-named variables made every text cost 40 ms and triage 16-50 s, one regex compiled per needle (55,000).
Values that share a head (every HS256 JWT starts with the same 36 characters) share their first needles: each such needle
is looked for once for all of them (_SharedNeedle), not once per value at each of its places in the text (100 known
JWTs over log lines holding other JWTs cost 12.6 s a MB, 1,000 121 s).

Exact: a key (a needle, a literal, a line-end 3-gram of a broken value) that is in a text holds one of the text's
q-grams at a place that is a multiple of s (q + s - 1 is at most the key's length), so the candidates are a superset
of what is there; each candidate is then looked for as before, in the same order."""

from __future__ import annotations

import bisect
import html.entities
import itertools
import re
from collections import Counter
from typing import Callable
from urllib.parse import quote, quote_plus

from .line_views import LOG_PREFIX, MESSAGE_KEY_PATTERN, without_log_prefixes
from .names import CHAIN, FRAGMENT, WRAP_REST
from .spans import (KNOWN_VALUE, REDACTED, Span, _common_prefix, _common_suffix, _line_by_line, _longest_first, gated,
                    has, has_characters)

# Up to this many keys, each is looked for in turn (as before: a scan each, cheaper than the q-grams of a text);
# more, and an index answers for all of them in one pass (_KeyIndex: a long text, or a short one, decides where).
DIRECT_KEYS = 24
DIRECT_KEYS_GATED = 1200
DIRECT_CHARACTERS_PER_KEY = 36
SHARED_LEAST = 4   # values holding a needle at the same place after the same head: looked for once (_SharedNeedle)
KEYS_AT_ONCE = 8192   # keys indexed at a time (Candidates)
GRAM_CHUNK = 1 << 20   # a text's q-grams are read this many places at a time (a 20 MB text's set stays small)


class Candidates:
    """Which of many keys (strings of `least` characters or more) may be in a text: their indices, in order."""

    def __init__(self, keys: list[str], least: int, stopping: Callable[[], None] = lambda: None):
        self.keys = keys
        self.q = q = min(6, (least + 1) // 2)
        self.s = s = least - q + 1
        self.pattern = re.compile(f"(.{{{q}}}).{{0,{s - q}}}", re.DOTALL)
        # gram -> the key that holds it (one key: most grams of random values), and gram -> every key for the grams
        # that several keys hold (or one key twice); built by C loops, a Python step only per shared gram, KEYS_AT_ONCE
        # keys at a time (Redactor's stop is asked between: a second of C for 100,000 keys)
        chunks = range(0, len(keys), KEYS_AT_ONCE)

        def grams_of(at: int) -> tuple[list[str], list[int]]:
            stopping()
            part = keys[at:at + KEYS_AT_ONCE]
            return ([key[o:o + q] for key in part for o in range(s)],
                    [i for i in range(at, at + len(part)) for _ in range(s)])
        self.first: dict[str, int] = {}
        counts: Counter[str] = Counter()
        total = 0
        for at in chunks:
            grams, owners = grams_of(at)
            self.first.update(zip(grams, owners))
            counts.update(grams)
            total += len(grams)
        self.shared: dict[str, list[int]] = {}
        if len(self.first) < total:
            shared = {gram for gram, count in counts.items() if count > 1}
            for at in chunks:
                grams, owners = grams_of(at)
                for gram, i in itertools.compress(zip(grams, owners), map(shared.__contains__, grams)):
                    holders = self.shared.setdefault(gram, [])
                    if not holders or holders[-1] != i:
                        holders.append(i)

    def __call__(self, text: str) -> list[int]:
        step = self.s * GRAM_CHUNK
        found: set[str] = set()
        for at in range(0, len(text), step):
            found.update(self.pattern.findall(text[at:at + step + self.q - 1] if len(text) > step else text))
        hit = self.first.keys() & found   # (a view and a set: C walks the smaller; set.intersection(dict) walks the dict)
        if not hit:
            return []
        first, shared = self.first, self.shared
        return sorted({i for gram in hit for i in shared.get(gram) or (first[gram],)})


class _KeyIndex:
    """Candidates over keys of any length of MIN_SECRET_LEN or more: one index per band of lengths (12+, 8-11, 5-7;
    a key shorter than 5 is always a candidate), the indices back in the keys' order. None where looking for every
    key in turn costs less: few keys in a long text, whose literal gates (a character the text lacks) skip most of
    them for less than the q-gram pass (measured here: 45 us a key in 2 MB of log, against 28 ns a character), or
    fewer keys than a short text's 36th part (one str.find each, about 1 us)."""

    BANDS = ((12, 1 << 30), (8, 12), (5, 8))

    def __init__(self, keys: list[str], stopping: Callable[[], None] = lambda: None):
        self.size = len(keys)
        self.parts = []
        placed: set[int] = set()
        for low, high in self.BANDS:
            mine = [i for i, key in enumerate(keys) if low <= len(key) < high]
            placed.update(mine)
            if mine:
                self.parts.append((mine, Candidates([keys[i] for i in mine], low, stopping)))
        self.always = [i for i in range(len(keys)) if i not in placed]

    def __call__(self, text: str) -> list[int] | None:
        if self.size <= (DIRECT_KEYS_GATED if gated(text) else len(text) // DIRECT_CHARACTERS_PER_KEY):
            return None
        found = list(self.always)
        for mine, find in self.parts:
            found += [mine[i] for i in find(text)]
        return sorted(found) if len(self.parts) > 1 or self.always else found


# Characters bash's `printf %q` (and `${v@Q}`-less quoting by backslashes) escapes anywhere, and those it escapes first only
SHELL_BACKSLASHED = frozenset(" \t'\"\\|&;()<>!{}*[?]^$`,")
SHELL_BACKSLASHED_FIRST = frozenset("#~")
# What an encoder of every character but letters and digits leaves as it is (OWASP ESAPI's HTML encoder; and the URL's
# unreserved `-._`): a value of those and letters and digits (a JWT, a UUID) has no more forms
ENCODERS_KEEP = frozenset(",.-_ ")
# HTML's escapes for what templates escape (MarkupSafe and Go's html/template: numeric quotes; Go's `+` too)
TEMPLATE_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"}


def more_escaped_forms(value: str) -> set[str]:
    """Printed forms of a known value that names.escaped_forms leaves out, each looked for whole as a literal (a few a
    value with a character other than a letter or digit; none for a value of letters and digits only):
    URL-encoded twice (`%2524`: a URL in a query parameter), every such character as an HTML numeric entity (`&#36;`,
    `&#x24;`, `&#X24;`) or as a named one where HTML has one (`&dollar;`, `&amp;`), a template's escapes (`&#34;`
    `&#39;`, Go's `&#43;`), and shell backslashes: before every such character, and as bash's `printf %q` puts them.
    ("Such": neither a letter, a digit nor one of ENCODERS_KEEP.)"""
    other = [c for c in dict.fromkeys(value) if not c.isalnum() and c not in ENCODERS_KEEP]
    if not other:
        return set()
    forms: set[str] = set()
    for once in {quote(value, safe=""), quote(value), quote_plus(value)}:
        if "%" in once:   # (`%2F` or `%2f` first: `%252F`, `%252f`)
            forms |= {quote(once, safe=""), quote(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), once), safe="")}
    for entity in (lambda c: f"&#{ord(c)};", lambda c: f"&#x{ord(c):x};", lambda c: f"&#x{ord(c):X};",
                   lambda c: f"&#X{ord(c):X};", lambda c: _NAMED_ENTITIES.get(c) or f"&#{ord(c)};"):
        table = {ord(c): entity(c) for c in other}
        forms.add(value.translate(table))
    template = value.translate({ord(c): TEMPLATE_ESCAPES[c] for c in other if c in TEMPLATE_ESCAPES})
    forms |= {template, template.replace("+", "&#43;")}
    forms.add(value.translate({ord(c): "\\" + c for c in other}))
    forms.add("".join("\\" + c if c in SHELL_BACKSLASHED or (c in SHELL_BACKSLASHED_FIRST and not k) else c
                      for k, c in enumerate(value)))
    forms.discard(value)
    return forms


def _named_entities() -> dict[str, str]:
    """One named HTML entity per character that has one (the shortest, as html5 lists them with their `;`)."""
    named: dict[str, str] = {}
    for name, character in sorted(html.entities.html5.items(), key=lambda item: (len(item[0]), not item[0].islower(), item[0])):
        if len(character) == 1 and name.endswith(";") and not character.isalnum():
            named.setdefault(character, "&" + name)
    return named


_NAMED_ENTITIES = _named_entities()


LINE_END_GRAMS = re.compile(r"([^\n]{3})\r?\n")   # the 3 characters before each line break (a broken value's first piece)


class KnownSecrets:
    """The known secrets' rules over a text (see the module's docstring). `literals`: every form looked for whole;
    `pieces`: per value, its needles (offset, the FRAGMENT characters there, the CHAIN characters after them); `broken`:
    the values of 8 to 23 characters printed in pieces over lines; `split_values`: the values those two rules find over
    lines, whose heads a stream holds back."""

    def __init__(self, literals: list[str], piece_values: list[str], broken: list[str], split_values: list[str],
                 stopping: Callable[[], None] = lambda: None):
        self.literals = literals
        self.longest_literal = max(map(len, literals), default=0)
        self.pieces: list[tuple[str, list[tuple[int, str, str]]]] = []
        for k, value in enumerate(piece_values):
            if not k % 1024:
                stopping()   # (Redactor's stop: a stop signal while thousands of secrets are gathered)
            offsets: dict[str, int] = {}
            for at in [*range(0, len(value) - FRAGMENT + 1, FRAGMENT), len(value) - FRAGMENT]:
                offsets.setdefault(value[at:at + FRAGMENT], at)
            self.pieces.append((value, [(at, needle, value[at + FRAGMENT:at + FRAGMENT + CHAIN])
                                        for needle, at in offsets.items()]))
        # (a needle that several values hold at the same place, after the same head (every HS256 JWT's header): looked
        # for once for all of them, _SharedNeedle; each value keeps its own needles only)
        self._own: list[list[tuple[int, str, str]]] = [needle_list for _value, needle_list in self.pieces]
        self._shared: list[_SharedNeedle] = []
        self._shared_of: dict[int, list[int]] = {}
        heads: dict[tuple[int, str], list[int]] = {}
        for k, (value, needle_list) in enumerate(self.pieces):
            for at, _needle, _rest in needle_list:
                heads.setdefault((at, value[:at + FRAGMENT]), []).append(k)
        for (at, head), holders in sorted(heads.items()):
            needle = head[at:]
            if len(holders) < SHARED_LEAST or _overlaps_itself(needle):
                continue
            # (a value's shared needles are its first ones, so its own come after them as they did; once in it)
            holders = [k for k in holders if self._own[k][0][0] == at and self.pieces[k][0].find(needle) == at
                       and self.pieces[k][0].find(needle, at + 1) < 0]
            if len(holders) < SHARED_LEAST:
                continue
            for k in holders:
                self._own[k] = self._own[k][1:]
                self._shared_of.setdefault(k, []).append(len(self._shared))
            self._shared.append(_SharedNeedle(at, head, [self.pieces[k][0] for k in holders]))
        self.broken = broken
        self._broken_patterns: dict[int, re.Pattern[str]] = {}
        self.split_values = split_values
        self.split_reach = max(map(len, split_values), default=0)
        self._head_memo: dict[tuple[str, str | None], int] = {}   # head_over_lines' answers (end - where) by its lines
        # (literals and needles in one index: one pass over a text for both rules, remembered for the last text)
        needles = [needle for _value, needle_list in self.pieces for _at, needle, _rest in needle_list]
        self._needle_owner = [k for k, (_value, needle_list) in enumerate(self.pieces) for _ in needle_list]
        # (a value's own needles by their index among all needles: the first own one's, its own follow it in order)
        self._own_first = list(itertools.accumulate((len(needle_list) for _value, needle_list in self.pieces), initial=0))
        self._own_first = [first + len(needle_list) - len(own) for first, (_value, needle_list), own
                           in zip(self._own_first, self.pieces, self._own)]
        stopping()
        self._index = _KeyIndex(literals + needles, stopping) if len(literals) + len(needles) > DIRECT_KEYS else None
        stopping()
        self._last: tuple = (None, None, None, None)
        # (a broken value's first piece ends a line: its last 3 characters, some 3 of the value's, end one in the text)
        self._broken_index: dict[str, list[int]] | None = None
        if len(broken) > DIRECT_KEYS:   # (a line-end pass, cheaper than any: always)
            self._broken_index = {}
            self._broken_always = [i for i, value in enumerate(broken) if "\r" in value]
            for i, value in enumerate(broken):
                for gram in {value[j:j + 3] for j in range(len(value) - 3)}:
                    self._broken_index.setdefault(gram, []).append(i)
        # (the heads of many split values: by their first 8 characters, and the shorter heads in sorted order)
        self._sorted_split = sorted(set(split_values)) if len(split_values) > DIRECT_KEYS else None
        self._split_by_head: dict[str, list[str]] = {}
        if self._sorted_split is not None:
            for value in self._sorted_split:
                if len(value) > 8:
                    self._split_by_head.setdefault(value[:8], []).append(value)

    def _candidates(self, text: str) -> tuple[list[int] | None, list[int] | None, dict[int, list[int]] | None]:
        """The literals and the values with a needle that may be in text (by index), or None (every one); and per
        such value, which of its needles may be (their indices among all needles, in order; None: every one)."""
        last = self._last
        if last[0] is text:
            return last[1:]
        found = self._index(text) if self._index is not None else None
        if found is None:
            answer: tuple = (None, None, None)
        else:
            split = bisect.bisect_left(found, len(self.literals))
            owner = self._needle_owner
            by_value: dict[int, list[int]] = {}
            for key in itertools.islice(found, split, None):
                needle = key - len(self.literals)
                by_value.setdefault(owner[needle], []).append(needle)
            answer = (found[:split], sorted(by_value), by_value)
        self._last = (text, *answer)
        return answer

    # ---- the rules ------------------------------------------------------------------------------

    def literal_spans(self, text: str) -> list[Span]:
        spans: list = []
        append = spans.append
        gate = gated(text)   # (a known value with a character the text lacks is not searched for)
        literals = self.literals
        chosen = self._candidates(text)[0]
        for k in range(len(literals)) if chosen is None else chosen:
            literal = literals[k]
            if gate and not has_characters(text, literal):
                continue
            size = len(literal)
            at = text.find(literal)
            while at >= 0:
                append((at, at + size, REDACTED, KNOWN_VALUE, at))
                at = text.find(literal, at + size)
        return spans

    def fragment_spans(self, text: str) -> list[Span]:
        """Pieces of known secrets, each grown to as far as it matches the secret; a piece that reaches a line's end
        with the rest of its secret starting the next line (a wrap) takes that rest too, and one that starts a line
        takes the secret's head ending the line before. A needle's search goes on after the piece it found, and skips
        what an earlier needle of the same secret covered, so each character is looked at a bounded number of times
        per needle. Only the values with a needle among the text's candidates are read."""
        spans: list[Span] = []
        _literals, chosen, needles_of = self._candidates(text)
        if chosen is None:
            chosen = range(len(self.pieces))
        gate = gated(text)   # (a needle not in a long text is not searched for: `in` scans faster than the scan)
        shared_of = self._shared_of
        shared = sorted({g for k in chosen if k in shared_of for g in shared_of[k]})
        for g in shared:
            self._shared[g].spans(text, gate, spans)
        owns = [(k, self._own[k]) for k in chosen]
        places = None
        if needles_of is not None:   # (only a value's needles that may be in text: the others find nothing)
            owns = [(k, [own[n - first] for n in needles_of[k] if n >= first])
                    for k, own in owns if own and (first := self._own_first[k]) is not None]
            if gate:   # (a long text: each needle's places found once, not once per value that holds it)
                present = {needle for _k, own in owns for _at, needle, _chain in own}
                if len(present) > NEEDLE_SCANS_MOST:   # (many: those in it by one set of its FRAGMENT-grams first)
                    present = _in_text(text, present)
                places = {needle: spots for needle in present if (spots := _places(text, needle))}
                owns = [(k, [needle for needle in own if needle[1] in places]) for k, own in owns]
                gate = False
        for k, own in owns:
            if own:
                value = self.pieces[k][0]
                groups = [self._shared[g] for g in shared_of.get(k, ())]
                _value_pieces(text, value, own, gate, spans, _covering(text, value, groups) if groups else None, places)
        return spans

    def broken_spans(self, text: str) -> list[Span]:
        """A short known secret broken over lines: each line's piece becomes [REDACTED] (a regex per value, its first
        3 characters then each next one with an optional line break before it, made for a value that may be there)."""
        spans: list[Span] = []
        if self._broken_index is None:
            chosen = range(len(self.broken))
        else:
            ends = set(LINE_END_GRAMS.findall(text))
            if '"' in text and ("}\n" in text or "}\r\n" in text):   # (session 24: and each JSON record's message's end)
                ends |= _json_message_grams(text)
            grams = self._broken_index.keys() & ends
            chosen = sorted({i for gram in grams for i in self._broken_index[gram]}.union(self._broken_always))
        for i in chosen:
            pattern = self._broken_patterns.get(i)
            if pattern is None:
                value = self.broken[i]
                pattern = self._broken_patterns[i] = re.compile(re.escape(value[:WRAP_REST]) + "".join(
                    r"(?:\r?\n)?" + re.escape(c) for c in value[WRAP_REST:]))
            for m in pattern.finditer(text):
                start, end = m.span()
                if text.find("\n", start, end) >= 0:
                    spans.append((start, end, _line_by_line(text, start, end), KNOWN_VALUE, start))
            if "\r" not in self.broken[i]:
                _broken_behind_prefixes(text, self.broken[i], spans)
        return spans

    def head_over_lines(self, text: str, end: int) -> int:
        """Where a known secret printed over lines may have begun before `end` (a line's end): the start of the
        line where the longest head of such a value that text[:end] ends with, line breaks aside, begins (a
        stream holds back from there until the next lines are read: print(v[:4]); print(v[4:7]); ... as one
        piece each); `end` where none does. Any head counts, one character too: holding is always safe. Where
        the next lines are in text already (a cut the stream moved up: _following), only a head whose value goes
        on there counts: a value's rest comes right after its head, so a line is held only for its own rest (the
        heads of one character that nearly every line ends with, given many values, held each line above the last
        in turn until a stream's rounds ran out, and a cut fell between a wrapped value's lines)."""
        if not self.split_values:
            return end
        following = _following(text, end)
        reach = self.split_reach
        first = max(0, end - 3 * reach)
        key = None
        if end and text[end - 1] == "\n" and text.rfind("}", max(0, end - 8), end) < 0:
            # (no JSON record's end: the answer is read from first's line to end and `following` alone, kept by
            # them: a stream's hold asks it of the same lines round after round, try after try)
            line = text.rfind("\n", 0, first) + 1
            if end - line <= HEAD_MEMO_MOST_CHARS:
                key = (text[line:end], following)
                if (back := self._head_memo.get(key)) is not None:
                    return end - back
        where = self._head_over_lines(text, end, following, reach, first)
        if key is not None:
            if len(self._head_memo) >= HEAD_MEMO_MOST:
                self._head_memo.clear()
            self._head_memo[key] = end - where
        return where

    def _head_over_lines(self, text: str, end: int, following: str | None, reach: int, first: int) -> int:
        kept = [i for i in range(first, end) if text[i] not in "\r\n"]   # (a few dozen characters)
        where = self._head_start(text, end, kept[-reach:], following)
        if end and text[end - 1] == "\n" and text.rfind("}", max(0, end - 8), end) >= 0 and (
                closing := _json_message_end(text, end)) > 0:
            # (session 24) a JSON log record whose message ends with a head: its rest opens the next record's message
            line = text.rfind("\n", 0, end - 1) + 1
            heads = list(range(max(_json_message_start(text, line, end), closing - reach), closing))
            below = line   # (the records before it whose whole message is a piece: a value over three records)
            while len(heads) < reach and below > 0 and (before := _json_message_end(text, below)) > 0:
                above = text.rfind("\n", 0, below - 1) + 1
                opens = _json_message_start(text, above, below)
                more = range(max(opens, before - (reach - len(heads))), before)
                heads = list(more) + heads
                if more.start > opens or not more:
                    break
                below = above
            # (where the next record is here: only a head whose rest opens its message holds; else until it comes)
            after = None if (next_end := text.find("\n", end)) < 0 else (
                text[opens_next:next_end] if (opens_next := _json_message_start(text, end, next_end)) >= 0 else "\x00")
            if (held := self._head_start(text, closing, heads, after)) < closing:
                where = min(where, held)
            if text.find('\\"', line, end) >= 0:
                where = min(where, self._nested_record_head(text, line, end, reach))
        # (and read without the prefixes of the lines after the first, `[rank0]: `: a value over three such lines)
        prefixes = [(line + 1, after) for line in _line_breaks(text, first, end - 1)
                    if (after := _after_prefix(text, line + 1)) > line + 1]
        if prefixes:
            cut = {i for start, after in prefixes for i in range(start, after)}
            kept = [i for i in kept if i not in cut]
            where = min(where, self._head_start(text, end, kept[-reach:], following))
        return where

    def _nested_record_head(self, text: str, line: int, end: int, reach: int) -> int:
        """(session 25) head_over_lines for a JSON record whose message is a JSON record itself (Docker's json-file of
        an app that logs JSON: `{"log":"{\\"event\\": \\"using key sk-...\\"}\\n"}`): the line's start where
        the inner message (as line_views reads a view of a view) ends with a value's head, the next record's inner
        message going on with its rest where it is here; `end` where not. (The text reads the two records' views
        together: the wrap rules see the plain lines.)"""
        tail = _inner_message(text[line:end])[-reach:]
        if not tail:
            return end
        next_end = text.find("\n", end)
        following = None if next_end < 0 else _inner_message(text[end:next_end + 1])
        return line if self._head_start(tail, len(tail), list(range(len(tail))), following) < len(tail) else end

    def _head_start(self, text: str, end: int, kept: list[int], following: str | None = None) -> int:
        """head_over_lines for the characters of text at `kept` (in order) read as one (and `following` after them,
        where known: _following)."""
        tail = "".join(map(text.__getitem__, kept))
        if not tail:
            return end
        if self._sorted_split is not None:
            longest = self._longest_head(tail, following)
            return text.rfind("\n", 0, kept[len(kept) - longest]) + 1 if longest else end
        last = tail[-1]
        where = end
        for value in self.split_values:   # the longest head first: only where the value holds the tail's last
            at = value.rfind(last, 0, min(len(value) - 1, len(tail)))
            while at >= 0:
                if tail.endswith(value[:at + 1]) and _goes_on(value, at + 1, following):
                    where = min(where, text.rfind("\n", 0, kept[len(kept) - at - 1]) + 1)
                    break
                at = value.rfind(last, 0, at)
        return where

    def _longest_head(self, tail: str, following: str | None = None) -> int:
        """The longest h such that tail ends with the first h characters of a split value longer than h (0: none),
        the value going on with `following` where it is known (_goes_on): what the loop of head_over_lines finds,
        for many values (the head furthest back decides its answer)."""
        size = len(tail)
        by_head = self._split_by_head
        for h in range(size, 8, -1):   # a head of 9+ characters: the values that begin with its first 8
            values = by_head.get(tail[size - h:size - h + 8])
            if values and any(len(v) > h and tail.endswith(v[:h]) and _goes_on(v, h, following) for v in values):
                return h
        ordered = self._sorted_split
        for h in range(min(size, 8), 0, -1):   # shorter: the first value not before it in sorted order begins with it
            head = tail[size - h:]
            if following is not None:   # (the values that begin with the head and go on with `following`)
                if _begins_one(ordered, head + following[:GOES_ON]) or any(
                        _is_one(ordered, head + following[:k]) for k in range(1, min(GOES_ON, len(following)))):
                    return h
                continue
            if _begins_one(ordered, head):
                return h
        return 0


HEAD_MEMO_MOST_CHARS = 1024   # head_over_lines keeps its answer where its lines are this long at most
HEAD_MEMO_MOST = 4096   # answers kept at most (emptied when full)
GOES_ON = 3   # characters of a head's value compared with the text after it (_goes_on)


def _goes_on(value: str, at: int, following: str | None) -> bool:
    """Whether value, its head value[:at] ending a line, may go on in `following` (the next lines' characters, their
    line breaks and prefixes aside; None: not known yet, so it may). A blank where the line broke may be the break's
    (a passphrase's words over two lines: `correct` / `horse battery staple`)."""
    if following is None:
        return True
    size = min(GOES_ON, len(following))
    return following.startswith(value[at:at + size]) or (
        value[at:at + 1] == " " and following.startswith(value[at + 1:at + 1 + size]))


def _begins_one(ordered: list[str], head: str) -> bool:
    """Whether a value of `ordered` (sorted) longer than head begins with it."""
    i = bisect.bisect_left(ordered, head)
    if i < len(ordered) and ordered[i] == head:
        i += 1
    return i < len(ordered) and ordered[i].startswith(head)


def _is_one(ordered: list[str], value: str) -> bool:
    i = bisect.bisect_left(ordered, value)
    return i < len(ordered) and ordered[i] == value


NOT_LINE_BREAK = re.compile(r"[^\r\n]")


def _following(text: str, end: int) -> str | None:
    """The characters of the whole lines after `end` (a line's end) in text, their prefixes (_after_prefix) and line
    breaks aside, GOES_ON of them at most; None where fewer are known (a line not ended yet: the text may go on)."""
    got = ""
    at = stretch = end   # (stretch: where the lines that gave nothing, up to `at`, begin)
    while len(got) < GOES_ON:
        if text.startswith(("\n", "\r"), at):   # empty lines give nothing: a run of them passed over in C (to the
            # last line break before the next other character; the "\r"s after it are the next line's)
            # (found by a search: `text[at:].lstrip` copied the text's rest at each cut)
            at = text.rfind("\n", at, other.start() if (other := NOT_LINE_BREAK.search(text, at)) else len(text)) + 1 or at
        newline = text.find("\n", at)
        if newline < 0:
            return None
        piece = text[_after_prefix(text, at):newline].rstrip("\r")
        got += piece
        line, at = at, newline + 1
        if piece:
            stretch = at
            continue
        # Lines of a log prefix alone repeated (`[rank0]: `; `[rank0]: ` and `[rank1]: ` in turn, empty lines or not
        # between): each copy of this line, or of the stretch of lines that gave nothing up to it, gives nothing as it
        # did (a line's prefix is read within the line); the copies are passed over in C
        if text.startswith(block := text[line:at], at) or (
                at - stretch <= COPIED_STRETCH_MOST and text.startswith(block := text[stretch:at], at)):
            at = stretch = _copies_end(text, block, at)
    return got[:GOES_ON]


COPIED_STRETCH_MOST = 1024   # (a longer stretch of lines that gave nothing is not looked for again after it)


COPIES_BLOCK_MOST = 1 << 20   # (a block of copies is made no longer: a 20 MB run is passed over in 1 MiB steps)


def _copies_end(text: str, line: str, at: int) -> int:
    """Where the run of copies of line that starts at `at` in text ends: blocks of copies doubled while text goes on
    with them (COPIES_BLOCK_MOST characters at most), then halved (each block's startswith a C scan; a run of n
    copies costs about 2 log2(n) steps)."""
    block = line
    while text.startswith(block, at):
        at += len(block)
        if len(block) < COPIES_BLOCK_MOST:
            block += block
    while len(block) > len(line):
        block = block[:len(block) // 2]
        if text.startswith(block, at):
            at += len(block)
    return at


# A needle and the longest run of its chain after it, as one regex (the engine finds and grows it in C: a text of pieces,
# a known secret's head on every line, costs a third less than str.find and slices compared in Python), compiled the
# first time a text's candidates ask for it: a Redactor of thousands of secrets compiles none it does not search with.
NEEDLE_PATTERNS: dict[tuple[str, str], re.Pattern[str]] = {}
NEEDLE_PATTERNS_MOST = 4096
# A needle's first places in a text are found by str.find and grown by comparing slices (what its pattern matches): the
# pattern's compile (48 nested groups) costs about 5 ms, the time of a few thousand such places, so it is compiled only
# for a needle found this many times in one text (1,000 known JWTs compiled thousands: 55 s of CPU a MB).
NEEDLE_FINDS_BEFORE_PATTERN = 256
# More needles than this that may be in a long text: which are is asked of its FRAGMENT-grams at once (about 250 ns a
# character here, the time of some 750 scans by str.find), NEEDLE_GRAM_CHUNK characters at a time (a 20 MB text's set
# stays small).
NEEDLE_SCANS_MOST = 768
NEEDLE_GRAM_CHUNK = 1 << 18


def _needle_pattern(needle: str, chain: str) -> re.Pattern[str]:
    pattern = NEEDLE_PATTERNS.get((needle, chain))
    if pattern is None:
        if len(NEEDLE_PATTERNS) >= NEEDLE_PATTERNS_MOST:
            NEEDLE_PATTERNS.clear()
        pattern = NEEDLE_PATTERNS[needle, chain] = re.compile(re.escape(needle) + _longest_first(chain))
    return pattern


def _in_text(text: str, needles: set[str]) -> set[str]:
    """Which of needles (FRAGMENT characters each) are in text: its FRAGMENT-grams, a chunk at a time, met with them."""
    found: set[str] = set()
    for at in range(0, len(text), NEEDLE_GRAM_CHUNK):
        part = text[at:at + NEEDLE_GRAM_CHUNK + FRAGMENT - 1]
        size = len(part) - FRAGMENT + 1
        found |= needles.intersection(map(part.__getitem__, map(slice, range(size), range(FRAGMENT, size + FRAGMENT))))
    return found


def _places(text: str, needle: str) -> list[int]:
    """Every place of needle in text (overlapping ones too: what str.find from any place finds)."""
    found = []
    at = text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _covering(text: str, value: str, groups: list[_SharedNeedle]) -> Callable[[int], tuple[int, int] | None]:
    """The first (by start, then end) of the pieces of value that its shared needles found in text (as _value_pieces
    found them, one needle after another) that holds a place, or None: where a later needle's search of the value goes on."""
    def first(start: int) -> tuple[int, int] | None:
        best = None
        for group in groups:
            rest = value[group.offset + FRAGMENT:]
            ats, lefts = group.ats, group.lefts
            for j in range(bisect.bisect_right(ats, start - FRAGMENT - len(rest)),
                           bisect.bisect_right(ats, start + group.offset)):
                at = ats[j]
                begin = at - lefts[j]
                if begin > start or not text.startswith(rest[:max(0, start + 1 - at - FRAGMENT)], at + FRAGMENT):
                    continue   # (its piece there ends before start: the text and rest differ before it)
                ahead = text[at + FRAGMENT:at + FRAGMENT + len(rest)]
                end = at + FRAGMENT + _common_prefix(ahead, rest[:len(ahead)])
                if end > start and (best is None or (begin, end) < best):
                    best = (begin, end)
        return best
    return first


# (session 24) a JSON log record's end after its message's last character (the message's closing quote, an escaped line
# break before it as Docker's json-file writes `...\\n"`, the record's other keys and its brace), and the next record's
# start up to its message's first character (line_views.MESSAGE_KEYS, in any case: MESSAGE_KEY_PATTERN): a value
# wrapped over two records
JSON_RECORD_END = re.compile(r"(?:\\n)?\"[^\n]{0,512}?\}[ \t]{0,4}\r?\n")
JSON_MESSAGE_START = re.compile(rf"[ \t]{{0,16}}\{{[^\n]{{0,256}}?\"{MESSAGE_KEY_PATTERN}\"[ \t]{{0,4}}:[ \t]{{0,4}}\"")


def _json_message_start(text: str, line: int, end: int | None = None) -> int:
    """Where the message of the JSON log record that the line at `line` holds (behind a log prefix too: `[rank0]: {`)
    begins (its first character), or -1 where the line is no such record."""
    if (m := JSON_MESSAGE_START.match(text, line, len(text) if end is None else end)) is None and (
            (after := _after_prefix(text, line)) == line
            or (m := JSON_MESSAGE_START.match(text, after, len(text) if end is None else end)) is None):
        return -1
    return m.end()


def _inner_message(line: str) -> str:
    """A line (with its line break) as a view of its view reads it (line_views.without_log_prefix), and where that is a
    JSON log record still (a record inside a record inside a record), its message; without the line break."""
    view = without_log_prefixes(line)
    if (start := _json_message_start(view, 0)) >= 0 and (close := _json_message_end(view, len(view))) > 0:
        return view[start:close]
    return view.rstrip("\r\n")


def _json_message_end(text: str, end: int) -> int:
    """Where the message of the JSON log record on the line that ends at `end` (a line break's end) ends (its closing
    quote; before an escaped line break there), or -1 where the line is no such record."""
    line = text.rfind("\n", 0, end - 1) + 1
    if (start := _json_message_start(text, line, end)) < 0:
        return -1
    quote = text.find('"', start, end)
    while quote > 0 and text[quote - 1] == "\\" and not text.startswith("\\n", quote - 2):
        quote = text.find('"', quote + 1, end)
    if quote < 0:
        return -1
    return quote - 2 if text.startswith("\\n", quote - 2) else quote


# (each JSON string value's closing quote before a `,` or the record's `}`, a record's message's among them: led by its
# literal, one scan in C)
JSON_VALUE_END = re.compile(r"\"(?=[ \t]{0,4}[,}])")


def _json_message_grams(text: str) -> set[str]:
    """The 3 characters before each JSON log record's message's end (broken_spans' grams of a value's first piece; before
    Docker's escaped line break there), and before each other string value's end of a record (more grams only choose
    more values to look for)."""
    ends = [m.start() for m in JSON_VALUE_END.finditer(text)]
    return {text[at - 3:at] for at in ends} | {text[at - 5:at - 2] for at in ends if text.startswith("\\n", at - 2)}


def _head_in_record_before(text: str, begin: int, head: str, spans: list[Span]) -> None:
    """(session 24) A known value's short head at the end of the JSON log record's message on the line before, where its
    piece opens this line's record's message at `begin`."""
    line = text.rfind("\n", 0, begin) + 1
    if line == 0 or _json_message_start(text, line, begin + 1) != begin:
        return
    closing = _json_message_end(text, line)
    if closing > 0 and text.startswith(head, closing - len(head)):
        spans.append((closing - len(head), closing, REDACTED, KNOWN_VALUE, closing - len(head)))


def _rest_on_next_line(text: str, end: int, tail: str, begin: int, spans: list[Span]) -> None:
    """A known value's short rest (tail) at the start of the line after `end`, where its piece ends a line, or right
    after that line's launcher's or log's prefix (`[rank0]: `, srun's `0: `: each printed line has one)."""
    rest = end + (2 if text.startswith("\r\n", end) else 1 if text.startswith("\n", end) else 0)
    if rest == end:
        if (record := JSON_RECORD_END.match(text, end)) is not None and (
                at := _json_message_start(text, record.end())) >= 0:
            # (session 24) a JSON log record's message ends with the piece, the next record's message opens with the
            # rest (a line wrapped, then each line logged as a record: structlog, Docker's json-file)
            part = tail[1:] if tail[0] == " " and not text.startswith(tail, at) else tail
            if part and text.startswith(part, at):
                spans.append((at, at + len(part), REDACTED, KNOWN_VALUE, begin))
        return
    for at in (rest, _after_prefix(text, rest)):
        part = tail[1:] if tail[0] == " " and not text.startswith(tail, at) else tail
        # (a passphrase's line broken at a blank: the break stands for the blank)
        if part and text.startswith(part, at):
            spans.append((at, at + len(part), REDACTED, KNOWN_VALUE, begin))
            return


def _broken_behind_prefixes(text: str, value: str, spans: list[Span]) -> None:
    """A short known value broken over lines (KnownSecrets.broken_spans) whose later lines begin with a launcher's or
    log's prefix (`[rank0]: `, srun's `0: `, a timestamp: each printed line has one): each line's piece [REDACTED], the
    prefixes kept. Its first WRAP_REST characters are looked for (str.find), then it is read on from each place."""
    first, size = value[:WRAP_REST], len(value)
    at = text.find(first)
    while at >= 0:
        pos, i, start, pieces, behind = at + WRAP_REST, WRAP_REST, at, [], False
        while i < size:
            if text.startswith(value[i], pos):
                pos += 1
                i += 1
                continue
            line = pos + (2 if text.startswith("\r\n", pos) else 1 if text.startswith("\n", pos) else 0)
            if line == pos:
                # (session 24) a JSON log record's message ends here, the next record's message goes on with the rest
                if (record := JSON_RECORD_END.match(text, pos)) is None or (
                        message := _json_message_start(text, record.end())) < 0 or not text.startswith(value[i], message):
                    break
                pieces.append((start, pos))
                start = pos = message
                behind = True
                continue
            pieces.append((start, pos))
            if not text.startswith(value[i], line):   # (a line broken plainly: the regex's, unless a prefix follows)
                if (after := _after_prefix(text, line)) == line or not text.startswith(value[i], after):
                    break
                line, behind = after, True
            start = pos = line
        if i == size and behind:
            spans += [(a, b, REDACTED, KNOWN_VALUE, at) for a, b in [*pieces, (start, pos)]]
            at = text.find(first, pos)
        else:
            at = text.find(first, at + 1)


def _line_breaks(text: str, start: int, end: int) -> list[int]:
    """Where the line breaks (\\n) of text[start:end] are."""
    found = []
    at = text.find("\n", start, end)
    while at >= 0:
        found.append(at)
        at = text.find("\n", at + 1, end)
    return found


def _after_prefix(text: str, start: int) -> int:
    """Where the line that starts at `start` goes on after its launcher's or log's prefix (line_views.LOG_PREFIX);
    start where it has none."""
    m = LOG_PREFIX.match(text, start)
    return m.end() if m is not None else start


PREFIX_ENDS = " \t:]|"   # (the last character of every LOG_PREFIX)


def _line_start_at(text: str, begin: int) -> int:
    """The start of begin's line where begin starts it or comes right after its prefix (_after_prefix); else -1."""
    if begin == 0 or text[begin - 1] == "\n":
        return begin
    if text[begin - 1] not in PREFIX_ENDS:
        return -1
    start = text.rfind("\n", 0, begin) + 1
    return start if start and _after_prefix(text, start) == begin else -1


def _head_on_line_before(text: str, begin: int, head: str, spans: list[Span]) -> None:
    """A known value's short head at the end of the line before `begin`, where its piece starts a line."""
    before = begin - 1 - (text[begin - 2:begin - 1] == "\r")
    if head[-1] == " " and not text.startswith(head, before - len(head)):
        head = head[:-1]
    if head and before >= len(head) and text.startswith(head, before - len(head)):
        spans.append((before - len(head), before, REDACTED, KNOWN_VALUE, before - len(head)))


def _value_pieces(text: str, value: str, needles: list[tuple[int, str, str]], gate: bool, spans: list[Span],
                  shared: Callable[[int], tuple[int, int] | None] | None = None,
                  places: dict[str, list[int]] | None = None) -> None:
    """The pieces of one known value in text (KnownSecrets.fragment_spans), appended to spans. Each needle is found
    with the longest prefix of the CHAIN characters after it by one regex (_needle_pattern), then grown further by
    comparing slices."""
    size = len(text)
    covered: list[tuple[int, int]] = []  # this secret's pieces so far, in order
    whole = len(value)
    for offset, needle, chain in needles:
        if gate and not has(text, needle):
            continue
        found: list[tuple[int, int]] = []
        index = 0
        at = 0
        pieces = len(covered)
        after = offset + FRAGMENT
        search = 0   # (where the last match ended: the next is looked for from there, or from `at` when further)
        pattern = NEEDLE_PATTERNS.get((needle, chain))
        spots = places.get(needle) if places is not None else None   # (its places in text, found before)
        finds = 0
        while True:
            if pattern is not None:
                if (m := pattern.search(text, search if search > at else at)) is None:
                    break
                start, stop = m.span()
            else:   # (str.find and the chain compared: what the pattern finds, without its compile first)
                if spots is None:
                    if (start := text.find(needle, search if search > at else at)) < 0:
                        break
                elif (j := bisect.bisect_left(spots, search if search > at else at)) < len(spots):
                    start = spots[j]
                else:
                    break
                ahead = text[start + FRAGMENT:start + FRAGMENT + len(chain)]
                stop = start + FRAGMENT + _common_prefix(ahead, chain[:len(ahead)])
                finds += 1
                if finds == NEEDLE_FINDS_BEFORE_PATTERN:
                    pattern = _needle_pattern(needle, chain)
            search = stop
            if pieces or shared is not None:
                holder = None   # (the first piece so far of this value, by start, that ends after here)
                if pieces:
                    while index < pieces and covered[index][1] <= start:
                        index += 1
                    if index < pieces:
                        holder = covered[index]
                if shared is not None and (first := shared(start)) is not None and (holder is None or first < holder):
                    holder = first
                if holder is not None and holder[0] <= start:
                    at = holder[1]
                    continue
            right = stop - start - FRAGMENT
            # the whole secret (a literal span has it): the search reached its end, or grew as far as it may
            if (right == whole - after or right == CHAIN) and start >= offset and text.startswith(
                    value, start - offset):
                at = start - offset + whole
                found.append((start - offset, at))
                continue
            if right == CHAIN:  # grown as far as the chain goes: go on by comparing slices
                room = min(len(value) - offset - FRAGMENT, size - start - FRAGMENT)
                right = _common_prefix(text[start + FRAGMENT:start + FRAGMENT + room],
                                       value[offset + FRAGMENT:offset + FRAGMENT + room])
            left = 0
            if offset and start and text[start - 1] == value[offset - 1]:
                room = min(offset, start)
                left = _common_suffix(text[start - room:start], value[offset - room:offset])
            begin, end = start - left, start + FRAGMENT + right
            spans.append((begin, end, REDACTED, KNOWN_VALUE, begin))
            found.append((begin, end))
            if 0 < whole - after - right < FRAGMENT:  # the rest of the secret, short: maybe on the next line
                _rest_on_next_line(text, end, value[after + right:], begin, spans)
            if 0 < offset - left < FRAGMENT and (line := _line_start_at(text, begin)) >= 0:
                _head_on_line_before(text, line, value[:offset - left], spans)
            elif 0 < offset - left < FRAGMENT and text[begin - 1:begin] == '"':
                _head_in_record_before(text, begin, value[:offset - left], spans)
            at = end
        if found:
            covered = sorted(covered + found)


def _overlaps_itself(needle: str) -> bool:
    """Whether two of needle's places in a text may overlap (a head of it is a tail of it)."""
    return any(needle.endswith(needle[:i]) for i in range(1, len(needle)))


class _SharedNeedle:
    """A needle that several known values hold at the same offset, each after the same head (`head`: their characters
    up to the needle's end), once in each: its places in a text are found once, and at each the values' pieces are
    what _value_pieces makes of them value by value, merged: the head before is grown once (the values share it), the
    rest after by the values' rests in sorted order (the two nearest the text's rest grow furthest); only the values
    that may reach their end there (whole, or a short rest left for the next line) are read one by one: a short rest
    always, a longer one where the text holds all but its last FRAGMENT - 1 characters (looked up by that head of it,
    one lookup per length: a value shorter than the others made every value be read at every place, h19j). The pieces
    of one place overlap (each holds the needle) and are all [REDACTED] from the same start: the longest stands for all."""

    def __init__(self, offset: int, head: str, values: list[str]):
        self.offset, self.head, self.needle = offset, head, head[offset:]
        after = offset + FRAGMENT
        rests = sorted({value[after:] for value in values})
        self.short = [rest for rest in rests if len(rest) < FRAGMENT]
        self.long = [rest for rest in rests if len(rest) >= FRAGMENT]
        # (a longer rest may end at a place, or leave fewer than FRAGMENT characters for the next line, only where the
        # text holds its first len - FRAGMENT + 1 characters: per such length, those heads and their rests)
        self.ending: dict[int, dict[str, list[str]]] = {}
        for rest in self.long:
            size = len(rest) - FRAGMENT + 1
            self.ending.setdefault(size, {}).setdefault(rest[:size], []).append(rest)
        self.longest = max(map(len, rests))
        self.ats: list[int] = []
        self.lefts: list[int] = []

    def spans(self, text: str, gate: bool, spans: list[Span]) -> None:
        needle, offset, head = self.needle, self.offset, self.head
        self.ats, self.lefts = ats, lefts = [], []   # (its places in this text, and how far each grew back)
        if gate and not has(text, needle):
            return
        longs, ending = self.long, self.ending.items()
        at = text.find(needle)
        while at >= 0:
            left = 0
            if offset and at and text[at - 1] == head[offset - 1]:
                room = min(offset, at)
                left = _common_suffix(text[at - room:at], head[offset - room:offset])
            ats.append(at)
            lefts.append(left)
            whole_head = left == offset
            ahead = text[at + FRAGMENT:at + FRAGMENT + self.longest]
            begin = at - left
            right = -1   # (the furthest any value grows here, but one matched whole: a literal span has it)
            reading = list(self.short)
            for size, heads in ending:
                if len(ahead) >= size and (found := heads.get(ahead[:size])) is not None:
                    reading += found
            for rest in reading:
                value_right = _common_prefix(ahead[:len(rest)], rest[:len(ahead)]) if rest and ahead else 0
                if whole_head and value_right == len(rest):
                    continue   # the whole value (a literal span has it)
                right = max(right, value_right)
                end = at + FRAGMENT + value_right
                if 0 < len(rest) - value_right < FRAGMENT:   # (as _value_pieces: the rest maybe on the next line)
                    _rest_on_next_line(text, end, rest[value_right:], begin, spans)
            i = bisect.bisect_left(longs, ahead)
            for js in (range(i - 1, -1, -1), range(i, len(longs))):
                for j in js:   # (a rest's shared length with the text's falls going away from where it sorts)
                    rest = longs[j]
                    shared = _common_prefix(ahead[:len(rest)], rest[:len(ahead)]) if rest[:1] == ahead[:1] else 0
                    if not (whole_head and shared == len(rest)):
                        right = max(right, shared)
                        break
            if right >= 0:
                spans.append((begin, at + FRAGMENT + right, REDACTED, KNOWN_VALUE, begin))
                if 0 < offset - left < FRAGMENT and (line := _line_start_at(text, begin)) >= 0:
                    _head_on_line_before(text, line, head[:offset - left], spans)
            at = text.find(needle, at + FRAGMENT)
