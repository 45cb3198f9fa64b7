"""Private key blocks: armour (BEGIN/END, PuTTY, with or without an END line), framed and prefixed key lines,
and where an open block ends in a text or a stream."""

from __future__ import annotations

import functools
import re

from .line_views import line_source
from .spans import CSI, KEY_BLOCK, Span, _LABEL, _line_by_line


# A private key's armour line. Its block runs through the lines that can be key material (base64,
# "Header: value", blank) and the END line when there is one: a key whose END line is missing, or a
# log cut inside it, still goes.
# Also SSH2's "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", a lower-case armour, and PuTTY's key
# files (everything from the PuTTY-User-Key-File line, or from Private-Lines:).
KEY_BEGIN = re.compile(r"(?i:-{4,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5})"
                       r"|PuTTY-User-Key-File-\d{1,2}:[^\n]{0,200}|Private-Lines: \d{1,5}")
# The same BEGIN lines found fast: the armour from its "begin" in the lower-cased text (then the dashes
# before it are checked), PuTTY's lines from their literals.
KEY_BEGIN_FAST = [re.compile(r"begin(?:(?<=-----begin)|(?<=----begin)|(?<=----- begin)|(?<=---- begin))"
                             r" [a-z0-9 ]{0,40}private key(?: block)? ?-{4,5}"),
                  re.compile(r"PuTTY-User-Key-File-\d{1,2}:[^\n]{0,200}"), re.compile(r"Private-Lines: \d{1,5}"),
                  # a key's body printed without its armour: OpenSSH's (base64 of "openssh-key-v1"), and DER whose
                  # first field is a version number (PKCS#1/#8 keys, a PKCS#12 keystore: 30 82 LL LL 02 01 is
                  # "MII??[AQgw]IB"; a certificate, a public key or a signature starts 30 82 LL LL 30 and stays)
                  re.compile(r"b3BlbnNzaC1rZXktdjE(?<![A-Za-z0-9+/]b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{0,65536}"),
                  re.compile(r"MII(?<![A-Za-z0-9+/]MII)[A-Za-z0-9+/]{2}[AQgw]IB[A-Za-z0-9+/]{32,65536}={0,2}")]
KEY_END = re.compile(r"(?i)-{4,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}|Private-MAC: [0-9a-f]{0,128}")
# A key's body may be one long line (1,600 characters of base64 unwrapped).
KEY_LINE = r"(?:[A-Za-z0-9+/= \t\r]{0,65536}|(?!Private-MAC)[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,1024}|#[^\n]{0,1024})(?![^\n])"
# A key logged line by line with a prefix ("INFO: MIIE..."): the line ends in a base64 run; read on
# the reversed line, anchored, so one pass.
# (and a frame after the base64: rich's `MIIE... │`, an ascii box's ` |`, ansible's `",`, pytest's `'`)
REVERSED_PREFIXED_KEY_LINE = re.compile(r"[ \t\r]{0,64}(?:[\u2502\u2503\u2551|'\",;]{1,3}[ \t]{0,64})?[A-Za-z0-9+/=]{16,65536}"
                                        r"(?:[ \t:|>\]'\"\u2502\u2503\u2551]|\Z)")
# A key printed in a frame (text before its BEGIN or after it on the line) whose END line comes within this many lines:
# every line between goes, whatever frames it
FRAMED_KEY_LINES = 256
# Another BEGIN line right after is part of the same block (one pass over a run of them).
KEY_LINES = re.compile(rf"(?:\n(?:{KEY_LINE}|{KEY_BEGIN.pattern}[^\n]{{0,256}}))*")


def _last_key_block(spans: list[Span]) -> Span | None:
    """The last span of a private key block, or None (first a test in C: a text of a million spans holds none)."""
    if KEY_BLOCK not in map(_LABEL, spans):
        return None
    return next((span for span in reversed(spans) if span[3] == KEY_BLOCK), None)


