"""StreamRedactor: the Redactor's rules over a stream, piece by piece, holding back only what a secret or a form
read over lines may still need (key blocks, dumps, YAML blocks, names at a line's end)."""

from __future__ import annotations

import bisect
import re

from .assignments import NAME_ENDS_LINE, VALUE_ON_NEXT_LINE, foreign_name_ends_line
from .commands import askpass_hold, sql_statement_hold, sql_statement_open
from .blocks import PREFIXED_OPENER, YAML_BLOCK_KEY, YAML_LINE_OPENER, _opener_prefix, _opens_string_over_lines
from .dumps import DUMP_HOLD_LINES, KEY_HOLD, SHORT_BARE_LINE, _dump_line_at, _dump_lines_start
from .hosts import peer_env_item_hold
from .keys import _key_open, _last_key_block, openssl_text_key_hold
from .tables import open_table_header, table_hold
from .token_spans import kaggle_json_hold, pbtxt_parameter_hold
from .printed_rows import env_continuation_hold, prefixed_table_hold   # (session 26, h26a)
from .wraps import folded_jwt_hold, wrapped_token_hold
from .line_views import SOURCE_LOOK_LINES, interleaved_sources, line_source, without_log_prefix, without_log_prefixes
from .layouts import (
    DATA_BLOCK_JSON, DATA_BLOCK_YAML, ENV_ITEM_NAME, HADOOP_NAME, LOGURU_ARROW, PRINTED_FORM_HOLD_LINES,
    _names_token_list, _secret_name_columns, az_secret_table_hold, op_json_hold,
)
from .names import _secret_name_cached
from .printed_commands import TRACED_PIPE_LINE_END
from .redactor import Redactor
from .spans import CSI, NAME_CHARACTERS, Span, _START, _cut_outside_spans, _merge_spans, _plain_tail, has_any


# Forms whose secret comes on lines still to come: each says where a cut before the piece's last line (buffer[start:cut])
# must go instead, or the cut itself; asked in this order, the first to move it wins
FORM_HOLDS = (
    sql_statement_hold,      # a SQL statement's placeholders: its parameters come on the next line (_sqlalchemy_spans)
    sql_statement_open,      # a statement SQLAlchemy printed over lines, its placeholders and parameters still to come
    op_json_hold,            # 1Password's JSON of a field's value, still open
    az_secret_table_hold,    # az's table of a secret, its row still to come
    openssl_text_key_hold,   # a private key's component that `openssl ... -text` is still printing
    wrapped_token_hold,      # a secret folded over lines, its next piece still to come
    folded_jwt_hold,         # a JWT folded before its second dot, its next piece still to come
    kaggle_json_hold,        # kaggle.json over lines, its "key" or "username" still to come
    peer_env_item_hold,      # a Kubernetes env item naming a peer setting, its value (a host) still to come
    table_hold,              # a table whose header names a secret column, its rows still to come
    askpass_hold,            # a shell's shebang line, an askpass script's `echo X` still to come (session 24)
    pbtxt_parameter_hold,    # a protobuf text map entry's secret `key: "NAME"`, its value still to come (session 25)
    env_continuation_hold,   # `env`'s secret-named line, its value's next lines and the closing `NAME=` still to come (26)
    prefixed_table_hold,     # a bar table's `| token |` header behind a log prefix, its rows still to come (session 26)
)
SOURCE_ROUNDS = 16   # times a cut that interleaved sources moved is asked again (StreamRedactor._hold_back)
HOLD_ROUNDS = 64   # lines a cut moves up over names waiting for their values after the rules' rounds, at most
VIEW_HOLD_LINES = 16   # lines before a cut read as their views (StreamRedactor._views_hold)
ALONE_HELD_MOST = 32   # a source's lines read alone whose hold a StreamRedactor keeps (_sources_hold), at most


