"""02-ex03: roofline practice. One kernel family swept across arithmetic intensity: each thread
loads one float, runs K fused multiply-adds on it in four independent chains, and stores one float,
so it does 2K FLOPs per 8 bytes moved (intensity K/4 FLOP/byte). K runs from 1 to 512, across the
ridge point where a kernel stops waiting on memory and starts waiting on the FP32 units.

Reports each kernel's GFLOP/s and GB/s, PyTorch's device copy bandwidth (the memory roof measured
here), and where the measured curve bends (the ridge, from the measured roofs).
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, median_ms, parser, profiled
from aiperf_lab.labs.workloads.nvrtc import Kernels, gpu_or_exit

K_VALUES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
TEMPLATE = r"""
extern "C" __global__ void roofline_k{K}(const float* __restrict__ in, float* __restrict__ out, long long n) {{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{
        float v = in[i];
        float a = v, b = v + 1.0f, c = v + 2.0f, d = v + 3.0f;
        #pragma unroll
        for (int k = 0; k < ({K} + 3) / 4; ++k) {{
            a = fmaf(a, 0.9999f, 0.0001f); b = fmaf(b, 0.9999f, 0.0001f);
            c = fmaf(c, 0.9999f, 0.0001f); d = fmaf(d, 0.9999f, 0.0001f);
        }}
        out[i] = a + b + c + d;
    }}
}}
"""


def flops_per_element(k: int) -> int:
    return 2 * 4 * ((k + 3) // 4) + 3  # the chains' FMAs, then three adds


def main() -> None:
    args = parser(__doc__, ["sweep"]).parse_args()
    torch = import_torch()
    gpu_or_exit(torch)
    names = [f"roofline_k{k}" for k in K_VALUES]
    kernels = Kernels(torch, "".join(TEMPLATE.format(K=k) for k in K_VALUES), names)
    n = (64 << 20) if args.size == "full" else (1 << 20)
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    grid, block = ((n + 255) // 256,), (256,)  # one thread per element: enough loads in flight
    for name in names:  # one launch each first: what ncu profiles (launch-count 10)
        kernels.launch(name, grid, block, src, dst, n)
    device = torch.device("cuda")
    copy_ms = median_ms(torch, device, lambda: dst.copy_(src))
    memory_roof = 2 * n * 4 / (copy_ms / 1e3) / 1e9
    results = {}
    for k, name in zip(K_VALUES, names):
        ms = median_ms(torch, device, lambda name=name: kernels.launch(name, grid, block, src, dst, n), reps=5)
        flops = flops_per_element(k) * n
        results[k] = (flops / (ms / 1e3) / 1e9, 2 * n * 4 / (ms / 1e3) / 1e9, flops_per_element(k) / 8)
        print(f"K={k:>3}  intensity {results[k][2]:7.2f} FLOP/B  {results[k][0]:9.0f} GFLOP/s  {results[k][1]:7.0f} GB/s",
              flush=True)
    with profiled(torch):
        for name in names:
            kernels.launch(name, grid, block, src, dst, n)
    compute_roof = max(r[0] for r in results.values())
    measurements = {"memory_roof_gb_s": round(memory_roof, 1), "compute_roof_gflop_s": round(compute_roof, 1),
                    "ridge_flop_per_byte": round(compute_roof / memory_roof, 2)}
    for k, (gflops, gbs, intensity) in results.items():
        measurements[f"k{k}_gflop_s"] = round(gflops, 1)
        measurements[f"k{k}_gb_s"] = round(gbs, 1)
        measurements[f"k{k}_intensity"] = round(intensity, 3)
    emit(variant=args.variant, low_k_gb_s=measurements["k1_gb_s"], high_k_tflops=round(results[512][0] / 1e3, 2),
         dtype="fp32", **measurements)


if __name__ == "__main__":
    main()
