"""Issue 11, session 24 (h24b): what is not secret stays. Session 23's open over-redactions, each kept now, text and
stream, bare and behind `[rank0]: `, an ISO time and as a JSON record's message; each with guards beside it (the same
form with a secret in it still goes).

1. Ranks taking turns in runs under a YAML block scalar: `[rank0]: password: |`, its value, then `[rank1]:   step 0
   loss 2.30`: the other rank's line is no line of the block (blocks._prefixed_block_spans leaves it out of the view).
2. A JSON record whose one key is `token` (`{"token": "world2"}`): a tokenizer's piece unless shaped as a credential.
3. A program given to an interpreter inside a shell's script (`bash -c "python -c '...auth=(user, password)'"`): its
   variables are no known values, as for `python -c` given on the command line (h23b).
4. What a Perl scalar reads from the program's arguments (`my $password = shift;`, `<STDIN>`, `$ARGV[0]`): code."""

from __future__ import annotations

import pytest

from stream_feed import json_records, prefixed, same_in_stream

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction.argv_values import argv_secret_values

HP = "Winter2024!blue"
KEY = "Zq8vN2mK5pL9xR4tq7Lm"

WRAPPERS = {
    "bare": lambda text: text,
    "rank0": lambda text: prefixed(text, "[rank0]: "),
    "iso time": lambda text: prefixed(text, "2026-11-25T05:01:02.345Z "),
    "json record": json_records,
}
# (item 1's texts are behind ranks already: behind a pod's prefix instead, kubectl logs --prefix of one pod's torchrun)
RANK_WRAPPERS = {**{name: wrap for name, wrap in WRAPPERS.items() if name != "rank0"},
                 "pod": lambda text: prefixed(text, "[pod/trainer-0/main] ")}


def _kept(text: str, redactor=lambda: Redactor({})) -> None:
    out = redactor().text(text)
    assert out == text, out
    same_in_stream(redactor, text, out)


def _hidden(text: str, secret: str, redactor=lambda: Redactor({})) -> str:
    out = redactor().text(text)
    assert secret not in out, out
    same_in_stream(redactor, text, out)
    return out


# ---- 1. ranks taking turns under a block scalar ------------------------------------------------------------------------
RANKS = {
    "the other rank's lines after the value": (
        f"[rank0]: password: |\n[rank0]:   {HP}\n[rank1]:   step 0 loss 2.30\n[rank1]:   step 1 loss 2.10\n"
        "[rank0]: done\n", ["step 0 loss 2.30", "step 1 loss 2.10"]),
    "the other rank's line between the name and the value": (
        f"[rank0]: private_key: |\n[rank1]:   step 0 loss 2.30\n[rank0]:   {HP}\n[rank0]:   {KEY}\n",
        ["step 0 loss 2.30"]),
    "the ranks' lines taking turns inside the block": (
        f"[rank0]: token: |\n[rank0]:   {KEY}\n[rank1]:   step 0 loss 2.30\n[rank0]:   {HP}\n"
        "[rank1]:   step 1 loss 2.10\n[rank0]: done\n", ["step 0 loss 2.30", "step 1 loss 2.10"]),
}


@pytest.mark.parametrize("wrap", RANK_WRAPPERS.values(), ids=RANK_WRAPPERS.keys())
@pytest.mark.parametrize("text, kept", RANKS.values(), ids=RANKS.keys())
def test_another_ranks_lines_are_no_lines_of_a_block_scalar(text: str, kept: list[str], wrap) -> None:
    out = _hidden(wrap(text), HP if HP in text else KEY)
    assert KEY not in out
    for line in kept:
        assert line in out, (line, out)


@pytest.mark.parametrize("wrap", [WRAPPERS["bare"], json_records], ids=["bare", "json record"])
def test_another_srun_tasks_lines_are_no_lines_of_a_block_scalar(wrap) -> None:
    # (srun --label's `0: `, read as a source at a line's start: line_views.line_source)
    out = _hidden(wrap(f"0: password: >-\n0:   {HP}\n1:   step 0 loss 2.30\n"), HP)
    assert "step 0 loss 2.30" in out


