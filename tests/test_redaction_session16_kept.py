"""False positives that cost users the evidence (issue 11: a bundle must stay useful), and the stream agreeing with
Redactor.text: each form below is not a secret and stays, in text and in a stream read in small pieces, while the
secrets of the same shapes stay hidden."""

from __future__ import annotations

import base64
import random
import uuid

import pytest

from dump_layouts import hexdump_canonical

from stream_feed import fed_in_reads

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

V = "Zq8vN2mK5pL9xR4t"


def _streamed(text: str, size: int, piece: int = 7) -> str:
    return fed_in_reads(Redactor({}), text, size, piece)


NET_USER = """User name                    alice
Account active               Yes
Account expires              Never

Password last set            11/2/2026 9:14:02 AM
Password expires             Never
Password changeable          11/3/2026 9:14:02 AM
Password required            Yes
User may change password     Yes
"""

KEPT = [
    # Windows `net user` and its dotted-leader listings: dates, times, Never
    NET_USER,
    "Password Last Set . . . . . : 11/2/2026 9:14:02 AM\n",
    "Password Expires . . . . . . : Never\n",
    "Password Last Set ......: 11/2/2026 9:14:02 AM\n",
    "password_last_set=2026-11-02T09:14:02Z\n",
    "password_expires: never\n",
    # a sentence about a secret, in English and other languages: that it is missing or not set
    "Clé secrète : manquante\n",
    "Clé secrète : non définie\n",
    "Secret : non défini\n",
    "Token : aucun\n",
    "Secret: ausente\n",
    "secret: missing\n",
    "api_key: missing\n",
    "password: not set\n",
    "secret: (not set)\n",
    "secret: not configured\n",
    "Mot de passe : non défini\n",
    # a store's print of a field that is not secret; a store's print sent to a file (the next line is not its value)
    "$ op read op://vault/item/username\nalice\n",
    "$ op read \"op://vault/item/username\"\nalice\n",
    "$ vault kv get -field=username secret/db\nalice\n",
    "$ vault kv get -field=password secret/db > pw.txt\nsaved\n",
    "$ vault kv get -field=password secret/db >> pw.txt\ndone\n",
    "$ op read op://vault/item/password &> out.txt\nsaved\n",
    "$ kubectl get secret db -o jsonpath='{.data.pw}' | base64 -d > pw.txt\ndone\n",
    # hexdump -C's character column: random bytes that read as `pw.ci.: value`
    "00069ad0  5a c3 2f 70 77 af 63 69  e5 3a 35 4e 6c cc 8e 4b  |Z./pw.ci.:5Nl..K|\n",
    hexdump_canonical(b"\x5a\xc3/pw\xafci\xe5:5Nl\xcc\x8eK\x00\x9f\x8e/pw.\xc9i:7Kq\xd1..\x8bz\x00\x01"),
]


@pytest.mark.parametrize("text", KEPT)
def test_kept_in_text(text):
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text", KEPT)
def test_kept_in_a_stream(text):
    assert _streamed(text, 5) == text


HIDDEN = [
    # the same shapes with a secret for a value
    ("Password Last Set . . . . . : " + V + "\n", V),
    ("Password . . . . . : " + V + "\n", V),
    ("Clé secrète : " + V + "\n", V),
    ("password: " + V + " set\n", V),
    ("secret: " + V + "\n", V),
    ("password=not password=missing password=" + V + "\n", V),
    ("$ op read op://vault/item/password\n" + V + "\n", V),
    ("$ op read op://vault/username/password\n" + V + "\n", V),
    ("$ vault kv get -field=password secret/db\n" + V + "\n", V),
    ("$ vault kv get -field=password secret/db 2>/dev/null\n" + V + "\n", V),
    ("$ vault kv get -field=password secret/db 2>&1\n" + V + "\n", V),
    ("$ op read op://vault/item/password >&2\n" + V + "\n", V),
    ("$ kubectl get secret db -o jsonpath='{.data.pw}' | base64 -d\n" + V + "\n", V),
]


@pytest.mark.parametrize("text,secret", HIDDEN)
def test_secret_of_the_same_shape_hidden(text, secret):
    assert secret not in Redactor({}).text(text)
    assert secret not in _streamed(text, 5)


def test_a_not_word_is_kept_only_before_a_word():
    # `password: not` alone, or before another name, is a value
    assert Redactor({}).text("password: not\n") == f"password: {REDACTED}\n"