def _waiting_above(buffer: str, cut: int) -> int:
    """The cut moved up to a line of no source whose name waits for its value (_value_waits: `{"message":
    "DB_PASSWORD="}`) where only lines of one source (the last line's) are between it and the cut, SOURCE_LOOK_LINES at
    most: the text reads each source's lines with the lines of none (line_views._pod_views), so another source's line
    still to come may be that name's value in its view. (Session 26: with a flush after `[rank0]: x`, the stream let the
    name out and kept the value that `[rank1]: ` printed next; Redactor.text hid it.)"""
    end = cut
    start = buffer.rfind("\n", 0, end - 1) + 1
    last = line_source(buffer, start, end)
    if not last:
        return cut
    for _ in range(SOURCE_LOOK_LINES):
        if start <= 0:
            return cut
        end = start
        start = buffer.rfind("\n", 0, end - 1) + 1
        source = line_source(buffer, start, end)
        if source == last:
            continue
        if source:
            return cut   # (another source's line: interleaved_sources' case)
        if _value_waits(buffer[start:end]):
            return start
    return cut


class StreamRedactor:
    """Redacts a stream piece by piece, in bounded memory and time, with the same rules as
    Redactor.text: pieces end at a newline, a key block open at a piece's end goes on being
    redacted in the next, and a line longer than max_line is cut where no span (and no span's
    evidence) crosses the cut; a secret that reaches a forced cut is continued to the next space."""

    def __init__(self, redactor: Redactor, max_line: int = 1 << 20, piece: int = 1 << 16):
        self.redactor = redactor
        self.hold = max(4096, 2 * redactor.longest_literal)
        # (a forced cut goes at least `hold` characters before the end of max_line: at or before 0 it never moved on)
        self.max_line = max_line if max_line > self.hold else 2 * self.hold
        # Where pieces may end is decided by the text alone, never by how the pipe delivered it, so the output
        # is the same whatever the reads: a cut is tried at the first newline `piece` characters or more after
        # the last place tried (counted from the stream's start), moved back over lines that must stay with the
        # next ones (_hold_back); a line longer than max_line is cut within its first max_line characters
        # (2 * hold at least: a forced cut lands `hold` characters before the end of what it reads).
        self.piece = max(1, piece)
        self._window = max(max_line, 2 * self.hold)   # what a forced cut reads (a cut lands `hold` before its end)
        self._buffer = ""
        self._offset = 0       # where the buffer starts in the stream
        self._next_try = 0     # where in the stream the next cut is looked for (the first newline from here)
        self._in_key = False
        self._token_carry = False
        self._value_next = False
        self._dump_behind = ""   # the dump lines last let out, when the piece ended inside a dump block
        self._table_head = ""    # the header of the secret table the last piece ended in (tables.open_table_header)
        self._alone_held: dict[str, int] = {}   # a source's lines read alone -> their hold (_sources_hold)

    def feed(self, text: str) -> str:
        self._buffer += text
        out = []
        while True:
            newline = self._buffer.find("\n", max(0, self._next_try - self._offset), self._window)
            if newline >= 0:
                self._next_try = self._offset + newline + self.piece
                cut = self._hold_back(newline + 1)
                if cut:
                    out.append(self._emit(cut))
                    # what a key block held back is looked at again only once as much again has come (linear)
                    self._next_try = max(self._next_try, self._offset + 2 * (newline + 1 - cut))
            elif len(self._buffer) > self._window:
                out.append(self._emit(None))
            else:
                return "".join(out)

    def flush(self) -> str:
        """What may go out now, for someone watching the output live (the pipe went quiet, or a while passed): a cut
        tried at the buffer's last newline, moved back as any cut is (_hold_back), so the bytes are still those
        Redactor.text gives on the whole stream; a cut at a newline is safe wherever it falls."""
        newline = self._buffer.rfind("\n", 0, self._window)
        if newline < 0:
            return ""
        cut = self._hold_back(newline + 1)
        if not cut:
            return ""
        self._next_try = max(self._next_try, self._offset + newline + self.piece)
        return self._emit(cut)

    def _hold_back(self, cut: int, buffer: str | None = None) -> int:
        """Where to cut: before lines that must stay with the next ones (_line_hold, _printed_form_hold), each
        rule asked again where another moved the cut (a few rounds: each moves it up or leaves it). Where the rounds
        run out (a run of lines each held for the next: indented ones, each maybe a frame's code line), the cut is
        still moved up over lines that end with a name whose value comes on the next line (_value_waits), HOLD_ROUNDS
        lines at most (more: no cut, the stream tries again at a later newline). (The last round's cut taken as it was
        fell between `stoken_compound =` and its value on the next line: text hid the value, the stream kept it.)
        Where the lines before the cut are of sources taking turns (line_views: pods' or ranks' prefixes), each
        source's lines are asked too, as if alone (_sources_hold), and the cut they move is asked again as any cut
        is (a cut moved up may fall inside another form); SOURCE_ROUNDS times at most, then no cut.
        (`buffer`: the text the cut is in, the stream's buffer unless a source's lines are asked.)"""
        if buffer is not None:
            return self._held_in(cut, buffer)
        cut = self._source_rounds(cut)
        # (once, after the rounds: asked in each round, a form opened in every 16 lines' views moved each round's cut up
        # until none was left, and a log of JSON records was never cut; the cut it moves is asked again as any cut is,
        # sources' rounds included: a cut moved between a rank's `password:` and its value, other ranks' lines between,
        # was let out when only _held_in asked it)
        viewed = self._views_hold(cut)
        return cut if viewed == cut else self._source_rounds(viewed)

    def _source_rounds(self, cut: int) -> int:
        """_held_in and _sources_hold asked in turn until neither moves the cut (SOURCE_ROUNDS at most, then no cut)."""
        for _ in range(SOURCE_ROUNDS):
            held = self._held_in(cut, self._buffer)
            cut = self._sources_hold(held)
            if cut == held:
                return cut
        return 0

    def _held_in(self, cut: int, buffer: str) -> int:
        """_hold_back's rounds in buffer (the stream's, or a source's lines alone)."""
        for round in range(8):
            moved = _printed_form_hold(buffer, self._line_hold(cut, dumps=not round, buffer=buffer))
            if moved == cut:
                return cut
            cut = moved
        if cut > 0:   # (the rounds ran out, each moving the cut a line: a SQL statement is never parted from its parameters)
            cut = min(cut, sql_statement_hold(buffer, buffer.rfind("\n", 0, cut - 1) + 1, cut))
        for _ in range(HOLD_ROUNDS):
            start = buffer.rfind("\n", 0, cut - 1) + 1
            if cut <= 0 or not _value_waits(buffer[start:cut]):
                return cut
            cut = start
        return 0

    def _views_hold(self, cut: int) -> int:
        """The cut moved up where the last VIEW_HOLD_LINES lines before it (within 16 KiB), the last of them behind a
        log prefix or quoted (a rank's `[rank0]: `, compose's bar, a JSON or Docker record), read as their views
        (line_views.without_log_prefixes: a Docker record's JSON record read two levels deep, as the text reads a window
        of them), are held by the rules: each rule judges the
        lines it knows (an openssl component's hex, a dump's lines, a name whose value comes next) as the text will. The
        hold is placed back on the line whose view it falls in. (Session 26: `[rank0]: priv:` over `[rank0]:     0d:..:e7:`
        lines let out at a flush, their next line still to come, kept what the text hid.)"""
        if cut <= 0:
            return cut
        buffer = self._buffer
        last = buffer[buffer.rfind("\n", 0, cut - 1) + 1:cut]
        if without_log_prefixes(last) is last:
            return cut   # (the last line is read as it is: the rules asked it so already)
        floor = max(0, cut - 16384)
        starts: list[int] = []
        end = cut
        while len(starts) < VIEW_HOLD_LINES and end > floor:
            start = buffer.rfind("\n", floor, end - 1) + 1
            if start == 0 and floor:
                break
            starts.append(start)
            end = start
        if not starts:
            return cut
        starts.reverse()
        ends = starts[1:] + [cut]
        lines = [buffer[a:b] for a, b in zip(starts, ends)]
        views = [without_log_prefixes(line) for line in lines]
        alone = "".join(views)
        held = self._alone_held.get(alone)
        if held is None:
            held = self._held_in(len(alone), alone)
            if len(self._alone_held) >= ALONE_HELD_MOST:
                self._alone_held.clear()
            self._alone_held[alone] = held
        at = 0
        for k, view in enumerate(views):
            at += len(view)
            if at > held:   # (the line whose view the hold falls in, or begins)
                return min(cut, starts[k])
        return cut

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
            return _waiting_above(self._buffer, cut)
        starts, sources = found
        ends = starts[1:] + [cut]
        for source in dict.fromkeys(filter(None, sources)):
            kept = [k for k, other in enumerate(sources) if not other or other == source]
            if len(kept) == len(sources):
                continue
            alone = "".join(self._buffer[starts[k]:ends[k]] for k in kept)
            held = self._alone_held.get(alone)
            if held is None:   # (its hold is the text's alone: one source's lines met again, in a later round or cut)
                held = self._hold_back(len(alone), alone)
                if len(self._alone_held) >= ALONE_HELD_MOST:
                    self._alone_held.clear()
                self._alone_held[alone] = held
            if held < len(alone):
                at = 0
                for k in kept:   # (the line the hold falls on, or the first kept line where it falls inside one)
                    if at >= held:
                        cut = min(cut, starts[k])
                        break
                    at += ends[k] - starts[k]
        return cut

    def _line_hold(self, cut: int, dumps: bool = True, buffer: str | None = None) -> int:
        """Before the lines that may begin a known secret printed over lines (Redactor.head_over_lines), before the
        last line when it ends with a piece of a known secret, or with a secret name whose value comes on the next line; before a dump's last lines (in the first
        round only: a dump block is held DUMP_HOLD_LINES lines back, not that many again each round)."""
        if cut <= 0:
            return 0
        if buffer is None:
            buffer = self._buffer
        start = buffer.rfind("\n", 0, cut - 1) + 1
        line = buffer[start:cut]
        head = self.redactor.head_over_lines(buffer, cut)
        if head < cut:   # lines that may begin a known secret printed over lines: they wait for the next ones
            return head
        end = len(line.rstrip("\r\n"))
        if any(span[1] == end for span in self.redactor._fragment_spans(line)) if self.redactor._pieces else False:
            return start
        if _value_waits(line):   # `cookie:` waits for its value; `DB_PASS\` for the rest of its name
            return start
        for hold in FORM_HOLDS:
            if (held := hold(buffer, start, cut)) < cut:
                return held
        # a dump's last lines wait for the next piece, so a secret dumped across the cut is decoded whole; a line of
        # 1 to 4 bare bytes at the end may begin one (what follows it says)
        if not dumps:
            return cut
        if (cut == len(buffer) and not _dump_line_at(buffer, start, cut - 1)
                and SHORT_BARE_LINE.fullmatch(buffer, start, cut - 1)):
            return _dump_lines_start(buffer, start, DUMP_HOLD_LINES - 1)
        return _dump_lines_start(buffer, cut)

    @property
    def held_text(self) -> str:
        """What was fed and not yet let out (held for the next cut)."""
        return self._buffer

    def close(self) -> str:
        out = self._emit(len(self._buffer), last=True) if self._buffer else ""
        self._buffer = ""
        return out

    def _emit(self, cut: int | None, last: bool = False) -> str:
        text = self._buffer
        if cut is not None:  # a newline cut: no single-line secret crosses it
            piece = text[:cut]
            spans = self.redactor.spans(piece, self._in_key, self._token_carry, self._value_next)
            if self._table_head and (under := _after_head(self.redactor.spans(self._table_head + piece),
                                                          len(self._table_head))):
                spans = _merge_spans(sorted(spans + under))   # (rows under a header let out before: read with it)
            open_key = None if last else _last_key_block(spans)
            if open_key is not None and _key_open(piece, open_key):
                # a key block still open at the cut waits, from its first line, for the rest of it (so it is
                # read as the whole text would read it); one longer than KEY_HOLD goes on with _in_key
                block_line = text.rfind("\n", 0, open_key[0]) + 1
                if block_line > 0:
                    cut = block_line
                    piece = text[:cut]
                elif cut < KEY_HOLD:
                    return ""
            self._token_carry = False
            spans = self._with_dump_context(text, cut, spans)
        else:  # a line too long to hold: cut where no span, nor the evidence for one, crosses (within its first
            # max_line characters, whatever else the buffer holds: the same text gives the same cut)
            text = text[:self._window]
            spans = self.redactor.spans(text, self._in_key, self._token_carry, self._value_next)
            cut = max(1, _cut_outside_spans(spans, len(text) - self.hold, len(text)))
            piece = text[:cut]
            last_end = spans[bisect.bisect_left(spans, cut, key=_START) - 1][1] if spans and spans[0][0] < cut else -1
            self._token_carry = cut == len(text) and last_end >= cut and not text[-1:].isspace()
            text = self._buffer
        before = bisect.bisect_left(spans, cut, key=_START)  # (merged spans: in order, none overlap)
        out = self.redactor._apply(piece, spans[:before])
        last_key = _last_key_block(spans[:before])
        self._in_key = bool(last_key and _key_open(piece, last_key))
        self._value_next = bool(VALUE_ON_NEXT_LINE.search(_plain_tail(piece)))
        self._table_head = (open_table_header(self._table_head + piece) or "") if piece.endswith("\n") else ""
        if _dump_lines_start(piece, len(piece), 1) < len(piece):   # the piece ends inside a dump block
            behind = self._dump_behind + piece
            self._dump_behind = behind[_dump_lines_start(behind, len(behind)):]
        else:
            self._dump_behind = ""
        self._buffer = text[cut:]
        self._offset += cut
        return out

    def _with_dump_context(self, text: str, cut: int, spans: list[Span]) -> list[Span]:
        """A dump block longer than the hold (DUMP_HOLD_LINES) goes out in pieces; a secret across two of them
        is found as the whole text finds it by decoding, with the piece, the block's lines already let out
        before it (raw, in memory only) and those held after it: what is found in the piece is added."""
        ahead = cut
        for _ in range(DUMP_HOLD_LINES):
            newline = text.find("\n", ahead)
            if newline < 0 or not _dump_line_at(text, ahead, newline):
                break
            ahead = newline + 1
        behind = self._dump_behind
        if ahead == cut and not behind:
            return spans
        # (only the piece's first and last DUMP_HOLD_LINES lines can hold a secret across its ends: two windows)
        windows = []
        if behind:
            head = cut
            at = 0
            for _ in range(DUMP_HOLD_LINES):
                at = text.find("\n", at, cut) + 1
                if not at:
                    break
                head = at
            windows.append((behind + text[:head], -len(behind)))
        if ahead > cut:
            tail = cut
            for _ in range(DUMP_HOLD_LINES):
                if tail <= 0:
                    break
                tail = text.rfind("\n", 0, tail - 1) + 1
            windows.append((text[tail:ahead], tail))
        found = [(start + shift, min(end + shift, cut), replacement, label, max(0, context + shift))
                 for window, shift in windows
                 for start, end, replacement, label, context in self.redactor._dump_spans_uncoloured(window)
                 if 0 <= start + shift < cut]
        return _merge_spans(sorted(spans + found)) if found else spans


