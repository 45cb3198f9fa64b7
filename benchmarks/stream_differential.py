"""Differential check of the stream against the whole text, fed as triage feeds it (issue 11, session 26): random texts
of forms (the cases of benchmarks/redaction_speed.py, the string forms of tests/test_redaction_session2*_*.py, lines of
the real text files under ../shared/data), mixed and behind the usual prefixes (ranks, times, compose's bar, JSON log
records, Docker's json-file records; two sources taking turns line by line), each fed to a StreamRedactor in reads of
1 byte to 64 KiB of its UTF-8 bytes (a read may end inside a character) with flush() called at random between reads
(tests/stream_feed.fed_as_triage), and compared with Redactor.text on the whole. A disagreement is counted under the
form whose line the first differing output line comes from.

    python benchmarks/stream_differential.py --texts 2000 --seed 1 [--data DIR] [--feeds 2] [--show 5] [--code DIR]

The exit status is 1 if any text disagrees.
"""

from __future__ import annotations

import argparse
import ast
import collections
import copy
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__" and "--code" in sys.argv:   # (another checkout's aiperf_lab: main's, for the count before)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))
else:
    sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))
sys.path.insert(1, str(ROOT / "tests"))
import redaction_speed  # noqa: E402
from stream_feed import fed_as_triage  # noqa: E402

from aiperf_lab.triage.redact import Redactor  # noqa: E402

HF = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"
ENVIRON = {"HF_TOKEN": HF, "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz", "PATH": "/usr/bin:/bin", "HOME": "/home/alice",
           "USER": "alice"}
PREFIXES = ("", "", "", "[rank0]: ", "[rank1]: ", "2026-11-25T10:00:00.123Z ", "api-1  | ", "worker-7: ",
            "INFO 2026-11-25 10:00:00,123 ", "json", "docker", "docker-json")
KNOWN_LINES = (f"HF_TOKEN={HF}\n", f"token is {HF[:12]}\n{HF[12:]}\n", "password S3cr3tP@ssw0rd!xyz\n",
               f"{HF[:20]}\\\n{HF[20:]}\n")


def test_forms(root: Path = ROOT) -> list[tuple[str, str]]:
    """The string constants of tests/test_redaction_session2*_*.py (6 characters or more), each under its file's name
    and line: the forms those tests read (parts of f-strings included)."""
    forms = []
    for path in sorted((root / "tests").glob("test_redaction_session2*_*.py")):
        seen = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 6:
                value = node.value
                if value in seen or value.startswith(("test", "Asserts", "The ", "A ", "What ")) and "\n" not in value[:-1]:
                    continue
                seen.add(value)
                forms.append((f"{path.stem[15:]}:{node.lineno}", value))
    return forms


def bench_forms() -> list[tuple[str, str]]:
    return [(f"case {name}", redaction_speed._text(unit, 300)) for name, unit in redaction_speed.CASES.items()]


def real_lines(folder: Path) -> list[tuple[str, str]]:
    """Runs of 1 to 8 lines of the text files under folder (*.txt, *.csv, *.log, *.json, *.xml, *.md under 20 MB)."""
    runs = []
    if not folder.is_dir():
        return runs
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".txt", ".csv", ".log", ".json", ".xml", ".md") and path.is_file() and (
                path.stat().st_size < 20_000_000):
            lines = path.read_text(errors="replace").splitlines(keepends=True)
            rng = random.Random(path.name)
            for _ in range(min(40, len(lines))):
                at = rng.randrange(len(lines))
                runs.append((f"file {path.relative_to(folder)}", "".join(line[:400] for line in lines[at:at + rng.randint(1, 8)])))
    return runs


def _behind(prefix: str, line: str) -> str:
    body = line.rstrip("\n")
    if prefix == "json":
        return json.dumps({"level": "info", "message": body}) + "\n"
    if prefix == "docker":
        return json.dumps({"log": body + "\n", "stream": "stdout", "time": "2026-11-25T10:00:00.000000001Z"}) + "\n"
    if prefix == "docker-json":
        inner = json.dumps({"level": "info", "message": body})
        return json.dumps({"log": inner + "\n", "stream": "stdout", "time": "2026-11-25T10:00:00.000000001Z"}) + "\n"
    return prefix + body + "\n"


