"""`aiperf-triage --bench`: the same active checks on every GPU of the node at once, the links between
them, and an NCCL sweep, each phase bounded in time, each figure kept as soon as it is measured.

Phases (each a child process running triage/bench_worker.py, so PyTorch and CUDA never load in
triage itself, and a phase that hangs is killed without taking the others down):
  gpus   device copy, bf16 and fp32 matmul on all GPUs together
  links  pinned host<->device per GPU; copy-engine bandwidth, both directions and latency per GPU pair
  nccl   all-reduce and all-gather, 8 B to 1 GiB, one process per GPU (2+ GPUs)

Budget (defaults, seconds): gpus 45, links 45, nccl 75, each including PyTorch's start-up; a phase
that reaches its limit keeps what it printed and is marked `timeout`. On 2 H200s the whole bench
took the seconds docs/benchmarks.md gives. With one GPU the pair and NCCL parts say they were skipped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from aiperf_lab.process_group import escalate, waits_for
from aiperf_lab.triage.bench_analysis import NodeBench

PHASES = ("gpus", "links", "nccl")
STOP_STEPS = ((signal.SIGINT, 3.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0))


@dataclass(frozen=True)
class BenchLimits:
    """Each phase's wall-clock limit in seconds; the worker is told to stop new measurements at 80%
    of it, and is killed at the limit."""
    gpus_s: float = 45.0
    links_s: float = 45.0
    nccl_s: float = 75.0

    def of(self, phase: str) -> float:
        return float(getattr(self, f"{phase}_s"))

    @property
    def total_s(self) -> float:
        return self.gpus_s + self.links_s + self.nccl_s


def worker_argv(phase: str, budget_s: float, cpus_by_uuid: Mapping[str, str] | None = None) -> list[str]:
    argv = [sys.executable, "-m", "aiperf_lab.triage.bench_worker", phase, "--budget", f"{budget_s:.1f}"]
    if phase == "links" and cpus_by_uuid:
        argv += ["--cpus", *(f"{uuid}={cpus}" for uuid, cpus in sorted(cpus_by_uuid.items()) if cpus)]
    return argv


def _summary(record: Mapping) -> str | None:
    kind = record.get("kind")
    if kind == "gpu":
        return (f"GPU {record.get('index')}: copy {record.get('copy_tb_s')} TB/s, bf16 {record.get('bf16_matmul_tflops')}"
                f" TFLOP/s, fp32 {record.get('fp32_matmul_tflops')} TFLOP/s")
    if kind == "host_link":
        return f"GPU {record.get('index')}: pinned H2D {record.get('h2d_gb_s')} GB/s, D2H {record.get('d2h_gb_s')} GB/s"
    if kind == "pair":
        return (f"GPU {record.get('src')} -> {record.get('dst')}: {record.get('gb_s')} GB/s, both ways "
                f"{record.get('bidir_gb_s')} GB/s, 4-byte copy {record.get('small_copy_us')} us")
    if kind == "nccl" and record.get("bytes", 0) >= 1 << 30:
        return f"NCCL {record.get('op')} 1 GiB: {record.get('time_us')} us"
    if kind in ("skipped", "truncated", "error"):
        return f"{record.get('phase')}: {kind} {record.get('reason') or record.get('error') or ''}".strip()
    return None


def run_phase(argv: Sequence[str], limit_s: float, bench: NodeBench, phase: str, *,
              stop: threading.Event | None = None, on_progress: Callable[[str], None] = lambda _: None,
              env: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
    """Run one worker, adding each JSON line to `bench` as it arrives; record the phase's status, and
    in `measuring_from` the time (on `clock`) its worker said it started measuring: PyTorch's start-up
    before that is not the bench's load."""
    started = time.monotonic()
    state: dict = {"status": "ok", "seconds": 0.0, "error": None, "measuring_from": None}
    bench.phases[phase] = state
    child_env = {**os.environ, **(env or {})}
    child_env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")   # ordinals in nvidia-smi's order
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=child_env, start_new_session=True, text=True, errors="replace", bufsize=1)
    except OSError as exc:
        state.update(status="failed", error=f"cannot start the bench worker: {exc.strerror or exc}")
        return
    errors: list[str] = []
    drain = threading.Thread(target=lambda: errors.extend(proc.stderr or []), daemon=True)
    drain.start()
    kinds: set[str] = set()

    def read() -> None:
        for line in proc.stdout or []:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue   # a library printing to stdout
            if not isinstance(record, dict):
                continue
            kinds.add(str(record.get("kind")))
            if record.get("kind") == "start" and state["measuring_from"] is None:
                state["measuring_from"] = clock()
            bench.add(record)
            text = _summary(record)
            if text:
                on_progress(f"bench {phase}: {text}")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = started + limit_s
    while proc.poll() is None:
        if stop is not None and stop.is_set():
            escalate(proc, STOP_STEPS, waits_for(proc))
            state.update(status="interrupted", error="stopped (Ctrl-C or SIGTERM); kept what was measured")
            break
        if time.monotonic() >= deadline:
            escalate(proc, STOP_STEPS, waits_for(proc))
            state.update(status="timeout", error=f"did not finish in {limit_s:.0f} s; kept what was measured")
            break
        time.sleep(0.1)
    proc.wait()
    reader.join(timeout=2)
    drain.join(timeout=2)
    state["seconds"] = round(time.monotonic() - started, 3)
    if state["status"] == "ok":
        if "skipped" in kinds and not kinds & {"gpu", "host_link", "pair", "nccl"}:
            state["status"] = "skipped"
            state["error"] = next((n.split(": skipped ", 1)[-1] for n in bench.notes if n.startswith(f"{phase}: skipped")),
                                  "skipped")
        elif proc.returncode != 0 or "error" in kinds:
            last = [e.strip() for e in errors if e.strip()]
            state["status"] = "failed"
            state["error"] = (f"exit {proc.returncode}: " + last[-1][:300]) if proc.returncode and last else \
                (f"exit {proc.returncode}" if proc.returncode else "some measurements failed (see notes)")
        elif "truncated" in kinds:
            state["status"] = "truncated"
            state["error"] = "the phase's budget ran out before every measurement"


