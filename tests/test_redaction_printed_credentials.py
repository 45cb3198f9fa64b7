"""Credentials printed by a workload that triage has never seen in its environment (red team U, A14):
proxy and DSN forms without a scheme, URL passwords holding a quote or a backslash, and a --tag that
would put a token into the archive's name."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

PASSWORD = "Pw9xQ2mZ7kLp"


@pytest.mark.parametrize("line", [
    f"export HTTPS_PROXY=bob:{PASSWORD}@proxy.corp:3128",
    f"proxy is bob:{PASSWORD}@proxy.corp:3128 ok",
    f"conn //app:{PASSWORD}@db/x",
    f"'alice:{PASSWORD}@10.0.0.7:8080'",
    f"postgres://app:Pw9x'Q2mZ7kLp@db/",
    "postgres://app:Pw9x\\Q2mZ7kLp@db/",
    f"redis://:Pw9x\\'Q2mZ7kLp@cache:6379/0",
])
def test_printed_credentials_lose_their_password(line):
    out = Redactor(environ={}).text(line)
    assert "Q2mZ7kLp" not in out, out
    assert REDACTED in out


@pytest.mark.parametrize("line, kept", [
    ("proxy is bob:" + PASSWORD + "@proxy.corp:3128 ok", "bob:"),
    ("conn //app:" + PASSWORD + "@db/x", "@db/x"),
])
def test_the_user_and_host_stay(line, kept):
    assert kept in Redactor(environ={}).text(line)


@pytest.mark.parametrize("line", [
    "image nvcr.io/nvidia/pytorch:24.01-py3@sha256:0a1b2c3d4e5f",
    "mailto:bob@example.com",
    "email:alice@example.com, phone:12345",
    "git@github.com:org/repo.git",
    "INFO:root:sent to bob@example.com",
    "12:30:05@host01 step=3",
    "user:group@ is not a credential",
    "ratio 3:4@host:80 is odd",
])
def test_lookalikes_stay(line):
    assert Redactor(environ={}).text(line) == line


def test_a_quoted_url_next_to_an_address_keeps_its_words():
    line = "see 'http://docs.example.com/a' or write to ops@example.com"
    assert Redactor(environ={}).text(line) == line


def test_a_command_line_is_redacted_once_however_often_it_is_written(monkeypatch):
    """Red team W3': 20,000 workload arguments cost 0.8-2.3 s per redaction, and triage writes the command
    into four files."""
    r = Redactor(environ={})
    calls = []
    real_text = r.text
    monkeypatch.setattr(r, "text", lambda value: calls.append(value) or real_text(value))
    command = ["serve", "--api-key", "Zq7hbiGjlvhk9Lm", *map(str, range(500))]
    first = r.argv(command)
    assert first[:3] == ["serve", "--api-key", REDACTED] and len(first) == 503
    made = len(calls)
    first.append("changed by a caller")
    assert r.argv(list(command)) == first[:-1] and len(calls) == made


# ---- h14 (rt9 R3): Redis, SQL, SSM, CloudFormation, IAM and terraform forms --------------------------------------------

R3_VALUE = "Zq8vN2mK5pL9xR4t"


@pytest.mark.parametrize("text", [
    "127.0.0.1:6379> CONFIG SET requirepass {v}", '127.0.0.1:6379> config set masterauth "{v}"', "requirepass {v}",
    "masterauth {v}  # replica", "ACL SETUSER app on >{v} ~* +@all", "127.0.0.1:6379> HELLO 3 AUTH default {v}",
    '1700000000.123456 [0 127.0.0.1:50000] "CONFIG" "SET" "requirepass" "{v}"',
    '1700000000.123456 [0 127.0.0.1:50000] "HELLO" "3" "AUTH" "default" "{v}"',
    "DEBUG redis: Command: ('AUTH', '{v}')", "[b'AUTH', b'default', b'{v}']",
    "ALTER USER app PASSWORD $${v}$$;", "SET PASSWORD FOR app = '{v}';", "ALTER LOGIN sa WITH PASSWORD = N'{v}' OLD_PASSWORD = N'x';",
    "CREATE LOGIN a WITH PASSWORD = '{v}'",
    "Parameters:\n  - ParameterKey: DbPassword\n    ParameterValue: {v}",
    "aws ssm put-parameter --name /prod/db/password --value {v} --type SecureString",
    "+ aws ssm put-parameter --name /prod/app/key --type SecureString --value '{v}'",
    "$ aws ssm get-parameter --name /prod/db/password --with-decryption --query Parameter.Value --output text\n{v}",
    "PARAMETER\tarn:aws:ssm:us-east-1:1:parameter/prod/db/password\t2026-11-24\t/prod/db/password\tSecureString\t{v}\t3",
    "Parameter:\n  ARN: arn:aws:ssm:us-east-1:1:parameter/db\n  Name: /db\n  Type: SecureString\n  Value: {v}\n  Version: 3",
    "ACCESSKEY\tAKIAIOSFODNN7EXAMPLE\t2026-11-24T00:00:00+00:00\t{v}\tActive\tci",
    'variable "db_password" {{\n  default   = "{v}"\n  sensitive = true\n}}',
    "$ kubectl view-secret db password\n{v}", "$ kubectl get secret db -o json | jq -r '.data.password | @base64d'\n{v}",
])
def test_tool_printed_secret_forms_go(text: str) -> None:
    text = text.format(v=R3_VALUE) + "\n"
    assert R3_VALUE not in Redactor({}).text(text)
    stream = StreamRedactor(Redactor({}), piece=1)
    assert R3_VALUE not in "".join(stream.feed(text[k:k + 5]) for k in range(0, len(text), 5)) + stream.close()


@pytest.mark.parametrize("line", ["requirepass is not set, so anyone can connect", "set requirepass in redis.conf",
                                  "the masterauth directive", "ACL SETUSER app on nopass ~* +@all", "password = '{}'.format(x)",
                                  "if password == 'x':", 'variable "region" {\n  default = "us-east-1"\n}',
                                  "aws ssm put-parameter --name /prod/app/region --value us-east-1 --type String",
                                  "$ aws ssm get-parameter --name /prod/region --output json\n{"])
def test_tool_forms_that_hold_no_secret_stay(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


@pytest.mark.parametrize("text", ["env:\n- value: {v}\n  name: DB_PASSWORD\n\n",
                                  "Parameters:\n  - ParameterKey: DbPassword\n    ParameterValue: {v}\n",
                                  'variable "db_password" {{\n  type = string\n  default = "{v}"\n}}\n',
                                  "  Type: SecureString\n  Value: {v}\n"])
def test_a_stream_cut_at_every_line_holds_the_pair_together(text: str) -> None:
    """rt9 C1: forms whose name and value lie on different lines, cut by the stream between them."""
    text = text.format(v=R3_VALUE)
    stream = StreamRedactor(Redactor({}), piece=1)
    streamed = "".join(stream.feed(line) for line in text.splitlines(True)) + stream.close()
    assert R3_VALUE not in streamed and streamed == Redactor({}).text(text)


def test_az_storage_keys_listed_as_indented_json_go() -> None:
    """rt9 R7: `az storage account keys list` prints indented JSON: keyName and value on different lines."""
    key = "Zq8vN2mK5pL9xR4t" * 5 + "12345678=="
    text = ('[\n  {\n    "creationTime": "2026-11-24T00:00:00+00:00",\n    "keyName": "key1",\n    "permissions": "FULL",\n'
            f'    "value": "{key}"\n  }}\n]\n')
    assert key not in Redactor({}).text(text)
    stream = StreamRedactor(Redactor({}), piece=1)
    assert key not in "".join(stream.feed(line) for line in text.splitlines(True)) + stream.close()


def test_imaplib_state_tuples_are_no_redis_auth():
    """rt10 F1: imaplib's command table (`'APPEND': ('AUTH', 'SELECTED'),`, 24 lines of the stdlib) read as redis-py's
    AUTH command lost its states; IMAP's state names stay, a password after AUTH still goes (in capitals too)."""
    for line in ["        'APPEND':       ('AUTH', 'SELECTED'),", "    'CAPABILITY':   ('NONAUTH', 'AUTH', 'SELECTED', 'LOGOUT'),"]:
        assert Redactor({}).text(line) == line
    assert "Zq8Das1x" not in Redactor({}).text("Command: ('AUTH', 'Zq8Das1x')")
    assert "Hunter" not in Redactor({}).text("('AUTH', 'default', 'Hunter')")
    assert "ADMINPASS" not in Redactor({}).text("Command: ('AUTH', 'ADMINPASS')")
