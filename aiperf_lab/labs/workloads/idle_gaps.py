"""01-ex01: GPU idle time on the timeline. Each step needs CPU work (preparing the next batch) and GPU
work (a stack of matrix multiplies) of similar length.

`baseline` prepares the batch, launches the step and waits for its loss (`loss.item()`): the GPU idles
while the CPU prepares. `optimized` launches the step first and prepares the next batch while the GPU
computes, keeping the loss on the GPU: CPU and GPU work overlap. Both are timed in every run; the
variant picks what runs inside the profiler's capture range.
"""

from __future__ import annotations

import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, median_ms, parser, per_step_ms, profiled

STEPS = 30


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    nvtx = Nvtx(torch)
    n, layers = (4096, 6) if args.size == "full" else (64, 2)
    weights = [torch.randn(n, n, device=device) / n ** 0.5 for _ in range(layers)]
    torch.backends.cuda.matmul.allow_tf32 = False

    def gpu_step(x):
        for w in weights:
            x = torch.tanh(x @ w)
        return x.float().pow(2).mean()

    batch = torch.randn(n, n, device=device)
    gpu_ms = median_ms(torch, device, lambda: gpu_step(batch))
    prep_s = 0.75 * gpu_ms / 1000  # CPU work a little shorter than the GPU's, so overlap can hide all of it

    def prepare():
        """Stand-in for decoding and augmenting a batch on the CPU: busy for prep_s seconds."""
        t0 = time.perf_counter()
        acc = 0
        while time.perf_counter() - t0 < prep_s:
            acc += 1
        return acc

    def baseline(steps):
        total = 0.0
        for _ in range(steps):
            with nvtx.range("step"):
                prepare()
                total += gpu_step(batch).item()  # waits for the GPU every step
        return total

    def optimized(steps):
        total = torch.zeros((), device=device)
        for _ in range(steps):
            with nvtx.range("step"):
                loss = gpu_step(batch)  # queued: the GPU starts while the CPU goes on
                prepare()               # the next batch, prepared while the GPU computes
                total += loss
        return float(total)

    baseline(2)
    optimized(2)
    baseline_ms = per_step_ms(torch, device, baseline, STEPS)
    optimized_ms = per_step_ms(torch, device, optimized, STEPS)
    with profiled(torch):
        (optimized if args.variant == "optimized" else baseline)(STEPS)
    emit(variant=args.variant, gpu_step_ms=round(gpu_ms, 3), cpu_prep_ms=round(prep_s * 1000, 3),
         baseline_step_ms=round(baseline_ms, 3), optimized_step_ms=round(optimized_ms, 3),
         speedup=round(baseline_ms / optimized_ms, 3),
         baseline_gpu_busy_est_pct=round(100 * gpu_ms / baseline_ms, 1),
         optimized_gpu_busy_est_pct=round(min(100.0, 100 * gpu_ms / optimized_ms), 1))


if __name__ == "__main__":
    main()
