"""Third red-team pass (issue 11): names and values wrongly taken for secrets (F1, F4), secret names
missed (A4), token shapes after an escape (A0), and patterns that rescanned text (P1)."""

from __future__ import annotations

import base64
import json
import textwrap

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor, argv_secret_values, is_secret_name

# Ordinary names whose values were wiped from every file of a bundle (F4).
NOT_SECRET_NAMES = ["MAX_NEW_TOKENS", "TOKEN_BUDGET", "TOKENIZER_NAME", "SESSION_NAME", "TMUX_SESSION", "NUM_SESSIONS",
                    "SORT_KEY", "CACHE_KEY", "AUTHOR", "GIT_AUTHOR_NAME", "SIGNATURE_VERSION", "COOKIECUTTER_CONFIG",
                    "HF_HUB_DISABLE_IMPLICIT_TOKEN", "TIKTOKEN_ENCODING", "PIN_MEMORY", "AUTH_TYPE", "TOKEN_COUNT",
                    "PASSWORD_MIN_LENGTH", "OUTPUT_TOKEN_THROUGHPUT", "SIGNING_ENABLED", "AUTHORIZATION_URL", "PWD", "OLDPWD", "NUM_PASSES", "COMPASS"]
# Names that hold secrets, the red team's A4 list first, then the usual ones.
SECRET_NAMES = ["DB_CREDS", "PASSCODE", "SSH_PRIVKEY", "KEY_MATERIAL", "PGPASS", "ADMIN_PIN", "OTP_SEED", "DEPLOY_KEYS",
                "SERVICE_ACCOUNT_JSON_B64", "AUTHN", "X_AUTHORIZATION", "SALT", "API_SIGNING", "HF_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
                "PGPASSWORD", "DB_PWD", "KEY", "WANDB_API_KEY", "SESSION_ID", "NPM_AUTH", "SIGNING_KEY", "apiKey",
                "clientSecret", "HUGGING_FACE_HUB_TOKEN", "GOOGLE_CREDENTIALS", "SESSION_TOKEN", "DB_PASS", "MYSQL_PW"]


@pytest.mark.parametrize("name", NOT_SECRET_NAMES)
def test_ordinary_names_are_not_secret(name):
    assert not is_secret_name(name)


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names_are_secret(name):
    assert is_secret_name(name)
    assert Redactor({name: "Zq7hbiGjlvhk"}).text("value Zq7hbiGjlvhk here") == f"value {REDACTED} here"


def test_values_of_ordinary_names_stay_everywhere():
    """The red team's repro: the values were wiped from every line and table of the bundle."""
    environ = {"MAX_NEW_TOKENS": "16384", "TOKENIZER_NAME": "meta-llama/Llama-3.1-8B", "GIT_AUTHOR_NAME": "Jane Doe",
               "SESSION_NAME": "train-run-7", "SORT_KEY": "duration_ms", "HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12"}
    r = Redactor(environ)
    line = "loading meta-llama/Llama-3.1-8B; grid (16384, 1, 1); 16384 MiB free; train-run-7 by Jane Doe"
    assert r.text(line) == line
    clean = r.environment(environ)
    assert clean["MAX_NEW_TOKENS"] == "16384" and clean["SORT_KEY"] == "duration_ms"
    assert clean["HF_TOKEN"] == REDACTED


@pytest.mark.parametrize("line", [
    '{"output_token_throughput": 1234.5, "total_token_throughput": 2345.6}', "per_token_latency_ms: 7.5",
    "time_per_output_token_ms=7.5", "token_count: 512", "prompt_token_len=2048", "max_token_len: 4096",
    '"outputTokenThroughput": 12.5', "secret=False", "api_key=None", "cookie: none", "auth: disabled", "num_pass: 100",
    "gpu_pw=350.2", "password: null", "token: 0", "basic  configuration_value_here", "bearer  allocation_strategy_default",
    "sort_key=abcdef0123456789abcdef01", "api_key:\n  None",
])
def test_metrics_and_settings_with_secret_words_stay(line):
    assert Redactor({}).text(line) == line


