"""The measuring side of `aiperf-triage --bench`: runs in a child process with PyTorch, prints one JSON
object per line as each figure is measured, so a bench that is stopped keeps what it measured.

    python -m aiperf_lab.triage.bench_worker gpus  --budget 40
    python -m aiperf_lab.triage.bench_worker links --budget 40 [--cpus GPU-UUID=0-31,64-95 ...]
    python -m aiperf_lab.triage.bench_worker nccl  --budget 60

- gpus: device copy and bf16 / fp32 matmul on every visible GPU at the same time (one thread per
  GPU, started together at a barrier), each the median of CUDA-event-timed repetitions after warm-up.
- links: for every ordered GPU pair, copy-engine bandwidth (cudaMemcpyPeer through PyTorch), both
  directions at once, and the time of a 4-byte copy; per GPU, pinned host-to-device and
  device-to-host bandwidth with the host buffer allocated from a thread bound to the GPU's CPUs.
- nccl: all-reduce (in place) and all-gather (out of place) from 8 B doubling to 1 GiB (less where
  free memory is short), float32, one process per GPU through torch.distributed, timed as nccl-tests
  times them (wall clock over the iterations after a synchronize, averaged over ranks).

Sizes come from each GPU's free memory; every phase stops early when its budget runs out, and says so.
The parent (triage/bench.py) sets CUDA_DEVICE_ORDER=PCI_BUS_ID so ordinals follow nvidia-smi's order;
each line also carries the GPU's UUID.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from typing import Any, Callable

GIB = 1 << 30
_print_lock = threading.Lock()


def emit(kind: str, **fields: Any) -> None:
    with _print_lock:
        sys.stdout.write(json.dumps({"kind": kind, **fields}) + "\n")
        sys.stdout.flush()


def _uuid(torch, index: int) -> str | None:
    uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
    return f"GPU-{uuid}" if uuid is not None else None


def _timed(torch, fn: Callable[[], Any], reps: int, warmup: int = 3) -> float:
    """Median seconds of one call, CUDA events on the current stream, after warm-up."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1000.0)
    return statistics.median(times)


