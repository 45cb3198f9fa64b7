"""Issue 11, redaction speed on adversarial text (h18p): what a rule works out for a line that the line's own text
decides (a traced command's way of reading stdin, where a dump line shows a byte) is worked out once per distinct
line. Each test counts calls on a repeated form against a bound that does not grow with the text; the guards check
that the verdicts are those of before. The times are in benchmarks/redaction_speed.py (docs/benchmarks.md, h18p),
not here."""

from __future__ import annotations

import random

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import assignments, blocks, commands, dumps, names, printed_commands
from aiperf_lab.triage.redaction.layouts import _item_is_secret, _names_token_list
from aiperf_lab.triage.redaction.names import _secret_name_cached
from aiperf_lab.triage.redaction.spans import REDACTED

SECRET = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"


def test_traced_stdin_readers_are_read_once_a_distinct_line(monkeypatch):
    # `+ htpasswd -b /etc/x bob X` repeated: each line holds `passwd` (a stdin reader's word), so each was split into
    # shell words to learn whether it reads a password on stdin; the line alone decides that
    text = "+ htpasswd -b /etc/x bob A9RelOxOPbbNcRV7\n" * 2000
    marks = [m for m in printed_commands.TRACE_MARK.finditer(text)]
    expected = printed_commands._traced_pipe_spans(text, text.lower(), marks)
    counted = Counted(printed_commands._shell_words)
    monkeypatch.setattr(printed_commands, "_shell_words", counted)
    for cached in ("_stdin_reading", "_line_secret_spans"):
        if hasattr(printed_commands, cached):
            getattr(printed_commands, cached).cache_clear()
    assert printed_commands._traced_pipe_spans(text, text.lower(), marks) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("text, gone, kept", [
    ("+ echo Zq8Das1xPa55\n+ docker login -u bob --password-stdin\n", ["Zq8Das1xPa55"], ["bob"]),
    ("+ docker login -u bob --password-stdin\n+ echo Zq8Das1xPa55\n", ["Zq8Das1xPa55"], ["bob"]),
    ("+ echo bob:Zq8Das1xPa55\n+ chpasswd\n", ["Zq8Das1xPa55"], ["bob:"]),
    ("+ echo Zq8Das1xPa55\n+ htpasswd -i /etc/x bob\n", ["Zq8Das1xPa55"], ["/etc/x"]),
    ("+ echo hello-world-x\n+ htpasswd -b /etc/x bob\n", [], ["hello-world-x"]),
    ("+ echo Zq8Das1xPa55\n+ cat -s file\n", [], ["Zq8Das1xPa55"]),
    ("+ echo Zq8Das1xPa55\n+ sort | passwd --stdin bob\n", [], []),
])
def test_traced_pipes_are_judged_as_before_when_repeated(text, gone, kept):
    for copies in (1, 3):
        out = Redactor({}).text(text * copies)
        for word in gone:
            assert word not in out
        for word in kept:
            assert word in out


def _hexdump_line(offset: int, data: bytes) -> str:
    hexes = " ".join(f"{b:02x}" for b in data)
    left, right = hexes[:23], hexes[24:]
    shown = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
    return f"{offset:08x}  {left:<23}  {right:<23}  |{shown}|\n"


def test_a_dump_of_a_secret_reads_each_distinct_line_once(monkeypatch):
    # a known secret's bytes dumped again and again (the same lines each time): where a byte shows on a line is read
    # from the line's fields once per distinct line, not once a line
    secret = SECRET.encode()
    text = "".join(f"\t{chr(9).join(f'{b:02x}' for b in secret[:16])}\n" for _ in range(2000))
    redactor = Redactor({"HF_TOKEN": SECRET})
    expected = redactor.text(text)
    counted = Counted(dumps.DUMP_LINE_FIELDS["bare"], "match")
    monkeypatch.setitem(dumps.DUMP_LINE_FIELDS, "bare", counted)
    assert Redactor({"HF_TOKEN": SECRET}).text(text) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("seed", range(12))
