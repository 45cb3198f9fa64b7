"""Arguments, timing and markers every workload shares."""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys


def _quiet_interrupt(kind, value, traceback) -> None:
    """Ctrl-C (the console's or the runner's cancel) ends a workload with one line, not a traceback;
    Python still ends the process by SIGINT, so its exit status says it was interrupted."""
    if issubclass(kind, KeyboardInterrupt):
        print("interrupted: the workload stopped on Ctrl-C", file=sys.stderr, flush=True)
        return
    sys.__excepthook__(kind, value, traceback)


# Every workload imports this module first, so this covers start-up (importing PyTorch) as well.
sys.excepthook = _quiet_interrupt


class WorkloadParser(argparse.ArgumentParser):
    """Parses a workload's arguments and tells labs.result what it learnt (size, knobs), so the
    result line says how the workload ran."""

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed = super().parse_args(args, namespace)
        knobs: dict[str, str] = {}
        for item in parsed.set or []:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                self.error(f"--set takes NAME=VALUE, not {item!r}")
            knobs[name.strip()] = value.strip()
        parsed.knobs = knobs
        from aiperf_lab.labs.result import set_context
        set_context(size=parsed.size, **({"knobs": knobs} if knobs else {}))
        return parsed


def knob(args, name: str, default, kind=int):
    """A what-if knob (`--set name=value`, validated by the runner against catalog.yaml), or the default."""
    value = getattr(args, "knobs", {}).get(name)
    if value is None:
        return default
    try:
        return kind(value)
    except ValueError:
        print(f"--set {name}={value}: not a {kind.__name__}", file=sys.stderr)
        raise SystemExit(2)


def parser(description: str, variants: list[str]) -> argparse.ArgumentParser:
    p = WorkloadParser(description=description)
    p.add_argument("--variant", choices=variants, default=variants[0])
    p.add_argument("--size", choices=["tiny", "full"], default="full",
                   help="tiny: a small problem, on the CPU where the exercise has a CPU path (for tests)")
    p.add_argument("--seconds", type=float, default=None, help="how long to keep the GPU busy, where it applies")
    p.add_argument("--torch-trace", default=None, help="write a PyTorch profiler (Kineto) trace here")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="a what-if knob the exercise declares")
    return p


def import_torch():
    """PyTorch, or exit 2 with one line saying how to get it.

    Without NumPy, importing PyTorch prints a two-line UserWarning ("Failed to initialize NumPy")
    from inside torch; the workloads never use NumPy, so that warning becomes one line saying what
    is missing and how to add it (`aiperf-lab[labs]` declares it)."""
    import importlib.util
    import warnings
    numpy_missing = importlib.util.find_spec("numpy") is None
    try:
        with warnings.catch_warnings():
            if numpy_missing:
                warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
            import torch
    except ImportError:
        print("this workload needs PyTorch: pip install 'aiperf-lab[labs]' (or a torch build for your CUDA)",
              file=sys.stderr)
        raise SystemExit(2)
    if numpy_missing:
        print("note: NumPy is not installed (PyTorch warns about it; these workloads do not use it): "
              "pip install numpy, or aiperf-lab[labs] which includes it", file=sys.stderr, flush=True)
    return torch


def device_for(torch, size: str):
    """The GPU when there is one; the CPU only for a tiny run; otherwise exit 2 with one line."""
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    if size == "tiny":
        return torch.device("cpu")
    from aiperf_lab.labs.result import need_gpu
    need_gpu(torch)


def median_ms(torch, device, fn, reps: int = 10, warmup: int = 2, inner: int = 1) -> float:
    """Median time of fn() in ms: CUDA events on a GPU, a monotonic clock on the CPU.

    `inner` > 1 calls fn that many times between the events and divides: for kernels shorter than
    the CPU's cost of launching them (a cuda.core launch from Python takes tens of microseconds),
    where one launch between two events would time the launch, not the kernel.
    """
    return statistics.median(times_ms(torch, device, fn, reps, warmup, inner))


def times_ms(torch, device, fn, reps: int = 10, warmup: int = 2, inner: int = 1) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize()
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / inner)
    else:
        import time
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
    return times


def per_step_ms(torch, device, loop, steps: int) -> float:
    """Wall time per step of loop(steps), host work included, with the GPU drained before and after."""
    import time
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    sync()
    t0 = time.perf_counter()
    loop(steps)
    sync()
    return (time.perf_counter() - t0) * 1000 / steps


class Nvtx:
    """NVTX push/pop that does nothing without CUDA (CPU runs in tests)."""

    def __init__(self, torch):
        self._nvtx = torch.cuda.nvtx if torch.cuda.is_available() else None

    @contextlib.contextmanager
    def range(self, name: str):
        if self._nvtx:
            self._nvtx.range_push(name)
        try:
            yield
        finally:
            if self._nvtx:
                self._nvtx.range_pop()


@contextlib.contextmanager
def profiled(torch):
    """The part of the run a profiler started with --capture-range=cudaProfilerApi records."""
    on_gpu = torch.cuda.is_available()
    if on_gpu:
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
    try:
        yield
    finally:
        if on_gpu:
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()


def require_torchrun(min_world: int = 2) -> int:
    """The world size under torchrun; exit 2 with one line when started otherwise or with too few GPUs."""
    world = int(os.environ.get("WORLD_SIZE", 0))
    if world == 0:
        print("this workload runs one process per GPU: start it through the labs runner "
              "(python -m aiperf_lab.labs run ...) or torchrun --nproc-per-node N", file=sys.stderr)
        raise SystemExit(2)
    if world < min_world:
        print(f"this workload needs at least {min_world} GPUs (processes); it got {world}", file=sys.stderr)
        raise SystemExit(2)
    return world
