"""What the machine is: GPU capabilities through NVML (and PyTorch or cuda-python when importable),
CPU, memory, NUMA, kernel, OS, virtualization, CPU governor, transparent huge pages.

Every fact that cannot be read is recorded as None with nothing raised, so one missing file or one
unsupported query never hides the rest.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from pathlib import Path
from typing import Any

from aiperf_lab.triage.commands import run_command

ARCHITECTURES = {2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere", 8: "Ada",
                 9: "Hopper", 10: "Blackwell"}  # nvmlDeviceGetArchitecture values


def gpu_capabilities(nvml: Any = None) -> dict[str, Any]:
    """Per GPU and system-wide NVML facts; {"status": reason} when there is no usable driver.
    `nvml`: a pynvml-like module (tests pass a fake); None imports nvidia-ml-py."""
    from aiperf_lab.metrics.telemetry.nvml import Nvml

    session = Nvml.open(nvml)
    if session.module is None:
        return {"status": session.status, "gpus": []}
    try:
        system = {
            "driver_version": session.call("nvmlSystemGetDriverVersion"),
            "cuda_driver_version": _cuda_version(session.call("nvmlSystemGetCudaDriverVersion")),
            "nvml_version": session.call("nvmlSystemGetNVMLVersion"),
        }
        gpus = [_gpu(session, i) for i in range(session.device_count)]
    finally:
        session.close()
    return {"status": "ok", **system, "gpus": gpus}


def _cuda_version(value: int | None) -> str | None:
    return f"{value // 1000}.{value % 1000 // 10}" if isinstance(value, int) else None


def _gpu(session: Any, index: int) -> dict[str, Any]:
    def call(function: str, *args: Any) -> Any:
        return session.device_call(index, function, *args)

    if index in session.no_handle:
        return {"index": index, "error": f"no handle: {session.no_handle[index]}"}
    mem = call("nvmlDeviceGetMemoryInfo")
    cc = call("nvmlDeviceGetCudaComputeCapability")
    arch = call("nvmlDeviceGetArchitecture")
    constraints = call("nvmlDeviceGetPowerManagementLimitConstraints")
    ecc = call("nvmlDeviceGetEccMode")
    mig = call("nvmlDeviceGetMigMode")
    remapped = call("nvmlDeviceGetRemappedRows")
    links = []
    for link in range(session.constant("NVML_NVLINK_MAX_LINKS", 18)):
        state = call("nvmlDeviceGetNvLinkState", link)
        if state is None:
            break
        links.append({"link": link, "active": bool(state), "version": call("nvmlDeviceGetNvLinkVersion", link)})
    milli = lambda v: v / 1000.0 if isinstance(v, (int, float)) else None  # noqa: E731
    return {
        "index": index,
        "name": call("nvmlDeviceGetName"),
        "uuid": call("nvmlDeviceGetUUID"),
        "pci_bus_id": getattr(call("nvmlDeviceGetPciInfo"), "busId", None),
        "architecture": ARCHITECTURES.get(arch, arch),
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "memory_total_bytes": getattr(mem, "total", None),
        "cuda_cores": call("nvmlDeviceGetNumGpuCores"),
        "max_sm_clock_mhz": call("nvmlDeviceGetMaxClockInfo", 1),
        "max_mem_clock_mhz": call("nvmlDeviceGetMaxClockInfo", 2),
        "power_limit_default_w": milli(call("nvmlDeviceGetPowerManagementDefaultLimit")),
        "power_limit_min_w": milli(constraints[0]) if constraints else None,
        "power_limit_max_w": milli(constraints[1]) if constraints else None,
        "power_limit_enforced_w": milli(call("nvmlDeviceGetEnforcedPowerLimit")),
        "ecc_mode_current": bool(ecc[0]) if ecc else None,
        "ecc_errors_corrected_volatile": call("nvmlDeviceGetTotalEccErrors", 0, 0),
        "ecc_errors_uncorrected_volatile": call("nvmlDeviceGetTotalEccErrors", 1, 0),
        "ecc_errors_corrected_aggregate": call("nvmlDeviceGetTotalEccErrors", 0, 1),
        "ecc_errors_uncorrected_aggregate": call("nvmlDeviceGetTotalEccErrors", 1, 1),
        "retired_pages_pending": call("nvmlDeviceGetRetiredPagesPendingStatus"),
        "remapped_rows": {"correctable": remapped[0], "uncorrectable": remapped[1], "pending": bool(remapped[2]),
                          "failure": bool(remapped[3])} if remapped else None,
        "mig_mode_current": bool(mig[0]) if mig else None,
        "persistence_mode": bool(p) if (p := call("nvmlDeviceGetPersistenceMode")) is not None else None,
        "compute_mode": {0: "Default", 1: "Exclusive Thread", 2: "Prohibited", 3: "Exclusive Process"}.get(
            call("nvmlDeviceGetComputeMode")),
        "pcie_gen_current": call("nvmlDeviceGetCurrPcieLinkGeneration"),
        "pcie_gen_max": call("nvmlDeviceGetMaxPcieLinkGeneration"),
        "pcie_width_current": call("nvmlDeviceGetCurrPcieLinkWidth"),
        "pcie_width_max": call("nvmlDeviceGetMaxPcieLinkWidth"),
        "nvlinks": links,
        "vbios_version": call("nvmlDeviceGetVbiosVersion"),
    }


# Run in a child process: importing torch takes seconds and initialises CUDA, which the triage
# process itself should not do.
DEVICE_ATTRIBUTE_PROBE = r"""
import json
out = {}
try:
    import torch
    out["torch"] = torch.__version__
    out["torch_cuda"] = torch.version.cuda
    out["cudnn"] = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    try:
        out["nccl"] = ".".join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else None
    except Exception:
        out["nccl"] = None
    devices = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            entry = {"index": i, "name": p.name, "sm_count": p.multi_processor_count,
                     "compute_capability": f"{p.major}.{p.minor}", "total_memory_bytes": p.total_memory}
            for attr, key in (("L2_cache_size", "l2_cache_bytes"), ("shared_memory_per_block", "shared_memory_per_block_bytes"),
                              ("shared_memory_per_block_optin", "shared_memory_per_block_optin_bytes"),
                              ("shared_memory_per_multiprocessor", "shared_memory_per_sm_bytes"),
                              ("regs_per_multiprocessor", "registers_per_sm"), ("warp_size", "warp_size"),
                              ("max_threads_per_multi_processor", "max_threads_per_sm")):
                if hasattr(p, attr):
                    entry[key] = getattr(p, attr)
            entry["thread_block_clusters"] = p.major >= 9
            entry["tma"] = p.major >= 9
            devices.append(entry)
    out["devices"] = devices
