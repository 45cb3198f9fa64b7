"""Leaks in headers, dotted config keys, first-start prints, prose and listings (helper h21b, issue 11: no planted
secret in any bundle; h20r's red team found these on main). Each value is unknown to the Redactor (`Redactor({})`, as
when a job prints what a service sent it); each form is hidden bare, behind a log prefix (`[rank0]: `, a time and a
level, compose's `api-1  | `) and through a StreamRedactor cut at every place (stream_feed.hidden_everywhere); what is
no secret stays byte for byte (kept_everywhere).

1. An HTTP header whose dashed name ends in a secret word (`Ocp-Apim-Subscription-Key: V`), bare, in curl -H, in a
   requests `send: b'...'` dump, in a dict's repr (announced.header_spans).
2. A dotted config key whose secret words are not its last (`fs.azure.account.key.ACCT.blob.core.windows.net=V`)
   (announced.dotted_key_spans).
3. A value alone on its line after the line that announces it (Jenkins' first-start password, Elasticsearch's),
   or after a command that prints a secret decoded (`... | base64 -d`, `argocd admin initial-password`)
   (announced.announced_value_spans).
4. A secret in a sentence (`Using token V for authentication`, `password set to V`) (announced.prose_spans); the
   word after a logger's `auth:` (`INFO auth: Using token ...`) is no value (assignments.BARE_AUTH_ASSIGNMENT).
5. A listing aligned by blanks whose header names a password or secret column (tables.aligned_listing_spans).
"""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import Redactor
from stream_feed import hidden_everywhere, kept_everywhere, prefixed

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO ", "api-1  | "]
HP = "Winter2024!blue"
TK = "Qx7vR2mZ9pLk4TnQx7vR2mZ9pLk4Tn"
AZ = "q8ZkW3nP0vT6yR2mX9bL4cH7fJ1dG5sA8eK0uN3iO6pQ9rS2tV5wY8zB1cE4gH7jK0mN3pQ6sT9vW2yZ5bC8eF1hI4kL7nO0rU3xA6dG9j+/Q=="
HX = "3f2a9c1b7e6d4f8a9b0c1d2e3f4a5b6c"


# 1. headers
HEADERS = {
    "apim": (f"Ocp-Apim-Subscription-Key: {HP}", HP),
    "apim short key": ("Ocp-Apim-Subscription-Key: a1B2c3D4e5F6g7H8i9", "a1B2c3D4e5F6g7H8i9"),
    "curl -H": (f"curl -s -H 'Ocp-Apim-Subscription-Key: {HP}' https://api.example.com/v1", HP),
    "send dump": (f"send: b'GET /v1 HTTP/1.1\\r\\nHost: api.example.com\\r\\nOcp-Apim-Subscription-Key: {HP}\\r\\n"
                  f"Accept: */*\\r\\n\\r\\n'", HP),
    "dict repr": (f"headers={{'User-Agent': 'python-requests/2.31', 'Ocp-Apim-Subscription-Key': '{HP}'}}", HP),
    "json": (f'{{"Ocp-Apim-Subscription-Key": "{HP}"}}', HP),
    "minio RootPass": (f"RootUser: admin\nRootPass: {HP}", HP),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(HEADERS))
def test_a_header_whose_name_ends_in_a_secret_word(kind, prefix):
    text, secret = HEADERS[kind]
    whole = hidden_everywhere(prefixed(text + "\n", prefix), secret)
    assert "Ocp-Apim-Subscription-Key" in whole or "RootPass" in whole


def test_only_the_header_value_goes():
    assert Redactor({}).text(f"Ocp-Apim-Subscription-Key: {HP}\nAccept: */*") == (
        "Ocp-Apim-Subscription-Key: [REDACTED]\nAccept: */*")


# 2. dotted config keys
DOTTED = {
    "azure account key": (f"fs.azure.account.key.mystore.blob.core.windows.net={AZ}", AZ),
    "spark-defaults blanks": (f"spark.hadoop.fs.azure.account.key.mystore.dfs.core.windows.net   {HP}", HP),
    "--conf": (f"spark-submit --conf spark.hadoop.fs.azure.account.key.mystore.blob.core.windows.net={HP} job.py", HP),
    "gcs private key": (f"spark.hadoop.fs.gs.auth.service.account.private.key.id={HX}", HX),
    "s3a encryption key": (f"fs.s3a.server-side-encryption.key={HP}", HP),
    "hive keystore password after blanks": (f"hive.server2.keystore.password   {HP}", HP),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(DOTTED))
def test_a_dotted_key_whose_secret_words_are_not_its_last(kind, prefix):
    text, secret = DOTTED[kind]
    whole = hidden_everywhere(prefixed(text + "\n", prefix), secret)
    assert "fs." in whole or "hive." in whole


