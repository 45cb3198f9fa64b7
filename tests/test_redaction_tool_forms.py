"""Fourth red-team pass (issue 11): secrets as common tools print them, the name in one place and the value
in another (Kubernetes env lists and Secret data, loguru's diagnose arrows, terraform's sensitive outputs),
shell-quoted with escapes, as httpx header tuples and XML elements; `-a VALUE` on the workload's argv; the
base64 of a whole URL that holds a short password. Each shape has a test that it goes and one that the
ordinary text around it stays. The values are random and in no environment variable: only the rule for
the shape can find them."""

from __future__ import annotations

import base64
import json

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

SECRET = "Zq8DaspUtbuleC5C0HzjwSLo"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _streamed(redactor: Redactor, text: str, size: int) -> str:
    return fed_in_reads(redactor, text, size, piece=1 << 16)


def _gone(text: str, needle: str = SECRET) -> None:
    redactor = Redactor({})
    for out in (redactor.text(text), _streamed(redactor, text, 4096), _streamed(redactor, text, 5)):
        assert needle not in out, out
        assert REDACTED in out, out


def _stays(text: str) -> None:
    assert Redactor({}).text(text) == text


# ---- T1: Kubernetes env lists, the name on the line before the value ------------------------------------

@pytest.mark.parametrize("text", [
    f"    env:\n    - name: DB_PASSWORD\n      value: {SECRET}\n    - name: LOG_LEVEL\n      value: info\n",
    f"    - name: OPENAI_API_KEY\n      value: \"{SECRET}\"\n",
    f"    - name: HF_TOKEN\n      value: '{SECRET}'\n",
    f"  - {{name: DB_PASSWORD, value: {SECRET}}}\n",
    '"env": [\n    {\n        "name": "DB_PASSWORD",\n        "value": "' + SECRET + '"\n    }\n]',
    '{"name": "AWS_SECRET_ACCESS_KEY", "value": "' + SECRET + '"}',
    '{"Name": "DB_PASSWORD", "Value": "' + SECRET + '"}',
    f'<env name="HF_TOKEN" value="{SECRET}"/>',
])
def test_kubernetes_env_list_value_of_a_secret_name_goes(text):
    _gone(text)


def test_kubernetes_env_list_value_goes_whole_past_a_comma():
    _gone(f"    - name: DB_PASSWORD\n      value: {SECRET[:6]},{SECRET[6:]}\n", SECRET[6:])


def test_kubernetes_env_list_of_ordinary_names_stays():
    _stays("    env:\n    - name: NCCL_DEBUG\n      value: INFO\n    - name: MAX_NEW_TOKENS\n      value: \"16384\"\n"
           "    - name: MODEL_NAME\n      value: meta-llama/Llama-3.1-8B\n    - name: TOKENIZERS_PARALLELISM\n"
           "      value: \"false\"\n    - name: DB_PASSWORD\n      valueFrom:\n        secretKeyRef:\n"
           "          name: db\n          key: password\n"
           '{"name": "CUDA_VISIBLE_DEVICES", "value": "0,1"}\n- name: sm90_xmma_gemm_f16f16\n  value: 1234.5\n'
           "metric name=token_count value=512 name=api_key_header value=X-Api-Key\n")


def test_kubernetes_env_list_keeps_the_items_after_the_secret():
    out = Redactor({}).text(f"- name: DB_PASSWORD\n  value: {SECRET}\n- name: LOG_LEVEL\n  value: debug\n")
    assert out == f"- name: DB_PASSWORD\n  value: {REDACTED}\n- name: LOG_LEVEL\n  value: debug\n"


# ---- T3: shell-quoted values with escapes, bash set's $'...' -------------------------------------------

@pytest.mark.parametrize("text, needle", [
    (f'declare -x DB_PASSWORD="{SECRET[:8]}\\$\\"{SECRET[8:]}"', SECRET[8:]),
    (f'declare -x API_TOKEN="{SECRET[:8]}\\\\{SECRET[8:]}"', SECRET[8:]),
    (f"DB_PASSWORD=$'{SECRET[:10]}\\n{SECRET[10:]}'", SECRET[:10]),
    (f"DB_PASSWORD=$'{SECRET[:10]}\\'{SECRET[10:]}'", SECRET[10:]),
    (f"DB_PASSWORD='{SECRET} with spaces'", SECRET),
    (f"export DB_PASSWORD='{SECRET[:6]}'\"'\"'{SECRET[6:]}'", SECRET[6:]),
])
def test_shell_quoted_secret_goes_through_its_escapes(text, needle):
    out = Redactor({}).text(text)
    assert needle not in out and "with spaces" not in out, out
    assert out.count("=") == 1 and REDACTED in out


