"""06-ex07: before/after comparison. The same training steps of an MLP (4 layers of 8192, batch 8192)
run twice under NVTX ranges: `baseline` in fp32 with TF32 off, then `optimized` under bf16 autocast.
The comparison report lines up the kernels of the two ranges: which disappeared, which are new, and
how the GPU time changed.
"""

from __future__ import annotations

import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, parser

STEPS = 5


def main() -> None:
    args = parser(__doc__, ["compare"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    nvtx = Nvtx(torch)
    width, batch = (8192, 8192) if args.size == "full" else (64, 32)
    torch.backends.cuda.matmul.allow_tf32 = False
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU())
                                  for _ in range(4)]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(batch, width, device=device)
    on_gpu = device.type == "cuda"
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)

    def step(low_precision: bool):
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=low_precision and on_gpu):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    times = {}
    for name, low in (("baseline", False), ("optimized", True)):
        step(low)
        sync()
        with nvtx.range(name):
            t0 = time.perf_counter()
            for _ in range(STEPS):
                step(low)
            sync()
            times[name] = (time.perf_counter() - t0) * 1000 / STEPS
    emit(variant=args.variant, baseline_step_ms=round(times["baseline"], 2), optimized_step_ms=round(times["optimized"], 2),
         speedup=round(times["baseline"] / times["optimized"], 2))


if __name__ == "__main__":
    main()