@pytest.mark.parametrize("line, secret", [
    ("api_key=abcXYZ123", "abcXYZ123"), ("password: hunter22", "hunter22"), ("token: 123456789", "123456789"),
    ('"client_secret": "s3cr3t-value"', "s3cr3t-value"), ("Authorization: Bearer abcdefGHIJ123456", "abcdefGHIJ123456"),
    ("key=abcdef0123456789abcdef01", "abcdef0123456789abcdef01"), ("db_password=Tr0ub4dor&3", "Tr0ub4dor"),
    ("api_key:\n  Zq7hbiGjlvhk", "Zq7hbiGjlvhk"),
])
def test_secret_assignments_still_go(line, secret):
    assert secret not in Redactor({}).text(line)


def test_secret_flags_by_whole_words():
    argv = ["python3", "x.py", "--max-tokens", "16384", "--token-budget", "4096", "--sort-key", "latency",
            "--pat", "ghpatValue123", "--creds", "CredsValue99", "--passcode", "Passcode77x"]
    assert argv_secret_values(argv) == ["ghpatValue123", "CredsValue99", "Passcode77x"]


def test_more_secret_flags_the_red_team_found_kept():
    values = {"--dbpass": "Dbpass4Value", "--hmac": "HmacValue77x", "--mfa": "MfaCode9911", "--sig": "SigValue12ab",
              "--signature": "SignatureVal7", "--webhook": "WebhookVal99", "--jwt": "JwtValue12ab"}
    argv = ["python3", "x.py", "--signature-version", "4", "--webhook-url", "https://example.com/hook",
            "--sig-algo", "sha256"] + [x for flag, value in values.items() for x in (flag, value)]
    assert argv_secret_values(argv) == list(values.values())


# A0: a token right after an escape that ends in a letter or digit (JSON, URL, repr, terminal colour).
SHAPES = {"github": "ghp_R8x2Kq9LmZ4vT7wY1nB5cD3fG6hJ0kP2sQ9a", "github pat": "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
          "hugging face": "hf_Zx8Lq2Wm9Rt4Yp7Kd3Nf6Hj1Bv5Cx0Qs8Pz", "aws": "AKIAIOSFODNN7EXAMPL3",
          "slack": "xoxb-123456789012-abcdefghijkl", "openai": "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
          "google": "AIzaSyA1234567890abcdefghijklmnopqrstuv", "gitlab": "glpat-abcdefghijklmnopqrst",
          "npm": "npm_abcdefghijklmnopqrstuvwxyz0123456789", "stripe": "sk_live_51Habcdefghijklmnopqrstu",
          "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij"}
ESCAPED = {"json newline": "login ok\\n{}", "json tab": "a\\t{}", "url-encoded =": "x%3D{}", "url-encoded space": "x%20{}",
           "bytes repr": "b'\\x00{}'", "ansi colour": "\x1b[32m{}\x1b[0m", "ansi 256 colours": "\x1b[38;5;208m{}",
           "escaped ansi": "\\033[1;31m{}", "unicode escape": "\\u001b[0m{}", "after a line erase": "\r\x1b[K{}"}


@pytest.mark.parametrize("context", list(ESCAPED.values()), ids=list(ESCAPED))
@pytest.mark.parametrize("token", list(SHAPES.values()), ids=list(SHAPES))
def test_token_after_an_escape_goes(token, context):
    out = Redactor({}).text(context.format(token))
    assert token[6:18] not in out and REDACTED in out


@pytest.mark.parametrize("token", [t for name, t in SHAPES.items() if name not in ("jwt", "aws", "gitlab")])
def test_token_after_a_digit_or_underscore_goes(token):
    assert token[6:18] not in Redactor({}).text(f"v1{token} tok_{token}")


@pytest.mark.parametrize("word", ["task-proj-abcdefghijklmnopqrstuvwxyz012345", "disk-partition-label-whatever-long",
                                  "xghp_R8x2Kq9LmZ4vT7wY1nB5cD3fG6hJ0kP2sQ9a", "myhf_Zx8Lq2Wm9Rt4Yp7Kd3Nf6Hj1Bv5Cx0Qs8Pz",
                                  "\\nthe_glpat-like_name_is_not_a_token"])
def test_token_letters_inside_a_word_stay(word):
    assert Redactor({}).text(word) == word


