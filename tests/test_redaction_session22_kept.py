"""Issue 11, session 22 (h22b): what is not secret stays. A bundle that hides `step 0 loss 2.30` or the code that passes
a password on misleads the engineer who reads it; every case here was hidden on main, and each has a guard beside it
(the same form with a secret in it still goes). Text and stream alike.

1. Two sources interleaved (pods, ranks, hosts): the value rules' next line is the next line of the name's own source
   (line_views.same_source_line): `[pod/b-0] step 1` after `[pod/a-0] password: |` stays.
2. Code that passes variables: `auth=(user, password)`, `passwd=password` inside a call, `password=pw)`.
3. Headers named with key that hold no secret: `Sec-WebSocket-Key` (a handshake's nonce), in a header tuple too.
4. Found by h/fp_probe.py over GPU engineers' logs: a command substitution that fetches a secret (`$(cat ...)`), a
   variable's reference after an Authorization scheme or in a URL's password, `os.environ[\\"X\\"]` in a JSON string,
   colon-separated ids read as a .pgpass line, a store's and an experiment's key, git's password prompt's login, a
   def's `password=None):`, `password.encode("latin1")`."""

from __future__ import annotations

import json

import pytest

from stream_feed import fed_at_cuts, fed_in_reads, same_in_stream

from aiperf_lab.triage.redact import Redactor

HP = "Winter2024!blue"
KEY = "Zq8vN2mK5pL9xR4tq7Lm"


def _stream_gives(text: str, whole: str) -> None:
    for size in (1, 7, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=16) == whole, size
    for cut in [k + 1 for k, c in enumerate(text) if c == "\n"][:-1]:
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=1) == whole, cut


# ---- 1. interleaved sources ----------------------------------------------------------------------------------------
SOURCES = {
    "three pods": ("[pod/a-0/main] ", "[pod/b-0/main] ", "[pod/c-0/main] "),
    "ranks": ("[rank0]: ", "[rank1]: ", "[rank2]: "),
    "pdsh": ("node1: ", "node2: ", "node3: "),
}
NEXT_LINE_FORMS = {
    "a YAML block scalar": ["config:", "  password: |", f"    {HP}", "  user: bob"],
    "kubectl | base64 -d": ["$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", HP],
    "a value under its name": ["db:", "  password:", f"    {HP}"],
}


@pytest.mark.parametrize("sources", SOURCES.values(), ids=SOURCES.keys())
@pytest.mark.parametrize("form", NEXT_LINE_FORMS, ids=NEXT_LINE_FORMS.keys())
def test_two_other_sources_lines_between_stay(form: str, sources: tuple[str, str, str]) -> None:
    mine, *others = sources
    text = "".join(f"{mine}{line}\n" + "".join(f"{o}step {k} loss 2.3{k}\n" for o in others)
                   for k, line in enumerate(NEXT_LINE_FORMS[form]))
    out = Redactor({}).text(text)
    assert HP not in out
    assert [line for line in out.splitlines() if "step" in line] == [line for line in text.splitlines() if "step" in line]
    _stream_gives(text, out)


def test_a_name_line_of_no_source_still_takes_the_next_line() -> None:
    # (guard: only a line of another source is passed over; a prefixed value under a bare name is still the value)
    text = f"password: |\n[rank1]: {HP}\n"
    assert HP not in Redactor({}).text(text)


