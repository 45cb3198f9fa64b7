"""04-ex03: where did the joules go? A training step whose energy splits into forward, backward,
optimizer and the host's work between steps, each in its own NVTX range.

stall:   each step ends with the host preparing the next batch (a wait of 0.6 of the GPU's step time,
         as a blocking data loader or logger would) after reading the loss with .item(): the GPU sits
         idle, powered, for that long.
overlap: a background thread prepares the batches ahead while the GPU computes; the loss stays on
         the GPU until the end: the GPU keeps working.

Each phase ends with a synchronize so the NVTX ranges (CPU time) span exactly the phase's GPU work.
The profiled part (cudaProfilerStart/Stop) is one NVTX range "train" around all measured steps.
"""

from __future__ import annotations

import queue
import threading
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, parser, profiled

HOST_SHARE = 0.6  # the host's work per step, as a fraction of the GPU's step time (same on any GPU)


def main() -> None:
    args = parser(__doc__, ["stall", "overlap"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    on_gpu = device.type == "cuda"
    full = args.size == "full"
    # full: forward ~90 ms, backward ~180 ms on an H100 (bf16), so that 100 Hz telemetry resolves them
    width, layers, tokens = (8192, 6, 65536) if full else (64, 2, 32)
    steps = max(2, int(args.seconds / 0.5)) if args.seconds else (12 if full else 4)
    dtype = torch.bfloat16 if on_gpu else torch.float32
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width, bias=False) for _ in range(layers)]).to(device, dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    nvtx = Nvtx(torch)
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)

    # two batches in host memory (pinned on a GPU: copies run at full PCIe speed), made on the device: fast
    pool = [torch.randn(tokens, width, device=device, dtype=dtype).cpu() for _ in range(2)]
    if on_gpu:
        pool = [b.pin_memory() for b in pool]
    host_s = [0.0]   # set after the warm-up, from the measured step time
    made = [0]

    def make_batch():
        time.sleep(host_s[0])  # the host's share of each step: decoding, tokenizing, logging...
        made[0] += 1
        return pool[made[0] % 2]

    batches: queue.Queue = queue.Queue(maxsize=2)
    stop = threading.Event()

    def start_producer() -> None:
        def producer() -> None:
            while not stop.is_set():
                try:
                    batches.put(make_batch(), timeout=0.5)
                except queue.Full:
                    continue
        threading.Thread(target=producer, daemon=True).start()

    def next_batch():
        return batches.get() if args.variant == "overlap" else make_batch()

    def step(x_host, losses: list) -> None:
        with nvtx.range("forward"):
            x = x_host.to(device, non_blocking=True)
            loss = model(x).float().pow(2).mean()
            sync()
        with nvtx.range("backward"):
            loss.backward()
            sync()
        with nvtx.range("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            sync()
        losses.append(loss.detach())

    losses: list = []
    warm = []
    for _ in range(3):  # warm-up: cuBLAS handles, optimizer state, allocator; then the step time
        w0 = time.perf_counter()
        step(pool[0], losses)
        warm.append(time.perf_counter() - w0)
    sync()
    host_s[0] = HOST_SHARE * min(warm)
    if args.variant == "overlap":
        start_producer()
    print(f"host work {1000 * host_s[0]:.1f} ms per step (0.6 of the {1000 * min(warm):.1f} ms GPU step)", flush=True)
    print(f"{args.variant}: {steps} steps of a {layers}x{width} MLP on {tokens} tokens on {device}", flush=True)
    x_host = next_batch()
    host_wait_s = 0.0
    with profiled(torch):
        t0 = time.perf_counter()
        with nvtx.range("train"):
            for _ in range(steps):
                step(x_host, losses)
                with nvtx.range("host_work"):
                    w0 = time.perf_counter()
                    if args.variant == "stall":
                        losses[-1].item()        # reading the loss now waits for the GPU
                    x_host = next_batch()
                    host_wait_s += time.perf_counter() - w0
        sync()
        elapsed = time.perf_counter() - t0
    stop.set()
    final_loss = float(losses[-1].item())
    flops = 3 * 2 * tokens * width * width * layers * steps  # forward + backward (2x) matmul FLOPs
    emit(variant=args.variant, steps=steps, step_ms=round(1000 * elapsed / steps, 3),
         host_wait_ms=round(1000 * host_wait_s / steps, 3), host_work_ms=round(1000 * host_s[0], 3), tokens=tokens * steps, loss=round(final_loss, 6),
         tflops=round(flops / elapsed / 1e12, 2), work=tokens * steps, work_unit="tokens")


if __name__ == "__main__":
    main()