def random_text(rng: random.Random, pools: list[list[tuple[str, str]]], prefixes: tuple[str, ...] = PREFIXES,
                turns: float = 0.2) -> tuple[str, list[str]]:
    """A text of 1 to 8 forms, each behind a prefix (its lines), two sources taking turns with chance `turns`; with the
    label of each of its lines."""
    lines: list[str] = []
    labels: list[str] = []
    for _ in range(rng.randint(1, 8)):
        pool = rng.choice(pools)
        label, form = rng.choice(pool)
        if rng.random() < 0.1:
            label, form = "known value", rng.choice(KNOWN_LINES)
        form_lines = form.splitlines(keepends=True) or ["\n"]
        if rng.random() < turns and len(form_lines) > 1:   # two sources taking turns: a rank's lines between this one's
            other = ["step 1 loss 2.5\n", "epoch 3 iteration 12/50\n", "  - x\n"]
            a, b = rng.sample(("[rank0]: ", "[rank1]: ", "[rank2]: ", "api-1  | ", "db-1   | "), 2)
            for line in form_lines:
                lines.append(_behind(a, line))
                labels.append(label + f" (taking turns {a.strip()})")
                if rng.random() < 0.6:
                    lines.append(_behind(b, rng.choice(other)))
                    labels.append(label + f" (taking turns {a.strip()})")
            continue
        prefix = rng.choice(prefixes)
        for line in form_lines:
            lines.append(_behind(prefix, line))
            labels.append(label + (f" behind {prefix.strip() or prefix!r}" if prefix else ""))
    text = "".join(lines)
    if rng.random() < 0.2 and text.endswith("\n"):
        text = text[:-1]   # (a last line without its newline)
    return text, labels


def all_pools(data: Path | None) -> list[list[tuple[str, str]]]:
    pools = [bench_forms(), test_forms()]
    if data is not None and (lines := real_lines(data)):
        pools.append(lines)
    return pools


PROTOTYPE: list[Redactor] = []


def fresh() -> Redactor:
    if not PROTOTYPE:
        PROTOTYPE.append(Redactor(ENVIRON))
    return copy.deepcopy(PROTOTYPE[0])


def disagreements(count: int, seed: int, pools, feeds: int = 2, flush_chance: float = 0.5):
    """Yields (index, label, text, whole, streamed) for each of `count` random texts whose stream (any of `feeds` feeds)
    differs from Redactor.text."""
    for index in range(count):
        rng = random.Random(seed * 1_000_003 + index)   # (each text and its feeds drawn alone: counts compare across code)
        text, labels = random_text(rng, pools)
        whole = fresh().text(text)
        for _ in range(feeds):
            streamed = fed_as_triage(fresh(), text, rng, flush_chance)
            if streamed != whole:
                a, b = whole.splitlines(keepends=True), streamed.splitlines(keepends=True)
                at = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                label = labels[min(at, len(labels) - 1)] if labels else "?"
                yield index, label, text, whole, streamed
                break


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--feeds", type=int, default=2, help="random feeds of each text")
    parser.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    parser.add_argument("--code", help="the folder holding the aiperf_lab to check (another checkout's)")
    parser.add_argument("--show", type=int, default=5, help="disagreements printed whole")
    args = parser.parse_args()
    pools = all_pools(Path(args.data))
    print(f"forms: {', '.join(str(len(pool)) for pool in pools)} (benchmark cases, test forms, real-file runs); "
          f"code: {Path(sys.modules['aiperf_lab'].__file__).parent.parent.name}")
    started = time.process_time()
    found = collections.Counter()
    shown = 0
    for index, label, text, whole, streamed in disagreements(args.texts, args.seed, pools, args.feeds):
        found[label.split(" behind ")[0].split(" (taking")[0]] += 1
        if shown < args.show:
            shown += 1
            print(f"--- text {index} ({label}):\n{text[:1500]!r}\n    whole:    {whole[:600]!r}\n    streamed: {streamed[:600]!r}")
    print(f"{sum(found.values())} of {args.texts} texts disagree ({args.feeds} feeds each), CPU {time.process_time() - started:.1f} s")
    for label, n in found.most_common():
        print(f"  {n:5d}  {label}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
