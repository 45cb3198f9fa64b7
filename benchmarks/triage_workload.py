"""A small PyTorch training loop with NVTX ranges, for a real triage bundle on the GPU machine."""

import argparse
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=15.0)
args = parser.parse_args()

model = torch.nn.Sequential(torch.nn.Linear(4096, 8192), torch.nn.GELU(), torch.nn.Linear(8192, 4096)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(2048, 4096, device="cuda")
end = time.time() + args.seconds
steps = 0
while time.time() < end:
    torch.cuda.nvtx.range_push("step")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.nvtx.range_pop()
    steps += 1
torch.cuda.synchronize()
print(f"{steps} steps, loss {loss.item():.4f}")
