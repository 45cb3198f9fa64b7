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


def _safe(nvml: Any, function: str, *args: Any) -> Any:
    """nvml.<function>(*args), or None when the call fails or this nvidia-ml-py does not have it."""
    fn = getattr(nvml, function, None)
    if fn is None:
        return None
    try:
        value = fn(*args)
    except Exception:
        return None
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def gpu_capabilities(nvml: Any = None) -> dict[str, Any]:
    """Per GPU and system-wide NVML facts; {"status": reason} when there is no usable driver."""
    if nvml is None:
        try:
            import pynvml as nvml
        except ImportError:
            return {"status": "nvidia-ml-py is not installed", "gpus": []}
    try:
        nvml.nvmlInit()
    except Exception as exc:
        return {"status": f"no NVIDIA driver: {str(exc).strip() or type(exc).__name__}", "gpus": []}
    try:
        system = {
            "driver_version": _safe(nvml, "nvmlSystemGetDriverVersion"),
            "cuda_driver_version": _cuda_version(_safe(nvml, "nvmlSystemGetCudaDriverVersion")),
            "nvml_version": _safe(nvml, "nvmlSystemGetNVMLVersion"),
        }
        count = _safe(nvml, "nvmlDeviceGetCount") or 0
        gpus = [_gpu(nvml, i) for i in range(count)]
    finally:
        _safe(nvml, "nvmlShutdown")
    return {"status": "ok" if gpus else "the driver reports no GPU", **system, "gpus": gpus}


def _cuda_version(value: int | None) -> str | None:
    return f"{value // 1000}.{value % 1000 // 10}" if isinstance(value, int) else None


def _gpu(nvml: Any, index: int) -> dict[str, Any]:
    h = _safe(nvml, "nvmlDeviceGetHandleByIndex", index)
    if h is None:
        return {"index": index, "error": "no handle"}
    mem = _safe(nvml, "nvmlDeviceGetMemoryInfo", h)
    cc = _safe(nvml, "nvmlDeviceGetCudaComputeCapability", h)
    arch = _safe(nvml, "nvmlDeviceGetArchitecture", h)
    constraints = _safe(nvml, "nvmlDeviceGetPowerManagementLimitConstraints", h)
    ecc = _safe(nvml, "nvmlDeviceGetEccMode", h)
    mig = _safe(nvml, "nvmlDeviceGetMigMode", h)
    remapped = _safe(nvml, "nvmlDeviceGetRemappedRows", h)
    links = []
    for link in range(getattr(nvml, "NVML_NVLINK_MAX_LINKS", 18)):
        state = _safe(nvml, "nvmlDeviceGetNvLinkState", h, link)
        if state is None:
            break
        links.append({"link": link, "active": bool(state), "version": _safe(nvml, "nvmlDeviceGetNvLinkVersion", h, link)})
    milli = lambda v: v / 1000.0 if isinstance(v, (int, float)) else None  # noqa: E731
    return {
        "index": index,
        "name": _safe(nvml, "nvmlDeviceGetName", h),
        "uuid": _safe(nvml, "nvmlDeviceGetUUID", h),
        "pci_bus_id": getattr(_safe(nvml, "nvmlDeviceGetPciInfo", h), "busId", None),
        "architecture": ARCHITECTURES.get(arch, arch),
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "memory_total_bytes": getattr(mem, "total", None),
        "cuda_cores": _safe(nvml, "nvmlDeviceGetNumGpuCores", h),
        "max_sm_clock_mhz": _safe(nvml, "nvmlDeviceGetMaxClockInfo", h, 1),
        "max_mem_clock_mhz": _safe(nvml, "nvmlDeviceGetMaxClockInfo", h, 2),
        "power_limit_default_w": milli(_safe(nvml, "nvmlDeviceGetPowerManagementDefaultLimit", h)),
        "power_limit_min_w": milli(constraints[0]) if constraints else None,
        "power_limit_max_w": milli(constraints[1]) if constraints else None,
        "power_limit_enforced_w": milli(_safe(nvml, "nvmlDeviceGetEnforcedPowerLimit", h)),
        "ecc_mode_current": bool(ecc[0]) if ecc else None,
        "ecc_errors_corrected_volatile": _safe(nvml, "nvmlDeviceGetTotalEccErrors", h, 0, 0),
        "ecc_errors_uncorrected_volatile": _safe(nvml, "nvmlDeviceGetTotalEccErrors", h, 1, 0),
        "ecc_errors_corrected_aggregate": _safe(nvml, "nvmlDeviceGetTotalEccErrors", h, 0, 1),
        "ecc_errors_uncorrected_aggregate": _safe(nvml, "nvmlDeviceGetTotalEccErrors", h, 1, 1),
        "retired_pages_pending": _safe(nvml, "nvmlDeviceGetRetiredPagesPendingStatus", h),
        "remapped_rows": {"correctable": remapped[0], "uncorrectable": remapped[1], "pending": bool(remapped[2]),
                          "failure": bool(remapped[3])} if remapped else None,
        "mig_mode_current": bool(mig[0]) if mig else None,
        "persistence_mode": bool(p) if (p := _safe(nvml, "nvmlDeviceGetPersistenceMode", h)) is not None else None,
        "compute_mode": {0: "Default", 1: "Exclusive Thread", 2: "Prohibited", 3: "Exclusive Process"}.get(
            _safe(nvml, "nvmlDeviceGetComputeMode", h)),
        "pcie_gen_current": _safe(nvml, "nvmlDeviceGetCurrPcieLinkGeneration", h),
        "pcie_gen_max": _safe(nvml, "nvmlDeviceGetMaxPcieLinkGeneration", h),
        "pcie_width_current": _safe(nvml, "nvmlDeviceGetCurrPcieLinkWidth", h),
        "pcie_width_max": _safe(nvml, "nvmlDeviceGetMaxPcieLinkWidth", h),
        "nvlinks": links,
        "vbios_version": _safe(nvml, "nvmlDeviceGetVbiosVersion", h),
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