def test_dump_columns_of_repeated_and_changing_lines_are_as_before(seed):
    # hexdump -C lines of a secret with offsets that change and that repeat, bare lines of 1 to 4 bytes after a
    # dump's last line (read by what is before them), ordinary bytes between: each byte of the secret goes in both
    # columns, nothing else does
    rng = random.Random(seed)
    secret = SECRET.encode()
    lines = []
    for _ in range(rng.randrange(20, 60)):
        kind = rng.randrange(5)
        if kind == 0:
            lines += [_hexdump_line(rng.choice((0, 16, 32 * rng.randrange(100))), secret[at:at + 16]) for at in (0, 16)]
        elif kind == 1:
            lines.append(_hexdump_line(16 * rng.randrange(1000), b"\x03\x00>\x00\x01\x00\x00\x00`a\x00\x00\x00\x00\x00\x00"))
        elif kind == 2:
            lines += [" ".join(f"{b:02x}" for b in secret[:20]) + "\n", " ".join(f"{b:02x}" for b in secret[20:]) + "\n"]
        elif kind == 3:
            lines.append("".join(f"{b:02x}" for b in secret) + "\n")
        else:
            lines.append(rng.choice(("step 12 loss 0.5\n", "cafe\n", "12:30:45\n", "00000010  ok\n")))
    text = "".join(lines)
    out = Redactor({"HF_TOKEN": SECRET}).text(text)
    assert "68 66 5f 51 77 33" not in out and "68665f5177" not in out and "|hf_Qw3rTy7uIoPa|" not in out
    assert out.count("\n") == text.count("\n")
    for line in set(lines):
        if "03 00 3e" in line:
            assert line in out
        if line in ("step 12 loss 0.5\n", "cafe\n", "12:30:45\n"):
            assert line in out


def test_a_secret_flag_is_asked_once_whether_it_takes_a_key_list(monkeypatch):
    # `--password Zq1x ` repeated: whether the flag takes a list of keys (`--api-key A B C`) was asked of its words
    # at each match; the flag alone decides
    text = "--password Zq1x " * 2000
    expected = commands._printed_flag_spans(text)
    counted = Counted(names.name_words)
    monkeypatch.setattr(commands, "name_words", counted)
    if hasattr(commands, "_takes_key_list"):
        commands._takes_key_list.cache_clear()
    assert commands._printed_flag_spans(text) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("line, gone, kept", [
    ("+ vllm serve m --api-key Zq8Das1xPa55 Qm7vT2xLp9Rz --port 8000\n", ["Zq8Das1xPa55", "Qm7vT2xLp9Rz"], ["8000"]),
    ("+ run --api-keys Zq8Das1xPa55 Qm7vT2xLp9Rz\n", ["Zq8Das1xPa55", "Qm7vT2xLp9Rz"], []),
    ("+ run --password Zq8Das1xPa55 Qm7vT2xLp9Rz\n", ["Zq8Das1xPa55"], ["Qm7vT2xLp9Rz"]),
    ("usage: x [--api-key API_KEY]\n", [], ["API_KEY"]),
])
def test_secret_flags_are_judged_as_before_when_repeated(line, gone, kept):
    out = Redactor({}).text(line * 3)
    for word in gone:
        assert word not in out
    for word in kept:
        assert word in out


def _former_sequence_spans(text: str) -> list:
    """_yaml_block_spans' opener loop as it was before an opener's next line was judged once a line and the copies of
    a repeated opener line inside a body were passed over (its flow lists and complex keys left out: the texts below
    have none)."""
    spans = []
    harmless = assignments._HarmlessValues()
    openers, bodies, heads = {}, {}, {}
    misses = first_miss = 0
    read_to = 0

    def names_secret(head):
        if head not in openers:
            key = blocks.YAML_BLOCK_KEY.fullmatch(head)
            openers[head] = (len(key.group("indent")) if key is not None
                             and (_secret_name_cached(key.group("name")) or _names_token_list(key.group("name")))
                             else None)
            heads[head] = key.group("name") if key is not None else ""
        return openers[head] is not None

    matches = blocks.YAML_BLOCK_OPENER.finditer(text) if ":" in text else iter(())
    while (m := next(matches, None)) is not None:
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()]
        if head not in openers:
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
                found = [(s, e) for s, e in found if _item_is_secret(heads[head], body[s:e])]
            bodies[head, scalar, body] = found
        if found:
            spans += [(m.end() + s, m.end() + e, REDACTED, "secret-named value", line_start) for s, e in found]
        elif not body and text.startswith(line := text[line_start:m.end()], m.end()):
            at, step = m.end(), len(line)
            while text.startswith(line, at + step):
                at += step
            if at > m.end():
                read_to = at
                matches = blocks.YAML_BLOCK_OPENER.finditer(text, at)
    return spans


