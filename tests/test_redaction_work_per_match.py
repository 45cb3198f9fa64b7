"""Issue 11, redaction speed on adversarial text: work a rule does per match that does not grow with the text. Each
test counts what a rule reads (characters searched, calls made) on a repeated form and checks it against a bound
linear in the text, and that the spans are those the text gives as a plain str. The times are in
benchmarks/redaction_speed.py (docs/benchmarks.md, h17p), not here."""

from __future__ import annotations

import random

import pytest

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import assignments, blocks, commands, layouts, line_views, python_source
from aiperf_lab.triage.redaction.layouts import _item_is_secret, _names_token_list
from aiperf_lab.triage.redaction.names import _secret_name_cached
from aiperf_lab.triage.redaction.spans import REDACTED, _edited


class MeteredText(str):
    """A str that counts the characters its find/rfind calls for a line break may search (end - start)."""

    searched = 0

    def _count(self, sub, start=None, end=None):
        if sub == "\n":
            lo = 0 if start is None else (start if start >= 0 else max(0, len(self) + start))
            hi = len(self) if end is None else (end if end >= 0 else max(0, len(self) + end))
            MeteredText.searched += max(0, min(hi, len(self)) - lo)

    def rfind(self, sub, *args):
        self._count(sub, *args)
        return str.rfind(self, sub, *args)

    def find(self, sub, *args):
        self._count(sub, *args)
        return str.find(self, sub, *args)


def _assignment_work(unit: str, count: int) -> tuple[int, list]:
    text = unit * count
    MeteredText.searched = 0
    spans = assignments._assignment_spans(MeteredText(text), text.lower())
    return MeteredText.searched, spans


def test_flow_lists_on_one_line_search_back_a_bounded_reach():
    # `secrets: [X, Y] ` repeated on one line (the stream's lines reach 1 MiB): each match's signature/docstring
    # test looked for the line's start back to the text's start, a search that grew with the line
    unit = "secrets: [Zq8Das1x, Pa55w0rd-2] "
    searched, spans = _assignment_work(unit, 4000)
    text = unit * 4000
    assert spans == assignments._assignment_spans(text, text.lower())
    assert len(spans) >= 3999   # (the last value, at the text's end, is read as the others)
    assert searched <= 300 * 4000 + len(text)


def test_signature_and_docstring_reads_are_kept_on_long_lines():
    # what the test reads is the line's last 256 characters before the name, as before: a `def` line and a
    # docstring's field still keep their values, and a long line before them changes nothing
    for head in ("", "x" * 300 + "\n", "x" * 100000 + "\n", "z\n" * 10):
        redactor = Redactor({})
        assert redactor.text(head + "def push(self, token: Token) -> None:\n") == head + "def push(self, token: Token) -> None:\n"
        field = head + "    :param password: The passphrase for the key\n"
        assert redactor.text(field) == field
        assert "Zq8Das1x" not in redactor.text(head + "password: Zq8Das1x\n")
    # text before the `def` on its line: no signature, the value goes (within the 256 characters read or not)
    for before in ("a" * 250 + " ", "a" * 100000 + " "):
        assert "Token)" not in Redactor({}).text(before + "def push(self, token: Token) -> None:\n")


# ---- YAML openers repeated line after line (`password: |` lines): the copies with an empty body are passed over ----

def _former_opener_spans(text: str) -> list:
    """_yaml_block_spans' opener loop as it was before the copies were passed over (its flow lists and complex keys
    left out: the texts below have none)."""
    spans = []
    harmless = assignments._HarmlessValues()
    openers, bodies, names = {}, {}, {}
    misses = first_miss = 0
    read_to = 0

    def names_secret(head):
        if head not in openers:
            key = blocks.YAML_BLOCK_KEY.fullmatch(head)
            openers[head] = (len(key.group("indent")) if key is not None
                             and (_secret_name_cached(key.group("name")) or _names_token_list(key.group("name")))
                             else None)
            names[head] = key.group("name") if key is not None else ""
        return openers[head] is not None

    for m in blocks.YAML_BLOCK_OPENER.finditer(text) if ":" in text else ():
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
            if misses == blocks.OPENERS_BEFORE_BULK and blocks._no_opener_ahead(
                    blocks.YAML_OPENER_HEADS, text, first_miss, m.end(), names_secret):
                break
            continue
        scalar = m.group("style") is not None
        if not scalar and m.start() < read_to and blocks._no_item_value(text, m.end(), indent):
            continue
        body = blocks._yaml_body(indent, scalar).match(text, m.end()).group()
        read_to = m.end() + len(body)
        if (found := bodies.get((head, scalar, body))) is None:
            found = blocks._yaml_body_spans(body, indent, scalar, harmless)
            if found and not scalar:
                found = [(s, e) for s, e in found if _item_is_secret(names[head], body[s:e])]
            bodies[head, scalar, body] = found
        if found:
            at = m.end()
            spans += [(at + s, at + e, REDACTED, "secret-named value", line_start) for s, e in found]
    return spans


