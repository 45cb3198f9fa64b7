"""02-ex04: profile, optimize, re-profile: three versions of one kernel, a transpose of an 8192 x 8192
float matrix.

- v1 `transpose_naive`: reads rows (coalesced) and writes columns, so every warp's stores scatter
  over 32 rows.
- v2 `transpose_tiled`: stages a 32 x 32 tile in shared memory so reads and writes are both
  coalesced; reading the tile by column makes all 32 threads of a warp hit the same shared-memory
  bank (32-way bank conflicts).
- v3 `transpose_padded`: the same tile with one float of padding per row (33 columns), which spreads
  a column over all 32 banks.
Each version is timed, checked against PyTorch's transpose, and compared with PyTorch's copy.
Indices are 32-bit (the matrix has fewer than 2^31 elements): 64-bit index arithmetic costs
instructions a bandwidth-bound kernel notices.
"""

from __future__ import annotations

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import import_torch, median_ms, parser, profiled
from aiperf_lab.labs.workloads.nvrtc import Kernels, gpu_or_exit

SOURCE = r"""
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, long long size) {
    int n = (int)size, x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[x * n + (y + j)] = in[(y + j) * n + x];
}
extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, long long size) {
    __shared__ float tile[TILE][TILE];
    int n = (int)size, x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, long long size) {
    __shared__ float tile[TILE][TILE + 1];
    int n = (int)size, x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""
NAMES = ["transpose_naive", "transpose_tiled", "transpose_padded"]
VARIANTS = {"v1": "transpose_naive", "v2": "transpose_tiled", "v3": "transpose_padded"}


def main() -> None:
    args = parser(__doc__, list(VARIANTS)).parse_args()
    torch = import_torch()
    gpu_or_exit(torch)
    kernels = Kernels(torch, SOURCE, NAMES)
    n = 8192 if args.size == "full" else 256
    src = torch.rand(n, n, device="cuda")
    dst = torch.empty_like(src)
    grid, block = (n // 32, n // 32), (32, 8)
    expected = src.t().contiguous()
    correct = {}
    for name in NAMES:  # one launch each first (what ncu profiles), checked against PyTorch
        dst.zero_()
        kernels.launch(name, grid, block, src, dst, n)
        correct[name] = bool(torch.equal(dst, expected))
    device = torch.device("cuda")
    moved = 2 * n * n * 4 / 1e9
    copy_ms = median_ms(torch, device, lambda: dst.copy_(src), inner=10)
    gb_s = {name: moved / (median_ms(torch, device, lambda name=name: kernels.launch(name, grid, block, src, dst, n),
                                     inner=10) / 1e3) for name in NAMES}
    with profiled(torch):
        for _ in range(5):
            kernels.launch(VARIANTS[args.variant], grid, block, src, dst, n)
    emit(variant=args.variant, all_correct=int(all(correct.values())), copy_gb_s=round(moved / (copy_ms / 1e3), 1),
         v1_gb_s=round(gb_s["transpose_naive"], 1), v2_gb_s=round(gb_s["transpose_tiled"], 1),
         v3_gb_s=round(gb_s["transpose_padded"], 1),
         v2_over_v1=round(gb_s["transpose_tiled"] / gb_s["transpose_naive"], 2),
         v3_over_v2=round(gb_s["transpose_padded"] / gb_s["transpose_tiled"], 2))


if __name__ == "__main__":
    main()
