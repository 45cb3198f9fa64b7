"""Issue 11: passwords that tools print with no secret name next to them, and secret names whose values come as a
list or a block. Windows' `net use` (the password before or after /user:), a YAML sequence under a secret's name
(`secrets:` then `- X` lines; the flow form `secrets: [X, Y]`, JSON's `"api_keys": [...]`, Python's `passwords =
[...]`), a YAML block scalar under one (`private_key: |`, `password: >-`: every line, not the first alone), and
`user:PASSWORD@host:/path` as rsync and scp take it. The values are in no environment variable: only the rule for
the shape can find them. Each has the ordinary text next to it that must stay."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

P, Q = "S3cr3t!x", "Pa55w0rd-2"


def _streamed(redactor: Redactor, text: str, size: int) -> str:
    return fed_in_reads(redactor, text, size, piece=64)


@pytest.mark.parametrize("text,expected", [
    (f"net use Z: \\\\srv\\share /user:CORP\\bob {P}\n", f"net use Z: \\\\srv\\share /user:CORP\\bob {REDACTED}\n"),
    (f"net use \\\\srv\\ipc$ {P} /user:bob\n", f"net use \\\\srv\\ipc$ {REDACTED} /user:bob\n"),
    (f"C:\\> net use Z: \\\\srv\\share {P} /USER:bob /persistent:no\n",
     f"C:\\> net use Z: \\\\srv\\share {REDACTED} /USER:bob /persistent:no\n"),
    (f"aws configure set aws_secret_access_key {P}\n", f"aws configure set aws_secret_access_key {REDACTED}\n"),
    (f"aws configure set default.aws_secret_access_key {P}\n",
     f"aws configure set default.aws_secret_access_key {REDACTED}\n"),
    (f"secrets:\n  - {P}\n  - {Q}\nother: 1\n", f"secrets:\n  - {REDACTED}\n  - {REDACTED}\nother: 1\n"),
    (f"passwords:\n- {P}\n- '{Q}'\n", f"passwords:\n- {REDACTED}\n- '{REDACTED}'\n"),
    (f"  api_keys:\n    - \"{P}\"\n  next: 2\n", f"  api_keys:\n    - \"{REDACTED}\"\n  next: 2\n"),
    (f"secrets: [{P}, {Q}]\n", f"secrets: [{REDACTED}, {REDACTED}]\n"),
    (f'{{"api_keys": ["{P}", "{Q}"]}}\n', f'{{"api_keys": ["{REDACTED}", "{REDACTED}"]}}\n'),
    (f"passwords = ['{P}', '{Q}']\n", f"passwords = ['{REDACTED}', '{REDACTED}']\n"),
    (f"passwords = ['{P}', pw2]\n", f"passwords = ['{REDACTED}', pw2]\n"),   # code: a bare item is a variable
    ('api_keys: ["sk-abcdefghij", "Zq8Das1xQ"]\n', f'api_keys: ["{REDACTED}", "{REDACTED}"]\n'),
    (f"private_key: |\n  {P}\n  {Q}\nnext: 1\n", f"private_key: |\n  {REDACTED}\n  {REDACTED}\nnext: 1\n"),
    (f"password: >-\n  {P}\n\n  {Q}\nnext: 1\n", f"password: >-\n  {REDACTED}\n\n  {REDACTED}\nnext: 1\n"),
    (f"rsync -av bob:{P}@host:/data/ .\n", f"rsync -av bob:{REDACTED}@host:/data/ .\n"),
    (f"scp f bob:{P}@host:~/x\n", f"scp f bob:{REDACTED}@host:~/x\n"),
    (f"git clone bob:{P}@host:org/repo.git\n", f"git clone bob:{REDACTED}@host:org/repo.git\n"),
])
def test_the_password_goes_and_nothing_else(text, expected):
    redactor = Redactor({})
    assert redactor.text(text) == expected
    assert _streamed(redactor, text, 5) == expected
    assert redactor.text(expected) == expected   # a bundle's file redacted again stays as it is


@pytest.mark.parametrize("text", [
    "net use Z: \\\\srv\\share /user:bob *\n",
    "net use Z: \\\\srv\\share /persistent:no\n",
    "net view \\\\srv\n",
    "aws configure set region us-east-1\n",
    "imagePullSecrets:\n- name: regcred\n",
    "env:\n- name: DB\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: pw\n",
    "secrets:\n  - ${DB_PW}\n  - true\n",
    "secrets: []\n",
    "special_tokens:\n  - <pad>\n  - </s>\n",
    'stop_tokens: ["</s>", "<eot>"]\n',
    "token_ids = [1, 2, 3]\n",
    # found in installed packages' sources: code lists under names with KEY(S) or TOKEN in them
    'SCHEME_KEYS = ["platlib", "purelib", "headers", "scripts", "data"]\n',
    "valid_keys = ['where', 'include', 'exclude']\n",
    "valid_keys:\n  - where\n  - include\n",
    "    token.map = [startLine, nextLine]\n",
    "    all_keys = [key.strip() for key in keys.split(\",\")]\n",
    "    token = state.push(\"paragraph_open\", \"p\", 1)\n",
    "    else {\"token\": challenge.get(\"token\")}\n",
    "description: |\n  a password reset page\n  for users\n",
    "docker pull python:3.11@sha256:" + "ab01" * 16 + "\n",
    "rsync -av bob@host:/data/ host2:/x/\n",
    "git clone git@github.com:org/repo.git\n",
    "see mailto:bob@example.com and user@host:/p\n",
])
def test_ordinary_text_stays(text):
    redactor = Redactor({})
    assert redactor.text(text) == text
    assert _streamed(redactor, text, 3) == text


def test_a_long_list_and_block_streamed_in_small_pieces_read_as_the_whole_text():
    text = ("".join(f"line {i} ok\n" for i in range(30)) + "secrets:\n"
            + "".join(f"  - Pa55w0rd-{i:03d}\n" for i in range(20)) + "private_key: |\n"
            + "".join(f"  KeyLine{i:03d}abc\n" for i in range(20)) + "done\n")
    redactor = Redactor({})
    whole = redactor.text(text)
    assert "Pa55w0rd" not in whole and "KeyLine" not in whole and "line 29 ok" in whole
    for size in (1, 7, 50):
        assert _streamed(redactor, text, size) == whole


# ---- h14: a list of TOKENS (anchored or not) holds keys; a password that starts with "[" -----------------------------

KEY1, KEY2 = "VtMJjqb0SoEItS5JO3sZ", "Qm7vT2xLp9RzW4kN"


@pytest.mark.parametrize("text", [
    "tokens: &t\n  - {a}\n", "tokens: &toks\n  - {a}\n  - {b}\n", "tokens:\n  - {a}\n  - {b}\n",
    "auth:\n  tokens: !!seq\n    - {a}\n", "stop_tokens: [{a}, {b}]\n", "[rank0]: tokens: &t\n[rank0]:   - {a}\n",
    "tokens:\n- 5f4dcc3b5aa765d61d8327deb882cf99{a}\n",
])
def test_key_like_items_of_a_tokens_list_go(text: str) -> None:
    text = text.format(a=KEY1, b=KEY2)
    out = Redactor({}).text(text)
    assert KEY1 not in out and KEY2 not in out, out
    for size in (1, 7, 4096):
        streamed = _streamed(Redactor({}), text, size)
        assert KEY1 not in streamed and KEY2 not in streamed, (size, streamed)


@pytest.mark.parametrize("text", [
    "special_tokens:\n  - <pad>\n  - \"[PAD]\"\n  - Hello\n", "tokens:\n  - 128000\n  - 128001\n",
    "stop_tokens: [\"</s>\", \"<|eot_id|>\"]\n", "tokens:\n  - input\n  - output\n", "added_tokens: &a\n  - <think>\n",
])
def test_a_vocabulary_tokens_list_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text", ["password: [x!9Kq2]abc\n", "api_key: [x]9Kq2Lm\n", "DB_PASSWORD=[x]!9Kq2\n"])
def test_a_password_starting_with_a_bracket_is_no_flow_list(text: str) -> None:
    out = Redactor({}).text(text)
    value = text.split(":", 1)[1].strip() if ":" in text else text.split("=", 1)[1].strip()
    assert value not in out and value[-4:] not in out, out


def test_flow_lists_still_read_item_by_item() -> None:
    assert Redactor({}).text("secrets: [Zq8vN2mK5pL9xR4t, true]  # two\n") == "secrets: [[REDACTED], true]  # two\n"


def test_a_prefixed_list_cut_by_a_stream_hides_every_item() -> None:
    """A list behind a log prefix on each line (`[rank0]: secrets:` then `[rank0]:   - X` lines), the stream cutting at
    every line: the opener's line waits for its items as the unprefixed one does (the second item leaked before)."""
    for opener in ("secrets:", "secrets: &t", "tokens:", "api_keys: !!seq"):
        text = f"[rank0]: {opener}\n[rank0]:   - {KEY1}\n[rank0]:   - {KEY2}\n[rank0]: step 1 loss 2.5\n"
        stream = StreamRedactor(Redactor({}), piece=1)
        streamed = "".join(stream.feed(line) for line in text.splitlines(True)) + stream.close()
        assert KEY1 not in streamed and KEY2 not in streamed, streamed
        assert streamed == Redactor({}).text(text)
