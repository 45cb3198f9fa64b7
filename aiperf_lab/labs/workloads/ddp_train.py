"""Data-parallel training, one process per GPU (torchrun): the workload of 03-ex03 (profiling DDP),
05-ex03 (isolating communication) and the worker behind 05-ex02 (strong scaling).

The model: 8 blocks of Linear(4096, 16384) / GELU / Linear(16384, 4096), bf16 autocast, 1.07 B
parameters' worth of fp32 gradients (4.3 GB) all-reduced by DDP each step. Measured on every rank,
reported by rank 0:
- ddp_step_ms: a normal DDP step (all-reduce overlapped with backward, in buckets);
- nosync_step_ms: the same step under `no_sync()` (no communication): the compute alone;
- allreduce_ms: one all-reduce of all gradients alone;
- after_backward_step_ms: the same step with the all-reduces issued only after backward ends (no
  overlap), as a framework without DDP's hooks would do;
from which: exposed communication with DDP (ddp - nosync) and without overlap (after_backward -
nosync), its share of the step, and the fraction of the communication cost DDP's overlap removed.

Variants: `measure` (4096 samples per GPU), `profile` (the same, with the PyTorch profiler on rank 0
when --torch-trace is given), `worker` (a global batch of 8192 split over the world: what 05-ex02
runs at each size). DDP runs with `gradient_as_bucket_view=True` (no copies into bucket buffers).
"""

from __future__ import annotations

import os
import statistics
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, parser, require_torchrun

GLOBAL_BATCH = 8192
BATCH_PER_GPU = 4096


def main() -> None:
    p = parser(__doc__, ["measure", "profile", "worker"])
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
    ddp = DDP(model, device_ids=[local], gradient_as_bucket_view=True)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    batch = GLOBAL_BATCH // world if args.variant == "worker" else BATCH_PER_GPU
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

    def after_backward_step():
        with ddp.no_sync():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = ddp(x).float().pow(2).mean()
            loss.backward()
        pending = [dist.all_reduce(p.grad, async_op=True) for p in model.parameters()]
        for work in pending:
            work.wait()
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
        after_backward_step()
    ddp_ms = timed(step, args.steps)
    nosync_ms = timed(nosync_step, args.steps)
    after_ms = timed(after_backward_step, args.steps) if world > 1 else ddp_ms
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
    exposed_after = max(0.0, after_ms - nosync_ms)
    if rank == 0:
        gb = grads.numel() * 4 / 1e9
        emit(variant=args.variant, world_size=world, batch_per_gpu=batch, params=params,
             ddp_step_ms=round(ddp_ms, 3), nosync_step_ms=round(nosync_ms, 3), after_backward_step_ms=round(after_ms, 3),
             allreduce_ms=round(allreduce_ms, 3), grad_gb=round(gb, 3),
             allreduce_busbw_gb_s=round(gb / (allreduce_ms / 1e3) * 2 * (world - 1) / world, 1) if world > 1 else None,
             exposed_comm_ms=round(exposed, 3), exposed_comm_after_backward_ms=round(exposed_after, 3),
             comm_share_of_step=round(exposed / ddp_ms, 3),
             overlap_removed_fraction=round(1 - exposed / exposed_after, 3) if world > 1 and exposed_after else None,
             tflops_per_gpu=round(flops / (ddp_ms / 1e3) / 1e12, 1), samples_per_s=round(batch * world / (ddp_ms / 1e3), 1))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
