"""Issue 11, redaction speed of the printed forms (h23t): tables.py's secret tables and listings, announced.py's
announced values and secrets in sentences. Each work test counts the calls a rule makes on a long text of repeated lines
(a call a distinct line or value, not a call a line or match); the guards compare the changed functions with their former
code (copied here, with session 23's rule changes of h23a and h23b merged in) on random texts. The times are in docs/benchmarks.md (h23t).

- header_table_spans: a text with no delimiter (`,`, a tab, `|`) has no table: its cell-end patterns are not run (main ran
  the `ke` one on every text: `key-key-...`, 0.7 s/MB of the stream); the name's run in them is possessive (guard).
- aligned_listing_spans: a line that holds a column's word is judged once a distinct line (main: once a line, a LOG_PREFIX
  match and _aligned_header each), and a text of few distinct lines none of which is a header is done in one pass.
- announced_value_spans: an announcing line, the line after it and the value after it are judged once each distinct one;
  a text of few distinct lines, none announcing or none followed by a value taken, is done with a split and substring
  searches (`api_key:` lines, `- secrets:` lines: main read every line).
- prose_spans: a sentence's value is judged once a distinct noun and value (`password password ...`, `.netrc` lines)."""

from __future__ import annotations

import json
import random
import re

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redaction import announced, tables
from aiperf_lab.triage.redaction.announced import (
    ALONE, CODE_CHARACTERS, DECODING, JSON_COLON_END, LINE_ENDS_WITH_COLON, NAMING_ENDS, PROSE, _announces, _blank,
    _credential_value, _generated, _reads_as_password, _view, announced_value_spans, prose_spans,
)
from aiperf_lab.triage.redaction.line_views import LOG_PREFIX
from aiperf_lab.triage.redaction.spans import REDACTED, _lower, has
from aiperf_lab.triage.redaction.tables import (
    ALIGNED_WORDS, BARE_COLUMN_WORDS, _aligned_header, _aligned_row, _aligned_secret, _secret_column,
    aligned_listing_spans, header_table_spans,
)

WORDS = frozenset({"passw", "secret", "auth"})


def _lowered(text: str) -> tuple[str, str]:
    return text, _lower(text)


# ---- work ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["key-" * 50_000, "tokenpassword_secret." * 10_000, "api_key: x\n" * 20_000],
                         ids=["key-run", "names-run", "no-delimiter-lines"])
def test_cell_ends_are_not_scanned_where_no_delimiter_is(monkeypatch, text):
    counted = [(word, Counted(pattern, "finditer")) for word, pattern in tables.CELL_ENDS]
    monkeypatch.setattr(tables, "CELL_ENDS", counted)
    header_table_spans(text, _lower(text), WORDS)
    assert sum(c.calls for _, c in counted) == 0   # (main: one scan a word at least, `ke`'s on every text)


@pytest.mark.parametrize("text", [
    "  password Zq8DaspUtbuleC5C0HzjwSLo\n" * 20_000,
    "[rank0]:   password   = Zq8Wm3Kx7Lp2Rv9T\n" * 20_000,
    ("  password Zq8Das\n" + "  secret  token x\n") * 500,   # (1,000 lines: read line by line, each distinct once)
], ids=["netrc-lines", "prefixed-pairs", "two-lines-in-turn"])
def test_aligned_lines_are_judged_once_a_distinct_line(monkeypatch, text):
    counted = Counted(_aligned_header)
    monkeypatch.setattr(tables, "_aligned_header", counted)
    assert aligned_listing_spans(text, _lower(text), WORDS) == []
    assert counted.calls <= 6   # (main: one or two a line, 20,000 to 40,000)


def test_aligned_headers_repeated_are_judged_once_and_their_rows_still_read(monkeypatch):
    text = "user  password\nbob   Zq8Das1xPa55w0rdQ\n\n" * 3_000
    counted = Counted(_aligned_header)
    monkeypatch.setattr(tables, "_aligned_header", counted)
    spans = aligned_listing_spans(text, _lower(text), WORDS)
    assert len(spans) == 3_000 and all(text[a:b] == "Zq8Das1xPa55w0rdQ" for a, b, *_ in spans)
    assert counted.calls <= 8   # (main: 3,000, a header a time)


@pytest.mark.parametrize("text, target, method", [
    ("api_key:\n" * 20_000, "_announces", None),
    ("secrets:\n- " * 20_000, "ALONE", "match"),
    (("- secrets:\n" + "x: 1\n") * 400, "ALONE", "match"),   # (800 lines: read line by line, each distinct once)
    ("Your password is:\n\nZq8Das1xPa55\n" * 2_000, "_credential_value", None),
], ids=["api-key-lines", "secrets-dash-lines", "secrets-in-turn", "announced-values"])
def test_announcing_lines_are_judged_once_a_distinct_line(monkeypatch, text, target, method):
    expected = _former_announced_value_spans(text, _lower(text))
    counted = Counted(getattr(announced, target), method)
    monkeypatch.setattr(announced, target, counted)
    assert announced_value_spans(text, _lower(text)) == expected
    assert counted.calls <= 4   # (main: one a line that may announce, 400 to 20,000)


