"""Known secrets (values the Redactor knows from the environment and argv), session 20 (h20k; red team h19r's last five
leaks, issue 11): a known value printed URL-encoded twice, as HTML entities, with shell backslashes, or wrapped onto
lines that begin with a launcher's prefix, is hidden in the text and in the stream at every cut. And the work known
secrets cost (counted, not timed): the regexes a stream of many known JWTs compiles, the comparisons a known value that
heads the others costs where it is printed on every line, the scans of a long text for the needles of many values."""

import random
import re
import string
import urllib.parse

import pytest
from stream_feed import hidden_everywhere, kept_everywhere
from test_redaction_known_shared_heads import HEADER, _jwt, _log

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import known_secrets, spans

V = "Zr8!kP2$qW9#mX4&nL7"     # a password with characters that every escape changes
PLAIN = "abcdEFGH1234ijklMNOP"  # letters and digits only
LONG = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
ENV = {"DB_PASSWORD": V, "PLAIN_SECRET": PLAIN, "SVC_TOKEN": LONG}


def _redactor() -> Redactor:
    return Redactor(ENV)


def _entities(value: str, entity) -> str:
    return "".join(entity(c) if not c.isalnum() else c for c in value)


# ---- leaks: escaped forms -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("printed", [
    urllib.parse.quote(urllib.parse.quote(V, safe=""), safe=""),                   # a URL inside a query parameter
    urllib.parse.quote(urllib.parse.quote(V), safe=""),
    urllib.parse.quote(urllib.parse.quote_plus(V), safe=""),
], ids=["quote-safe-none", "quote", "quote-plus"])
def test_a_known_value_url_encoded_twice_is_hidden(printed):
    hidden_everywhere(f"GET /login?next={printed} 302\n", "kP2", _redactor)


def test_a_known_value_url_encoded_twice_in_lower_case_hex_is_hidden():
    value = "Yq7/pL+4mZ=9xR"
    once = re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), urllib.parse.quote(value, safe=""))
    printed = urllib.parse.quote(once, safe="")
    assert "%252f" in printed
    hidden_everywhere(f"GET /login?next={printed} 302\n", "pL", lambda: Redactor({"APP_PASSWORD": value}))


@pytest.mark.parametrize("entity", [
    lambda c: f"&#{ord(c)};", lambda c: f"&#x{ord(c):x};", lambda c: f"&#x{ord(c):X};",
    lambda c: {"!": "&excl;", "$": "&dollar;", "#": "&num;", "&": "&amp;"}[c],
], ids=["decimal", "hex", "HEX", "named"])
def test_a_known_value_as_html_entities_is_hidden(entity):
    hidden_everywhere(f'<input type="hidden" value="{_entities(V, entity)}">\n', "kP2", _redactor)


def test_a_known_value_as_a_template_escapes_it_is_hidden():
    value = "p'w\"d<9>&x+Zq2"
    printed = value.replace("&", "&amp;").replace("'", "&#39;").replace('"', "&#34;").replace("<", "&lt;")
    printed = printed.replace(">", "&gt;").replace("+", "&#43;")   # (Go's html/template)
    hidden_everywhere(f"<p>{printed}</p>\n", "Zq2", lambda: Redactor({"APP_PASSWORD": value}))


@pytest.mark.parametrize("printed", [
    "".join("\\" + c if not c.isalnum() else c for c in V),      # a backslash before every other character
    "Zr8\\!kP2\\$qW9#mX4\\&nL7",                                  # bash's printf %q (`#` escaped only first)
], ids=["every", "printf-q"])
def test_a_known_value_with_shell_backslashes_is_hidden(printed):
    hidden_everywhere(f"sent {printed} to the job\n", "kP2", _redactor)


def test_a_value_of_letters_and_digits_has_no_more_forms():
    assert known_secrets.more_escaped_forms(PLAIN) == set()
    assert "&#36;" in "".join(known_secrets.more_escaped_forms(V))


# ---- leaks: wrapped onto lines behind a launcher's prefix ------------------------------------------------------------

@pytest.mark.parametrize("text, secret", [
    (f"value {V[:10]}\n[rank0]: {V[10:]} done\n", V[10:]),                       # torchrun's prefix
    (f"0: value {PLAIN[:10]}\n0: {PLAIN[10:]} done\n", PLAIN[10:]),              # srun --label
    (f"[1,0]<stdout>: {PLAIN[:12]}\n[1,0]<stdout>: {PLAIN[12:]}\n", PLAIN[12:]),  # mpirun --tag-output
    (f"[rank0]: v {V[:6]}\n[rank0]: {V[6:12]}\n[rank0]: {V[12:]} done\n", V[12:]),   # over three lines
    (f"node1: {PLAIN[:9]}\nnode1: {PLAIN[9:]}\n", PLAIN[9:]),                     # pdsh
], ids=["rank0", "srun", "mpirun", "three-lines", "pdsh"])
def test_a_short_known_value_wrapped_behind_a_launcher_prefix_is_hidden(text, secret):
    whole = hidden_everywhere(text, secret, _redactor)
    assert whole.count("[REDACTED]") >= 2
    for prefix in ("[rank0]: ", "0: ", "[1,0]<stdout>: ", "node1: "):   # the prefixes stay
        assert whole.count(prefix) == text.count(prefix)