def _after_head(spans: list[Span], head: int) -> list[Span]:
    """Spans read with a table's header before the piece, placed on the piece (those in the header dropped)."""
    return [(start - head, end - head, replacement, label, max(0, context - head))
            for start, end, replacement, label, context in spans if start >= head]


PRINTED_FORM_HOLD_CHARS = 16384
PRINTED_FORM_OPENERS = ("ame", "File \"", LOGURU_ARROW, "\"sensitive\"", "ata", "Name ", ":\n", ":\r\n", "|", ">", '"""', "'''",
                        "<<", "? ", ": ", "<value>", "Key ", ": &", ": !",
                        "SecureString", "ParameterKey", "variable \"", "alue", "keyName")


VALUE_FIRST_LINE = re.compile(r"[ \t]{0,64}(?:- )?[\"']?[Vv]alue[\"']?[ \t]{0,3}[:=]")


def _value_waits(line: str) -> bool:
    """Whether a line ends with a secret's name whose value comes on the next line (`cookie:`, `password = |`, a store's
    print: VALUE_ON_NEXT_LINE), or with a name continued there (`DB_PASS\\` then `WORD=X`: _continued_name_edits)."""
    if line.endswith(("\\\n", "\\\r\n")) and line.rstrip("\\\r\n")[-1:] in NAME_CHARACTERS:
        return True
    if _name_waits(line):
        return True
    # (a JSON record's message `DB_PASSWORD=`: the text reads the record's view, whose name waits for the next line)
    return ('"' in line or "'" in line) and _view_name_waits(line)


