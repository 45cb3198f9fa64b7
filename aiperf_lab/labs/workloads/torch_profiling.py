"""03-ex01: the PyTorch profiler. A GPT-style model (the one from module 07) trains for a few steps
under `torch.profiler.profile` with a wait/warmup/active schedule, labelled with `record_function`
("forward", "backward", "optimizer"), and exports a Kineto trace the readers turn into tables.

It also times the same steps without the profiler, so the profiler's own overhead is measured.
"""

from __future__ import annotations

import statistics
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, parser
from aiperf_lab.labs.workloads.transformer import build

WAIT, WARMUP, ACTIVE = 1, 2, 4


def main() -> None:
    args = parser(__doc__, ["train"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    full = args.size == "full"
    d, heads, layers, seq, batch, vocab = (768, 12, 4, 512, 8, 10000) if full else (64, 4, 1, 32, 2, 100)
    model, _push, _pop = build(torch, d, heads, layers, vocab)
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, vocab, (batch, seq), device=device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    def step():
        with record_function("forward"):
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab), tokens.view(-1))
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

    def timed_steps(k, after_each=lambda: None):
        times = []
        for _ in range(k):
            sync()
            t0 = time.perf_counter()
            step()
            sync()
            times.append((time.perf_counter() - t0) * 1000)
            after_each()
        return times

    timed_steps(3)
    plain = timed_steps(ACTIVE + 2)
    profiled_ms: list[float] = []
    if args.torch_trace:
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
        with profile(activities=activities, schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
                     record_shapes=True, on_trace_ready=lambda p: p.export_chrome_trace(args.torch_trace)) as prof:
            times = timed_steps(WAIT + WARMUP + ACTIVE, prof.step)
        profiled_ms = times[WAIT + WARMUP:]
        table = prof.key_averages().table(sort_by="cuda_time_total" if device.type == "cuda" else "cpu_time_total",
                                          row_limit=8)
        print(table, flush=True)
    result = {"variant": args.variant, "step_ms": round(statistics.median(plain), 3), "active_steps": ACTIVE}
    if profiled_ms:
        result["profiled_step_ms"] = round(statistics.median(profiled_ms), 3)
        result["profiler_overhead"] = round(statistics.median(profiled_ms) / statistics.median(plain), 3)
    emit(**result)


if __name__ == "__main__":
    main()
