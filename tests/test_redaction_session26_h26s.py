"""Session 26, lane h26s: speed of the assignments, layouts, calls and commands rules with every output unchanged.
Each changed function or pattern is compared with a copy of main's (e19ce8c) on seeded random texts."""

from __future__ import annotations

import random
import re
import re._compiler
import re._parser

import pytest

from aiperf_lab.triage.redaction import assignments
from aiperf_lab.triage.redaction.assignments import _ASSIGNMENT_TAIL, NAME_ENDS_LINE

# --- the foreign names' keyword: every alternative led by a literal (a charset prefix for the engine) ---

MAIN_FOREIGN_SECRET_KEYWORD = (   # (main's, e19ce8c)
    r"(?:kennwort|wachtwoord|contrase[ñn]a"
    r"|(?<![a-z])(?:senha|has[łl]o|[şs]ifre|jeton(?!s)|parol(?![a-z]))"
    r"|chiave[ _-]segreta|geheime[ _-]sleutel|geheime[rn]?[ _-]schl(?:ü|ue)ssel"
    r"|tajny[ _-]klucz|klucz[ _-]tajny|gizli[ _-]anahtar"
    r"|пароль|токен|секретный[ _-]ключ|パスワード|トークン|秘密鍵|暗証番号|密[码碼钥鑰]|口令|令牌|비밀번호|패스워드|토큰"
    r"|비밀[ _-]?키)")
MAIN_FOREIGN_ASSIGNMENT = re.compile(MAIN_FOREIGN_SECRET_KEYWORD + _ASSIGNMENT_TAIL)
MAIN_FOREIGN_NAME_ENDS_LINE = re.compile(
    MAIN_FOREIGN_SECRET_KEYWORD + NAME_ENDS_LINE.pattern[NAME_ENDS_LINE.pattern.index(")(?=(?P<rest>") + 1:])

FOREIGN_WORDS = ("kennwort", "wachtwoord", "contraseña", "contrasena", "senha", "hasło", "haslo", "şifre", "sifre",
                 "jeton", "jetons", "parol", "parola", "chiave segreta", "chiave_segreta", "geheime sleutel",
                 "geheimer schlüssel", "geheimen-schluessel", "tajny klucz", "klucz_tajny", "gizli anahtar", "пароль",
                 "токен", "секретный ключ", "パスワード", "トークン", "秘密鍵", "暗証番号", "密码", "密鑰", "口令", "令牌",
                 "비밀번호", "패스워드", "토큰", "비밀키", "비밀 키", "senh", "hasło_", "ifre", "aron", "arol")
FOREIGN_PIECES = FOREIGN_WORDS + ("x", "a", "_", "-", ".", "1", " ", "  ", "\t", "\n", "\r\n", ": ", "=", " = ", "：",
                                  ":\n  ", ": |\n  ", ": # c\n  ", "\"", "'", "b'", "Zq8Das1x", "hunter22", "no ",
                                  "ok", "(", ")", "$X", "é", "ß", "\u00a0", "my_", "db.", "&a ", "!!str ")


def _random_foreign_text(rng: random.Random) -> str:
    return "".join(rng.choice(FOREIGN_PIECES) for _ in range(rng.randint(1, 40)))


def test_foreign_keyword_alternatives_each_start_with_a_literal():
    """The engine finds the places to try by the first characters (a charset prefix): main's keyword led a branch with
    a look-behind, so every character of the text was tried (3.5 times the scan's time on a text holding `Пароль`)."""
    parsed = re._parser.parse(assignments.FOREIGN_ASSIGNMENT.pattern)
    assert re._compiler._get_charset_prefix(parsed, 0) is not None


@pytest.mark.parametrize("seed", range(4))
def test_foreign_assignment_matches_as_main_on_random_texts(seed):
    rng = random.Random(2600 + seed)
    for _ in range(2500):
        text = _random_foreign_text(rng).lower()
        pos = rng.randrange(len(text) + 1) if rng.random() < 0.3 else 0
        assert ([m.regs for m in assignments.FOREIGN_ASSIGNMENT.finditer(text, pos)]
                == [m.regs for m in MAIN_FOREIGN_ASSIGNMENT.finditer(text, pos)]), (text, pos)
        tail = text[-120:] + "\n" if rng.random() < 0.5 else text
        assert ((assignments.FOREIGN_NAME_ENDS_LINE.search(tail) or re.match("", "")).regs
                == (MAIN_FOREIGN_NAME_ENDS_LINE.search(tail) or re.match("", "")).regs), tail