def test_shell_quoted_ordinary_values_stay():
    _stays('declare -x PS1="\\\\u@\\\\h:\\\\w\\\\$ "\ndeclare -x MODEL="llama \\"8B\\""\nIFS=$\' \\t\\n\'\n'
           "PROMPT_COMMAND='history -a'\ndeclare -x TOKENIZERS_PARALLELISM=\"false\"\nDB_PASSWORD=''\n"
           '<a accesskey="p" href="x.html">Prev</a> get(key="purelib", pin="cpu0")\n')


def test_shell_quoted_secret_keeps_the_rest_of_the_line():
    out = Redactor({}).text(f'declare -x DB_PASSWORD="ab\\"{SECRET}"; declare -x HOME="/root"')
    assert out == f'declare -x DB_PASSWORD="{REDACTED}"; declare -x HOME="/root"'


# ---- T4: loguru diagnose arrows -----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    f"    client.login(user, pw)\n    │      │     │     └ '{SECRET}'\n    │      │     └ 'bob'\n"
    "    │      └ <function login at 0x7f>\n",
    f"    connect(password)\n    │       └ '{SECRET}'\n    └ <function connect>\n",
    f"> File \"app.py\", line 9, in main\n    db.open(self.api_key, timeout=3)\n    │  │    │    └ '{SECRET}'\n"
    "    │  │    └ <App object at 0x7f>\n    │  └ <function open>\n    └ <module 'db'>\n",
])
def test_loguru_arrow_value_of_a_secret_name_goes(text):
    _gone(text)


def test_loguru_arrow_values_of_ordinary_names_stay():
    _stays("    run(model, tokens, max_tokens)\n    │   │      │       └ 512\n    │   │      └ tensor([1, 2, 3])\n"
           "    │   └ 'meta-llama/Llama-3.1-8B'\n    └ <function run at 0x7f>\n"
           "    check(password_length)\n    │     └ 12\n    └ <function check>\n"
           "├── model\n│   └ weights.safetensors\n")


def test_loguru_arrow_keeps_the_other_values():
    text = f"    client.login(user, pw)\n    │      │     │     └ '{SECRET}'\n    │      │     └ 'bob'\n"
    assert Redactor({}).text(text) == text.replace(f"'{SECRET}'", REDACTED)


# ---- T2: Kubernetes Secret data in base64 under any key, kubeconfig *-data ---------------------------

DOCKERCONFIG = json.dumps({"auths": {"nvcr.io": {"auth": b64("bob:" + SECRET)}}})


@pytest.mark.parametrize("text, needle", [
    (f"apiVersion: v1\ndata:\n  db-url: {b64('postgres://u:' + SECRET + '@h/d')}\nkind: Secret\n",
     b64('postgres://u:' + SECRET + '@h/d')[20:40]),
    (f"data:\n  .dockerconfigjson: {b64(DOCKERCONFIG)}\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\n",
     b64(DOCKERCONFIG)[30:50]),
    ('{"data": {"openai": "' + b64(SECRET) + '"}, "kind": "Secret"}', b64(SECRET)[4:24]),
    ('{\n    "apiVersion": "v1",\n    "data": {\n        "openai": "' + b64(SECRET) + '",\n        "user": "Ym9i"\n'
     '    },\n    "kind": "Secret"\n}', b64(SECRET)[4:24]),
    (f"users:\n- name: admin\n  user:\n    client-key-data: {b64('-----BEGIN RSA PRIVATE KEY-----' + SECRET)}\n",
     b64('-----BEGIN RSA PRIVATE KEY-----' + SECRET)[44:70]),
    ('"client-key-data": "' + b64("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE" + SECRET) + '"',
     b64("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE" + SECRET)[44:70]),
    (f"stringData:\n  settings: {SECRET}\n", SECRET),
])
def test_kubernetes_secret_data_goes_whatever_its_key(text, needle):
    _gone(text, needle)


def test_kubernetes_config_data_and_certificates_stay():
    cert = b64("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUZ\n-----END CERTIFICATE-----\n")
    _stays(f"apiVersion: v1\ndata:\n  log_level: info\n  model: Llama3Instruct8B\n  replicas: \"3\"\n"
           f"  config.yaml: |\n    batch: 64\nkind: ConfigMap\n"
           f"clusters:\n- cluster:\n    certificate-authority-data: {cert}\n    server: https://10.0.0.1:6443\n"
           '{"data": {"latency_ms": 12.5, "kernel": "sm90_xmma_gemm_f16f16_256x128", "tokens": 512}}\n'
           "metadata:\n  name: train-data\n")


# ---- T6: httpx header tuples, terraform sensitive values, XML elements --------------------------------

