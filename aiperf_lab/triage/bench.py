"""--bench: short measurements next to the device's nominal figures (PyTorch and a GPU needed).

Runs in a child process (PyTorch loads and initialises CUDA there, not in triage itself). Each
figure is the median of timed repetitions after warm-up, timed with CUDA events.
"""

from __future__ import annotations

import json
import sys

from aiperf_lab.metrics.nominal import nominal_for
from aiperf_lab.triage.commands import run_command

BENCH_SCRIPT = r"""
import json, statistics, sys, torch
if not torch.cuda.is_available():
    print(json.dumps({"skipped": "PyTorch sees no CUDA device"})); sys.exit(0)
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")

def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b) / 1000.0)
    return statistics.median(times)

out = {"device": torch.cuda.get_device_name(0)}
n = 1 << 30
src = torch.empty(n, dtype=torch.uint8, device=dev).random_(0, 255)
dst = torch.empty_like(src)
t = timed(lambda: dst.copy_(src), 20)
out["device_copy_tb_s"] = round(2 * n / t / 1e12, 3)           # bytes read + written
for dtype, key, size in ((torch.bfloat16, "bf16_matmul_tflops", 8192), (torch.float32, "fp32_matmul_tflops", 8192)):
    x = torch.randn(size, size, device=dev, dtype=dtype)
    y = torch.randn(size, size, device=dev, dtype=dtype)
    t = timed(lambda: x @ y, 10)
    out[key] = round(2 * size ** 3 / t / 1e12, 1)
host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
out["h2d_pinned_gb_s"] = round(n / timed(lambda: src.copy_(host, non_blocking=True), 10) / 1e9, 2)
out["d2h_pinned_gb_s"] = round(n / timed(lambda: host.copy_(src, non_blocking=True), 10) / 1e9, 2)
print(json.dumps(out))
"""


def run_bench(timeout_s: float = 180.0) -> dict:
    result = run_command([sys.executable, "-c", BENCH_SCRIPT], timeout_s=timeout_s)
    if not result.ok:
        return {"error": result.describe()}
    try:
        measured = json.loads(result.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"error": "the benchmark printed no result"}
    if "skipped" in measured:
        return measured
    nominal = nominal_for(measured.get("device"))
    measured["nominal"] = nominal
    if nominal and nominal["bf16_matmul_tflops"]:
        measured["bf16_fraction_of_nominal"] = round(measured["bf16_matmul_tflops"] / nominal["bf16_matmul_tflops"], 3)
    if nominal:
        measured["copy_fraction_of_nominal"] = round(measured["device_copy_tb_s"] / nominal["memory_tb_s"], 3)
    return measured


def pcie_fractions(gpus: list[dict], bench: dict) -> dict:
    """The PCIe link's nominal per-direction bandwidth for GPU 0, and what the bench reached of it."""
    from aiperf_lab.metrics.nominal import pcie_nominal_gb_s

    if not gpus or "h2d_pinned_gb_s" not in bench:
        return {}
    gpu = gpus[0]
    nominal = pcie_nominal_gb_s(gpu.get("pcie_gen_max"), gpu.get("pcie_width_max"))
    if not nominal:
        return {}
    return {"pcie_nominal_gb_s": nominal,
            "h2d_fraction_of_pcie": round(bench["h2d_pinned_gb_s"] / nominal, 3),
            "d2h_fraction_of_pcie": round(bench["d2h_pinned_gb_s"] / nominal, 3)}
