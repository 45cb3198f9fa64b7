"""A secret-named value inside a repr() or JSON string of several lines (`'password: X\\nhost: db'`, http.client's
`send: b'...\\r\\nx-api-key: X\\r\\nContent-Length: 2\\r\\n\\r\\n'`): the value ends at the escaped line break, the
next line's name and value stay."""
from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor

SECRET = "Xk9mQ2vL7pR4tW8zAb3"
LINES = {
    "yaml": f"password: {SECRET}\nhost: db",
    "env": f"DB_PASSWORD={SECRET}\nDB_HOST=db",
    "nested yaml": f"db:\n  api_key: {SECRET}\n  host: db\n",
    "crlf header": f"token: {SECRET}\r\nHost: x\r\n",
    "ini": f"[client]\npassword = {SECRET}\nuser = root\n",
    "api key header": f"X-Api-Key: {SECRET}\r\nAccept: */*\r\n",
    "export": f"export DB_PASSWORD={SECRET}\nexport X=1\n",
    "tab separated": f"password\t{SECRET}\tuser\troot",
}
FORMS = {
    "repr": repr,
    "json": json.dumps,
    "log repr": lambda raw: f"INFO:root:config text: {raw!r}",
    "bytes repr": lambda raw: repr(raw.encode()),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", LINES)
def test_value_before_an_escaped_line_break_goes(name: str, form: str) -> None:
    out = Redactor({}).text(FORMS[form](LINES[name]))
    assert SECRET not in out
    assert REDACTED in out


def test_http_client_send_line_keeps_the_next_header() -> None:
    raw = b"POST /v1/chat HTTP/1.1\r\nHost: api.x\r\nx-api-key: " + SECRET.encode() + b"\r\nContent-Length: 2\r\n\r\n"
    out = Redactor({}).text(f"send: {raw!r}")
    assert SECRET not in out
    assert "Content-Length: 2\\r\\n" in out
    assert "Host: api.x\\r\\n" in out


@pytest.mark.parametrize("form", ["repr", "json"])
def test_next_line_after_the_secret_stays(form: str) -> None:
    out = Redactor({}).text(FORMS[form](LINES["yaml"]))
    assert "\\nhost: db" in out
    out = Redactor({}).text(FORMS[form](LINES["env"]))
    assert "\\nDB_HOST=db" in out


@pytest.mark.parametrize("scheme", ["Bearer ", "Basic ", "Token ", ""])
def test_authorization_header_ends_at_the_escaped_break(scheme: str) -> None:
    raw = b"GET / HTTP/1.1\r\nAuthorization: " + scheme.encode() + SECRET.encode() + b"\r\nContent-Length: 2\r\n\r\n"
    out = Redactor({}).text(f"send: {raw!r}")
    assert SECRET not in out
    assert "\\r\\nContent-Length: 2\\r\\n" in out
