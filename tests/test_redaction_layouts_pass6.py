"""Sixth red-team pass (issue 11): secret-named values printed in colour (ANSI SGR/CSI codes between the name, the
separator and the value: rich, structlog, colorlog), values `bash -x` quotes in the command lines it prints, and
name/value layouts the rules missed. Values are random and in no environment variable: only the rule for the
layout can find them; each test has a partner that ordinary text around the layout stays."""

from __future__ import annotations

import json

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

V = "Zq8Wm3Kx7Lp2Rv9T"
E = "\x1b"


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


COLOURED = [
    f"{E}[33mpassword{E}[0m={V}",
    f"password={E}[1m{V}{E}[0m",
    f"{E}[36mpassword{E}[0m: {E}[32m{V}{E}[0m",
    f"{E}[1;33mapi_key{E}[0m={E}[32m'{V}'{E}[0m",
    f"{E}[36mclient_secret{E}[0m={E}[35m{V}{E}[0m",
    f"{E}[1m{{{E}[0m{E}[32m'user'{E}[0m: {E}[32m'alice'{E}[0m, {E}[32m'password'{E}[0m: {E}[32m'{V}'{E}[0m{E}[1m}}{E}[0m",
    f"postgres://app:{E}[31m{V}{E}[0m@db/x",
    f"{E}[1mAuthorization{E}[0m: Bearer {V}",
    f"ghp_{E}[0m16C7e42F292c6912E7710c838347Ae178B4a",
    f"{E}[2;36m[12:00:01]{E}[0m{E}[2;36m \x1b[0mconfig {E}[1m{{{E}[0m{E}[32m'api_key'{E}[0m: {E}[32m'{V}'{E}[0m{E}[1m}}{E}[0m",
]


@pytest.mark.parametrize("text", COLOURED)
def test_coloured_secret_goes_whole_text_and_stream(text: str) -> None:
    out = Redactor({}).text(text)
    secret = "16C7e42F292c6912E7710c838347Ae178B4a" if "ghp_" in text else V
    assert secret not in out and REDACTED in out
    for size in (1, 3, len(text)):
        assert _streamed(text + "\nstep 1 loss 2.0\n", size) == Redactor({}).text(text + "\nstep 1 loss 2.0\n")


def test_colour_codes_around_the_value_stay() -> None:
    out = Redactor({}).text(f"{E}[36mclient_secret{E}[0m={E}[35m{V}{E}[0m done")
    assert out == f"{E}[36mclient_secret{E}[0m={E}[35m{REDACTED}{E}[0m done"


