"""01-ex04: NCCL on the timeline, one process per GPU (torchrun). Each step computes (matrix
multiplies standing in for a backward pass) and all-reduces 256 MB of gradients in 8 buckets.

`baseline` all-reduces after the compute with a synchronous call: NCCL runs on its own stream, and
the compute stream waits for it, so the GPU either computes or communicates. `optimized` launches each bucket's all-reduce as soon as it is ready (async_op) while
the remaining compute runs, as DDP does. Rank 0 reports the all-reduce bus bandwidth measured alone,
both step times and the share of communication hidden.
"""

from __future__ import annotations

import os

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, import_torch, median_ms, parser, profiled, require_torchrun

BUCKETS = 8


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    world = require_torchrun()
    torch = import_torch()
    import torch.distributed as dist

    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    nvtx = Nvtx(torch)
    bucket_elems = (256 << 20) // 4 // BUCKETS if args.size == "full" else 1 << 16
    buckets = [torch.randn(bucket_elems, device=device) for _ in range(BUCKETS)]
    n = 4096 if args.size == "full" else 256
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)

    def compute(k=4):
        for _ in range(k):
            a @ a

    def allreduce_all():
        with nvtx.range("allreduce"):
            for b in buckets:
                dist.all_reduce(b)

    def baseline():
        with nvtx.range("step"):
            for _ in buckets:
                compute()
            allreduce_all()

    def optimized():
        with nvtx.range("step"):
            pending = []
            for b in buckets:
                compute()  # this bucket's gradients are ready after its share of the backward pass
                pending.append(dist.all_reduce(b, async_op=True))
            for work in pending:
                work.wait()

    allreduce_ms = median_ms(torch, device, allreduce_all)
    compute_ms = median_ms(torch, device, lambda: [compute() for _ in buckets])
    baseline_ms = median_ms(torch, device, baseline)
    optimized_ms = median_ms(torch, device, optimized)
    dist.barrier()
    with profiled(torch):
        for _ in range(5):
            (optimized if args.variant == "optimized" else baseline)()
    size = sum(b.numel() * 4 for b in buckets)
    algbw = size / (allreduce_ms / 1e3) / 1e9
    hidden = (baseline_ms - optimized_ms) / allreduce_ms if allreduce_ms else None
    if dist.get_rank() == 0:
        emit(variant=args.variant, world_size=world, allreduce_bytes=size, allreduce_ms=round(allreduce_ms, 3),
             allreduce_algbw_gb_s=round(algbw, 1), allreduce_busbw_gb_s=round(algbw * 2 * (world - 1) / world, 1),
             compute_ms=round(compute_ms, 3), baseline_step_ms=round(baseline_ms, 3),
             optimized_step_ms=round(optimized_ms, 3),
             hidden_fraction_of_comm=round(hidden, 3) if hidden is not None else None)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
