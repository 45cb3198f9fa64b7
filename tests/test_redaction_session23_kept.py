"""Issue 11, session 23 (h23b): what is not secret stays. A bundle that hides `Login incorrect`, a tokenizer's row or the
variable a command passes on misleads the engineer who reads it; every line here was changed on main, and each has a
guard beside it (the same form with a secret in it still goes). Text and stream alike.

1. A password prompt's outcome on the line after it (`Password:` then `Login incorrect`), a failure's reason after the
   secret's name (`Failed to get token: timeout`).
2. A placeholder of words after an Authorization scheme, however long (`Bearer <your-api-key>`).
3. A column named only `token` or `key` in a table of bars or commas: a tokenizer's `| 6 | world2 |` stays; a generated
   value still goes (as in listings aligned by blanks).
4. A URL's query after a password (`?user=bob&password=X&ssl=true`): the next parameter is none of it.
5. Names of where secrets are kept, not secrets: `SECRET_BACKEND=vault`, vault's `token_policies [default]`.
6. A Python block opening on a line that names a password (`if not isinstance(password, str):`): the next line is code.
7. A variable's reference after a password flag (`docker login -p $REGISTRY_PASSWORD`, `curl -u "$USER:$PASSWORD"`), a
   secret's name after gcloud's `--secret=` inside `$( )`.
8. The triage argv rule: a program given to an interpreter (`python -c 'PROGRAM'`) is code: its variables' names
   (`auth=(user, password)`) are no known values; its literals still are."""

from __future__ import annotations

import pytest

from stream_feed import fed_at_cuts, fed_in_reads, same_in_stream

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction.argv_values import argv_secret_values

HP = "Winter2024!blue"
KEY = "Zq8vN2mK5pL9xR4tq7Lm"
PREFIXES = ("", "[rank0]: ", "2026-11-25T01:02:03.456Z ", "api-1  | ", "0: ", "[pod/trainer-0/main] ")


def _stream_gives(text: str, whole: str) -> None:
    for size in (1, 7, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=16) == whole, size
    for cut in [k + 1 for k, c in enumerate(text) if c == "\n"][:-1]:
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=1) == whole, cut


def _prefixed(text: str, prefix: str) -> str:
    return "".join(prefix + line for line in text.splitlines(keepends=True))


KEPT = {
    "a prompt, then Login incorrect": "Password:\nLogin incorrect\n",
    "su's failure": "Password: \nsu: Authentication failure\n",
    "sudo's sorry": "[sudo] password for bob:\nSorry, try again.\n",
    "a failure's reason": "Failed to get token: timeout\n",
    "a failure's reason, two words": "ERROR: Unable to refresh access token: connection refused\n",
    "a failure's reason, capitalized": "could not fetch secret: Forbidden\n",
    "Bearer <your-api-key>": "Authorization: Bearer <your-api-key>\n",
    "Bearer <your-huggingface-access-token>": "curl -H 'Authorization: Bearer <your-huggingface-access-token>' https://x\n",
    "a tokenizer's table": "| id | token |\n|----|-------|\n| 5 | hello |\n| 6 | world2 |\n",
    "a tokenizer's table, token first": "| token | id |\n| hello | 5 |\n| world2 | 6 |\n",
    "a vocabulary CSV": "token,id\nworld2,6\nhello3,7\n",
    "SECRET_BACKEND": "SECRET_BACKEND=vault\n",
    "SECRETS_BACKEND": "export SECRETS_BACKEND=aws\n",
    "vault's token_policies": "Key                  Value\n---                  -----\ntoken_duration       768h\ntoken_policies       [default]\n",
    "isinstance then warn": "    if not isinstance(password, str):\n        warnings.warn(\n",
    "isinstance then raise": "    if not isinstance(password, basestring):\n        raise TypeError(\n",
    "docker login -p $VAR": "docker login -u $REGISTRY_USER -p $REGISTRY_PASSWORD registry.example.com\n",
    "docker login -p \"${VAR}\"": "docker login -p \"${REGISTRY_PASSWORD}\" registry.example.com\n",
    "curl -u \"$USER:$PASSWORD\"": "curl -u \"$USER:$PASSWORD\" https://example.com\n",
    "curl -u ${USER}:${PASSWORD}": "curl -u ${USER}:${PASSWORD} https://example.com\n",
    "gcloud's --secret= in $( )": "export HF_TOKEN=$(gcloud secrets versions access latest --secret=hf-token)\n",
    # found by the probe (h/probe.py)
    "a store's print taken by a variable": ("export HF_TOKEN=$(gcloud secrets versions access latest --secret=hf-token)\n"
                                            "SECRET_BACKEND=vault\nstepzero\n"),
    "vault -field= taken by a variable": 'HF_TOKEN="$(vault kv get -field=token secret/hf)"\nstepzero\n',
    "Bearer $VAR over 20 characters": 'curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api.openai.com/v1/models\n',
    "Bearer %VAR%": "Authorization: Bearer %OPENAI_API_KEY%\n",
    "Bearer <a placeholder of words>": "Authorization: Bearer <your huggingface access token here>\n",
    "Bearer <paste ...> in curl": "curl -H \"Authorization: Bearer <paste your key>\" https://x\n",
    "a kubelet event": ('Warning  FailedMount  2s  kubelet  MountVolume.SetUp failed for volume "hf-token" : '
                        'secret "hf-token" not found\n'),
    "a logprobs record": '{"id": 6, "token": "world2", "logprob": -0.123}\n',
    "OpenAI's top_logprobs": '"top_logprobs": [{"token": "world2", "logprob": -0.12, "bytes": [119]}]\n',
    "a BPE piece": '{"token": "\u0120world", "id": 995}\n',
    "a SentencePiece piece": "token: \u2581world2\n",
    "secret_sauce": 'secret_sauce = "more layers"\n',
    "a token and its id": "token: 'world2' id: 14957\n",
    "a decoded token": "decoded token: world2\n",
    "hf's code span": "The token has not been saved. Pass `add_to_git_credential=True` in this function directly.\n",
    "a secret's kubelet event, listed": ('2m   Warning   FailedMount   pod/trainer-0   MountVolume.SetUp failed for volume '
                                         '"api-key" : secret "api-key" not found\n'),
}

