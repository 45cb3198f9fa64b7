"""Issue 11, redaction speed (h25s, session 25): sources taking turns, blocks, line views and the stream's holds.
A stream keeps the hold of a source's lines read alone by their text (StreamRedactor._sources_hold), and
_printed_form_hold's walk keeps what it knows of the lines below in locals; line_views.line_source answers by the line's
text; _prefixed_block_spans gives a copy of the last block read under an opener's line its edits without the loop a
line; _yaml_block_spans passes over copies of a block (and the lines after it up to the next opener) in one step
(_block_copies); line_view_windows returns at once where the text is one of few distinct lines, each known to have no
edits wherever it is. Each count test counts calls or Python lines on a repeated form against main's count; the guards
compare the changed functions with main's code (9f704c5, copied below as text and run in the module's namespace;
with lane h25b's two rule changes merged beside these: a block's `sources`, and line_source's second prefix after
compose's bar) on seeded random texts. Times: docs/benchmarks.md (h25s)."""

from __future__ import annotations

import random
import textwrap

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import blocks, line_views, stream

# main's code at 9f704c5, the reference the guards compare with
MAIN_YAML_BLOCK_SPANS = r'''
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

'''

MAIN_PREFIXED_BLOCK_SPANS = r'''
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
        at = line_start
        source: str | None = None
        sources: set[str] = set()   # (the sources whose lines stay in the view: the opener's, and each that opens a block)
        for _ in range(YAML_BLOCK_MOST_LINES + 1):
            exact = text.startswith(prefix, at)
            if not exact and text[at:at + len(prefix)].translate(PREFIX_DIGITS) != shape:
                break
            newline = text.find("\n", at)
            if not exact and _other_source_line(text, line_start, at, newline, source := (
                    line_source(text, line_start, m.start()) if source is None else source), sources):
                edits.append((at, len(text) if newline < 0 else newline + 1, ""))   # (another rank's line: left out)
            else:
                edits.append((at, at + len(prefix), ""))
            if newline < 0:
                at = len(text)
                break
            at = newline + 1
        done = at
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

'''

MAIN_PRINTED_FORM_HOLD = r'''
def _printed_form_hold(buffer: str, cut: int) -> int:
    """Where a stream cuts so that a form read over lines (see _opens_printed_form) is redacted whole: before
    every line that opens one and is fewer than PRINTED_FORM_HOLD_LINES lines above the cut (or above a line held
    for that reason: a form reaches that far at most, the rules read no further), within 16 KiB; and before a
    last line that is indented or names a secret (a frame's code line, loguru's arrows still to come). The line above an arrow
    line is its code line: it opens the form."""
    if cut <= 0:
        return 0
    floor = max(0, cut - PRINTED_FORM_HOLD_CHARS)
    last = buffer.rfind("\n", floor, cut - 1) + 1
    # (an unindented code line naming a secret may be loguru's too: `login(user, api_token)` at column 0)
    hold = last if (last or not floor) and (buffer.startswith("    ", last)
                                          or _secret_name_columns(buffer[last:cut].rstrip("\r\n"))) else cut
    tail = buffer[floor:cut]
    coloured = "\x1b" in tail   # (`yq -C`, FORCE_COLOR tools: each line judged as the rules read it, without colours)
    if not has_any(tail, PRINTED_FORM_OPENERS) and not (
            coloured and has_any(CSI.sub("", tail), PRINTED_FORM_OPENERS)):
        return hold
    reach = PRINTED_FORM_HOLD_LINES   # how many lines up the walk goes: an opener there may still reach the hold
    end = cut
    above_arrow = False   # the line below this one is an arrow line: this may be its code line
    below = [True, 1 << 30, 1 << 30]   # of the lines below: all `- ` items, their least indent, the least non-blank one
    distance = 0
    while distance < reach:
        if end <= floor:
            break
        start = buffer.rfind("\n", floor, end - 1) + 1
        if start == 0 and floor:
            break
        distance += 1
        opens, kind, arrow, facts = _hold_verdict(buffer[start:end])
        if above_arrow or opens or (kind is not False and _below_says(kind, below)):
            hold = start
            reach = min(distance + PRINTED_FORM_HOLD_LINES, 4 * PRINTED_FORM_HOLD_LINES)
        above_arrow = arrow
        _below_put(below, facts)
        end = start
    return hold
'''

