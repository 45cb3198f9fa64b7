"""How well `reads_as_words` (aiperf_lab/triage/redaction/names.py) tells a generated password that looks like a path
(`openssl rand -base64 24` gives `/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX` 0.4% of the time) from a real path.

    python benchmarks/path_like_passwords.py                    # 400,000 base64 values, the paths under /usr /etc /opt /var
    python benchmarks/path_like_passwords.py --roots /usr --values 40000 --env-dump bundle/environment.txt

Counted: base64 values of 16, 24, 32 and 48 random bytes that `is_location` reads as a path, and how many of those
read as words (kept as a location: a miss); real paths (every file and folder under --roots, 8 levels deep; the
values of this process's environment and of --env-dump files that are paths) that do not read as words (a path under
a secret name that would then be hidden, unless it exists on the machine triage runs on: a false alarm). Prints one
line per count and up to 20 examples of each kind of error."""

from __future__ import annotations

import argparse
import base64
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.triage.redact import is_location, reads_as_words  # noqa: E402


def generated(count: int, seed: int) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    shaped, misses = 0, []
    for index in range(count):
        value = base64.b64encode(rng.randbytes((16, 24, 32, 48)[index % 4])).decode()
        if is_location(value):
            shaped += 1
            if reads_as_words(value):
                misses.append(value)
    return shaped, misses


def real_paths(roots: list[str], env_dumps: list[str]) -> list[str]:
    paths: set[str] = set()
    for root in roots:
        for folder, folders, files in os.walk(root):
            if folder.count(os.sep) > 8:
                folders[:] = []
                continue
            paths.update(os.path.join(folder, name) for name in files + folders)
    values = list(os.environ.values())
    for dump in env_dumps:
        values += [line.split("=", 1)[1].strip() for line in Path(dump).read_text(errors="replace").splitlines()
                   if "=" in line]
    return [p for p in [*paths, *values] if is_location(p)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--values", type=int, default=400_000, help="random base64 values to make")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--roots", nargs="*", default=["/usr", "/etc", "/opt", "/var"])
    parser.add_argument("--env-dump", nargs="*", default=[], help="environment.txt files (NAME=VALUE lines)")
    args = parser.parse_args()
    shaped, misses = generated(args.values, args.seed)
    print(f"generated: {args.values} values, {shaped} read as paths by is_location, "
          f"{len(misses)} of those read as words (kept: a miss)")
    for value in misses[:20]:
        print(f"  miss {value}")
    paths = real_paths(args.roots, args.env_dump)
    alarms = [p for p in paths if not reads_as_words(p)]
    print(f"real paths: {len(paths)}, {len(alarms)} do not read as words ({100 * len(alarms) / max(1, len(paths)):.3f}%;"
          f" hidden only under a secret name, and only when they do not exist here)")
    for path in alarms[:20]:
        print(f"  alarm {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
