"""Span, the replacement labels ([REDACTED], the report's labels), merging overlapping spans, the edits a text
is read through (terminal colours taken out, escapes in names decoded) and the helpers that cut a text."""

from __future__ import annotations

import bisect
import contextvars
import functools
import itertools
import operator
import re
import unicodedata
from typing import NamedTuple


REDACTED = "[REDACTED]"
REDACTED_LOWER = REDACTED.lower()
KNOWN_VALUE = "secret environment value"   # the report's label for a secret found by its value
KEY_BLOCK = "private key block"


def _lower(text: str) -> str:
    """text lower-cased, offset for offset (a character whose lower case is longer becomes "?")."""
    lower = text.lower()
    if len(lower) != len(text):  # only U+0130 (capital I with a dot) lower-cases to two characters
        lower = text.replace("\u0130", "?").lower()
        if len(lower) != len(text):
            lower = "".join(c if len(c) == 1 else "?" for c in map(str.lower, text))
    return lower


# Literal gates. `literal in text` over a long text is a scan of ~0.5 ms per MB, and the rules ask about ~150
# literals; a test of one character is a memchr, twenty times cheaper. A literal with a character the text lacks
# cannot be in it: `has` asks about the literal's characters first (the rarer kinds first, each test ending at the
# character's first occurrence) and scans for the literal only when all are there. Logs lack most of the punctuation
# and capitals the rules' literals hold (`$ `, `</`, `\\u`, `AKIA`), and a text made of one repeated unit lacks
# nearly every character. Exact: the answer is always `literal in text`.
GATED_LENGTH = 4096   # shorter texts are searched directly (the gate's steps cost more than such a scan)
_RARE_FIRST = {c: rank for rank, c in enumerate("qzjxkvbywgpfmucdlhrsnioate")}
_GATE_CHARACTERS: dict[str, tuple[str, ...]] = {}


def _gate_characters(literal: str) -> tuple[str, ...]:
    """literal's distinct characters, those a text most likely lacks first (not letters, capitals, digits, then
    small letters from the rarest in English)."""
    gate = _GATE_CHARACTERS.get(literal)
    if gate is None:
        if len(_GATE_CHARACTERS) > 65536:   # (literals come from code and from known secrets: bounded anyway)
            _GATE_CHARACTERS.clear()
        gate = _GATE_CHARACTERS[literal] = tuple(sorted(set(literal), key=lambda c: (
            2 if c.isdigit() else 3 if c in _RARE_FIRST else 1 if c.isupper() else 0, _RARE_FIRST.get(c, 0), c)))
    return gate


def gated(text: str) -> bool:
    """Whether the gates apply to text (long enough: GATED_LENGTH)."""
    return len(text) >= GATED_LENGTH


# A short literal is looked for in a long text by a compiled pattern of it: the regex engine's scan for a literal
# prefix measured 25-60% faster on log text than `in` (str's search) for literals of 2 to 8 characters, each a pass
# over the text (`has` is asked about 140 literals a text). Compiled once each, for code's literals (known secrets'
# beyond MAX_LITERAL_SCANS are looked for with `in`).
_LITERAL_SCANS: dict[str, object] = {}
MAX_LITERAL_SCANS = 2048


def _found(text: str, literal: str) -> bool:
    scan = _LITERAL_SCANS.get(literal)
    if scan is None:
        if not 1 < len(literal) < 9 or len(_LITERAL_SCANS) >= MAX_LITERAL_SCANS:
            return literal in text
        scan = _LITERAL_SCANS[literal] = re.compile(re.escape(literal)).search
    return scan(text) is not None


# The answers `has` gave on long texts within one Redactor.spans call ((id(text), literal) -> (text, answer); the text
# kept so its id is not another's): rules in different modules ask about the same literal (`auth`, `login`, `&#`),
# each asking a pass over the text.
HAS_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("has_memo", default=None)


def has(text: str, literal: str) -> bool:
    """`literal in text`, with a long text's characters asked about first (see GATED_LENGTH)."""
    if len(text) >= GATED_LENGTH:
        memo = HAS_MEMO.get()
        if memo is not None and (known := memo.get((id(text), literal))) is not None and known[0] is text:
            return known[1]
        answer = True
        for character in _GATE_CHARACTERS.get(literal) or _gate_characters(literal):
            if character not in text:
                answer = False
                break
        answer = answer and _found(text, literal)
        if memo is not None:
            memo[(id(text), literal)] = (text, answer)
        return answer
    return literal in text


