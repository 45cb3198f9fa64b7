"""06-ex05: CPU sampling for hotspots. The same preprocessing (turn 200,000 "documents" of token ids
into a padded, normalized batch) is done twice under NVTX ranges: `preprocess_python`, a pure-Python
loop, and `preprocess_vectorized`, the same arithmetic in PyTorch tensor operations; then a GPU step
uses the result. nsys's CPU sampler shows where the main thread's time went in each range.
"""

from __future__ import annotations

import random
import time

from aiperf_lab.labs.result import emit
from aiperf_lab.labs.workloads.common import Nvtx, device_for, import_torch, parser, profiled


def main() -> None:
    args = parser(__doc__, ["compare"]).parse_args()
    torch = import_torch()
    device = device_for(torch, args.size)
    nvtx = Nvtx(torch)
    docs, length = (200_000, 16) if args.size == "full" else (2_000, 8)
    rng = random.Random(0)
    tokens = [[rng.randrange(50_000) for _ in range(length)] for _ in range(docs)]
    as_tensor = torch.tensor(tokens, dtype=torch.float32)

    def python_version():
        out = []
        for doc in tokens:
            mean = sum(doc) / len(doc)
            spread = (sum((t - mean) ** 2 for t in doc) / len(doc)) ** 0.5 or 1.0
            out.append([(t - mean) / spread for t in doc])
        return torch.tensor(out)

    def vectorized_version():
        mean = as_tensor.mean(dim=1, keepdim=True)
        spread = as_tensor.std(dim=1, unbiased=False, keepdim=True).clamp_min(1e-12)
        return (as_tensor - mean) / spread

    def timed(name, fn):
        with nvtx.range(name):
            t0 = time.perf_counter()
            result = fn()
            return result, (time.perf_counter() - t0) * 1000

    with profiled(torch):
        slow, python_ms = timed("preprocess_python", python_version)
        fast, vectorized_ms = timed("preprocess_vectorized", vectorized_version)
        with nvtx.range("gpu_step"):
            batch = fast.to(device)
            (batch.t() @ batch).sum().item()  # a 16 x 16 Gram matrix
    agree = bool(torch.allclose(slow, fast, atol=1e-3))
    emit(variant=args.variant, documents=docs, python_ms=round(python_ms, 1), vectorized_ms=round(vectorized_ms, 1),
         speedup=round(python_ms / vectorized_ms, 1), results_agree=int(agree))


if __name__ == "__main__":
    main()
