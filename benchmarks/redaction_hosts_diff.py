"""Differential check of the --redact-hosts rules: this redact.py against another one (main's, before a change
meant to keep the output), byte for byte, with redact_hosts=True, through Redactor.text and StreamRedactor.

    python benchmarks/redaction_hosts_diff.py --baseline OTHER_REDACT_PY [--data DIR] [--random 3000] [--no-hosts]

(--no-hosts: the same texts with redact_hosts=False, for a change to the other rules.)

Texts: every case of benchmarks/redaction_speed.py at a small size, the real text files under DIR
(*.txt, *.csv, *.log, *.json, *.xml, *.md under 20 MB; ../shared/data by default), hand-made lines of every
host shape (addresses, versions, MACs, cloud names, non-ASCII neighbours), and random texts drawn from the
characters the host rules look at. Prints each difference (first 3) and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import redaction_speed  # noqa: E402

ENVIRON = {**os.environ, "HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice",
           "SSH_CONNECTION": "203.0.113.5 50022 10.1.2.3 22"}

SHAPES = [
    "inet 10.0.0.7/24 brd 10.0.0.255 scope global eth0", "version 9.1.0.70 and 10.0.0.8", "torch==2.4.0.1 1.2.3.4+cu",
    "nvidia-cudnn-cu12 9.19.0.56", "host: 9.19.0.56", "url http://10.2.3.4:8080/x 010.1.1.1 256.1.1.1 127.0.0.1",
    "addr=fe80::1%eth0 ::1 :: 2001:db8::8a2e:370:7334 ::ffff:203.0.113.9 1:2:3:4:5:6:7:8 1:2:3:4:5:6:1.2.3.4",
    "12:34:56 a::b host:2001:db8::1 x::y ab::cd:: :::: a:::b 0:0:0:0:0:ffff:203.0.113.9",
    "ether 00:1b:21:3a:4f:5c 00-1B-21-3A-4F-5C aa:bb:cc:dd:ee:ff:00 00:00:00:00:00:00 ff:ff:ff:ff:ff:ff",
    "mac 001b213a4f5c 001B213A4F5C x001B213A4F5C 001B213A4F5Cx 123456789012 ABCDEFABCDEF 001B213A4F5C.",
    "-001B213A4F5C :001B213A4F5C é001B213A4F5C 001B213A4F5Cé █001B213A4F5C█ ?001B213A4F5C? (001b213a4f5c)",
    "hwaddr 001b213a4f5c lladdr 001b.213a.4f5c 1234.5678.9012 001b.213a.4f5c.x", "€00:1b:21:3a:4f:5c€ é10.1.2.3",
    "ip-10-0-0-1 ip-10-0-0-1.ec2.internal ip-300-1-1-1 xip-10-0-0-1 ip-10-0-1-23.us-west-2.compute.internal",
    "vm1.c.my-project.internal n.acme-corp.example acme-corp.example gpunode17 gpunode[17-18] alice_x /home/alice",
    "GPU-2a7c5f1e-1234-5678-9abc-def012345678 uuid=2a7c5f1e-1234-5678-9abc-def012345678 MIG-2a7c5f1e-1234-5678-9abc-def012345678",
    "SSH 203.0.113.5 and 10.1.2.3 and 10.1.2.4 \u0130p-10-0-0-1 İ001B213A4F5C",
]
ALPHABET = list("0123456789abcdefABCDEF::::....---- \n\t+%/=_xzIé█?@\"'") + ["ip-", "::", "version ", "inet ", "ether ",
                                                                         ".c.", ".internal", "GPU-", "uuid="]


PROTOTYPES: dict = {}
HOSTS = [True]   # redact_hosts of every Redactor (--no-hosts: False)


def fresh_redactor(module, environ: dict, hosts: bool, extra_secrets: tuple[str, ...] = ()):
    """A new Redactor of `module` (a copy of one built once per module and settings: building one looks this
    host's names up)."""
    key = (module, id(environ), hosts, extra_secrets)
    if key not in PROTOTYPES:
        extra = {"extra_secrets": list(extra_secrets)} if extra_secrets else {}  # (older baselines lack it)
        PROTOTYPES[key] = module.Redactor(environ, redact_hosts=hosts, **extra)
    return copy.deepcopy(PROTOTYPES[key])


def difference_line(label: str, parts: tuple[str, ...], a: tuple, b: tuple, context: int = 60, width: int = 160) -> str:
    """`DIFFERS: label (the parts that differ) at N: ...`, shown around the first differing character of the first
    part that differs (a and b: the same parts of two outputs)."""
    which = [part for part, x, y in zip(parts, a, b) if x != y]
    x, y = next((str(x), str(y)) for x, y in zip(a, b) if x != y)
    at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    start = max(0, at - context)
    return f"DIFFERS: {label} ({', '.join(which)}) at {at}: {x[start:][:width]!r} vs {y[start:][:width]!r}"


def _fresh(module):
    return fresh_redactor(module, ENVIRON, HOSTS[0])


def _outputs(module, text: str) -> tuple[str, str, dict]:
    redactor = _fresh(module)
    whole = redactor.text(text)
    counts = dict(redactor.counts)
    stream = _fresh(module)
    sink = module.StreamRedactor(stream)
    pieces = [sink.feed(text[at:at + 65536]) for at in range(0, len(text), 65536)]
    pieces.append(sink.close())
    return whole, "".join(pieces), counts


def real_texts(folder: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The text files under folder (*.txt, *.csv, *.log, *.json, *.xml, *.md under 20 MB, but names in skip),
    named by their path inside it."""
    if not folder.is_dir():
        return []
    return [(str(path.relative_to(folder)), path.read_text(errors="replace")) for path in sorted(folder.rglob("*"))
            if path.suffix in (".txt", ".csv", ".log", ".json", ".xml", ".md") and path.name not in skip
            and path.is_file() and path.stat().st_size < 20_000_000]


def _texts(data: Path | None, random_count: int, seed: int) -> list[tuple[str, str]]:
    texts = [(f"case {name}", redaction_speed._text(unit, 20_000)) for name, unit in redaction_speed.CASES.items()]
    texts += [("shapes", "\n".join(SHAPES))] + [(f"shape {i}", line) for i, line in enumerate(SHAPES)]
    if data is not None:
        texts += real_texts(data)
    rng = random.Random(seed)
    for i in range(random_count):
        texts.append((f"random {i}", "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 300)))))
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the other redact.py: one file, or the facade of a checkout with triage/redaction beside it")
    parser.add_argument("--redact-py", help="a redact.py to check instead of aiperf_lab.triage.redact")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
    parser.add_argument("--random", type=int, default=3000, help="random texts of host characters (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="name each text as it is checked")
    parser.add_argument("--no-hosts", action="store_true", help="redact_hosts=False")
    args = parser.parse_args()
    HOSTS[0] = not args.no_hosts
    mine, other = redaction_speed._load(args.redact_py), redaction_speed._load(args.baseline)
    texts = _texts(Path(args.data), args.random, args.seed)
    differ = 0
    for name, text in texts:
        if args.verbose:
            print(name, len(text), flush=True)
        a, b = _outputs(mine, text), _outputs(other, text)
        if a != b:
            differ += 1
            if differ <= 3 or args.verbose:
                print(difference_line(name, ("text", "stream", "counts"), a, b))
    print(f"{len(texts)} texts, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
