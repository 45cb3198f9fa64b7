"""Module 05: scaling.

`single` (05-ex01): the baseline every scaling number is measured against. The data-parallel
model of ddp_train (8 MLP blocks, 4096 -> 16384 -> 4096, bf16 autocast) trains on one GPU without
DDP: after a warm-up of at least 3 s (clocks and power settle), step time and its spread over 30
steps, samples/s, achieved TFLOP/s (6 FLOPs per parameter and sample), peak memory, and the bf16
rate of a bare 8192^3 matrix multiply measured right after (the ceiling the step is compared with).

`strong` (05-ex02): strong scaling. The same global batch (8192) runs through ddp_train's worker on
1, 2, 4 and 8 GPUs (as many as are visible), each size started by torchrun as its own job; reported:
step time per size, speedup and efficiency T1 / (N x TN).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from aiperf_lab.labs.result import PREFIX, emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, knob, parser

WARMUP_S, STEPS = 3.0, 30


def matmul_ceiling_tflops(torch, device, n: int) -> float:
    """What this GPU's bf16 GEMM reaches here and now (an n x n x n multiply, fp32 accumulate, timed
    after the training steps, so under the same settled clocks): the ceiling the step is graded against."""
    from aiperf_lab.labs.workloads.common import median_ms

    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    ms = median_ms(torch, device, lambda: a @ b, reps=10, warmup=3)
    return 2 * n ** 3 / (ms / 1e3) / 1e12


def single(args) -> None:
    torch = import_torch()
    device = device_for(torch, args.size)
    full = args.size == "full"
    d, hidden, blocks, batch = (4096, 16384, 8, 2048) if full else (64, 256, 2, 16)
    batch = knob(args, "batch", batch)
    nn = torch.nn
    model = nn.Sequential(*[nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d))
                            for _ in range(blocks)]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(batch, d, device=device)
    on_gpu = device.type == "cuda"
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)

    def step():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=on_gpu):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)

    # Warm-up by time, not by count: the first steps allocate and pick cuBLAS algorithms, and for a
    # few seconds after that clocks and power settle under the load (a power-capped GPU slows its
    # clock until it holds the cap); a baseline is the settled state.
    warm_until = time.perf_counter() + (WARMUP_S if full else 0.0)
    warm_steps = 0
    while warm_steps < 3 or time.perf_counter() < warm_until:
        step()
        sync()
        warm_steps += 1
    if on_gpu:
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(STEPS if full else 3):
        sync()
        t0 = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - t0) * 1000)
    params = sum(p.numel() for p in model.parameters())
    median = statistics.median(times)
    ceiling = matmul_ceiling_tflops(torch, device, 8192 if full else 256)
    q1, q3 = (statistics.quantiles(times, n=4)[i] for i in (0, 2)) if len(times) > 3 else (median, median)
    emit(variant="single", dtype="bf16", params=params, batch=batch, step_ms=round(median, 3),
         warmup_steps=warm_steps, timed_steps=len(times), step_iqr_over_median=round((q3 - q1) / median, 4),
         step_cv=round(statistics.stdev(times) / statistics.mean(times), 4) if len(times) > 1 else 0.0,
         samples_per_s=round(batch / (median / 1e3), 1), tflops=round(6 * params * batch / (median / 1e3) / 1e12, 1),
         matmul_tflops=round(ceiling, 1),
         peak_memory_gb=round(torch.cuda.max_memory_allocated() / 1e9, 2) if on_gpu else None,
         work=batch * len(times), work_unit="samples")


def strong(args) -> None:
    from aiperf_lab.labs.runner import visible_gpu_count  # the count the runner checked before starting us

    gpus = visible_gpu_count()
    if gpus < 2:
        print(f"strong scaling needs at least 2 GPUs; this machine shows {gpus}", file=sys.stderr)
        raise SystemExit(2)
    sizes = [n for n in (1, 2, 4, 8) if n <= gpus]
    results = {}
    for n in sizes:
        argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(n),
                "-m", "aiperf_lab.labs.workloads.ddp_train", "--variant", "worker", "--size", args.size]
        print(f"--- {n} GPU{'s' if n > 1 else ''}: {' '.join(argv[1:])}", flush=True)
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        line = next((l for l in reversed(done.stdout.splitlines()) if l.startswith(PREFIX)), None)
        if done.returncode != 0 or line is None:
            print(done.stdout[-2000:], flush=True)
            print(f"the {n}-GPU run failed (exit {done.returncode})", file=sys.stderr)
            raise SystemExit(1)
        results[n] = json.loads(line[len(PREFIX):])
        print(f"    step {results[n]['ddp_step_ms']} ms, {results[n]['samples_per_s']} samples/s", flush=True)
    t1 = results[1]["ddp_step_ms"]
    measurements = {"gpus": gpus, "sizes": ",".join(map(str, sizes)), "global_batch": results[1]["batch_per_gpu"]}
    for n, r in results.items():
        measurements[f"step_ms_{n}"] = r["ddp_step_ms"]
        measurements[f"speedup_{n}"] = round(t1 / r["ddp_step_ms"], 3)
        measurements[f"efficiency_{n}"] = round(t1 / (n * r["ddp_step_ms"]), 3)
        measurements[f"comm_share_{n}"] = r["comm_share_of_step"]
    largest = sizes[-1]
    measurements.update(largest_gpus=largest, efficiency_largest=measurements[f"efficiency_{largest}"],
                        speedup_largest=measurements[f"speedup_{largest}"])
    # this process only starts the torchrun jobs: where the work ran is what their ranks reported
    measurements.update(device=results[largest].get("device", "unknown"), gpu_ordinals=list(range(largest)))
    emit(variant="strong", **measurements)


def main() -> None:
    args = parser(__doc__, ["single", "strong"]).parse_args()
    (strong if args.variant == "strong" else single)(args)


if __name__ == "__main__":
    main()
