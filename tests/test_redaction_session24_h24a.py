"""Leaks still open after session 23 (helper h24a, issue 11: no planted secret in any bundle). Each value is unknown to
the Redactor (`Redactor({})`) unless said; each form is hidden bare, behind a log prefix (`[rank0]: `, an ISO time,
compose's `api-1  | `) and in a JSON record per line, whole and through a StreamRedactor cut at every place
(stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. A listing (`NAME  TOKEN`), vault's `Key  Value` table and a Kubernetes env item (`- name: HF_TOKEN` / `value: X`)
   inside JSON records: line_views opens a view on a listing's header words (`  token`, `token  `, `  key`, `  value`)
   and on `- name:`.
2. A cloud CLI's access token printed bare on the next line (`gcloud auth print-access-token`, `print-identity-token`,
   `az account get-access-token ... -o tsv`) and botocore's `Signature:` then the hex (store_prints).
3. Perl's `$ENV{PGPASSWORD}='X'` (calls.PERL_ENV_SET), printed and on the workload's argv.
4. A short or password-shaped value under a column named only TOKEN (tables._password_in_token_column); `?jwt=X`
   with X no JWT (urls.QUERY_JWT).
5. A known value cut by a line wrap whose piece of 3 to 11 characters opens the next JSON record's message
   (known_secrets._rest_on_next_line, and head_over_lines holds the record in a stream).
6. An askpass script as `cat` prints it: a shell's shebang, then `echo X` (commands._askpass_echo_spans; a stream holds
   the shebang line: commands.askpass_hold).
"""

from __future__ import annotations

import pytest

from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
WRAPS = [*PREFIXES, "json"]
TK = "Qx7vR2mZ9pLk4TnW"
PW = "Winter2024!blue"
SHORT = "Tq7mZ2x9"
HEX64 = "5d2e0b7d1f9f4c3a8e6b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e"


def wrapped(text: str, wrap: str) -> str:
    return json_records(text) if wrap == "json" else prefixed(text, wrap)


