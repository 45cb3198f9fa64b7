"""Leaks still open after session 22 (helper h23a, issue 11: no planted secret in any bundle). Each value is unknown to
the Redactor (`Redactor({})`); each form is hidden bare, behind a log prefix (`[rank0]: `, an ISO time, compose's
`api-1  | `) and in a JSON record per line, whole and through a StreamRedactor cut at every place
(stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. Tools given a secret on their command line, anywhere on a line (commands.COMMAND_PASSWORD_FLAGS): `grafana-cli admin
   reset-admin-password X`, `conda token set X`, `wandb login --relogin X`, `oc login -u U -p X`, `twine upload -p X`,
   `poetry config pypi-token.pypi X` / `http-basic.R U X`.
2. `PW=$(echo X)` unquoted (commands._echo_substitution_spans).
3. Code: `auth=(bob, X)` unquoted, `login(username, "X")`, `ftp.login("bob", "X")` (calls.AUTH_PAIR_BARE, LOGIN_CALL).
4. A label of two words before a password with symbols (`SECRET KEY: h2@#!&$...`, Django's) (calls._symbols_password).
5. `password:` alone, a blank line, then the value (announced: the short line's value judged strictly).
6. vault's `Unseal Key 1: X` in a JSON record (announced.BOOTSTRAP_LABELS); ngc's `| apikey | X |` behind compose's
   prefix, an ISO time or in a JSON record (printed_rows).
"""

from __future__ import annotations


import pytest

from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
TK = "Qx7vR2mZ9pLk4TnW"
PW = "Winter2024!blue"
HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
SHORT = "Tq7mZ2x9"
DJANGO = "h2@#!&$k9x*z0q^w1v%3r7"


def wrapped(text: str, wrap: str) -> str:
    return json_records(text) if wrap == "json" else prefixed(text, wrap)


WRAPS = [*PREFIXES, "json"]

FORMS = {
    "grafana-cli": (f"grafana-cli admin reset-admin-password {PW}\n", PW),
    "grafana-cli token": (f"grafana-cli --homepath /usr/share/grafana admin reset-admin-password {TK}\n", TK),
    "conda token set": (f"conda token set {TK}\n", TK),
    "wandb login --relogin": (f"wandb login --relogin {HEX}\n", HEX),
    "wandb login --host": (f"wandb login --host https://wandb.corp.example {HEX}\n", HEX),
    "oc login -p": (f"oc login -u admin -p {PW} https://api.cluster.example:6443\n", PW),
    "oc login --password": (f"oc login --username=admin --password={SHORT} https://api.cluster.example:6443\n", SHORT),
    "twine -p": (f"twine upload -u __token__ -p {TK} dist/*\n", TK),
    "poetry pypi-token": (f"poetry config pypi-token.pypi {TK}\n", TK),
    "poetry http-basic": (f"poetry config http-basic.corp bob {PW}\n", PW),
    "echo substitution": (f"PW=$(echo {TK})\n", TK),
    "printf substitution": (f"export HF_TOKEN=$(printf '%s' {TK})\n", TK),
    "auth pair unquoted": (f"auth=(bob, {TK})\n", TK),
    "auth pair unquoted password": (f"basic auth: (admin, {PW})\n", PW),
    "login call": (f'    server.login(username, "{PW}")\n', PW),
    "ftp login": (f'ftp.login("bob", "{SHORT}")\n', SHORT),
    "SECRET KEY label": (f"SECRET KEY: {DJANGO}\n", DJANGO),
    "SECRET KEY label django-insecure": (f"SECRET KEY: django-insecure-{DJANGO}\n", DJANGO),
    "password blank value": (f"password:\n\n{TK}\n", TK),
    "password blank short value": (f"Password:\n\n{SHORT}\n", SHORT),
    "vault unseal key": (f"Unseal Key 1: {TK}abcDEF+/\n", TK),
    "ngc apikey row": (f"+--------+------------------+\n| key    | value            |\n+--------+------------------+\n"
                       f"| apikey | {TK} |\n| format_type | ascii |\n+--------+------------------+\n", TK),
}
# (which of them main held already in some wrapper: the test is of every wrapper)


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("kind", sorted(FORMS))
def test_a_secret_in_a_form_left_open(kind, wrap):
    text, secret = FORMS[kind]
    hidden_everywhere(wrapped(text, wrap), secret)