MAIN_SOURCES_HOLD = r'''
def _sources_hold(self, cut: int) -> int:
    """The cut moved up where a source whose lines take turns with another's before it (pods' lines from kubectl
    logs --prefix or stern, ranks', srun's, pdsh's: line_views.interleaved_sources) is held by its own lines read
    alone: each source's lines of the last SOURCE_HOLD_LINES (and lines of no source, a message's next lines),
    asked as a buffer of their own; its hold placed back on the line it falls on. Nothing more for a stream whose
    last lines are of one source (a few prefix matches a cut)."""
    if cut <= 0:
        return cut
    found = interleaved_sources(self._buffer, cut)
    if found is None:
        return cut
    starts, sources = found
    ends = starts[1:] + [cut]
    for source in dict.fromkeys(filter(None, sources)):
        kept = [k for k, other in enumerate(sources) if not other or other == source]
        if len(kept) == len(sources):
            continue
        alone = "".join(self._buffer[starts[k]:ends[k]] for k in kept)
        held = self._hold_back(len(alone), alone)
        if held < len(alone):
            at = 0
            for k in kept:   # (the line the hold falls on, or the first kept line where it falls inside one)
                if at >= held:
                    cut = min(cut, starts[k])
                    break
                at += ends[k] - starts[k]
    return cut
'''

MAIN_LINE_SOURCE = r'''
def line_source(text: str, start: int, end: int) -> str:
    """The source (above) that text[start:end]'s prefix (a line's, its newline or not) names; "" where none."""
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

'''


def _main(module, *sources):
    """main's functions, defined from their text in a copy of module's namespace (each sees the others)."""
    space = dict(vars(module))
    for source in sources:
        exec(textwrap.dedent(source), space)
    return space


MAIN_BLOCKS = _main(blocks, MAIN_YAML_BLOCK_SPANS, MAIN_PREFIXED_BLOCK_SPANS)
MAIN_STREAM = _main(stream, MAIN_PRINTED_FORM_HOLD, MAIN_SOURCES_HOLD)
MAIN_LINES = _main(line_views, MAIN_LINE_SOURCE)


class MainStream(StreamRedactor):
    """A StreamRedactor with main's _sources_hold (no hold kept); run under _as_main for main's other functions."""
    _sources_hold = MAIN_STREAM["_sources_hold"]


def _as_main(monkeypatch):
    context = monkeypatch.context()
    patch = context.__enter__()
    patch.setattr(stream, "_printed_form_hold", MAIN_STREAM["_printed_form_hold"])
    patch.setattr(line_views, "line_source", MAIN_LINES["line_source"])
    patch.setattr(blocks, "line_source", MAIN_LINES["line_source"])
    return context


TURNS = "[rank0]: password: |\n[rank1]:   step 0 loss 2.30\n[rank0]:   Zq8Das1x\n[rank1]: api_tokens: &t\n[rank0]:   - Pa55w0rd-2\n"
UNITS = [
    TURNS,
    "[rank0]: password: |\n[rank0]:   Zq8Das1x\n2026-11-24T00:01:02Z step 1 loss 2.30\n",
    "api-1  | [rank0]: password: |\napi-1  | [rank0]:   Zq8Das1x\nworker-1  | step 1 loss 2.30\n",
    "[rank0]: secrets:\n[rank0]:   - Zq8Das1x\n[rank1]:   - other\n[rank1]: step 2\n",
    "[rank2]:   - Zq8Das1y\n", "[rank1]: password: >-\n", "0: password: |\n1:   step\n0:   Zq8Das1x\n",
    "secrets:\n  - Zq8Das1x\n  - Pa55w0rd-2\n", "secrets:\n- ", "- secrets:\n", "step:\n  - 1\n", "x: 1\n",
    "tokens: &t\n  - Zq8Das1xPa55w0rdQm7v\n  - <pad>\nspecial_tokens:\n  - </s>\n",
    "password: |\n  Zq8Das1x\n", "password: |\n  Zq8Das1x\n2026-11-24T00:01:02Z step 1 loss 2.30\n", "password: |\n",
    "api_key: >-\n  Zq8Das1x\n\n", "passwords:\n  - a\n  - b: c\n", "  - Zq8Das1x\n", "secrets: [Zq8Das1x, Pa55w0rd-2]\n",
    "<name>db.password</name>\n<value>Zq8Das1x</value>\n", "[rank0]: <name>db.password</name>\n[rank0]: <value>Zq8Das1x</value>\n",
    "- name: DB_PASSWORD\n  value: Zq8Das\n", "    login(user, api_token)\n", "  File \"x.py\", line 3\n",
    "api_key:\n", "2026-11-24 10:00:01 | INFO | a:b:3 - x\n", "[rank0]: \n", "\n", "  \n",
]
NOISE = " :-|\n\t[]0x&>"


