"""Collectors: small independent units, each with a name, a time limit and its own output files.

Each runs in its own thread; one that fails or runs out of time is recorded as such and never stops
the others. Commands they run are argv lists with their own time limits, so a hung tool is killed.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from aiperf_lab.triage import hardware, topology
from aiperf_lab.triage.facts import HardwareFacts
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.commands import CommandResult, run_command

DEFAULT_TIMEOUT_S = 30.0


class Skipped(Exception):
    """A collector that does not apply here (no nvidia-smi, no GPU): status "skipped", with the reason."""


@dataclass
class Collector:
    name: str
    run: Callable[[BundleWriter], Any]   # returns its typed result (kept in CollectorRun.results)
    timeout_s: float = DEFAULT_TIMEOUT_S


def _save_command(bundle: BundleWriter, collector: str, relative: str, argv: list[str], timeout_s: float) -> CommandResult:
    result = run_command(argv, timeout_s)
    if result.missing:
        return result
    header = f"$ {' '.join(argv)}\n# exit {result.returncode}{' (timed out)' if result.timed_out else ''}, " \
             f"{result.seconds:.2f} s\n"
    bundle.write_text(collector, relative, header + result.stdout + (("\n# stderr\n" + result.stderr)
                                                                     if result.stderr.strip() else ""))
    return result


def collect_hardware(bundle: BundleWriter) -> HardwareFacts:
    gpu = hardware.gpu_capabilities()
    attributes = hardware.device_attributes(timeout_s=DEFAULT_TIMEOUT_S - 5) if gpu.get("gpus") else \
        {"skipped": "no GPU: device attributes not probed"}
    host = hardware.host_facts()
    bundle.write_json("hardware", "hardware_capabilities.json", {"nvml": gpu, "device_attributes": attributes,
                                                                  "host": host})
    bundle.write_text("hardware", "hardware_capabilities.txt", hardware.capability_text(gpu, attributes, host))
    return HardwareFacts(gpu, attributes, host)


def collect_topology(bundle: BundleWriter) -> dict[str, str]:
    """The GPU -> CPU affinity ("GPU0" -> "0-15") from nvidia-smi topo -m, with the raw outputs kept."""
    done, affinity = [], {}
    topo = _save_command(bundle, "topology", "topology/nvidia-smi-topo-m.txt", ["nvidia-smi", "topo", "-m"], 20)
    if topo.ok:
        matrix = topology.parse_topo_matrix(topo.stdout)
        per_gpu = topology.gpu_affinity(matrix)
        bundle.write_json("topology", "topology/topology.json", {"matrix": matrix, "gpu_affinity": per_gpu})
        affinity = {gpu: a["cpu_affinity"] for gpu, a in per_gpu.items()}
        done.append("nvidia-smi topo -m")
    for argv, name in ((["numactl", "-H"], "numactl-H.txt"), (["lscpu"], "lscpu.txt")):
        if _save_command(bundle, "topology", f"topology/{name}", argv, 20).ok:
            done.append(argv[0])
    if not done:
        raise Skipped("nvidia-smi, numactl and lscpu are all missing or failed")
    if topo.missing:
        raise Skipped(f"nvidia-smi is not installed: no GPU topology (kept {', '.join(done)})")
    if not topo.ok:
        raise RuntimeError(topo.describe())
    return affinity


def collect_gpu_snapshots(bundle: BundleWriter) -> None:
    first = _save_command(bundle, "gpu_snapshots", "snapshots/nvidia-smi.txt", ["nvidia-smi"], 20)
    if first.missing:
        raise Skipped("nvidia-smi is not installed (no NVIDIA driver)")
    _save_command(bundle, "gpu_snapshots", "snapshots/nvidia-smi-q.txt", ["nvidia-smi", "-q"], 25)
    _save_command(bundle, "gpu_snapshots", "snapshots/nvidia-smi-q.xml", ["nvidia-smi", "-q", "-x"], 25)
    _save_command(bundle, "gpu_snapshots", "snapshots/nvlink-status.txt", ["nvidia-smi", "nvlink", "-s"], 15)
    _save_command(bundle, "gpu_snapshots", "snapshots/nvlink-errors.txt", ["nvidia-smi", "nvlink", "-e"], 15)


XID = re.compile(r"NVRM: Xid \([^)]*\): (\d+)")


def collect_kernel_log(bundle: BundleWriter) -> list[int]:
    """NVIDIA driver messages and Xid errors from the kernel log, where it is readable."""
    result = run_command(["dmesg", "--time-format", "iso"], 20)
    if not result.ok:
        result = run_command(["dmesg"], 20)
    text = result.stdout if result.ok else ""
    source = "dmesg"
    if not text:
        for path in ("/var/log/kern.log", "/var/log/syslog"):
            try:
                text = Path(path).read_text(errors="replace")[-5_000_000:]
                source = path
                break
            except OSError:
                continue
    if not text:
        raise Skipped(f"kernel log not readable here ({result.describe()})")
    lines = [line for line in text.splitlines() if "NVRM" in line or "nvidia" in line.lower()]
    xids = [int(m.group(1)) for line in lines if (m := XID.search(line))]
    bundle.write_text("kernel_log", "snapshots/kernel-nvidia.log", "\n".join(lines[-2000:]) + "\n")
    bundle.write_json("kernel_log", "snapshots/xid.json", {"source": source, "nvidia_lines": len(lines),
                                                            "xid_errors": xids})
    return xids


PACKAGES_PROBE = r"""
import json, importlib.metadata as md
names = ["torch", "triton", "nvidia-ml-py", "cuda-python", "nvidia-nccl-cu12", "nvidia-nccl-cu13",
         "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "jax", "numpy", "transformers", "deepspeed", "vllm"]
out = {}
for name in names:
    try:
        out[name] = md.version(name)
    except md.PackageNotFoundError:
        pass
print(json.dumps(out))
"""


def collect_software(bundle: BundleWriter) -> None:
    result = run_command([sys.executable, "-c", PACKAGES_PROBE], 20)
    packages = json.loads(result.stdout) if result.ok and result.stdout.strip() else {}
    nvcc = run_command(["nvcc", "--version"], 10)
    bundle.write_json("software", "software.json", {
        "python": sys.version, "executable": sys.executable, "packages": packages,
        "nvcc": nvcc.stdout.strip().splitlines()[-1] if nvcc.ok and nvcc.stdout.strip() else None,
    })


def collect_environment(bundle: BundleWriter) -> None:
    clean = bundle.redactor.environment(dict(os.environ))
    bundle.write_text("environment", "environment.txt", "".join(f"{k}={v}\n" for k, v in clean.items()))


STANDARD_COLLECTORS = [
    Collector("hardware", collect_hardware),
    Collector("topology", collect_topology),
    Collector("gpu_snapshots", collect_gpu_snapshots),
    Collector("kernel_log", collect_kernel_log),
    Collector("software", collect_software),
    Collector("environment", collect_environment),
]


class CollectorRun:
    """Runs collectors in threads and records each one's status, time and error in the bundle."""

    def __init__(self, bundle: BundleWriter, collectors: list[Collector]):
        self.bundle = bundle
        self.collectors = collectors
        self.threads: dict[str, tuple[threading.Thread, float]] = {}
        self.results: dict[str, Any] = {}
        self.on_done: Callable[[Any], None] = lambda record: None   # called with each finished record

    def start(self) -> None:
        for collector in self.collectors:
            record = self.bundle.record(collector.name)
            thread = threading.Thread(target=self._run, args=(collector, record), name=f"collect-{collector.name}",
                                      daemon=True)
            self.threads[collector.name] = (thread, time.monotonic())
            thread.start()

    def _run(self, collector: Collector, record) -> None:
        start = time.monotonic()
        try:
            self.results[collector.name] = collector.run(self.bundle)
            status, error = "ok", None
        except Skipped as exc:
            status, error = "skipped", str(exc)
        except Exception as exc:  # a bug or an environment problem: recorded, never fatal
            status, error = "failed", f"{type(exc).__name__}: {exc}"
            if os.environ.get("AIPERF_DEBUG"):
                traceback.print_exc()
        if record.status == "pending":  # not already marked timeout/interrupted by wait()
            record.status, record.error = status, error
            record.seconds = round(time.monotonic() - start, 3)
            self.on_done(record)

    def step(self, name: str, work: Callable[[], Any]) -> Any:
        """One bundle part run here and now (telemetry, workload, bench, findings, report, redaction),
        recorded like a collector: status, seconds, error. An InputError (a full disk) still stops the run."""
        from aiperf_lab.errors import InputError

        record = self.bundle.record(name)
        start = time.monotonic()
        result = None
        try:
            result = work()
            if record.status == "pending":
                record.status = "ok"
        except Skipped as exc:
            record.status, record.error = "skipped", str(exc)
        except InputError:
            raise
        except Exception as exc:
            record.status, record.error = "failed", f"{type(exc).__name__}: {exc}"
            if os.environ.get("AIPERF_DEBUG"):
                traceback.print_exc()
        record.seconds = round(time.monotonic() - start, 3)
        self.results[name] = result
        self.on_done(record)
        return result

    def wait(self, deadline: float | None = None, stop: threading.Event | None = None) -> None:
        """Wait for every collector up to its own time limit (and `deadline`, and `stop`)."""
        for collector in self.collectors:
            thread, started = self.threads[collector.name]
            limit = started + collector.timeout_s
            if deadline is not None:
                limit = min(limit, deadline)
            while thread.is_alive() and time.monotonic() < limit and not (stop and stop.is_set()):
                thread.join(timeout=0.1)
            record = self.bundle.record(collector.name)
            if thread.is_alive() and record.status == "pending":
                interrupted = stop is not None and stop.is_set()
                record.status = "skipped" if interrupted else "timeout"
                record.error = "interrupted (a stop signal)" if interrupted else f"no result within {collector.timeout_s:.0f} s"
                record.seconds = round(time.monotonic() - started, 3)
                self.on_done(record)

    def pending(self) -> list[str]:
        return [name for name, (thread, _s) in self.threads.items() if thread.is_alive()]
