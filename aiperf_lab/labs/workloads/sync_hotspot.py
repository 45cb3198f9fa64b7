"""06-ex01 and 06-ex08: a training loop that synchronizes with the GPU every step and copies its
batch from pageable memory, the two problems nsys's backtraces and expert rules are made to find.

Each step takes a 1024 x 4096 float batch (16 MB) through an input projection and 12 layers.
`baseline`: each step copies its batch from pageable host memory and logs `loss.item()`, which
waits for the GPU (a cudaMemcpyAsync device-to-host plus cudaStreamSynchronize under the hood).
`optimized`: the batch comes from pinned memory with non_blocking=True, and the loss is summed on the
GPU and read once every 50 steps. Both are timed in every run; the variant runs in the capture range.
"""

from __future__ import annotations


from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, parser, per_step_ms, profiled

STEPS = 100


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    nvtx = Nvtx(torch)
    full = args.size == "full"
    features, width, depth, batch = (4096, 1024, 12, 1024) if full else (64, 32, 2, 8)
    layers = [torch.nn.Linear(features, width), torch.nn.ReLU()]
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    on_gpu = device.type == "cuda"
    host_pageable = torch.randn(batch, features)  # 16 MB of input per step
    host_pinned = host_pageable.pin_memory() if on_gpu else host_pageable

    def train_step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def log_loss(loss) -> float:
        return loss.item()  # what the backtraces point at

    def baseline(steps):
        for _ in range(steps):
            with nvtx.range("step"):
                x = host_pageable.to(device)
                log_loss(train_step(x))

    def optimized(steps):
        total = torch.zeros((), device=device)
        for i in range(steps):
            with nvtx.range("step"):
                x = host_pinned.to(device, non_blocking=True)
                total += train_step(x)
                if (i + 1) % 50 == 0:
                    log_loss(total)

    baseline(5)
    optimized(5)
    baseline_ms = per_step_ms(torch, device, baseline, STEPS)
    optimized_ms = per_step_ms(torch, device, optimized, STEPS)
    with profiled(torch):
        (optimized if args.variant == "optimized" else baseline)(STEPS)
    emit(variant=args.variant, baseline_step_ms=round(baseline_ms, 4), optimized_step_ms=round(optimized_ms, 4),
         speedup=round(baseline_ms / optimized_ms, 3), steps=STEPS)


if __name__ == "__main__":
    main()
