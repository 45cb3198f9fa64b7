"""01-ex03: host-to-device copies, pageable against pinned, and copies overlapped with compute.

Measures everything the checks need in every variant; the variant picks what runs in the longer
profiled loop: `baseline` copies pageable memory then computes, `optimized` copies pinned memory in
chunks on a copy stream while the compute stream works on the previous chunk.
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, knob, median_ms, parser, profiled

CHUNKS = 4


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    chunks = knob(args, "chunks", CHUNKS)
    torch = import_torch()

    device = device_for(torch, args.size)
    on_gpu = device.type == "cuda"
    total = (1 << 30) if args.size == "full" else (1 << 22)   # bytes moved per batch
    elems = total // 4
    pageable = torch.rand(elems)
    pinned = pageable.pin_memory() if on_gpu else pageable
    dest = torch.empty(elems, device=device)

    pageable_ms = median_ms(torch, device, lambda: dest.copy_(pageable))
    pinned_ms = median_ms(torch, device, lambda: dest.copy_(pinned, non_blocking=True))
    back = torch.empty(elems, pin_memory=on_gpu)
    d2h_ms = median_ms(torch, device, lambda: back.copy_(dest, non_blocking=True))

    # Compute sized to take about as long as the pinned transfer, so overlap has something to hide.
    def passes(x, k):
        for _ in range(k):
            x.mul_(1.0001).add_(0.0001)
    one_pass = median_ms(torch, device, lambda: passes(dest, 1))
    k = max(1, min(500, round(pinned_ms / max(one_pass, 1e-3))))
    compute_ms = median_ms(torch, device, lambda: passes(dest, k))

    chunk = elems // chunks
    copy_stream = torch.cuda.Stream() if on_gpu else None
    compute_stream = torch.cuda.current_stream() if on_gpu else None

    def sequential():
        dest.copy_(pinned, non_blocking=True)
        passes(dest, k)

    def overlapped():
        if not on_gpu:
            return sequential()
        ready = []
        for i in range(chunks):
            with torch.cuda.stream(copy_stream):
                dest[i * chunk:(i + 1) * chunk].copy_(pinned[i * chunk:(i + 1) * chunk], non_blocking=True)
                event = torch.cuda.Event()
                event.record(copy_stream)
            ready.append(event)
        for i in range(chunks):
            compute_stream.wait_event(ready[i])
            passes(dest[i * chunk:(i + 1) * chunk], k)
        compute_stream.wait_stream(copy_stream)

    sequential_ms = median_ms(torch, device, sequential)
    overlapped_ms = median_ms(torch, device, overlapped)

    def baseline_loop():
        dest.copy_(pageable)
        passes(dest, k)

    captured = overlapped if args.variant == "optimized" else baseline_loop
    with profiled(torch):  # what a profile of this variant captures: the variant's own loop, nothing else
        median_ms(torch, device, captured, reps=20, warmup=0)
    gb = total / 1e9
    hidden = sequential_ms - overlapped_ms
    emit(variant=args.variant, bytes=total, pageable_h2d_gb_s=round(gb / (pageable_ms / 1e3), 2),
         pinned_h2d_gb_s=round(gb / (pinned_ms / 1e3), 2), pinned_d2h_gb_s=round(gb / (d2h_ms / 1e3), 2),
         transfer_ms=round(pinned_ms, 3), compute_ms=round(compute_ms, 3), compute_passes=k,
         sequential_ms=round(sequential_ms, 3), overlapped_ms=round(overlapped_ms, 3),
         hidden_fraction_of_transfer=round(hidden / pinned_ms, 3) if pinned_ms > 0 else None, chunks=chunks)


if __name__ == "__main__":
    main()