def has_characters(text: str, literal: str) -> bool:
    """Whether a long text holds every character of literal (False: literal cannot be in it); True for a short text."""
    if len(text) >= GATED_LENGTH:
        for character in _GATE_CHARACTERS.get(literal) or _gate_characters(literal):
            if character not in text:
                return False
    return True


def has_any(text: str, literals) -> bool:
    """any(literal in text for literal in literals), each literal gated as `has` does."""
    return any(has(text, literal) for literal in literals)


class Span(NamedTuple):
    """One replacement. Plain tuples of these five fields are made on the hot paths (a million spans
    must cost little); sorting them orders by start, then end."""
    start: int
    end: int
    replacement: str
    label: str
    context: int        # where the evidence for it begins (a name before a value): never cut between


_START, _END, _REPLACEMENT, _LABEL, _CONTEXT = (operator.itemgetter(i) for i in range(5))


# A terminal control sequence (CSI: colours, cursor moves), as rich, structlog, colorlog and grep --color print them.
# Also as repr(), JSON, a shell or a C source writes the ESC (`\x1b[`, `\u001b[`, `\033[`, `\e[`).
CSI = re.compile(r"(?:\x1b|\\(?:x1b|u001b|033|e))\[[0-?]{0,32}[ -/]{0,8}[@-~]")
ESCAPED_CSI = re.compile(r"\\(?:x1b|u001b|033|e)\[")
# An OSC sequence (a terminal hyperlink `ESC]8;;URL ESC\`, a window title `ESC]0;T BEL`), raw or escaped as repr/JSON
# print it: the rules read a view without them (`password=ESC]8;;URL ESC\X ESC]8;;ESC\` gives X after its `=`), and
# each one's payload (the link's URL) on its own.
_ESCAPE_CHARACTER = r"(?:\x1b|\\(?:x1b|u001b|033|e))"
ESCAPED_OSC_STARTS = ("x1b]", "u001b]", "033]", "\\e]")
OSC = re.compile(_ESCAPE_CHARACTER + r"\](?P<payload>[^\x07\x1b\\\n]{0,4096})(?:\x07|\x1b\\|\\(?:x1b|u001b|033|e)\\{1,2}|\\x07|\\a)")


CSI_WHOLE = re.compile(f"({CSI.pattern})")   # (one group, the whole match: split() hands out the codes between the rest)


def _without_csi(text: str) -> tuple[str, "_Edits"]:
    """text without its CSI sequences (the view the rules read coloured text in), and where they were cut: one split()
    and sums of lengths in C, no Python per code (a coloured log has a few a line)."""
    parts = CSI_WHOLE.split(text)
    bounds = list(itertools.accumulate(map(len, parts)))   # (code k starts at bounds[2k] and ends at bounds[2k + 1])
    kept = parts[0::2]
    starts = bounds[0:-1:2]
    return "".join(kept), _Edits(list(itertools.accumulate(map(len, kept)))[:-1], starts, bounds[1::2], [0] * len(starts))


class _Edits(NamedTuple):
    """Where a view of a text differs from it: edit k put `sizes[k]` characters (none, one or a few) at `view_starts[k]` in place
    of text[text_starts[k]:text_ends[k]] (sorted; edits do not overlap)."""
    view_starts: list[int]
    text_starts: list[int]
    text_ends: list[int]
    sizes: list[int]

    def start_in_text(self, at: int) -> int:
        """Where the view's character at `at` starts in text (an edited character: where its edit starts)."""
        k = bisect.bisect_right(self.view_starts, at) - 1
        if k < 0:
            return at
        inside = at - self.view_starts[k]
        return self.text_starts[k] if inside < self.sizes[k] else self.text_ends[k] + inside - self.sizes[k]

    def end_in_text(self, start: int, end: int) -> int:
        """Where a view span [start, end) ends in text: after its last character (an edit right after it stays
        outside; an edited last character takes its whole edit)."""
        if end <= start:
            return self.start_in_text(start)
        at = end - 1
        k = bisect.bisect_right(self.view_starts, at) - 1
        if k < 0:
            return end
        inside = at - self.view_starts[k]
        return self.text_ends[k] if inside < self.sizes[k] else self.text_ends[k] + inside - self.sizes[k] + 1

    def place_back(self, spans: list[Span]) -> list[Span]:
        """Each view span placed on text: its start and context by start_in_text, its end by end_in_text (written out
        here, with a context at the span's start placed once: a view of many lines places back a span or more a
        line)."""
        view_starts, text_starts, text_ends, sizes = self
        edit_before = bisect.bisect_right
        out: list[Span] = []
        append = out.append
        for start, end, replacement, label, context in spans:
            k = edit_before(view_starts, start) - 1
            if k < 0:
                first = start
            else:
                inside = start - view_starts[k]
                first = text_starts[k] if inside < sizes[k] else text_ends[k] + inside - sizes[k]
            if end > start:
                k = edit_before(view_starts, end - 1) - 1
                if k < 0:
                    last = end
                else:
                    inside = end - 1 - view_starts[k]
                    last = text_ends[k] if inside < sizes[k] else text_ends[k] + inside - sizes[k] + 1
            else:
                last = first
            if context == start:
                there = first
            else:
                k = edit_before(view_starts, context) - 1
                if k < 0:
                    there = context
                else:
                    inside = context - view_starts[k]
                    there = text_starts[k] if inside < sizes[k] else text_ends[k] + inside - sizes[k]
            append((first, last, replacement, label, there))
        return out


