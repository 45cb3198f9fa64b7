"""Known secrets that share a long head (red team h19r, issue 11): N known HS256 JWTs (every one starts with the same
header) x log lines that hold other JWTs: CPU seconds per MB to redact the text whole (Redactor.text) and as a stream
(64 KiB reads), and the Redactor's build.

    python benchmarks/redaction_known_shared_heads.py                    # 0, 10, 100, 1000 known x 1 MB
    python benchmarks/redaction_known_shared_heads.py --known 0 100 --mb 1 --baseline OTHER_CHECKOUT
                                                                         # another checkout's code in turn, side by side

Each figure is taken in a fresh process (fork) importing the code of its checkout (the root that holds aiperf_lab/),
its own CPU time (time.process_time)."""

from __future__ import annotations

import argparse
import base64
import json
import multiprocessing
import random
import string
import sys
import time
from pathlib import Path

HEADER = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"


def _jwt(rnd: random.Random) -> str:
    body = base64.urlsafe_b64encode(json.dumps({"sub": str(rnd.randrange(10 ** 10)),
                                                "iat": rnd.randrange(10 ** 9)}).encode()).decode().rstrip("=")
    return f"{HEADER}.{body}.{''.join(rnd.choice(string.ascii_letters + string.digits) for _ in range(43))}"


def _measure(root: str, known: int, mb: float, out) -> None:
    sys.path.insert(0, root)
    from aiperf_lab.triage.redact import Redactor, StreamRedactor
    rnd = random.Random(2)
    lines = []
    size = 0
    while size < mb * 1e6:
        lines.append(f"2024-05-01 12:00:{len(lines) % 60:02d} INFO request ok auth={_jwt(rnd)} latency=12ms\n")
        size += len(lines[-1])
    text = "".join(lines)
    env = {f"SVC{i}_TOKEN": _jwt(rnd) for i in range(known)}
    t = time.process_time()
    redactor = Redactor(env)
    build = time.process_time() - t
    t = time.process_time()
    redactor.text(text)
    whole = (time.process_time() - t) / (len(text) / 1e6)
    stream = StreamRedactor(redactor)
    t = time.process_time()
    for k in range(0, len(text), 65536):
        stream.feed(text[k:k + 65536])
    stream.close()
    streamed = (time.process_time() - t) / (len(text) / 1e6)
    out.put((build, whole, streamed))


def _run(root: str, known: int, mb: float) -> tuple[float, float, float]:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_measure, args=(root, known, mb, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--known", type=int, nargs="+", default=[0, 10, 100, 1000])
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--baseline", help="another checkout's root (holding aiperf_lab/), measured in turn")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent.parent)
    trees = [("this", here)] + ([("baseline", str(Path(args.baseline).resolve()))] if args.baseline else [])
    print("| known JWTs | tree | Redactor() s | text() CPU s/MB | stream CPU s/MB |")
    print("|---|---|---|---|---|")
    for known in args.known:
        for name, root in trees:
            build, whole, streamed = _run(root, known, args.mb)
            print(f"| {known:,} | {name} | {build:.3f} | {whole:.2f} | {streamed:.2f} |", flush=True)


if __name__ == "__main__":
    main()