def _text(rng: random.Random, most: int = 20000) -> str:
    """Units repeated in runs (1 to 200 copies), characters changed here and there, cut anywhere at the end."""
    out: list[str] = []
    size = 0
    while size < most:
        unit = rng.choice(UNITS)
        run = unit * rng.choice((1, 1, 2, 3, 5, 40, 200))
        if rng.random() < 0.4:
            chars = list(run)
            for _ in range(rng.randint(1, 3)):
                chars[rng.randrange(len(chars))] = rng.choice(NOISE)
            run = "".join(chars)
        out.append(run)
        size += len(run)
    text = "".join(out)
    return text[:rng.randint(len(text) // 2, len(text))] if rng.random() < 0.3 else text


@pytest.mark.parametrize("seed", range(200))
def test_yaml_block_spans_as_main(seed):
    text = _text(random.Random(seed))
    assert blocks._yaml_block_spans(text) == MAIN_BLOCKS["_yaml_block_spans"](text)


@pytest.mark.parametrize("seed", range(200))
def test_prefixed_block_spans_as_main(seed):
    text = _text(random.Random(1000 + seed))
    assert blocks._prefixed_block_spans(text) == MAIN_BLOCKS["_prefixed_block_spans"](text)


@pytest.mark.parametrize("seed", range(40))
def test_line_source_as_main(seed):
    """At line starts, inside lines and at a match's start (as blocks asks), the same text at places with different
    characters before it, the table warm or emptied."""
    rng = random.Random(2000 + seed)
    if seed % 2:
        getattr(line_views, "SOURCES", {}).clear()
    text = _text(rng, 6000) + "x" * rng.choice((0, 600))
    main = MAIN_LINES["line_source"]
    breaks = [k + 1 for k, c in enumerate(text) if c == "\n"]
    for _ in range(1500):
        start = rng.choice(breaks) if breaks and rng.random() < 0.6 else rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice((0, 1, 5, 9, 20, 40, 100, 700)))
        assert line_views.line_source(text, start, end) == main(text, start, end), (start, end)


def _few_lines(rng: random.Random) -> str:
    lines = [rng.choice(UNITS).split("\n")[0] for _ in range(rng.randint(1, 6))]
    lines += ["- name: DB_PASSWORD", "  value: Zq8Das", "[rank0]: token  x", "  key: y", "plain & line", "'quoted' #x"][
        :rng.randint(0, 6)]
    return "".join(rng.choice(lines) + "\n" for _ in range(rng.randint(1100, 3000)))


@pytest.mark.parametrize("seed", range(60))
def test_line_view_windows_as_without_few_lines(seed, monkeypatch):
    """A text of few distinct lines: the windows as the loop finds them (few_distinct_lines answering None), the tables
    warm (each text read twice) or emptied."""
    rng = random.Random(3000 + seed)
    text = _few_lines(rng)
    if seed % 3 == 0:
        line_views.LINE_EDITS.clear()
        line_views.ALONE.clear()
    for _ in range(2):
        got = line_views.line_view_windows(text, text.lower())
        with monkeypatch.context() as patch:
            patch.setattr(line_views, "few_distinct_lines", lambda text: None, raising=False)
            assert got == line_views.line_view_windows(text, text.lower())


@pytest.mark.parametrize("seed", range(100))
def test_printed_form_hold_as_main(seed):
    rng = random.Random(4000 + seed)
    text = _text(rng, 8000)
    main = MAIN_STREAM["_printed_form_hold"]
    breaks = [k + 1 for k, c in enumerate(text) if c == "\n"] or [len(text)]
    for cut in rng.sample(breaks, min(30, len(breaks))) + [len(text)]:
        assert stream._printed_form_hold(text, cut) == main(text, cut), cut


def _fed(stream_class, redactor, text, reads, piece):
    sink = stream_class(redactor, piece=piece)
    out = [sink.feed(text[at:at + reads]) for at in range(0, len(text), reads)]
    return out + [sink.close()]


@pytest.mark.parametrize("seed", range(40))
def test_stream_pieces_as_main(seed, monkeypatch):
    """The stream's pieces (where it cuts, and each piece's output) as main's _sources_hold, _printed_form_hold and
    line_source give them, on sources taking turns in runs and one line at a time."""
    rng = random.Random(5000 + seed)
    text = _text(rng, 6000)
    piece, reads = rng.choice((200, 500, 1500)), rng.choice((300, 1000, 4096))
    redactor = Redactor({"HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"})
    getattr(line_views, "SOURCES", {}).clear() if seed % 2 else None
    got = _fed(StreamRedactor, redactor, text, reads, piece)
    context = _as_main(monkeypatch)
    try:
        want = _fed(MainStream, redactor, text, reads, piece)
    finally:
        context.__exit__(None, None, None)
    assert got == want   # (not always Redactor.text's at these small pieces, on main too: seed 20, a run of 200
    # `[rank2]:   - X` lines under a `[rank1]: password: >-` opener far above; the default piece, 64 KiB, agrees)


# Counts: each fails on main (the figures in the comments) and passes here
def test_sources_read_alone_once_a_text():
    """A source's lines read alone (_held_in on a buffer of its own) on 128 KiB of ranks taking turns inside a block,
    64 KiB reads: main 32, here 4."""
    class Counting(StreamRedactor):
        alone = 0

        def _held_in(self, cut, buffer):
            Counting.alone += buffer is not self._buffer
            return super()._held_in(cut, buffer)

    text = TURNS * (131072 // len(TURNS))
    sink = Counting(Redactor({}))
    for at in range(0, len(text), 65536):
        sink.feed(text[at:at + 65536])
    sink.close()
    assert 0 < Counting.alone <= 8


def test_line_source_matches_a_line_once(monkeypatch):
    """LOG_PREFIX.match calls in line_views over the same stream: main 8,745, here 750 (other readers' too)."""
    counted = Counted(line_views.LOG_PREFIX, "match")
    monkeypatch.setattr(line_views, "LOG_PREFIX", counted)
    getattr(line_views, "SOURCES", {}).clear()
    text = TURNS * (131072 // len(TURNS))
    sink = StreamRedactor(Redactor({}))
    for at in range(0, len(text), 65536):
        sink.feed(text[at:at + 65536])
    sink.close()
    assert counted.calls <= 2000


def test_prefixed_block_copies_not_read_a_line_at_a_time(monkeypatch):
    """_other_source_line on 2,000 copies of ranks taking turns: main 5,835 calls, here 97."""
    counted = Counted(blocks._other_source_line)
    monkeypatch.setattr(blocks, "_other_source_line", counted)
    spans = blocks._prefixed_block_spans(TURNS * 2000)
    assert spans and counted.calls <= 300


def test_yaml_block_copies_passed_over(monkeypatch):
    """_yaml_body asked on 2,000 copies of a `secrets:` sequence: main 2,000, here 2; every copy's items still found."""
    counted = Counted(blocks._yaml_body)
    monkeypatch.setattr(blocks, "_yaml_body", counted)
    text = "secrets:\n  - Zq8Das1x\n  - Pa55w0rd-2\n" * 2000
    spans = blocks._yaml_block_spans(text)
    assert len(spans) == 4000 and counted.calls <= 10


def test_line_views_of_plain_repeated_lines_return_at_once():
    """line_view_windows on 2,000 Kubernetes env items (no line with edits), read a second time: main 60,462 Python
    lines, here 472."""
    text = "- name: DB_PASSWORD\n  value: Zq8Das\n" * 2000
    assert line_views.line_view_windows(text, text.lower()) == []
    windows, lines = python_lines_run(line_views.line_view_windows, text, text.lower())
    assert windows == [] and lines <= 2000


def test_printed_form_hold_walk_in_locals():
    """_printed_form_hold over 300 lines of ranks taking turns: main 1,412 Python lines, here 1,166 (no _below_says or
    _below_put call a line)."""
    buffer = TURNS * 60
    hold, lines = python_lines_run(stream._printed_form_hold, buffer, len(buffer))
    assert hold < len(buffer) and lines <= 1250


@pytest.mark.parametrize("unit", UNITS[:8])
def test_stream_as_text_on_turns(unit):
    redactor = Redactor({})
    text = unit * (40000 // len(unit))
    whole = redactor.text(text)
    assert "".join(_fed(StreamRedactor, redactor, text, 4096, 4096)) == whole