def _edited(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, _Edits]:
    """text with each (start, end, replacement) edit made (in order, none overlapping), and where they lie."""
    kept: list[str] = []
    view_starts: list[int] = []
    at = view = 0
    for start, end, replacement in edits:
        kept.append(text[at:start])
        kept.append(replacement)
        view += start - at
        view_starts.append(view)
        view += len(replacement)
        at = end
    kept.append(text[at:])
    return "".join(kept), _Edits(view_starts, [e[0] for e in edits], [e[1] for e in edits], [len(e[2]) for e in edits])


# A secret name written so that the name rules would not read it (`{"pass\u0077ord": ...}`, `pass<U+200B>word=`,
# `"api\/key":`): a letter of it JSON-escaped (any letter, either hex case, also escaped again inside JSON-in-JSON:
# `\\u0077`) beside a letter written plainly, invisible characters inside it (zero-width space, non-joiner and joiner,
# word joiner, BOM, soft hyphen; raw between two name characters, or escaped beside one), a JSON `\/` inside a quoted
# key. The rules read a view with each such escape decoded, each invisible character dropped and each such `\/` a `_`
# (the words apart, as `api_key`), and their spans are placed back. Only texts that hold a `\u`, a `\/` or a character
# outside ASCII are looked at, and a run of escapes alone (`\u0041` repeated: an escaped run) changes nothing.
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_NAME_CHARACTER = "[A-Za-z0-9_.-]"
_ESCAPE_TAIL = (r"\\{0,7}u(?:00(?:2[dDeE]|3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA]|[aA][dD])"
                r"|200[b-dB-D]|2060|[fF][eE][fF][fF])")   # (an escape after its first backslash)
# led by the backslash, a literal the scan skips to (a pattern led by a look-behind is tried at every character); a
# run starts where no escape and no name character is before it, so inside a long run of escapes each fails at once
NAME_ESCAPE = re.compile(rf"\\(?:(?<={_NAME_CHARACTER}\\)(?<!\\u[0-9a-fA-F]{{4}}\\){_ESCAPE_TAIL}(?:\\{_ESCAPE_TAIL}){{0,7}}"
                         rf"|(?<![\\\\A-Za-z0-9_.-]\\){_ESCAPE_TAIL}(?:\\{_ESCAPE_TAIL}){{0,7}}(?={_NAME_CHARACTER}))")
NAME_ESCAPE_CODE = re.compile(r"\\+u([0-9a-fA-F]{4})")
KEY_SLASH = re.compile(r"\\(?<=[A-Za-z0-9]\\)\\{0,7}/(?=(?:[A-Za-z0-9_.-]|\\{1,8}/|\\{1,8}u[0-9a-fA-F]{4}){1,64}\\{0,8}"
                       r"[\"'][ \t]{0,3}[:=])")
NOT_INVISIBLE = str.maketrans("", "", INVISIBLE)
INVISIBLE_INSIDE = re.compile(f"[{INVISIBLE}](?<={_NAME_CHARACTER}[{INVISIBLE}])[{INVISIBLE}]{{0,3}}(?={_NAME_CHARACTER})")