def run_node_bench(*, limits: BenchLimits = BenchLimits(), stop: threading.Event | None = None,
                   on_progress: Callable[[str], None] = lambda _: None, cpus_by_uuid: Mapping[str, str] | None = None,
                   clock: Callable[[], float] = time.monotonic,
                   argv_for: Callable[[str, float], list[str]] | None = None) -> tuple[NodeBench, dict[str, tuple[float, float]]]:
    """Every phase in turn; returns what was measured and each phase's (start, end) on `clock` (pass the
    sampler's clock to read power and clocks during each phase from its samples)."""
    bench = NodeBench()
    windows: dict[str, tuple[float, float]] = {}
    for phase in PHASES:
        if stop is not None and stop.is_set():
            bench.phases[phase] = {"status": "skipped", "seconds": 0.0, "error": "interrupted before it started"}
            continue
        if phase == "nccl" and len(bench.gpus) == 1 and not bench.pairs:
            bench.phases[phase] = {"status": "skipped", "seconds": 0.0, "error": "needs 2 or more GPUs; 1 visible"}
            bench.notes.append("nccl: skipped: needs 2 or more GPUs; 1 visible")
            continue
        limit = limits.of(phase)
        argv = argv_for(phase, limit) if argv_for else worker_argv(phase, 0.8 * limit, cpus_by_uuid)
        on_progress(f"bench {phase}: started (limit {limit:.0f} s)")
        t0 = clock()
        run_phase(argv, limit, bench, phase, stop=stop, on_progress=on_progress, clock=clock)
        state = bench.phases[phase]
        windows[phase] = (state.pop("measuring_from", None) or t0, clock())
        on_progress(f"bench {phase}: {state['status']} in {state['seconds']:.1f} s"
                    + (f" ({state['error']})" if state.get("error") else ""))
    if len(bench.gpus) == 1:
        bench.notes.append("one GPU: the node comparison, GPU pairs and NCCL need two or more")
    return bench, windows