# A quoted line's verdict by its view, kept by the line: every try of a stream's hold asks the last lines again.
VIEW_NAME_WAITS: dict[str, bool] = {}


def _view_name_waits(line: str) -> bool:
    verdict = VIEW_NAME_WAITS.get(line)
    if verdict is None:
        verdict = (view := without_log_prefix(line)) is not line and _name_waits(view)
        if len(line) <= HOLD_VERDICT_MOST_CHARS:
            if len(VIEW_NAME_WAITS) >= HOLD_VERDICT_MOST_LINES:
                VIEW_NAME_WAITS.clear()
            VIEW_NAME_WAITS[line] = verdict
    return verdict


def _name_waits(line: str) -> bool:
    last = _plain_tail(line)
    return (NAME_ENDS_LINE.search(last) is not None or VALUE_ON_NEXT_LINE.search(last) is not None
            or foreign_name_ends_line(last) or "+ " in last and TRACED_PIPE_LINE_END.search(last) is not None)


def _opens_printed_form(line: str) -> bool:
    """Whether a line may begin a form whose secret value comes on a later line: an env item's secret
    name, a traceback frame or loguru's arrows, terraform's "sensitive", a Secret's data block, the header
    of a Name/Value table. (A secret's name over a YAML sequence or block scalar: _yaml_block_open.)"""
    if "ame" in line:
        m = ENV_ITEM_NAME.search(line)
        if m is not None and _secret_name_cached(m.group("name")):
            return True
    if "<name>" in line and (m := HADOOP_NAME.search(line)) is not None and _secret_name_cached(m.group(1)):
        return True  # Hadoop XML: its <value> on a later line
    if "value:" in line and line.lstrip(" \t-").startswith("value:") and line.lstrip(" \t").startswith("-"):
        return True  # a Kubernetes env item with its value first (`- value: X` then `name: DB_PASSWORD`)
    if "<value>" in line and "</name>" not in line:
        return True  # Hadoop XML with the <value> first: its <name> on a later line
    if _opens_string_over_lines(line):
        return True  # `password = """`, `password = <<EOT`, `? password`
    if "alue" in line and VALUE_FIRST_LINE.match(line) is not None:
        return True   # a Kubernetes env item with its value first: its name on a later line
    if "/secrets/" in line and '"id"' in line:
        return True   # a secret store's JSON pretty-printed: its "value" on a later line (commands._pretty_sibling_value)
    if "SecureString" in line or "ParameterKey" in line or "variable \"" in line or "\"keyName\"" in line:
        return True   # SSM's Type then Value, CloudFormation's key then value, terraform's variable then its default
    return ("File \"" in line or LOGURU_ARROW in line or "\"sensitive\"" in line
            or (line.startswith(("Name ", "Key ", "KeyName ")) and line.rstrip().endswith("Value"))
            or ("ata" in line and (DATA_BLOCK_YAML.search(line.lstrip(" -") + "\n") is not None
                                   or DATA_BLOCK_JSON.search(line) is not None)))