KEPT = [
    "auth=(user, password)\n",
    "auth=(self.user, pw)\n",
    "ftp.login(user, passwd)\n",
    'server.login(user, "")\n',
    "MSG=$(echo hello)\n",
    "TAG=$(echo v1.2.3)\n",
    "password:\n\nservices:\n",
    "token:\n\nhello\n",
    "secret:\n\nmy-secret-name\n",
    "twine upload -u __token__ -p $PYPI_TOKEN dist/*\n",
    "oc login -u admin -p \"$OC_PASSWORD\" https://api.cluster.example:6443\n",
    "wandb login --relogin\n",
    "SECRET KEY: not-set\n",
    "| format_type | ascii |\n",
    "| step | 1200 |\n",
    "1200/5000 | consumed 12 GB |\n",
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", KEPT)
def test_what_is_no_secret_stays(text, wrap):
    kept_everywhere(wrapped(text, wrap))


# 7. A red team's new shapes (trackers, registries, job specs, clients, configs), those that leaked on main
NEW_FORMS = {
    "npm config get": (f"$ npm config get //registry.npmjs.org/:_authToken\n{TK}\n", TK),
    "elasticsearch api_key pair": (f"Elasticsearch('https://es:9200', api_key=('id', '{TK}'))\n", TK),
    "ngc prompt answered": (f"Enter API key [no-apikey]. Choices: [<VALID_APIKEY>, 'no-apikey']: {TK}\n", TK),
    "hf prompt answered": (f"Enter your token (input will not be visible): {TK}\n", TK),
    "hf login positional": (f'huggingface_hub.login("{TK}")\n', TK),
    "yarn config get": (f"$ yarn config get npmAuthToken\n{TK}\n", TK),
    "kfp existing_token": (f"kfp.Client(host='https://kf.example', existing_token='{TK}')\n", TK),
    "beeline -p": (f"beeline -u jdbc:hive2://hive.example:10000 -n bob -p {PW}\n", PW),
    "httpie -a": (f"http -a bob:{PW} GET https://api.example/v1/models\n", PW),
}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("kind", sorted(NEW_FORMS))
def test_a_red_team_shape(kind, wrap):
    text, secret = NEW_FORMS[kind]
    hidden_everywhere(wrapped(text, wrap), secret)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_secret_flag_in_a_yaml_list_behind_a_log_prefix(prefix):
    # (k8s/Kubeflow `args:` printed behind a prefix: the flag's value on the list's next item; a JSON record per line
    # is not read so: left open)
    hidden_everywhere(prefixed(f"        args:\n        - --wandb-key\n        - {HEX}\n", prefix), HEX)


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("text", [
    "npm config get registry\nhttps://registry.npmjs.org/\n",
    "Enter the number of tokens: 4096\n",
    "Enter your token (input will not be visible): \n",
    "Type your API key below:\n",
    'huggingface_hub.login("hello")\n',
    "api_key=(\"id\", \"\")\n",
    "existingSecret: db-creds\n",
    "existingSecretPasswordKey: db-password\n",
    "beeline -u jdbc:hive2://hive.example:10000 -n bob -p $HIVE_PASSWORD\n",
    "http GET https://api.example/v1/models -a bob\n",
    "        args:\n        - --tokenizer\n        - meta-llama/Llama-3-8B\n",
])
def test_red_team_lines_that_stay(text, wrap):
    kept_everywhere(wrapped(text, wrap))