@pytest.mark.parametrize("word", FOREIGN_WORDS)
def test_foreign_word_after_letters_digits_and_marks(word):
    for before in ("", "x", "Z".lower(), "1", "_", " ", "é", "ß", "я", "\n"):
        for sep in (": Zq8Das1x", "=hunter22", " = 'Zq8Das1x'", "：Zq8Das1x", ":\n  Zq8Das1x", ":\n"):
            text = (before + word + sep).lower()
            assert ([m.regs for m in assignments.FOREIGN_ASSIGNMENT.finditer(text)]
                    == [m.regs for m in MAIN_FOREIGN_ASSIGNMENT.finditer(text)]), text
            assert ((assignments.FOREIGN_NAME_ENDS_LINE.search(text) or re.match("", "")).regs
                    == (MAIN_FOREIGN_NAME_ENDS_LINE.search(text) or re.match("", "")).regs), text


# --- dumps.character_columns: found from the line breaks (a literal), not tried at every character ---

from aiperf_lab.triage.redaction import dumps  # noqa: E402

MAIN_CHARACTER_COLUMN = re.compile(
    r"(?<![^\n])[0-9a-fA-F]{4,16}(?::(?: (?:[0-9a-fA-F]{2}){1,16}){1,32}  (?P<text>[^\n]{1,256})"
    r"|(?: {1,2}[0-9a-fA-F]{2}){1,64} {1,64}(?:\|(?P<pipe>[^\n]{0,64})\||>(?P<angle>[^\n]{0,64})<))"
    r"[ \t]*\r?(?![^\n])")
MAIN_COLUMN_LINE_START = re.compile(r"(?:^|\n)[0-9a-fA-F]{4,16}[ :]")


def main_character_columns(text: str) -> list[tuple[int, int]]:   # (main's, e19ce8c)
    if MAIN_COLUMN_LINE_START.search(text) is None:
        return []
    columns = []
    for m in MAIN_CHARACTER_COLUMN.finditer(text):
        group = "text" if m.group("text") is not None else "pipe" if m.group("pipe") is not None else "angle"
        columns.append(m.span(group))
    return columns


DUMP_PIECES = ("00000000  70 61 73 73 77 6f 72 64  3d 5a 71 38 44 61 73 31  |password=Zq8Das1|",
               "00000010  78 0a                                             |x.|",
               "00000000: 7061 7373 776f 7264 3d5a 7138 4461 7331  password=Zq8Das1",
               "0000000 70 61 73 73 >pass<", "00000020", "0010:", "abcd ", "ABCD:", "0000 ab  >x<", "0000  ab |y|",
               "0000: ab cd  t", "\n", "\r\n", "\n\n", " ", "\t", "x", "password: X", "|", ">", "<", "  ", "ab", "7f ",
               "[rank0]: ", "00000000  " + "61 " * 16 + " |" + "a" * 16 + "|")


@pytest.mark.parametrize("seed", range(4))
def test_character_columns_as_main_on_random_texts(seed):
    rng = random.Random(2610 + seed)
    for _ in range(2500):
        text = "".join(rng.choice(DUMP_PIECES) for _ in range(rng.randint(0, 30)))
        assert dumps.character_columns(text) == main_character_columns(text), text


def test_character_columns_gate_and_scan_start_from_line_breaks():
    """Both patterns are led by a literal ("\\n"), their text-start forms tried by match: main's `(?<![^\\n])` and
    `(?:^|\\n)` leads gave the engine no character to skip to (every place of the text tried)."""
    for pattern in (dumps.CHARACTER_COLUMN_AFTER_BREAK, dumps.COLUMN_LINE_START):
        assert re._compiler._get_literal_prefix(re._parser.parse(pattern.pattern), 0)[0] == [10]


# --- layouts: the three leader verdicts' shared tail in one helper (a maintainer's ask, session 25) ---

from aiperf_lab.triage.redaction import layouts  # noqa: E402


def main_dot_leader_verdict(m):   # (main's, e19ce8c)
    text, at = m.string, m.start()
    name = layouts._name_before(text, at, at)
    value = layouts._within_its_string(text, at, m.group("value").rstrip())
    if name and layouts._secret_name_cached(name) and layouts._secret_value(value) and not layouts.tells_when(name, value):
        return m.start("value") - at, m.start("value") - at + len(value), -len(name)
    return None