def _key_spans(text: str, lower: str, in_key: bool) -> list[Span]:
    spans = []
    at = 0
    if in_key:  # the previous piece ended inside a key block
        end = _key_block_end(text, 0, first_line_is_key=True)
        if (begin := lower.find("-----begin", 0, end)) >= 0:
            end = text.rfind("\n", 0, begin) + 1   # a new block's BEGIN line, its log prefix too, is read as one
        if end > 0:
            spans.append((0, end, _line_by_line(text, 0, end), "private key block", 0))
        at = end
    # the next match of each BEGIN pattern, searched again only once the scan has passed it (linear)
    upcoming: list[tuple[int, int] | None] = [(-1, -1)] * len(KEY_BEGIN_FAST)
    # (the last block's BEGIN and armour end in its line, the text its end was read from (its line's start to the end
    # of the last line read: _key_block_end_reach), its end in its line and its replacement: a log repeats its blocks)
    last: tuple[int, int, str, int, str] | None = None
    live = list(range(len(KEY_BEGIN_FAST)))   # (the patterns with a match still ahead: one found None stays None)
    while True:
        for index in live:
            if upcoming[index][0] < at:
                m = KEY_BEGIN_FAST[index].search(lower if index == 0 else text, at)
                upcoming[index] = None if m is None else (_armour_start(lower, m.start()) if index == 0
                                                          else m.start(), m.end())
        if None in upcoming:
            live = [index for index in live if upcoming[index] is not None]
        if not live:
            return spans
        start, begin_end = upcoming[live[0]] if len(live) == 1 else min(upcoming[index] for index in live)
        line_start = text.rfind("\n", 0, start) + 1
        if (last is not None and start - line_start == last[0] and begin_end - line_start == last[1]
                and text.startswith(last[2], line_start)):
            end, lines = line_start + last[3], last[4]   # (the last block again: what its end was read from, the same)
        else:
            end, reach = _key_block_end_reach(text, begin_end, start)
            lines = _line_by_line(text, start, end)
            last = None if reach is None else (start - line_start, begin_end - line_start, text[line_start:reach],
                                               end - line_start, lines)
        spans.append((start, end, lines, "private key block", start))
        at = max(end, begin_end)


def _armour_start(lower: str, begin: int) -> int:
    """Where "-----BEGIN" starts, given where its "begin" is (4 or 5 dashes, maybe a space, before it)."""
    at = begin - 1 if lower[begin - 1:begin] == " " else begin
    before = lower[max(0, at - 5):at]   # (up to 5 dashes right before it)
    return at - (len(before) - len(before.rstrip("-")))


def _prefixed_key_line(line: str) -> bool:
    return bool(REVERSED_PREFIXED_KEY_LINE.match(line[::-1]))


def _prefixed_block_end(text: str, eol: int) -> int:
    """The end of a key logged with a prefix on each line: the lines that end in base64 (or are
    header lines), through the line with the END marker. Lines of another source between them (another pod's or
    rank's: line_source; interleaved logs) are passed over, and go with the block where its lines go on
    after them (as a framed block's lines between its BEGIN and END do), or where the text ends among them (a stream's
    piece: the block is open, and waits for its next lines)."""
    return _prefixed_block_end_reach(text, eol)[0]