def test_escaped_token_in_a_stream_and_a_json_log():
    import json
    token = SHAPES["github"]
    stream = StreamRedactor(Redactor({}))
    out = stream.feed(json.dumps({"msg": "login ok\n" + token}) + "\n") + stream.close()
    assert token[:12] not in out and out.startswith('{"msg": "login ok\\n[REDACTED]')


# P1: the workload's pipe is read into memory while redaction runs, so a slow redaction does not block it.
def test_a_slow_redaction_does_not_block_the_workloads_pipe(tmp_path, monkeypatch):
    import os
    import threading
    import time

    from aiperf_lab.triage import workload_output

    calls = []
    feed = StreamRedactor.feed

    def slow_feed(self, text):
        calls.append(len(text))
        time.sleep(0.3)  # far slower than the writer
        return feed(self, text)

    monkeypatch.setattr(StreamRedactor, "feed", slow_feed)
    log = workload_output.RedactedLog(tmp_path / "stdout.log", Redactor({"HF_TOKEN": SHAPES["hugging face"]}),
                                      cap_bytes=64 << 20)
    read, write = os.pipe()
    log.attach(os.fdopen(read, "rb"))
    lines = [b"step %d loss 0.5 token %s\n" % (i, SHAPES["hugging face"].encode()) for i in range(40000)]
    started = time.monotonic()
    with os.fdopen(write, "wb", buffering=0) as sink:
        for line in lines:  # line by line, as a workload that flushes each print
            sink.write(line)
    written_s = time.monotonic() - started
    log.finish()
    out = (tmp_path / "stdout.log").read_text()
    assert written_s < 0.3 * len(calls) / 2, (written_s, len(calls))  # the writer did not wait on the redactor
    assert len(calls) < len(lines) / 100  # lines queued meanwhile were redacted in batches
    assert out.count("\n") == len(lines) and "step 39999 loss" in out and SHAPES["hugging face"][:12] not in out
    assert threading.active_count() < 20


# A9/A10: shapes of keys this audience holds (NGC, PyPI, Databricks, Docker Hub, Vault, ...).
@pytest.mark.parametrize("token", [
    "nvapi-" + "Ab3" * 22, "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
    "dapi" + "0123456789abcdef" * 2, "dckr_pat_abcdefghijklmnopqrstuvwx", "hvs." + "CAESIJx9" * 11, "gsk_" + "a1" * 26,
    "r8_" + "Ab1" * 13, "ya29.a0AfH6SMBabcdefghijklmnop", "GOCSPX-abcdefghijklmnopqrstuv", "whsec_abcdefghijklmnopqrstuvwxyz",
    "dop_v1_" + "0123456789abcdef" * 4, "shpat_" + "0123456789abcdef" * 2, "lin_api_" + "Ab1" * 12,
    "ntn_" + "Ab1" * 12, "AGE-SECRET-KEY-1" + "QZ7" * 20, "xapp-1-A0123456789-0123456789-abcdef",
])
def test_more_token_shapes_go(token):
    out = Redactor({}).text(f"using {token}\n")
    assert out == f"using {REDACTED}\n"
    assert Redactor({}).text(f'{{"msg": "ok\\n{token}"}}').endswith(f'\\n{REDACTED}"}}')


# A3: a short known secret printed in two halves on two lines, each shorter than a piece.
@pytest.mark.parametrize("secret, cut", [("AvoCMF1ZIDKtxODiDeDeFF", 11), ("AKIAIOSFODNN7EXAMPLE", 10), ("Pw9xQ2mZ", 4)])
def test_a_short_secret_in_two_halves_on_two_lines_goes(secret, cut):
    r = Redactor({}, extra_secrets=[secret])
    text = f"noise\n{secret[:cut]}\n{secret[cut:]}\nafter\n"
    assert r.text(text) == f"noise\n{REDACTED}\n{REDACTED}\nafter\n"
    stream = StreamRedactor(r)
    out = "".join(stream.feed(line) for line in text.splitlines(keepends=True)) + stream.close()
    assert out == f"noise\n{REDACTED}\n{REDACTED}\nafter\n"