@pytest.mark.parametrize("text", [
    f"[(b'x-api-key', b'{SECRET}'), (b'anthropic-version', b'2023-06-01')]",
    f"headers=[(b'Host', b'api.x'), (b'X-Auth-Token', b'{SECRET}')]",
    f"[('api-key', '{SECRET}')]",
    '"db_password": {"sensitive": true, "type": "string", "value": "' + SECRET + '"}',
    '{\n  "conn": {\n    "sensitive": true,\n    "type": "string",\n    "value": "' + SECRET + '"\n  }\n}',
    f"<password>{SECRET}</password>",
    f'<password encrypted="false">{SECRET}</password>',
    f"<server><id>corp</id><username>bob</username><ns:Password>{SECRET}</ns:Password></server>",
])
def test_header_tuples_terraform_and_xml_secrets_go(text):
    _gone(text)


def test_header_tuples_terraform_and_xml_ordinary_values_stay():
    _stays("[(b'Host', b'api.x'), (b'anthropic-version', b'2023-06-01'), (b'content-length', b'512')]\n"
           '"region": {"sensitive": false, "type": "string", "value": "us-east-1"}\n'
           '"gpu": {"sensitive": true, "type": "number", "value": 8}\n'
           "<name>sm90_xmma_gemm</name><version>12.4.1</version><tokens>512</tokens><password></password>\n"
           "<kernel>ampere_sgemm_128x64_tn</kernel>\n"
           "('token_get_all', 'token_name'), ('has_key','has_key'), ('pw','pwd'), ('key', 'val')\n")


# ---- A5: -a VALUE on the workload's argv -----------------------------------------------------------------

def test_dash_a_with_a_generated_value_is_an_argv_secret():
    value = "Aa8MNL8EXs9ODEiuZbEaiS"
    argv = ["python3", "wl.py", "-a", value]
    assert argv_secret_values(argv) == [value]
    r = Redactor({}, extra_secrets=argv_secret_values(argv))
    assert r.argv(argv) == ["python3", "wl.py", "-a", REDACTED]
    assert value not in r.text(f"args: {argv}") and value[2:] not in r.text(json.dumps(argv))


@pytest.mark.parametrize("argv", [["python3", "train.py", "-a", "resnet50"], ["ls", "-a", "/var/log"],
                                  ["nvcc", "-a", "sm_90"], ["tool", "-a", "x86_64"], ["run", "-a", "12345678901234"]])
def test_dash_a_with_an_ordinary_value_stays(argv):
    assert argv_secret_values(argv) == []
    assert Redactor({}).argv(argv) == argv


def test_redis_cli_password_printed_in_a_command_goes():
    out = Redactor({}).text(f"+ redis-cli -h cache -a {SECRET} ping\n")
    assert SECRET not in out and "-h cache" in out and "ping" in out
    _stays("+ redis-cli -h cache --no-auth-warning ping\n")


# ---- A13: base64 of a whole URL holding a short password ------------------------------------------------

@pytest.mark.parametrize("suffix", ["", "\n"])
def test_base64_of_a_whole_url_with_a_short_password_goes(suffix):
    url = "postgres://app:cc7usQ@db.example.internal:5432/x"
    encoded = b64(url + suffix)
    out = Redactor({"SVC_URL": url}).text(f"conn {encoded} end")
    assert base64.b64decode(encoded[:32]).decode() in url  # the first 32 characters hold the password
    assert encoded[:32] not in out and encoded[12:32] not in out and out.startswith("conn ") and out.endswith(" end")


def test_base64_of_other_urls_stays():
    url = "postgres://app:cc7usQ@db.example.internal:5432/x"
    text = f"{b64('https://huggingface.co/meta-llama/Llama-3.1-8B')} {b64('postgres://db.example.internal/y')}"
    assert Redactor({"SVC_URL": url}).text(text) == text


# ---- PowerShell's env: table ---------------------------------------------------------------------------

POWERSHELL = ("\nName                           Value\n----                           -----\n"
              "CUDA_VISIBLE_DEVICES           0,1\nDB_PASSWORD                    {secret}\n"
              "MAX_NEW_TOKENS                 16384\nPath                           C:\\Windows\\system32\n\nPS C:\\> ")


def test_powershell_env_table_secret_goes():
    text = POWERSHELL.format(secret=SECRET)
    _gone(text)
    assert Redactor({}).text(text) == POWERSHELL.format(secret=REDACTED)


def test_powershell_and_other_tables_of_ordinary_names_stay():
    _stays(POWERSHELL.replace("DB_PASSWORD", "DB_HOST    ").format(secret="db.internal")
           + "Name     Value\n----     -----\ntokens   512\nkernel   sm90_xmma_gemm\n"
           "      Name                    Value             Type    Location\n"
           "   secret_key     ****************abcd shared-credentials-file\n")


# ---- a quoted secret-named value through spaces and escaped quotes ------------------------------------