OPENER_LINES = ["password: |\n", "password: >-\n", "  password: |\n", "secrets:\n", "  secrets:\n", "- secrets:\n",
                "  - Zq8Das1x\n", "- Pa55w0rd-2\n", "  Zq8Das1x\n", "    Pa55w0rd-2\n", "\n", "  \n", "step: 1\n",
                "tokens:\n", "x: |\n", "api_token: |2-\n", "password: | # c\n", "- name: regcred\n", "password:"]


@pytest.mark.parametrize("seed", range(30))
def test_repeated_openers_give_what_each_opener_read_gave(seed):
    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randint(5, 60)):
        line = rng.choice(OPENER_LINES)
        parts.append(line * (rng.randint(1, 12) if rng.random() < 0.5 else 1))
    text = "".join(parts)
    assert blocks._yaml_block_spans(text) == _former_opener_spans(text)


def test_repeated_opener_lines_read_one_body_a_run(monkeypatch):
    texts = ("password: |\n" * 2000, "  secrets:\n" * 2000 + "  - Zq8Das1x\n", ("password: |\n" * 500 + "  X9q\n") * 4)
    former = [_former_opener_spans(text) for text in texts]
    reads = []
    body = blocks._yaml_body

    def counted(indent, scalar):
        reads.append(indent)
        return body(indent, scalar)

    monkeypatch.setattr(blocks, "_yaml_body", counted)
    for text, spans in zip(texts, former):
        reads.clear()
        assert blocks._yaml_block_spans(text) == spans
        assert len(reads) <= 3 * text.count("\n") // 400 + 3   # (on main: one read per line, 2,000 and more)


def test_a_matchs_whole_name_is_read_once(monkeypatch):
    # the quantity test, the "tells when" test and the signature/docstring test each read the name a keyword belongs
    # to: once a match now (on main: three times a match of `secrets: [X, Y]`, `api_token_v2: Zq8Das1x`)
    for unit in ("secrets: [Zq8Das1x, Pa55w0rd-2] ", "x api_token_v2: Zq8Das1x\n", "  my_secret = Pa55w0rd-2\n"):
        text = unit * 500
        expected = assignments._assignment_spans(text, text.lower())
        reads = []
        name_before = assignments._name_before

        def counted(*args):
            reads.append(args[1])
            return name_before(*args)

        monkeypatch.setattr(assignments, "_name_before", counted)
        monkeypatch.setattr(python_source, "_name_before", counted)   # (the signature/docstring test's reads)
        assert assignments._assignment_spans(text, text.lower()) == expected
        monkeypatch.undo()
        assert expected and len(reads) <= len(set(reads)) <= 501


# ---- a view's spans placed back on its text, and a window's line edits: the same places, less work a span/line ----

def _former_place_back(where, spans):
    return [(first := where.start_in_text(start), where.end_in_text(start, end) if end > start else first,
             replacement, label, where.start_in_text(context)) for start, end, replacement, label, context in spans]


@pytest.mark.parametrize("seed", range(20))
def test_place_back_gives_what_each_span_placed_alone_gave(seed):
    rng = random.Random(seed)
    text = "".join(rng.choice("ab \n") for _ in range(400))
    edits, at = [], 0
    while True:
        at += rng.randint(0, 30)
        end = at + rng.randint(0, 6)
        if end > len(text):
            break
        edits.append((at, end, rng.choice(["", "x", "yy", "zzzz"])))
        at = end
    view, where = _edited(text, edits)
    spans = []
    for _ in range(200):
        start = rng.randint(0, len(view))
        end = min(len(view), start + rng.randint(0, 12))
        context = rng.choice([start, rng.randint(0, len(view))])
        spans.append((start, end, REDACTED, "label", context))
    assert where.place_back(spans) == _former_place_back(where, spans)


def test_place_back_places_a_span_without_a_call_a_position(monkeypatch):
    view, where = _edited("[rank0]: password: x\n" * 50, [(at * 21, at * 21 + 9, "") for at in range(50)])
    spans = [(at * 12 + 10, at * 12 + 11, REDACTED, "label", at * 12) for at in range(50)]
    expected = _former_place_back(where, spans)

    def refused(*_args):
        raise AssertionError("a call a position")

    monkeypatch.setattr(type(where), "start_in_text", refused)
    monkeypatch.setattr(type(where), "end_in_text", refused)
    assert where.place_back(spans) == expected