def main_spaced_dot_leader_verdict(m):   # (main's, e19ce8c)
    text, at = m.string, m.start()
    words = layouts.SPACED_NAME_REVERSED.match(text[max(0, at - 200):at][::-1])
    name = words.group(1)[::-1].replace(" ", "_").replace("\t", "_") if words else ""
    value = layouts._within_its_string(text, at, m.group("value").rstrip())
    if name and layouts._secret_name_cached(name) and layouts._secret_value(value) and not layouts.tells_when(name, value):
        return m.start("value") - at, m.start("value") - at + len(value), -len(name)
    return None


def main_rust_some_verdict(m):   # (main's, e19ce8c)
    text, at = m.string, m.start()
    group = "dq" if m.group("dq") is not None else "bare"
    name = layouts._name_before(text, at - 2, at - 2)
    if name and layouts._secret_name_cached(name) and layouts._secret_value(m.group(group)):
        return m.start(group) - at, m.end(group) - at, -2 - len(name)
    return None


LEADER_PIECES = (
    "   Password . . . . . . . : Zq8Das1xPa55\n", "   Host Name . . . . . . . : build-01\n", "   DHCP. . . : Yes\n",
    "  comet_api_key ............... x\n", "  api_key .... Zq8Das1xPa55\n", "  token ....: Zq8Das1x!Q\n",
    '{"msg": "Password . . . : Zq8Das\\"x", "level": "info"}\n', '{"msg": "x", "api_key ....: abc123XYZ"}\n',
    "Api Key . . : Zq8Das1xPa\n", "Token Expiry . . : 2025-01-01\n", "Password Last Set . . : 2025-01-01 10:00\n",
    "password ....: never\n", "token_expires: Some(\"2026-01-01\")\n", "x" * 230 + " Password . . : Zq8Das1xA\n",
    "y" * 300 + " secret ...: Zq8Das1xB\n", "Args { api_key: Some(\"Zq8Das1xPa55\"), revision: Some(\"main\"), hf_token: Some(\n",
    "  \"Zq8Das1x\",\n", "), n: Some(1) }\n", "token: Some(abc123XYZ)\n", "password: Some(\\\"Zq8\\\\\\\"x\\\")\n",
    "password_expiry: Some(never)\n", "password_last_set: Some(\"2026-11-02\")\n", "secret_rotated_at: Some(never)\n",
    "Password Changed . . : 2026-11-02T10:00:00Z\n", "  password_last_set ....: never\n", "z" * 260 + " api_key: Some(\"Zq8Das1xC\")\n", "\n", " . . ", " .. ", ": Some(",
    "password", "Secret Name", "\t", "\"", "ṰΣ İx", "secret : Some(None)", "pwd . . : ${PW}\n", "Token . . : <none>\n",
)


