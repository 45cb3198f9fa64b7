"""Eighth pass (issue 11): secret values in YAML / TOML / HCL layouts, tool listings and XML that the rules missed
(rt7's B3 findings): a complex key, a comment before the value, an indentation indicator, a plain scalar continued
on its next line, an anchor or a tag before a block, a mapping under a secret's name, TOML multi-line strings, HCL
heredocs; fish's `set --export`, two-column listings, XML value-before-name / CDATA / attributes in any order, Spark's
printed conf tuples. Values are random and in no environment variable: only the layout's rule can find them; each
family has ordinary text that stays."""

from __future__ import annotations

import json

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

P = "hunter2Pa55w0rd"
S = "Xk9mQ2vL7pR4tW8z"


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


def _gone(text: str, *values: str) -> None:
    out = Redactor({}).text(text)
    for value in values:
        assert value not in out, out
    assert REDACTED in out
    framed = f"step 1 loss 2.0\n{text}\nstep 2 loss 1.9\n"
    whole = Redactor({}).text(framed)
    for size in (1, 5, len(framed)):
        assert _streamed(framed, size) == whole


YAML = [
    (f"? password\n: {P}", [P]),
    (f"  ? \"db_password\"\n  : '{P}'\n", [P]),
    (f"password: # the db\n  {P}", [P]),
    (f"db:\n  api_key:   # rotated monthly\n    {S}\nnext: 1", [S]),
    (f"password: >2-\n    {P}\n", [P]),
    (f"private_key: |2+\n   {S}\n   {P}\n", [S, P]),
    (f"password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {S}6162\n  3961373834\n", [S + "6162", "3961373834"]),
    (f"password: first{S}\n  {P}", [P]),
    (f"api_token: {S}\n    {P}\nnext: 2", [S, P]),
    (f"api_tokens: &t\n  - {S}\n  - {P}", [S, P]),
    (f"secrets: !!seq\n- {S}", [S]),
    (f'secret: {{"a": "{P}"}}', [P]),
    (f"credentials: {{user: alice, pass_b: {P}}}", [P]),
    (f'"client_secret": {{"prod": "{S}", "dev": "{P}"}}', [S, P]),
    (f'[db]\npassword = """\n{P}\n"""', [P]),
    (f'password = """{P}"""', [P]),
    (f"api_key = '''\n{S}\n'''\nother = 1", [S]),
    (f"password = <<EOT\n{P}\nEOT", [P]),
    (f'  secret_key = <<-"EOF"\n    {S}\n    EOF\n', [S]),
]


@pytest.mark.parametrize("text,values", YAML)
def test_yaml_toml_hcl_layouts_go(text: str, values: list[str]) -> None:
    _gone(text, *values)


LISTINGS = [
    (f"set --export DB_PASSWORD '{P}'", P),
    (f"set --global --export API_TOKEN {S}", S),
    (f"set -x DB_PASSWORD {P} other", P),
    (f"set -gx DB_PASSWORD '{P}' 'second'", P),
    (f"  mlflow_password  {P}", P),
    (f"[2026-11-23 10:00:00,000] [INFO] [config.py:1004:print]   api_key {S}", S),
    (f"[config.py:1004:print]   comet_api_key  {S}", S),
    (f"<property><value>{S}</value><name>fs.s3a.secret.key</name></property>", S),
    (f"<name>fs.s3a.secret.key</name><value><![CDATA[{S}]]></value>", S),
    (f"<name>fs.azure.account.key.acct.blob.core.windows.net</name>\n<description>k</description>\n<value>{S}</value>", S),
    (f"<property>\n  <value>{S}</value>\n  <name>fs.s3a.secret.key</name>\n</property>", S),
    (f'<property value="{S}" name="fs.s3a.secret.key"/>', S),
    (f'<entry key="db.password">{P}</entry>', P),
    (f"<entry key='db.password'><![CDATA[{P}]]></entry>", P),
    (f'<add key="ApiKey" value="{S}" />', S),
    (f'<add key="ClearTextPassword" value="{P}" />', P),
    (f'<add value="{P}" key="ClearTextPassword"/>', P),
    (f"(spark.hadoop.fs.s3a.secret.key,{S})", S),
    (f"[(spark.app.name,etl), (spark.hadoop.fs.s3a.secret.key,{S}), (spark.master,yarn)]", S),
]


