"""Leaks found by red team h19r on main after h19l and h19m (helper h19t): each value, unknown to the Redactor
(`Redactor({})`), is hidden bare, behind a log prefix (`[rank0]: `, `2026-11-24 03:00:01 INFO `) and through a
StreamRedactor cut at every position; the nearby output that is no secret stays.

1. NCCL's and UCX's echo of a variable read from the environment: `NCCL INFO DB_PASSWORD set by environment to X`.
2. Sentences: `The password is X`, `password for user bob is X` (X shaped as a password).
3. Code that stores a value under a secret's name: PHP's `define('DB_PASSWORD', 'X')`, mlflow's
   `log_param('api_key', 'X')`.
4. A command in a flag's quoted value (`sbatch --wrap 'python x.py --hf_token X'`), and tools given a password on a
   line make prints bare (`lftp -u bob,X`, `npm config set ...:_authToken X`, `poetry config http-basic.corp bob X`,
   `twine upload -p X`).
5. Protocol traces: IMAP's `a1 LOGIN bob X`, FTP's `---> PASS X`, SMTP's `AUTH PLAIN <base64>` (smtplib's debug).
6. A secret store's JSON on one line (`az keyvault secret show`, compact): `"value": "X"` beside `"id": ".../secrets/..."`."""

from __future__ import annotations

import pytest

from stream_feed import prefixed, hidden_everywhere, kept_everywhere


PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]
HP = "Winter2024!blue"
TK = "Qx7vR2mZ9pLk4TnQx7vR2mZ9pLk4Tn"


# 1. NCCL's echo of an environment variable
@pytest.mark.parametrize("prefix", PREFIXES)
def test_nccl_echo_of_a_secret_variable(prefix):
    whole = hidden_everywhere(prefixed(f"node1:123:123 [0] NCCL INFO DB_PASSWORD set by environment to {HP}\n",
                                         prefix), HP)
    assert "DB_PASSWORD set by environment to" in whole


@pytest.mark.parametrize("text", ["node1:123:123 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n",
                                  "node1:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"])
def test_nccl_echo_of_a_setting_stays(text):
    kept_everywhere(text)


# 2. sentences that give a password
SENTENCES = [f"The password is {HP}\n", f"password for user bob is {HP}\n", f"The password for bob is: {HP}.\n"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", SENTENCES)
def test_a_sentence_that_gives_a_password(text, prefix):
    whole = hidden_everywhere(prefixed(text, prefix), HP)
    assert "password" in whole


@pytest.mark.parametrize("text", ["The password is required\n", "Your password is incorrect.\n",
                                  "password for user bob is not set\n", "the password is stored in /etc/app/pw.txt\n",
                                  "This password is too-short\n"])
def test_a_sentence_about_a_password_stays(text):
    kept_everywhere(text)


# 3. code that stores a value under a secret's name
CODE = [(f"define( 'DB_PASSWORD', '{HP}' );\n", HP), (f"define('AUTH_KEY', '{TK}');\n", TK),
        (f"mlflow.log_param('api_key', '{TK}')\n", TK), (f'mlflow.log_param("hf_token", "{TK}")\n', TK)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text, secret", CODE)
def test_code_that_stores_a_secret_by_name(text, secret, prefix):
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", ["define('DB_NAME', 'wordpress');\n", "mlflow.log_param('lr', '0.001')\n",
                                  "define('DB_PASSWORD', getenv('DB_PASSWORD'));\n"])
def test_code_that_stores_a_setting_stays(text):
    kept_everywhere(text)


# 4. a command inside a flag's quoted value, and commands make echoes bare (no `$ ` or `+ ` before them)
COMMANDS = [(f"sbatch --wrap 'python x.py --hf_token {TK}'\n", TK),
            (f'sbatch --wrap="python x.py --hf_token {TK} --lr 3"\n', TK),
            (f"lftp -u bob,{HP} sftp://h\n", HP),
            (f"npm config set //registry.npmjs.org/:_authToken {TK}\n", TK),
            (f"poetry config http-basic.corp bob {HP}\n", HP),
            (f"twine upload -u __token__ -p pypi-{TK} dist/*\n", TK)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text, secret", COMMANDS)
def test_a_command_given_a_secret_printed_bare(text, secret, prefix):
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", ["sbatch --wrap 'python x.py --lr 3 --epochs 2'\n", "lftp -u bob sftp://host/dir\n",
                                  "npm config set registry https://registry.npmjs.org/\n",
                                  "poetry config virtualenvs.in-project true\n", "twine upload -u __token__ dist/*\n"])
def test_a_command_with_no_secret_stays(text):
    kept_everywhere(text)


# 5. mail and file protocols' debug traces
B64 = "AGJvYgBXaW50ZXIyMDI0IWJsdWU="   # (SMTP's AUTH PLAIN: base64 of "\0bob\0" and the password)
TRACES = [(f"C: a1 LOGIN bob {HP}\n", HP), (f"  > b'RTNC1 LOGIN bob \"{HP}\"'\n", HP), (f"---> PASS {HP}\n", HP),
          (f"> PASS {HP}\n", HP), (f"send: 'AUTH PLAIN {B64}\\r\\n'\n", B64), (f"C: A01 AUTHENTICATE PLAIN {B64}\n", B64)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text, secret", TRACES)
def test_a_protocol_trace_that_sends_a_password(text, secret, prefix):
    whole = hidden_everywhere(prefixed(text, prefix), secret)
    assert "LOGIN bob" in whole or "PASS " in whole or "PLAIN " in whole


@pytest.mark.parametrize("text", ["250-AUTH PLAIN LOGIN CRAM-MD5\n", "User LOGIN from host ok\n", "a1 OK LOGIN completed\n",
                                  "*cmd* 'PASS **********'\n", "test_login PASS in 0.2s\n", "---> USER bob\n"])
def test_a_protocol_trace_with_no_password_stays(text):
    kept_everywhere(text)


# 6. a secret store's JSON on one line: `"value"` beside an `"id"` that is a secret's URL
AZ_JSON = ('{"attributes": {"enabled": true}, "id": "https://kv.vault.azure.net/secrets/db/1", "name": "db", '
           f'"value": "{HP}"}}\n')


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_key_vault_secret_as_compact_json(prefix):
    whole = hidden_everywhere(prefixed(AZ_JSON, prefix), HP)
    assert '"name": "db"' in whole


@pytest.mark.parametrize("text", ['{"id": "https://kv.vault.azure.net/keys/k/1", "value": "Winter2024"}\n',
                                  '{"id": "/subscriptions/s/providers/x", "value": "Standard_LRS"}\n',
                                  '{"id": "https://kv.vault.azure.net/secrets/db/1", "value": null}\n'])
def test_json_with_a_value_that_is_no_secret_stays(text):
    kept_everywhere(text)
