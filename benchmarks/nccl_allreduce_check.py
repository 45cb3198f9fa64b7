"""An independent all-reduce timing loop, to hold triage's NCCL sweep against: PyTorch's all_reduce
timed with CUDA events on each rank (not the wall clock the bench uses), 20 iterations after 5
warm-ups, max over ranks, for a few sizes.

    python benchmarks/nccl_allreduce_check.py [SIZE_BYTES ...]   # default 64 MiB, 256 MiB, 1 GiB

Prints one line per size: bytes, time (us), algbw and busbw (GB/s; busbw = algbw x 2(n-1)/n).
"""

from __future__ import annotations

import os
import sys
import tempfile


def _rank(rank: int, world: int, store: str, sizes: list[int]) -> None:
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", store=dist.FileStore(store, world), rank=rank, world_size=world)
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(20):
            dist.all_reduce(x)
        end.record()
        end.synchronize()
        t = torch.tensor([start.elapsed_time(end) / 20 / 1000], dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        if rank == 0:
            algbw = size / t.item() / 1e9
            print(f"all_reduce {size} B: {t.item() * 1e6:.1f} us, algbw {algbw:.2f} GB/s, "
                  f"busbw {algbw * 2 * (world - 1) / world:.2f} GB/s", flush=True)
        del x
    dist.destroy_process_group()


def main() -> int:
    import torch
    import torch.multiprocessing as mp

    sizes = [int(a) for a in sys.argv[1:]] or [64 << 20, 256 << 20, 1 << 30]
    world = torch.cuda.device_count()
    if world < 2:
        print(f"needs 2 or more GPUs; {world} visible", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        mp.spawn(_rank, args=(world, os.path.join(folder, "store"), sizes), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