def test_argv_secret_printed_in_halves():
    argv = ["python3", "x.py", "--token", "AvoCMF1ZIDKtxODiDeDeFF"]
    r = Redactor({}, extra_secrets=argv_secret_values(argv))
    assert "txODiDeDeFF" not in r.text("AvoCMF1ZIDK\ntxODiDeDeFF\n")


# F3: user and host names that are common words or product names, under --redact-hosts.
@pytest.mark.parametrize("user, host", [("nvidia", "h100"), ("ubuntu", "dgx-h100"), ("data", "gpu"), ("admin", "a100")])
def test_common_user_and_host_names_go_only_where_they_name_a_user_or_host(user, host, monkeypatch):
    from aiperf_lab.triage.redaction import redactor as redactor_module

    monkeypatch.setattr(redactor_module.socket, "gethostname", lambda: host)
    monkeypatch.setattr(redactor_module.socket, "getfqdn", lambda: host)
    monkeypatch.setattr(redactor_module.getpass, "getuser", lambda: user)
    r = Redactor({"USER": user, "HOSTNAME": host}, redact_hosts=True)
    kept = "NVIDIA H100 80GB HBM3, NVIDIA-SMI 550, nvidia-cudnn-cu12; Ubuntu 22.04.4 LTS; Data loader; load data.csv; A100 GPU"
    assert r.text(kept) == kept
    private = f"/home/{user}/run; {user}@{host}:~$ ls; ssh {user}@node7; user={user}; Linux {host} 5.15; {host}.cluster.local\n{host}\n"
    out = r.text(private)
    assert f"/{user}/" not in out and f"{user}@" not in out and f"@{host}" not in out and f"\n{host}\n" not in out
    assert out.count("user-1") == 4 and out.count("host-1") == 4


def test_a_specific_user_or_host_name_goes_everywhere(monkeypatch):
    from aiperf_lab.triage.redaction import redactor as redactor_module

    monkeypatch.setattr(redactor_module.socket, "gethostname", lambda: "gpunode17")
    monkeypatch.setattr(redactor_module.socket, "getfqdn", lambda: "gpunode17.acme-corp.example")
    r = Redactor({"USER": "alice", "HOSTNAME": "gpunode17"}, redact_hosts=True)
    out = r.text("run by alice on gpunode17 (Alice's job)")
    assert "alice" not in out.lower() and "gpunode17" not in out


# U1/U2: URL credentials in other spellings.
def test_a_proxy_without_a_scheme_keeps_its_host_and_loses_its_password():
    environ = {"HTTP_PROXY": "bob:Pw9xQ2mZ7kL4@proxy.corp:3128", "https_proxy": "alice:Qx7Pw2mZ9@proxy:8080",
               "NO_PROXY": "localhost,10.0.0.0/8"}
    r = Redactor(environ)
    assert r.environment(environ) == {"HTTP_PROXY": f"bob:{REDACTED}@proxy.corp:3128", "NO_PROXY": "localhost,10.0.0.0/8",
                                      "https_proxy": f"alice:{REDACTED}@proxy:8080"}
    assert "Pw9xQ2mZ7kL4" not in r.text("pip: using proxy bob:Pw9xQ2mZ7kL4@proxy.corp:3128")


@pytest.mark.parametrize("text, password", [
    ("redirect=postgres%3A%2F%2Fapp%3APw9xQ2mZ%40db%2Fx&y=1", "Pw9xQ2mZ"),
    ("GET /cb?u=https%3a%2f%2fu%3aS3cr%2Bet99%40h", "S3cr%2Bet99"),
    ('{"url": "https:\\/\\/app:Pw9xQ2mZ@db.example\\/x"}', "Pw9xQ2mZ"),
])
def test_passwords_of_encoded_and_escaped_urls_go(text, password):
    out = Redactor({}).text(text)
    assert password not in out and REDACTED in out