@pytest.mark.parametrize("text, found", [("password " * 50_000, 0), ("  password Zq8DaspUtbuleC5C0HzjwSLo\n" * 5_000, 5_000),
                                         ("Using token Zq8Das1xPa55w0rdQ for auth; " * 5_000, 5_000)],
                         ids=["password-run", "netrc-lines", "token-sentences"])
def test_sentence_values_are_judged_once_a_distinct_value(monkeypatch, text, found):
    counted = Counted(_credential_value)
    monkeypatch.setattr(announced, "_credential_value", counted)
    spans = prose_spans(text, _lower(text))
    assert len(spans) == found
    assert counted.calls <= 2   # (main: one a match, 5,000 to 50,000)


@pytest.mark.parametrize("text, most", [('  File "x.py", line 1\n' * 5_000, 1), ('f("HF_TOKEN", "Zq8Das1x")\n' * 5_000, 2)],
                         ids=["no-secret-word", "token-lines"])
def test_a_streams_open_table_reads_each_distinct_line_once(monkeypatch, text, most):
    counted = Counted(tables._named_secret)
    monkeypatch.setattr(tables, "_named_secret", counted)
    assert tables.open_table_header(text) is None
    assert counted.calls <= most   # (main: one a line, 5,000)


# ---- guards: the former code ------------------------------------------------------------------------------------------
_FORMER_CELL_END = r"[\w.-]{0,48}[ \t]{0,32}(?:[,\t|]|\r?$)"
FORMER_ALIGNED_WORDS = re.compile(r"passw|secret|(?<![a-z])(?:pass|pwd|credentials?)(?![a-z])")
FORMER_CELL_ENDS = [re.compile(re.escape(word) + _FORMER_CELL_END, re.M) for word in ("passw", "secret", "auth")] + [
    re.compile(r"ke(?:y|(?<=toke)n)" + _FORMER_CELL_END, re.M)]


def _former_value_line(text: str, at: int):
    for _ in range(announced.ANNOUNCE_LINES + 1):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        raw = text[at:end]
        view = _view(raw)
        if not _blank(view):
            m = ALONE.match(view)
            if m is None:
                return None
            value = m.group("value")
            if view is raw:
                return at + m.start("value"), at + m.end("value"), value
            written = value if (place := raw.rfind(value)) >= 0 else json.dumps(value)[1:-1]
            place = raw.rfind(written) if place < 0 else place
            return (at + place, at + place + len(written), value) if place >= 0 else None
        if end >= len(text):
            return None
        at = end + 1
    return None


def _former_announced_value_spans(text: str, lower: str) -> list:
    spans, starts = [], []
    roots = [root for root in announced.GATE_ROOTS if has(lower, root)]
    if not roots:
        return spans
    if ":\n" in text or ":\r\n" in text or ": \n" in text:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in LINE_ENDS_WITH_COLON.finditer(lower)]
    if "base64" in lower or "initial-password" in lower or "get-secret-value" in lower:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in DECODING.finditer(lower)]
    for root, pattern in NAMING_ENDS:
        if root in roots:
            starts += [lower.rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(lower)]
    if "{" in text and ('"' in text) and (':"' in text or ': "' in text or ':\\n"' in text):
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in JSON_COLON_END.finditer(lower)]
    for line_start in sorted(set(starts)):
        line_end = lower.find("\n", line_start)
        if line_end < 0:
            continue
        line = _view(text[line_start:line_end]).lower()
        if not _announces(line) or announced.PYTHON_BLOCK_LINE.match(line) is not None:
            continue
        found = _former_value_line(text, line_end + 1)
        if found is None:
            continue
        value = found[2]
        if ":" in value.rstrip(":") or not _credential_value(value) or value.endswith(":"):
            continue
        if announced._strictly_judged(line) and DECODING.search(line) is None and (
                not (_generated(value) or _reads_as_password(value)) or CODE_CHARACTERS.search(value.rstrip("=")) is not None
                or text[line_start:line_end].rstrip(" \t\r").endswith((",", "(", "[", "{"))):
            continue
        spans.append((found[0], found[1], REDACTED, announced.LABEL, line_start))
    return spans