@pytest.mark.parametrize("text, needle", [
    ('{"password": "correct horse ' + SECRET + '", "user": "bob"}', SECRET),
    ('{"password": "Zq8Das\\"' + SECRET + '", "user": "bob"}', SECRET),
    ("{'api_key': 'Zq8Das\\'" + SECRET + "', 'user': 'bob'}", SECRET),
    ('DB_PASSWORD: "Zq8Das ' + SECRET + '"', SECRET),
    ('password = "Zq8Das, ' + SECRET + '"', SECRET),
])
def test_quoted_secret_value_goes_to_its_closing_quote(text, needle):
    out = Redactor({}).text(text)
    assert needle not in out and REDACTED in out, out
    assert "bob" in out or "user" not in text


def test_quoted_values_of_ordinary_names_and_the_rest_of_the_line_stay():
    _stays('{"prompt": "what is the password, \\"exactly\\"?", "token_count": "12 34", "user": "bob"}\n'
           "password: 'n/a' and then some words\n")
    out = Redactor({}).text('{"password": "ab1 cd2 ef3", "note": "kept, \\"quoted\\" text"}')
    assert out == '{"password": "' + REDACTED + '", "note": "kept, \\"quoted\\" text"}'


@pytest.mark.parametrize("indent", [None, 2, "\t"])
def test_a_docker_config_in_base64_anywhere_goes(indent):
    config = json.dumps({"auths": {"nvcr.io": {"username": "$oauthtoken", "password": SECRET}}}, indent=indent)
    encoded = b64(config)
    out = Redactor({}).text(f"dockerconfigjson={encoded}\n")
    assert encoded[8:40] not in out and REDACTED in out
    plain = b64(json.dumps({"auths": {"nvcr.io": {}}, "credsStore": "desktop"}))
    _stays(f"config {plain}\n")


# ---- h14: Rust's Debug print of an Option (TGI's launcher Args) -------------------------------------------------------

RUST_V = "VtMJjqb0SoEItS5JO3sZ"


@pytest.mark.parametrize("text", [
    'Args {{ model_id: "m", api_key: Some("{v}"), port: 80 }}\n',
    '2026-11-23T10:00:00.1Z  INFO text_generation_launcher: Args {{ model_id: "m", hf_token: Some("{v}"), api_key: None }}\n',
    "Args {{ api_key: Some({v}), hf_token: None }}\n",
    'Args {{\n    model_id: "m",\n    api_key: Some(\n        "{v}",\n    ),\n    port: 80,\n}}\n',
    "Args {{\n    hf_token: Some(\n        {v},\n    ),\n}}\n",
    'Config {{ password: Some("{v}"), user: Some("u") }}\n',
    '{{"log": "Args {{ api_key: Some(\\"{v}\\") }}"}}\n',
    '[rank0]: Args {{ hf_token: Some("{v}") }}\n',
])
def test_rust_debug_some_hides_a_secret(text: str) -> None:
    text = text.format(v=RUST_V)
    out = Redactor({}).text(text)
    assert RUST_V not in out, out
    for size in (1, 9, 4096):
        assert RUST_V not in _streamed(Redactor({}), text, size), size


def test_rust_debug_some_keeps_what_is_no_secret() -> None:
    text = ('Args { model_id: "bigscience/bloom", revision: Some("main"), max_tokens: Some(4096), api_key: None, '
            'hf_token: Some("/run/secrets/hf"), tokenizer_name: Some("gpt2"), num_shard: Some(8) }\n')
    assert Redactor({}).text(text) == text


# ---- h15 (rt9 R3): a secret-named element or JSON pair escaped for HTML ----------------------------------------------

@pytest.mark.parametrize("text", [
    f"&lt;password&gt;{SECRET}&lt;/password&gt;",
    f"  &lt;ns:apiKey&gt;{SECRET}&lt;/ns:apiKey&gt;",
    f"{{&quot;user&quot;: &quot;bob&quot;, &quot;password&quot;: &quot;{SECRET}&quot;}}",
    f"&#34;api_key&#34;:&#34;{SECRET}&#34;",
    f"{{&#x27;token&#x27;: &#x27;{SECRET}&#x27;}}",
    f"[rank0]: &quot;db_password&quot;: &quot;{SECRET}&quot;",
])
def test_html_escaped_secret_elements_and_pairs_go(text: str) -> None:
    _gone(text + "\n")


@pytest.mark.parametrize("text", ["&lt;title&gt;Zq8DaspUtbuleC5C0HzjwSLo&lt;/title&gt;",
                                  "&lt;password&gt;${DB_PASS}&lt;/password&gt;",
                                  "&quot;password_reset&quot;: &quot;enabled&quot;",
                                  "&quot;tokens&quot;: &quot;512&quot;, &quot;key&quot;: &quot;model.layers.0&quot;"])
def test_html_escaped_ordinary_elements_and_pairs_stay(text: str) -> None:
    assert Redactor({}).text(text + "\n") == text + "\n"
