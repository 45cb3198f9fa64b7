"""Leaks left open by session 24, and a red team of new shapes (helper h25a, issue 11: no planted secret in any bundle).
Each value is unknown to the Redactor (`Redactor({})`) unless said; each form is hidden bare, behind a log prefix
(`[rank0]: `, an ISO time, compose's `api-1  | `) and in a JSON record per line, whole and through a StreamRedactor cut
at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. One list of a JSON log record's message keys (line_views.MESSAGE_KEYS), read in any case by the view and by the wrap
   rule (known_secrets.JSON_MESSAGE_START through line_views.MESSAGE_KEY_PATTERN): `{"Message": ...}`, `{"MSG": ...}`.
2. `SLURM_JWT=X` with X no JWT, and `openai_key: X` with X not key-shaped: a name ending in JWT, and a service's KEY
   or a SECRET_PAIRS key (names.SERVICE_KEY_WORDS: openai, wandb, ..., master, encryption, signing, session), are
   decided by the name as API_KEY is (assignments.SECRET_ASSIGNMENTS); `sort_key: name`, `max_key: 16`,
   `hf_key: model.norm.weight`, `jwt_audience: X`, `client_key: /path` stay. Together AI's `tgp_v1_` keys by shape.
3. A known value's wrapped rest in a JSON record inside a JSON record's message (Docker's json-file of an app that logs
   JSON, structlog's `event`): known_secrets.head_over_lines reads the inner record's message (_nested_record_head,
   through line_views.without_log_prefixes), so a stream holds it as the text reads it. (A listing or an askpass script
   there: still open in a stream, NESTED below is kept for the next lane.)
4. Red team: Python's `print(os.environ["HF_TOKEN"])` (`python -c`, a REPL), the value printed bare on the next line, as
   `printenv NAME` is read (store_prints.PRINTED_ENV_NAME, KUBECTL_SECRET_PRINT; the name judged by is_secret_name).
5. Red team: TorchServe's key_file.json (token authorization, on by default: `{"management": {"key": "B-E5KSRM",
   "expiration time": ...}, ..., "API": {"key": ...}}`), on one line or pretty-printed (tokens.SERVE_KEY_FIRST,
   SERVE_KEY_EXPIRY; a stream holds `"management": {`: token_spans.kaggle_json_hold); a protobuf text map entry under a
   secret's name (Triton's config.pbtxt `parameters { key: "hf_token" value: { string_value: "X" } }`, over lines too:
   token_spans.pbtxt_parameter_spans, and pbtxt_parameter_hold in a stream).
"""

from __future__ import annotations

import json

import pytest

from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

from aiperf_lab.triage.redact import Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
WRAPS = [*PREFIXES, "json"]
TK = "Qx7vR2mZ9pLk4TnW"
PW = "Winter2024!blue"
SHORT = "Tq7mZ2x9"
KNOWN = "sk-proj-Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJ"


def wrapped(text: str, wrap: str) -> str:
    return json_records(text) if wrap == "json" else prefixed(text, wrap)


def test_the_message_keys_are_one_list():
    from aiperf_lab.triage.redaction import known_secrets, line_views
    for key in line_views.MESSAGE_KEYS:
        for spelled in (key, key.upper(), key.capitalize()):
            record = '{"level": "info", "%s": "x' % spelled
            assert known_secrets.JSON_MESSAGE_START.match(record) is not None, spelled
    assert known_secrets.JSON_MESSAGE_START.match('{"level": "info", "detail": "x') is None


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("key", ["Message", "MSG", "Log", "textPayload", "EVENT"])
@pytest.mark.parametrize("first", [True, False])
def test_a_known_value_wrapped_over_records_whose_message_key_is_capitalized(key, first, prefix):
    head, tail = KNOWN[:-6], KNOWN[-6:]

    def record(message: str) -> str:
        return json.dumps({key: message, "level": "info"} if first else {"level": "info", key: message}) + "\n"

    text = prefixed(record(f"using key {head}") + record(f"{tail} ok"), prefix)
    whole = hidden_everywhere(text, tail, lambda: Redactor({"OPENAI_API_KEY": KNOWN}))
    assert whole.count("[REDACTED]") == 2 and " ok" in whole


