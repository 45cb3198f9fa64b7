"""Leaks still open in issue 11 after session 15 (helper h16l): each form's value, unknown to the Redactor
(`Redactor({})`), is hidden bare, behind a log prefix and through a StreamRedactor cut at every position; the same
tools' other outputs stay.

1. Secret stores' bare prints: the line after `op item get X --fields F --reveal`, `doppler secrets get X --plain`,
   `pass show X`, `security find-generic-password ... -w`, `gopass show -o X`, `bw get password X`,
   `sops -d --extract '[...]' FILE` is the secret.
2. A secret's name with an escaped letter (octal `\\167`, `\\u{77}`, Python's `\\N{...}`) or an escaped `=` (a redirect
   URL's `%3D`, `\\u003d` outside a JSON string).
3. SQLAlchemy's echo: the parameter in the place of a secret-named column.
4. A JSON log record whose message is longer than 65,536 characters (the line views did not read it)."""

from __future__ import annotations

import json
import random

import pytest

from stream_feed import fed_at_cuts

from aiperf_lab.triage.redact import REDACTED, Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]
V = "Zq8Das1xPa55"


def _prefixed(text: str, prefix: str) -> str:
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def _streamed(text: str, cuts: list[int], flush: bool, piece: int) -> str:
    return fed_at_cuts(Redactor({}), text, cuts, flush, piece)


def _hidden_everywhere(text: str, left: str) -> None:
    """left is not in what Redactor({}).text gives, and a stream cut at any one position gives the same bytes."""
    whole = Redactor({}).text(text)
    assert left not in whole and REDACTED in whole, whole
    for cut in range(1, len(text)):
        for flush, piece in ((False, 1 << 16), (True, 1)):
            assert _streamed(text, [cut], flush, piece) == whole, (cut, flush, piece)