def _copy_bytes(free: int, cap: int = GIB) -> int:
    """A buffer for copies: at most cap, at most a quarter of free memory (source and destination
    both come out of it), a multiple of 1 MiB."""
    return max(1 << 20, min(cap, free // 4) >> 20 << 20)


def _matmul_size(free: int, element: int, cap: int = 8192) -> int:
    """Square size for three matrices within half of free memory, a multiple of 256."""
    n = cap
    while n > 256 and 3 * n * n * element > free // 2:
        n -= 256
    return n


def phase_gpus(torch, budget_s: float) -> None:
    count = torch.cuda.device_count()
    barrier = threading.Barrier(count, timeout=max(budget_s, 5.0))
    started = time.monotonic()

    def work(index: int) -> None:
        try:
            torch.cuda.set_device(index)
            name = torch.cuda.get_device_name(index)
            free, _total = torch.cuda.mem_get_info(index)
            result: dict[str, Any] = {"index": index, "uuid": _uuid(torch, index), "name": name,
                                      "t_start": time.time()}
            n = _copy_bytes(free)
            src = torch.empty(n, dtype=torch.uint8, device=index).random_(0, 255)
            dst = torch.empty_like(src)
            barrier.wait()
            result["copy_bytes"] = n
            result["copy_tb_s"] = round(2 * n / _timed(torch, lambda: dst.copy_(src), 20) / 1e12, 3)
            del src, dst
            torch.cuda.empty_cache()
            for dtype, key in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
                size = _matmul_size(torch.cuda.mem_get_info(index)[0], 2 if key == "bf16" else 4)
                x = torch.randn(size, size, device=index, dtype=dtype)
                y = torch.randn(size, size, device=index, dtype=dtype)
                barrier.wait()
                reps = 10 if key == "bf16" else 5
                result[f"{key}_matmul_size"] = size
                result[f"{key}_matmul_tflops"] = round(2 * size ** 3 / _timed(torch, lambda: x @ y, reps) / 1e12, 1)
                del x, y
                torch.cuda.empty_cache()
            result["t_end"] = time.time()
            emit("gpu", **result)
        except threading.BrokenBarrierError:
            emit("error", phase="gpus", index=index, error="another GPU's measurement failed or ran out of time")
        except Exception as exc:  # one GPU failing must not hang the others at the barrier
            barrier.abort()
            emit("error", phase="gpus", index=index, error=f"{type(exc).__name__}: {exc}"[:300])

    torch.backends.cuda.matmul.allow_tf32 = False
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(budget_s - (time.monotonic() - started), 1.0))
    emit("done", phase="gpus", gpus=count, seconds=round(time.monotonic() - started, 3))


def _bind_to(cpus: set[int] | None) -> None:
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except (OSError, AttributeError):
            pass


def _cpu_text(cpus: set[int] | None) -> str | None:
    """{0,1,2,3,8} -> '0-3,8'."""
    if not cpus:
        return None
    parts, ordered = [], sorted(cpus)
    start = prev = ordered[0]
    for cpu in ordered[1:] + [None]:
        if cpu is not None and cpu == prev + 1:
            prev = cpu
            continue
        parts.append(f"{start}-{prev}" if prev != start else str(start))
        if cpu is not None:
            start = prev = cpu
    return ",".join(parts)


def _parse_cpus(specs: list[str]) -> dict[str, set[int]]:
    """['GPU-uuid=0-31,64-95', ...] -> {'GPU-uuid': {0..31, 64..95}}."""
    out: dict[str, set[int]] = {}
    for spec in specs:
        uuid, _, cpus = spec.rpartition("=")
        chosen: set[int] = set()
        for part in cpus.split(","):
            a, _, b = part.partition("-")
            if a.isdigit() and (b.isdigit() or not b):
                chosen.update(range(int(a), int(b or a) + 1))
        if uuid and chosen:
            out[uuid] = chosen
    return out


def phase_links(torch, budget_s: float, cpus: dict[str, set[int]]) -> None:
    started = time.monotonic()
    count = torch.cuda.device_count()
    out_of_time = lambda: time.monotonic() - started > budget_s  # noqa: E731
    # Host links first: every GPU has one, pairs only exist with two or more.
    for index in range(count):
        if out_of_time():
            emit("truncated", phase="links", reason=f"budget of {budget_s:.0f} s spent", at=f"host link {index}")
            break
        result: dict[str, Any] = {}
        bound = cpus.get(_uuid(torch, index) or "")

        def host_link() -> None:
            _bind_to(bound)
            torch.cuda.set_device(index)
            n = _copy_bytes(torch.cuda.mem_get_info(index)[0], cap=GIB // 2)
            host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
            dev = torch.empty(n, dtype=torch.uint8, device=index)
            result["bytes"] = n
            result["h2d_gb_s"] = round(n / _timed(torch, lambda: dev.copy_(host, non_blocking=True), 10) / 1e9, 2)
            result["d2h_gb_s"] = round(n / _timed(torch, lambda: host.copy_(dev, non_blocking=True), 10) / 1e9, 2)

        # A thread of its own, so the CPU binding (and with it where the pinned pages land) is per GPU.
        thread = threading.Thread(target=host_link, daemon=True)
        try:
            thread.start()
            thread.join()
            emit("host_link", index=index, uuid=_uuid(torch, index),
                 cpus=_cpu_text(bound), **result)
        except Exception as exc:
            emit("error", phase="links", index=index, error=f"{type(exc).__name__}: {exc}"[:300])
    for src in range(count):
        for dst in range(count):
            if src == dst:
                continue
            if out_of_time():
                emit("truncated", phase="links", reason=f"budget of {budget_s:.0f} s spent", at=f"pair {src}->{dst}")
                emit("done", phase="links", seconds=round(time.monotonic() - started, 3))
                return
            try:
                emit("pair", **_pair(torch, src, dst))
            except Exception as exc:
                emit("error", phase="links", pair=[src, dst], error=f"{type(exc).__name__}: {exc}"[:300])
    emit("done", phase="links", seconds=round(time.monotonic() - started, 3))


def _pair(torch, src: int, dst: int) -> dict[str, Any]:
    free = min(torch.cuda.mem_get_info(src)[0], torch.cuda.mem_get_info(dst)[0])
    n = _copy_bytes(free, cap=GIB // 4)
    a_src = torch.empty(n, dtype=torch.uint8, device=src).random_(0, 255)
    a_dst = torch.empty(n, dtype=torch.uint8, device=dst)
    b_dst = torch.empty(n, dtype=torch.uint8, device=dst).random_(0, 255)
    b_src = torch.empty(n, dtype=torch.uint8, device=src)
    peer = bool(torch.cuda.can_device_access_peer(src, dst))
    # PyTorch runs a cross-device copy on the source device's current stream: time it there.
    with torch.cuda.device(src):
        one_way = _timed(torch, lambda: a_dst.copy_(a_src), 10)
    reps = 10
    s_src, s_dst = torch.cuda.Stream(device=src), torch.cuda.Stream(device=dst)

    def both_ways() -> None:   # a copy each way, each on its source device's stream
        with torch.cuda.stream(s_src):
            a_dst.copy_(a_src)
        with torch.cuda.stream(s_dst):
            b_src.copy_(b_dst)

    def wall_s(fn: Callable[[], Any], times: int) -> float:
        """Seconds for `times` calls, both devices synchronized before and after."""
        torch.cuda.synchronize(src)
        torch.cuda.synchronize(dst)
        t0 = time.perf_counter()
        for _ in range(times):
            fn()
        torch.cuda.synchronize(src)
        torch.cuda.synchronize(dst)
        return time.perf_counter() - t0

    wall_s(both_ways, 2)   # warm-up of both directions at once
    both = wall_s(both_ways, reps)
    tiny_src = torch.ones(1, dtype=torch.int32, device=src)
    tiny_dst = torch.empty(1, dtype=torch.int32, device=dst)
    wall_s(lambda: tiny_dst.copy_(tiny_src), 20)
    copies = 200
    tiny_s = wall_s(lambda: tiny_dst.copy_(tiny_src), copies)
    tiny_us = tiny_s / copies * 1e6
    return {"src": src, "dst": dst, "src_uuid": _uuid(torch, src), "dst_uuid": _uuid(torch, dst), "peer_access": peer,
            "bytes": n, "gb_s": round(n / one_way / 1e9, 2), "bidir_gb_s": round(2 * n * reps / both / 1e9, 2),
            "small_copy_us": round(tiny_us, 2)}


# nccl-tests' sizes: -b 8 -e 1G -f 2 (1G is 2**30 bytes there).
SWEEP_MIN, SWEEP_MAX = 8, GIB
OPS = ("all_reduce", "all_gather")


def sweep_sizes(max_bytes: int) -> list[int]:
    sizes, size = [], SWEEP_MIN
    while size <= min(max_bytes, SWEEP_MAX):
        sizes.append(size)
        size *= 2
    return sizes


def _nccl_rank(rank: int, world: int, store_path: str, budget_s: float, max_bytes: int) -> None:
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    store = dist.FileStore(store_path, world)
    dist.init_process_group("nccl", store=store, rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    started = time.monotonic()
    free = torch.tensor([torch.cuda.mem_get_info(rank)[0]], dtype=torch.float64, device="cuda")
    dist.all_reduce(free, op=dist.ReduceOp.MIN)
    # The gather's output is the full size (the reduce works in place); a quarter of free memory leaves room.
    limit = min(max_bytes, int(free.item()) // 4)
    if rank == 0:
        version = ".".join(map(str, torch.cuda.nccl.version())) if hasattr(torch.cuda, "nccl") else None
        emit("nccl_start", ranks=world, nccl=version, max_bytes=limit)
    for op in OPS:
        for size in sweep_sizes(limit):
            count = size // 4 if op == "all_reduce" else size // 4 // world   # float32 elements (per rank for gather)
            flag = torch.tensor([1 if time.monotonic() - started < budget_s else 0], device="cuda")
            dist.all_reduce(flag, op=dist.ReduceOp.MIN)
            if not flag.item():
                if rank == 0:
                    emit("truncated", phase="nccl", reason=f"budget of {budget_s:.0f} s spent", at=f"{op} {size} B")
                dist.destroy_process_group()
                return
            if count == 0:
                continue
            send = torch.ones(count, dtype=torch.float32, device="cuda")
            if op == "all_reduce":
                call = lambda: dist.all_reduce(send)  # noqa: E731  (in place: PyTorch has no out-of-place form)
            else:
                recv = torch.empty(count * world, dtype=torch.float32, device="cuda")
                call = lambda: dist.all_gather_into_tensor(recv, send)  # noqa: E731
            for _ in range(5):
                call()
            torch.cuda.synchronize()
            probe = time.perf_counter()
            call()
            torch.cuda.synchronize()
            one = torch.tensor([time.perf_counter() - probe], dtype=torch.float64, device="cuda")
            dist.all_reduce(one, op=dist.ReduceOp.MAX)
            iters = int(min(50, max(5, 0.2 / max(one.item(), 1e-6))))
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(iters):
                call()
            torch.cuda.synchronize()
            elapsed = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64, device="cuda")
            dist.all_reduce(elapsed)  # nccl-tests averages the per-rank times
            if rank == 0:
                emit("nccl", op=op, bytes=count * 4 * (1 if op == "all_reduce" else world), ranks=world,
                     iters=iters, time_us=round(elapsed.item() / world * 1e6, 2))
            del send, call
    if rank == 0:
        emit("done", phase="nccl", seconds=round(time.monotonic() - started, 3))
    dist.destroy_process_group()


def phase_nccl(torch, budget_s: float, max_bytes: int) -> None:
    import torch.multiprocessing as mp

    world = torch.cuda.device_count()
    if world < 2:
        emit("skipped", phase="nccl", reason=f"needs 2 or more GPUs; {world} visible")
        return
    with tempfile.TemporaryDirectory(prefix="aiperf-nccl-") as folder:
        mp.spawn(_nccl_rank, args=(world, os.path.join(folder, "store"), budget_s, max_bytes), nprocs=world, join=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aiperf_lab.triage.bench_worker")
    parser.add_argument("phase", choices=["gpus", "links", "nccl"])
    parser.add_argument("--budget", type=float, default=40.0)
    parser.add_argument("--max-bytes", type=int, default=SWEEP_MAX)
    parser.add_argument("--cpus", nargs="*", default=[], help="GPU UUID=CPU list, e.g. GPU-8a..=0-31,64-95")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        emit("skipped", phase=args.phase, reason="PyTorch is not installed")
        return 0
    if not torch.cuda.is_available():
        emit("skipped", phase=args.phase, reason="PyTorch sees no CUDA device")
        return 0
    emit("start", phase=args.phase, gpus=torch.cuda.device_count(), torch=torch.__version__)
    if args.phase == "gpus":
        phase_gpus(torch, args.budget)
    elif args.phase == "links":
        if torch.cuda.device_count() < 2:
            emit("note", phase="links", note="one GPU: host links only, no GPU pairs")
        phase_links(torch, args.budget, _parse_cpus(args.cpus))
    else:
        phase_nccl(torch, args.budget, args.max_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
