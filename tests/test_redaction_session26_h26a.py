"""Leaks and over-redactions left open by session 25 (helper h26a, issue 11: no planted secret in any bundle, nothing
that is no secret hidden). Each value is unknown to the Redactor (`Redactor({})`); each form is hidden bare, behind a
log prefix (`[rank0]: `, an ISO time, compose's `api-1  | `) and in a JSON record per line, whole and through a
StreamRedactor cut at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte
(kept_everywhere).

1. A shell parameter expansion's default under a secret's name (`DB_PASSWORD=${DB_PASSWORD:-hunter22x}`, `${X-d}`,
   `${X:=d}`; compose files, scripts, `bash -x`): token_spans.shell_default_spans. `${DB_PASSWORD}`, `${X:?msg}`,
   `${HOME:-/root}`, `${X:-$Y}` stay.
2. LiteLLM's `api_key: os.environ/X` and `master_key: os.environ/X` (names.names_an_environ_path, read by assignments'
   harmless values) stay.
3. Keys by a fixed prefix: Vercel's `vcp_`/`vci_`/`vca_`/`vcr_`/`vck_`, Modal's `ak-`/`as-` (tokens.PROVIDER_TOKENS);
   ordinary words, paths, SHAs and UUIDs stay.
4. Signers' logger lines (`DEBUG:app.auth:Signature:`, any logger: store_prints) hide the next line's signature.
5. A `:?` expansion's message stays (`+ export X=${X:?set X}`, `X="${X:?set X}"`: printed_commands, layouts).
6. Shapeless keys where a name or a client call says what they are (`cohere.Client("X")`: token_spans).
7. A multi-line env value's later lines (printed_rows.env_continuation_spans, env_continuation_hold).
8. A bar table's `| token |` column behind any prefix (line_views' gate word, printed_rows.prefixed_table_hold).
9. Guards hidden at e19ce8c too: ngrok's authtoken where named, three levels of JSON nesting.
"""

from __future__ import annotations

import json

import pytest

from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

from aiperf_lab.triage.redact import Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
WRAPS = [*PREFIXES, "json"]
PW = "Winter2024!blue"


def wrapped(text: str, wrap: str) -> str:
    return json_records(text) if wrap == "json" else prefixed(text, wrap)