# ... and a name with letters written as other escapes, `pass\x77ord=`, `pass%77ord=`, `%70%61%73%73%77%6f%72%64=`,
# `pass&#119;ord=` / `&#x77;`: a run of name characters and such escapes, right before `=` or `:`, that decodes to a
# secret's name (only such a run: a URL's %-escapes elsewhere are left alone); a no-break space beside `=` or `:` (a
# space in the view); a shell line continuation inside a secret's name before `=` (`DB_PASS\<newline>WORD=X`).
_NAME_HEX = "(?:2[dDeE]|3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA])"   # (the codes of [A-Za-z0-9_.-])
# (and C's, bash's and Python's octal `pass\167ord=`, JavaScript's and Rust's `pass\u{77}ord=`, Python's named
# `pass\N{LATIN SMALL LETTER W}ord=`)
_NAME_OCTAL = r"\\(?:05[56]|06[0-7]|07[01]|10[1-7]|1[12][0-7]|13[0-2]|137|14[1-7]|1[56][0-7]|17[0-2])"
_NAME_BRACED = rf"\\u\{{0{{0,4}}{_NAME_HEX}\}}"
_NAME_NAMED = r"\\N\{[A-Za-z][A-Za-z0-9 -]{2,60}\}"
OTHER_ESCAPE = re.compile(rf"%{_NAME_HEX}|\\x{_NAME_HEX}|&#[0-9]{{2,3}};|&#[xX]{_NAME_HEX};|{_NAME_OCTAL}|{_NAME_BRACED}|{_NAME_NAMED}")
OTHER_ESCAPE_KINDS = (("%", re.compile(f"%{_NAME_HEX}")), ("\\x", re.compile(f"\\\\x{_NAME_HEX}")),
                      ("&#", re.compile(f"&#(?:[0-9]{{2,3}}|[xX]{_NAME_HEX});")), ("\\0", re.compile(_NAME_OCTAL)),
                      ("\\1", re.compile(_NAME_OCTAL)), ("\\u{", re.compile(_NAME_BRACED)),
                      ("\\N{", re.compile(_NAME_NAMED)))
ESCAPED_NAME_REST = re.compile(r"(?:[A-Za-z0-9_.-]|%[0-9a-fA-F]{2}|\\x[0-9a-fA-F]{2}|&#[0-9]{2,3};|&#[xX][0-9a-fA-F]{2};"
                               r"|\\[0-7]{3}|\\u\{[0-9a-fA-F]{1,6}\}|\\N\{[A-Za-z0-9 -]{1,60}\}){0,128}")
NAME_SEPARATOR_AFTER = re.compile(r"[\"']?[ \t\u00a0]{0,3}(?:[=:]|%3[dD])")
# `password%3DX`: a query string inside a URL's own query (`?next=%2Flogin%3Fpassword%3DX`), its `=` escaped after a
# name that holds a secret's word (also Gson's `password\u003dX` and `\x3d` outside a JSON string): the view reads `=`
ENCODED_EQUALS = re.compile(r"%3[dD]|\\u003[dD]|\\x3[dD]")
ENCODED_EQUALS_HINTS = ("%3", "\\u003", "\\x3")
NAME_CHARACTER_STRING = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
NAME_CHARACTERS = frozenset(NAME_CHARACTER_STRING)
NO_BREAK = "[\u00a0\u2007\u202f]"
NO_BREAK_BESIDE_SEPARATOR = re.compile(f"{NO_BREAK}(?:(?<=[=:]{NO_BREAK}){NO_BREAK}{{0,2}}|{NO_BREAK}{{0,2}}(?=[=:]))")
# (the view only has the rules read the name: a word of a secret's name in it is enough here, the rules judge it whole)
SECRET_WORD = re.compile(r"(?i)pass|pw|token|secret|key|auth|cred|cookie|session|sig")
NAME_CONTINUED = re.compile(r"\\(?<=[A-Za-z0-9_]\\)\r?\n(?=[A-Za-z0-9_]{1,64}[ \t]{0,3}=)")


def _escape_code(escape: str) -> str:
    if escape[0] == "%":
        return chr(int(escape[1:], 16))
    if escape[0] == "\\":
        if escape[1] in "01":
            return chr(int(escape[1:], 8))
        if escape[1] == "N":
            try:
                return unicodedata.lookup(escape[3:-1])
            except KeyError:
                return "\0"   # (no such character: not a name's)
        return chr(int(escape[3:-1] if escape[2] == "{" else escape[2:], 16))
    return chr(int(escape[3:-1], 16) if escape[2] in "xX" else int(escape[2:-1]))


def _name_run_start(text: str, at: int, reach: int) -> int:
    """Where the run of name characters (NAME_CHARACTERS) that ends at `at` begins, `reach` characters back at most (one
    rstrip in C, not a step back a character)."""
    window = text[at - reach if at > reach else 0:at]
    return at - len(window) + len(window.rstrip(NAME_CHARACTER_STRING))


