"""02-ex02: compute metrics, occupancy and warp divergence, with kernels compiled at run time.

All kernels do the same arithmetic per thread (a dependent chain of fused multiply-adds):
`branch_uniform` branches on the warp index, so every warp takes one path; `branch_divergent`
branches on the thread index, so every warp runs both paths one after the other; and
`occupancy_limited` is branch_uniform's work with 48 KB of shared memory per 64-thread block, which
caps how many warps an SM can hold and so how well it hides the FMA latency.
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, median_ms, parser, profiled
from aiperf_lab.labs.workloads.nvrtc import Kernels, gpu_or_exit

SOURCE = r"""
__device__ __forceinline__ float path_a(float v, long long iters) {
    for (long long k = 0; k < iters; ++k) v = fmaf(v, 1.000001f, 0.5f);
    return v;
}
__device__ __forceinline__ float path_b(float v, long long iters) {
    for (long long k = 0; k < iters; ++k) v = fmaf(v, 0.999999f, -0.5f);
    return v;
}
extern "C" __global__ void branch_uniform(float* x, long long n, long long iters) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = ((threadIdx.x / 32) % 2) ? path_a(x[i], iters) : path_b(x[i], iters);
}
extern "C" __global__ void branch_divergent(float* x, long long n, long long iters) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = (threadIdx.x % 2) ? path_a(x[i], iters) : path_b(x[i], iters);
}
extern "C" __global__ void occupancy_limited(float* x, long long n, long long iters) {
    __shared__ float scratch[12288];  // 48 KB: only a few blocks fit on an SM at once
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    scratch[threadIdx.x] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    if (i >= n) return;
    float v = scratch[(threadIdx.x + 1) % blockDim.x];
    x[i] = ((threadIdx.x / 32) % 2) ? path_a(v, iters) : path_b(v, iters);
}
"""
NAMES = ["branch_uniform", "branch_divergent", "occupancy_limited"]


def main() -> None:
    args = parser(__doc__, ["divergent", "occupancy"]).parse_args()
    torch = import_torch()
    gpu_or_exit(torch)
    kernels = Kernels(torch, SOURCE, NAMES)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = sms * 2048 * 4 if args.size == "full" else sms * 256
    iters = 20000 if args.size == "full" else 50
    x = torch.rand(n, device="cuda")

    launches = {
        "branch_uniform": lambda: kernels.launch("branch_uniform", ((n + 255) // 256,), (256,), x, n, iters),
        "branch_divergent": lambda: kernels.launch("branch_divergent", ((n + 255) // 256,), (256,), x, n, iters),
        "occupancy_limited": lambda: kernels.launch("occupancy_limited", ((n + 63) // 64,), (64,), x, n, iters),
    }
    for name in NAMES:  # one launch each first: what ncu profiles
        launches[name]()
    device = torch.device("cuda")
    timing = {name: median_ms(torch, device, fn, reps=5) for name, fn in launches.items()}
    with profiled(torch):
        launches["occupancy_limited" if args.variant == "occupancy" else "branch_divergent"]()
    flops = 2 * n * iters
    emit(variant=args.variant, threads=n, fma_per_thread=iters,
         uniform_ms=round(timing["branch_uniform"], 3), divergent_ms=round(timing["branch_divergent"], 3),
         occupancy_limited_ms=round(timing["occupancy_limited"], 3),
         divergence_slowdown=round(timing["branch_divergent"] / timing["branch_uniform"], 2),
         occupancy_slowdown=round(timing["occupancy_limited"] / timing["branch_uniform"], 2),
         uniform_tflops=round(flops / (timing["branch_uniform"] / 1e3) / 1e12, 2))


if __name__ == "__main__":
    main()
