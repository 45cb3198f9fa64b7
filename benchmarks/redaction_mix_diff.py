"""Randomized differential of the whole redaction: this redact.py against another one (the code before a change meant
to keep every output), byte for byte, on seeded random mixes of the adversarial cases' fragments (every unit of
benchmarks/redaction_speed.py, whole and cut) and real log lines, with and without --redact-hosts.

    python benchmarks/redaction_mix_diff.py --baseline OTHER_REDACT_PY [--texts 3000] [--seed 1] [--data DIR]

Each text goes through Redactor.text (output and the report's counts), a StreamRedactor fed 64 KiB reads, and a
StreamRedactor with 1 KiB pieces and the shortest lines it allows (forced cuts inside long lines) fed reads of
random sizes. A text is a run of one fragment repeated (the speed cases' shapes, long enough for forced cuts) or a
mix of fragments, real lines and runs; each difference is printed (first 5) and the exit status is 1 if any.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import redaction_speed  # noqa: E402
from redaction_hosts_diff import difference_line, fresh_redactor, real_texts  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENVIRON = {**os.environ, "HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "HUGGING_FACE_HUB_TOKEN": "hf_" + "Q" * 34, "DATABASE_URL": "postgres://u:pa55word@db/x",
           "HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice", "SSH_CONNECTION": "203.0.113.5 50022 10.1.2.3 22"}
EXTRA = ["AvoCMF1ZIDKtxODiDeDeFF"]
# small pieces that change how a neighbour reads: separators, quotes, escapes, names, the start of a host
GLUE = [" ", "  ", "\n", "\t", ",", ";", ":", "=", "@", "'", '"', "\\", "\\'", "/", "x", "_", "-", ".", "p", "pass",
        "zip", "-P", "://", "ip-", "::", "1.2.3.4", "\r\n", "\x00", "password", "token", "\x1b[1m", "\x1b[0m", "é", "İ"]
# runs of one rule's matches with variations among them (bulk paths judge a run at once): names, separators, values
# and what lies between, drawn from a small pool per text
NAMES = ["pass", "password", "passwd", "passphrase", "token", "secret", "api_key", "apikey", "x_pass", "my.pass", "PASS",
         "sig", "?sig", "&sig", "auth", "pwd", ";pwd", "cookie", "session_id", "passes", "bypass", "tokens", "access-key",
         "zip -P", "zip -p", "7z -p", "unzip -P", "-P", "openssl enc -k", "curl -u", "https://", "://", "ip-", "u:pw9x@h:80"]
SEPARATORS = ["=", ":", ": ", "= ", "=  ", ":    ", "=>", " = ", "\"=\"", "\": \"", "='", ": '", ":\n", "=\\\"", " ", ""]
VALUES = ["abcd", "abc", "ab", "True", "false", "123", "1234567", "$VAR", "${X}", "/etc/x", "~/k", "'q1w2'", "\"q1w2\"",
          "&anc v1x2", "|", ">x1y2", "=>", "İabc", "ABCD", "a:b", "a=b", "abc\\", "[REDACTED]", "<|x|>", "0.5", "a1b2c3d4e5f6g7h8", "[q1w2", "[a]b"
          , "abc\\' ", "10-0-0-1", "1.2.3.4", "@h:80"]
GAPS = [" x ", " ", "\n", ", ", " \t", "_", "-", ".", " p ", "?", "&", "  y  ", ";", "\t", " , ", "\r\n", "\x00", " é ",
        " K ", "'", '"', " q\n", "x", ""]


def _fresh(module, hosts: bool):
    return fresh_redactor(module, ENVIRON, hosts, tuple(EXTRA))


def _units() -> list[str]:
    units = []
    for case in redaction_speed.CASES.values():
        if isinstance(case, tuple) and isinstance(case[1], int):
            units.append(case[0])
        elif isinstance(case, tuple):
            units += list(case)
        else:
            units.append(case)
    return units


def _real_lines(data: Path) -> list[str]:
    lines = []
    for folder in (ROOT / "tests" / "data", data):
        for _, text in real_texts(folder):
            lines += text.splitlines(keepends=True)[:400]
    return [line for line in lines if len(line) < 2000] or ["step 1 loss 2.0\n"]


def _text(rng: random.Random, units: list[str], lines: list[str]) -> str:
    shape = rng.random()
    if shape < 0.3:   # a run of one rule's matches, with variations
        pools = [rng.sample(pool, rng.randint(1, 3)) for pool in (NAMES, SEPARATORS, VALUES, GAPS)]
        common = [rng.choice(pool) for pool in pools]
        units = []
        for _ in range(rng.choice((5, 50, 400, 2000))):
            units.append("".join(rng.choice(pool) if rng.random() < 0.2 else first for pool, first in zip(pools, common)))
        return "".join(units)
    if shape < 0.6:   # one fragment (or a cut of it, or two in turn) repeated, long enough for forced cuts
        unit = rng.choice(units)
        if rng.random() < 0.3:
            unit = unit[rng.randrange(len(unit)):] + rng.choice(GLUE)
        if rng.random() < 0.3:
            unit += rng.choice(units)
        size = rng.choice((200, 3000, 9000, 20000))
        text = (unit * (size // max(1, len(unit)) + 1))[:size]
        # a few edits inside the run: a real line, a glue piece, another fragment
        for _ in range(rng.randrange(4)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice((rng.choice(lines), rng.choice(GLUE), rng.choice(units))) + text[at:]
        return text
    parts = []
    for _ in range(rng.randint(1, 60)):
        pick = rng.random()
        if pick < 0.35:
            parts.append(rng.choice(units) * rng.choice((1, 1, 2, 5, 30)))
        elif pick < 0.7:
            parts.append(rng.choice(lines))
        else:
            parts.append(rng.choice(GLUE))
    return "".join(parts)


def _outputs(module, text: str, hosts: bool, rng: random.Random) -> tuple:
    redactor = _fresh(module, hosts)
    whole = redactor.text(text)
    counts = dict(redactor.counts)
    sink = module.StreamRedactor(_fresh(module, hosts))
    pieces = [sink.feed(text[at:at + 65536]) for at in range(0, len(text), 65536)]
    pieces.append(sink.close())
    small = module.StreamRedactor(_fresh(module, hosts), max_line=1, piece=1024)   # (raised to its least)
    out, at = [], 0
    while at < len(text):
        step = rng.choice((1, 7, 100, 1000, 5000))
        out.append(small.feed(text[at:at + step]))
        if rng.random() < 0.1:
            out.append(small.flush())
        at += step
    out.append(small.close())
    return whole, counts, "".join(pieces), "".join(out), dict(small.redactor.counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the other redact.py: one file, or the facade of a checkout with triage/redaction beside it")
    parser.add_argument("--redact-py", help="a redact.py to check instead of aiperf_lab.triage.redact")
    parser.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    mine, other = redaction_speed._load(args.redact_py), redaction_speed._load(args.baseline)
    units, lines = _units(), _real_lines(Path(args.data))
    rng = random.Random(args.seed)
    differ = 0
    for i in range(args.texts):
        text = _text(rng, units, lines)
        for hosts in (False, True):
            seed = rng.random()
            a, b = _outputs(mine, text, hosts, random.Random(seed)), _outputs(other, text, hosts, random.Random(seed))
            if a != b:
                differ += 1
                if differ <= 5:
                    print(difference_line(f"text {i} hosts={hosts}",
                                          ("text", "counts", "stream", "small stream", "small counts"), a, b), flush=True)
    print(f"{args.texts} texts x 2 (with and without --redact-hosts), {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