except Exception as exc:
    out["torch_error"] = f"{type(exc).__name__}: {exc}"
try:
    import triton
    out["triton"] = triton.__version__
except Exception:
    out["triton"] = None
try:
    from cuda.bindings import driver
    out["cuda_python"] = True
except Exception:
    out["cuda_python"] = False
print(json.dumps(out))
"""


def device_attributes(timeout_s: float = 60.0) -> dict[str, Any]:
    """PyTorch's view of the devices (SM count, L2, shared memory, registers) and library versions."""
    result = run_command([sys.executable, "-c", DEVICE_ATTRIBUTE_PROBE], timeout_s=timeout_s)
    if not result.ok:
        return {"error": result.describe()}
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"error": "the probe printed no result"}


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _bracketed(text: str | None) -> str | None:
    """'always [madvise] never' -> 'madvise'."""
    if not text:
        return None
    match = re.search(r"\[(\w+)\]", text)
    return match.group(1) if match else text


def host_facts() -> dict[str, Any]:
    cpuinfo = _read("/proc/cpuinfo") or ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")), None)
    sockets = {line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("physical id")}
    meminfo = dict(line.split(":", 1) for line in (_read("/proc/meminfo") or "").splitlines() if ":" in line)
    mem_kb = meminfo.get("MemTotal", "").split()[0] if meminfo.get("MemTotal") else None
    numa_nodes = sorted(p.name for p in Path("/sys/devices/system/node").glob("node[0-9]*")) \
        if Path("/sys/devices/system/node").is_dir() else []
    os_release = dict(line.split("=", 1) for line in (_read("/etc/os-release") or "").splitlines() if "=" in line)
    governor = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    return {
        "cpu_model": model or platform.processor() or None,
        "sockets": len(sockets) or None,
        "logical_cpus": os.cpu_count(),
        "numa_nodes": len(numa_nodes) or None,
        "memory_total_bytes": int(mem_kb) * 1024 if mem_kb else None,
        "kernel": platform.release(),
        "os": os_release.get("PRETTY_NAME", "").strip('"') or platform.platform(),
        "virtualization": virtualization(cpuinfo),
        "cpu_governor": governor or "not exposed (no cpufreq in /sys: typical of VMs)",
        "transparent_hugepage": _bracketed(_read("/sys/kernel/mm/transparent_hugepage/enabled")),
        "python": sys.version.split()[0],
    }


def virtualization(cpuinfo: str = "") -> str:
    """container, VM or bare metal, from what the kernel exposes (no root needed)."""
    kinds = []
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        kinds.append("container")
    cgroup = _read("/proc/1/cgroup") or ""
    if any(word in cgroup for word in ("docker", "kubepods", "containerd", "lxc")) and "container" not in kinds:
        kinds.append("container")
    if " hypervisor" in cpuinfo or "hypervisor" in (cpuinfo.split("flags", 1)[-1][:4000] if cpuinfo else ""):
        vendor = (_read("/sys/class/dmi/id/sys_vendor") or "").strip()
        kinds.append(f"virtual machine{' (' + vendor + ')' if vendor else ''}")
    return " in ".join(kinds) if kinds else "bare metal (no container or hypervisor flag seen)"


def capability_text(gpu: dict[str, Any], attributes: dict[str, Any], host: dict[str, Any]) -> str:
    """hardware_capabilities.txt: the same facts as the JSON, for reading."""
    lines = ["# Hardware capabilities", ""]
    lines.append(f"NVML status: {gpu.get('status')}")
    for key in ("driver_version", "cuda_driver_version", "nvml_version"):
        if key in gpu:
            lines.append(f"{key.replace('_', ' ')}: {gpu.get(key)}")
    by_index = {d.get("index"): d for d in attributes.get("devices", []) or []}
    for g in gpu.get("gpus", []):
        lines += ["", f"## GPU {g.get('index')}: {g.get('name')}"]
        for key, value in g.items():
            if key in ("index", "name", "nvlinks"):
                continue
            lines.append(f"  {key}: {value}")
        links = g.get("nvlinks") or []
        lines.append(f"  nvlinks: {sum(1 for l in links if l['active'])} active of {len(links)}"
                     + (f" (version {links[0]['version']})" if links else ""))
        for key, value in by_index.get(g.get("index"), {}).items():
            if key not in ("index", "name"):
                lines.append(f"  {key} (torch): {value}")
    lines += ["", "## Software"]
    for key in ("torch", "torch_cuda", "cudnn", "nccl", "triton", "cuda_python", "torch_error", "error"):
        if key in attributes:
            lines.append(f"  {key}: {attributes[key]}")
    lines += ["", "## Host"]
    lines += [f"  {key}: {value}" for key, value in host.items()]
    return "\n".join(lines) + "\n"