# 3. a value after the line that announces it
ANNOUNCED = {
    "jenkins": ("*************************************************************\n\n"
                "Jenkins initial setup is required. An admin user has been created and a password generated.\n"
                "Please use the following password to proceed to installation:\n\n"
                f"{HX}\n\n"
                "This may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n", HX),
    "elasticsearch": ("Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n"
                      f"  {HP}\n\nHTTP CA certificate SHA-256 fingerprint:\n", HP),
    "argocd base64 -d": ("$ kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath=\"{.data.password}\" "
                         f"| base64 -d\n{HP}\n", HP),
    "argocd initial-password": (f"$ argocd admin initial-password -n argocd\n{TK}\n\n This password must be only used "
                                "for first time login.\n", TK),
    "rancher base64decode": ("$ kubectl get secret --namespace cattle-system bootstrap-secret -o go-template="
                             "'{{.data.bootstrapPassword|base64decode}}{{\"\\n\"}}'\n" f"{TK}\n", TK),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(ANNOUNCED))
def test_a_value_after_the_line_that_announces_it(kind, prefix):
    text, secret = ANNOUNCED[kind]
    whole = hidden_everywhere(prefixed(text, prefix), secret)
    assert whole.count("\n") == prefixed(text, prefix).count("\n")


# 4. prose
PROSE = {
    "using token": (f"INFO auth: Using token {TK} for authentication", TK),
    "using password": (f"connecting to db as bob using password {HP}", HP),
    "token is": (f"Your token is {TK}", TK),
    "with api key": (f"Authenticating with api key {TK}", TK),
    "password set to": (f"admin password set to {HP}", HP),
    "with token": (f"Logging in with token {TK}", TK),
    "new API key": (f"Generated new API key {TK}", TK),
    "secret is": (f"the client secret is {HP}", HP),
    "secret key to": (f"Set the secret key to {HP}", HP),
    "password for user": (f"Simple auth manager | Password for user 'admin': {HP}", HP),
    "setup-passwords": (f"Changed password for user elastic\nPASSWORD elastic = {HP}", HP),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(PROSE))
def test_a_secret_in_a_sentence(kind, prefix):
    text, secret = PROSE[kind]
    hidden_everywhere(prefixed(text + "\n", prefix), secret)


def test_a_loggers_auth_name_keeps_the_next_word():
    assert Redactor({}).text(f"INFO auth: Using token {TK} for authentication") == (
        "INFO auth: Using token [REDACTED] for authentication")
    assert Redactor({}).text("auth: Using token ids for authentication") == "auth: Using token ids for authentication"


# 5. listings aligned by blanks
LISTINGS = {
    "user password": (f"user      password\nbob       {HP}\nalice     Summer2023?red\n", HP),
    "upper three columns": (f"USERNAME   PASSWORD          ROLE\nbob        {HP}   admin\n", HP),
    "name secret": (f"NAME        SECRET\ngrafana     {HP}\n", HP),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(LISTINGS))
def test_a_listing_aligned_by_blanks(kind, prefix):
    text, secret = LISTINGS[kind]
    whole = hidden_everywhere(prefixed(text, prefix), secret)
    assert "Summer2023?red" not in whole
    assert "bob" in whole or "grafana" in whole


# what is no secret stays
KEPT = [
    "Using token ids [1, 2, 3] for the prompt\n",
    "Using auth token from ~/.cache/huggingface/token\n",
    "The pad token is set to the eos token\n",
    "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.\n",
    "the eos token is </s>\n",
    "key: value\nauth: enabled\n",
    "Using key cache of size 2 GB\n",
    "tokens      count\nprompt      1024\ncompletion  256\n",
    "user      shell\nbob       /bin/bash\n",
    "user      password\nbob       NULL\n",
    "password set to default\n",
    "spark.ssl.enabled=true\nspark.ssl.keyStore=/etc/ssl/ks.jks\n",
    "fs.azure.account.auth.type.mystore.dfs.core.windows.net=OAuth\n",
    "fs.s3a.access.key=minioadmin\n",
    "Accept: application/json\nContent-Type: application/json\n",
    "headers = {'Ocp-Apim-Subscription-Key': key}\n",
    "X-Cache-Key: gpt2-xl-r3\n",
    "Please use the following command to proceed:\n\npip install -e .\n\nThen run it.\n",
    "Special tokens:\n  <pad>\n",
    "step  loss   tokens/s\n100   2.31   51234\n",
    "The token budget is 4096 tokens per request\n",
    "model.token 12345\nhash.secret sha256\n",
    "Add token to cache\nThe password for user bob: see the vault\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", KEPT)
def test_ordinary_lines_stay(text, prefix):
    kept_everywhere(prefixed(text, prefix))
