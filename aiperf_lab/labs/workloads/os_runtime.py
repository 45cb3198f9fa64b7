"""06-ex06: OS runtime tracing. A "data loader" reads 2,000 small files (4 KB each) from a scratch
folder in the run directory.

`baseline`: opens, reads and closes every file on every epoch, and polls for new work with short
sleeps, as loaders that stream from a file system do. `optimized`: packs the files once into one
buffer and reads that, with no polling. nsys's OS runtime trace (`-t osrt`) counts the open, read and
sleep calls each makes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, import_torch, parser, profiled

FILES, EPOCHS, SIZE = 2000, 3, 4096


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    torch = import_torch()
    nvtx = Nvtx(torch)
    files = FILES if args.size == "full" else 50
    scratch = Path(tempfile.mkdtemp(prefix="osrt-", dir=os.environ.get("AIPERF_RUN_DIR")))
    try:
        payload = os.urandom(SIZE)
        paths = [scratch / f"sample_{i:05d}.bin" for i in range(files)]
        for path in paths:
            path.write_bytes(payload)

        def baseline():
            total = 0
            for _ in range(EPOCHS):
                for i, path in enumerate(paths):
                    with open(path, "rb") as f:
                        total += len(f.read())
                    if i % 100 == 0:
                        time.sleep(0.001)  # "is there more work?"
            return total

        packed = scratch / "packed.bin"

        def pack():
            with open(packed, "wb") as out:
                for path in paths:
                    out.write(path.read_bytes())

        def optimized():
            with open(packed, "rb") as f:
                data = f.read()
            total = 0
            for _ in range(EPOCHS):
                total += sum(len(data[i:i + SIZE]) for i in range(0, len(data), SIZE))
            return total

        pack()

        def timed(fn):
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1000

        baseline_ms, optimized_ms = timed(baseline), timed(optimized)
        with profiled(torch):
            with nvtx.range(args.variant):
                (optimized if args.variant == "optimized" else baseline)()
        emit(variant=args.variant, files=files, epochs=EPOCHS, expected_opens=files * EPOCHS,
             baseline_ms=round(baseline_ms, 1), optimized_ms=round(optimized_ms, 1),
             speedup=round(baseline_ms / optimized_ms, 1))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
