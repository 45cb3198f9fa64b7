"""Secrets that code gives by name (a traceback's source line, a notebook cell, a printed script), rows that list a
secret's name and value, and an Authorization header's credential on a workload's command line, whatever its scheme
(red team h17r, session 17): hidden in text, behind a log prefix and in a stream; the code and rows around them that
hold no secret stay as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from stream_feed import fed_at_cuts, fed_in_reads
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


# `openssl rsa -text` / `openssl ec -text` of throwaway keys made for this test (OpenSSL 3.0)
DATA = Path(__file__).parent / "data"
OPENSSL_TEXTS = ["openssl_rsa512_text.txt", "openssl_ec_text.txt"]


def _private_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.rstrip(":") in ("privateExponent", "prime1", "prime2", "exponent1", "exponent2", "coefficient", "priv"):
            inside = True
        elif inside and line.startswith("    "):
            lines.append(line.strip())
        else:
            inside = False
    return lines


@pytest.mark.parametrize("name", OPENSSL_TEXTS)
def test_a_private_key_printed_by_openssl_text_loses_its_private_components(name: str) -> None:
    printed = (DATA / name).read_text()
    text = f"$ openssl pkey -in key.pem -text -noout\n{printed}step 2 loss 1.9\n"
    out = Redactor({}).text(text)
    private = [line for line in _private_lines(printed) if len(line) > 12]   # (a short last line may be in another)
    assert private and not [line for line in private if line in out]
    public = printed.split("pub:\n" if "pub:\n" in printed else "modulus:\n")[1].splitlines()[0].strip()
    assert public in out   # (the public parts stay: they say which key it was)
    assert out.count(REDACTED) >= len(private)


@pytest.mark.parametrize("name", OPENSSL_TEXTS)
def test_a_stream_cut_anywhere_in_openssl_text_hides_what_text_hides(name: str) -> None:
    text = f"step 1\n{(DATA / name).read_text()}step 2\n"
    whole = Redactor({}).text(text)
    for size in (1, 3, 5, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == whole
    for cut in range(1, len(text), 7):
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=7) == whole


def test_hex_lines_under_a_public_label_stay() -> None:
    text = "modulus:\n    00:c8:c2:e5:40:b2:86:97:d4:26:ba:5b:1c:3c:b0:\n    7e:ff:26\npublicExponent: 65537 (0x10001)\n"
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("line", [
    f"GET /callback?code={V}&state=xyz HTTP/1.1",
    f"GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key={V} 200",
    f"POST https://discord.com/api/webhooks/1234567890123/{V}abcDEFghiJKLmnoPQRstuVWXyz0123456789ABCDEFGHIJ",
])
def test_a_credential_in_a_url_query_or_a_webhook_path_goes(line: str) -> None:
    for prefix in PREFIXES:
        out = Redactor({}).text(f"{prefix}{line}\n")
        assert V not in out and REDACTED in out, out


@pytest.mark.parametrize("line", ["GET /api?key=cache_name&code=200 HTTP/1.1", "GET /s3?prefix=a&key=data/part-0001.parquet"])
def test_a_plain_query_key_or_code_stays(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


def test_infiniband_guids_become_placeholders_under_redact_hosts() -> None:
    text = ("hca_id:\tmlx5_0\n\tnode_guid:\t\t\t248a:0703:005d:5e10\n\tsys_image_guid:\t\t\t248a:0703:005d:5e10\n"
            "\tPort GUID: 0x248a0703005d5e11\n\tNode GUID: 0x0000000000000000\n")
    out = Redactor({}, redact_hosts=True).text(text)
    assert "248a" not in out and out.count("guid-1") == 2 and "guid-2" in out, out
    assert "0x0000000000000000" in out   # (a zero GUID names no adapter)
    assert Redactor({}).text(text) == text   # (without --redact-hosts a GUID is no secret)


# A secret folded over lines (`fold -w W`, a wrapped log line): red team h17r's L2
SK_PROJ = "sk-proj-" + "Qm7xT2vLp9Rk4Wz8Jn_aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5-Ab6Cd7Ef8Gh9Ij0Kl1Mn2Op3Qr4St5Uv6Wx7Yz8" * 2


def _folded(line: str, width: int) -> str:
    return "\n".join(line[k:k + width] for k in range(0, len(line), width)) + "\n"


@pytest.mark.parametrize("width", [60, 64, 76, 80, 100])
@pytest.mark.parametrize("line", [f"export OPENAI_API_KEY={SK_PROJ}", f"  api_key = '{SK_PROJ}'",
                                  f"Authorization: Bearer {SK_PROJ}", f"token={SK_PROJ}"])
def test_a_secret_folded_over_lines_goes_whole(line: str, width: int) -> None:
    text = f"step 1 loss 2.0\n{_folded(line, width)}step 2 loss 1.9\n"
    whole = Redactor({}).text(text)
    pieces = [SK_PROJ[k:k + 10] for k in range(8, len(SK_PROJ) - 10, 5)]
    assert not [piece for piece in pieces if piece in whole], whole
    assert "step 1 loss 2.0\n" in whole and whole.endswith("step 2 loss 1.9\n")
    for size in (7, 64, 4096):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == whole


@pytest.mark.parametrize("after", ["Initializing the model", "Done", "Initializing", "loss=0.53", "[rank0]: step 2"])
def test_the_line_after_a_secret_at_a_full_lines_end_stays_when_it_is_no_piece(after: str) -> None:
    line = "2026-11-24 03:00:01 INFO connecting with password=" + "Zq8Das1xPa55w0rdQm7v" * 2
    text = f"{line}\n{after}\n"
    out = Redactor({}).text(text)
    assert out.endswith(f"\n{after}\n") and "Zq8Das1x" not in out, out
    assert fed_in_reads(Redactor({}), text, 5, piece=7) == out


def test_a_short_value_or_a_short_line_is_no_fold() -> None:
    # (a value shorter than 16 characters, or a line under 60, at its end: the next line is read as itself)
    for text in ("password=Zq8Das1x\nAbc123def456\n", "x" * 70 + " password=Zq8D1x\nAbc123def456\n"):
        assert Redactor({}).text(text).endswith("\nAbc123def456\n")