STORE_COMMANDS = [
    "$ op item get DB --fields password --reveal",
    "$ op item get 'Prod DB' --vault Infra --fields label=password --reveal",
    "$ doppler secrets get DB_PASSWORD --plain",
    "$ pass show prod/db",
    "user@box:~$ pass show -- prod/db",
    "$ security find-generic-password -s svc -w",
    "$ security find-internet-password -a alice -s example.com -w",
    "+ gopass show -o prod/db",
    "$ gopass show --password prod/db",
    "$ bw get password item",
    "$ sops -d --extract '[\"db\"][\"password\"]' secrets.enc.yaml",
    "+ sops --decrypt --extract '[\"db\"]' prod.enc.yaml",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("command", STORE_COMMANDS)
def test_a_secret_stores_bare_print_goes(command, prefix):
    text = _prefixed(f"step 0 loss 2.4\n{command}\n{V}\nstep 1 loss 2.3\n", prefix)
    _hidden_everywhere(text, V)
    assert Redactor({}).text(text).endswith(f"{prefix}step 1 loss 2.3\n")


STORE_OUTPUTS_KEPT = [
    "$ pass show prod\nprod\n\u2514\u2500\u2500 db\n",
    "$ pass show prod/\nprod\n\u251c\u2500\u2500 db\n",
    "$ pass show prod/db\nError: prod/db is not in the password store.\n",
    "$ pass show prod/db\nError: password store is empty. Try \"pass init\".\n",
    "$ pass show -c prod/db\nCopied prod/db to clipboard. Will clear in 45 seconds.\n",
    "$ op item get DB\nID:          k3v7xq2\nTitle:       DB\n",
    "$ op item get DB --fields password\n[use 'op item get k3v7xq2 --reveal' to reveal]\n",
    "$ op item get DB --fields password --reveal --format json\n{\n  \"id\": \"password\"\n}\n",
    "$ security find-generic-password -s svc\nkeychain: \"/Users/a/Library/Keychains/login.keychain-db\"\n",
    "$ security find-generic-password -s svc -w\n"
    "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n",
    "$ doppler secrets get X --plain\nDoppler Error: Could not find requested secret\n",
    "$ bw get password item\nNot found.\n",
    "$ gopass show prod/db --qr\nError: failed to open clipboard\n",
    "$ sops -d prod.enc.yaml\ndb: x\n",
    "I will pass show me later\nthanks\n",
]


@pytest.mark.parametrize("prefix", PREFIXES[:2])
@pytest.mark.parametrize("text", STORE_OUTPUTS_KEPT)
def test_a_secret_stores_other_outputs_stay(text, prefix):
    text = _prefixed(text, prefix)
    assert Redactor({}).text(text) == text


ESCAPED_NAMES = [
    "pass\\167ord=Hunter2x9",
    "PASS\\127ORD=Hunter2x9",
    "db_pass\\167ord: Hunter2x9",
    "pass\\u{77}ord=Hunter2x9",
    "api_\\u{6b}ey=Hunter2x9",
    "pass\\N{LATIN SMALL LETTER W}ord=Hunter2x9",
    "log: password\\u003dHunter2x9 next",
    "GET /auth?next=%2Flogin%3Fpassword%3DHunter2x9 HTTP/1.1",
    "Location: https://app.example/cb?next=%2Flogin%3Fuser%3Dbob%26password%3DHunter2x9",
    "redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Ftoken%3DHunter2x9",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("form", ESCAPED_NAMES)
def test_a_secret_name_with_an_escaped_letter_or_equals_sign_goes(form, prefix):
    text = _prefixed(f"step 0 loss 2.4\n{form}\nstep 1 loss 2.3\n", prefix)
    _hidden_everywhere(text, "Hunter2x9")


ESCAPES_KEPT = [
    "printf 'a\\101b=1'",
    "GET /x?redirect=%2Fa%3Fpage%3D2&sort%3Dname HTTP/1.1",
    "q=keyword%3Dfoo",
    "s = \"\\N{LATIN SMALL LETTER A}=1\"",
    "let c = '\\u{41}';",
]


@pytest.mark.parametrize("text", ESCAPES_KEPT)
def test_escapes_that_spell_no_secret_name_stay(text):
    assert Redactor({}).text(text + "\n") == text + "\n"


SQLALCHEMY = [
    "INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] ('alice', 'S3cret-pw!')\n",
    "INSERT INTO users (name, password) VALUES (?, ?)\n[cached since 3.1s ago] ('alice', 'S3cret-pw!')\n",
    "sqlalchemy.exc.IntegrityError: (sqlite3.IntegrityError) UNIQUE constraint failed: users.name\n"
    "[SQL: INSERT INTO users (name, password) VALUES (?, ?)]\n[parameters: ('alice', 'S3cret-pw!')]\n"
    "(Background on this error at: https://sqlalche.me/e/20/gkpj)\n",
    "UPDATE users SET password=? WHERE users.id = ?\n[generated in 0.00012s] ('S3cret-pw!', 1)\n",
    "SELECT users.id FROM users WHERE users.name = ? AND users.password = ?\n[no key 0.00011s] ('alice', 'S3cret-pw!')\n",
    "INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] [('bob', 'S3cret-pw!'), ('alice', 'S3cret-pw!')]\n",
    "INSERT INTO users (name, password) VALUES (%s, %s)\n[generated in 0.00012s] ('alice', 'S3cret-pw!')\n",
    "INSERT INTO users (name, api_token) VALUES ($1::VARCHAR, $2::VARCHAR)\n[generated in 0.00012s] ('alice', 'S3cret-pw!')\n",
    "INSERT INTO users (name, password) VALUES (?, ?), (?, ?) RETURNING id\n"
    "[generated in 0.00012s (insertmanyvalues) 1/1 (unordered)] ('alice', 'x1y2z3w4', 'bob', 'S3cret-pw!')\n",
    "INSERT INTO users (name, password)\nVALUES (?, ?)\n[generated in 0.00012s] ('alice', 'S3cret-pw!')\n",
]


@pytest.mark.parametrize("prefix", PREFIXES + ["2026-11-24 03:00:01,123 INFO sqlalchemy.engine.Engine "])
@pytest.mark.parametrize("echo", SQLALCHEMY)
def test_sqlalchemys_parameter_for_a_secret_column_goes(echo, prefix):
    text = _prefixed(f"step 0 loss 2.4\n{echo}step 1 loss 2.3\n", prefix)
    _hidden_everywhere(text, "S3cret-pw!")
    out = Redactor({}).text(text)
    assert "'alice'" in out or "alice" not in text   # the other parameters stay


SQLALCHEMY_KEPT = [
    "INSERT INTO users (name, email) VALUES (?, ?)\n[generated in 0.00012s] ('alice', 'alice@example.com')\n",
    "SELECT users.id, users.password FROM users WHERE users.name = ?\n[generated in 0.00012s] ('alice',)\n",
    "INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] ('alice', None)\n",
    "INSERT INTO runs (name, step) VALUES (?, ?)\n[generated in 0.1s] ('warmup', 12)\n",
]


@pytest.mark.parametrize("text", SQLALCHEMY_KEPT)
def test_sqlalchemys_other_parameters_stay(text):
    assert Redactor({}).text(text) == text


LONG = "step 1 loss 2.3 tokens/s 512 " * 2400   # 69,600 characters


@pytest.mark.parametrize("message", [
    f"$ pass show prod/db\n{V}\n{LONG}",
    f"{LONG}\n$ doppler secrets get DB_PASSWORD --plain\n{V}\n",
    f"127.0.0.1:6379> AUTH {V}\n{LONG}",
    f"db:\n  password: |\n    {V}\n{LONG}",
    f"{LONG}\nsecrets:\n  - {V}\n",
])
@pytest.mark.parametrize("prefix", PREFIXES[:2])
def test_a_json_record_with_a_message_over_65536_characters_is_read(message, prefix):
    text = f"{prefix}{json.dumps({'level': 'info', 'msg': message})}\n{prefix}step 2\n"
    whole = Redactor({}).text(text)
    assert V not in whole and whole.endswith(f"{prefix}step 2\n")
    rng = random.Random(16)
    for _ in range(3):
        cuts = sorted(rng.sample(range(1, len(text)), 3))
        assert _streamed(text, cuts, True, 1 << 12) == whole



def test_a_long_sqlalchemy_echo_streamed_in_pieces_gives_what_text_gives():
    """Each statement and its parameters stay in one piece of a stream, even where the cut's rounds run out (a value
    with `pw` in it has its line held as one naming a secret: each round moved the cut one line)."""
    text = "INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] ('alice', 'S3cret-pw!')\n" * 1500
    whole = Redactor({}).text(text)
    assert "S3cret-pw!" not in whole
    assert _streamed(text, list(range(65536, len(text), 65536)), False, 1 << 16) == whole
