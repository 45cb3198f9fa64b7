"""Arguments and timing every workload shares."""

from __future__ import annotations

import argparse
import statistics


def parser(description: str, variants: list[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--variant", choices=variants, default=variants[0])
    p.add_argument("--size", choices=["tiny", "full"], default="full",
                   help="tiny: a small problem, on the CPU where the exercise has a CPU path (for tests)")
    p.add_argument("--seconds", type=float, default=None, help="how long to keep the GPU busy, where it applies")
    return p


def import_torch():
    """PyTorch, or exit 2 with one line saying how to get it."""
    try:
        import torch
    except ImportError:
        import sys
        print("this workload needs PyTorch: pip install 'aiperf-lab[labs]' (or a torch build for your CUDA)",
              file=sys.stderr)
        raise SystemExit(2)
    return torch


def device_for(torch, size: str):
    """The GPU when there is one; the CPU only for a tiny run; otherwise exit 2 with one line."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if size == "tiny":
        return torch.device("cpu")
    from aiperf_lab.labs.result import need_gpu
    need_gpu(torch)


def median_ms(torch, device, fn, reps: int = 10, warmup: int = 2) -> float:
    """Median time of fn() in ms: CUDA events on a GPU, a monotonic clock on the CPU."""
    for _ in range(warmup):
        fn()
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize()
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    else:
        import time
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)