def _former_prose_spans(text: str, lower: str) -> list:
    spans = []
    if not announced._any_gate(lower, announced.PROSE_GATES):
        return spans
    for m in (m for literal, pattern in PROSE if literal in lower for m in pattern.finditer(lower)):
        value_start, value_end = m.span("value")
        value = text[value_start:value_end].rstrip(".!?")
        if not value or not _credential_value(value):
            continue
        if (lower.startswith("  ", m.start("quote") - 2) or m.group("quote") in ("[", "(")) and (
                text.startswith(".", value_end) and text[value_end + 1:value_end + 2] not in ("", " ", "\t", "\r", "\n")):
            continue
        if m.group("noun").startswith(("pass", "secret")):
            if not _reads_as_password(text[value_start:value_end].rstrip(".")):
                continue
            value = text[value_start:value_end].rstrip(".")
        elif not _generated(value):
            continue
        spans.append((value_start, value_start + len(value), REDACTED, announced.LABEL, m.start()))
    return spans


def _former_aligned_listing_spans(text: str, lower: str) -> list:
    spans = []
    if "  " not in text and "\t" not in text:
        return spans
    read_to = -1
    found = [m.start() for m in FORMER_ALIGNED_WORDS.finditer(lower)]
    for word, pattern in BARE_COLUMN_WORDS:
        if has(lower, word):
            found += [m.start() for m in pattern.finditer(lower)]
    for at in sorted(found):
        line_start = lower.rfind("\n", 0, at) + 1
        if line_start <= read_to:
            continue
        line_end = tables._row_end(text, line_start)
        read_to = line_end
        header = _aligned_header(text[line_start:line_end])
        lead = 0
        if header is None and (prefix := LOG_PREFIX.match(text, line_start, line_end)) is not None:
            lead = prefix.end() - line_start
            header = _aligned_header(text[line_start + lead:line_end])
        if header is None:
            continue
        starts, secret = header
        starts = [start + lead for start in starts]
        at = line_end + 1
        while at < len(text):
            end = tables._row_end(text, at)
            if lead and ((prefix := LOG_PREFIX.match(text, at, end)) is None or prefix.end() - at != lead):
                break
            cells = _aligned_row(text[at:end], starts, lead)
            if cells is None:
                break
            for index, kind in secret:
                start, stop = cells[index]
                value = text[at + start:at + stop]
                if kind == 4:
                    kind = 2 if _secret_column(text[at + cells[0][0]:at + cells[0][1]]) else 0
                    if stop < len(text) and text[at + stop:end].strip(" \t\r"):
                        kind = 0
                if kind and value != text[line_start + starts[index]:line_start + starts[index] + len(value)] and (
                        _aligned_secret(value, kind)):
                    spans.append((at + start, at + stop, REDACTED, "secret-named value", line_start))
            read_to = end
            at = end + 1
    return spans


LINES = ["Your password is:", "Admin password", "Initial admin password", "api_key:", "- secrets:", "secrets:", "",
         "   ", "[rank0]: ", "[rank0]: Zq8Das1xPa55", "Zq8Das1xPa55", "hunter2X!", "Successfully", "x: 1",
         "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", '{"msg": "Your API token is:"}',
         '{"msg": "Zq8Das1xPa55w0rdQ"}', "user  password", "bob   Zq8Das1xPa55w0rdQ", "NAME    TOKEN", "eos     </s>",
         "  password Zq8DaspUtbuleC5C0HzjwSLo", "[rank0]:   password   = Zq8Wm3Kx7Lp2Rv9T", "Key    Value",
         "api_key    Zq8Das1xPa55w0rdQ", "token  abcdef.0123456789abcdef", "Using token Zq8Das1xPa55w0rdQ for auth",
         "password password password", "the password is S3cr3t!x.", "Password for user 'Bob': Hunter2xyz", "\r",
         "api-1  | Enter the token:", "api-1  | ", "api-1  | Zq8Das1xPa55", "user,password,role", "bob,Zq8Das1x,admin",
         "| user | password |", "|---|---|", "| bob | Zq8Das1xPa55 |", "api key [Zq8Das1xPa55w0rd] ok", "Secret Key S3cr3t!x",
         "password    " * 20, "a  b  c  d  e  f  g  h  i  j  k  password", "user\tpassword\r", "bob\tZq8Das1x\r",
         "user | token", "-----+------", "alice | Zq8Das1xPa55w0rdQ"]


def _random_text(rng: random.Random, k: int) -> str:
    if k % 3 == 0:   # (random lines)
        return "\n".join(rng.choice(LINES) for _ in range(rng.randrange(0, 40))) + rng.choice(["", "\n"])
    unit = "".join(rng.choice(LINES) + "\n" for _ in range(rng.randrange(1, 4)))
    copies = rng.choice([3, 400, 1100]) if k % 3 == 1 else 1100 // unit.count("\n") + 1   # (1,024 lines or more: few)
    head = "".join(rng.choice(LINES) + "\n" for _ in range(rng.randrange(0, 3)))
    return head + unit * copies + rng.choice(LINES + [""])


