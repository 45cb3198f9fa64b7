"""Data-parallel training, one process per GPU (torchrun): the workload of 03-ex03 (profiling DDP),
05-ex03 (isolating communication) and the worker behind 05-ex02 (strong scaling).

The model: 8 blocks of Linear(4096, 16384) / GELU / Linear(16384, 4096), bf16 autocast, 1.07 B
parameters' worth of fp32 gradients (4.3 GB) all-reduced by DDP each step. Measured on every rank,
reported by rank 0:
- ddp_step_ms: a normal DDP step (all-reduce overlapped with backward, in buckets);
- nosync_step_ms: the same step under `no_sync()` (no communication): the compute alone;
- allreduce_ms: one all-reduce of all gradients alone;
from which: exposed communication (ddp - nosync), its share of the step, and how much of the
all-reduce the overlap hid.

Variants: `buckets25` (DDP's default 25 MB buckets), `buckets1` (1 MB buckets: many small
all-reduces), `profile` (as buckets25, with the PyTorch profiler on rank 0 when --torch-trace is
given), `worker` (a fixed global batch split over the world: what 05-ex02 runs at each size).
"""

from __future__ import annotations

import os
import statistics
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, parser, require_torchrun

GLOBAL_BATCH = 4096


def main() -> None:
    p = parser(__doc__, ["buckets25", "buckets1", "profile", "worker"])
    p.add_argument("--steps", type=int, default=8)
    args = p.parse_args()
    world = require_torchrun(min_world=1 if args.variant == "worker" else 2)
    torch = import_torch()
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    rank = dist.get_rank()
    full = args.size == "full"
    d, hidden, blocks = (4096, 16384, 8) if full else (64, 256, 2)
    nn = torch.nn
    model = nn.Sequential(*[nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d))
                            for _ in range(blocks)]).to(device)
    bucket_mb = 1 if args.variant == "buckets1" else 25
    ddp = DDP(model, device_ids=[local], bucket_cap_mb=bucket_mb)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    batch = GLOBAL_BATCH // world if args.variant == "worker" else 2048
    if not full:
        batch = 16
    x = torch.randn(batch, d, device=device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = ddp(x).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)

    def nosync_step():
        with ddp.no_sync():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = ddp(x).float().pow(2).mean()
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)

    def timed(fn, k):
        times = []
        for _ in range(k):
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    for _ in range(2):
        step()
        nosync_step()
    ddp_ms = timed(step, args.steps)
    nosync_ms = timed(nosync_step, args.steps)
    grads = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    allreduce_ms = timed(lambda: dist.all_reduce(grads), 5)
    params = sum(p.numel() for p in model.parameters())
    flops = 6 * params * batch  # forward 2, backward 4 FLOPs per parameter and sample
    if args.torch_trace and rank == 0:
        from torch.profiler import ProfilerActivity, profile, schedule
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=1, warmup=1, active=3),
                     on_trace_ready=lambda prof: prof.export_chrome_trace(args.torch_trace)) as prof:
            for _ in range(5):
                step()
                prof.step()
    elif args.torch_trace:
        for _ in range(5):
            step()
    torch.cuda.synchronize()
    exposed = max(0.0, ddp_ms - nosync_ms)
    if rank == 0:
        gb = grads.numel() * 4 / 1e9
        emit(variant=args.variant, world_size=world, batch_per_gpu=batch, params=params, bucket_mb=bucket_mb,
             ddp_step_ms=round(ddp_ms, 3), nosync_step_ms=round(nosync_ms, 3), allreduce_ms=round(allreduce_ms, 3),
             grad_gb=round(gb, 3), allreduce_busbw_gb_s=round(gb / (allreduce_ms / 1e3) * 2 * (world - 1) / world, 1)
             if world > 1 else None,
             exposed_comm_ms=round(exposed, 3), comm_share_of_step=round(exposed / ddp_ms, 3),
             hidden_fraction_of_allreduce=round(1 - exposed / allreduce_ms, 3) if world > 1 and allreduce_ms else None,
             tflops_per_gpu=round(flops / (ddp_ms / 1e3) / 1e12, 1), samples_per_s=round(batch * world / (ddp_ms / 1e3), 1))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