def test_a_known_secret_in_base64_wrapped_at_76_columns_goes_line_by_line():
    # `printf %s "$AZURE_STORAGE_CONNECTION_STRING" | base64` wraps at 76: each line holds a piece of
    # the key's base64, which a search for the whole encoded text missed.
    import base64
    import textwrap
    from aiperf_lab.triage.redact import Redactor, StreamRedactor

    key = "TzHtXLsOCaVdDDqNzJCWEICXbmpq7lVGIAGEtZXTwO7tek5Gig7oFgB7b2JrGu41JpHVXM3iv4nuuHxYA6dvg9=="
    secret = f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"
    redactor = Redactor({"AZURE_STORAGE_CONNECTION_STRING": secret})
    for prefix in ("", "x", "ab"):           # the key's base64 at each alignment
        encoded = base64.b64encode((prefix + secret).encode()).decode()
        wrapped = "\n".join(textwrap.wrap(encoded, 76)) + "\n"
        stream = StreamRedactor(redactor)
        for out in (redactor.text(wrapped), stream.feed(wrapped) + stream.close()):
            joined = out.replace("\n", "")
            for offset in range(3):               # the key's base64 at each alignment within the text
                part = key.encode()[offset:]
                key_b64 = base64.b64encode(part).decode()[:len(part) // 3 * 4]
                for at in range(0, len(key_b64) - 24, 4):   # no 24-character run of it is left
                    assert key_b64[at:at + 24] not in joined, (prefix, offset, at)


# ---- fourth pass: a known secret in a hex dump, an octal dump, or hex and decimal with separators (A1) ----------

HF = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345ab"
# What `printf %s "$HF_TOKEN" | TOOL` prints (captured from util-linux hexdump 2.39, xxd 2024, GNU od 9.4).
DUMPS = {
    "hexdump -C": "00000000  68 66 5f 51 77 33 72 54  79 37 75 49 6f 50 61 53  |hf_Qw3rTy7uIoPaS|\n"
                  "00000010  64 46 67 48 6a 4b 6c 5a  78 43 76 42 6e 4d 31 32  |dFgHjKlZxCvBnM12|\n"
                  "00000020  33 34 35 61 62                                    |345ab|\n00000025\n",
    "xxd": "00000000: 6866 5f51 7733 7254 7937 7549 6f50 6153  hf_Qw3rTy7uIoPaS\n"
           "00000010: 6446 6748 6a4b 6c5a 7843 7642 6e4d 3132  dFgHjKlZxCvBnM12\n"
           "00000020: 3334 3561 62                             345ab\n",
    "od -c": "0000000   h   f   _   Q   w   3   r   T   y   7   u   I   o   P   a   S\n"
             "0000020   d   F   g   H   j   K   l   Z   x   C   v   B   n   M   1   2\n"
             "0000040   3   4   5   a   b\n0000045\n",
    "hexdump -c": "0000000   h   f   _   Q   w   3   r   T   y   7   u   I   o   P   a   S\n"
                  "0000010   d   F   g   H   j   K   l   Z   x   C   v   B   n   M   1   2\n"
                  "0000020   3   4   5   a   b                                            \n0000025\n",
    "od -A x -t x1z": "000000 68 66 5f 51 77 33 72 54 79 37 75 49 6f 50 61 53  >hf_Qw3rTy7uIoPaS<\n"
                      "000010 64 46 67 48 6a 4b 6c 5a 78 43 76 42 6e 4d 31 32  >dFgHjKlZxCvBnM12<\n"
                      "000020 33 34 35 61 62                                   >345ab<\n000025\n",
    "od -t x1": "0000000 68 66 5f 51 77 33 72 54 79 37 75 49 6f 50 61 53\n"
                "0000020 64 46 67 48 6a 4b 6c 5a 78 43 76 42 6e 4d 31 32\n0000040 33 34 35 61 62\n0000045\n",
    "hexdump": "0000000 6668 515f 3377 5472 3779 4975 506f 5361\n0000010 4664 4867 4b6a 5a6c 4378 4276 4d6e 3231\n"
               "0000020 3433 6135 0062                         \n0000025\n",
    "od -x": "0000000 6668 515f 3377 5472 3779 4975 506f 5361\n0000020 4664 4867 4b6a 5a6c 4378 4276 4d6e 3231\n"
             "0000040 3433 6135 0062\n0000045\n",
    "bytes.hex(' ')": "key: " + HF.encode().hex(" ") + "\n",
    "bytes.hex(':')": "key: " + HF.encode().hex(":") + "\n",
    "0x, ": "key = {" + ", ".join(f"0x{b:02x}" for b in HF.encode()) + "}\n",
    "0x,": "key = {" + ",".join(f"0x{b:02X}" for b in HF.encode()) + "}\n",
    "list(bytes)": "key " + str(list(HF.encode())) + "\n",
}


def _leaks(out: str, secret: str) -> list[str]:
    """Any 8 characters of the secret, read back from the text, its hex (any separator, or 2-byte words in
    little-endian order) or its dump columns."""
    flat = "".join(out.split()).replace("|", "").replace(">", "").replace("<", "")
    hex_flat = "".join(c for c in out.lower() if c in "0123456789abcdef")
    words = "".join(hex_flat[k + 2:k + 4] + hex_flat[k:k + 2] for k in range(0, len(hex_flat) - 3, 4))
    words_shifted = "".join(hex_flat[k + 2:k + 4] + hex_flat[k:k + 2] for k in range(2, len(hex_flat) - 3, 4))
    return [secret[k:k + 8] for k in range(len(secret) - 7) if secret[k:k + 8] in flat
            or any(secret[k:k + 8].encode().hex() in h for h in (hex_flat, words, words_shifted))]


@pytest.mark.parametrize("form", sorted(DUMPS))
def test_a_known_secret_in_any_dump_or_separated_hex_goes(form):
    r = Redactor({"HF_TOKEN": HF})
    text = "before\n" + DUMPS[form] + "after 0000 done\n"
    for out in (r.text(text), _streamed(r, text, 7), _streamed(r, text, 64)):
        assert not _leaks(out, HF), (form, out)
        assert out.startswith("before\n") and out.endswith("after 0000 done\n") and REDACTED in out


@pytest.mark.parametrize("form", ["hexdump -C", "xxd", "od -c"])
def test_a_token_shape_in_a_dump_goes_without_knowing_it(form):
    out = Redactor({}).text(DUMPS[form])   # not in the environment: found by its shape in the decoded bytes
    assert not _leaks(out, HF), out


def test_a_dump_of_ordinary_bytes_stays_as_it_is():
    text = ("00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|\n"
            "00000010  03 00 3e 00 01 00 00 00  60 61 00 00 00 00 00 00  |..>.....`a......|\n"
            "0000000   m   o   d   e   l   .   s   a   f   e   t   e   n   s   o   r\n"
            "fingerprint 4f:3a:9b:12:77:0c:de:ad:be:ef:01:02:03:04:05:06\n[104, 101, 108, 108, 111, 32, 119, 111]\n")
    assert Redactor({"HF_TOKEN": HF}).text(text) == text


def _streamed(redactor, text, size):
    return fed_in_reads(redactor, text, size, piece=1 << 16)


# ---- fourth pass: shapes and encodings that still passed (A6, A7, A2, A5) ------------------------------------------

SLACK_HOOK = "https://hooks.slack.com/services/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"


def test_a_slack_webhook_url_goes_by_its_shape_and_then_in_every_form():
    environ = {"NOTIFY_HOOK": SLACK_HOOK}
    r = Redactor(environ)
    assert "9ckwAq5HuSGfrEoGAdSgjNww" not in r.environment(environ)["NOTIFY_HOOK"]
    for printed in (SLACK_HOOK, SLACK_HOOK.encode().hex(), base64.b64encode(SLACK_HOOK.encode()).decode(),
                    json.dumps({"url": SLACK_HOOK.replace("/", "\\/")})):
        out = r.text(f"posting to {printed} now")
        assert "9ckwAq5HuSGfrEoGAdSgjNww" not in out and "9ckwAq5HuSGfrEoGAdSgjNww".encode().hex() not in out, out
    assert "AdSgjNww" not in Redactor({}).text("hook " + SLACK_HOOK.replace("T82GDZAFC", "T0123ABCD"))
    kept = "see https://api.slack.com/messaging/webhooks and https://hooks.slack.com/ for details"
    assert Redactor({}).text(kept) == kept


@pytest.mark.parametrize("line, password", [
    ("db.example.com:5432:*:app:Lp4fpUt4zcvWosXS", "Lp4fpUt4zcvWosXS"),
    ("x localhost:*:*:postgres:hunter2hunter y", "hunter2hunter"),
    ("10.0.0.5:5432:analytics:reader:S3cr3t!pw", "S3cr3t!pw"),
    ("*:*:*:replicator:Zq8vN2kLmW4x", "Zq8vN2kLmW4x"),
])
def test_a_pgpass_line_loses_its_password(line, password):
    out = Redactor({}).text(line)
    assert password not in out and REDACTED in out, out


@pytest.mark.parametrize("line", ["fe80:0:0:0:1ff:fe23:4567:890a", "2001:db8:0:0:8:800:200c:417a", "12:34:56:78:90",
                                  "nccl:0:1:2:3", "std::vector<int>::iterator", "a:1:b:c:d", "host:8080:GET:/api:200",
                                  "2026-11-23T05:00:01:123:456:789"])
def test_lines_with_colons_that_are_no_pgpass_line_stay(line):
    assert Redactor({}).text(line) == line


PEM = ("-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(["MHcCAQEEIBkg4Lq8vN2kLmW4xR7tY1pQs9dFh3jK6bVc0Zq8vN2kLmW4xR7tY1pQ",
                                                    "s9dFh3jK6bVc0AoGCCqGSM49AwEHoUQDQgAEZq8vN2kLmW4xR7tY1pQs9dFh3jK6",
                                                    "bVc0Zq8vN2kLmW4xR7tY1pQs9dFh3jK6bVc0Zq8vN2kLmW4xR7tY1pQs9dFh3jK"])
       + "\n-----END EC PRIVATE KEY-----\n")


