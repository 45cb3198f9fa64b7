"""Issue 11, redaction speed (h26q, session 26): line_views.line_view_windows reads a block of lines repeated once
(line_index.repeated_block): where its loop comes by a mark to a line it came to before, and the lines from there to this
one are there right before and again after, the block's reading (its lines' edits and candidates) is placed on the
copies in C, away from the run's end. The count test counts the loop's mark searches on repeated forms against main's
count; the guards compare line_view_windows with main's code (e19ce8c, copied below as text and run in a copy of the
module's namespace) on seeded random texts of repeated blocks. Times: docs/benchmarks.md (h26q)."""

from __future__ import annotations

import json
import random

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import known_secrets, line_index, line_views, tables

# main's code at e19ce8c, the reference the guards compare with
MAIN_LINE_VIEW_WINDOWS = r'''
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
            # (a line's own edits, where LINE_EDITS knows the line and it has some, are all it has: no call)
            known = LINE_EDITS.get(line := text[line_start:line_end])
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
                        lambda start, end, lines: _pod_views(text, start, end, lines, read))'''


MAIN_ALIGNED_HOLD = r'''
def aligned_hold(buffer: str, start: int, cut: int) -> int:
    """Where a stream cuts so that a listing's rows are read with its header (TABLE_HOLD_LINES lines up at most)."""
    at = start
    rows: set[str] = set()   # (the lines judged no header: a listing's rows, a log's lines, repeat)
    for _ in range(TABLE_HOLD_LINES):
        line = buffer[at:end if (end := buffer.find("\n", at, cut)) >= 0 else cut]
        if "  " not in line and "\t" not in line:
            return cut   # (neither a header nor a row)
        if line not in rows:
            if _aligned_header(line) is not None or _aligned_header(without_log_prefix(line)) is not None:
                return at
            rows.add(line)
        if at == 0:
            return cut
        at = buffer.rfind("\n", 0, at - 1) + 1
    return cut
'''


def _main_namespace() -> dict:
    namespace = dict(vars(line_views))
    exec(MAIN_LINE_VIEW_WINDOWS, namespace)
    return namespace


MAIN = _main_namespace()


def main_line_view_windows(text: str, lower: str):
    return MAIN["line_view_windows"](text, lower)


# lines of the forms the benchmark repeats (sources taking turns, compose bars, ISO times, JSON records, srun, stern)
LINES = [
    "[rank0]: password: |", "[rank1]:   step 0 loss 2.30", "[rank0]:   Zq8Das1x", "[rank1]: api_tokens: &t",
    "[rank0]:   - Pa55w0rd-2", "api-1  | [rank0]: password: |", "worker-1  | step 1 loss 2.30",
    "2026-11-24T00:01:02Z step 1 loss 2.30", "app-1  | env:", "app-1  | - value: Zq8Das1x", "app-1  |   name: DB_PASSWORD",
    "app-1  | <property>", "app-1  |   <value>Pa55w0rd-2</value>", "[rank0]: ? password", "[rank0]: : Zq8Das1x",
    "[rank0]: password = <<EOF", "[rank0]: EOF", "0: secrets:", "1:   - Zq8Das1x", "pod/api-7f9c x ok value",
    "[rank0]: value loss 0.31 # auth ok & <eos> ! ? {} > passw secret", "plain line", "", "  indented",
    "2026-11-24T00:01:02.123456Z AUTH default Zq8Das1x", '{"caf\\u00e9": "cr\\u00e8me", "url": "x"}',
    "[rank0]: \u0130stanbul password: x", "[rank1]: \u03a3\u03a3 token", "{ \"a\": 1}",
    # (stern's and kubectl --prefix's: a line's prefix is read where a neighbour has one of its kind)
    "api-7f9c8 app password: Zq8Das1x", "api-7f9c8 app step 1 loss 2.30", "web-1a2b worker api_key: x9",
    "pod/api-1 secret: Zq8Das1x", "pod/api-2 step 2", "pod/api-1 {\"password\": \"x\"}",
] + [json.dumps({"level": "info", "msg": m}) for m in ("? password", ": Zq8Das1x", "AUTH default Pa55w0rd-2")]


