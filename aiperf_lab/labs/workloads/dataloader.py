"""06-ex02: DataLoader and I/O bottlenecks. Each sample costs the CPU a few milliseconds to produce
(decoding and augmenting a 3 x 224 x 224 image, stood in for by tensor arithmetic); the GPU step on a
batch of 32 is two 192-channel convolutions. Every process computes on one CPU thread (as DataLoader
workers do), so the comparison is between one process and several.

`baseline`: DataLoader(num_workers=0), so the main process builds every batch while the GPU waits,
and copies from pageable memory. `optimized`: worker processes (up to 8, at most the CPUs there are)
build batches ahead, pinned, copied with non_blocking=True. Reports the throughput of both and the
share of each step spent waiting for data.
"""

from __future__ import annotations

import os
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, parser, profiled

BATCH, STEPS = 32, 40


def make_dataset(torch, side: int):
    class Images(torch.utils.data.Dataset):
        def __len__(self):
            return 1 << 20

        def __getitem__(self, index):
            generator = torch.Generator().manual_seed(index)
            image = torch.rand(3, side, side, generator=generator)
            for _ in range(6):  # "augmentation": a few full passes over the image
                image = torch.sqrt(image * 0.9 + 0.1)
            return image, index % 10

    return Images()


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    torch = import_torch()
    torch.set_num_threads(1)
    device = device_for(torch, args.size)
    nvtx = Nvtx(torch)
    full = args.size == "full"
    side = 224 if full else 16
    on_gpu = device.type == "cuda"
    channels = 192 if full else 8
    model = torch.nn.Sequential(torch.nn.Conv2d(3, channels, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(channels, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    dataset = make_dataset(torch, side)
    workers = max(1, min(8, (os.cpu_count() or 2) - 1))
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)

    def loader(optimized: bool):
        if optimized:
            return torch.utils.data.DataLoader(dataset, batch_size=BATCH, num_workers=workers, pin_memory=on_gpu,
                                               prefetch_factor=4)
        return torch.utils.data.DataLoader(dataset, batch_size=BATCH, num_workers=0)

    def run(optimized: bool, steps: int) -> tuple[float, float]:
        """(ms per step, share of the time spent waiting for a batch)"""
        batches = iter(loader(optimized))
        for _ in range(workers if optimized else 1):  # workers started and each past its first batch
            next(batches)
        sync()
        waited = 0.0
        t0 = time.perf_counter()
        for _ in range(steps):
            with nvtx.range("step"):
                w0 = time.perf_counter()
                with nvtx.range("wait_for_batch"):
                    images, labels = next(batches)
                waited += time.perf_counter() - w0
                images = images.to(device, non_blocking=optimized)
                labels = labels.to(device, non_blocking=optimized)
                loss = torch.nn.functional.cross_entropy(model(images), labels)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
        sync()
        total = time.perf_counter() - t0
        return total * 1000 / steps, waited / total

    steps = STEPS if full else 3
    run(False, 2)
    baseline_ms, baseline_wait = run(False, steps)
    optimized_ms, optimized_wait = run(True, steps)
    with profiled(torch):
        run(args.variant == "optimized", steps)
    emit(variant=args.variant, workers=workers, batch=BATCH, baseline_step_ms=round(baseline_ms, 2),
         optimized_step_ms=round(optimized_ms, 2), speedup=round(baseline_ms / optimized_ms, 2),
         baseline_data_wait_share=round(baseline_wait, 3), optimized_data_wait_share=round(optimized_wait, 3),
         samples_per_s_baseline=round(BATCH / (baseline_ms / 1e3), 1),
         samples_per_s_optimized=round(BATCH / (optimized_ms / 1e3), 1))


if __name__ == "__main__":
    main()
