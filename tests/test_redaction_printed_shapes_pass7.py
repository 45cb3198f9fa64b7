"""Seventh red-team pass (issue 11): secrets in printed text the rules missed. Python bytes values after a secret name
(requests, botocore, httpx and redis debug logs print headers that way), a generated password that looks like a path,
private keys framed line by line (rich panels, ansible, pytest, diff, ascii boxes), tools' own dumps (fish, csh,
DeepSpeed's config print, Hadoop XML, conda token channels, `aws ecr get-login-password`), credential variable names,
tokens in URLs. The values are random and in no environment variable unless a test says so: only the rule for the
layout can find them; each group has partners that ordinary text of the same layout stays."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

V = "Zq8vN2mK5pL9xR4t"
A = "Xk9mQ2vL7pR4tW8zN3bH6jF5cY1dG0sE"


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


# --- F1: bytes values ---------------------------------------------------------------------------------------------

BYTES_FORMS = ["'{n}': b'{v}'", '"{n}": b"{v}"', "{n}=b'{v}'", "({n!r}, b'{v}')", "(b'{n}', b'{v}')", "{n}: b'{v}'",
               "'{n}': bytearray(b'{v}')", "'{n}': memoryview(b'{v}')"]
BYTES_NAMES = ["password", "api_key", "token", "secret", "Authorization", "X-Api-Key", "client_secret",
               "X-Amz-Security-Token", "passwd", "auth_token"]


@pytest.mark.parametrize("form", BYTES_FORMS)
@pytest.mark.parametrize("name", BYTES_NAMES)
def test_bytes_value_after_a_secret_name_goes(form: str, name: str) -> None:
    text = form.format(n=name, v=V)
    out = Redactor({}).text(text)
    assert V not in out and REDACTED in out


def test_bytes_value_with_escapes_goes_whole() -> None:
    text = "{'user': b'app', 'password': b'p\\x00a\\'s\\\\s Zq8vN2 mK5pL9'}"
    out = Redactor({}).text(text)
    assert out == f"{{'user': b'app', 'password': b'{REDACTED}'}}"
    out = Redactor({}).text('redis: {"password": b"ab1\\"b c\\\\d"} ok')
    assert out == f'redis: {{"password": b"{REDACTED}"}} ok'


BOTO = ("DEBUG:botocore.endpoint:Sending http request: <AWSPreparedRequest stream_output=False, method=GET, "
        "url=https://b.s3.amazonaws.com/k, headers={'User-Agent': b'Boto3/1.34.0 md/Botocore#1.34.0', "
        "'X-Amz-Date': b'20261123T120000Z', 'X-Amz-Security-Token': b'IQoJb3JpZ2luX2VjE" + A + "', "
        "'x-amz-content-sha256': b'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', "
        "'Authorization': b'AWS4-HMAC-SHA256 Credential=ASIAIOSFODNN7EXAMPL3/20261123/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
        "Signature=9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b5c2f9a6d3e0b7c4f1a8d5e2b'}>")


def test_botocore_request_keeps_no_token_or_signature() -> None:
    out = Redactor({}).text(BOTO)
    assert "IQoJb3JpZ2luX2VjE" not in out and A not in out
    assert "9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b5c2f9a6d3e0b7c4f1a8d5e2b" not in out
    # the headers that are no secret stay, byte for byte
    for kept in ("'User-Agent': b'Boto3/1.34.0 md/Botocore#1.34.0'", "'X-Amz-Date': b'20261123T120000Z'",
                 "'x-amz-content-sha256': b'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'"):
        assert kept in out
    for size in (1, 5, 64):
        assert _streamed(BOTO + "\n", size) == Redactor({}).text(BOTO + "\n")


def test_unquoted_aws4_authorization_loses_its_signature() -> None:
    text = ("< Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261123/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024\n")
    assert "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024" not in Redactor({}).text(text)


@pytest.mark.parametrize("text", [
    "{'pad_token': b'<pad>', 'eos_token': b'</s>'}",
    "{'token_count': b'512', 'max_tokens': b'4096'}",
    "{'password': b'', 'token': None, 'secret': b'False'}",
    "headers={'Content-Type': b'application/json', 'X-Request-Id': b'req-1'}",
    "[('token_type', 'word'), ('token_id', '128000')]",
    "data = b'abc'; key_len = b'256'",
])
def test_bytes_values_that_are_no_secret_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


# --- F2: a generated password that looks like a path -------------------------------------------------------------

PATH_LIKE = ["/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX", "/8vuBlnqc53ayWtarDL1ylwz/VDcCrPo", "/U1P5yKttA6edeGTXd50oBKs3n3/qlm/",
             "/run/S3cr3t/hunter2.pw"]


@pytest.mark.parametrize("value", PATH_LIKE)
def test_path_shaped_password_is_a_secret_everywhere(value: str) -> None:
    redactor = Redactor({"PATH": "/usr/bin", "DB_PASSWORD": value})
    assert redactor.has_secrets  # so the raw .nsys-rep is not kept
    assert redactor.environment({"DB_PASSWORD": value})["DB_PASSWORD"] == REDACTED
    for printed in (f"password={value}", f"connecting with {value}", f"dsn: {value[:14]}"):
        assert value[:14] not in redactor.text(printed)
    assert value not in Redactor({}).text(f"password={value}")  # unknown, printed beside its name


@pytest.mark.parametrize("name, value", [
    ("GOOGLE_APPLICATION_CREDENTIALS", "/home/me/.config/gcloud/application_default_credentials.json"),
    ("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"),
    ("DB_PASSWORD", "/run/secrets/db_password"),
    ("SSL_PRIVATE_KEY", "/etc/ssl/private/ssl-cert-snakeoil.key"),
    ("API_KEY", "~/.config/openai/key.txt"),
    ("TOKEN", "./secrets/MyProjectConfig/hf_token"),
])
def test_key_file_paths_stay(name: str, value: str) -> None:
    redactor = Redactor({"PATH": "/usr/bin", name: value})
    assert not redactor.has_secrets
    assert redactor.environment({name: value})[name] == value
    assert redactor.text(f"loading {value}; {name.lower()}={value}") == f"loading {value}; {name.lower()}={value}"


def test_a_key_file_that_exists_here_stays_whatever_its_name_reads_like(tmp_path) -> None:
    key = tmp_path / "tmp.aB3dE5fG7h"
    key.write_text("x")
    redactor = Redactor({"PATH": "/usr/bin", "DB_PASSWORD": str(key)})
    assert not redactor.has_secrets and redactor.environment({"DB_PASSWORD": str(key)})["DB_PASSWORD"] == str(key)


# --- F3: a private key framed line by line -------------------------------------------------------------------------

KEY_BODY = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
            "MZEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
            "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
            "8R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oq"]
KEY_LINES = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]
FRAMES = {"rich panel": ("│ ", " │"), "rich panel padded": ("│ ", " " * 10 + "│"), "pytest E quoted": ("E         '", "'"),
          "diff -": ("-", ""), "diff +": ("+", ""), "ascii box": ("| ", " |"), "ansible debug": ('        "', '",'),
          "double box": ("║ ", " ║"), "markdown quote": ("> ", ""), "cat -n": ("{n:>6}\t", "")}


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("with_end", [True, False])
def test_framed_key_loses_every_body_line(frame: str, with_end: bool) -> None:
    before, after = FRAMES[frame]
    lines = KEY_LINES if with_end else KEY_LINES[:-1]
    text = "key:\n" + "\n".join(before.format(n=k + 1) + line.ljust(64) * (after != "") + after
                                for k, line in enumerate(lines)) + "\nstep 1 loss 2.0\n"
    out = Redactor({}).text(text)
    assert not any(line[:24] in out for line in KEY_BODY), out
    assert out.endswith("step 1 loss 2.0\n") and out.startswith("key:\n")
    for size in (1, 17, 4096):
        assert _streamed(text, size) == out


def test_lines_after_a_framed_key_stay() -> None:
    text = ("│ -----BEGIN RSA PRIVATE KEY----- │\n" + "".join(f"│ {line} │\n" for line in KEY_BODY)
            + "│ -----END RSA PRIVATE KEY----- │\n│ checkpoint saved to /ckpt/step_00012000/model.safetensors    │\n"
            "│ tokens/s 184,322 mfu 41.2% loss 2.3141                           │\n")
    out = Redactor({}).text(text)
    assert out.endswith(" │\n│ checkpoint saved to /ckpt/step_00012000/model.safetensors    │\n"
                        "│ tokens/s 184,322 mfu 41.2% loss 2.3141                           │\n")
    assert not any(line[:24] in out for line in KEY_BODY)


def test_a_framed_certificate_stays() -> None:
    text = ("│ -----BEGIN CERTIFICATE----- │\n│ MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ │\n"
            "│ -----END CERTIFICATE----- │\n")
    assert Redactor({}).text(text) == text


# --- F4: tools' own dumps --------------------------------------------------------------------------------------------

S = "hunter2-Pa55w0rd!"

TOOL_DUMPS = [
    ("fish set -x", f"HOME /root\nDB_PASSWORD {S}\nPATH /usr/bin /bin\n", S),
    ("fish set -x quoted", f"EDITOR vim\nDB_PASSWORD '{S} x'\n", S),
    ("fish set -gx command", f"set -gx DB_PASSWORD {S}\n", S),
    ("csh setenv", f"setenv DB_PASSWORD {S}\nsetenv HOME /root\n", S),
    ("deepspeed config", f"[2026-11-23 12:00:00,000] [INFO] [config.py:1000:print]   comet_api_key ............... {A}\n", A),
    ("deepspeed dots pw", f"  mlflow_password ................. {S}\n", S),
    ("hadoop xml one line", f"<property><name>fs.s3a.secret.key</name><value>{A}</value></property>\n", A),
    ("hadoop xml lines", f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{A}</value>\n  <description>x</description>\n</property>\n", A),
    ("hive xml password", f"<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n  <value>{S}</value>\n</property>\n", S),
    ("conda channel", f"Channels:\n - https://conda.anaconda.org/t/xx-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d/my-channel\n",
     "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"),
    ("conda channel_alias", f"channel_alias: https://conda.anaconda.org/t/{A}\n", A),
    ("aws ecr get-login-password", "$ aws ecr get-login-password --region us-east-1\neyJwYXlsb2FkIjoi" + A * 3 + "\n", A * 3),
]


@pytest.mark.parametrize("name, text, secret", TOOL_DUMPS, ids=[c[0] for c in TOOL_DUMPS])
def test_tool_dump_loses_its_secret(name: str, text: str, secret: str) -> None:
    out = Redactor({}).text(text)
    assert secret not in out and REDACTED in out, out
    for size in (1, 9, 4096):
        assert _streamed(text, size) == out


@pytest.mark.parametrize("text", [
    "HOME /root\nPATH /usr/bin /bin\nLANG C.UTF-8\nSHLVL 1\n",
    "WARNING something happened\nPASSWORD_RESET sent\nTOKEN_BUDGET 4096\n",
    "setenv CUDA_VISIBLE_DEVICES 0,1\nset -gx EDITOR vim\n",
    "[INFO] [config.py:1000:print]   train_batch_size ............. 32\n"
    "[INFO] [config.py:1000:print]   comet ........................ CometConfig(enabled=False, project=None, api_key=None)\n"
    "[INFO] [config.py:1000:print]   tokenizer_name ............... gpt2\n",
    "<property>\n  <name>fs.s3a.secret.key</name>\n  <value>${env.AWS_SECRET}</value>\n</property>\n"
    "<property><name>dfs.replication</name><value>3</value></property>\n",
    "Channels:\n - https://conda.anaconda.org/conda-forge/linux-64\n - https://conda.anaconda.org/nvidia\n",
])
def test_tool_dumps_without_secrets_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


# --- F7: credential variable names -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["BW_SESSION", "OP_SESSION_my", "FASTLANE_SESSION", "AWS_SK", "HUAWEICLOUD_SDK_SK",
                                  "OCI_CLI_KEY_CONTENT"])
def test_credential_variable_names_are_secret(name: str) -> None:
    value = "q7Rm2xKp9vLw4TzN8bYc"
    assert value not in Redactor({"PATH": "/usr/bin", name: value}).text(f"value is {value} here")


@pytest.mark.parametrize("name", ["SESSION_NAME", "TMUX_SESSION", "SLURM_SESSION", "SK", "PK", "DYNAMO_SK_NAME",
                                  "KEY_CONTENT_TYPE", "SESSION", "OP_SESSION_TIMEOUT", "TASK"])
def test_ordinary_names_beside_them_stay(name: str) -> None:
    from aiperf_lab.triage.redact import is_secret_name
    assert not is_secret_name(name)


# --- F8: tokens in URLs and commands --------------------------------------------------------------------------------

H32 = "9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f"
URL_TOKENS = [
    (f"https://acme.webhook.office.com/webhookb2/1a2b3c4d-1111-2222-3333-444455556666@aaaa1111-bb22-cc33-dd44-eeee5555ffff"
     f"/IncomingWebhook/{H32}/7f8e9d0c-1111-2222-3333-444455556666", H32),
    ("https://chat.acme.com/hooks/xk9mq2vl7pr4tw8zn3bh6jf5cy", "xk9mq2vl7pr4tw8zn3bh6jf5cy"),
    ("https://hooks.zapier.com/hooks/catch/1234567/xk9mq2/", "xk9mq2"),
    (f"https://conda.anaconda.org/t/{A}/my-channel/linux-64/repodata.json", A),
    (f"Web UI available at http://localhost:8000?tkn={A}", A),
    (f"+ ngrok config add-authtoken 2{A}_{A[:20]}", "2" + A),
    (f"$ ngrok authtoken 2{A}_{A[:20]}", "2" + A),
]


@pytest.mark.parametrize("text, secret", URL_TOKENS)
def test_url_and_command_tokens_go(text: str, secret: str) -> None:
    out = Redactor({}).text(text)
    assert secret not in out and REDACTED in out, out


@pytest.mark.parametrize("text", [
    "see .git/hooks/pre-commit and /srv/app/hooks/post_receive_handler.py",
    "https://discuss.pytorch.org/t/cuda-out-of-memory-error-with-2-gpus/12345",
    "https://hooks.zapier.com/hooks/catch/",
    "ngrok http 8080 --log stdout",
    "TKN=3 tkn= done",
])
def test_urls_and_commands_without_tokens_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


# --- F9: log lines that lost data --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "tokenizer.pad_token = tokenizer.eos_token",
    "self.api_key = config.api_key",
    "triton_tem_fused_mm_0 key: mm-9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b5c2f9a6d3e0b7c4f1a8d5e2b",
    "envFrom: - secretRef: name: app-secrets",
    "imagePullSecrets: [{name: regcred}]",
    "login succeeded for user alice (auth=publickey)",
])
def test_log_lines_that_hold_no_secret_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text, secret, kept", [
    ("connect(user=app, password=Zq8vN2mK5pL9xR4t)", "Zq8vN2mK5pL9xR4t", ")"),
    ("tokenizer.pad_token = hf_tok.Zq8vN2mK5pL9xR4t", "Zq8vN2mK5pL9xR4t", ""),
    ("key: 9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b5c2f9a6d3e0b7c4f1a8d5e2b", "9f2b6c1e0a7d4e3b8c5f", ""),
    ("secret: name: Zq8vN2mK5pL9xR4t", "Zq8vN2mK5pL9xR4t", ""),
    ("password: [hunter2-Pa55w0rd!]", "hunter2-Pa55w0rd", ""),
])
def test_secrets_beside_those_shapes_still_go(text: str, secret: str, kept: str) -> None:
    out = Redactor({}).text(text)
    assert secret not in out and out.endswith(kept), out


def test_path_shaped_password_assigned_on_the_command_line_is_known() -> None:
    from aiperf_lab.triage.redact import argv_secret_values
    value = "/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX"
    assert argv_secret_values(["env", f"DB_PASSWORD={value}", "python3", "w.py"]) == [value]
    assert argv_secret_values(["env", "DB_PASSWORD_FILE=/run/secrets/db_password", "python3", "w.py"]) == []
    assert argv_secret_values(["python3", "w.py", "db.password=/run/secrets/db_password"]) == []


# ---- h14: a short generated password shaped like a path (no piece holds a word) ---------------------------------------

@pytest.mark.parametrize("value", ["/Kq8zL/mR2x9", "/p/q1R2", "./a1B2/c9", "/Xk9m/2vL7"])
def test_a_path_shaped_value_with_no_word_in_it_is_a_secret(value: str) -> None:
    for text in (f"DB_PASSWORD={value}\n", f"password: {value}\n", f"--password {value}\n"):
        out = Redactor({}).text(text)
        assert value not in out, out


@pytest.mark.parametrize("value", ["/run/secrets/db", "/dev/sda1", "/a/b", "/x86/v2", "/mnt/d0/H100", "~/k8/v1",
                                   "/etc/ssl/key.pem", "/opt/A1b2/x"])
def test_a_real_path_after_a_secret_file_name_stays(value: str) -> None:
    for text in (f"password_file={value}\n", f"GOOGLE_APPLICATION_CREDENTIALS={value}\n"):
        assert Redactor({}).text(text) == text