def test_a_long_known_value_s_short_rest_behind_a_launcher_prefix_is_hidden():
    hidden_everywhere(f"token {LONG[:24]}\n[rank0]: {LONG[24:]} ok\n", LONG[24:], _redactor)


def test_a_long_known_value_s_short_head_before_a_prefixed_line_is_hidden():
    hidden_everywhere(f"x zz{LONG[:4]}\n[rank0]: {LONG[4:]} ok\n", LONG[:4], _redactor)


def test_prefixed_lines_without_a_known_value_stay():
    kept_everywhere(f"[rank0]: step 1 loss 0.5\n[rank0]: {PLAIN[:7]}xyz\n0: abc\n0: done\n", _redactor)


# ---- work --------------------------------------------------------------------------------------------------------

@pytest.fixture
def compiles(monkeypatch):
    counter = [0]
    real = re.compile

    def counting(*args, **kwargs):
        counter[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(re, "compile", counting)
    return counter


def _streamed(redactor: Redactor, text: str) -> str:
    stream = StreamRedactor(redactor)
    return "".join(stream.feed(text[k:k + 4096]) for k in range(0, len(text), 4096)) + stream.close()


def test_a_stream_of_many_known_jwts_compiles_no_regex_per_needle(compiles):
    """Main compiled each candidate value's needles' regexes (48 nested groups, ~5 ms each) as the stream asked for
    them, and at 1,000 known JWTs recompiled them again and again (a cache of 4,096): 389 s of CPU a MB."""
    rnd = random.Random(7)
    text = _log(random.Random(1), 200) + "\n"
    _streamed(Redactor({f"SVC{i}_TOKEN": _jwt(rnd) for i in range(10)}), text)   # (the rules' own lazy patterns)
    redactor = Redactor({f"SVC{i}_TOKEN": _jwt(rnd) for i in range(200)})
    compiles[0] = 0
    out = _streamed(redactor, text)
    assert compiles[0] <= 20, compiles[0]   # (main: 1,566)
    assert out == redactor.text(text)


@pytest.fixture
def comparisons(monkeypatch):
    counter = [0]
    real = known_secrets._common_prefix

    def counting(*args):
        counter[0] += 1
        return real(*args)
    monkeypatch.setattr(known_secrets, "_common_prefix", counting)
    return counter


def test_a_known_value_that_heads_the_others_costs_little_where_printed_every_line(comparisons):
    """The JWT header taken for a known secret (argv redaction reads a token-shaped literal in a script so) heads every
    known JWT: each of them was then compared with the text at every printed token (h19j: 1.6x slower)."""
    rnd = random.Random(19)
    alnum = string.ascii_letters + string.digits
    text = "".join(f"2026-11-24 INFO ok auth={HEADER}.{''.join(rnd.choice(alnum) for _ in range(40))}.x{i} ms\n"
                   for i in range(300))
    env = {f"SVC{k:03d}_TOKEN": f"{HEADER}.{''.join(rnd.choice(alnum) for _ in range(40))}."
           f"{''.join(rnd.choice(alnum) for _ in range(43))}" for k in range(100)}
    Redactor(env).text(text)
    without = comparisons[0]
    comparisons[0] = 0
    out = Redactor(env, extra_secrets=[HEADER[:30]]).text(text)
    assert comparisons[0] <= 3 * without, (without, comparisons[0])   # (main: 3,564 and 125,380)
    assert HEADER[:30] not in out


def test_the_needle_scans_of_a_long_text_do_not_grow_with_the_known_jwts(monkeypatch):
    """Every needle that the q-gram index could not rule out was looked for by a scan of the whole text: base64 of
    digits shares its q-grams, so most of 1,000 known JWTs' needles were (3,000 scans of the text)."""
    counter = [0]
    real = spans._found

    def counting(*args):
        counter[0] += 1
        return real(*args)
    monkeypatch.setattr(spans, "_found", counting)
    rnd = random.Random(7)
    text = _log(random.Random(1), 200) + "\n"
    counts = []
    for known in (10, 200):
        redactor = Redactor({f"SVC{i}_TOKEN": _jwt(rnd) for i in range(known)})
        counter[0] = 0
        redactor.text(text)
        counts.append(counter[0])
    assert counts[1] <= counts[0] + 50, counts   # (main: 946 and 3,132)