DEFAULTS = {
    "env :-": ("DB_PASSWORD=${DB_PASSWORD:-hunter22x}\n", "hunter22x"),
    "env :- quoted": ('DB_PASSWORD="${DB_PASSWORD:-hunter22x}"\n', "hunter22x"),
    "env -": ("DB_PASSWORD=${DB_PASSWORD-hunter22x}\n", "hunter22x"),
    "env :=": ("DB_PASSWORD=${DB_PASSWORD:=hunter22x}\n", "hunter22x"),
    "env =": (": ${DB_PASSWORD=hunter22x}\n", "hunter22x"),
    "compose mapping": ("    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-hunter22x}\n", "hunter22x"),
    "compose list": ("    environment:\n      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-hunter22x}\n", "hunter22x"),
    "another name": ("PGPASSWORD=${DB_PASSWORD:-hunter22x}\n", "hunter22x"),
    "bash -x": ("+ export API_TOKEN=${API_TOKEN:-hunter22x}\n+ python train.py\n", "hunter22x"),
    "in a URL": ("DATABASE_URL=postgres://app:${DB_PASSWORD:-hunter22x}@db/app\n", "hunter22x"),
    "echo": ('echo "${DB_PASSWORD:-hunter22x}"\n', "hunter22x"),
    "a word default": ("DB_PASSWORD=${DB_PASSWORD:-postgres}\n", "postgres"),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", DEFAULTS)
def test_a_shell_default_under_a_secret_name_goes(form, wrap):
    text, secret = DEFAULTS[form]
    hidden_everywhere(wrapped(text, wrap), secret)


DEFAULTS_KEPT = {
    "reference": "DB_PASSWORD=${DB_PASSWORD}\n",
    "message": "DB_PASSWORD=${DB_PASSWORD:?set it}\n",
    "home": "HOME_DIR=${HOME:-/root}\n",
    "empty": "DB_PASSWORD=${DB_PASSWORD:-}\n",
    "a reference default": "DB_PASSWORD=${DB_PASSWORD:-$PGPASSWORD}\n",
    "a braced reference default": "DB_PASSWORD=${DB_PASSWORD:-${PGPASSWORD}}\n",
    "a number": "TOKEN_TTL=${TOKEN_TTL:-3600}\n",
    "a setting": "USE_HF_TOKEN=${USE_HF_TOKEN:-false}\n",
    "not secret names": "PORT=${PORT:-8080} MODEL=${MODEL_NAME:-llama-3-8b} ${RUN_ID:-abc123def456}\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", DEFAULTS_KEPT)
def test_what_is_no_default_secret_stays(form, wrap):
    kept_everywhere(wrapped(DEFAULTS_KEPT[form], wrap))


ENVIRON_PATHS = {
    "master_key": "general_settings:\n  master_key: os.environ/LITELLM_MASTER_KEY\n",
    "api_key": "model_list:\n  - model_name: gpt-4o\n    litellm_params:\n      api_key: os.environ/AZURE_API_KEY\n",
    "quoted": '      api_key: "os.environ/AZURE_API_KEY"\n',
    "json": '{"api_key": "os.environ/OPENAI_API_KEY"}\n',
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", ENVIRON_PATHS)
def test_litellms_environ_reference_stays(form, wrap):
    kept_everywhere(wrapped(ENVIRON_PATHS[form], wrap))


@pytest.mark.parametrize("value", ["os.environ/X/../Zq8Wm3Kx7Lp2", "os.environ", "Zq8Wm3Kx7Lp2os.environ/X"])
def test_a_value_that_is_no_environ_reference_still_goes(value):
    hidden_everywhere(f"master_key: {value}\n", value)


MODAL_ID, MODAL_SECRET = "ak-2fPXyE2kShNW8RBPaLamY7", "as-FKBZ1MK1id05l6BaBNiN6x"
VERCEL = "Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdeF"
SHAPES = {
    "modal id in a sentence": (f"created token id {MODAL_ID} for workspace\n", MODAL_ID),
    "modal secret in a sentence": (f"token secret {MODAL_SECRET} (keep it)\n", MODAL_SECRET),
    "modal token set": (f"modal token set --token-id {MODAL_ID} --token-secret {MODAL_SECRET}\n", MODAL_SECRET),
    **{f"vercel vc{k}_": (f"deploying with vc{k}_{VERCEL} now\n", f"vc{k}_{VERCEL}") for k in "pciark"},
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", SHAPES)
def test_a_prefixed_key_goes_bare(form, wrap):
    text, secret = SHAPES[form]
    hidden_everywhere(wrapped(text, wrap), secret)


SHAPES_KEPT = {
    "words": "ak-47 as-is as-of-today vck_ prefix\n",
    "one case": "as-abcdefghijklmnopqrstuv as-ABCDEFGHIJKLMNOPQRSTUV\n",
    "hex after as-": "pod trainer-as-7f9c2b1d4e6a8c0b2d4f6a1b2 ready\n",
    "a sha": "commit 0123456789abcdef0123456789abcdef01234567\n",
    "a uuid": "run id 123e4567-e89b-12d3-a456-426614174000\n",
    "inside a word": "break-Zq8Wm3Kx7Lp2Rv9TaBcDe1 task-Zq8Wm3Kx7Lp2Rv9TaBcDe1\n",
    "a path": "/opt/vcp_tools/bin/vck_config_reader_for_the_cluster_machines_here\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", SHAPES_KEPT)
def test_what_only_looks_prefixed_stays(form, wrap):
    kept_everywhere(wrapped(SHAPES_KEPT[form], wrap))


SIGNATURE = "3f2a9c0e1b7d4a6f8e2c5b9a0d3f6e1c4b7a9d2e5f8c1b4a7d0e3f6c9b2a5d8e"
SIGNERS = {
    "app.auth": f"DEBUG:app.auth:Signature:\n{SIGNATURE}\n",
    "a signer's logger": f"DEBUG:myservice.signer:Signature:\n{SIGNATURE}\n",
    "aiobotocore": f"DEBUG:aiobotocore.auth:Signature:\n{SIGNATURE}\n",
    "bracketed level": f"[DEBUG] signer: Signature:\n{SIGNATURE}\n",
    "INFO": f"INFO:gateway.sigv4:Signature:\n{SIGNATURE}\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", SIGNERS)
def test_a_signers_signature_on_the_next_line_goes(form, wrap):
    whole = hidden_everywhere(wrapped(SIGNERS[form], wrap), SIGNATURE)
    assert "Signature:" in whole


SIGNERS_KEPT = {
    "string to sign": "DEBUG:app.auth:StringToSign:\nAWS4-HMAC-SHA256\n20261125T101010Z\n20261125/us-east-1/s3/aws4_request\n",
    "a sentence after": "DEBUG:app.sig:Signature:\nsee below\n",
    "no level word": "Signature:\nab12cd34ef56ab12cd34ef56ab12cd34\n",
    "gpg": 'gpg: Signature made Tue 25 Nov 2026 10:00:00 UTC\ngpg: Good signature from "Release Key"\n',
    "a level and no logger": "INFO: Signature:\nvalid\n",
    "a sentence's record": "DEBUG:sigstore:checking signature:\nINFO:sigstore:verified ok\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", SIGNERS_KEPT)
def test_what_is_no_signature_stays(form, wrap):
    kept_everywhere(wrapped(SIGNERS_KEPT[form], wrap))


MESSAGES_KEPT = {
    "bash -x export": "+ export WANDB_API_KEY=${WANDB_API_KEY:?set WANDB_API_KEY}\n+ python train.py\n",
    "bash -x no colon": "+ export HF_TOKEN=${HF_TOKEN?HF_TOKEN is unset}\n",
    "double quoted": 'WANDB_API_KEY="${WANDB_API_KEY:?set WANDB_API_KEY}"\n',
    "single quoted": "export HF_TOKEN='${HF_TOKEN:?set HF_TOKEN first}'\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", MESSAGES_KEPT)
def test_an_expansions_message_stays(form, wrap):
    kept_everywhere(wrapped(MESSAGES_KEPT[form], wrap))


MESSAGES_NOT = {
    "a value after the message": ('WANDB_API_KEY="${WANDB_API_KEY:?set}Zq8Wm3Kx7Lp2"\n', "Zq8Wm3Kx7Lp2"),
    "bash -x a value": ("+ export WANDB_API_KEY=Zq8Wm3Kx7Lp2Rv9Ta\n", "Zq8Wm3Kx7Lp2Rv9Ta"),
    "bash -x a default": ("+ export WANDB_API_KEY=${WANDB_API_KEY:-Zq8Wm3Kx7Lp2}\n", "Zq8Wm3Kx7Lp2"),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", MESSAGES_NOT)
def test_a_value_beside_an_expansion_still_goes(form, wrap):
    text, secret = MESSAGES_NOT[form]
    hidden_everywhere(wrapped(text, wrap), secret)


# Shapeless keys (wandb's 40 hex, Mistral's 32 letters and digits, Cohere's 40) cannot be told from a git SHA or a hash
# by shape: each is hidden where a name or a call says what it is.
WANDB = "0123456789abcdef0123456789abcdef01234567"
MISTRAL = "Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJkLmNo1"
COHERE = "Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJkLmNoPqRsTuVw"
NAMED = {
    "WANDB_API_KEY=": (f"WANDB_API_KEY={WANDB}\n", WANDB),
    "wandb login": (f"wandb login {WANDB}\n", WANDB),
    "wandb login --relogin traced": (f"+ wandb login --relogin {WANDB}\n", WANDB),
    "wandb.login(key=)": (f'wandb.login(key="{WANDB}")\n', WANDB),
    "mistral_api_key in JSON": (f'{{"mistral_api_key": "{MISTRAL}"}}\n', MISTRAL),
    "Mistral(api_key=)": (f'client = Mistral(api_key="{MISTRAL}")\n', MISTRAL),
    "cohere.Client": (f'co = cohere.Client("{COHERE}")\n', COHERE),
    "cohere.ClientV2": (f"co = cohere.ClientV2('{COHERE}')\n", COHERE),
    "cohere.AsyncClient": (f'co = cohere.AsyncClient( "{COHERE}")\n', COHERE),
    "cohere.ClientV2(api_key=)": (f'co = cohere.ClientV2(api_key="{COHERE}")\n', COHERE),
    "replicate.Client": (f'rc = replicate.Client("{MISTRAL}")\n', MISTRAL),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", NAMED)
def test_a_shapeless_key_goes_where_named(form, wrap):
    text, secret = NAMED[form]
    hidden_everywhere(wrapped(text, wrap), secret)


CLIENTS_KEPT = {
    "a variable": "co = cohere.Client(api_key)\n",
    "the environment": 'co = cohere.Client(os.environ["CO_API_KEY"])\n',
    "a short word": 'co = cohere.Client("x")\n',
    "a sha": f"commit {WANDB} (HEAD -> main)\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", CLIENTS_KEPT)
def test_what_names_no_key_stays(form, wrap):
    kept_everywhere(wrapped(CLIENTS_KEPT[form], wrap))


MULTILINE = {
    "password": ("HOME=/root\nDB_PASSWORD=firstPart9\nsecondpartXy9z\nPATH=/usr/bin\n", "secondpartXy9z"),
    "token, two more lines": ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCD\nZq8Wm3Kx7Lp2\nQw9Er8Ty7Ui6\nUSER=root\n",
                              "Qw9Er8Ty7Ui6"),
    "first in the listing": ("API_SECRET=a1b2c3\nd4e5f6g7h8\nLANG=C.UTF-8\n", "d4e5f6g7h8"),
    "printenv sorted": ("CUDA_VISIBLE_DEVICES=0,1\nNCCL_DEBUG=INFO\nWANDB_API_KEY=partone\nparttwoZq8Wm3\nWORLD_SIZE=2\n",
                        "parttwoZq8Wm3"),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", MULTILINE)
def test_a_multiline_env_values_later_lines_go(form, wrap):
    text, secret = MULTILINE[form]
    whole = hidden_everywhere(wrapped(text, wrap), secret)
    assert whole.count("[REDACTED]") >= 2


MULTILINE_KEPT = {
    "a rule after": "DB_HOST=db\nDB_PASSWORD_FILE=/run/secrets/db\n----------\nPATH=/usr/bin\n",
    "a comment after": "API_TOKEN_FILE=/run/secrets/t\n# cache\nREDIS_URL=redis://cache:6379/0\n",
    "a sentence after": "HF_TOKEN_PATH=/root/.cache/token\nStarting server on port 8000\nPORT=8000\n",
    "no secret name": "HOME=/root\nMODEL_NAME=llama\nsecond_line_of_it\nPATH=/usr/bin\n",
    "no closing line": "HOME=/root\nMASTER_ADDR=10.0.0.1\nstep1\n",
    "lower-case name": "home=/root\napi_token_ttl=3600\nabc\nx=1\n",
    "a count under a secret word": "PASS=1\nok\nFAIL=0\n",
    "a setting under a secret name": "HOME=/root\nUSE_TOKEN=false\nyes\nUSER=root\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", MULTILINE_KEPT)
def test_what_continues_no_secret_stays(form, wrap):
    kept_everywhere(wrapped(MULTILINE_KEPT[form], wrap))


def test_a_secret_line_without_a_closing_line_keeps_what_follows():
    text = "DB_PASSWORD=firstPart9\nsecondpartXy9z\n"
    whole = hidden_everywhere(text, "firstPart9")
    assert "secondpartXy9z" in whole   # (no `NAME=` line closes it: the next line may be anything)


BAR_TABLES = {
    "user and token": ("| user | token |\n|------|-------|\n| alice | hunter22 |\n", "hunter22"),
    "token first": ("| token | owner |\n|---|---|\n| p4ssw0rd99 | bob |\n", "p4ssw0rd99"),
    "three rows": ("| name | token | ttl |\n|---|---|---|\n| a | hunter22 | 3600 |\n| b | Zq8Wm3Kx7Lp2 | 60 |\n",
                   "Zq8Wm3Kx7Lp2"),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", BAR_TABLES)
def test_a_bar_tables_token_column_goes_behind_any_prefix(form, wrap):
    text, secret = BAR_TABLES[form]
    whole = hidden_everywhere(wrapped(text, wrap), secret)
    assert "token" in whole


BAR_TABLES_KEPT = {
    "tokenizer pieces": "| token | id |\n|---|---|\n| hello | 15339 |\n| world2 | 14957 |\n| <s> | 1 |\n",
    "throughput": "| step | tokens/s |\n|---|---|\n| 100 | 12345.6 |\n",
    "a token count": "| model | token |\n|---|---|\n| llama | 128000 |\n",
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", BAR_TABLES_KEPT)
def test_a_bar_table_of_no_secret_stays(form, wrap):
    kept_everywhere(wrapped(BAR_TABLES_KEPT[form], wrap))


NGROK = "2abcDEFghiJKLmnoPQRstuVWXyz1_3AbCdEfGhIjKlMnOpQrStU"
# (guards, hidden at e19ce8c too) ngrok's authtoken has no fixed prefix: hidden where named; three levels of JSON nesting
GUARDS = {
    "ngrok add-authtoken": (f"+ ngrok config add-authtoken {NGROK}\n", NGROK),
    "ngrok.yml": (f"version: 3\nagent:\n  authtoken: {NGROK}\n", NGROK),
    "NGROK_AUTHTOKEN=": (f"NGROK_AUTHTOKEN={NGROK}\n", NGROK),
    "three levels of JSON": (json.dumps({"log": json.dumps({"msg": json.dumps({"password": "Xq7hunter22"})})}) + "\n",
                             "Xq7hunter22"),
    "three levels, a record around": (json.dumps({"log": json.dumps({"msg": json.dumps({"level": "x", "api_key": PW})}),
                                                  "stream": "stdout"}) + "\n", PW),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("form", GUARDS)
def test_named_and_nested_forms_stay_hidden(form, wrap):
    text, secret = GUARDS[form]
    hidden_everywhere(wrapped(text, wrap), secret)