HIDDEN = {   # text, value that must go
    "a prompt, then a password": ("Password:\nHunter2xyz\n", "Hunter2xyz"),
    "a prompt, then a word": ("password:\nwinterblue\n", "winterblue"),
    "a token after a failure": (f"Failed to get token: {KEY}\n", KEY),
    "a got token": ("Got token: abcdefghijkl\n", "abcdefghijkl"),
    "a validated token": ("Failed to validate token: hunterfoxbat\n", "hunterfoxbat"),
    "Bearer <generated>": (f"Authorization: Bearer <{KEY}>\n", KEY),
    "Bearer <words then generated>": (f"Authorization: Bearer <your-api-key-{KEY}>\n", KEY),
    "Bearer then a credential": (f"Authorization: Bearer {KEY}<x>\n", KEY),
    "a generated token in a table": (f"| user | token |\n|---|---|\n| bob | {KEY} |\n", KEY),
    "kubeadm's token in a table": ("| user | token |\n|---|---|\n| al | abcdef.0123456789abcdef |\n",
                                   "abcdef.0123456789abcdef"),
    "a CSV's key": (f"user,key\nbob,{KEY}\n", KEY),
    "a password column": ("| user | password |\n|---|---|\n| bob | hunter22 |\n", "hunter22"),
    "an api_token column": ("| user | api_token |\n|---|---|\n| bob | hunter22 |\n", "hunter22"),
    "a JDBC URL's password": ("jdbc:mysql://db:3306/app?user=bob&password=Vx8sq2Lm&ssl=true\n", "Vx8sq2Lm"),
    "a query's token": (f"https://x/api?token={KEY}&x=1\n", KEY),
    "SECRET_KEY": (f"SECRET_KEY={KEY}\n", KEY),
    "vault's token": ("Key                  Value\n---                  -----\ntoken                hvs.CAESIJq8vN2mK5\n",
                      "hvs.CAESIJq8vN2mK5"),
    "a sentence's if, then a password": (f"If you lose it, use this password:\n{KEY}\n", KEY),
    "the password is:": (f"if the admin asks, the password is:\n{KEY}\n", KEY),
    "docker login -p X": (f"docker login -p {KEY} registry.example.com\n", KEY),
    "docker login -p $x (a password)": ("docker login -p $ecretPw9xq registry.example.com\n", "$ecretPw9xq"),
    "curl -u user:X": (f"curl -u \"$USER:{KEY}\" https://example.com\n", KEY),
    "a --secret= of another tool": (f"export X=$(mytool fetch --secret={KEY})\n", KEY),
    "a store's print": (f"$ gcloud secrets versions access latest --secret=hf-token\n{KEY}\n", KEY),
    "a store's print in an echo": (f"echo $(gcloud secrets versions access latest --secret=hf-token)\n{KEY}\n", KEY),
    "a store's print after another substitution": (
        f"X=$(date); gcloud secrets versions access latest --secret=hf-token\n{KEY}\n", KEY),
    "Bearer $ then mixed case": (f"Authorization: Bearer ${KEY}xx\n", KEY),
    "Bearer <generated> then words": (f"Authorization: Bearer <{KEY} here>\n", KEY),
    "a token in JSON": (f'{{"token": "{KEY}", "expires": 3600}}\n', KEY),
    "a word in JSON": ('{"token": "world2", "expires_in": 3600}\n', "world2"),   # (h24b: alone in its record, a piece)
    "a secret's kind then a value": (f"password: secret{KEY}\n", KEY),
    "secret_key": (f'secret_key = "{KEY}"\n', KEY),
    "a generated token and its id": (f"token: '{KEY}' id: 14957\n", KEY),
    "a generated next token": (f"next token: {KEY}\n", KEY),
    "a generated token in a logprobs record": (f'{{"token": "{KEY}", "logprob": -0.1}}\n', KEY),
    "a code span of a password": (f"Pass `password={KEY}` here\n", KEY),
}


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_a_text_of_no_secret_stays(text: str) -> None:
    for prefix in PREFIXES:
        lines = _prefixed(text, prefix)
        assert Redactor({}).text(lines) == lines, prefix
    same_in_stream(lambda: Redactor({}), text, text)


