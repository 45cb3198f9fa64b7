"""Issue 11, redaction speed on adversarial text (h24q): _assignment_spans judges a match once per copy of its window.

A log, and a text made to be slow, repeats its lines; _assignment_spans judged each match of a secret-named assignment
by some forty tests (a call to names_no_value, the signature/docstring test, the line's prefix, ...): 4 to 20 us a
match. Now assignments._judge makes that verdict and says whether it read only the match's window (assignment_memo:
4,200 characters before the match, 4,200 after it and on to the end of a run of blanks or letters); a later match with
the same text whose window is a copy (compared in C) of one of the last four kept with that text (a line may hold the
same pair twice: `password=X password=X`) takes the verdict, its spans moved. A value holding a call
(`bytearray(b'X')`, `Some("X")`), whose arguments are read on past the window, has its call's verdict asked again; a
YAML scalar's next lines (`password: first` then `  X`) are read with the verdict, where they end in the window. The runs and the matches apart are
still tried after each match, as before.

The counts: names_no_value is asked once per match judged (main: once per match). The guards: on seeded random texts
(copies of the speed cases' units, changed here and there, at the window's edges too) the spans are those of the
same loop judging every match (assignment_memo.recalled answering none), which is main's loop (its body moved whole
into _judge)."""

from __future__ import annotations

import random

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import assignment_memo, assignments
from aiperf_lab.triage.redaction.spans import _lower

# units of benchmarks/redaction_speed.py's cases that cost most in _assignment_spans (main ef839a1)
UNITS = [
    "password: |\n  Zq8Das1x\n  Pa55w0rd-2\n",
    "password: 'abc\\' ",
    '"password": "ab1 cd ',
    "secrets: [Zq8Das1x, Pa55w0rd-2] ",
    "password: [x!9Kq2]abc\nsecrets: [Zq8Das1x, true]\napi_key: [x]\n",
    "API key: Zq8Das1xPa55w0rdQm7v secret key = abc access token: ",
    "      DB_PASSWORD:         Qm7vT2xLp9RzW4kN\n",
    "'password': b'Zq8vN2mK5pL9', ",
    '{"output_token_throughput": 1234.5, "token_count": 512, "api_key": null}\n',
    '{\\"password\\": \\"Zq8Wm3Kx7Lp2Rv9T\\"} ',
    "\x1b[36mclient_secret\x1b[0m=\x1b[35mZq8Wm3Kx7Lp2Rv9T\x1b[0m\n",
    "password    = Zq8Wm3Kx7Lp2Rv9T\n",
    "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44=Zq8Das1x p\u0430ssword=Zq8Das1x caf\u00e9=1 ",
    "[rank0]: password: |\n",
]
# more forms the verdicts read around: a call, brackets, a negation, a prompt's outcome, code, a pytest id, gcloud,
# a failure's reason, a docstring's field, a YAML mapping, a log prefix, Python's statements
MORE = [
    "token = get_token()\n", "    password = self.password\n", "connect(user=app, password=Xk9mQ2vL7pR4)\n",
    "password: not set\n", "password: not Hunter2x9 ", "Password:\nLogin incorrect\n", "Failed to get token: timeout\n",
    "tests/test_x.py::test_login[user=alice-password=wrong] ", "gcloud secrets versions access latest --secret=db_name\n",
    "    :param password: The passphrase for the key.\n", "secret:\n  name: X\n", "app-1  | password:\napp-1  |   Zq8Das1x\n",
    "def push(self, token: Token) -> None:\n", "password: <correct horse battery staple>\n", "api_key: ${OPENAI_API_KEY}\n",
    "token=128000 ", "password = SecretStr(\"Zq8Das1xPa55\")\n", "Σ password: ΣΣ ", "İ token: İabc12345 ",
    "password: Zq8Das1x\n  Pa55w0rd-2\n", "HF_TOKEN=$(cat /run/secrets/hf)\n", "    Token.Comment: \"italic #A3AAB2\",\n",
    "'api_key': bytearray(b'", 'Args { api_key: Some("Zq8Das1xPa55"), revision: Some("main"), hf_token: Some(\n  "Zq8Das1x",\n), n: Some(1) }\n',
    # a scalar continued on lines that run on past the window
    "password: a1b2c3d4\n" + ("    " + "Zq8" * 1500 + "\n") * 2, "secret: Zq8Das1x\n" + "  x9\n" * 7 + "  " + "y" * 5000 + "\n",
    # a call whose arguments run on past the window (its verdict is asked again of each copy)
    "token = get(" + ", ".join(['"' + "a" * 250 + '"'] * 17) + ")\n",
    "token = get(" + ", ".join(['"' + "a" * 250 + '"'] * 16 + ['"Zq8Das1xPa55"']) + ")\n",
]
ALPHABET = "abcxyzAB019 _-:=\"'\\\n\t()[]{}<>|&?;,./#$`!\u00a0\u03a3"


def _reference(text: str, lower: str) -> list:
    """_assignment_spans with every match judged (no verdict recalled): main's loop."""
    recalled = assignment_memo.recalled
    assignments.recalled = lambda *args: None
    try:
        return assignments._assignment_spans(text, lower)
    finally:
        assignments.recalled = recalled