def test_a_windows_line_edits_are_placed_once(monkeypatch):
    # line_view_windows took each line's edits placed at the line (a list made a line) and placed them again in the
    # window: now the line's own edits are placed once
    text = "".join(f"[rank0]: password: |\n[rank0]:   Zq8Das1x-{n}\n" for n in range(300))
    expected = line_views.line_view_windows(text, text.lower())

    def refused(*_args):
        raise AssertionError("placed twice")

    monkeypatch.setattr(line_views, "_line_edits_at", refused)
    assert expected and line_views.line_view_windows(text, text.lower()) == expected


# ---- prefixed blocks: the openers inside a block read are passed over by the search itself ----

class _FromTheStart:
    """PREFIXED_OPENER searched from the text's start whatever position is asked: every opener is met again, as the
    former loop met them (each one inside a block read was passed over by the loop, not by the search)."""

    def __init__(self, pattern):
        self.pattern = pattern

    def finditer(self, text, *_pos):
        return self.pattern.finditer(text)


PREFIXED_LINES = ["[rank0]: password: |\n", "[rank0]:   Zq8Das1x\n", "[rank0]: secrets:\n", "[rank0]:   - Pa55w0rd-2\n",
                  "[rank1]: api_token: >-\n", "app-1  | password:\n", "app-1  |   Zq8Das1x\n", "plain line\n", "\n",
                  "[rank0]: <name>db.password</name>\n", "[rank0]: <value>Zq8Das1x</value>\n", "INFO:root: token:\n"]


@pytest.mark.parametrize("seed", range(20))
def test_prefixed_blocks_give_what_meeting_every_opener_gave(seed, monkeypatch):
    rng = random.Random(seed)
    text = "".join(rng.choice(PREFIXED_LINES) * (rng.randint(1, 80) if rng.random() < 0.3 else 1)
                   for _ in range(rng.randint(10, 120)))
    found = blocks._prefixed_block_spans(text)
    monkeypatch.setattr(blocks, "PREFIXED_OPENER", _FromTheStart(blocks.PREFIXED_OPENER))
    assert blocks._prefixed_block_spans(text) == found


class _CountedText(str):
    calls = 0

    def rfind(self, sub, *args):
        _CountedText.calls += sub == "\n"
        return str.rfind(self, sub, *args)


def test_prefixed_block_lines_are_not_searched_again():
    text = "[rank0]: password: |\n" * 630   # (ten blocks of 63 lines, the most one block reads)
    _CountedText.calls = 0
    found = blocks._prefixed_block_spans(_CountedText(text))
    assert found == blocks._prefixed_block_spans(text)
    assert _CountedText.calls <= 40   # (on main: a line start looked for at each of the 630 openers)


# ---- verdicts a value or a line's tail alone decides, remembered: a log repeats its command lines ----

def test_key_lists_judge_each_word_once(monkeypatch):
    text = "+ vllm serve m --api-key Zq8Das1xPa55 Qm7vT2xLp9Rz team2key!x9 --port 8000 --api-key a b c d\n" * 300
    expected = Redactor({}).text(text)
    assert "Qm7vT2xLp9Rz" not in expected and "team2key!x9" not in expected and "--port 8000" in expected
    calls = []
    judge = commands.looks_like_password

    def counted(value):
        calls.append(value)
        return judge(value)

    monkeypatch.setattr(commands, "looks_like_password", counted)
    assert Redactor({}).text(text) == expected
    assert len(calls) <= 20   # (on main: every word of every line, 1,200 and more)


class _CountedSearch:
    def __init__(self, pattern):
        self.pattern, self.calls = pattern, 0

    def search(self, *args):
        self.calls += 1
        return self.pattern.search(*args)


def test_a_stores_print_line_is_judged_once_a_distinct_tail(monkeypatch):
    text = ("$ gcloud secrets versions access latest --secret=db\nZq8Das1xPa55\n$ vault kv get -field=password "
            "secret/db\nZq8Das1x\nvault op read kubectl secret x\n") * 300
    expected = layouts._kubectl_secret_spans(text, text.lower())
    assert len(expected) >= 600
    counted = _CountedSearch(layouts.KUBECTL_SECRET_LINE)
    monkeypatch.setattr(layouts, "KUBECTL_SECRET_LINE", counted)
    assert layouts._kubectl_secret_spans(text, text.lower()) == expected
    assert counted.calls <= 10   # (on main: one search a line with a store's word, 900)
