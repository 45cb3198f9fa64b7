"""Terminal hyperlinks (OSC 8): every link's payload is read as if alone, and plain links are read together."""

from __future__ import annotations

import random

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction.redactor import PLAIN_LINK
from aiperf_lab.triage.redaction.spans import OSC

SEGMENTS = ["home", "alice", "runs", "ghp_" + "a" * 36, "hf_" + "B" * 34, "AKIAABCDEFGHIJKLMNOP", "sk-" + "x" * 48,
            "hunter2Pa55", "password", "token", "secrets", "pass%77ord", "10.0.0.5", "node-01", "x.txt", "a-b",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "bot123456789", "index#Wunused", "c++", "GPU-0123"]


def _each_alone(redactor: Redactor, text: str) -> list:
    found = []
    for m in OSC.finditer(text):
        at = m.start("payload")
        found += [(a + at, b + at, r, label, c + at) for a, b, r, label, c in redactor.spans(m.group("payload"))]
    return sorted(found)


def _links(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(2, 20)):
        uri = rng.choice(["file://", "https://", ""]) + "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 4)))
        lines.append(rng.choice(["", "password: ", "x=", "[rank0]: "]) + f"\x1b]8;{rng.choice(['', 'id=1'])};{uri}\x1b\\"
                     + rng.choice(SEGMENTS) + "\x1b]8;;\x1b\\" + rng.choice(["", " more", ":", "="]))
    return "\n".join(lines)


def test_links_read_together_give_what_each_read_alone_gives():
    rng = random.Random(7)
    for _ in range(150):
        env = {"HF_TOKEN": "hf_" + "Q" * 30, "DB_PASSWORD": "hunter2Pa55"} if rng.random() < 0.4 else {}
        redactor = Redactor(env, redact_hosts=rng.random() < 0.3)
        text = _links(rng)
        links = list(OSC.finditer(text))
        assert sum(bool(PLAIN_LINK.fullmatch(m.group("payload"))) for m in links) >= 2
        assert sorted(redactor._payload_spans(links)) == _each_alone(redactor, text), text


def test_secrets_inside_plain_links_go_and_the_links_stay():
    token, known = "ghp_" + "a" * 36, "hunter2Pa55wd"
    lines = [f"\x1b]8;;file://node-01/home/alice/ckpt_{i}.pt\x1b\\ckpt_{i}.pt\x1b]8;;\x1b\\" for i in range(500)]
    lines[100] = f"\x1b]8;;https://example.org/{token}/x\x1b\\docs\x1b]8;;\x1b\\"
    lines[300] = f"\x1b]8;;file://node-01/tmp/{known}/a\x1b\\a\x1b]8;;\x1b\\"
    text = "\n".join(lines) + "\n"
    redactor = Redactor({"DB_PASSWORD": known})
    out = redactor.text(text)
    assert token not in out and known not in out
    assert out.count("\x1b]8;;file://node-01/home/alice/ckpt_") == 498
    stream = StreamRedactor(Redactor({"DB_PASSWORD": known}))
    assert "".join(stream.feed(text[i:i + 997]) for i in range(0, len(text), 997)) + stream.close() == out
