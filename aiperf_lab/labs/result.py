"""How a workload reports what it measured: one line `AIPERF_RESULT {json}` on stdout, last.

Workloads print progress as they like; the runner keeps the last result line's values as the run's
measurements, next to what the runner measured itself (time, energy, power). Every result line also
says where and how the workload ran (`emit` adds it): `device` ("cuda" or "cpu"), `size` ("tiny" or
"full"), the knobs it was given, and the GPUs it used (`gpu_uuids`, `gpu_ordinals`: CUDA ordinals,
which count only the GPUs CUDA_VISIBLE_DEVICES shows). The runner grades from these, not from what
NVML sees on the machine, and matches the UUIDs to NVML for energy, power and datasheet figures.
"""

from __future__ import annotations

import json
import sys

PREFIX = "AIPERF_RESULT "
# What the workload's argument parser learnt (size, variant, knobs): common.parser sets it.
_CONTEXT: dict = {}


def set_context(**values) -> None:
    _CONTEXT.update(values)


def where_it_ran() -> dict:
    """device, and on a GPU the CUDA ordinals and UUIDs of the GPUs this process used (the current
    device and any device the caching allocator has allocated on)."""
    torch = sys.modules.get("torch")
    try:
        if torch is None or not torch.cuda.is_initialized():
            return {"device": "cpu"}
        used = {torch.cuda.current_device()}
        used.update(i for i in range(torch.cuda.device_count()) if torch.cuda.max_memory_allocated(i) > 0)
        ordinals = sorted(used)
        uuids = [str(torch.cuda.get_device_properties(i).uuid) for i in ordinals]
    except Exception:  # an odd build or a lost device: say GPU, without the mapping
        return {"device": "cuda"}
    return {"device": "cuda", "gpu_ordinals": ordinals, "gpu_uuids": uuids}


def emit(**measurements) -> None:
    context = {**where_it_ran(), **_CONTEXT}
    for key, value in context.items():
        measurements.setdefault(key, value)
    print(PREFIX + json.dumps(measurements, sort_keys=True), flush=True)


def parse_line(line: str) -> dict | None:
    if not line.startswith(PREFIX):
        return None
    try:
        value = json.loads(line[len(PREFIX):])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def need_gpu(torch_module) -> None:
    """Exit 2 with one line when a GPU-only workload finds no CUDA device."""
    if not torch_module.cuda.is_available():
        print("this workload needs an NVIDIA GPU with CUDA; none is visible here (try --size tiny where the "
              "exercise has a CPU path)", file=sys.stderr)
        raise SystemExit(2)