SEQUENCE_LINES = ["secrets:\n", "- secrets:\n", "  - secrets:\n", "- secrets:\r\n", "  secrets:\n", "- Zq8Das1x\n",
                  "  - Pa55w0rd-2\n", "- name: regcred\n", "- 'a: b'\n", "tokens:\n", "- tokens:\n", "step: 1\n", "\n",
                  "password: |\n", "  Zq8Das1x\n", "- secrets:", "api_tokens: &t\n"]


@pytest.mark.parametrize("seed", range(40))
def test_repeated_sequence_openers_give_what_each_opener_read_gave(seed):
    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randint(5, 80)):
        line = rng.choice(SEQUENCE_LINES)
        parts.append(line * (rng.choice((1, 2, 3, 70, 200)) if rng.random() < 0.5 else 1))
    text = "".join(parts)
    assert blocks._yaml_block_spans(text) == _former_sequence_spans(text)


def test_repeated_sequence_openers_are_judged_once_a_line(monkeypatch):
    # `secrets:\n- ` repeated (`secrets:` then `- secrets:` lines): each opener lies inside the body read before it,
    # and whether its own body holds a value was judged from its next line, a line at a time
    texts = ("secrets:\n" + "- secrets:\n" * 2000, "secrets:\n- " * 2000, ("  secrets:\n" + "  - secrets:\n" * 300) * 5)
    former = [_former_sequence_spans(text) for text in texts]
    counted = Counted(blocks._no_item_value)
    monkeypatch.setattr(blocks, "_no_item_value", counted)
    for text, spans in zip(texts, former):
        counted.calls = 0
        assert blocks._yaml_block_spans(text) == spans
        assert counted.calls <= 20


def test_key_names_and_spaced_label_values_are_judged_once_each(monkeypatch):
    # `API key: X secret key = abc access token: ` repeated: whether a `key` is named for what it sorts or caches was
    # asked of the name's words at each match, and whether a spaced label's value looks generated at each value; the
    # name alone, and the value alone, decide
    from aiperf_lab.triage.redaction import calls
    text = "API key: Zq8Das1xPa55w0rdQm7v secret key = abc access token: " * 1500
    expected = Redactor({}).text(text)
    words = Counted(names.name_words)
    generated = Counted(names.looks_generated)
    monkeypatch.setattr(assignments, "name_words", words)
    monkeypatch.setattr(names, "name_words", words)
    monkeypatch.setattr(calls, "looks_generated", generated)
    for cached in (getattr(names, "name_word_tuple", None), getattr(calls, "_generated", None)):
        if cached is not None:
            cached.cache_clear()
    if hasattr(calls, "_generated"):
        monkeypatch.setattr(calls, "_generated", __import__("functools").lru_cache(maxsize=4096)(generated))
    calls_before = words.calls
    assert assignments._names_harmless_key(text, text.lower().find("key")) is False
    for at in range(0, 1500 * 60, 60):
        assignments._names_harmless_key(text, text.lower().find("key", at))
    assert words.calls - calls_before <= 10
    assert Redactor({}).text(text) == expected
    assert generated.calls <= 10


@pytest.mark.parametrize("text, gone, kept", [
    ("sort_key: a1b2c3d4e5f6g7h8i9j0k1\n", [], ["a1b2c3d4e5f6g7h8i9j0k1"]),
    ("cache key: a1b2c3d4e5f6g7h8i9j0k1\n", [], ["a1b2c3d4e5f6g7h8i9j0k1"]),
    ("api key: a1b2c3d4e5f6g7h8i9j0k1\n", ["a1b2c3d4e5f6g7h8i9j0k1"], []),
    ("API key: Zq8Das1xPa55w0rdQm7v ok\n", ["Zq8Das1xPa55w0rdQm7v"], ["ok"]),
    ("Secret Name:   my-secret-v2\n", [], ["my-secret-v2"]),
])
def test_key_names_and_spaced_labels_are_judged_as_before_when_repeated(text, gone, kept):
    out = Redactor({}).text(text * 3)
    for word in gone:
        assert word not in out
    for word in kept:
        assert word in out


