"""03-ex02: memory snapshots and allocation tracking. A deep MLP (24 layers of 4096, batch 8192,
fp32) takes training steps while PyTorch records every allocation (`_record_memory_history`); the
snapshot is dumped to the run folder (`memory_snapshot.pickle`, open it at pytorch.org/memory_viz).

`baseline` keeps every layer's activations for the backward pass; `optimized` checkpoints groups of
four layers: only each group's input is kept, and the group's activations are recomputed during
backward. Both are measured in every
run; the snapshot is of the variant's steps. The peak is read twice: from the allocator's own
counter and by replaying the snapshot's allocation trace.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, parser

GROUP = 4


def trace_peak(snapshot: dict) -> int:
    """The most bytes allocated at once, replaying alloc and free events of the recorded trace."""
    current = peak = 0
    for event in (snapshot.get("device_traces") or [[]])[0]:
        if event["action"] == "alloc":
            current += event["size"]
            peak = max(peak, current)
        elif event["action"] == "free_completed":
            current -= event["size"]
    return peak


def main() -> None:
    args = parser(__doc__, ["baseline", "optimized"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    from torch.utils.checkpoint import checkpoint

    full = args.size == "full"
    width, depth, batch = (4096, 24, 8192) if full else (64, 4, 32)
    layers = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU())
                                 for _ in range(depth)).to(device)
    optimizer = torch.optim.SGD(layers.parameters(), lr=1e-3)
    x = torch.randn(batch, width, device=device)

    groups = [torch.nn.Sequential(*layers[i:i + GROUP]) for i in range(0, depth, GROUP)]

    def step(checkpointed: bool):
        h = x
        for group in groups:
            h = checkpoint(group, h, use_reentrant=False) if checkpointed else group(h)
        h.float().pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    on_gpu = device.type == "cuda"
    peaks = {}
    for name, checkpointed in (("baseline", False), ("optimized", True)):
        step(checkpointed)
        if on_gpu:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            step(checkpointed)
            torch.cuda.synchronize()
            peaks[name] = torch.cuda.max_memory_allocated()
    result = {"variant": args.variant, "params": sum(p.numel() for p in layers.parameters())}
    if on_gpu:
        # A fresh recording of the variant's steps: the allocations from its start are all in the trace.
        torch.cuda.empty_cache()
        torch.cuda.synchronize()
        torch.cuda.memory._record_memory_history(max_entries=200_000)
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        step(args.variant == "optimized")
        torch.cuda.synchronize()
        snapshot = torch.cuda.memory._snapshot()
        torch.cuda.memory._record_memory_history(enabled=None)
        run_dir = Path(os.environ.get("AIPERF_RUN_DIR", "."))
        with open(run_dir / "memory_snapshot.pickle", "wb") as f:
            pickle.dump(snapshot, f)
        recorded = trace_peak(snapshot)
        counter = torch.cuda.max_memory_allocated() - base
        events = len((snapshot.get("device_traces") or [[]])[0])
        result.update(baseline_peak_gb=round(peaks["baseline"] / 1e9, 3), optimized_peak_gb=round(peaks["optimized"] / 1e9, 3),
                      peak_ratio=round(peaks["optimized"] / peaks["baseline"], 3),
                      snapshot_peak_gb=round(recorded / 1e9, 3), counter_peak_gb=round(counter / 1e9, 3),
                      snapshot_vs_counter=round(recorded / counter, 4) if counter else None, trace_events=events)
    emit(**result)


if __name__ == "__main__":
    main()