def _other_escape_edits(text: str) -> list[tuple[int, int, str]]:
    edits: list[tuple[int, int, str]] = []
    # (each kind that the text holds scanned by its own literal-led pattern: a scan for the three at once tests a class
    # at every character; each kind's next escape is searched for only past the last run read, so a run of escapes costs
    # one search a kind, not a match an escape: an escape's first character is in none of its kind's other escapes', so
    # the escapes a search finds are those finditer would)
    searches = [pattern.search for literal, pattern in OTHER_ESCAPE_KINDS if literal in text]
    if searches and "=" not in text and ":" not in text and "%3" not in text:
        return edits   # (no NAME_SEPARATOR_AFTER can follow a run: a text of escapes alone, `%41%41 ` repeated)
    nexts: list[int | None] = [-1] * len(searches)   # each kind's next escape at `end` or after (None: no more)
    end = 0
    while True:
        first = None
        for k, search in enumerate(searches):
            at = nexts[k]
            if at is not None and at < end:
                m = search(text, end)
                at = nexts[k] = None if m is None else m.start()
            if at is not None and (first is None or at < first):
                first = at
        if first is None:
            break
        end = ESCAPED_NAME_REST.match(text, first).end()
        if NAME_SEPARATOR_AFTER.match(text, end) is not None:
            start = _name_run_start(text, first, 128)
            run = text[start:end]
            escapes = list(OTHER_ESCAPE.finditer(run))
            decoded = OTHER_ESCAPE.sub(lambda e: _escape_code(e.group()), run)
            if all(c in NAME_CHARACTERS for c in decoded) and SECRET_WORD.search(decoded) is not None:
                edits += [(start + e.start(), start + e.end(), _escape_code(e.group())) for e in escapes]
        end = max(end, first + 1)
    return edits


@functools.lru_cache(maxsize=4096)
def _holds_secret_word(name: str) -> bool:
    """Whether a name (a run of NAME_CHARACTERS) holds a word of SECRET_WORD, once per distinct name: the search, a
    case-insensitive alternation tried at each character, costs ~10 us on a 40-character name, and a log repeats its
    names."""
    return SECRET_WORD.search(name) is not None


def _encoded_equals_edits(text: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in ENCODED_EQUALS.finditer(text):
        start = _name_run_start(text, m.start(), 64)
        if start < m.start() and _holds_secret_word(text[start:m.start()]):
            edits.append((m.start(), m.end(), "="))
    return edits


# A name written with letters that look like ASCII ones (`ｐａｓｓｗｏｒｄ=`, `ＡＰＩ＿ＫＥＹ:`, a Cyrillic `а` in `pаssword`, an
# accent on a letter, `paśsword`): the view spells it in ASCII (NFKD's base letter, a combining mark dropped, the
# Cyrillic and Greek capitals and small letters drawn as Latin ones) when the word so folded holds a secret's word and a
# separator follows it. Found from a fullwidth letter, or a mark or look-alike beside an ASCII letter (a word all in
# Cyrillic or Greek is that language's, and stays).
LOOKALIKES = dict(zip("АВЕКМНОРСТХЅІЈаеорсхуѕіјԁԛԝһӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνρυαѵ",
                      "ABEKMHOPCTXSIJaeopcxysijdqwhlABEZHIKMNOPTYXoiknpuav"))
_LOOKALIKE_CLASS = "".join(sorted(LOOKALIKES))
FOLDED_NAME_SEPARATOR = re.compile(r"[\"']?[ \t\u00a0]{0,3}[=:\uff1a]")
FOLD_REACH = 64


def _fold_table() -> dict[int, str]:
    """Each character _lookalike_name_edits folds -> the ASCII name character it is drawn as ("" for a mark)."""
    table = {ord(c): "" for c in map(chr, range(0x300, 0x370))}
    table.update((ord(c), latin) for c, latin in LOOKALIKES.items())
    for code in [*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), 0xFF3F, *range(0xFF41, 0xFF5B), *range(0xC0, 0x250)]:
        base = "".join(b for b in unicodedata.normalize("NFKD", chr(code)) if not unicodedata.combining(b))
        if len(base) == 1 and base in NAME_CHARACTERS:
            table[code] = base
    return table


