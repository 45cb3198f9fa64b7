"""Known secrets that share a long head (every HS256 JWT starts with the same header): the work of finding their pieces
in a text that holds other such tokens does not grow with their number (issue 11: redaction linear; red team h19r:
1 MB of log lines took 0.7 s with no known JWT, 12.6 s with 100, 121 s with 1,000). Work is counted, not timed: the
regex needle searches and the comparisons that grow a piece (known_secrets._needle_pattern's searches, _common_prefix,
_common_suffix). Since session 20 most needles are found by str.find and reach _needle_pattern only past 256 finds in one
text; the str.find scans of a long text are counted in tests/test_redaction_session20_known.py
(test_the_needle_scans_of_a_long_text_do_not_grow_with_the_known_jwts)."""

import base64
import json
import random
import string

import pytest

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import known_secrets

HEADER = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"   # base64url of {"alg":"HS256","typ":"JWT"}


def _jwt(rnd: random.Random, sub: str | None = None) -> str:
    claims = {"sub": sub or str(rnd.randrange(10 ** 10)), "iat": rnd.randrange(10 ** 9)}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{HEADER}.{body}.{''.join(rnd.choice(string.ascii_letters + string.digits) for _ in range(43))}"


def _log(rnd: random.Random, lines: int) -> str:
    return "\n".join(f"2024-05-01 12:00:{i % 60:02d} INFO request ok auth={_jwt(rnd)} latency=12ms"
                     for i in range(lines))


class _Counted:
    def __init__(self, pattern, work):
        self.pattern, self.work = pattern, work

    def search(self, *args):
        self.work[0] += 1
        return self.pattern.search(*args)


@pytest.fixture
def work(monkeypatch):
    """The count of searches and comparisons known_secrets makes (reset with work[0] = 0)."""
    counter = [0]
    needle_pattern = known_secrets._needle_pattern
    monkeypatch.setattr(known_secrets, "_needle_pattern", lambda *a: _Counted(needle_pattern(*a), counter))
    for name in ("_common_prefix", "_common_suffix"):
        def counted(*args, _f=getattr(known_secrets, name)):
            counter[0] += 1
            return _f(*args)
        monkeypatch.setattr(known_secrets, name, counted)
    return counter


def _work_for(work, known: int, text: str) -> int:
    rnd = random.Random(known)
    redactor = Redactor({f"SVC{i}_TOKEN": _jwt(rnd) for i in range(known)})
    work[0] = 0
    redactor.text(text)
    return work[0]


def test_known_jwts_sharing_their_header_cost_the_same_work_as_a_few(work):
    text = _log(random.Random(1), 300)
    few, many = _work_for(work, 10, text), _work_for(work, 200, text)
    assert few > 0
    assert many <= 3 * few, (few, many)   # (main: 20 times; here 2.2, each value's own needles past the header)


def test_known_jwts_sharing_their_header_work_per_token_in_the_text_is_bounded(work):
    # tokens whose claims share nothing with the known ones past the header: the header is read once a place
    rnd = random.Random(3)
    text = "\n".join(f"auth={_jwt(rnd, sub='user-' + ''.join(rnd.choice('abcdef') for _ in range(20)))}"
                     for _ in range(200))
    assert _work_for(work, 300, text) <= 10 * 200


def test_pieces_of_known_jwts_sharing_their_header_still_go():
    rnd = random.Random(5)
    known = [_jwt(rnd) for _ in range(40)]
    redactor = Redactor({f"SVC{i}_TOKEN": value for i, value in enumerate(known)})
    other = _jwt(rnd)
    value = known[17]
    lines = [f"whole {value} end", f"head {value[:50]} end", f"tail {value[-30:]} end", f"middle {value[40:75]} end",
             f"split {value[:60]}\n{value[60:]}", f"other {other} end", f"short rest {value[:-5]}\n{value[-5:]}"]
    out = redactor.text("\n".join(lines))
    for piece in (value, value[:50], value[-30:], value[40:75], value[60:], value[-5:]):
        assert piece not in out
    assert HEADER not in out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_values_sharing_heads_found_once_or_value_by_value_agree(monkeypatch, seed):
    """The shared needles' pieces (looked for once for all their values) against every value's own search."""
    rnd = random.Random(seed)
    alpha = string.ascii_letters + string.digits
    head = "".join(rnd.choice(alpha) for _ in range(30))
    values = [head[:rnd.choice([12, 20, 30])] + "".join(rnd.choice(alpha) for _ in range(rnd.choice([1, 6, 11, 13, 40])))
              for _ in range(30)] + [_jwt(rnd) for _ in range(10)]
    env = {f"API_TOKEN_{i}": value for i, value in enumerate(values)}
    pieces = []
    for value in values[::3]:
        pieces += [value, value[:14], value[-13:], value[:-3] + "\n" + value[-3:], value + value[:12], "x" + value[1:],
                   value[:len(value) // 2] + "\n" + value[len(value) // 2:], rnd.choice(values)[:rnd.randrange(8, 40)]]
    texts = ["\n".join(pieces), "".join(pieces), " ".join(pieces)]
    shared = Redactor(env)
    monkeypatch.setattr(known_secrets, "SHARED_LEAST", 10 ** 9, raising=False)
    alone = Redactor(env)
    for text in texts:
        assert shared.text(text) == alone.text(text)
        streams = [StreamRedactor(redactor, piece=64) for redactor in (shared, alone)]
        assert len({"".join(stream.feed(text[k:k + 37]) for k in range(0, len(text), 37)) + stream.close()
                    for stream in streams}) == 1
