"""Differential check of the dump decoders: this redact.py against another one (main's, before a change meant to
keep every ordinary text as it was), byte for byte, through Redactor.text and StreamRedactor, with and without
--redact-hosts.

    python benchmarks/redaction_dump_diff.py --baseline OTHER_REDACT_PY [--data DIR] [--random 3000]

Texts: every case of benchmarks/redaction_speed.py at a small size (but those dumping a known secret), the real text files of tests/data and DIR
(*.txt, *.csv, *.log, *.json, *.xml, *.md under 20 MB; ../shared/data by default), dumps of ordinary bytes in
every layout tests/data/dump_forms.json names (od, xxd, hexdump, basenc when they are installed), and random texts
drawn from the characters the dump rules look at. A difference in a text that holds no known secret is a false
positive (or a lost redaction); each is printed (first 5) and the exit status is 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import redaction_speed  # noqa: E402
from redaction_hosts_diff import difference_line, fresh_redactor, real_texts  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENVIRON = {**os.environ, "HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}
ALPHABET = list("0123456789abcdefABCDEF0123456789   \t\t\n\n\n::--,,x|.<>\\-") + [
    "0x", ", 0x", "0000000 ", "00000000: ", "00000000  ", "    ", " 120", "  -61", " 303", "  \\n", " 01101000"]


def _fresh(module, hosts: bool):
    return fresh_redactor(module, ENVIRON, hosts)


def _outputs(module, text: str, hosts: bool) -> tuple[str, str, str, dict]:
    redactor = _fresh(module, hosts)
    whole = redactor.text(text)
    counts = dict(redactor.counts)
    sink = module.StreamRedactor(_fresh(module, hosts))
    pieces = [sink.feed(text[at:at + 4096]) for at in range(0, len(text), 4096)]
    pieces.append(sink.close())
    lines = module.StreamRedactor(_fresh(module, hosts))
    by_line = "".join(lines.feed(line) + lines.flush() for line in text.splitlines(keepends=True)) + lines.close()
    return whole, "".join(pieces), by_line, counts


def _ordinary_dumps() -> list[tuple[str, str]]:
    forms = json.loads((ROOT / "tests" / "data" / "dump_forms.json").read_text())
    data = (ROOT / "README.md").read_bytes()[:3000]
    texts = []
    for command in forms["promised"] + forms["seen"]:
        if shutil.which(command.split()[0]) and shutil.which("sed") and shutil.which("paste"):
            out = subprocess.run(command, input=data, capture_output=True, shell=True).stdout.decode("latin-1")
            texts.append((f"dump {command}", out))
    return texts


def _texts(data: Path, random_count: int, seed: int) -> list[tuple[str, str]]:
    # (the speed cases that dump a known secret differ by design: the new layouts are read)
    texts = [(f"case {name}", redaction_speed._text(unit, 20_000)) for name, unit in redaction_speed.CASES.items()
             if "known secret" not in name]
    texts += _ordinary_dumps()
    for folder in (ROOT / "tests" / "data", data):
        texts += real_texts(folder, skip=("dump_forms.json",))
    rng = random.Random(seed)
    for i in range(random_count):
        texts.append((f"random {i}", "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 600)))))
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the other redact.py: one file, or the facade of a checkout with triage/redaction beside it")
    parser.add_argument("--redact-py", help="a redact.py to check instead of aiperf_lab.triage.redact")
    parser.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    parser.add_argument("--random", type=int, default=3000, help="random texts of dump characters (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="print every difference, not the first 5")
    args = parser.parse_args()
    mine, other = redaction_speed._load(args.redact_py), redaction_speed._load(args.baseline)
    texts = _texts(Path(args.data), args.random, args.seed)
    differ = 0
    for name, text in texts:
        for hosts in (False, True):
            a, b = _outputs(mine, text, hosts), _outputs(other, text, hosts)
            if a != b:
                differ += 1
                if differ <= 5 or args.verbose:
                    print(difference_line(f"{name} hosts={hosts}", ("text", "stream", "line by line", "counts"), a, b))
    print(f"{len(texts)} texts x 2 (with and without --redact-hosts), {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
