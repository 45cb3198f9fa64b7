"""Redaction time on adversarial text: runs that made the former patterns backtrack, and many
near-matches of every rule. Each case is SIZE megabytes of one repeated pattern, redacted whole
(Redactor.text) and as a stream (StreamRedactor, 64 KiB reads, as triage reads a workload's pipe).

    python benchmarks/redaction_speed.py --mb 20                 # the figures in docs/benchmarks.md
    python benchmarks/redaction_speed.py --mb 20 --redact-hosts
    python benchmarks/redaction_speed.py --mb 0.02 --redact-py old_redact.py --limit-s 120
                                                                 # another redact.py, for before/after

Each case runs in its own process with a time limit (--limit-s), so a quadratic one is reported as
"over the limit" instead of hanging the run.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import sys
import time
from pathlib import Path

CASES = {
    "run of dots": ".",
    "run of letters": "a",
    "secret names, no separator": "tokenpassword_secret.",
    "secret names, spaced": "api_token ",
    "assignments": "password=x ",
    "private key BEGIN, no END": "-----BEGIN RSA PRIVATE KEY-----\n",
    "JWT starts": "eyJ-",
    "JWT-like segments": "eyJaaaaaaaa.",
    "URL schemes": "a://b:c",
    "URL user info": "://" + "u:p" * 100 + " ",
    "token prefixes": "sk-hf_ghp_",
    "a token every 34 characters": "hf_" + "a" * 30 + " ",
    "a JWT every 27 characters": "eyJaaaaaaaa.bbbbbbbbb.cccc ",
    "dotted quads": "1.1.1.1-",
    "IPv6-like": "a:b:",
    "bearer": "Bearer ",
    "empty lines": "\n",
    "12-character lines (a fragment look-up each)": "abcdefghijkl\n",
    "half a known secret on every line": "hf_QQQQQQQQQQQQQQQQ\n",
    "URL passwords with a slash": "https://u:a/b@h ",
    "base64 runs": "QUJDREVGR0hJSktMTU5PUA== ",
    "MAC-like groups": "0a:1b:2c:3d:4e:",
    "log lines with secrets": ("step 12 loss 0.53 tokens/s 1234.5 HF_TOKEN=hf_" + "Q" * 34 +
                               " url=postgres://u:pa55word@db.internal/x 10.0.0.7:29500\n"),
}


def _load(path: str | None):
    if path is None:
        from aiperf_lab.triage import redact
        return redact
    spec = importlib.util.spec_from_file_location("redact_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_case(unit: str, size: int, redact_py: str | None, hosts: bool, stream: bool, queue) -> None:
    redact = _load(redact_py)
    text = (unit * (size // len(unit) + 1))[:size]
    environ = {"HF_TOKEN": "hf_" + "Q" * 34, "DATABASE_URL": "postgres://u:pa55word@db/x", "PATH": "/usr/bin"}
    redactor = redact.Redactor(environ, redact_hosts=hosts)
    start = time.perf_counter()
    if stream:
        sink = redact.StreamRedactor(redactor)
        out = []
        for at in range(0, len(text), 1 << 16):
            out.append(sink.feed(text[at:at + (1 << 16)]))
        out.append(sink.close())
    else:
        redactor.text(text)
    queue.put(time.perf_counter() - start)


def main() -> int:
    global CASES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=20.0, help="megabytes of text per case (default 20)")
    parser.add_argument("--redact-py", help="a redact.py to load instead of aiperf_lab.triage.redact")
    parser.add_argument("--redact-hosts", action="store_true")
    parser.add_argument("--limit-s", type=float, default=60.0, help="time limit per case (default 60)")
    parser.add_argument("--no-stream", action="store_true", help="only Redactor.text")
    parser.add_argument("--only", help="run only the cases whose name holds this text")
    args = parser.parse_args()
    if args.redact_py is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    size = int(args.mb * 1_000_000)
    if args.only:
        CASES = {name: unit for name, unit in CASES.items() if args.only in name}
    modes = ["text"] + ([] if args.no_stream or args.redact_py else ["stream"])
    print(f"{args.mb:g} MB per case, redact_hosts={args.redact_hosts}, "
          f"{args.redact_py or 'aiperf_lab.triage.redact'}")
    print(f"| case | {' | '.join(f'{m} (s)' for m in modes)} |")
    print(f"|---|{'---|' * len(modes)}")
    worst = 0.0
    for name, unit in CASES.items():
        cells = []
        for mode in modes:
            queue: multiprocessing.Queue = multiprocessing.Queue()
            proc = multiprocessing.Process(target=_run_case, args=(unit, size, args.redact_py, args.redact_hosts,
                                                                   mode == "stream", queue))
            proc.start()
            proc.join(args.limit_s)
            if proc.is_alive():
                proc.kill()
                proc.join()
                cells.append(f"over {args.limit_s:g}")
                worst = float("inf")
                continue
            seconds = queue.get() if not queue.empty() else float("nan")
            worst = max(worst, seconds)
            cells.append(f"{seconds:.2f}")
        print(f"| {name} | {' | '.join(cells)} |", flush=True)
    print(f"worst: {worst:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
