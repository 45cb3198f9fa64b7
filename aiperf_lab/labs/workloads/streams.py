"""01-ex02: streams and kernel concurrency. Sixteen independent small kernels (each a single thread
block spinning for about half a millisecond, `torch.cuda._sleep`, plus a small matrix multiply) run
on one stream, where each waits for the one before, or spread over four streams, where the GPU runs
them side by side. Both are timed in every run; the variant picks what the profiler captures.
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, knob, median_ms, parser, profiled

ITEMS, STREAMS = 16, 4


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    streams_wanted = knob(args, "streams", STREAMS)
    torch = import_torch()
    device = device_for(torch, args.size)
    if device.type != "cuda":
        # No streams on the CPU: run the same items serially so the tiny run still exercises the code.
        a = torch.randn(64, 64)
        serial = median_ms(torch, device, lambda: [a @ a for _ in range(ITEMS)])
        emit(variant=args.variant, serial_ms=round(serial, 3), concurrent_ms=round(serial, 3), speedup=1.0,
             streams=1, items=ITEMS)
        return
    nvtx = Nvtx(torch)
    small = [torch.randn(256, 256, device=device) for _ in range(ITEMS)]

    # Calibrate the spin kernel to about 0.5 ms.
    probe = 1_000_000
    one = median_ms(torch, device, lambda: torch.cuda._sleep(probe), reps=5)
    cycles = int(probe * 0.5 / max(one, 1e-3))

    def item(i):
        torch.cuda._sleep(cycles)
        small[i] @ small[i]

    streams = [torch.cuda.Stream() for _ in range(streams_wanted)]
    current = torch.cuda.current_stream()

    def serial():
        with nvtx.range("one_stream"):
            for i in range(ITEMS):
                item(i)

    def concurrent():
        with nvtx.range("four_streams"):
            for s in streams:
                s.wait_stream(current)
            for i in range(ITEMS):
                with torch.cuda.stream(streams[i % streams_wanted]):
                    item(i)
            for s in streams:
                current.wait_stream(s)

    serial_ms = median_ms(torch, device, serial)
    concurrent_ms = median_ms(torch, device, concurrent)
    with profiled(torch):
        for _ in range(5):
            (concurrent if args.variant == "optimized" else serial)()
    emit(variant=args.variant, item_ms=round(serial_ms / ITEMS, 3), serial_ms=round(serial_ms, 3),
         concurrent_ms=round(concurrent_ms, 3), speedup=round(serial_ms / concurrent_ms, 3), streams=streams_wanted,
         items=ITEMS)


if __name__ == "__main__":
    main()