@pytest.mark.parametrize("text", [
    f"{E}[32mINFO{E}[0m step 1200 loss {E}[1m2.3817{E}[0m lr 3.0e-04 tokens/s 51234.7",
    f"{E}[36mtoken_count{E}[0m={E}[35m512{E}[0m max_tokens={E}[35m4096{E}[0m",
    f"{E}[1m{{{E}[0m{E}[32m'password'{E}[0m: {E}[3;92mTrue{E}[0m{E}[1m}}{E}[0m",
])
def test_ordinary_coloured_text_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text", [f"{E}[36mapi_key:{E}[0m\n  {V}\nstep 1\n", f"{E}[36mpassword: |{E}[0m\n  {V}\nok\n"])
def test_coloured_name_ending_a_line_holds_the_stream(text: str) -> None:
    whole = Redactor({}).text(text)
    assert V not in whole
    for size in (1, 2, 5):
        assert _streamed(text, size) == whole


@pytest.mark.parametrize("escape", ["\\x1b", "\\u001b", "\\033", "\\e"])
def test_coloured_text_in_its_escaped_form_goes(escape: str) -> None:
    text = f'print("{escape}[36mclient_secret{escape}[0m={escape}[35m{V}{escape}[0m")'
    out = Redactor({}).text(text)
    assert V not in out and out.endswith(f'{escape}[35m{REDACTED}{escape}[0m")')
    assert Redactor({}).argv(["python3", "-c", text])[2] == out


# Command lines as `bash -x` prints them (a word holding a symbol is single-quoted, a control character $'...'), as a
# script echoes them (double quotes), and tools whose password flags the rules did not know.
PRINTED_COMMANDS = [
    f"+ sshpass -p '{V}!x' ssh h", f'sshpass -p "{V}" ssh h', f"+ mysql '-p{V}!x' db", f"mysql -u root -p'{V}' db",
    f'mysql -u root -p"{V}" db', f"+ redis-cli -a '{V}!x' ping", f"wget --http-password '{V}' https://x",
    f"+ serve.py --api-key '{V}!x'", f"+ serve.py --api-key $'{V}\\n'", f"+ train.py '--hf-token={V}!x'",
    f"unzip -P '{V}' a.zip", f"+ az login --service-principal -u id -p '{V}' --tenant t", f"ldapsearch -x -D cn=admin -w '{V}'",
    f"mongosh -u u -p '{V}'", f"sqlcmd -S db -U sa -P {V}", f"sqlcmd -S db -U sa -P '{V}'", f"ssh-keygen -N '{V}' -f k",
    f"keytool -storepass {V} -list", f"+ keytool -list -keypass '{V}!x'", f"+ vault login '{V}!x'",
    f"echo '{V}' | docker login -u a --password-stdin", f"gh auth login --with-token <<< {V}",
    f"mc alias set s3 https://s3 AKIAIOSFODNN7EXAMPLE '{V}'", f"+ aws configure set aws_secret_access_key '{V}!x'",
    f"+ sshpass -p '{V} with spaces' ssh h",
]


@pytest.mark.parametrize("text", PRINTED_COMMANDS)
def test_printed_command_password_goes(text: str) -> None:
    out = Redactor({}).text(text)
    assert V not in out and "spaces" not in out and REDACTED in out


@pytest.mark.parametrize("text", [
    "+ mysql -u root -p db", "+ sshpass -p \"$SSHPASS\" ssh h", "+ redis-cli -a \"$REDIS_PW\" ping",
    "+ python train.py --api-key \"$API_KEY\" --lr '3e-4'", "+ ssh-keygen -N '' -f k", "+ unzip -P '' a.zip",
    "+ keytool -list -storepass:env STOREPASS", "+ echo 'training done' | tee log.txt", "+ mongosh -u u -p --port 27017",
    "+ gh auth login --with-token < token.txt", "+ mc alias set s3 https://s3 \"$KEY\" \"$SECRET\"",
])
def test_printed_command_without_a_password_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


# name/value layouts: JSON inside JSON (a JSON log whose message is a JSON body), names aligned in columns (pytest
# --showlocals, config dumps), Ruby/PHP/Perl `=>`, `->`
LAYOUTS = ['\\"password\\": \\"{v}\\"', '{{\\"api_key\\":\\"{v}\\", \\"n\\": 1}}', '\\"client_secret\\" = \\"{v}\\"',
           "password    = {v}", "api_key        = '{v}'", "db_password\t= {v}", '"token"     : "{v}"',
           "password => {v}", ":password => '{v}'", '"secret" => "{v}"', "password -> {v}", "apiKey -> `{v}`"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_name_value_layout_goes(layout: str) -> None:
    text = layout.format(v=V)
    out = Redactor({}).text(text)
    assert V not in out and (out == text.replace(V, REDACTED) or "`" in text)


@pytest.mark.parametrize("text", [
    'msg="{\\"password\\": \\"{p}\\"}"'.replace("{p}", V)])
def test_json_in_json_keeps_its_escapes(text: str) -> None:
    assert Redactor({}).text(text) == text.replace(V, REDACTED)


@pytest.mark.parametrize("text", [
    "max_tokens      = 4096", '\\"token_count\\": \\"512\\"', "password    = None", "tokenizer -> gpt2",
    "use_auth_token => True", "password_file   = /etc/app/pw.txt", "token -> 0",
])
def test_layout_without_a_secret_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


S = "Xk9mQ2vL7pR4tW8zN3bH6jF5cY1dG0sE"
HEX = "9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b5c2f9a6d3e0b7c4f1a8d5e2b"


@pytest.mark.parametrize("text, secrets", [
    (f"Cookie: _ga=1; sid={S}", [S]),
    (f"{{'Cookie': '_ga=GA1.2; csrftoken=abc; sessionid={S}'}}", [S]),
    (f'Authorization: Digest username="alice", realm="x", nonce="{S}", uri="/", response="{HEX[:32]}", cnonce="{S[::-1]}"',
     [S, HEX[:32], S[::-1]]),
    (f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={HEX}", [HEX]),
    (f"https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={HEX}", [HEX]),
])
def test_header_and_url_layouts_go(text: str, secrets: list[str]) -> None:
    out = Redactor({}).text(text)
    assert not [s for s in secrets if s in out], out


@pytest.mark.parametrize("text", [
    "cookie: |", "Set-Cookie policy: strict", "WWW-Authenticate: Digest realm=\"x\", qop=\"auth\"",
    "signature=valid", "the response=200 nonce=1",
])
def test_header_and_url_layouts_without_a_secret_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


def _nestings(v: str) -> dict[str, str]:
    j1 = json.dumps(v)
    j2, j3 = json.dumps(j1), json.dumps(json.dumps(j1))
    return {"json3": j3, "json4": json.dumps(j3), "repr_of_json": repr(j1), "repr_of_repr": repr(repr(v)),
            "repr_bytes_json": repr(j1.encode()), "json_of_bytes_repr": json.dumps(repr(v.encode())), "json2": j2,
            "payload": "payload=%r" % json.dumps({"password": v})}


@pytest.mark.parametrize("value", ['Zx9"q\\Wm3Kx7Lp', "Zx9'q\\nWm3Kx7Lp", "Zx9é€q/Wm3Kx7Lp", "Zx9\tq Wm3Kx7Lp!"])
def test_known_secret_with_quotes_or_backslashes_goes_nested(value: str) -> None:
    redactor = Redactor({"DB_PASSWORD": value})
    kept = {name: out for name, form in _nestings(value).items()
            if "Wm3Kx7Lp" in (out := redactor.text(form))}
    assert not kept


@pytest.mark.parametrize("text", [f"api_key:\r  {V}\r", f" 10%|#  |\rpassword={V}\r 20%|##  |", f"password:\x0c{V}",
                                  f"password:\u0085  {V}", f"password:\u2028  {V}", f"password:\u00a0{V}",
                                  f"password\uff1a{V}", f"password: &pw {V}", f"password: !!str {V}"])
def test_separators_a_terminal_shows_as_breaks_or_spaces(text: str) -> None:
    whole = Redactor({}).text(text + "\nok\n")
    assert V not in whole
    for size in (1, 4):
        assert _streamed(text + "\nok\n", size) == whole