@pytest.mark.parametrize("encode", [lambda v: base64.b64encode(v.encode()).decode(), lambda v: v.encode().hex(),
                                    lambda v: "\n".join(textwrap.wrap(base64.b64encode(v.encode()).decode(), 76))])
def test_a_multi_line_key_in_the_environment_goes_base64_or_hex_encoded(encode):
    r = Redactor({"TLS_X": PEM})   # a neutral name: the key is found by its shape in the value
    out = r.text("key: " + encode(PEM) + "\n")
    encoded = encode(PEM).replace("\n", "")
    assert not [k for k in range(0, len(encoded) - 16, 4) if encoded[k:k + 16] in out.replace("\n", "")], out


def test_a_key_line_printed_in_two_halves_goes():
    r = Redactor({"TLS_X": PEM})
    body = json.dumps(PEM)[1:-1]            # as a JSON string: \n escapes, one line
    half = len(body) // 2
    out = r.text(f"[gcp|split] {body[:half]}\n{body[half:]}\n")
    lines = PEM.splitlines()[1:-1]
    assert not [line[k:k + 10] for line in lines for k in range(len(line) - 9) if line[k:k + 10] in out], out


def test_a_short_secret_in_wrapped_base64_goes():
    # .netrc's password (18 characters) inside a longer text printed by `base64` (wrapped at 76)
    line = "machine api.example.com login bob password 6CuOYFKme2n5GrHklm"
    r = Redactor({"NETRC_X": line})
    out = r.text(base64.encodebytes(b"prefix-" + line.encode() + b"-suffix" * 8).decode())
    joined = out.replace("\n", "")
    for offset in range(3):
        part = "6CuOYFKme2n5GrHklm".encode()[offset:]
        core = base64.b64encode(part).decode()[:len(part) // 3 * 4]
        assert not [core[k:k + 12] for k in range(len(core) - 11) if core[k:k + 12] in joined], (offset, out)


@pytest.mark.parametrize("argv, secret", [(["python3", "wl.py", "-a", "AaX9kLmW4xR7tY1pQs9dFh"], "AaX9kLmW4xR7tY1pQs9dFh"),
                                          (["client", "-a", "Zq8vN2kLmW4xR7tY1pQs"], "Zq8vN2kLmW4xR7tY1pQs")])
def test_a_random_looking_value_after_a_goes(argv, secret):
    assert secret in argv_secret_values(argv)


@pytest.mark.parametrize("argv", [["train.py", "-a", "resnet50"], ["x", "-a", "Meta-Llama-3-8B-Instruct"],
                                  ["x", "-a", "TinyLlama1B"], ["tar", "-a", "-cf", "x.tar.gz", "dir"],
                                  ["x", "-a", "sm_90a"], ["x", "-a", "/path/to/Model7B"]])
def test_ordinary_values_after_a_stay(argv):
    assert argv_secret_values(argv) == []


# ---- fourth pass: --redact-hosts, other hosts' names, MACs in other spellings (H1-H3) ------------------------------


@pytest.fixture
def fqdn_host(monkeypatch):
    from aiperf_lab.triage.redaction import redactor as redactor_module

    monkeypatch.setattr(redactor_module.socket, "gethostname", lambda: "gpunode17")
    monkeypatch.setattr(redactor_module.socket, "getfqdn", lambda: "gpunode17.acme-corp.example")
    monkeypatch.setattr(redactor_module, "_own_macs", lambda: set())
    return Redactor({"HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}, redact_hosts=True)


@pytest.mark.parametrize("text, gone", [
    ("peer node8.cluster.acme-corp.example ok", "node8"),
    ("rendezvous c10d://trainer-03.acme-corp.example:29400", "trainer-03"),
    ("search acme-corp.example", "acme-corp"),
    ("aws host ip-10-0-1-23.ec2.internal", "10-0-1-23"),
    ("node ip-172-31-5-9.us-west-2.compute.internal ready", "172-31-5-9"),
    ("hostname ip-10-0-1-23", "10-0-1-23"),
    ("gcp node gke-pool-1-abcd.c.my-project-123.internal", "my-project-123"),
    ("vm trainer-2.us-central1-a.c.my-project-123.internal", "trainer-2"),
    ("NCCL INFO NET/Socket : Using [0]eth0:198.51.100.77<0>", "198.51.100.77"),
    ("NCCL INFO Bootstrap : Using ib0:203.0.113.91<0>", "203.0.113.91"),
    ("peer=198.51.100.23", "198.51.100.23"),
    ("mac cisco 001b.213a.4f5c", "001b.213a"),
])
def test_redact_hosts_covers_other_hosts_of_the_domain_cloud_names_and_cisco_macs(fqdn_host, text, gone):
    out = fqdn_host.text(text)
    assert gone.lower() not in out.lower() and REDACTED not in out, out


def test_one_machine_keeps_one_placeholder_across_spellings(fqdn_host):
    out = fqdn_host.text("a node8.cluster.acme-corp.example b node8.cluster.acme-corp.example "
                         "mac 00:1b:21:3a:4f:5c = 001b.213a.4f5c = 00-1B-21-3A-4F-5C")
    assert out.count("host-") == 2 and len(set(out.split()) & {"host-1", "host-2", "host-3"}) == 1, out
    assert len({w for w in out.split() if w.startswith("mac-")}) == 1, out


@pytest.mark.parametrize("text", [
    "tensorrt 10.3.0.26", "loading model.safetensors", "Linux 5.15.0-1045-nvidia x86_64", "torch 2.5.1+cu124",
    "File google/protobuf/internal/decoder.py; import google.protobuf.internal", "see acme-corp.example.com/docs",
    "the ip-address field", "ip-10 is not an address", "meta-llama/Llama-3.1-8B-Instruct", "v1.2.3-rc.4",
    "step 1234.5678.9012", "sha 0a1b2c3d.4e5f", "cuDNN 9.1.0.70, NCCL 2.21.5", "nvidia-smi 550.54.15",
])
def test_redact_hosts_keeps_versions_models_and_file_names(fqdn_host, text):
    assert fqdn_host.text(text) == text


def test_this_hosts_macs_go_in_every_spelling(tmp_path, monkeypatch):
    from aiperf_lab.triage.redaction import hosts as host_rules, redactor as redactor_module

    (tmp_path / "eth0").mkdir()
    (tmp_path / "eth0" / "address").write_text("02:fc:00:00:00:01\n")
    (tmp_path / "lo").mkdir()
    (tmp_path / "lo" / "address").write_text("00:00:00:00:00:00\n")
    assert host_rules._own_macs(str(tmp_path)) == {"02:fc:00:00:00:01"}
    monkeypatch.setattr(redactor_module, "_own_macs", lambda: {"02:fc:00:00:00:01"})
    out = Redactor({"HOSTNAME": "n1"}, redact_hosts=True).text("own 02:fc:00:00:00:01 nosep 02fc00000001 cisco 02fc.0000.0001")
    assert "02fc" not in out.lower().replace(":", "") and out.count("mac-1") == 3, out
