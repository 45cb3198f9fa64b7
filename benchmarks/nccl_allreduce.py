"""A small two-rank NCCL workload for the multi-rank reports (nccl_sum, rank_spread), one process a GPU.

Each step: a matmul (rank 1 does a second one: a deliberate straggler), an all-reduce of 16 MiB, and
every fourth step an all-gather of 4 MiB per rank, each inside an NVTX range. Run under torchrun with
one nsys per rank (benchmarks/verify_issue17.sh does):

    NCCL_NVLS_ENABLE=0 torchrun --nproc_per_node 2 --no-python nsys profile -t cuda,nvtx -s none \
        --cpuctxsw=none -o rank%q{RANK} python3 benchmarks/nccl_allreduce.py --steps 20
"""

import argparse
import os

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

assert os.environ.get("NCCL_NVLS_ENABLE") == "0", "NCCL_NVLS_ENABLE=0 must stay set on this machine"
rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
a = torch.randn(2048, 2048, device="cuda")
grad = torch.ones(4 * 1024 * 1024, device="cuda")          # 16 MiB of float32
part = torch.ones(1024 * 1024, device="cuda")              # 4 MiB per rank
gathered = torch.empty(dist.get_world_size() * part.numel(), device="cuda")
for _ in range(3):                                          # warm-up outside the ranges
    dist.all_reduce(grad)
torch.cuda.synchronize()
for step in range(args.steps):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("compute")
    b = a @ a
    if rank == 1:
        b = b @ a                                           # the straggler
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("allreduce")
    dist.all_reduce(grad)
    torch.cuda.nvtx.range_pop()
    if step % 4 == 0:
        dist.all_gather_into_tensor(gathered, part)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
dist.destroy_process_group()
print(f"rank {rank}: {args.steps} steps done")