def _yaml_block_open(line: str, below: list) -> bool:
    """Whether line names a secret over a YAML sequence or block scalar (_yaml_block_spans) that every line below it
    up to the cut goes on with (`below`, as _below_add keeps it): more of it may come after the cut."""
    return _below_says(_yaml_block_kind(line), below)


def _below_says(kind: tuple[int, int] | bool, below: list) -> bool:
    """_yaml_block_open's answer from the line's kind (_yaml_block_kind) and the lines below it."""
    if kind is True or kind is False:
        return kind
    what, indent = kind
    return below[2] > indent if what == DEEPER else bool(below[0] and below[1] >= indent)


DEEPER, ITEMS = 0, 1


def _yaml_block_kind(line: str) -> tuple[int, int] | bool:
    """What _yaml_block_open needs of the lines below a line, read from the line alone: True or False whatever they
    are, (DEEPER, indent): a non-blank line below, each deeper than indent, (ITEMS, indent): `- ` items below, none
    less indented than indent."""
    key = YAML_LINE_OPENER.fullmatch(line.rstrip("\r\n"))
    if key is None and (opener := PREFIXED_OPENER.search(line)) is not None and opener.end() == len(line) and (
            _opener_prefix(line[:opener.start()], opener.group("xml") is not None) is not None):
        return True   # `[rank0]: secrets: &t` over `[rank0]:   - X` lines: a block behind a log prefix (_prefixed_block_spans)
    if key is None:   # `password: first` over deeper lines: a plain scalar continued (_continued_scalar)
        key = YAML_BLOCK_KEY.match(line)
        if key is not None and line.startswith(":", key.end()) and _secret_name_cached(key.group("name")):
            return (DEEPER, len(key.group("indent")))
        return False
    if not (_secret_name_cached(key.group("name")) or _names_token_list(key.group("name"))):
        return False
    indent = len(key.group("indent"))
    if "|" in line[key.end("name"):] or ">" in line[key.end("name"):]:
        return (DEEPER, indent)
    return (ITEMS, indent)