def _random_text(rng: random.Random) -> str:
    unit = [rng.choice(LINES) for _ in range(rng.randint(1, 9))]
    parts = []
    for _ in range(rng.randint(1, 4)):
        body = "\n".join(unit) + "\n"
        parts.append(rng.choice(LINES) + "\n" if rng.random() < 0.5 else "")
        parts.append(body * rng.randint(1, 300))
        if rng.random() < 0.4:
            unit = [rng.choice(LINES) for _ in range(rng.randint(1, 9))]
    text = "".join(parts)
    for _ in range(rng.randint(0, 4)):   # (a character changed here and there)
        at = rng.randrange(len(text))
        text = text[:at] + rng.choice("x:\n[]{}|\u0130 ") + text[at + 1:]
    if rng.random() < 0.3:
        text = text[:rng.randrange(len(text) + 1)]
    return text


@pytest.mark.parametrize("seed", range(300))
def test_line_view_windows_as_main_on_repeated_blocks(seed):
    rng = random.Random(seed)
    text = _random_text(rng)
    if seed % 3 == 0:   # (the tables warm or emptied)
        line_views.LINE_EDITS.clear()
        line_index.ALONE.clear()
    lower = text.lower()
    assert line_views.line_view_windows(text, lower) == main_line_view_windows(text, lower)
    assert line_views.line_view_windows(text, lower) == main_line_view_windows(text, lower)


def _loop_reading(namespace: dict, text: str, lower: str) -> tuple:
    """What line_view_windows' loop gives window_edits: its candidates and each line read (its `read`)."""
    got = []
    real = namespace["window_edits"]

    def capture(text, candidates, before, after, known, edits_of, shared_prefix, views):
        read = next(cell.cell_contents for cell in edits_of.__closure__ if isinstance(cell.cell_contents, dict))
        got.append((list(candidates), dict(read)))
        return real(text, candidates, before, after, known, edits_of, shared_prefix, views)
    namespace["window_edits"] = capture
    try:
        out = namespace["line_view_windows"](text, lower)
    finally:
        namespace["window_edits"] = real
    return out, got


@pytest.mark.parametrize("seed", range(300, 400))
def test_loop_reads_as_main(seed):
    # (the candidates and lines read, not only the windows: a window covers a few lines left out)
    rng = random.Random(seed)
    text = _random_text(rng)
    lower = text.lower()
    assert _loop_reading(vars(line_views), text, lower) == _loop_reading(MAIN, text, lower)


@pytest.mark.parametrize("seed", range(40))
def test_line_view_windows_as_main_where_lower_differs(seed):
    # (lower not text.lower() as long: the block is not taken; lower's own changes at the same places)
    rng = random.Random(1000 + seed)
    text = _random_text(rng)
    lower = text.lower()
    if len(lower) == len(text) and text:
        at = rng.randrange(len(text))
        lower = lower[:at] + lower[at].upper() + lower[at + 1:]
    assert line_views.line_view_windows(text, lower) == main_line_view_windows(text, lower)


def _searches(monkeypatch, function, text: str) -> tuple[list, int]:
    made = []
    real = line_views._marks

    def counted(found):
        made.append(Counted(real(found), "search"))
        return made[-1]
    monkeypatch.setitem(function.__globals__, "_marks", counted)
    out = function(text, text.lower())
    return out, sum(c.calls for c in made)


UNITS = {
    "ranks taking turns": "[rank0]: password: |\n[rank1]:   step 0 loss 2.30\n[rank0]:   Zq8Das1x\n"
                          "[rank1]: api_tokens: &t\n[rank0]:   - Pa55w0rd-2\n",
    "value-first pairs behind compose bars": "".join(f"app-1  | {line}\n" for line in (
        "env:", "- value: Zq8Das1x", "  name: DB_PASSWORD", "<property>", "  <value>Pa55w0rd-2</value>",
        "  <name>fs.s3a.secret.key</name>", "</property>")),
    "forms in JSON records": "".join(json.dumps({"level": "info", "msg": line}) + "\n" for line in (
        "? password", ": Zq8Das1x", "AUTH default Pa55w0rd-2", "set -x DB_PASSWORD Zq8Das1x other")),
}


