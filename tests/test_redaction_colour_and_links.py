"""Terminal hyperlinks (OSC 8) and colour codes: every link's payload read as if alone (plain links read together), and
coloured forms over lines held at a stream's cuts as their plain lines are."""

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


COLOURED_FORMS = [   # each line coloured whole, as `yq -C` or a FORCE_COLOR tool prints it (rt9 C2)
    ["[db]", 'password = """', "hunter2Pa55w0rd", '"""'],
    ["api_key = '''", "Xk9mQ2vL7pR4tW8z", "'''", "other = 1"],
    ["password = <<EOT", "hunter2Pa55w0rd", "EOT"],
    ['  secret_key = <<-"EOF"', "    Xk9mQ2vL7pR4tW8z", "    EOF", ""],
]


def test_coloured_forms_over_lines_are_held_at_every_cut_as_their_plain_lines_are():
    """The stream lets out whole lines at every idle flush (triage flushes after 0.1 s of quiet): a coloured line that
    opens a form read over lines must be held for the lines after it, as the same line without colours is."""
    for form in COLOURED_FORMS:
        text = "".join(f"\x1b[32m{line}\x1b[0m\n" for line in form)
        whole = Redactor({}).text(text)
        assert "hunter2Pa55w0rd" not in whole and "Xk9mQ2vL7pR4tW8z" not in whole
        stream = StreamRedactor(Redactor({}))
        out = "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()
        assert out == whole, form