def test_repeated_lines_with_a_mark_but_no_view_are_looked_at_once(monkeypatch):
    # `"password": "` lines repeated: each holds a mark (`passw`) and a quote, and none is a quoted line or behind a log
    # prefix, so none opens a window; each copy was looked at again (its edits found, none)
    from aiperf_lab.triage.redaction import line_views
    text = '"password": "\n' * 2000
    expected = line_views.line_view_windows(text, text.lower())
    counted = Counted(line_views._line_edits_own)
    monkeypatch.setattr(line_views, "_line_edits_own", counted)
    assert line_views.line_view_windows(text, text.lower()) == expected == []
    assert counted.calls <= 10


@pytest.mark.parametrize("seed", range(12))
def test_line_views_of_repeated_lines_are_as_before(seed):
    # repeated lines with a mark and no view, then lines behind a log prefix or in JSON that hold a secret's form: the
    # forms are still read in their windows, before and after the runs of copies
    rng = random.Random(seed)
    plain = ['"password": "\n', "auth ok # done\n", "x & y\n"]
    forms = ["[rank0]: ? password\n[rank0]: : Zq8Das1x\n", '{"level": "info", "msg": "AUTH default Pa55w0rd-2"}\n',
             "2026-11-24T00:01:02Z 127.0.0.1:6379> AUTH default Zq8Das1x\n"]
    text = "".join(rng.choice(plain) * rng.choice((1, 2, 50)) if rng.random() < 0.7 else rng.choice(forms)
                   for _ in range(rng.randint(5, 40)))
    out = Redactor({}).text(text)
    assert "Zq8Das1x" not in out and "Pa55w0rd-2" not in out
    assert out.count("\n") == text.count("\n")


def test_prefixed_key_lines_are_judged_once_a_distinct_line(monkeypatch):
    # `INFO: -----BEGIN ...` then `INFO: MIIE...` repeated (each BEGIN line opens a block read line by line): whether a
    # line goes on with the block, ends it, or holds its END marker was worked out at each line; the line alone decides
    from aiperf_lab.triage.redaction import keys
    text = "INFO: -----BEGIN RSA PRIVATE KEY-----\nINFO: MIIEabcdefghABCDEFGH0123456789+/\n" * 1500
    expected = keys._key_spans(text, text.lower(), False)
    counted = Counted(keys.KEY_END, "search")
    monkeypatch.setattr(keys, "KEY_END", counted)
    if hasattr(keys, "_prefixed_line_verdict"):
        keys._prefixed_line_verdict.cache_clear()
    assert keys._key_spans(text, text.lower(), False) == expected
    assert counted.calls <= 2 * 1500 + 10   # (the BEGIN line's own test and the framed look-ahead's stay per block; 4 a block before)


@pytest.mark.parametrize("text, gone, kept", [
    ("INFO: -----BEGIN RSA PRIVATE KEY-----\nINFO: MIIEabcdefghABCDEFGH0123456789+/\nINFO: -----END RSA PRIVATE KEY-----\n"
     "INFO: done\n", ["MIIEabcdefghABCDEFGH0123456789+/"], ["INFO: done"]),
    ("E   '-----BEGIN RSA PRIVATE KEY-----\nE   'MIIEabcdefghABCDEFGH0123456789+/\nstep 1 loss 0.5\n",
     ["MIIEabcdefghABCDEFGH0123456789+/"], ["step 1 loss 0.5"]),
    ("[x] -----BEGIN RSA PRIVATE KEY-----\n[x] Proc-Type: 4,ENCRYPTED\n[x] MIIEabcdefghABCDEFGH0123456789+/\n[x] ok then\n",
     ["MIIEabcdefghABCDEFGH0123456789+/"], ["ok then"]),
])
def test_prefixed_keys_are_judged_as_before_when_repeated(text, gone, kept):
    out = Redactor({}).text(text * 3)
    for word in gone:
        assert word not in out
    for word in kept:
        assert word in out