def _below_add(below: list, line: str) -> None:
    """Adds a line to what _yaml_block_open knows of the lines below the one it judges (read upwards)."""
    _below_put(below, _below_facts(line))


def _below_facts(line: str) -> tuple[int, bool] | None:
    """What _below_add takes from a line: its indent and whether it is a `- ` item; None: a blank line."""
    content = line.rstrip("\r\n").lstrip(" \t")
    if not content:
        return None
    return len(line) - len(line.lstrip(" \t")), content.startswith("- ")


def _below_put(below: list, facts: tuple[int, bool] | None) -> None:
    if facts is not None:
        depth, item = facts
        below[2] = min(below[2], depth)
        if item:
            below[1] = min(below[1], depth)
        else:
            below[0] = False


# A line's verdicts in _printed_form_hold, by the line as the buffer holds it (a log's lines repeat: a stream's hold walks
# up to 4 * PRINTED_FORM_HOLD_LINES lines a round, each read through its line view): whether it opens a printed form,
# its YAML opener kind (_yaml_block_kind; False without a colon), whether it is an arrow line, its _below_facts. Only
# short lines are kept, and the table is emptied when full (memory bounded).
HOLD_VERDICTS: dict[str, tuple[bool, tuple[int, int] | bool, bool, tuple[int, bool] | None]] = {}
HOLD_VERDICT_MOST_CHARS = 512
HOLD_VERDICT_MOST_LINES = 4096


