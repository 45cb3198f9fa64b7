"""JSON log records whose message is longer than 65,536 characters (issue 11, h16l): how long 20 MB of them take
to redact, as a text and through a stream, here and (with --baseline) in another checkout's redact.py, in CPU
seconds, and how many planted values each leaves; and a record never closed whose message is a run of escaped quotes
(`{"msg": "password? \\"\\"...`), which the line views tried from each quote to the line's end.

    python benchmarks/redaction_long_records.py [--mb 20] [--quotes 25000] [--baseline OTHER/aiperf_lab/triage/redact.py]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from redaction_speed import _load   # noqa: E402  (this checkout's redaction, or another's side by side)

VALUES = ("Zq8Das1xPa55", "Hunter2x9Sx")
PAD = "step 1 loss 2.3 tokens/s 512 " * 2400   # 69,600 characters


def records(mb: float) -> str:
    pair = (json.dumps({"level": "info", "msg": f"$ pass show prod/db\n{VALUES[1]}\n{PAD} password={VALUES[0]} ?"}) + "\n"
            + json.dumps({"level": "info", "msg": PAD + '\\"quoted\\" ok'}) + "\n")
    return pair * max(1, int(mb * 2**20) // len(pair))


def timed(module, text: str, stream: bool) -> tuple[float, int]:
    start = time.process_time()
    if stream:
        s = module.StreamRedactor(module.Redactor({}))
        out = "".join(s.feed(text[i:i + 65536]) for i in range(0, len(text), 65536)) + s.close()
    else:
        out = module.Redactor({}).text(text)
    return time.process_time() - start, sum(out.count(v) for v in VALUES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--quotes", type=int, default=25000)
    parser.add_argument("--baseline")
    args = parser.parse_args()
    text = records(args.mb)
    unclosed = '{"msg": "password? ' + '\\"' * args.quotes + "\n"
    planted = text.count(VALUES[0]) + text.count(VALUES[1])
    print(f"{len(text) / 2**20:.1f} MiB of records over 65,536 characters, {planted} planted values; CPU seconds")
    print("| code | text (s) | left in text | stream (s) | left in stream | unclosed record, "
          f"{args.quotes:,} escaped quotes (s) |")
    print("|---|---|---|---|---|---|")
    for name, path in (("baseline", args.baseline), ("this checkout", None)):
        if name == "baseline" and not path:
            continue
        module = _load(path)
        text_s, text_left = timed(module, text, False)
        stream_s, stream_left = timed(module, text, True)
        start = time.process_time()
        module.Redactor({}).text(unclosed)
        print(f"| {name} | {text_s:.2f} | {text_left} | {stream_s:.2f} | {stream_left} | {time.process_time() - start:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