@pytest.mark.parametrize("secret", [b"password=hunter2xyz&more", b"token: Qm9vZ3Rlc3Q4NzY1", b"xx pw:5Nl..Kabcdefgh yy"])
def test_a_secret_dumped_is_hidden_in_both_columns(secret):
    dump = hexdump_canonical(b"\x01\x02 " + secret + b" \x03")
    value = secret.split(b"=")[-1].split(b":")[-1].strip().decode()
    for out in (Redactor({}).text(dump), _streamed(dump, 5)):
        assert REDACTED in out
        rows = out.splitlines()
        assert all(row.endswith("|") for row in rows[:-1])   # the column's closing bar stays
        assert value[:8] not in out.replace("\n", "")


def test_the_column_bar_stays():
    line = "00069ad0  5a c3 2f 70 77 af 63 69  e5 3a 35 4e 6c cc 8e 4b  |Z./pw.ci.:5Nl..K|\n"
    assert Redactor({}).text(line).endswith("|\n")


# Stream vs text: a run of indented lines, each held for the next (a frame's code line may follow), moved the cut up a
# line a round; when the rounds ran out the last cut was taken unasked, between `stoken_compound =` and its value on
# the next line: text hid the value and the stream kept it (pygments' shell lexer wrapped at 80 columns).
INDENTED = ("def make(a,\n" + "".join(f"        a_{i} = b_{i}\n" for i in range(4)) + "        stoken_compound =\n"
            "(rf'(?:[{_punct}]+|(?:{_string}|{_core_token_compound})+)')\n"
            + "".join(f"        c_{i} = d_{i}\n" for i in range(24)) + "\n") * 3


def test_indented_run_cut_as_text_reads_it():
    whole = Redactor({}).text(INDENTED)
    assert whole.count(REDACTED) == 3
    differ = [piece for piece in range(16, 1200, 7) if _streamed(INDENTED, 64, piece) != whole]
    assert differ == []


def test_a_long_indented_run_still_goes_out():
    # lines held one by one (each may be a frame's code line), more than the rounds allow: pieces still go out as
    # the stream goes on, and all of it as text gives it
    text = "".join(f"        c_{i} = d_{i}\n" for i in range(3000)) + "        api_token =\n" + V + "\n"
    stream = StreamRedactor(Redactor({}), piece=256)
    parts = [stream.feed(text[k:k + 1000]) for k in range(0, len(text), 1000)]
    assert any(parts)   # (not all held to the end)
    out = "".join(parts) + stream.close()
    assert out == Redactor({}).text(text)
    assert V not in out


# Python's source under a secret-sounding name (a traceback's line, a module printed): an indented statement whose
# value is a reference (an attribute path, a snake_case name of words), and a parsed token's attributes (markdown-it,
# pygments), a variable passed on, a def line's parameter types, a docstring's fields, a style table: the top classes
# of lines changed in the venv's site-packages (537 lines -> 236).
CODE_KEPT = [
    "        token = self.stream.current\n",
    "        token = Name.Variable\n",
    "                    token = Comment.Multiline  # a comment\n",
    "    token = value_str\n",
    "    self.token = inline_token\n",
    "    util._assertion_pass = call_assertion_pass_hook\n",
    "        token.markup = markerChar\n",
    "        token.info = params\n",
    "        token.map = lines\n",
    "        token.info = \"entity\"\n",
    "        token.markup = \"```\"\n",
    "        token.content = state.getLines(startLine + 1, nextLine, length, True)\n",
    # a variable passed on
    "        self.password = password\n",
    "        self.auth = auth\n",
    "        self._client_cert_passphrase = password\n",
    # a parameter's type in a def line; a docstring's field
    "    def push(self, token: Token) -> None:\n",
    "def recursive_collect_tokens(node: Self, token_list: list[Token]) -> None:\n",
    "def _strip_auth_from_netloc(netloc: str, safe_user_passwords: Collection[str]) -> str:\n",
    "    :param cookies: (optional) Dict or CookieJar object to send with the Request.\n",
    "    :param sign_password: The passphrase for the signer's\n",
    # a syntax highlighter's style table
    "        Token.Keyword: \"bold\",\n",
    "        Token.Comment: \"italic #A3AAB2\",\n",
    "        Token:              '#ffffff',\n",
    "        Token:                      FG_DEFAULT,\n",
    "        Token.Number: \"#976806\", # includes durations\n",
    "        Token.Error: \"bg:ansired ansiwhite\",\n",
    "        Token.Number: \"$text-warning\",\n",
]