FOLD_TABLE = _fold_table()
_FOLDABLE = "".join(sorted(re.escape(chr(code)) for code in FOLD_TABLE))
FOLD_RUN = re.compile(f"[A-Za-z0-9_.\\-{_FOLDABLE}]{{0,{FOLD_REACH}}}")   # (read forwards, and backwards on the reversed text)
FOLDABLE = re.compile(f"[{_FOLDABLE}]")   # (one class scan first: a text with none, say a progress bar's, reads no further)
# (a word is read from its start only, and only when a character to fold is in it and a separator follows it: each
# character is looked at a bounded number of times, prose's accented words are read no further than themselves)
_NAME_RUN = f"A-Za-z0-9_.\\-{_FOLDABLE}"
FOLD_WORD = re.compile(f"(?<![{_NAME_RUN}])(?=[A-Za-z0-9_.\\-]{{0,{FOLD_REACH}}}[{_FOLDABLE}])[{_NAME_RUN}]{{1,{FOLD_REACH}}}"
                       f"(?={FOLDED_NAME_SEPARATOR.pattern})")
ASCII_NAME_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _draws_a_latin_name(word: str) -> bool:
    """A fullwidth letter, or a character to fold beside an ASCII letter (a word all in Cyrillic or Greek is that
    language's)."""
    for k, c in enumerate(word):
        if ord(c) in FOLD_TABLE and c not in NAME_CHARACTERS and (
                "\uff10" <= c <= "\uff5a" or (k and word[k - 1] in ASCII_NAME_LETTERS)
                or word[k + 1:k + 2] in ASCII_NAME_LETTERS):
            return True
    return False


def _lookalike_name_edits(text: str) -> list[tuple[int, int, str]]:
    edits: list[tuple[int, int, str]] = []
    if (first := FOLDABLE.search(text)) is None:
        return edits
    start = first.start() - FOLD_RUN.match(text[max(0, first.start() - FOLD_REACH):first.start()][::-1]).end()
    verdicts: dict[str, list[tuple[int, str]]] = {}   # a word -> its folds when it names a secret (a log repeats them)
    for m in FOLD_WORD.finditer(text, start):
        word = m.group()
        if (folds := verdicts.get(word)) is None:
            folds = verdicts[word] = ([(k, FOLD_TABLE[ord(c)]) for k, c in enumerate(word) if c not in NAME_CHARACTERS]
                                      if _draws_a_latin_name(word)
                                      and SECRET_WORD.search(word.translate(FOLD_TABLE)) is not None else [])
        if folds:   # (most words hold no secret's name: no list made for them)
            edits += [(m.start() + k, m.start() + k + 1, folded) for k, folded in folds]
    return edits