FORMS = {
    "listing NAME TOKEN": (f"NAME     TOKEN\nalice    {TK}\n", TK),
    "kubeadm token list": ("TOKEN                     TTL         EXPIRES                USAGES                   "
                           "DESCRIPTION\nabcdef.0123456789abcdef   23h         2026-11-25T22:00:00Z   "
                           "authentication,signing   The default bootstrap token\n", "abcdef.0123456789abcdef"),
    "listing user key": (f"user     key\nbob      {TK}\n", TK),
    "vault Key Value": (f"====== Data ======\nKey         Value\n---         -----\napi_key     {TK}\nusername    bob\n",
                        TK),
    "vault token hvs short": (f"Key                  Value\n---                  -----\ntoken                hvs.{SHORT}\n"
                              "token_accessor       abc\n", f"hvs.{SHORT}"),
    "k8s env item": (f"        env:\n        - name: HF_TOKEN\n          value: {TK}\n", TK),
    "k8s env item short": (f"        env:\n        - name: HF_TOKEN\n          value: {SHORT}\n", SHORT),
    "gcloud print-access-token": (f"+ gcloud auth print-access-token\n{TK}\n", TK),
    "gcloud application-default": (f"$ gcloud auth application-default print-access-token\n{TK}\n", TK),
    "gcloud print-identity-token": (f"$ gcloud auth print-identity-token --audiences=https://x.run.app\n{TK}\n", TK),
    "az get-access-token tsv": (f"$ az account get-access-token --query accessToken -o tsv\n{TK}\n", TK),
    "botocore Signature": (f"DEBUG:botocore.auth:Signature:\n{HEX64}\n", HEX64),
    "botocore Signature logging format": (f"2026-11-25 04:00:00,123 botocore.auth [DEBUG] Signature:\n{HEX64}\n", HEX64),
    "perl ENV one-liner": (f"+ perl -e \"$ENV{{PGPASSWORD}}='{PW}'; system('psql -h db')\"\n", PW),
    "perl ENV quoted name": (f"$ENV{{'HF_TOKEN'}} = \"{TK}\";\n", TK),
    "listing TOKEN short": (f"NAME     TOKEN\nalice    {SHORT}\n", SHORT),
    "listing TOKEN password": (f"NAME     TOKEN\nalice    {PW}\n", PW),
    "jwt query": (f"GET /ws?jwt={TK} HTTP/1.1\n", TK),
    "jwt query short": (f"wss://dash.example/socket?room=1&jwt={SHORT}\n", SHORT),
    "askpass echo": (f"#!/bin/sh\necho {TK}\n", TK),
    "askpass echo quoted": (f"+ cat /tmp/askpass.sh\n#!/usr/bin/env bash\necho '{PW}'\n", PW),
    "askpass printf": (f"#!/bin/sh\nprintf '%s\\n' {PW}\n", PW),
    "askpass exec echo": (f"#!/bin/bash\nexec echo \"{SHORT}\"\n", SHORT),
    "ipython echo": (f"In [3]: token\nOut[3]: '{TK}'\n", TK),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("kind", sorted(FORMS))
def test_a_secret_in_a_form_left_open(kind, wrap):
    text, secret = FORMS[kind]
    hidden_everywhere(wrapped(text, wrap), secret)


KEPT = [
    "key            value\nlr             0.001\nmodel          llama-3-8b\nbatch_size     32\n",
    "NAME      TOKEN\nbos       <s>\neos       </s>\npad       <pad>\n",
    "id      token\n128000  <|begin_of_text|>\n271     Hello\n",
    "step   tokens/s   loss\n10     31245.2    2.31\n",
    "Key                 Value\n---                 -----\ncreated_time        2026-11-24T03:00:01Z\nversion             3\n",
    "        env:\n        - name: MODEL\n          value: llama-3-8b\n",
    "$ gcloud auth print-access-token > /tmp/token\nsaved\n",
    "$ gcloud auth print-access-token --help\nNAME\n",
    "$ az account get-access-token\n{\n  \"expiresOn\": \"2026-11-25 05:00:00\"\n}\n",
    "perl -e '$ENV{PATH}=\"/usr/bin\"; exec @ARGV' ls\n",
    "$ENV{DB_PASSWORD} = $ARGV[0];\n",
    "NAME      TOKEN\nbos       <s>\neos       </s>\nnl        <0x0A>\nw         world2\nsp        \u2581Hello\n",
    "id      token\n1       [unused12]\n2       ##ing2\n3       Hello\n",
    "GET /ws?jwt=true HTTP/1.1\n",
    "#!/bin/bash\necho hello\nset -e\n",
    "#!/bin/sh\necho v1.2.3\n",
    "#!/bin/bash\necho node01\n",
    "#!/bin/sh\necho \"$GIT_TOKEN\"\n",
    "#!/bin/sh\necho Starting training\n",
    "#!/usr/bin/env python\nprint(1)\n",
    "In [3]: layout[0]\nOut[3]: 'Qx7vR2mZ9pLk4TnW'\n",
    "https://x.example/login?jwt=1&next=/home\n",
    "2026-11-25 04:00:00,123 botocore.auth [DEBUG] Signature:\nbotocore.endpoint [DEBUG] Sending http request\n",
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", KEPT)
def test_what_is_no_secret_stays(text, wrap):
    kept_everywhere(wrapped(text, wrap))


def test_perl_env_on_the_workloads_argv():
    from aiperf_lab.triage.redact import Redactor
    argv = ["perl", "-e", f"$ENV{{PGPASSWORD}}='{PW}'; exec @ARGV", "psql"]
    assert PW not in " ".join(Redactor({}).argv(argv))
    argv = ["bash", "-c", f"perl -e \"$ENV{{HF_TOKEN}}='{TK}'\" && python train.py"]
    assert TK not in " ".join(Redactor({}).argv(argv))


KNOWN = "sk-proj-Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJ"


@pytest.mark.parametrize("message_key", ["message", "msg", "log"])
@pytest.mark.parametrize("cut", [3, 5, 8, 11])
@pytest.mark.parametrize("after", ["", " ok"])
def test_a_known_value_wrapped_over_two_json_records(cut, after, message_key):
    from aiperf_lab.triage.redact import Redactor
    head, tail = KNOWN[:-cut], KNOWN[-cut:]
    text = json_records(f"using key {head}\n{tail}{after}\n")
    if message_key != "message":
        text = text.replace('"message"', f'"{message_key}"')
    whole = hidden_everywhere(text, tail, lambda: Redactor({"OPENAI_API_KEY": KNOWN}))
    assert whole.count("[REDACTED]") == 2 and "using key" in whole


def test_a_known_value_wrapped_over_docker_json_file_records():
    from aiperf_lab.triage.redact import Redactor
    head, tail = KNOWN[:-6], KNOWN[-6:]
    text = (f'{{"log":"using key {head}\\n","stream":"stdout","time":"2026-11-25T04:00:00.1Z"}}\n'
            f'{{"log":"{tail} ok\\n","stream":"stdout","time":"2026-11-25T04:00:00.2Z"}}\n')
    hidden_everywhere(text, tail, lambda: Redactor({"OPENAI_API_KEY": KNOWN}))


@pytest.mark.parametrize("text", [
    json_records(f"using key {KNOWN[:-5]}\nnothing here\n"),
    json_records("step 1 loss 2.31 sk\nsk-proj is the prefix\n"),
])
def test_json_records_without_a_wrapped_rest_stay(text):
    from aiperf_lab.triage.redact import Redactor
    r = lambda: Redactor({"OPENAI_API_KEY": KNOWN})   # noqa: E731
    whole = r().text(text)
    assert "nothing here" in whole or whole == text
    from stream_feed import same_in_stream
    same_in_stream(r, text, whole)


def _records(lines: list[str], key: str = "message", first: bool = False) -> str:
    import json
    return "".join(json.dumps({key: line, "level": "info"} if first else {"level": "info", key: line}) + "\n"
                   for line in lines)


SHORT_KNOWN = "Winter2024!blue"
MANY = {f"APP{k}_PASSWORD": f"Zq{k:02d}x{k * 7919 % 100000:05d}Lm!" for k in range(30)}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("form", ["message first", "head short", "three records", "short value", "short value, many"])
def test_a_known_value_over_json_records_behind_a_prefix(form, prefix):
    from aiperf_lab.triage.redact import Redactor
    environ = {"OPENAI_API_KEY": KNOWN}
    if form == "message first":
        lines, secret = [f"using key {KNOWN[:-6]}", f"{KNOWN[-6:]} ok"], KNOWN[-6:]
        text = _records(lines, "msg", first=True)
    elif form == "head short":
        lines, secret = [f"using key {KNOWN[:6]}", f"{KNOWN[6:]} ok"], KNOWN[:6]
        text = _records(lines)
    elif form == "three records":
        lines, secret = [f"k {KNOWN[:12]}", KNOWN[12:24], f"{KNOWN[24:]} ok"], KNOWN[24:]
        text = _records(lines)
    else:
        environ = {"DB_PASSWORD": SHORT_KNOWN, **(MANY if form.endswith("many") else {})}
        lines, secret = [f"pw {SHORT_KNOWN[:8]}", f"{SHORT_KNOWN[8:]} ok"], SHORT_KNOWN[8:]
        text = _records(lines)
    whole = hidden_everywhere(prefixed(text, prefix), secret, lambda: Redactor(environ))
    assert " ok" in whole


def test_a_short_known_value_in_one_record_and_others_stay():
    from aiperf_lab.triage.redact import Redactor
    text = _records(["pw Winter20", "step 1 loss 2.31"])
    assert Redactor({"DB_PASSWORD": SHORT_KNOWN}).text(text) == text
