"""Eighth pass (issue 11, rt7 B3): credentials in a URL's path that the token rules missed: an Anaconda-style
channel's /t/TOKEN/ on any conda host and %-encoded, a Teams webhook's key in capitals, a Mattermost hook inside
JSON (`\\/hooks\\/`), IFTTT's /with/key/, PagerDuty's /integration/KEY/enqueue, a Telegram bot URL. Each with
ordinary URLs that stay."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

CT = "xx-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"
S = "Xk9mQ2vL7pR4tW8z"
HOOK = "xi3h5k8j9qpbzr4tn6uf7wymoa"
GUID = "1a2b3c4d-1a2b-1a2b-1a2b-1a2b3c4d5e6f"

CASES = [
    (f"https://conda.anaconda.org/T/{CT}/chan", CT),
    (f"https://conda.example.com/t/{S}/chan/linux-64/repodata.json", S),
    (f"https%3A%2F%2Fconda.anaconda.org%2Ft%2F{CT}%2Fchan", CT),
    (f"channel_alias: https://conda.corp.example/t/{S}/", S),
    (f"https://acme.webhook.office.com/webhookb2/{GUID}@{GUID}/IncomingWebhook/ABCDEF0123456789ABCDEF0123456789/{GUID}",
     "ABCDEF0123456789ABCDEF0123456789"),
    (json.dumps({"url": f"https://chat.example.com/hooks/{HOOK}"}).replace("/", "\\/"), HOOK),
    (f"https://maker.ifttt.com/trigger/ev/with/key/{S}", S),
    (f"https://events.pagerduty.com/integration/{S}abcd1234abcd1234/enqueue", S),
    (f"https://api.telegram.org/bot123456789:AAH{S}xyzXYZ01234567/sendMessage", S),
    (f"POST https://api.telegram.org/bot987654321:{S}{S}/getUpdates", S),
]


@pytest.mark.parametrize("text,secret", CASES)
def test_url_path_credentials_go(text: str, secret: str) -> None:
    for framed in (text, f"[rank0]: {text}", repr(text), json.dumps({"u": text})):
        out = Redactor({}).text(framed)
        assert secret not in out and REDACTED in out, out
    framed = f"step 1\n{text}\nstep 2\n"
    stream = StreamRedactor(Redactor({}), piece=5)
    assert "".join(stream.feed(framed[k:k + 4]) for k in range(0, len(framed), 4)) + stream.close() == Redactor({}).text(framed)


@pytest.mark.parametrize("text", [
    "/opt/conda/t/templates/default.yaml", "https://conda.anaconda.org/conda-forge/linux-64/repodata.json",
    "https://example.com/with/key/", "see /integration/tests/enqueue", "https://t.me/bot_news",
    "https://github.com/org/repo/hooks/configure", "https://api.telegram.org/bot/help",
])
def test_ordinary_urls_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
