"""Placeholders of words in angle brackets after a secret's label (`password: <your password>`, a README or a help
text) stay whole; before session 19 their first word went and the rest stayed (`password: [REDACTED] password>`).
A generated value in angle brackets still goes, and so does a value after the placeholder's line."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import Redactor
from stream_feed import hidden_everywhere, kept_everywhere

PLACEHOLDERS = ["password: <your password>", "Password: <enter password>", "token: <your token here>",
                "TOKEN=<paste your token here>", "api_key: <Insert Your API Key>", "--password=<my password>"]
PREFIXES = {"bare": "", "rank": "[rank0]: ", "time and level": "2026-11-24 03:00:01 INFO "}
SECRET = "Zq8vN2mK5pL9xR4t"


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_a_placeholder_of_words_stays_whole(line: str, prefix: str) -> None:
    kept_everywhere(f"{prefix}{line}\n")


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
def test_a_generated_value_in_angle_brackets_still_goes(prefix: str) -> None:
    assert "[REDACTED]" in hidden_everywhere(f"{prefix}password: <{SECRET}>\n", SECRET)


def test_a_value_on_the_next_line_after_a_placeholder_still_goes() -> None:
    text = f"usage: login --password <your password>\npassword: {SECRET}\n"
    out = Redactor({}).text(text)
    assert SECRET not in out and "<your password>" in out


def test_words_that_ask_for_nothing_are_no_placeholder() -> None:
    # (a passphrase of words in angle brackets names no placeholder word: its first word still goes)
    out = Redactor({}).text("password: <correct horse battery staple>\n")
    assert "correct" not in out
