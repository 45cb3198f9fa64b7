"""Module 07 (and 06-ex03/ex04): a GPT-style model (4 layers, d=768, 12 heads, sequence 512, batch 4,
fp32) timed from Python and annotated with NVTX ranges: forward only, a full training step, or
`both`: forward-only steps inside an "inference" range, then training steps inside "training".

NVTX ranges (nsys shows them as ":<name>"): warmup and step_N (one per step), forward,
scaled_dot_product_attention, computing_attention_scores, computing_softmax, final_matmul, and in
training backward, optimizer. The ranges are CPU-side: "forward" ends when Python has queued the
kernels, not when the GPU has run them (the profile's GPU times answer that).
"""

from __future__ import annotations

import math
import statistics
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import device_for, import_torch, knob, parser

WARMUP, STEPS = 2, 5


def build(torch, d: int, heads: int, layers: int, vocab: int):
    nn = torch.nn
    nvtx = torch.cuda.nvtx if torch.cuda.is_available() else None

    def push(name):
        if nvtx:
            nvtx.range_push(name)

    def pop():
        if nvtx:
            nvtx.range_pop()

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            push("scaled_dot_product_attention")
            push("computing_attention_scores")
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // heads)
            mask = torch.ones(s, s, device=x.device, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
            pop()
            push("computing_softmax")
            weights = torch.softmax(scores, dim=-1)
            pop()
            push("final_matmul")
            out = (weights @ v).transpose(1, 2).reshape(b, s, d)
            pop()
            pop()
            x = x + self.proj(out)
            return x + self.mlp(self.norm2(x))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.head = nn.Linear(d, vocab)

        def forward(self, tokens):
            x = self.embed(tokens)
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    return Model(), push, pop


def main() -> None:
    args = parser(__doc__, ["forward", "train", "both"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    full = args.size == "full"
    d, heads, layers, seq, batch, vocab = (768, 12, 4, 512, 4, 10000) if full else (64, 4, 1, 32, 2, 100)
    seq, batch = knob(args, "seq", seq), knob(args, "batch", batch)
    torch.backends.cuda.matmul.allow_tf32 = False
    model, push, pop = build(torch, d, heads, layers, vocab)
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, vocab, (batch, seq), device=device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    phases = {"forward": [("", False)], "train": [("", True)], "both": [("inference", False), ("training", True)]}
    forward_ms: list[float] = []
    queued_ms: list[float] = []
    for phase, train in phases[args.variant]:
        if phase:
            push(phase)
        with torch.set_grad_enabled(train):
            times, queued = run_steps(torch, model, optimizer, tokens, vocab, train, push, pop, sync)
        if not forward_ms:  # the Python timing of the first phase's forward passes
            forward_ms, queued_ms = times, queued
        if phase:
            pop()
    timed = forward_ms[WARMUP:]  # the warm-up steps (allocations, cuBLAS set-up) are left out
    emit(variant=args.variant, python_forward_ms=round(statistics.mean(timed), 3),
         python_forward_median_ms=round(statistics.median(timed), 3),
         python_nosync_median_ms=round(statistics.median(queued_ms[WARMUP:]), 3), steps=STEPS, d_model=d, layers=layers,
         seq=seq, batch=batch, heads=heads, **attention_flops(batch, heads, seq, d // heads))


def attention_flops(batch: int, heads: int, seq: int, d_head: int) -> dict:
    """FLOPs of one attention layer's pieces (seeds' formulas): QK^T, softmax (about 5 per score), AV."""
    scores = batch * heads * seq * seq
    return {"qk_flops": 2 * scores * d_head, "softmax_flops": 5 * scores, "av_flops": 2 * scores * d_head}


def run_steps(torch, model, optimizer, tokens, vocab, train, push, pop, sync) -> tuple[list[float], list[float]]:
    """Each step's forward timed twice from Python: until model() returns (what a timer without a
    synchronize sees: the CPU has queued the kernels) and until the GPU has run them. The "forward"
    NVTX range brackets the first, like any CPU-side range."""
    forward_ms, queued_ms = [], []
    for step in range(WARMUP + STEPS):
        push("warmup" if step < WARMUP else f"step_{step - WARMUP}")
        sync()
        t0 = time.perf_counter()
        push("forward")
        logits = model(tokens)
        pop()
        queued_ms.append((time.perf_counter() - t0) * 1000)
        sync()
        forward_ms.append((time.perf_counter() - t0) * 1000)
        if train:
            push("backward")
            loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab), tokens.view(-1))
            loss.backward()
            pop()
            push("optimizer")
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            pop()
            sync()
        pop()
        print(f"step {step}{' (warm-up)' if step < WARMUP else ''}: forward {forward_ms[-1]:.2f} ms "
              f"(queued in {queued_ms[-1]:.2f} ms)", flush=True)
    return forward_ms, queued_ms


if __name__ == "__main__":
    main()