@pytest.mark.parametrize("text,value", HIDDEN.values(), ids=HIDDEN.keys())
def test_the_same_forms_with_a_secret_go(text: str, value: str) -> None:
    for prefix in ("", "[rank0]: "):
        lines = _prefixed(text, prefix)
        out = Redactor({}).text(lines)
        assert value not in out, out
        _stream_gives(lines, out)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_query_parameter_after_the_password_stays(prefix: str) -> None:
    text = prefix + "jdbc:postgresql://db:5432/app?user=bob&password=V&ssl=true\n"
    out = Redactor({}).text(text)
    assert out == text.replace("=V&", "=[REDACTED]&")
    same_in_stream(lambda: Redactor({}), text, out)


def test_a_query_parameter_after_the_password_stays_in_a_run_of_urls() -> None:
    # (the bulk path for assignments apart gives the loop's verdict)
    text = "".join(f"jdbc:mysql://db{k}:3306/app?user=bob&password=Vx8sq2Lm{k}&ssl=true\n" for k in range(8))
    out = Redactor({}).text(text)
    assert "Vx8sq2Lm" not in out and out.count("&ssl=true") == 8


# ---- 8. the argv rule: a program given with -c / -e is code -----------------------------------------------------------
PROGRAMS = {
    "requests' auth tuple": ["python", "-c", "import requests; r = requests.get(url, auth=(user, password)); print(r.ok)"],
    "a login of a variable": ["python3", "-c", "from huggingface_hub import login; login(token=token)"],
    "after -u": ["python", "-u", "-c", "auth=(user, pw); print('step 0 loss 2.30')"],
    "node -e": ["node", "-e", "const token = process.env.TOKEN; console.log(token.length)"],
    "a path to the interpreter": ["/usr/bin/python3.11", "-c", "session.auth = (self.user, self.password)"],
}


@pytest.mark.parametrize("argv", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_a_programs_variables_are_no_known_values(argv: list[str]) -> None:
    assert argv_secret_values(argv) == []
    redactor = Redactor({}, extra_secrets=argv_secret_values(argv))
    assert redactor.argv(argv) == argv
    printed = "step 0 loss 2.30 (user count 4, token count 7, pw 2)\n"
    assert redactor.text(printed) == printed


PROGRAM_SECRETS = {
    "a literal in a call": ["python", "-c", f"conn = connect(password='{KEY}')"],
    "a password flag in a list": ["python", "-c", f"import subprocess; subprocess.run(['mysql', '--password', '{KEY}'])"],
    "a password flag in a string": ["python", "-c", f"x = '--password {KEY}'"],
    "an environment variable set": ["python", "-c", f"import os; os.environ['DB_PASSWORD'] = '{KEY}'"],
    "node -e": ["node", "-e", f"const password = '{KEY}'"],
    "after the program": ["python", "-c", "print(1)", f"db.password={KEY}"],
    "a flag after the program": ["python", "-c", "print(1)", "--password", KEY],
    "python -m's -p": ["python", "-m", "mytool", "-p", KEY],
    "python -m's -c": ["python", "-m", "mytool", "-c", f"password={KEY}"],
}


@pytest.mark.parametrize("argv", PROGRAM_SECRETS.values(), ids=PROGRAM_SECRETS.keys())
def test_a_programs_literal_secret_still_goes(argv: list[str]) -> None:
    values = argv_secret_values(argv)
    assert KEY in values
    redactor = Redactor({}, extra_secrets=values)
    assert KEY not in " ".join(redactor.argv(argv))
    assert KEY not in redactor.text(f"echo {KEY} done\n")


def test_a_script_flag_c_is_the_scripts() -> None:
    # (guard: `python train.py -c X`: -c is the script's own flag, its value read as any flag's)
    argv = ["python", "train.py", "-c", f"password={KEY}"]
    assert KEY in argv_secret_values(argv)


def test_failures_reasons_among_assignments_back_to_back_stay() -> None:
    # (the bulk path for assignments apart keeps what the loop keeps)
    text = (f"secret: {KEY}  secret: {KEY} Failed to fetch secret: timeout. Failed to fetch secret: timeout. "
            "Failed to fetch secret: timeout\n" + "Failed to fetch secret: connection refused\n" * 4)
    out = Redactor({}).text(text)
    assert KEY not in out
    assert out.count("secret: timeout") == 3 and out.count("secret: connection refused") == 4
    _stream_gives(text, out)


def test_a_programs_short_literal_after_a_secrets_name_goes_from_the_command_line() -> None:
    # (as on main: a quoted literal after a secret's name in the program; the variables beside it stay)
    argv = ["python3", "-c", "user='u'; password='p'; auth=(user, password); x = dict(token='ab', n=token)"]
    assert Redactor({}).argv(argv) == [
        "python3", "-c", "user='u'; password='[REDACTED]'; auth=(user, password); x = dict(token='[REDACTED]', n=token)"]
