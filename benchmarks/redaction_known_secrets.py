"""What known secrets cost: an environment of N secret-named variables (random 24-character values, as red team
h17r planted 5,000) x plain log text of a size: CPU seconds to build the Redactor, to redact the text whole
(Redactor.text), as a stream (64 KiB reads, flushed after each, as triage reads a pipe) and as many short texts
(environment.txt's values, argv words: 2,000 texts of 80 characters).

    python benchmarks/redaction_known_secrets.py                       # 0, 20, 1000, 5000 secrets x 2 MB
    python benchmarks/redaction_known_secrets.py --secrets 0 20 --mb 2 --repeat 3 --baseline OTHER/aiperf_lab/triage/redact.py
                                                                       # before/after side by side: medians, ratio

Each figure is taken in a fresh process (fork), its own CPU time (time.process_time), so a machine shared with
other work inflates it little; --baseline runs another checkout's redaction (its redact.py facade, as
benchmarks/redaction_speed.py loads it) in turn with this one, case by case.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import random
import statistics
import string
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINES = ("step {i} loss 2.3817 lr 3.0e-04 grad_norm 0.84 tokens/s 51234.7 mem 61.2 GiB\n"
         "[rank0]: epoch 3 iteration {i}/5000 | consumed samples 614400 | elapsed 412.3 ms\n"
         "INFO 2026-11-23 05:12:44 loading shard 7 of 16 from /data/shards/part-{i:05d}.arrow\n")


def _speed_module():
    spec = importlib.util.spec_from_file_location("redaction_speed_loader", HERE / "redaction_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def environment(count: int) -> dict[str, str]:
    rng = random.Random(7)
    return {f"SECRET_{i:04d}": "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
            for i in range(count)}


def plain_text(size: int) -> str:
    out, total, i = [], 0, 0
    while total < size:
        line = LINES.format(i=i)
        out.append(line)
        total += len(line)
        i += 1
    return "".join(out)[:size]


def _case(redact_py: str | None, count: int, size: int, queue) -> None:
    if redact_py is None:
        sys.path.insert(0, str(HERE.parent))
    redact = _speed_module()._load(redact_py)
    env = environment(count)
    text = plain_text(size)
    shorts = [text[k:k + 80] for k in range(0, 80 * 2000, 80)]
    clock = time.process_time
    start = clock()
    redactor = redact.Redactor(env)
    built = clock() - start
    start = clock()
    whole = redactor.text(text)
    whole_s = clock() - start
    start = clock()
    stream = redact.StreamRedactor(redactor)
    out = []
    for k in range(0, len(text), 65536):
        out.append(stream.feed(text[k:k + 65536]))
        out.append(stream.flush())
    out.append(stream.close())
    stream_s = clock() - start
    start = clock()
    for short in shorts:
        redactor.text(short)
    short_s = clock() - start
    queue.put((built, whole_s, stream_s, short_s, whole == text and "".join(out) == text))


def measure(redact_py: str | None, count: int, size: int) -> tuple:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_case, args=(redact_py, count, size, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secrets", type=int, nargs="+", default=[0, 20, 1000, 5000])
    parser.add_argument("--mb", type=float, default=2.0, help="plain log text per case, in MB (default 2)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--baseline", help="another checkout's aiperf_lab/triage/redact.py, timed in turn")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    variants = [("this", None)] + ([("baseline", args.baseline)] if args.baseline else [])
    print(f"plain log text {args.mb} MB; CPU seconds, median of {args.repeat}; short = 2,000 texts of 80 characters")
    header = "| secrets | variant | Redactor() | text() | stream | short texts | unchanged |"
    print(header + "\n" + "|---" * 7 + "|")
    for count in args.secrets:
        figures = {name: [] for name, _ in variants}
        for _ in range(args.repeat):
            for name, path in variants:
                figures[name].append(measure(path, count, size))
        medians = {}
        for name, _ in variants:
            runs = figures[name]
            medians[name] = [statistics.median(run[k] for run in runs) for k in range(4)]
            same = all(run[4] for run in runs)
            print(f"| {count} | {name} | " + " | ".join(f"{v:.3f}" for v in medians[name]) + f" | {same} |")
        if args.baseline:
            ratio = [a / b if b else float("nan") for a, b in zip(medians["this"], medians["baseline"])]
            print(f"| {count} | this / baseline | " + " | ".join(f"{r:.2f}" for r in ratio) + " | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