RANK_GUARDS = {   # (text, the secrets that must go)
    "the value after the other rank's line": (
        f"[rank0]: password: |\n[rank1]: step 0 loss 2.30\n[rank0]:   {HP}\n", [HP]),
    "each rank's block": (f"[rank0]: password: |\n[rank0]:   {HP}\n[rank1]: token: |\n[rank1]:   {KEY}\n", [HP, KEY]),
    "two openers in turn": (f"[rank0]: password: |\n[rank1]: token: |\n[rank0]:   {HP}\n[rank1]:   {KEY}\n", [HP, KEY]),
    "a rank's block around another's": (
        f"[rank1]: token: |\n[rank0]: step 1\n[rank1]:   {KEY}\n[rank0]: password: |\n[rank1]:   x\n[rank0]:   {HP}\n",
        [HP, KEY]),
    "one rank, digits in its time": (
        f"[rank0] 05:01:01: password: |\n[rank0] 05:01:02:   {HP}\n[rank0] 05:01:03:   {KEY}\n", [HP, KEY]),
    "a key block with the other rank inside": (
        f"[rank0]: private_key: |\n[rank0]:   {KEY}\n[rank1]:   step 0 loss 2.30\n[rank0]:   {HP}\n", [HP, KEY]),
}


@pytest.mark.parametrize("wrap", [*WRAPPERS.values(), RANK_WRAPPERS["pod"]], ids=[*WRAPPERS, "pod"])
@pytest.mark.parametrize("text, secrets", RANK_GUARDS.values(), ids=RANK_GUARDS.keys())
def test_a_ranks_block_still_hides_its_value(text: str, secrets: list[str], wrap) -> None:
    out = _hidden(wrap(text), secrets[0])
    for secret in secrets:
        assert secret not in out, out


# ---- 2. a JSON record whose one key is token -------------------------------------------------------------------------
TOKEN_RECORDS = {
    "a word and a digit": '{"token": "world2"}\n',
    "a word": '{"token": "hello"}\n',
    "a piece with a blank": '{"token": " the"}\n',
    "WordPiece's continuation": '{"token": "##ing"}\n',
    "blanks inside the braces": '{ "token": "world2" }\n',
    "records one a line": '{"token": "world2"}\n{"token": "hello"}\n{"token": "Paris"}\n',
}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
@pytest.mark.parametrize("text", TOKEN_RECORDS.values(), ids=TOKEN_RECORDS.keys())
def test_a_records_one_token_key_holds_a_piece(text: str, wrap) -> None:
    _kept(wrap(text))


TOKEN_GUARDS = {
    "a generated token": f'{{"token": "{KEY}"}}\n',
    "an hf token": '{"token": "hf_abcdefghijklmnopqrstuvwxyz12"}\n',
    "a password's shape, 8 characters": '{"token": "hunter22"}\n',
    "capitals beside digits": '{"token": "Hunter2"}\n',
    "vLLM's example key": '{"token": "token-abc123"}\n',
    "kubeadm's token": '{"token": "abcdef.0123456789abcdef"}\n',
    "a JWT": '{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlX2hlcmU"}\n',
    "a word, another key beside it": '{"token": "world2", "user": "bob"}\n',
    "a word, nested": '{"auth": {"token": "world2"}}\n',
    "a word after another key": '{"user": "bob", "token": "world2"}\n',
}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
@pytest.mark.parametrize("text", TOKEN_GUARDS.values(), ids=TOKEN_GUARDS.keys())
def test_a_token_record_with_a_credential_still_goes(text: str, wrap) -> None:
    value = text.split('"token": "')[1].split('"')[0]
    _hidden(wrap(text), value)