FORMS = {
    "SLURM_JWT token-shaped": (f"SLURM_JWT={TK}\n", TK),
    "SLURM_JWT password-shaped": (f"export SLURM_JWT={PW}\n", PW),
    "SLURM_JWT short": (f"SLURM_JWT={SHORT}\n", SHORT),
    "SLURM_JWT yaml": (f"SLURM_JWT: {TK}\n", TK),
    "slurm_jwt in JSON": (f'{{"slurm_jwt": "{SHORT}"}}\n', SHORT),
    "openai_key 16": (f"openai_key: {TK}\n", TK),
    "openai_key =": (f"openai_key={TK}\n", TK),
    "openai_key lower": ("openai_key: abcdefghijklmnop\n", "abcdefghijklmnop"),
    "anthropic_key quoted": (f"anthropic_key = '{TK}'\n", TK),
    "wandb_key": (f"wandb_key: {TK}\n", TK),
    "OPENAI_KEY env": (f"OPENAI_KEY={SHORT}\n", SHORT),
    "openaiKey camel": (f'{{"openaiKey": "{SHORT}"}}\n', SHORT),
    "cohere-key flag": (f"--cohere-key={PW}\n", PW),
    "LiteLLM master_key": ("general_settings:\n  master_key: sk-1234\n", "sk-1234"),
    "LITELLM_MASTER_KEY": ("LITELLM_MASTER_KEY=sk-1234\n", "sk-1234"),
    "ENCRYPTION_KEY": (f"ENCRYPTION_KEY={SHORT}\n", SHORT),
    "signing_key": (f"signing_key: {PW}\n", PW),
    "session_key": (f"session_key={SHORT}\n", SHORT),
    "AZURE_KEY": (f"AZURE_KEY={SHORT}\n", SHORT),
    "Together key bare": ("using tgp_v1_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abc\n",
                          "tgp_v1_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abc"),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("kind", sorted(FORMS))
def test_a_secret_decided_by_its_name(kind, wrap):
    text, secret = FORMS[kind]
    hidden_everywhere(wrapped(text, wrap), secret)


KEPT_NAMES = [
    "max_key: 16\n", "sort_key: name\n", "primary_key: id\n", "key: value\n", "rng = jax.random.PRNGKey(0)\n",
    "key = jax.random.PRNGKey(42)\n", "jwt_algorithm: HS256\n", "auth_type: jwt\n", "JWT_EXPIRY=3600\n",
    "use_jwt: true\n", "google_key_path: /etc/keys/sa.json\n", "hf_key: model.layers.0.mlp.gate_proj.weight\n",
    "mapping hf_key=lm_head.weight mcore_key=output_layer.weight\n", "openai_key: ${OPENAI_API_KEY}\n",
    "openai_key: None\n", "openai_key = os.environ['OPENAI_API_KEY']\n", "wandb_key: null\n",
    "SLURM_JWT=${SLURM_JWT}\n", "export SLURM_JWT\n", "slurm_jwt: false\n", "JWT_SECRET_KEY_FILE=/run/secrets/jwt\n",
    "  hf_key: str = field(default=None)\n", "openai_key: str\n", "jwt_audience: api.example.com\n",
    "jwt_issuer: https://auth.example.com/\n", "def load(openai_key: str, wandb_key: Optional[str] = None):\n",
    '{"hf_key": "model.norm.weight", "shape": [4096]}\n', "text_key: text\nimage_key: jpg\nfirst_stage_key: image\n",
    "INFO using jwt auth\n", "jwt=1\n",
    "client_key: /etc/certs/client.key\n", "tls:\n  client_key: client.key\n", "session_key: None\n",
    "encryption_key_id: 42\n", "signing_key_path: /k/sign.pem\n", "client_key_file=/x.pem\n", "session key rotated\n",
    "license_key: ${LICENSE}\n", "account_key_name: main\n", "weights/tgp_v1_model.bin\n",
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", KEPT_NAMES)
def test_names_that_say_no_secret_stay(text, wrap):
    kept_everywhere(wrapped(text, wrap))


def docker(lines: list[str], key: str = "event") -> str:
    """Docker's json-file log of an app that logs a JSON record per line."""
    inner = [json.dumps({key: line, "level": "info"}) for line in lines]
    return "".join(json.dumps({"log": record + "\n", "stream": "stdout", "time": "2026-11-25T04:00:00.1Z"}) + "\n"
                   for record in inner)


NESTED = {
    "listing": (["NAME     TOKEN", f"alice    {TK}"], TK),
    "vault table": (["Key         Value", "---         -----", f"api_key     {TK}"], TK),
    "askpass echo": (["#!/bin/sh", f"echo {TK}"], TK),
    "askpass printf": (["#!/bin/sh", f"printf '%s\\n' {PW}"], PW),
    "k8s env item": (["        env:", "        - name: HF_TOKEN", f"          value: {SHORT}"], SHORT),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("key", ["event", "message"])
@pytest.mark.parametrize("cut", [3, 6, 11])
def test_a_known_value_wrapped_over_json_records_inside_json_records(cut, key, prefix):
    head, tail = KNOWN[:-cut], KNOWN[-cut:]
    text = prefixed(docker([f"using key {head}", f"{tail} ok"], key), prefix)
    whole = hidden_everywhere(text, tail, lambda: Redactor({"OPENAI_API_KEY": KNOWN}))
    assert " ok" in whole and "using key" in whole


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("lines", [
    ["NAME     TOKEN", "bos      <s>", "eos      </s>"],
    ["#!/bin/bash", "echo hello", "set -e"],
    ["Key         Value", "---         -----", "version     3"],
    [f"using key {KNOWN[:-5]}", "nothing here"],
    ["step 1 loss 2.31", "step 2 loss 2.29"],
])
def test_json_records_inside_json_records_that_hold_no_secret_stay(lines, prefix):
    text = prefixed(docker(lines), prefix)
    r = lambda: Redactor({"OPENAI_API_KEY": KNOWN})   # noqa: E731
    whole = r().text(text)
    if "nothing here" not in text:
        assert whole == text
    else:
        assert "nothing here" in whole
    from stream_feed import same_in_stream
    same_in_stream(r, text, whole)


PY_PRINTS = [
    "$ python -c \"import os; print(os.environ['HF_TOKEN'])\"\n{v}\n",
    ">>> print(os.getenv(\"OPENAI_API_KEY\"))\n{v}\n>>> exit()\n",
    "+ python3 -c 'import os; print(os.environ.get(\"WANDB_API_KEY\"))'\n{v}\n",
    "$ python -c 'import os;print(os.environ[\"DB_PASSWORD\"])'\n{v}\n",
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("value", [SHORT, PW])
@pytest.mark.parametrize("form", PY_PRINTS)
def test_a_secret_variable_printed_by_python(form, value, wrap):
    hidden_everywhere(wrapped(form.format(v=value), wrap), value)


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", [
    "$ python -c \"import os; print(os.environ['MAX_TOKENS'])\"\n512\n",
    "$ python -c \"import os; print(os.environ['CUDA_HOME'])\"\n/usr/local/cuda\n",
    "$ python -c \"import os; print(os.environ['TOKENIZER_NAME'])\"\ngpt2tok\n",
    "$ python -c \"import os; print(os.environ['HF_TOKEN'])\" > /tmp/t\ndone\n",
    "$ python -c \"import os; print(os.environ['MODEL_NAME'])\"\nllama3\n",
    ">>> print(os.getenv('HF_HOME'))\n/root/.cache/huggingface\n",
    ">>> print(os.environ['HF_TOKEN'] is not None)\nTrue\n",
])
def test_python_prints_that_hold_no_secret_stay(text, wrap):
    kept_everywhere(wrapped(text, wrap))


SERVE_KEYS = ["B-E5KSRM", "gNRuA7dS", "yv9uQajP"]
SERVE_FILE = {"management": {"key": SERVE_KEYS[0], "expiration time": "2026-11-25T21:12:24.801167Z"},
              "inference": {"key": SERVE_KEYS[1], "expiration time": "2026-11-25T21:12:24.801167Z"},
              "API": {"key": SERVE_KEYS[2]}}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("indent", [None, 2, 4])
def test_torchserve_key_file(indent, wrap):
    text = "$ cat key_file.json\n" + json.dumps(SERVE_FILE, indent=indent) + "\n"
    whole = hidden_everywhere(wrapped(text, wrap), SERVE_KEYS[0])
    assert not any(key in whole for key in SERVE_KEYS), whole
    assert "expiration time" in whole


PBTXT = [
    'parameters { key: "hf_token" value: { string_value: "%s" } }\n',
    'parameters {\n  key: "hf_token"\n  value: {\n    string_value: "%s"\n  }\n}\n',
    'parameters: {\n  key: "openai_api_key"\n  value: {\n    string_value: "%s"\n  }\n}\n',
    'parameters {\n  key: "db_password"\n  value: { string_value: "%s" }\n}\n',
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("value", [SHORT, PW])
@pytest.mark.parametrize("form", PBTXT)
def test_a_secret_in_a_protobuf_text_parameter(form, value, wrap):
    hidden_everywhere(wrapped(form % value, wrap), value)


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", [
    'parameters { key: "tokenizer_dir" value: { string_value: "/models/tok" } }\n',
    'parameters {\n  key: "max_tokens_in_paged_kv_cache"\n  value: {\n    string_value: "2560"\n  }\n}\n',
    'parameters { key: "api_key" value: { string_value: "${API_KEY}" } }\n',
    'parameters {\n  key: "batch_scheduler_policy"\n  value: {\n    string_value: "max_utilization"\n  }\n}\n',
    '{"management": {"enabled": true}, "inference": {"workers": 4}}\n',
    '{"api": {"key": "${TS_KEY}"}}\n',
    '"inference": {\n  "key_file": "key_file.json"\n}\n',
])
def test_parameters_and_objects_that_hold_no_secret_stay(text, wrap):
    kept_everywhere(wrapped(text, wrap))