@pytest.mark.parametrize("text", CODE_KEPT)
def test_python_reference_kept(text):
    assert Redactor({}).text(text) == text
    assert _streamed(text, 5) == text


CODE_HIDDEN = [
    "    password = " + V + "\n",
    "    password = hunter2\n",            # one word: a password
    "    password = Summer_2024\n",        # not a snake_case name of words
    "    password = correct.Horse9\n",
    "    password = mySecretPass\n",       # camel case: may be a password
    "password = value_str\n",              # not indented: a config file's line
    "    password = value_str trailing\n",  # does not end the statement
    "    password = \"value.str\"\n",      # a string literal
    "    token.content = \"" + V + "\"\n",
    "    token.info = \"" + V + "\"\n",
    "    token.content = " + V + "\n",
    "    api.password = " + V + "\n",
    "        self.password = hunter2\n",
    "    def f(password: Hunter2x) -> None:\n",
    "    def f(password: " + V + ")\n",
    "    :param password: " + V + "\n",
    "    password: Token\n",                 # no def line: a YAML value
    "Token: \"bold\"\n",                     # not indented
    "    Token: \"" + V + "\",\n",
    "    Token: \"hunter two\",\n",
    "    Token: hunter2,\n",
    "    token: \"bold\",\n",                  # Pygments' type is capitalised
]


@pytest.mark.parametrize("text", CODE_HIDDEN)
def test_python_shaped_secret_hidden(text):
    out = Redactor({}).text(text)
    assert REDACTED in out
    assert _streamed(text, 5) == out


def _values(rng: random.Random) -> list[str]:
    """Generated secrets (openssl rand, token_urlsafe, uuid4, pwgen-like) and people's (a word, digits, a sign)."""
    def raw(n: int) -> bytes:
        return rng.getrandbits(8 * n).to_bytes(n, "big")
    word = rng.choice(["summer", "dragon", "monkey", "hunter", "shadow", "master", "letmein", "correct", "horse"])
    return [base64.b64encode(raw(24)).decode(), base64.b64encode(raw(12)).decode(), raw(16).hex(),
            base64.urlsafe_b64encode(raw(16)).decode().rstrip("="), base64.urlsafe_b64encode(raw(8)).decode().rstrip("="),
            str(uuid.UUID(bytes=raw(16), version=4)), word.capitalize() + str(rng.randrange(100)),
            word + "_" + str(rng.randrange(1000)), word + rng.choice("!#$") + str(rng.randrange(10)),
            word + "." + rng.choice(["Abc", "Horse"]), "my" + word.capitalize() + "Pass"]


PYTHON_CONTEXTS = ["def f(password: {v}) -> bool:\n", "def f(self, token: {v}, x: int):\n", "    password = {v}\n",
                   "    self.password = {v}\n", "    token = {v}  # note\n", '    token.info = "{v}"\n',
                   "    :param password: {v}\n", "    :param password: {v} is the default\n", '    Token: "{v}",\n',
                   "    Token.Keyword: {v},\n", "Password Last Set . . . : {v}\n", "password: {v} set\n"]


def test_no_secret_is_kept_in_the_kept_python_shapes():
    rng = random.Random(16)
    redactor = Redactor({})
    kept = [context.format(v=value) for _ in range(40) for value in _values(rng) for context in PYTHON_CONTEXTS
            if value in redactor.text(context.format(v=value))]
    assert kept == []


@pytest.mark.parametrize("text,kept", [
    # gcloud's help wraps a command over lines: the flag under it goes on with the command
    ("    $ gcloud secrets versions access 123 --secret=my-secret\n        --out-file=/tmp/secret\n",
     "        --out-file=/tmp/secret\n"),
    # the tool writes the value to a file: the next line is not it
    ("$ gcloud secrets versions access latest --secret=db --out-file=/tmp/pw\ndone\n", "\ndone\n"),
    ("$ op read --out-file ./key.pem op://app/server/ssh/key\nsaved\n", "\nsaved\n"),
])
def test_a_store_print_to_a_file_keeps_the_next_line(text, kept):
    assert Redactor({}).text(text).endswith(kept)
    assert _streamed(text, 5).endswith(kept)