def _continued_name_edits(text: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in NAME_CONTINUED.finditer(text):
        start = _name_run_start(text, m.start(), 64)
        end = ESCAPED_NAME_REST.match(text, m.end()).end()
        if _holds_secret_word(text[start:m.start()] + text[m.end():end]):
            edits.append((m.start(), m.end(), ""))
    return edits


NAME_ESCAPE_WHOLE = re.compile(f"({NAME_ESCAPE.pattern})")   # (one group, the whole match: _split_matches)


def _decoded_name_escape(written: str) -> str:
    """What a run of NAME_ESCAPE's escapes spells, its invisible characters dropped."""
    decoded = (chr(int(written[-4:], 16)) if written.count("u") == 1
               else "".join(chr(int(code, 16)) for code in NAME_ESCAPE_CODE.findall(written)))
    return decoded.translate(NOT_INVISIBLE)


def _name_edits(text: str) -> list[tuple[int, int, str]]:
    """The edits of the view that spells secret names plainly (see NAME_ESCAPE, KEY_SLASH, INVISIBLE_INSIDE), in
    order; none for most texts (tests in C: a backslash-u, a backslash-slash, a character outside ASCII)."""
    edits = []
    if "\\u" in text:   # (a run of up to 8 escapes beside a letter written plainly; found in C, each distinct run
        # decoded once: a log of JSON lines repeats its escaped keys)
        written, starts, ends = _split_matches(NAME_ESCAPE_WHOLE, text)
        if written:
            decoded = {run: _decoded_name_escape(run) for run in set(written)}
            edits += zip(starts, ends, map(decoded.__getitem__, written))
    if "\\/" in text:
        edits += [(m.start(), m.end(), "_") for m in KEY_SLASH.finditer(text)]
    if not text.isascii():
        edits += [(m.start(), m.end(), "") for m in INVISIBLE_INSIDE.finditer(text)]
        edits += _lookalike_name_edits(text)
        if "\u00a0" in text or "\u202f" in text:   # (substring tests: a class scan costs more; a figure space alone stays)
            edits += [(m.start(), m.end(), " " * len(m.group())) for m in NO_BREAK_BESIDE_SEPARATOR.finditer(text)]
    edits += _other_escape_edits(text)   # (each tests for its literals itself: one scan each)
    if any(hint in text for hint in ENCODED_EQUALS_HINTS):
        edits += _encoded_equals_edits(text)
    edits += _continued_name_edits(text)
    return sorted(edits) if len(edits) > 1 else edits


def _codes_kept(text: str, spans: list[Span]) -> list[Span]:
    """Spans of a coloured text with the colour codes inside each after its replacement (`ESC[35mS3crESC[1mt!x`
    becomes `ESC[35m[REDACTED]ESC[1m`): the terminal's colours after a value are what they were."""
    for index, (start, end, replacement, label, context) in enumerate(spans):
        if ("\x1b" in text[start:end] or "\\" in text[start:end]) and (codes := CSI.findall(text, start, end)):
            spans[index] = (start, end, replacement + "".join(codes), label, context)
    return spans


def _plain_tail(text: str) -> str:
    """The last 120 characters of text, lower-cased, without colour codes (what the line holds read)."""
    tail = text[-1024:]
    if "\x1b" in tail or "\\" in tail:
        tail = CSI.sub("", tail)
    elif tail.isascii():
        return text[-120:].lower()
    edits = _name_edits(tail)   # (`pass\u0077ord:` ending a line waits for its value as `password:` does)
    return (_edited(tail, edits)[0] if edits else tail)[-120:].lower()


def _merge_spans(found: list[Span]) -> list[Span]:
    """Sorted spans merged so that none overlap. (A plain loop: chains of map() and accumulate() over the
    spans, tried for texts of a million spans, measured slower here.)"""
    merged = [found[0]]
    last_end = found[0][1]
    for span in itertools.islice(found, 1, None):
        if span[0] < last_end:
            last = merged[-1]
            end = span[1] if span[1] > last_end else last_end
            # a placeholder inside another (an IPv4 inside an IPv6) keeps the outer one; a secret wins
            if span[2] == last[2] or (span[1] <= last_end and span[2] != REDACTED):
                replacement = last[2]
            elif span[0] == last[0] and REDACTED not in (span[2], last[2]) and last_end <= span[1]:
                replacement = span[2]  # the last one lies inside this one (a short host name, the FQDN)
            elif "\n" in last[2] and span[1] <= last_end:
                replacement = last[2]  # a secret inside a block replaced line by line: the block keeps its lines
            elif "\n" in span[2] and span[0] == last[0] and last_end <= span[1]:
                replacement = span[2]
            else:
                replacement = REDACTED
            # a known secret is counted as one; a key block stays one (a stream carries an open one on)
            label = span[3] if span[3] == KEY_BLOCK or (span[3] == KNOWN_VALUE and last[3] != KEY_BLOCK) else last[3]
            if end != last[1] or replacement != last[2] or label != last[3]:
                merged[-1] = (last[0], end, replacement, label, min(last[4], span[4]))
            last_end = end
        else:
            merged.append(span)
            last_end = span[1]
    return merged


# A pattern may need up to this many characters before where its match starts (the B of Bearer, found
# by "earer"; the sk of sk_live_; the ? or & of sig=; the "; " of ; pwd=): a forced cut keeps them with it.
LOOKBEHIND = 2


def _cut_outside_spans(spans: list[Span], cut: int, size: int) -> int:
    """Where to cut a line too long to hold, near cut: a place that no span, nor the evidence before it,
    crosses (a span from LOOKBEHIND characters before its context to its end holds the place strictly
    inside). The latest such place at or before cut; when that lies in the text's first half (one
    giant span, or a chain of them: a megabyte of dotted quads), the first such place after cut, which
    is the text's end only when a span reaches it (the stream carries that one on), so a secret whose
    start has not matched yet (`Bearer ab` at the end) is never written without its rest. Found in one
    sweep over the spans' extents sorted by where they begin: a chain of overlapping extents is one run."""
    # cut lies inside a run only when it lies inside one extent; only spans ending after cut can hold it (merged
    # spans: their ends only grow), which at a window's end are a few (a sort of every extent took 0.02 s per MB)
    after = bisect.bisect_right(spans, cut, key=_END)
    if all(context - LOOKBEHIND >= cut for context in map(_CONTEXT, itertools.islice(spans, after, None))):
        return cut
    # the run that holds cut, from the spans that end after some point: exact once it begins at or after that point
    # (a span that ends before where the run begins cannot join it), else twice as many spans are looked at
    first = max(0, after - 64)
    while True:
        run_start, run_end = _run_holding(spans, first, cut)
        if not first or run_start >= spans[first - 1][1]:
            break
        first = max(0, first - 2 * (len(spans) - first))
    if not run_start < cut < run_end:
        return cut
    return run_end if run_start <= size // 2 else run_start


def _run_holding(spans: list[Span], first: int, cut: int) -> tuple[int, int]:
    """The first run of spans[first:]'s extents (sorted by where they begin: a chain of overlapping extents is one
    run) that holds cut, or the last one looked at where none does (_cut_outside_spans)."""
    run_start, run_end = -1, -1
    tail = spans[first:] if first else spans
    for begin, end in sorted(zip(map(operator.sub, map(_CONTEXT, tail), itertools.repeat(LOOKBEHIND)),
                                 map(_END, tail))):
        if begin >= run_end:  # a new run (extents that only touch do not join)
            if run_start < cut < run_end or begin >= cut:
                break  # the run that holds cut is whole; or none does
            run_start, run_end = begin, end
        elif end > run_end:
            run_end = end
    return run_start, run_end

def _longest_first(rest: str) -> str:
    """A regex matching the longest leading part of rest (maybe none): (?:abc|(?:a(?:b(?:c)?)?)?) for "abc": all of
    it (a whole secret, one comparison), else one character after another (an alternation of every length, longest
    first, tried each in turn, took three times the time on a text of pieces)."""
    if not rest:
        return ""
    return "(?:" + re.escape(rest) + "|" + "".join("(?:" + re.escape(c) for c in rest) + ")?" * len(rest) + ")"


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters a and b share (same lengths), by comparing slices."""
    if a == b:
        return len(a)
    low, high = 0, len(a)  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


def _common_suffix(a: str, b: str) -> int:
    if a == b:
        return len(a)
    low, high = 0, len(a)
    while high - low > 1:
        middle = (low + high) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle
    return low


def _line_by_line(text: str, start: int, end: int) -> str:
    """[REDACTED] once per line of text[start:end], so a redacted log keeps its lines."""
    return "\n".join([REDACTED] * (text.count("\n", start, end) + 1))


def _split_matches(pattern: re.Pattern[str], text: str, at: int = 0) -> tuple[list[str], list[int], list[int]]:
    """pattern's matches in text[at:] (pattern: one group, the whole match; its look-behind must find no match at
    `at` that text[:at] would forbid), with their starts and ends in text: one split() and sums of lengths in C,
    no Python per match."""
    parts = pattern.split(text[at:] if at else text)
    bounds = list(itertools.accumulate(map(len, parts), initial=at))
    return parts[1::2], bounds[1:-1:2], bounds[2::2]


def _minus(starts: list[int], n: int) -> list[int]:
    """max(0, start - n) for each of sorted starts."""
    lows = list(map(operator.sub, starts, itertools.repeat(n)))
    lows[:bisect.bisect_left(starts, n)] = itertools.repeat(0, bisect.bisect_left(starts, n))
    return lows


PREFIX_DIGITS = str.maketrans("123456789", "000000000")   # (a log prefix's shape: its digits free, times differ line to line)


def copies_passed(text: str, lower: str, pattern: re.Pattern[str], m: re.Match[str]) -> int:
    """Where a loop over pattern's matches in lower (text lower-cased) may go on after m when m starts on a line that
    repeats right after itself and ends on the next one, and the loop's verdict on m reads only those two lines: copy k
    of m (m moved down k lines) is then found and judged as m is, for k = 1 .. c - 3 where lines 0 .. c are copies (the
    search after copy k reads lines k to k + 3 at most; the search after m is checked to find copy 1). 0 where no copy is
    passed over (a search and at most four line tests: the loop's cost per match stays bounded)."""
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.start()) + 1
    step = line_end - line_start
    if not line_end or m.end() >= line_end + step:
        return 0
    line, folded = text[line_start:line_end], lower[line_start:line_end]
    if not all(text.startswith(line, at) and lower.startswith(folded, at) for at in range(line_end, line_end + 4 * step, step)):
        return 0
    after = pattern.search(lower, m.end())
    if after is None or after.regs != tuple((a + step, b + step) if a >= 0 else (a, b) for a, b in m.regs):
        return 0
    at = line_end + 4 * step
    while text.startswith(line, at) and lower.startswith(folded, at):
        at += step
    return m.end() + ((at - line_start) // step - 4) * step