def _prefixed_block_end_reach(text: str, eol: int) -> tuple[int, int | None]:
    """_prefixed_block_end, and the end of the last line it read, its line break included (the text it was read from
    runs from the start of eol's line to there); None where the text's end decided (a line without a break read)."""
    end = at = eol
    source = None   # the block's (its first line's), asked at the first line that would end it
    reach: int | None = None
    ended = False   # (whether the text's end decided)
    while at < len(text):
        next_eol = text.find("\n", at + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        reach = next_eol + 1 if next_eol < len(text) and not ended else None
        line = text[at + 1:next_eol]
        # (a line's verdict is the line's alone: remembered for short lines, a log repeats them)
        verdict = _prefixed_line_verdict(line) if len(line) <= 512 else _prefixed_line_verdict.__wrapped__(line)
        if verdict >= 0:
            return at + 1 + verdict, reach
        if verdict == PREFIXED_BLOCK_ENDS:
            if source is None:
                source = line_source(text, text.rfind("\n", 0, eol) + 1, eol)
            other = line_source(text, at + 1, next_eol) if source else ""
            if not other or other == source:
                break
            if next_eol >= len(text) - 1:
                end = len(text)   # (the text ends among another source's lines: the block may go on after them)
                ended = True
        else:
            end = next_eol
        at = next_eol
    else:
        ended = True   # (the text ended)
    while end > eol and text[end - 1] in "\r\n":
        end -= 1
    return end, None if ended else reach


PREFIXED_BLOCK_ENDS, PREFIXED_BLOCK_GOES_ON = -2, -1


@functools.lru_cache(maxsize=4096)
def _prefixed_line_verdict(line: str) -> int:
    """Where a prefixed key's END marker ends in the line, or whether the block goes on past the line (a line that ends
    in base64, a header line) or ends before it."""
    marker = KEY_END.search(line)
    if marker:
        return marker.end()
    if not (_prefixed_key_line(line) or line.lstrip().startswith("#") or re.search(r"[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,1024}\Z", line[-1100:])
            and re.search(r"(?:Proc-Type|DEK-Info|Comment|Version|Encryption):", line)):
        return PREFIXED_BLOCK_ENDS
    return PREFIXED_BLOCK_GOES_ON


def _key_block_end(text: str, at: int, first_line_is_key: bool = False, begin: int | None = None) -> int:
    """Where a key block starting at `at` ends: its END marker if it is on the same line; else the
    rest of that line, the key-material lines after it, and the END line right after them."""
    if not first_line_is_key:
        return _key_block_end_reach(text, at, at if begin is None else begin)[0]
    eol = text.find("\n", at)
    eol = len(text) if eol < 0 else eol
    end_marker = KEY_END.search(text, at, eol)
    if end_marker:
        return end_marker.end()
    if _prefixed_key_line(text[at:eol]) and not re.match(r"[A-Za-z0-9+/=]*\r?$", text[at:eol]):
        return _prefixed_block_end(text, eol)  # a prefixed key cut between two reads
    if not re.match(KEY_LINE, text[at:eol]):
        return at
    return _key_lines_end(text, at, eol, "")


def _key_block_end_reach(text: str, at: int, begin: int) -> tuple[int, int | None]:
    """_key_block_end of a block whose BEGIN starts at `begin` (its armour ending at `at`), and the end of the last line
    read for it, its line break included (the text it was read from runs from the start of begin's line to there): a
    block whose text from its line's start repeats that is the same block. None where the text's end decided, or the
    block's lines were read by a pattern (KEY_LINES)."""
    eol = text.find("\n", at)
    eol = len(text) if eol < 0 else eol
    line_reach = eol + 1 if eol < len(text) else None
    end_marker = KEY_END.search(text, at, eol)
    if end_marker:
        return end_marker.end(), line_reach
    line_start = text.rfind("\n", 0, begin) + 1
    prefix = text[line_start:begin].strip()
    framed_reach = line_reach
    if prefix or text[at:eol].strip():
        framed, framed_reach = _framed_block_end_reach(text, eol)
        if framed:
            return framed, framed_reach
    if prefix and not prefix.endswith(("'", '"')):
        end, reach = _prefixed_block_end_reach(text, eol)  # "INFO: -----BEGIN ...": every line has the prefix
        return end, (None if reach is None or framed_reach is None or line_reach is None
                     else max(reach, framed_reach))
    return _key_lines_end(text, at, eol, prefix), None


def _key_lines_end(text: str, at: int, eol: int, prefix: str, first_line_is_key: bool = False) -> int:
    """The end of a block read as its key-material lines after eol (KEY_LINES) and the END line right after them."""
    block = KEY_LINES.match(text, eol)
    end = block.end() if block else eol
    if end < len(text) and text[end] == "\n":
        tail = KEY_END.match(text, end + 1)
        if tail:
            return tail.end()
    while end > at and text[end - 1] in "\r\n":  # the line ends stay, so the text keeps its lines
        end -= 1
    if end == eol and prefix and not first_line_is_key:  # `E   '-----BEGIN`, `"-----BEGIN`: each line quoted
        return max(end, _prefixed_block_end(text, eol))
    return end


def _framed_block_end(text: str, eol: int) -> int:
    """A key whose BEGIN line has a frame around it (`│ -----BEGIN ... │`, `E   '-----BEGIN`, `"-----BEGIN ...",`):
    the end of its END marker when one comes within FRAMED_KEY_LINES lines with no other BEGIN before it, else 0
    (the block is then read line by line)."""
    return _framed_block_end_reach(text, eol)[0]


def _framed_block_end_reach(text: str, eol: int) -> tuple[int, int | None]:
    """_framed_block_end, and the end of the last line it read, its line break included; None where the text's end or
    the count of lines decided."""
    at = eol
    for _ in range(FRAMED_KEY_LINES):
        if at >= len(text):
            return 0, None
        next_eol = text.find("\n", at + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        line = text[at + 1:next_eol]
        if "-" in line:
            marker = KEY_END.search(line)
            if marker:
                return at + 1 + marker.end(), next_eol + 1 if next_eol < len(text) else None
            if KEY_BEGIN.search(line):
                return 0, next_eol + 1 if next_eol < len(text) else None
        at = next_eol
    return 0, None


def _key_open(text: str, span: Span) -> bool:
    """Whether a key block span ends at the text's end without its END line (so it may go on)."""
    start, end = span[0], span[1]
    rest = text[end:]
    if "\x1b" in rest or "\\" in rest:  # a colour code after the key's last line (`...5u ESC[0m`) ends nothing
        rest = CSI.sub("", rest)
    return not rest.strip("\r\n") and not KEY_END.search(text, max(start, end - 80), end)


# A private key as `openssl rsa|ec|pkey|dsa|dh -text` prints it: each private component's label alone on its line, then
# its bytes in hex, 15 to a line, indented (`privateExponent:` / `    48:9c:...`). Its public parts (modulus, pub,
# publicExponent) stay.
OPENSSL_PRIVATE_LABEL = re.compile(r"[ \t]{0,16}(?:privateExponent|prime[12]|exponent[12]|coefficient|priv|private-key)"
                                   r":[ \t]{0,4}\r?\n")
OPENSSL_HEX_LINE = re.compile(r"[ \t]{2,16}(?P<bytes>[0-9a-f]{2}(?::[0-9a-f]{2}){0,63}:?)[ \t]{0,4}(?:\r?\n|\Z)")
COLON_LINE_END = re.compile(r":[ \t]{0,4}\r?\n")
# (a label's end and its first hex line: one scan of a text without them, the regex engine's literal search being the
# fastest of those measured, 0.4 ms per MB of log text)
OPENSSL_GATE = re.compile(r":\n    [0-9a-f]{2}:")
OPENSSL_GATE_CRLF = re.compile(r":\r\n    [0-9a-f]{2}:")
OPENSSL_KEY = "private key (openssl -text)"
OPENSSL_HOLD_LINES = 80   # hex lines a component may take (a 4096-bit privateExponent: 35)


def openssl_text_key_spans(text: str) -> list[Span]:
    """Each hex line of a private component `openssl ... -text` printed (OPENSSL_PRIVATE_LABEL), its bytes only: each
    line ending in `:` (COLON_LINE_END, a C scan) is asked whether it is such a label."""
    if OPENSSL_GATE.search(text) is None and ("\r" not in text or OPENSSL_GATE_CRLF.search(text) is None):
        return []
    spans: list[Span] = []
    read_to = 0
    for m in COLON_LINE_END.finditer(text):
        if m.start() < read_to:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        label = OPENSSL_PRIVATE_LABEL.match(text, line_start)
        if label is None or label.end() != m.end():
            continue
        line = label.end()
        while (hex_line := OPENSSL_HEX_LINE.match(text, line)) is not None and hex_line.end() > line:
            spans.append((hex_line.start("bytes"), hex_line.end("bytes"), "[REDACTED]", OPENSSL_KEY, line_start))
            line = hex_line.end()
        read_to = line
    return spans


def openssl_text_key_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a private component that may still be printing at end (text[start:end], the piece's last
    line, is its label or one of its hex lines, and no other line follows yet): the label's line start; `end` where
    there is none."""
    if text.find("\n", end) >= 0 and OPENSSL_HEX_LINE.match(text, end) is None:
        return end   # (the next line, whole, is none of its bytes: the component is whole in the piece)
    line, line_end = start, end
    for _ in range(OPENSSL_HOLD_LINES + 1):
        if OPENSSL_PRIVATE_LABEL.fullmatch(text, line, line_end) is not None:
            return line
        if line == 0 or OPENSSL_HEX_LINE.fullmatch(text, line, line_end) is None:
            return end
        line_end = line
        line = text.rfind("\n", 0, line - 1) + 1
    return end