# ---- 3. a program inside a shell's script ----------------------------------------------------------------------------
PRINTED = "step 0 loss 2.30 (user count 4, token count 7, pw 2)\n"
SCRIPTS = {
    "bash -c, python -c": ["bash", "-c", "python -c 'import requests; r = requests.get(url, auth=(user, password))'"],
    "sh -lc, then more": ["sh", "-lc", "cd /w && python3 -u -c 'auth=(user, pw); print(1)' && echo done"],
    "after a launcher": ["srun", "-N1", "bash", "-c", "python -c \"login(token=token); auth=(user, password)\""],
    "node -e": ["bash", "-c", "node -e 'const token = process.env.TOKEN; console.log(token.length)'"],
}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
@pytest.mark.parametrize("argv", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_a_programs_variables_in_a_shells_script_are_no_known_values(argv: list[str], wrap) -> None:
    values = argv_secret_values(argv)
    assert values == []
    assert Redactor({}, extra_secrets=values).argv(argv) == argv
    _kept(wrap(PRINTED), lambda: Redactor({}, extra_secrets=values))


SCRIPT_SECRETS = {
    "a literal in the program": ["bash", "-c", f"python -c 'conn = connect(password=\"{KEY}\")'"],
    "an assignment before the program": ["bash", "-c", f"DB_PASSWORD={KEY} python -c 'auth=(user, password)'"],
    "a flag after the program": ["bash", "-c", f"python -c 'print(1)' --password {KEY}"],
    "an assignment after the program": ["bash", "-c", f"python -c 'auth=(user, pw)'; export API_TOKEN={KEY}"],
    "a program with escapes": ["bash", "-c", f"python -c \"password=\\\"{KEY}\\\"; auth=(user, password)\""],
    "a script of its own": ["bash", "-c", f"python train.py -c password={KEY}"],
}


@pytest.mark.parametrize("argv", SCRIPT_SECRETS.values(), ids=SCRIPT_SECRETS.keys())
def test_a_shells_script_still_gives_its_secrets(argv: list[str]) -> None:
    values = argv_secret_values(argv)
    assert KEY in values, values
    redactor = Redactor({}, extra_secrets=values)
    assert KEY not in " ".join(redactor.argv(argv))
    for wrap in WRAPPERS.values():
        _hidden(wrap(f"echo {KEY} done\n"), KEY, lambda: Redactor({}, extra_secrets=values))


def test_the_scripts_own_literal_still_goes_from_the_command_line() -> None:
    argv = ["bash", "-c", "python -c 'user=1; password=\"p\"; auth=(user, password); print(auth)'"]
    assert Redactor({}).argv(argv) == [
        "bash", "-c", "python -c 'user=1; password=\"[REDACTED]\"; auth=(user, password); print(auth)'"]


# ---- 4. what a Perl scalar reads from the program's arguments ---------------------------------------------------------
PERL = {
    "perl -e's shift": "perl -e 'my $password = shift;'\n",
    "shift in a script": "my $password = shift;\nmy $token = shift || die \"usage\";\n",
    "pop": "my $pass = pop;\n",
    "<STDIN>": "chomp(my $password = <STDIN>);\n",
    "$ARGV[0]": "my $password = $ARGV[0];\n",
    "$_[1] in a sub": "sub login { my $password = $_[1]; }\n",
}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
@pytest.mark.parametrize("text", PERL.values(), ids=PERL.keys())
def test_what_a_perl_scalar_reads_stays(text: str, wrap) -> None:
    _kept(wrap(text))


PERL_GUARDS = {
    "a literal": (f"my $password = '{KEY}';\n", KEY),
    "a bare word": (f"$password = {KEY};\n", KEY),
    "shift without a sigil": ("password = shift\n", "shift"),
    "a word that starts as shift": ("my $password = shiftyWord9;\n", "shiftyWord9"),
    "a password then shift": (f"my $password = {KEY} shift;\n", KEY),
}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
@pytest.mark.parametrize("text, secret", PERL_GUARDS.values(), ids=PERL_GUARDS.keys())
def test_a_perl_scalars_value_still_goes(text: str, secret: str, wrap) -> None:
    _hidden(wrap(text), secret)


# ---- found by the probe (h/probe.py): a piece's word at a JSON string's start ------------------------------------------
def test_a_decoded_token_at_a_json_strings_start_stays() -> None:
    _kept('{"level": "info", "message": "decoded token: hello"}\n')
    _kept('{"message": "\\"decoded token: hello\\""}\n')


def test_a_decoded_generated_token_at_a_json_strings_start_still_goes() -> None:
    _hidden(f'{{"level": "info", "message": "decoded token: {KEY}"}}\n', KEY)
    _hidden('{"level": "info", "message": "my token: hello3x9"}\n', "hello3x9")
