"""Credentials printed by a workload that triage has never seen in its environment (red team U, A14):
proxy and DSN forms without a scheme, URL passwords holding a quote or a backslash, and a --tag that
would put a token into the archive's name."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor

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