@pytest.mark.parametrize("seed", range(8))
def test_the_rules_give_what_they_gave(seed):
    rng = random.Random(seed)
    for k in range(40):
        text, lower = _lowered(_random_text(rng, k))
        assert announced_value_spans(text, lower) == _former_announced_value_spans(text, lower), text[:300]
        assert prose_spans(text, lower) == _former_prose_spans(text, lower), text[:300]
        assert aligned_listing_spans(text, lower, WORDS) == _former_aligned_listing_spans(text, lower), text[:300]


@pytest.mark.parametrize("seed", range(4))
def test_cell_ends_find_the_lines_they_found(seed):
    rng = random.Random(seed)
    pieces = ["key", "-", "token", "passw", "ord", "secret", "auth", "_", ".", "x", " ", "\t", ",", "|", "\r", "\n", "a" * 30,
              "b" * 50, "  " * 20]
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
        for new, former in zip([pattern for _, pattern in tables.CELL_ENDS], FORMER_CELL_ENDS):
            assert [m.start() for m in new.finditer(text)] == [m.start() for m in former.finditer(text)], text


@pytest.mark.parametrize("seed", range(4))
def test_aligned_words_are_found_where_they_were(seed):
    rng = random.Random(seed)
    pieces = ["pass", "passw", "pwd", "credential", "credentials", "secret", "p", "c", "a", "x", " ", "_", "-", "\n", "ss", "wd"]
    for _ in range(3_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 20)))
        assert [m.span() for m in ALIGNED_WORDS.finditer(text)] == [m.span() for m in FORMER_ALIGNED_WORDS.finditer(text)]


def _former_open_table_header(text: str):
    end = len(text)
    if not text.endswith("\n"):
        return None
    count = delimiter = None
    while end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        line = text[start:end].rstrip("\r\n")
        if not tables._separator(line):
            if delimiter is None:
                if (delimiter := tables._delimiter(line)) is None:
                    return None
                count = line.count(delimiter)
            elif line.count(delimiter) != count:
                return None
            if tables._named_secret(line) and tables._header(line) is not None:
                return text[start:end]
        end = start
    return None


@pytest.mark.parametrize("seed", range(4))
def test_open_table_header_is_what_it_was(seed):
    rng = random.Random(seed)
    for k in range(60):
        text = _random_text(rng, k)
        for cut in (len(text), text.rfind("\n") + 1, text.rfind("\n", 0, max(0, text.rfind("\n"))) + 1):
            assert tables.open_table_header(text[:cut]) == _former_open_table_header(text[:cut])


FORMER_DOTTED_KEY = re.compile(r"(?:(?:account|private|encryption|signing|master)\.key(?P<rest>(?:\.[a-z0-9_-]{1,63}){0,8})"
                               r"(?P<sep>[ \t]{0,4}[=:][ \t]{0,4}|[ \t]{1,32})"
                               r"|(?<=[a-z0-9])\.(?:password|passwd|secret|token)(?P<blanks>[ \t]{1,32}))"
                               r"[\"']?(?P<value>[^\s'\"<>,;]{6,1024})")


@pytest.mark.parametrize("seed", range(4))
def test_dotted_keys_are_found_where_they_were(seed):
    rng = random.Random(seed)
    pieces = ["account", "private", "master", "signing", "encryption", ".key", ".", "key", "x", "1", " ", "\t", "=", ":",
              "password", "passwd", "secret", "token", "'", '"', "abcdefgh", "-", "_", "\n", "fs.azure", "  " * 10]
    for _ in range(3_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 25)))
        assert ([(m.span(), m.span("value"), m.group("blanks")) for m in announced.DOTTED_KEY.finditer(text)]
                == [(m.span(), m.span("value"), m.group("blanks")) for m in FORMER_DOTTED_KEY.finditer(text)]), text



class _Recorded:
    """Stands in for a pattern and records the start of each finditer."""

    def __init__(self, pattern):
        self.pattern, self.froms = pattern, []

    def finditer(self, text, pos=0, *args):
        self.froms.append(pos)
        return self.pattern.finditer(text, pos, *args)


@pytest.mark.parametrize("text", ["token=" * 50_000, "password " * 50_000, "api key x " * 20_000 + "api key"],
                         ids=["token-run", "password-run", "api-key-run"])
def test_one_long_line_announces_nothing_and_is_not_scanned(monkeypatch, text):
    recorded = [(root, _Recorded(pattern)) for root, pattern in NAMING_ENDS]
    monkeypatch.setattr(announced, "NAMING_ENDS", recorded)
    assert announced_value_spans(text, _lower(text)) == []
    assert not [start for _, r in recorded for start in r.froms]   # (main: each noun of the line tried, its value after
    #                                                                 no line break to be found)
