"""04-ex01: a matrix-multiply load whose power, energy and work per joule the runner measures."""

from __future__ import annotations

import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, parser


def main() -> None:
    args = parser(__doc__, ["bf16", "fp32"]).parse_args()
    torch = import_torch()

    device = device_for(torch, args.size)
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[args.variant]
    n = 8192 if args.size == "full" else 256
    seconds = args.seconds or (10.0 if args.size == "full" else 0.5)
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    for _ in range(3):
        a @ b
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    sync()
    print(f"{args.variant} {n}x{n}x{n} matmuls for {seconds:.1f} s on {device}", flush=True)
    start = time.perf_counter()
    count = 0
    next_note = start + 2
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            a @ b
        sync()
        count += 10
        if time.perf_counter() >= next_note:
            elapsed = time.perf_counter() - start
            print(f"  {elapsed:4.1f} s: {2 * n ** 3 * count / elapsed / 1e12:.1f} TFLOP/s", flush=True)
            next_note += 2
    elapsed = time.perf_counter() - start
    flops = 2 * n ** 3 * count
    emit(dtype=args.variant, n=n, matmuls=count, seconds=round(elapsed, 4), flops=flops,
         tflops=round(flops / elapsed / 1e12, 2), work=flops, work_unit="FLOP")


if __name__ == "__main__":
    main()
