"""04-ex02: work per joule across matrix sizes and precisions, each configuration measured on its own.

For each (precision, size) the workload runs matmuls for a fixed time inside an NVML energy span
(the driver's energy counter read at both ends) and reports TFLOP/s, joules and GFLOP per joule.
The energy is that of the GPU this process runs on, matched to NVML by its UUID (CUDA's device 0 is
NVML's device 0 only when CUDA_VISIBLE_DEVICES and the device order say so).
"""

from __future__ import annotations

import time

from aiperf_lab.labs.result import emit, where_it_ran
from aiperf_lab.labs.workloads.common import device_for, import_torch, parser
from aiperf_lab.metrics.telemetry.meter import EnergySpan

FULL_SIZES = [1024, 2048, 4096, 8192]
TINY_SIZES = [64, 128]


def _own_gpu(sampler) -> int | None:
    """The position in sampler.devices of the GPU this process uses, or None (no energy then)."""
    import os

    from aiperf_lab.labs.gpus import used_devices

    mapping = used_devices(where_it_ran(), sampler.devices, os.environ.get("CUDA_VISIBLE_DEVICES"),
                           os.environ.get("CUDA_DEVICE_ORDER"))
    for note in mapping.notes:
        print(f"note: {note}", flush=True)
    if not mapping.used:
        return None
    return next(i for i, d in enumerate(sampler.devices) if d.index == mapping.used[0].index)


def main() -> None:
    args = parser(__doc__, ["sweep"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    on_gpu = device.type == "cuda"
    sizes = FULL_SIZES if args.size == "full" else TINY_SIZES
    per_config = args.seconds or (3.0 if args.size == "full" else 0.2)
    torch.backends.cuda.matmul.allow_tf32 = False
    sampler = None
    if on_gpu:
        from aiperf_lab.metrics.telemetry.sampler import Sampler
        sampler = Sampler(10, window_s=600).start()
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)
    results: dict[str, float] = {}
    meter_index = None   # the sampler's entry for this process's GPU
    try:
        for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
            for n in sizes:
                a = torch.randn(n, n, device=device, dtype=dtype)
                b = torch.randn(n, n, device=device, dtype=dtype)
                if sampler and meter_index is None:
                    meter_index = _own_gpu(sampler)
                for _ in range(3):
                    a @ b
                sync()
                count, start = 0, time.perf_counter()
                span = EnergySpan(sampler) if sampler else None
                if span:
                    span.begin()
                while time.perf_counter() - start < per_config:
                    for _ in range(10):
                        a @ b
                    sync()
                    count += 10
                elapsed = time.perf_counter() - start
                if span:
                    span.end()
                flops = 2 * n ** 3 * count
                key = f"{name}_{n}"
                results[f"{key}_tflops"] = round(flops / elapsed / 1e12, 3)
                if span and meter_index is not None:
                    gpu = span.result(work=flops, work_unit="FLOP").per_gpu[meter_index]
                    results[f"{key}_joules"] = round(gpu.joules, 2)
                    results[f"{key}_avg_power_w"] = round(gpu.avg_power_w, 1)
                    results[f"{key}_gflop_per_j"] = round(gpu.work_per_joule / 1e9, 2)
                print(f"{name} {n:>5}: {results[f'{key}_tflops']:8.2f} TFLOP/s"
                      + (f", {results[f'{key}_avg_power_w']:6.1f} W, {results[f'{key}_gflop_per_j']:8.2f} GFLOP/J"
                         if f"{key}_gflop_per_j" in results else ""), flush=True)
    finally:
        if sampler:
            sampler.close()
    large, small = sizes[-1], sizes[0]
    summary = {}
    if f"bf16_{large}_gflop_per_j" in results:
        summary = {
            "bf16_over_fp32_speed": round(results[f"bf16_{large}_tflops"] / results[f"fp32_{large}_tflops"], 2),
            "bf16_over_fp32_efficiency": round(results[f"bf16_{large}_gflop_per_j"] / results[f"fp32_{large}_gflop_per_j"], 2),
            "bf16_large_over_small_efficiency": round(results[f"bf16_{large}_gflop_per_j"]
                                                      / results[f"bf16_{small}_gflop_per_j"], 2),
            "bf16_kj_per_exaflop": round(1e18 / (results[f"bf16_{large}_gflop_per_j"] * 1e9) / 1e3, 1),
            "fp32_kj_per_exaflop": round(1e18 / (results[f"fp32_{large}_gflop_per_j"] * 1e9) / 1e3, 1),
        }
    emit(sizes=",".join(map(str, sizes)), **results, **summary)


if __name__ == "__main__":
    main()