def _hold_verdict(raw: str) -> tuple[bool, tuple[int, int] | bool, bool, tuple[int, bool] | None]:
    verdict = HOLD_VERDICTS.get(raw)
    if verdict is not None:
        return verdict
    whole = CSI.sub("", raw) if "\x1b" in raw else raw
    line = without_log_prefix(whole)   # (a form behind a log prefix or in quotes is held as one without: line_views)
    opens = _opens_printed_form(line)
    if not opens and line is not whole and (inner := without_log_prefix(line)) is not line:
        # (`[rank1]: app-1  | - value: X`, a Docker record of compose's line: the text reads a view of the view, whose
        # form opens here; session 26)
        opens = _opens_printed_form(inner)
    kind = False if opens or ":" not in line else _yaml_block_kind(line)
    if kind is False and not opens and line is not whole and ":" in whole:
        kind = _yaml_block_kind(whole)   # (`api_key2: |` reads as pdsh's `node1: ` prefix: the opener is the whole line)
    verdict = (opens, kind, LOGURU_ARROW in line, _below_facts(line))
    if len(raw) <= HOLD_VERDICT_MOST_CHARS:
        if len(HOLD_VERDICTS) >= HOLD_VERDICT_MOST_LINES:
            HOLD_VERDICTS.clear()
        HOLD_VERDICTS[raw] = verdict
    return verdict


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
    # of the lines below (_below_says' `below`, written out: a step a line): all `- ` items, their least indent, the
    # least indent of a non-blank one
    items_only, item_least, least = True, 1 << 30, 1 << 30
    verdicts = HOLD_VERDICTS
    distance = 0
    while distance < reach:
        if end <= floor:
            break
        start = buffer.rfind("\n", floor, end - 1) + 1
        if start == 0 and floor:
            break
        distance += 1
        raw = buffer[start:end]
        opens, kind, arrow, facts = verdicts.get(raw) or _hold_verdict(raw)
        if above_arrow or opens or kind is not False and (
                kind is True or (least > kind[1] if kind[0] == DEEPER else items_only and item_least >= kind[1])):
            hold = start
            reach = min(distance + PRINTED_FORM_HOLD_LINES, 4 * PRINTED_FORM_HOLD_LINES)
        above_arrow = arrow
        if facts is not None:   # (_below_put)
            depth, item = facts
            if depth < least:
                least = depth
            if not item:
                items_only = False
            elif depth < item_least:
                item_least = depth
        end = start
    return hold
