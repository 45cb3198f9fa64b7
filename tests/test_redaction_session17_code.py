"""Secrets that code gives by name (a traceback's source line, a notebook cell, a printed script), rows that list a
secret's name and value, and an Authorization header's credential on a workload's command line, whatever its scheme
(red team h17r, session 17): hidden in text, behind a log prefix and in a stream; the code and rows around them that
hold no secret stay as they were."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

V = "Qm7xT2vLp9Rk4Wz8Jn"
GENERATED = "Zq8Das1xPa55w0rdQm7v"

HIDDEN = [
    f'    os.environ["HF_TOKEN"] = "{V}"',
    f"os.environ['HF_TOKEN']='{V}'",
    f'os.environ.setdefault("HF_TOKEN", "{V}")',
    f'monkeypatch.setenv("OPENAI_API_KEY", "{V}")',
    f'os.Setenv("HF_TOKEN", "{V}")',
    f'os.putenv("DB_PASSWORD", "{V}")',
    f'os.getenv("API_KEY", "{V}")',
    f'secrets.put("db_password", "{V}")',
    f'System.setProperty("db.password", "{V}")',
    f'[Environment]::SetEnvironmentVariable("HF_TOKEN", "{V}")',
    f'password := "{V}"',
    f'api_key <- "{V}"',
    f"config['password'] = '{V}'",
    f'headers["X-Api-Key"] = "{V}"',
    f'ENV["API_TOKEN"] = "{V}"',
    f'wandb.login(key="{V}")',
    f"wandb.login(relogin=True, key='{V}')",
    f"requests.get(url, auth=('admin', '{V}'))",
    f"HTTPBasicAuth('admin', '{V}')",
    f"Step 5/12 : ENV HF_TOKEN {V}",
    f'ENV DB_PASSWORD "{V}"',
    f"setx HF_TOKEN {V}",
    f'setx /M DB_PASSWORD "{V}"',
    f"- `HF_TOKEN`: {V}",
    f"<td>HF_TOKEN</td><td>{V}</td>",
    f"API key: {GENERATED}",
    f"access token = {GENERATED}",
]

KEPT = [
    'os.environ["HF_TOKEN"] = token',
    'os.environ.setdefault("HF_TOKEN", "")',
    'os.getenv("API_KEY", None)',
    'parser.add_argument("--token", "-t")',
    'x := strings.TrimSpace(token)',
    'password <- readline()',
    'ENV PATH /usr/local/bin:$PATH',
    'ENV HF_HOME /cache',
    'setx PATH "%PATH%;C:\\bin"',
    'tok = tokenizer("hello", "world")',
    'config["password"] = os.environ["DB_PASSWORD"]',
    'os.environ["HF_TOKEN"] = "<your token here>"',
    'config["token"] = "${HF_TOKEN}"',
    '__slots__ = ("next_token", "position", "rules", "source")',
    "('pw', 'pwd'),",
    'MovedAttribute("HTTPBasicAuthHandler", "urllib2", "urllib.request"),',
    'headers["Authorization"] = "Basic %s" % auth',
    'headers["authorization"] = "Basic " + b64encode(b(basic_auth)).decode("utf-8")',
    'headers["Authorization"] = f"Bearer {token}"',
    "- `HF_HOME`: /cache/huggingface",
    "<td>HF_TOKEN</td><td>(missing)</td>",
    "API key: not set",
    "API key: see the documentation",
]

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("line", HIDDEN)
def test_a_secret_code_gives_by_name_goes(line: str, prefix: str) -> None:
    text = f"step 1 loss 2.0\n{prefix}{line}\nstep 2 loss 1.9\n"
    secret = GENERATED if GENERATED in line else V
    redactor = Redactor({})
    whole = redactor.text(text)
    assert secret not in whole and REDACTED in whole, whole
    for size in (5, 4096):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == whole


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("line", KEPT)
def test_code_and_rows_without_a_secret_stay(line: str, prefix: str) -> None:
    text = f"{prefix}{line}\n"
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("scheme", ["token", "Token", "ApiKey", "SSWS", "Splunk", "Bearer", "Basic"])
@pytest.mark.parametrize("form", ["-H", "--header="])
def test_an_authorization_header_on_the_command_line_loses_its_credential(scheme: str, form: str) -> None:
    header = f"Authorization: {scheme} {V}"
    argv = ["curl", "-H", header, "https://api.github.com"] if form == "-H" else ["curl", f"--header={header}"]
    redacted = Redactor({}).argv(argv)
    assert not any(V in arg for arg in redacted), redacted
    assert any(arg.endswith(f"Authorization: {REDACTED}") for arg in redacted), redacted
    assert redacted[0] == "curl"


def test_an_authorization_header_naming_a_variable_keeps_it() -> None:
    # (the shell had not expanded it: `bash -c` prints the reference, which is no secret)
    redacted = Redactor({}).argv(["curl", "-H", "Authorization: token $GITHUB_TOKEN", "https://api.github.com"])
    assert redacted[2].endswith("$GITHUB_TOKEN"), redacted