@pytest.mark.parametrize("text,value", LISTINGS)
def test_listings_and_xml_go(text: str, value: str) -> None:
    _gone(text, value)


STAYS = [
    "? explicit_key\n: plain value",
    "password: # set below\nhost: db.example\n",
    "password: >2-\n",
    "token_budget: 512\n  more text here",
    "password: [REDACTED]\n  File \"train.py\", line 3, in <module>",
    "secretKeyRef: {name: db-secret, key: password}",
    "secret: {secretName: tls-cert, optional: true}",
    "volumes: [{name: certs, secret: {secretName: tls}}]",
    'description = """\nThe password is read from the environment.\n"""',
    "cat <<EOF > config\nhello\nEOF",
    "set -x PATH /usr/local/bin $PATH",
    "set --export EDITOR vim",
    "  max_tokens  4096",
    "  password  required",
    "  api_key  None",
    "[config.py:1004:print]   train_batch_size 32",
    "<entry key=\"db.host\">db.example</entry>",
    '<add key="LogLevel" value="Verbose" />',
    "(spark.executor.memory,4g)",
    "(spark.hadoop.fs.s3a.secret.key,${S3_SECRET})",
]


@pytest.mark.parametrize("text", STAYS)
def test_ordinary_layouts_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


def test_layouts_in_json_and_behind_a_log_prefix_go() -> None:
    _gone(json.dumps({"conf": f"<name>fs.s3a.secret.key</name><value><![CDATA[{S}]]></value>"}), S)
    _gone(f"[rank0]: password: >2-\n[rank0]:     {P}\n", P)


AZ = "u1+eiPNBjf+Ub8hF+vM/lckQEb6XscAOSQcoXuVB2Te+FLy3NqM09FZ49Lqxvtu/E0igHxB3uPe781iaR4gL4Q=="
SESSION = "IQoJb3JpZ2luX2VjEwVsFt3xpvnj1tmaT2fOSvfPIjPGXyuihQZN5lauONCf91slkij86ilWMq3P3ggMPORYcsO0KEfk1gGGPEo4TX5"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
CLOUD_CLI = [   # rt8 L1 L3 L5: cloud CLIs' tables and text output, the values in no environment variable
    (f"||  AccessKeyId     |  ASIAEXAMPLE0000000001 ||\n||  SecretAccessKey |  {AWS_SECRET}  ||\n"
     f"||  SessionToken    |  {SESSION}  ||\n", [AWS_SECRET, SESSION]),
    (f"CREDENTIALS\tASIAEXAMPLE0000000001\t2026-11-24T09:00:00+00:00\t{AWS_SECRET}\t{SESSION}\n", [AWS_SECRET, SESSION]),
    (f"||  Name          |  prod/db                 ||\n||  SecretString  |  SmghRRdgrfaBB4KmotT1  ||\n", ["SmghRRdgrfaBB4KmotT1"]),
    (f"| apikey        | {AZ[:84]} |\n| format_type   | ascii |\n", [AZ[:84]]),
    ("Key        Value\n---        -----\napi_key    KvR7g8u9JBUvaCcCglXRw9\nrefresh    768h\n", ["KvR7g8u9JBUvaCcCglXRw9"]),
    (f'[{{"keyName": "key1", "permissions": "FULL", "value": "{AZ}"}}]\n', [AZ]),
    (f"KeyName    Permissions    Value\n---------  -------------  {'-' * 88}\nkey1       FULL           {AZ}\n", [AZ]),
]


@pytest.mark.parametrize("text,values", CLOUD_CLI)
def test_cloud_cli_credentials_go(text: str, values: list[str]) -> None:
    _gone(text, *values)


@pytest.mark.parametrize("text", [
    "| name | value |\n|------|-------|\n| batch_size | 32 |", "| api_key | your key here |", "| token | `str` |",
    "||  Expiration      |  2026-11-24T09:00:00+00:00  ||", "Key        Value\n---        -----\nrefresh    768h\n",
])
def test_ordinary_tables_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