@pytest.mark.parametrize("name", sorted(UNITS))
def test_repeated_block_read_once(monkeypatch, name):
    # main searches for a mark a line (2,000 copies: 8,000 to 14,000 lines); here a block's copies are placed in C
    text = UNITS[name] * 2000
    out, searches = _searches(monkeypatch, line_views.line_view_windows, text)
    assert out == main_line_view_windows(text, text.lower())
    assert searches <= 200, searches


def test_main_searches_a_line(monkeypatch):
    # (the count the bound above is set against: main's loop, copied, on the same text)
    text = UNITS["ranks taking turns"] * 2000
    _, searches = _searches(monkeypatch, MAIN["line_view_windows"], text)
    assert searches >= 4000, searches


def test_stream_as_text_on_repeated_blocks():
    from stream_feed import fed_in_reads
    redactor = Redactor({"DB_PASSWORD": "S3cr3tP@ssw0rd!xyz"})
    for unit in UNITS.values():
        text = unit * 300
        whole = redactor.text(text)
        assert fed_in_reads(redactor, text, 4096, 1 << 16) == whole
        assert fed_in_reads(redactor, text, 1000, 3000) == whole


def _main_tables() -> dict:
    namespace = dict(vars(tables))
    exec(MAIN_ALIGNED_HOLD, namespace)
    return namespace


MAIN_TABLES = _main_tables()
TABLE_LINES = LINES + ["NAME    VALUE", "api_key    Zq8Das1x", "[rank0]: TOKEN    NAME", "[rank0]: hf_x    llama",
                       "Key    Value", "password    x", "USER  PASSWORD  HOST", "alice  Zq8Das1x  db", "\tx\ty",
                       "[rank1]:   a  b", "app-1  | NAME  TOKEN"]


@pytest.mark.parametrize("seed", range(100))
def test_aligned_hold_as_main(seed):
    rng = random.Random(2000 + seed)
    lines = [rng.choice(TABLE_LINES) for _ in range(rng.randint(1, 8))]
    buffer = "".join(rng.choice(lines) + "\n" for _ in range(rng.randint(1, 150)))
    if seed % 4 == 0:
        getattr(tables, "ALIGNED_VERDICTS", {}).clear()   # (none at main)
    starts = [0] + [k + 1 for k, c in enumerate(buffer) if c == "\n"][:-1]
    for _ in range(30):
        k = rng.randrange(len(starts))
        start = starts[k]
        cut = buffer.find("\n", start) + 1
        assert tables.aligned_hold(buffer, start, cut) == MAIN_TABLES["aligned_hold"](buffer, start, cut)


def test_aligned_header_asked_once_a_line(monkeypatch):
    # a stream's holds over ranks taking turns ask aligned_hold of the same few lines again and again: main asks
    # _aligned_header of each line anew each call (about 2,700 times on 128 KiB), here once a distinct line
    from stream_feed import fed_in_reads
    getattr(tables, "ALIGNED_VERDICTS", {}).clear()
    counted = Counted(tables._aligned_header)
    monkeypatch.setattr(tables, "_aligned_header", counted)
    text = (UNITS["ranks taking turns"] * 6000)[:1 << 17]
    redactor = Redactor({"DB_PASSWORD": "S3cr3tP@ssw0rd!xyz"})
    assert fed_in_reads(redactor, text, 1 << 16, 1 << 16) == redactor.text(text)
    assert counted.calls <= 50, counted.calls


MAIN_HEAD_OVER_LINES = r'''
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
'''


def _main_head_over_lines():
    namespace = dict(vars(known_secrets))
    exec(MAIN_HEAD_OVER_LINES, namespace)
    return namespace["head_over_lines"]


