"""On a machine with an NVIDIA GPU and PyTorch only (skipped elsewhere): the sampler reads real values."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from aiperf_lab.metrics.telemetry.sampler import Sampler

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

LOAD = ("import torch, time\n"
        "a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16); b = a.clone()\n"
        "end = time.time() + 6\n"
        "while time.time() < end:\n"
        "    [a @ b for _ in range(10)]; torch.cuda.synchronize()\n")


def test_power_rises_under_load_and_span_energy_matches_the_counter():
    with Sampler(10) as sampler:
        assert sampler.devices and sampler.status == ""
        time.sleep(2)
        with sampler.measure() as idle:
            time.sleep(2)
        with sampler.measure() as busy:
            subprocess.run([sys.executable, "-c", LOAD], check=True)
        idle_gpu, busy_gpu = idle.result().per_gpu[0], busy.result().per_gpu[0]
        assert busy_gpu.source == "counter"
        assert busy_gpu.avg_power_w > 2 * idle_gpu.avg_power_w  # a bf16 matmul loop: far above idle
        assert busy_gpu.peak_power_w > busy_gpu.avg_power_w * 0.8
        _v, ticks = sampler.ring.snapshot()
        assert any(s.util_gpu_pct and s.util_gpu_pct > 90 for t in ticks for s in t.gpus)
        # energy from the counter against the integral of instant power over the same span
        inside = [t for t in ticks if busy.t0 <= t.t <= busy.t1]
        integral = sum((b.t - a.t) * (a.gpus[0].power_w + b.gpus[0].power_w) / 2 for a, b in zip(inside, inside[1:]))
        covered = inside[-1].t - inside[0].t
        assert integral / covered == pytest.approx(busy_gpu.joules / busy_gpu.duration_s, rel=0.03)
