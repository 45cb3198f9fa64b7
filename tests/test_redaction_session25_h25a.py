"""Leaks left open by session 24, and a red team of new shapes (helper h25a, issue 11: no planted secret in any bundle).
Each value is unknown to the Redactor (`Redactor({})`) unless said; each form is hidden bare, behind a log prefix
(`[rank0]: `, an ISO time, compose's `api-1  | `) and in a JSON record per line, whole and through a StreamRedactor cut
at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. One list of a JSON log record's message keys (line_views.MESSAGE_KEYS), read in any case by the view and by the wrap
   rule (known_secrets.JSON_MESSAGE_START through line_views.MESSAGE_KEY_PATTERN): `{"Message": ...}`, `{"MSG": ...}`.
"""

from __future__ import annotations

import json

import pytest

from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

from aiperf_lab.triage.redact import Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
WRAPS = [*PREFIXES, "json"]
TK = "Qx7vR2mZ9pLk4TnW"
PW = "Winter2024!blue"
SHORT = "Tq7mZ2x9"
KNOWN = "sk-proj-Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJ"


def wrapped(text: str, wrap: str) -> str:
    return json_records(text) if wrap == "json" else prefixed(text, wrap)


def test_the_message_keys_are_one_list():
    from aiperf_lab.triage.redaction import known_secrets, line_views
    for key in line_views.MESSAGE_KEYS:
        for spelled in (key, key.upper(), key.capitalize()):
            record = '{"level": "info", "%s": "x' % spelled
            assert known_secrets.JSON_MESSAGE_START.match(record) is not None, spelled
    assert known_secrets.JSON_MESSAGE_START.match('{"level": "info", "detail": "x') is None


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("key", ["Message", "MSG", "Log", "textPayload", "EVENT"])
@pytest.mark.parametrize("first", [True, False])
def test_a_known_value_wrapped_over_records_whose_message_key_is_capitalized(key, first, prefix):
    head, tail = KNOWN[:-6], KNOWN[-6:]

    def record(message: str) -> str:
        return json.dumps({key: message, "level": "info"} if first else {"level": "info", key: message}) + "\n"

    text = prefixed(record(f"using key {head}") + record(f"{tail} ok"), prefix)
    whole = hidden_everywhere(text, tail, lambda: Redactor({"OPENAI_API_KEY": KNOWN}))
    assert whole.count("[REDACTED]") == 2 and " ok" in whole
