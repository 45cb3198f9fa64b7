"""False positives that cost users the evidence (issue 11: a bundle must stay useful), session 17: a tokenizer's
special tokens, a password field that says there is none, a `pass` tree, gcloud's `--secret=NAME` and a non-secret
field extracted by sops stay, in text and in a stream read in small pieces; the secrets of the same shapes still go."""

from __future__ import annotations

import base64
import random
import uuid

import pytest

from stream_feed import fed_in_reads

from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

V = "Zq8vN2mK5pL9xR4t"
HF = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"


def _streamed(text: str, size: int = 5, piece: int = 7) -> str:
    return fed_in_reads(Redactor({}), text, size, piece)


KEPT = [
    # 1. a tokenizer's special tokens under their names (training logs print a model's or a tokenizer's config)
    "pad_token: [PAD]\n",
    "sep_token: [SEP]\n",
    "cls_token: [CLS]\n",
    "mask_token: [MASK]\n",
    "unk_token: [UNK]\n",
    "bos_token: <s>\n",
    "eos_token: </s>\n",
    "pad_token='<pad>'\n",
    '"pad_token": "<|endoftext|>"\n',
    "PreTrainedTokenizerFast(name_or_path='gpt2', vocab_size=50257, special_tokens={'bos_token': '<|endoftext|>',"
    " 'pad_token': '[PAD]'})\n",
    "tokenizer.pad_token = tokenizer.eos_token\n",
    "pad_token = PAD\n",
    "    pad_token = UNK\n",
    "pad_token: PAD\n",
    "eos_token: EOS\n",
    "PAD_TOKEN=[PAD]\n",
    "padToken: [PAD]\n",
    "  mask_token: [MASK]\n  sep_token: [SEP]\n",
    "[rank0]: pad_token: [PAD]\n",
    '{"pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}\n',
    # 2. a password field that says there is none (never, not set, none, unset; in brackets)
    "Password: Never\n",
    "Password expires: Never\n",
    "Password: [not set]\n",
    "Password: (none)\n",
    "Password: <unset>\n",
    "Password: (unset)\n",
    "Password: (null)\n",
    "token: (none)\n",
    "secret: [not set]\n",
    "password = (none)\n",
    "  Password: [not set]\n",
    "Password: (hidden)\n",
    "client_secret: [hidden]\n",
    # 3. `pass` with no argument: the store's tree (a last entry's `└──` was read as loguru's arrow)
    "$ pass\nPassword Store\n├── db\n└── prod\n",
    "$ pass\nPassword Store\n└── db\n",
    "Password Store\n└── db\n    └── prod\n",
    "Password\n└── db\n",
    # 4. gcloud's --secret names the secret (its value is printed on the next line, and still goes: see HIDDEN)
    "gcloud secrets versions access latest --secret=db_name\n",
    "gcloud secrets versions access latest --secret db_name\n",
    "$ gcloud secrets versions access latest --secret=db_name > out.txt\nsaved\n",
    "+ gcloud secrets versions list --secret=prod-db-password --limit=3\n",
    "$ gcloud beta secrets versions describe 3 --secret=hf_token_prod\n",
    # 5. sops: a field that is not secret, extracted
    "$ sops -d --extract '[\"db\"][\"host\"]' f.yaml\ndb.example.com\n",
    "$ sops -d --extract '[\"db\"][\"port\"]' secrets.enc.yaml\n5432\n",
    "$ sops --decrypt --extract '[\"database\"][\"username\"]' f.yaml\nalice\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_kept_in_text(text):
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text", KEPT)
def test_kept_in_a_stream(text):
    assert _streamed(text) == text


HIDDEN = [
    # 1. special tokens' names given a real token's shape or a random string
    ("pad_token: " + HF + "\n", HF),
    ("bos_token = Zq8Das1x\n", "Zq8Das1x"),
    ("eos_token: " + V + "\n", V),
    ("pad_token: [" + V + "]\n", V),
    ("pad_token = " + V + "\n", V),
    ("    pad_token = Zq8Das1x\n", "Zq8Das1x"),
    ('"pad_token": "' + V + '"\n', V),
    ("padToken: Zq8Das1x\n", "Zq8Das1x"),
    # ... and other secrets' names given a special token's shape of capitals
    ("password: PADXQZ\n", "PADXQZ"),
    ("api_token: PADXQZ\n", "PADXQZ"),
    ("password: [HUNTER]\n", "HUNTER"),
    # 2. a password that starts as a word saying none
    ("Password: Never42\n", "Never42"),
    ("Password: (" + V + ")\n", V),
    ("Password: [" + V + "]\n", V),
    ("Password: never" + V + "\n", V),
    ("Password: (none) " + V + "\n", V),
    # 3. loguru's arrow under a secret's name
    ("    connect(password)\n    │       └ '" + V + "'\n    └ <function connect>\n", V),
    ("Password Store\n└ '" + V + "'\n", V),
    # 4. a value under a secret flag of another command, a secret-valued flag of gcloud, a store's print
    ("--client-secret=Zq8Das1x\n", "Zq8Das1x"),
    ("--secret-key=Zq8Das1x\n", "Zq8Das1x"),
    ("mytool --secret Zq8Das1x\n", "Zq8Das1x"),
    ("mytool --secret=Zq8Das1x\n", "Zq8Das1x"),
    ("gcloud compute ssh vm --secret=Zq8Das1x\n", "Zq8Das1x"),
    ("gcloud iam service-accounts keys create --client-secret=Zq8Das1x\n", "Zq8Das1x"),
    ("$ gcloud secrets versions access latest --secret=db_name\n" + V + "\n", V),
    ("$ gcloud secrets versions access latest --secret db_name\n" + V + "\n", V),
    ("mytool --secret " + V + " && gcloud secrets versions list --secret=db\n", V),
    ("gcloud secrets versions list --secret=db; mytool --secret " + V + "\n", V),
    # 5. sops: a secret's field, or a key that is not a plain field
    ("$ sops -d --extract '[\"db\"][\"password\"]' f.yaml\n" + V + "\n", V),
    ("$ sops -d --extract '[\"db\"]' f.yaml\n" + V + "\n", V),
    ("$ sops -d --extract '[\"prod\"][\"mysql\"]' f.yaml\n" + V + "\n", V),
    ("$ sops -d --extract '[\"host\"][\"token\"]' f.yaml\n" + V + "\n", V),
]


@pytest.mark.parametrize("text,secret", HIDDEN)
def test_secret_of_the_same_shape_hidden(text, secret):
    assert secret not in Redactor({}).text(text)
    assert secret not in _streamed(text)


@pytest.mark.parametrize("text,secret", HIDDEN)
def test_secret_of_the_same_shape_hidden_behind_a_prefix(text, secret):
    text = "".join("[rank0]: " + line + "\n" for line in text.splitlines())
    assert secret not in Redactor({}).text(text)
    assert secret not in _streamed(text)


def test_gcloud_secret_name_on_the_workloads_argv_is_kept():
    argv = ["gcloud", "secrets", "versions", "access", "latest", "--secret=db_name"]
    assert Redactor({}).argv(argv) == argv
    assert "db_name" not in argv_secret_values(argv)
    argv = ["gcloud", "secrets", "versions", "access", "latest", "--secret", "db_name"]
    assert Redactor({}).argv(argv) == argv


@pytest.mark.parametrize("argv", [
    ["mytool", "--secret", "Zq8Das1x"],
    ["mytool", "--secret=Zq8Das1x"],
    ["gcloud", "compute", "ssh", "vm", "--secret=Zq8Das1x"],
    ["gcloud", "secrets", "create", "x", "--client-secret=Zq8Das1x"],
])
def test_a_secret_flag_of_other_commands_still_goes_on_argv(argv):
    assert "Zq8Das1x" not in " ".join(Redactor({}).argv(argv))
    assert "Zq8Das1x" in argv_secret_values(argv)


def test_a_password_that_is_stars_is_a_mask():
    assert Redactor({}).text("Password: ********\n") == "Password: ********\n"
    assert Redactor({}).text("password: ***x9Zq8Das1\n") == f"password: {REDACTED}\n"


# Python's source under a secret-sounding name, the top classes left in the venv's site-packages after session 16: a
# lexer's bare token type under a TOKEN name (pygments' lexers), an annotated assignment, a parsed token's attribute
# given an expression or a subscript (markdown-it and its plugins).
CODE_KEPT = [
    "            token = Error\n",
    "                token = Punctuation\n",
    "        type_annotation_token = Name\n",
    "    self.token: Token | None = None\n",
    "        self.passwords: Dict[str, AuthInfo] = {}\n",
    "        self._best_scores_at_last_pass: dict[str, float] | None = None\n",
    "_assertion_pass: Callable[[int, str, str], None] | None = None\n",
    "        self._token: Token = token\n",
    "ByteStreamTokenCallback: TypeAlias = Callable[[TokenType], None]\n",
    "        token.markup = marker * (cnt + 1)\n",
    "    token.info = label if label_normalizer is None else label_normalizer(label)\n",
    "        token.map = listLines = [startLine, 0]\n",
    "        token.children = tokens or None\n",
    "        token.content = text[lastPos:pos]\n",
    "        token.content = entities[match.group(1)]\n",
    "        token.content = escapedStr if ch1 in _ESCAPED else origStr\n",
]


@pytest.mark.parametrize("text", CODE_KEPT)
def test_python_source_kept(text):
    assert Redactor({}).text(text) == text
    assert _streamed(text) == text


CODE_HIDDEN = [
    ("            token = " + V + "\n", V),
    ("            password = Error\n", "Error"),     # not a TOKEN name: a one-word value is a password
    ("            api_token = Errors\n", "Errors"),  # not a lexer's type
    ("    token: " + V + " = 1\n", V),
    ("password: Zq8Das1x = 1\n", "Zq8Das1x"),
    ("    password: hunter2 | x\n", "hunter2"),
    ("        token.markup = Zq8Das1x * 2\n", "Zq8Das1x"),
    ("        token.content = Zq8Das1x[0]\n", "Zq8Das1x"),
    ("        token.content = " + V + " if x else y\n", V),
    ("        self.password = Zq8Das1x[1:]\n", "Zq8Das1x"),
]


@pytest.mark.parametrize("text,secret", CODE_HIDDEN)
def test_secret_in_python_source_hidden(text, secret):
    assert secret not in Redactor({}).text(text)
    assert secret not in _streamed(text)


def _secrets(rng: random.Random) -> list[str]:
    """Values a generator makes (openssl rand -base64 / -hex, token_urlsafe, uuid4) and people choose (a word with
    digits or a sign, in capitals too)."""
    def raw(n: int) -> bytes:
        return rng.getrandbits(8 * n).to_bytes(n, "big")
    word = rng.choice(["summer", "dragon", "monkey", "hunter", "shadow", "master", "letmein", "correct", "never"])
    return [base64.b64encode(raw(18)).decode(), raw(16).hex(), base64.urlsafe_b64encode(raw(12)).decode().rstrip("="),
            str(uuid.UUID(bytes=raw(16), version=4)), word.capitalize() + str(rng.randrange(100)),
            word.upper() + str(rng.randrange(100)), word + "_" + str(rng.randrange(1000)),
            word + rng.choice("!#$") + str(rng.randrange(10)), "my" + word.capitalize() + "Pass"]


# each shape this file keeps, given a secret in the place of what it keeps
KEPT_SHAPES = ["pad_token: {v}\n", "pad_token = {v}\n", "    eos_token = {v}\n", "pad_token: [{v}]\n",
               "Password: {v}\n", "Password: ({v})\n", "Password: [{v}]\n", "secret: [not {v}]\n",
               "            token = {v}\n", "    self.token: {v} | None = None\n", "password: {v} = 1\n",
               "        token.markup = {v} * 2\n", "        token.content = {v}[1:]\n",
               "        token.info = {v} if x else y\n", "mytool --secret={v}\n", "mytool --secret {v}\n",
               "$ sops -d --extract '[\"db\"][\"pw\"]' f.yaml\n{v}\n", "Password Store\n\u2514 '{v}'\n"]


def test_no_secret_is_kept_in_the_kept_shapes():
    rng = random.Random(17)
    redactor = Redactor({})
    kept = [shape.format(v=value) for _ in range(30) for value in _secrets(rng) for shape in KEPT_SHAPES
            if value in redactor.text(shape.format(v=value))]
    assert kept == []