MAIN_HOL = _main_head_over_lines()
VALUES = ["hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "S3cr3tP@ssw0rd!xyz", "Zq8Das1xPa55"]


def _redactors():
    few = Redactor({"HF_TOKEN": VALUES[0], "DB_PASSWORD": VALUES[1], "API_KEY": VALUES[2]})
    many = Redactor({**{f"TOKEN_{k}": f"Zq{k}x{k * 7919 % 10007:05d}Pa55w0rdQm" for k in range(200)},
                     "HF_TOKEN": VALUES[0], "DB_PASSWORD": VALUES[1]})
    return few, many


FEW, MANY = _redactors()


def _head_text(rng: random.Random) -> str:
    value = rng.choice(VALUES + ["Zq17x" + f"{17 * 7919 % 10007:05d}" + "Pa55w0rdQm"])
    pieces = []
    for _ in range(rng.randint(1, 40)):
        kind = rng.random()
        prefix = rng.choice(["", "[rank0]: ", "[rank1]: ", "app-1  | ", "2026-11-24T00:01:02Z ", "0: "])
        if kind < 0.4:   # (a value printed over lines, a few characters a line)
            at = 0
            while at < len(value):
                step = rng.randint(1, 9)
                pieces.append(prefix + value[at:at + step] + rng.choice(["\n", "\n", "\r\n"]))
                at += step
                if rng.random() < 0.2:
                    break
        elif kind < 0.5:   # (a JSON record, a head at its message's end)
            pieces.append(json.dumps({"msg": "x " + value[:rng.randint(1, 12)]}) + "\n")
        elif kind < 0.6:   # (a value over JSON records, each message a piece: the records above are read)
            at = rng.randint(0, 6)
            while at < len(value):
                step = rng.randint(2, 8)
                pieces.append(json.dumps({"msg": value[at:at + step]}) + "\n")
                at += step
                if rng.random() < 0.3:
                    break
        elif kind < 0.7:   # (a long line ending with a head: its start before the characters read)
            h = rng.randint(1, len(value) - 1)
            pieces.append(prefix + "word " * rng.randint(0, 30) + value[:h] + "\n" + value[h:] + "\n")
        else:
            pieces.append(prefix + rng.choice(LINES) + "\n")
    return "".join(pieces) * rng.randint(1, 4)


@pytest.mark.parametrize("seed", range(150))
def test_head_over_lines_as_main(seed):
    rng = random.Random(3000 + seed)
    text = _head_text(rng)
    ends = [k + 1 for k, c in enumerate(text) if c == "\n"] + [len(text), rng.randrange(len(text) + 1)]
    for redactor in (FEW, MANY):
        known = redactor._known
        if seed % 5 == 0:
            getattr(known, "_head_memo", {}).clear()   # (none at main)
        for end in ends * 2:   # (and again, the answers kept)
            assert known.head_over_lines(text, end) == MAIN_HOL(known, text, end), (end, redactor is FEW)
        for end in ends:   # (the same lines at the end of a longer text: another place)
            longer = "x\n" * 3 + text[:end]
            assert known.head_over_lines(longer, len(longer)) == MAIN_HOL(known, longer, len(longer))


def test_head_over_lines_asked_once_a_window(monkeypatch):
    # a stream's holds over ranks taking turns ask head_over_lines of the same lines again and again: main reads each
    # call's characters anew (_head_start: 295 calls on 128 KiB at main), here once for the same lines (19)
    from stream_feed import fed_in_reads
    redactor = Redactor({"HF_TOKEN": VALUES[0], "DB_PASSWORD": VALUES[1]})
    counted = Counted(known_secrets.KnownSecrets._head_start)
    monkeypatch.setattr(known_secrets.KnownSecrets, "_head_start", lambda self, *a: counted(self, *a))
    text = (UNITS["ranks taking turns"] * 6000)[:1 << 17]
    assert fed_in_reads(redactor, text, 1 << 16, 1 << 16) == redactor.text(text)
    assert counted.calls <= 60, counted.calls
