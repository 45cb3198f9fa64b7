"""02-ex03: roofline practice. One kernel family swept across arithmetic intensity: every float
is loaded, put through K fused multiply-adds and stored, so each does 2K FLOPs per 8 bytes moved
(intensity K/4 FLOP/byte, 0.25 to 512). Each thread handles four float4s with all four loads in flight (enough
bytes in flight to reach the memory roof) and so sixteen independent FMA chains (enough to keep the
FP32 units busy). K runs from 1 to 2048, across the
ridge point where a kernel stops waiting on memory and starts waiting on the FP32 units.

Beside the FP32 roof, the bf16 tensor-core roof: a large bf16 matrix multiply (cuBLAS) measured in
the same run. Its ridge (that rate over the same memory roof) lies an order of magnitude further
right on data-centre parts: at that intensity even a GEMM can be memory-bound.

Reports each kernel's GFLOP/s and GB/s, PyTorch's device copy bandwidth (the memory roof measured
here), cuBLAS's FP32 GEMM rate (TF32 off: the FP32 ceiling the high-intensity kernels are compared
with), and where the measured curve bends (the ridge, from the measured roofs).
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, median_ms, parser, profiled
from aiperf_lab.labs.workloads.nvrtc import Kernels, gpu_or_exit

K_VALUES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
INNER = 20  # launches per timed interval: short kernels would otherwise time Python's launch cost
TEMPLATE = r"""
extern "C" __global__ void roofline_k{K}(const float4* __restrict__ in, float4* __restrict__ out, long long n4) {{
    long long base = blockIdx.x * (long long)blockDim.x * 4 + threadIdx.x;
    float4 v[4];
    #pragma unroll
    for (int u = 0; u < 4; ++u) {{ long long i = base + u * (long long)blockDim.x; if (i < n4) v[u] = in[i]; }}
    #pragma unroll
    for (int k = 0; k < {K}; ++k) {{
        #pragma unroll
        for (int u = 0; u < 4; ++u) {{
            v[u].x = fmaf(v[u].x, 0.9999f, 0.0001f); v[u].y = fmaf(v[u].y, 0.9999f, 0.0001f);
            v[u].z = fmaf(v[u].z, 0.9999f, 0.0001f); v[u].w = fmaf(v[u].w, 0.9999f, 0.0001f);
        }}
    }}
    #pragma unroll
    for (int u = 0; u < 4; ++u) {{ long long i = base + u * (long long)blockDim.x; if (i < n4) out[i] = v[u]; }}
}}
"""


def bf16_gemm_tflops(torch, device, n: int) -> float:
    """The tensor-core roof measured here: a bf16 n x n x n matrix multiply (fp32 accumulate)."""
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    ms = median_ms(torch, device, lambda: a @ b, reps=10, warmup=3)
    return 2 * n ** 3 / (ms / 1e3) / 1e12


def fp32_gemm_tflops(torch, device, n: int) -> float:
    """The FP32 (non-tensor) rate cuBLAS's SGEMM reaches here, TF32 off: a ceiling for FP32 FMA work
    measured on this GPU, which the K=512 kernel is compared with (not the datasheet)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(n, n, device="cuda", dtype=torch.float32)
    b = torch.randn(n, n, device="cuda", dtype=torch.float32)
    ms = median_ms(torch, device, lambda: a @ b, reps=5, warmup=2)
    return 2 * n ** 3 / (ms / 1e3) / 1e12


def flops_per_element(k: int) -> int:
    return 2 * k  # K fused multiply-adds on every float


def main() -> None:
    args = parser(__doc__, ["sweep"]).parse_args()
    torch = import_torch()
    gpu_or_exit(torch)
    names = [f"roofline_k{k}" for k in K_VALUES]
    kernels = Kernels(torch, "".join(TEMPLATE.format(K=k) for k in K_VALUES), names)
    n = (64 << 20) if args.size == "full" else (1 << 20)
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    n4 = n // 4
    grid, block = ((n4 + 1023) // 1024,), (256,)  # four float4 per thread
    for name in names:  # one launch each first: what ncu profiles (launch-count 10)
        kernels.launch(name, grid, block, src, dst, n4)
    device = torch.device("cuda")
    copy_ms = median_ms(torch, device, lambda: dst.copy_(src), inner=INNER)
    memory_roof = 2 * n * 4 / (copy_ms / 1e3) / 1e9
    results = {}
    for k, name in zip(K_VALUES, names):
        ms = median_ms(torch, device, lambda name=name: kernels.launch(name, grid, block, src, dst, n4), reps=5,
                        inner=INNER)
        flops = flops_per_element(k) * n
        results[k] = (flops / (ms / 1e3) / 1e9, 2 * n * 4 / (ms / 1e3) / 1e9, flops_per_element(k) / 8)
        print(f"K={k:>3}  intensity {results[k][2]:7.2f} FLOP/B  {results[k][0]:9.0f} GFLOP/s  {results[k][1]:7.0f} GB/s",
              flush=True)
    with profiled(torch):
        for name in names:
            kernels.launch(name, grid, block, src, dst, n4)
    compute_roof = max(r[0] for r in results.values())
    ridge = compute_roof / memory_roof
    # the bend, read from the sweep: the kernel at a quarter of the ridge should stream near the memory
    # roof, the one at four times the ridge compute near the compute roof
    left = max((k for k in K_VALUES if results[k][2] <= ridge / 4), default=K_VALUES[0])
    right = min((k for k in K_VALUES if results[k][2] >= ridge * 4), default=K_VALUES[-1])
    tensor_tflops = bf16_gemm_tflops(torch, device, 8192 if args.size == "full" else 512)
    sgemm_tflops = fp32_gemm_tflops(torch, device, 8192 if args.size == "full" else 512)
    measurements = {"memory_roof_gb_s": round(memory_roof, 1), "compute_roof_gflop_s": round(compute_roof, 1),
                    "ridge_flop_per_byte": round(ridge, 2), "left_of_ridge_k": left, "right_of_ridge_k": right,
                    "left_of_ridge_gb_s_over_roof": round(results[left][1] / memory_roof, 3),
                    "right_of_ridge_gflop_s_over_roof": round(results[right][0] / compute_roof, 3),
                    "bf16_gemm_tflops": round(tensor_tflops, 1), "fp32_gemm_tflops": round(sgemm_tflops, 2),
                    "tensor_ridge_flop_per_byte": round(tensor_tflops * 1e3 / memory_roof, 1)}
    print(f"ridge: FP32 {ridge:.1f} FLOP/B; bf16 tensor cores {measurements['tensor_ridge_flop_per_byte']} FLOP/B "
          f"({measurements['bf16_gemm_tflops']} TFLOP/s over {memory_roof:.0f} GB/s)", flush=True)
    for k, (gflops, gbs, intensity) in results.items():
        measurements[f"k{k}_gflop_s"] = round(gflops, 1)
        measurements[f"k{k}_gb_s"] = round(gbs, 1)
        measurements[f"k{k}_intensity"] = round(intensity, 3)
    emit(variant=args.variant, low_k_gb_s=measurements["k1_gb_s"], high_k_tflops=round(results[512][0] / 1e3, 2),
         dtype="fp32", **measurements)


if __name__ == "__main__":
    main()