# ---- 2, 3, 4: lines that stay, and their guards ----------------------------------------------------------------------
KEPT = {
    "requests' auth tuple": "r = requests.get(url, auth=(user, password))",
    "an auth tuple of attributes": "session.auth = (self.user, self.password)",
    "an auth tuple, no blanks": "kwargs = dict(auth=(username,api_token), timeout=5)",
    "a variable named as a secret in a call": "ftp.login(user=username, passwd=password)",
    "a two-letter variable": "conn = psycopg2.connect(dbname=db, user=user, password=pw)",
    "Sec-WebSocket-Key": "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Key, curl -v": "> sec-websocket-key: x3JJHMbDL1EzLkh9GBhXDw==",
    "Sec-WebSocket-Key in a dict": "{'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Upgrade': 'websocket'}",
    "Sec-WebSocket-Key in a header tuple": '("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")',
    "websocket_key=": "websocket_key=dGhlIHNhbXBsZSBub25jZQ2xyz",
    "$(cat) of a secret file": "export HF_TOKEN=$(cat /run/secrets/hf_token)",
    "$(vault ...)": "export WANDB_API_KEY=$(vault kv get -field=key secret/wandb)",
    "backquoted cat": "export OPENAI_API_KEY=`cat ~/.openai_key`",
    "quoted $(cat)": 'HF_TOKEN="$(cat /run/secrets/hf_token)"',
    "Bearer $VAR": 'curl -H "Authorization: Bearer $HF_TOKEN" https://huggingface.co/api/whoami-v2',
    "Bearer ${VAR}": "Authorization: Bearer ${TOKEN}",
    "Bearer <placeholder>": "Authorization: Bearer <token>",
    "Bearer <your-token>": "-H 'Authorization: Bearer <your-token>'",
    "a URL's password a reference": "git clone https://oauth2:${CI_JOB_TOKEN}@gitlab.com/acme/repo.git",
    "a URL's user a reference": "git clone https://$GH_TOKEN@github.com/acme/repo.git",
    "os.environ in a JSON string": json.dumps({"msg": 'token = os.environ["HF_TOKEN"]'}),
    "os.getenv in a JSON string": json.dumps({"msg": 'api_key = os.getenv("OPENAI_API_KEY")'}),
    "GitHub's request id": "x-github-request-id: 1234:5678:9ABCDEF:1234567:6745A1B2",
    "c10d's store key": "store key: /rdzv/3f2a9c1b/workers",
    "Comet's experiment key": "comet.ml experiment key: 3f2a9c1b7d4e5f60718293a4b5c6d7e8",
    "git's password prompt": "Password for 'https://bob@github.com':",
    "git's password prompt, a dotted login": "Password for 'https://bob.smith2@git.internal':",
    "a def's default None": "    def load_cert_chain(self, certfile, keyfile=None, password=None):",
    "the secret's variable encoded": '    password = password.encode("latin1")',
}
HIDDEN = {   # value that must go
    "an auth tuple of literals": (f"requests.get(url, auth=('bob', '{HP}'))", HP),
    "an auth tuple with a literal password": (f"auth=(user, '{HP}')", HP),
    "an auth tuple of words that name no secret": (f"auth: (admin, {KEY})", "admin"),
    "a literal in a call": (f"f(password={KEY})", KEY),
    "a three-letter value": ("password=abc)", "abc"),
    "a value after a call's (": (f"connect(user=u, password={KEY})", KEY),
    "Authorization": (f"Authorization: Bearer {KEY}", KEY),
    "X-Api-Key": (f"X-Api-Key: {KEY}", KEY),
    "X-Auth-Token": (f"X-Auth-Token: {KEY}", KEY),
    "X-CSRF-Token": (f"X-CSRF-Token: {KEY}", KEY),
    "Cookie": (f"Cookie: session={KEY}", KEY),
    "a secret header's tuple": (f'("x-api-key", "{KEY}")', KEY),
    "a key after `key:`": ("key: dGhlIHNhbXBsZSBub25jZQ2xyz", "dGhlIHNhbXBsZSBub25jZQ2xyz"),
    "$(echo X)": (f'PW="$(echo {KEY})"', KEY),
    "Bearer $ then letters": (f"Authorization: Bearer ${KEY}", KEY),
    "Bearer <generated>": (f"Authorization: Bearer <{KEY}>", KEY),
    "a URL's password": (f"git clone https://oauth2:{KEY}@gitlab.com/acme/repo.git", KEY),
    "a URL's password starting with $": (f"https://bob:$ecretPw9x{KEY}@db.internal/x", KEY),
    "a .pgpass line": (f"db.internal:5432:app:bob:{KEY}", KEY),
    "a .pgpass line behind a name": (f"PGPASS_LINE=db.internal:5432:app:bob:{KEY}", KEY),
    "git's prompt, a token as the user": ("Password for 'https://zq8vn2mk5pl9xr4tq7lm@github.com':", "zq8vn2mk5pl9xr4tq7lm"),
    "git's prompt, letters as the user": ("Password for 'https://qxvrmzplkwtnbhgd@git.internal':", "qxvrmzplkwtnbhgd"),
    "a default in a secrets store's get": (f'password = secrets.get("db", "{HP}")', HP),
    "a value then ):": (f"password: {KEY}):", KEY),
    "os.environ's default": (json.dumps({"msg": f'token = os.environ.get("HF_TOKEN", "{KEY}")'}), KEY),
}


@pytest.mark.parametrize("line", KEPT.values(), ids=KEPT.keys())
def test_a_line_of_no_secret_stays(line: str) -> None:
    for text in (line + "\n", "[rank0]: " + line + "\n", "api-1  | " + line + "\n"):
        assert Redactor({}).text(text) == text
    same_in_stream(lambda: Redactor({}), line + "\n", line + "\n")


@pytest.mark.parametrize("line,value", HIDDEN.values(), ids=HIDDEN.keys())
def test_the_same_forms_with_a_secret_go(line: str, value: str) -> None:
    for text in (line + "\n", "[rank0]: " + line + "\n"):
        out = Redactor({}).text(text)
        assert value not in out, out
        _stream_gives(text, out)


def test_a_run_of_two_letter_variables_stays() -> None:
    # (the bulk path for assignments back to back gives the loop's verdict)
    text = "f(password=pw) " * 6 + "\n" + "password=pw) " * 6 + "\n"
    assert Redactor({}).text(text) == text
