"""Forms read at a line's start (printed commands, Redis, YAML/TOML/HCL layouts, value-first pairs, listings, XML, cloud
tables) as real tools print them: behind a log prefix on every line (torchrun, timestamps, logging formats, glog,
compose, kubectl logs, pytest, syslog, coloured), inside a JSON string, a JSON log record or a repr(), line by line or
the whole text at once (line_views: the rules read each such line without its prefix, quotes and escapes). Values are
in no environment variable: only the form's rule can find them. Ordinary lines with the same prefixes stay as they are."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

P = "hunter2Pa55w0rd"
S = "Xk9mQ2vL7pR4tW8z"

FORMS = [
    (f"redis> AUTH {P}", [P]),
    (f"127.0.0.1:6379> AUTH default {P}", [P]),
    (f"AUTH default {P}", [P]),
    (f"NET USE Z: \\\\srv\\share /USER:CORP\\alice {P}", [P]),
    (f"psexec \\\\srv -u alice -p {P} cmd", [P]),
    (f"New-SmbMapping -RemotePath \\\\srv\\s -UserName alice -Password {P}", [P]),
    (f"PS C:\\Users\\bob> $s = ConvertTo-SecureString '{P}' -AsPlainText -Force", [P]),
    (f"env:\n- value: {P}\n  name: DB_PASSWORD", [P]),
    ('{\n  "Parameters": [\n    {\n      "ParameterKey": "DbPassword",\n'
     f'      "ParameterValue": "{P}"\n    }}\n  ]\n}}', [P]),
    (f"kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{P}", [P]),
    (f"<property>\n  <value>{S}</value>\n  <name>fs.s3a.secret.key</name>\n</property>", [S]),
    (f"? password\n: {P}", [P]),
    (f"password: # the db\n  {P}", [P]),
    (f"db:\n  api_key:   # rotated monthly\n    {S}\nnext: 1", [S]),
    (f"password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {S}6162\n  3961373834", [S + "6162"]),
    (f"api_tokens: &t\n  - {S}\n  - {P}", [S, P]),
    (f"secrets: !!seq\n- {S}", [S]),
    (f"password = <<EOT\n{P}\nEOT", [P]),
    (f'  secret_key = <<-"EOF"\n    {S}\n    EOF', [S]),
    (f"password: >2-\n    {P}", [P]),
    (f"set -x DB_PASSWORD {P} other", [P]),
    (f"  mlflow_password  {P}", [P]),
]

PREFIXES = ["[rank0]: ", "2026-11-24T00:01:02.123456Z ", "INFO:root:", "2026-11-24 00:01:02,123 - train - INFO - ",
            "I1124 00:01:02.123456  4242 run.py:12] ", "app-1  | ", "[pod/trainer-0/main] ", "E       ",
            "Nov 24 00:01:02 node7 train[4242]: ", "\x1b[2m2026-11-24 00:01:02\x1b[0m \x1b[34mINFO\x1b[0m "]


def _per_line(text: str, wrap) -> str:
    return "\n".join(wrap(line) if line else line for line in text.split("\n"))


WRAPPINGS = {
    "json string per line": lambda t: _per_line(t, json.dumps),
    "json record per line": lambda t: _per_line(t, lambda line: json.dumps({"level": "info", "msg": line})),
    "docker json-file": lambda t: _per_line(t, lambda line: json.dumps({"log": line + "\n", "stream": "stdout",
                                                                        "time": "2026-11-24T00:01:02.1Z"})),
    "repr per line": lambda t: _per_line(t, repr),
    "json string whole": json.dumps,
    "repr whole": repr,
    "json record whole": lambda t: json.dumps({"event": t, "level": "info"}),
}


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


def _gone(text: str, values: list[str]) -> None:
    framed = f"step 1 loss 2.0\n{text}\nstep 2 loss 1.9\n"
    whole = Redactor({}).text(framed)
    for value in values:
        assert value not in whole, whole
    assert REDACTED in whole
    assert _streamed(framed, 5) == whole
    assert _streamed(framed, len(framed)) == whole


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,values", FORMS)
def test_forms_behind_a_log_prefix_go(text: str, values: list[str], prefix: str) -> None:
    _gone(_per_line(text, lambda line: prefix + line), values)


@pytest.mark.parametrize("wrapping", WRAPPINGS)
@pytest.mark.parametrize("text,values", FORMS)
def test_forms_in_json_and_repr_go(text: str, values: list[str], wrapping: str) -> None:
    _gone(WRAPPINGS[wrapping](text), values)


def test_a_prefixed_json_record_inside_a_json_record_goes() -> None:
    inner = json.dumps({"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": P}]})
    _gone("[rank0]: " + json.dumps({"level": "info", "msg": inner}), [P])


KEPT = [
    "[rank0]: # of parameters: 7.2B (trainable 7.2B)",
    "[rank0]: value loss 0.3121 | policy loss 0.0412 | kl 0.0031",
    "INFO:root:authenticated as alice via ssh-agent",
    "2026-11-24 00:01:02,123 - train - INFO - saving <checkpoint-1200> to /ckpt? yes",
    '{"level": "info", "msg": "loading model from cache? hit rate 0.93 & misses 12"}',
    '{"level": "info", "msg": "password rotation scheduled for 2026-12-01"}',
    "'value: 12 # default'",
    '"secret_name: db-creds"',
    "app-1  | authentication succeeded for alice (auth method: publickey)",
    "[rank0]: ? what is the batch size",
    "[rank0]: passwords: 3 rotated, 0 failed",
    "E       AssertionError: assert 'value' == 'other'",
]


@pytest.mark.parametrize("line", KEPT)
def test_ordinary_prefixed_and_quoted_lines_stay(line: str) -> None:
    text = f"{line}\n{line}\nstep 2 loss 1.9\n"
    assert Redactor({}).text(text) == text


def test_prefixed_key_blocks_without_end_cut_by_a_stream_read_as_the_whole_text() -> None:
    # (a stream piece that starts inside one such block, at the next block's BEGIN line, took that line's prefix)
    text = "INFO: -----BEGIN RSA PRIVATE KEY-----\nINFO: MIIEabcdefghABCDEFGH0123456789+/\n" * 25 + "step 2 loss 1.9\n"
    whole = Redactor({}).text(text)
    assert "MIIE" not in whole
    for size in (7, 100, 1000):
        stream = StreamRedactor(Redactor({}), piece=1024)
        assert "".join(stream.feed(text[k:k + size]) for k in range(0, len(text), size)) + stream.close() == whole


WRAPPED_POOL = ([_per_line(text, lambda line, p=prefix: p + line) for text, _ in FORMS for prefix in PREFIXES[::3]]
                + [WRAPPINGS[name](text) for text, _ in FORMS[::2] for name in WRAPPINGS] + KEPT
                + ["step 1200 loss 2.3817 lr 3.0e-04", "[rank0]: epoch 3 iteration 1200/5000 | consumed samples 6144", ""])


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WRAPPED_POOL), min_size=1, max_size=16),
       st.one_of(st.integers(1, 8), st.integers(9, 400), st.just(1 << 16)), st.data())
def test_a_stream_of_wrapped_forms_gives_what_text_gives(items, piece, data):
    text = "\n".join(items) + "\n"
    reads = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=30)))) + [len(text)]
    flushes = data.draw(st.frozensets(st.integers(0, 30)))
    stream = StreamRedactor(Redactor({}), piece=piece)
    out, at = [], 0
    for index, cut in enumerate(reads):
        out.append(stream.feed(text[at:cut]))
        if index in flushes:
            out.append(stream.flush())
        at = cut
    assert "".join(out) + stream.close() == Redactor({}).text(text)


def test_how_deep_a_reading_is_in_line_views_is_per_thread():
    """triage redacts stdout and stderr with one Redactor in two threads: one thread deep in line views must not make
    the other's reading skip them (the depth was the Redactor's own attribute, shared by both threads)."""
    import threading

    from aiperf_lab.triage.redaction.redactor import LINE_VIEW_DEPTH

    text = "[rank0]: password = <<EOT\n[rank0]: Zq8Das1xPa55\n[rank0]: EOT\n"
    redactor = Redactor({})
    assert "Zq8Das1xPa55" not in redactor.text(text)   # read through the line view
    depth = LINE_VIEW_DEPTH.set(2)   # this thread as deep in views as a reading goes
    try:
        assert "Zq8Das1xPa55" in redactor.text(text)    # (here the view is not read: the depth is what decides)
        other: list[str] = []
        thread = threading.Thread(target=lambda: other.append(redactor.text(text)))
        thread.start()
        thread.join()
        assert "Zq8Das1xPa55" not in other[0]
    finally:
        LINE_VIEW_DEPTH.reset(depth)


@pytest.mark.parametrize("command", [
    "$ gcloud secrets versions access latest --secret=db",
    "$ vault read -field=password secret/db",
    "$ az keyvault secret show --name db --vault-name v --query value -o tsv",
    "$ aws secretsmanager get-secret-value --secret-id db --query SecretString --output text",
    "$ aws ssm get-parameter --name /db/pw --with-decryption --query Parameter.Value --output text",
])
@pytest.mark.parametrize("prefix", ["[rank0]: ", "2026-11-24T01:02:03.123Z ", "app-1  | "])
def test_a_secret_stores_bare_print_behind_a_log_prefix_goes(command, prefix):
    """rt10 L1: the value a secret store prints bare on the line after its command went when the lines were bare, and
    stayed behind a log prefix (no mark of the line views was on those lines)."""
    text = f"{prefix}{command}\n{prefix}Zq8Das1xPa55\n{prefix}done\n"
    out = Redactor({}).text(text)
    assert "Zq8Das1xPa55" not in out and out.endswith(f"{prefix}done\n")
    stream = StreamRedactor(Redactor({}))
    assert "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close() == out