def _random_text(rnd: random.Random) -> str:
    units = [rnd.choice(UNITS + MORE) for _ in range(rnd.randint(1, 3))]
    size = rnd.choice([6_000, 12_000, 24_000])
    parts, length = [], 0
    while length < size:
        unit = rnd.choice(units)
        if rnd.random() < 0.1:   # a copy changed
            at = rnd.randrange(len(unit) + 1)
            unit = unit[:at] + "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 3))) + unit[at + rnd.randint(0, 2):]
        if rnd.random() < 0.03:   # a long run: blanks, letters, a line without a break
            unit += rnd.choice(" \tax(") * rnd.randint(1, 6_000)
        parts.append(unit)
        length += len(unit)
    text = "".join(parts)
    for _ in range(rnd.randint(0, 3)):   # a change far from the matches: near the window's edges
        at = rnd.randrange(len(text))
        at = min(len(text), at + rnd.choice([0, 4_100, 4_200, 4_199, 4_300, 4_520]))
        text = text[:at] + rnd.choice(["(", ")", "]", "\n", "`", "::t[", "gcloud ", "logprob", "#", " x", "\u03a3"]) + text[at:]
    return text


@pytest.mark.parametrize("seed", range(40))
def test_spans_are_those_of_every_match_judged(seed):
    rnd = random.Random(seed)
    for _ in range(6):
        text = _random_text(rnd)
        lower = _lower(text)
        assert assignments._assignment_spans(text, lower) == _reference(text, lower)


@pytest.mark.parametrize("unit", UNITS + MORE)
def test_copies_of_each_unit_are_judged_as_every_match_is(unit):
    for copies in (1, 3, 200, 2_000):
        text = unit * copies
        lower = _lower(text)
        assert assignments._assignment_spans(text, lower) == _reference(text, lower)


def test_a_view_is_read_as_before():
    token = assignments.READING_A_VIEW.set(True)
    try:
        for unit in UNITS[:6]:
            text = unit * 1_000
            assert assignments._assignment_spans(text, text.lower()) == _reference(text, text.lower())
    finally:
        assignments.READING_A_VIEW.reset(token)


@pytest.mark.parametrize("unit", [
    "password: |\n  Zq8Das1x\n  Pa55w0rd-2\n", "password: 'abc\\' ", '"password": "ab1 cd ', "secrets: [Zq8Das1x, Pa55w0rd-2] ",
    "password: [x!9Kq2]abc\nsecrets: [Zq8Das1x, true]\napi_key: [x]\n", "API key: Zq8Das1xPa55w0rdQm7v secret key = abc access token: ",
    "      DB_PASSWORD:         Qm7vT2xLp9RzW4kN\n", "'password': b'Zq8vN2mK5pL9', ",
    '{"output_token_throughput": 1234.5, "token_count": 512, "api_key": null}\n', '{\\"password\\": \\"Zq8Wm3Kx7Lp2Rv9T\\"} ',
    "'api_key': bytearray(b'",
])
def test_a_match_is_judged_once_per_window_not_per_copy(monkeypatch, unit):
    # 256 KiB of copies: names_no_value (one of the verdict's forty tests) is asked of the matches in the first and the
    # last window (about 9 KiB) and no more (main: of every match, 2,000 to 13,000)
    text = (unit * (1 + (1 << 18) // len(unit)))[:1 << 18]
    expected = _reference(text, _lower(text))
    counted = Counted(assignments.names_no_value)
    monkeypatch.setattr(assignments, "names_no_value", counted)
    assert assignments._assignment_spans(text, _lower(text)) == expected
    matches = sum(1 for pattern in assignments.SECRET_ASSIGNMENTS for _ in pattern.finditer(_lower(text)))
    assert matches > 2_000
    assert counted.calls <= 600   # (here 143 to 516; main 4,297 to 15,420)


def test_a_pair_twice_on_a_line_of_a_view_is_judged_once_per_window(monkeypatch):
    # the look-alike names' line as its view reads it (the names folded; a view is read without the runs): the same
    # pair twice on a line, each copy's window a copy of the one a line before, not of the last match's
    text = ("password=Zq8Das1x password=Zq8Das1x caf\u00e9=1 \u041f\u0430\u0440\u043e\u043b\u044c: x na\u00efve "
            "\u2588\u2588\n" * 5_000)[:1 << 18]
    token = assignments.READING_A_VIEW.set(True)
    try:
        expected = _reference(text, _lower(text))
        counted = Counted(assignments.names_no_value)
        monkeypatch.setattr(assignments, "names_no_value", counted)
        assert assignments._assignment_spans(text, _lower(text)) == expected
    finally:
        assignments.READING_A_VIEW.reset(token)
    assert len(expected) > 8_000
    assert counted.calls <= 600


def test_a_continued_scalar_is_read_once_per_window(monkeypatch):
    # `password: |` then two deeper lines, repeated: the lines under each value were read at each match (main: 7,282
    # reads on 256 KiB), now with the match's verdict
    text = ("password: |\n  Zq8Das1x\n  Pa55w0rd-2\n" * 8_000)[:1 << 18]
    expected = _reference(text, _lower(text))
    counted = Counted(assignments._continued_scalar)
    monkeypatch.setattr(assignments, "_continued_scalar", counted)
    assert assignments._assignment_spans(text, _lower(text)) == expected
    assert len(expected) > 14_000
    assert counted.calls <= 600


@pytest.mark.parametrize("unit", UNITS[:8])
def test_stream_and_text_agree(unit):
    redactor = Redactor({"HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"})
    text = unit * 3_000
    sink = StreamRedactor(redactor)
    out = "".join(sink.feed(text[at:at + (1 << 16)]) for at in range(0, len(text), 1 << 16)) + sink.close()
    assert out == redactor.text(text)
