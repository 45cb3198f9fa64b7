"""Leaks left open by session 24, and a red team of new shapes (helper h25a, issue 11: no planted secret in any bundle).
Each value is unknown to the Redactor (`Redactor({})`) unless said; each form is hidden bare, behind a log prefix
(`[rank0]: `, an ISO time, compose's `api-1  | `) and in a JSON record per line, whole and through a StreamRedactor cut
at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. One list of a JSON log record's message keys (line_views.MESSAGE_KEYS), read in any case by the view and by the wrap
   rule (known_secrets.JSON_MESSAGE_START through line_views.MESSAGE_KEY_PATTERN): `{"Message": ...}`, `{"MSG": ...}`.
2. `SLURM_JWT=X` with X no JWT, and `openai_key: X` with X not key-shaped: a name ending in JWT, and a service's KEY
   (names.SERVICE_KEY_WORDS), are decided by the name as API_KEY is (assignments.SECRET_ASSIGNMENTS); `sort_key: name`,
   `max_key: 16`, `hf_key: model.norm.weight`, `jwt_audience: X` stay.
3. A JSON record inside a JSON record's message (Docker's json-file of an app that logs JSON, structlog's `event`)
   holding a listing, an askpass script or a known value's wrapped rest: the stream holds such a line as a view of its
   view reads it (line_views.without_log_prefix reads a quoted line's view once more; known_secrets.head_over_lines reads
   the inner record's message: _nested_record_head), so stream and text agree and both hide.
4. Red team: Python's `print(os.environ["HF_TOKEN"])` (`python -c`, a REPL), the value printed bare on the next line, as
   `printenv NAME` is read (store_prints.PRINTED_ENV_NAME, KUBECTL_SECRET_PRINT; the name judged by is_secret_name).
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
@pytest.mark.parametrize("key", ["event", "msg"])
@pytest.mark.parametrize("kind", sorted(NESTED))
def test_a_form_in_a_json_record_inside_a_json_record(kind, key, prefix):
    lines, secret = NESTED[kind]
    hidden_everywhere(prefixed(docker(lines, key), prefix), secret)


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