@pytest.mark.parametrize("seed", range(6))
def test_leader_verdicts_are_mains_on_random_texts(seed):
    rng = random.Random(2620 + seed)
    judged = 0
    for _ in range(600):
        text = "".join(rng.choice(LEADER_PIECES) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.3:
            text = text[rng.randrange(len(text)):]
        for pattern, verdict, main in ((layouts.DOT_LEADER, layouts._dot_leader_verdict, main_dot_leader_verdict),
                                       (layouts.SPACED_DOT_LEADER, layouts._spaced_dot_leader_verdict,
                                        main_spaced_dot_leader_verdict),
                                       (layouts.RUST_SOME, layouts._rust_some_verdict, main_rust_some_verdict)):
            for m in pattern.finditer(text):
                assert verdict(m) == main(m), (text, m)
                judged += verdict(m) is not None
    assert judged > 200


def test_leader_verdicts_share_one_tail():
    """Each of the three ends in _leader_verdict (the shared tail)."""
    import inspect
    for verdict in (layouts._dot_leader_verdict, layouts._spaced_dot_leader_verdict, layouts._rust_some_verdict):
        assert "_leader_verdict(" in inspect.getsource(verdict).split("\n", 1)[1]
    assert layouts._leader_verdict("api_key", "Zq8Das1xPa55", 1, 13, 2, when=False) == (1, 13, -9)
    assert layouts._leader_verdict("host_name", "Zq8Das1xPa55", 1, 13, 0) is None
    assert layouts._leader_verdict("password_last_set", "never", 1, 6, 0) is None   # (a time told)
    assert layouts._leader_verdict("password_last_set", "never", 1, 6, 2, when=False) == (1, 6, -19)   # (Rust's: read)


# --- calls: a spaced label's value read once a distinct value ---

from aiperf_lab.triage.redaction import calls  # noqa: E402
from aiperf_lab.triage.redaction.spans import REDACTED  # noqa: E402


def main_spaced_label_spans(text: str, lower: str) -> list:   # (main's loop in code_secret_spans, e19ce8c)
    spans = []
    for m in calls.SPACED_LABEL.finditer(lower):
        if m.end("value") - m.start("value") > 256 or not calls._starts_a_word(lower, m.start(), "_-"):
            continue
        value = text[m.start("value"):m.end("value")]
        if calls._generated(value):
            spans += calls._value_span(m, False)
        elif calls._symbols_password(value) and not (calls.cannot_be_secret(value) or calls.says_absent(value)):
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


LABEL_PIECES = ("Fields:\n", "  api key:    Zq8Das1xPa55\n", "  Token Count:    4096\n", "  Secret Name:   my-secret-v2\n",
                "SECRET KEY: h2@#!&$k9Zq8Das1x\n", "secret key = %3r@!x9Zq8Das\n", "app key: (none)\n",
                "client key: ********\n", "private key: <empty>\n", "secret access key: AKIAZq8Das1xPa55Qm7v\n",
                "api key: \"Zq8Das1xPa55Qm7vT2xL\"\n", "api key: 'h2@#!&$k9Zq8'", "xapi key: Zq8Das1xPa55\n",
                "my_api key: Zq8Das1xPa55Qm\n", "api-key: Zq8\n", "api key:" + "Z" * 300 + "\n", "API KEY=True\n",
                "api key: {token}!@x9Zq\n", "api key: Basic %s!@x9\n", " ", "\t", "\n", ":", "=", "x", "İ", "Σ")


@pytest.mark.parametrize("seed", range(4))
def test_spaced_labels_are_mains_on_random_texts(seed):
    rng = random.Random(2630 + seed)
    found = 0
    for _ in range(1000):
        text = "".join(rng.choice(LABEL_PIECES) for _ in range(rng.randint(1, 30)))
        lower = text.lower()
        spans = calls._spaced_label_spans(text, lower)
        assert spans == main_spaced_label_spans(text, lower), text
        found += bool(spans)
    assert found > 300


def test_repeated_labels_read_their_value_once(monkeypatch):
    # (main: each of 2,000 copies of a label read its value again: 2,000 _symbols_password calls)
    calls._label_value_kind.cache_clear() if hasattr(calls, "_label_value_kind") else None
    text = "Fields:\n  secret key:  h2@#!&$k9Zq8Das1x~26s\n  app key:  q9!@Zq8Das1x#r~26s\n" * 2000
    expected = main_spaced_label_spans(text, text.lower())
    seen = []
    real = calls._symbols_password
    monkeypatch.setattr(calls, "_symbols_password", lambda value: seen.append(value) or real(value))
    assert calls.code_secret_spans(text, text.lower()) == expected
    assert len(expected) == 4000 and len(seen) <= 2


# --- assignment_memo: a copy's call verdict not asked again where the call's line ends inside the window ---

from aiperf_lab.triage.redaction import assignment_memo  # noqa: E402

CALL_UNITS = (
    'Args { api_key: Some("Zq8Das1xPa55"), revision: Some("main"), hf_token: Some(\n  "Zq8Das1x",\n), n: Some(1) }\n',
    "token = SecretStr(\"Zq8Das1xPa55\")\n", "password = get_password(user, 'db')\n", "'api_key': bytearray(b'",
    "secret = f(a, b)\n", "token = tok(x) + 'Zq8Das1xPa55'\n", "password=os.environ.get('DB_PW', 'Zq8Das1x')\n",
    "api_key: Some(x)\n", "password = (user, password)\n", "token = $(cat /run/secrets/hf)\n", "pass: x(", "\n",
)


def _call_texts(rng: random.Random, count: int):
    for _ in range(count):
        units = [rng.choice(CALL_UNITS) for _ in range(rng.randint(1, 4))]
        text = "".join(rng.choice(units) for _ in range(rng.randint(100, 400)))
        for _ in range(rng.randint(0, 4)):   # (a copy changed here and there: inside a call, after it, on its line)
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(("\n", "x", ")", "(", "'", ", ", "Zq9", " " * 300, "a" * 5000)) + text[at:]
        if rng.random() < 0.3:   # (one long line: the call reads on past the window)
            text = text.replace("\n", " ")
        yield text


@pytest.mark.parametrize("seed", range(6))
def test_assignments_with_calls_are_every_match_judged(seed, monkeypatch):
    rng = random.Random(2640 + seed)
    for text in _call_texts(rng, 12):
        lower = text.lower()
        got = assignments._assignment_spans(text, lower)
        with monkeypatch.context() as patch:
            patch.setattr(assignments, "recalled", lambda *args: None)   # (every match judged: the loop without a memo)
            assert got == assignments._assignment_spans(text, lower), text[:200]


def test_copies_of_a_call_on_short_lines_ask_no_call_verdict(monkeypatch):
    # (main: each of the copies of `hf_token: Some(` asked _call_verdict again, 8,000 of 8,000 matches)
    text = CALL_UNITS[0] * 2000
    lower = text.lower()
    expected = assignments._assignment_spans(text, lower)
    asked = []
    real = assignments._call_verdict
    monkeypatch.setattr(assignments, "_call_verdict", lambda *args: asked.append(args[1]) or real(*args))
    assert assignments._assignment_spans(text, lower) == expected
    assert len(expected) == 2000 and len(asked) <= 200, len(asked)


@pytest.mark.parametrize("sep", [" ", "\n"])
def test_copies_of_a_call_past_the_window_still_ask_it(monkeypatch, sep):
    """A call whose line goes on past the window (arguments of 32,000 characters): a copy's call may read what the
    window does not hold (here its closing parenthesis), and is asked again."""
    arguments = ", ".join(["a" + ("[" + "x" * 250 + "]") * 8] * 16)
    good, bad = f"token = f({arguments}){sep}", f"token = f({arguments}}}{sep}"
    for text in (good * 3 + bad + good * 2, bad * 3 + good + bad * 2):
        lower = text.lower()
        with monkeypatch.context() as patch:
            patch.setattr(assignments, "recalled", lambda *args: None)
            expected = assignments._assignment_spans(text, lower)
        assert assignments._assignment_spans(text, lower) == expected
        assert len({span[:2] for span in expected}) not in (0, 6)   # (the copies are not all judged alike)


# --- assignments._may_name_foreign: the words not ASCII in one scan led by their marks ---

NEAR_FOREIGN = ("contraseña", "contrasena", "contraseñ", "ña", "hasło", "hasl", "ło", "şifre", "şifr", "sifre", "schlüssel",
                "schlussel", "schlü", "üssel", "ключ", "клю", "пароль", "паро", "токен", "токе", "パスワード", "パスワ",
                "トークン", "秘密鍵", "秘密", "暗証番号", "暗証", "密", "口令", "口", "令牌", "令", "비밀", "비", "패스워드",
                "토큰", "토", "│ └ ", "x", " ", "\n", "é", "ß", "Σ", "jeton", "kennwort", "a")


def main_may_name_foreign(lower: str) -> bool:   # (main's, e19ce8c)
    return assignments.has_any(lower, assignments.FOREIGN_NAME_ASCII) or (
        not lower.isascii() and any(w in lower for w in assignments.FOREIGN_NAME_OTHER))


@pytest.mark.parametrize("seed", range(3))
def test_may_name_foreign_is_mains_on_random_texts(seed):
    rng = random.Random(2650 + seed)
    named = 0
    for _ in range(3000):
        lower = "".join(rng.choice(NEAR_FOREIGN) for _ in range(rng.randint(0, 6))).lower()
        assert assignments._may_name_foreign(lower) == main_may_name_foreign(lower), lower
        named += main_may_name_foreign(lower)
    assert 300 < named < 2700
    for word in assignments.FOREIGN_NAME_OTHER:
        for cut in range(1, len(word)):
            assert assignments._may_name_foreign("x" + word[:cut] + "│") == main_may_name_foreign("x" + word[:cut] + "│")
        assert assignments._may_name_foreign("│" + word)


def test_foreign_words_not_ascii_found_in_one_scan_from_their_marks():
    """One scan skips to the characters not ASCII that lead the alternatives (main searched for each of the 17 words in
    turn, each search over the whole text)."""
    prefix = re._compiler._get_charset_prefix(re._parser.parse(assignments.FOREIGN_NAME_OTHER_SCAN.pattern), 0)
    assert prefix and all(value > 127 for _, value in prefix)
