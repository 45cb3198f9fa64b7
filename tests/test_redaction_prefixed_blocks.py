"""YAML sequences and block scalars under a secret's name, and Hadoop's two-line `<name>`/`<value>`, logged with a
prefix on every line (`[rank0]: `, compose's `app-1  | `, a timestamp, `INFO:root:`): the value goes, the prefix stays."""
from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import Redactor

SECRET = "hunter2Pa55w0rd"
FORMS = {
    "fish": f"set -gx DB_PASSWORD {SECRET}",
    "csh": f"setenv DB_PASSWORD {SECRET}",
    "yaml list": f"passwords:\n  - {SECRET}",
    "yaml block": f"password: |\n  {SECRET}",
    "yaml folded": f"api_key: >-\n  {SECRET}",
    "xml 2 lines": f"<name>fs.s3a.secret.key</name>\n<value>{SECRET}</value>",
    "DS dots": f"  mlflow_password ........ {SECRET}",
    "k8s Secret data": f"data:\n  password: {SECRET}",
    "helm list": f"auth:\n  passwords:\n    - {SECRET}",
    "plain next line": f"db_password:\n  {SECRET}",
}
PREFIXES = ["", "[rank0]: ", "2026-11-23 10:00:00,123 INFO ", "app-1  | ", "E       ", "pod/trainer-0 ", "INFO:root:",
            "> ", "# ", "\t", "| ", "[2026-11-23 10:00:00] [INFO] [config.py:1004:print] ",
            "Nov 23 10:00:00 host app[123]: "]


def _prefixed(prefix: str, form: str) -> str:
    return "\n".join(prefix + line for line in FORMS[form].split("\n")) + "\n"


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("form", FORMS)
def test_value_behind_a_log_prefix_goes_and_the_prefix_stays(form: str, prefix: str) -> None:
    out = Redactor({}).text(_prefixed(prefix, form))
    assert SECRET not in out
    if prefix.strip():
        assert all(line.startswith(prefix) for line in out.splitlines())


def test_timestamps_that_differ_line_to_line_are_one_prefix() -> None:
    text = ("2026-11-23 10:00:00,123 INFO secrets:\n2026-11-23 10:00:00,456 INFO   - " + SECRET
            + "\n2026-11-23 10:00:01,000 INFO step 5 loss 2.3\n")
    out = Redactor({}).text(text)
    assert SECRET not in out
    assert out.startswith("2026-11-23 10:00:00,123 INFO secrets:\n2026-11-23 10:00:00,456 INFO   - [REDACTED]\n")
    assert out.endswith("2026-11-23 10:00:01,000 INFO step 5 loss 2.3\n")


@pytest.mark.parametrize("text", [
    "[rank0]: description: |\n[rank0]:   some text here\n",
    "[rank1]: password:\n[rank1]: host: db\n",
    "[rank0]: password:\n[rank0]:   secretKeyRef:\n[rank0]:     name: db\n",
    "[rank0]: max_tokens:\n[rank0]:   512\n",
    "app-1  | password: |\napp-1  |   hunter2Pa55w0rdA\napp-1  | host: db\napp-1  | started\n",
])
def test_lines_that_hold_no_secret_stay(text: str) -> None:
    out = Redactor({}).text(text)
    kept = [line for line in text.splitlines() if "hunter2" not in line]
    assert all(line in out.splitlines() for line in kept)
