"""Issue 11, redaction speed: the paths rewritten for texts of a million matches (merging spans,
applying them, cutting a long line in a stream in one sweep) give what the former loops gave, texts
dense with matches are redacted alike whole and as a stream, and a forced cut never writes the start
of a secret without its rest. The times are in benchmarks/redaction_speed.py, not here."""

from __future__ import annotations

import random
import re

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor
from aiperf_lab.triage.redaction import spans as span_helpers

ENVIRON = {"HF_TOKEN": "hf_" + "Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "USER": "alice", "HOSTNAME": "gpunode17", "PATH": "/usr/bin"}


def _reference_merge(found):
    """The merge as it was written before this work."""
    merged = [found[0]]
    last_end = found[0][1]
    for span in found[1:]:
        if span[0] < last_end:
            last = merged[-1]
            end = span[1] if span[1] > last_end else last_end
            if span[2] == last[2] or (span[1] <= last_end and span[2] != REDACTED):
                replacement = last[2]
            elif span[0] == last[0] and REDACTED not in (span[2], last[2]) and last_end <= span[1]:
                replacement = span[2]
            else:
                replacement = REDACTED
            label = span[3] if span[3] == span_helpers.KNOWN_VALUE else last[3]
            if end != last[1] or replacement != last[2] or label != last[3]:
                merged[-1] = (last[0], end, replacement, label, min(last[4], span[4]))
            last_end = end
        else:
            merged.append(span)
            last_end = span[1]
    return merged


def _reference_cut(spans, cut, size):
    """The stream's cut found place by place: the latest at or before cut that no extent (from
    span_helpers.LOOKBEHIND characters before a span's context to its end) holds strictly inside; when that
    is in the first half, the first such place after cut."""
    def free(place):
        return not any(s[4] - span_helpers.LOOKBEHIND < place < s[1] for s in spans)
    place = next((p for p in range(cut, 0, -1) if free(p)), 0)
    if place == cut or place > size // 2:
        return place
    return next(p for p in range(cut, size + 1) if free(p))


def _random_spans(rng: random.Random, count: int, size: int):
    replacements = [REDACTED, "ip-1", "ip-2", "host-1"]
    labels = ["url password", "ip address", span_helpers.KNOWN_VALUE, "host name"]
    spans = []
    for _ in range(count):
        start = rng.randrange(size)
        end = min(size, start + rng.randrange(1, 12))
        spans.append((start, end, rng.choice(replacements), rng.choice(labels), max(0, start - rng.randrange(0, 30))))
    return sorted(spans)


@pytest.mark.parametrize("seed", range(40))
def test_merge_matches_the_plain_loop(seed):
    rng = random.Random(seed)
    found = _random_spans(rng, rng.randrange(1, 200), rng.choice([50, 400, 5000]))
    assert span_helpers._merge_spans(list(found)) == _reference_merge(found)


@pytest.mark.parametrize("seed", range(40))
def test_stream_cut_matches_the_former_search(seed):
    rng = random.Random(seed)
    size = rng.choice([300, 3000])
    spans = _reference_merge(_random_spans(rng, rng.randrange(1, 150), size))
    for cut in (size // 3, size // 2, size - 1, size - 40, rng.randrange(size)):
        assert span_helpers._cut_outside_spans(spans, cut, size) == _reference_cut(spans, cut, size)


def test_apply_counts_and_keeps_text_between_spans():
    r = Redactor({})
    text = "a=1 b=2 c=3"
    spans = [(2, 3, REDACTED, "x", 0), (6, 7, "ip-1", "y", 4), (10, 11, REDACTED, "x", 8)]
    assert r._apply(text, spans) == f"a={REDACTED} b=ip-1 c={REDACTED}"
    assert r._apply(text, spans, end=8) == f"a={REDACTED} b=ip-1 "
    assert r._apply(text, []) == text
    assert dict(r.counts) == {"x": 3, "y": 2}  # the second call counts the two spans before 8


# Texts dense with matches (one every few characters, no newline for megabytes in the benchmark):
# the stream cuts its long line where no span crosses, so it must give what the whole text gives.
DENSE = ["://x@", "pass pass=", "1.2.3.4 ", "://a:", "aa:bb:cc:dd:ee:", "1:2:3:4:5:6:7:",
         "token=", "\"password\": \"\n", "hf_Qw3rTy7uIoPa\n", "Bearer abcdefghijklmnop0 "]


@pytest.mark.parametrize("unit", DENSE)
@pytest.mark.parametrize("hosts", [False, True])
def test_dense_text_stream_equals_whole(unit, hosts):
    text = (unit * (40_000 // len(unit) + 1))[:40_000]
    whole = Redactor(ENVIRON, redact_hosts=hosts).text(text)
    sink = StreamRedactor(Redactor(ENVIRON, redact_hosts=hosts), max_line=8192)
    streamed = "".join([*(sink.feed(text[at:at + 1000]) for at in range(0, len(text), 1000)), sink.close()])
    # (a secret that reaches a forced cut goes on as a second [REDACTED]: the same text is hidden)
    assert re.sub(r"(?:\[REDACTED\])+", REDACTED, streamed) == re.sub(r"(?:\[REDACTED\])+", REDACTED, whole)


def test_value_on_the_next_line_never_leaks_at_a_piece_end():
    """"api_key:" lines: the stream may take a name line for the value of the one before (more is
    hidden than whole), never less."""
    text = "api_key:\n" * 5000
    whole = Redactor(ENVIRON).text(text)
    sink = StreamRedactor(Redactor(ENVIRON), max_line=8192)
    streamed = "".join([*(sink.feed(text[at:at + 1000]) for at in range(0, len(text), 1000)), sink.close()])
    assert set(streamed.splitlines()) <= {"api_key:", REDACTED}
    assert streamed.count(REDACTED) >= whole.count(REDACTED) == 2500


@pytest.mark.parametrize("unit", ["Bearer abcdefghijklmnop0 ", "x sk_live_abcdefghijklmnop0123 ",
                                  "https://h/x?a=1&sig=abcdefghijklmnop0123%3D "])
def test_forced_cut_keeps_what_a_pattern_needs_before_its_match(unit):
    """A line too long to hold is cut where no span nor its evidence crosses; the evidence includes the
    characters a pattern needs before where its match starts (the B of Bearer, the sk of sk_live_, the
    ? or & of sig=), or the next piece starts with "earer abcd..." and the credential went out whole."""
    text = unit * (40_000 // len(unit) + 1)
    secret = re.search(r"[a-z]{16}[0-9]{1,4}(?:%3D)?", unit).group(0)
    for step in (1000, 997, 4096):
        sink = StreamRedactor(Redactor(ENVIRON), max_line=8192)
        streamed = "".join([*(sink.feed(text[at:at + step]) for at in range(0, len(text), step)), sink.close()])
        assert secret not in streamed


def test_ipv6_after_a_lone_colon_is_found():
    """An address right after a ":" (`peer :2001:db8::7`) was taken whole with the colon, failed the
    address check and was kept; a compressed form must now hold a hex digit, so the candidate starts at
    the address (and "::" alone, which identifies nobody, is no candidate: ':*:' repeated was slow)."""
    r = Redactor({}, redact_hosts=True)
    assert r.text("peer :2001:db8::7 up; zone=:fe80::1%eth0; ok ::1 :: x") == "peer :ip-1 up; zone=:ip-2; ok ::1 :: x"
