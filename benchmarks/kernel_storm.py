"""A PyTorch program that launches many small kernels inside nested NVTX ranges.

Run under nsys to get a real export of --steps x 15 kernels (150,000 by default) with 3 NVTX ranges
per step, for benchmarks/stats_speed.py:

    nsys profile -t cuda,nvtx -s none --cpuctxsw=none -o storm python benchmarks/kernel_storm.py
"""

import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=10_000)
args = parser.parse_args()

x = torch.ones(4096, device="cuda")
y = torch.ones(4096, device="cuda")
torch.cuda.synchronize()
for step in range(args.steps):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("forward")
    for _ in range(4):
        x.mul_(1.0001)
        x.add_(y)
        y.sub_(0.5)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    x.div_(1.0001)
    y.add_(0.5)
    x.neg_()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print(f"launched {args.steps * 15} kernels in {args.steps} steps")
