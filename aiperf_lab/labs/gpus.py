"""Which NVML devices a workload used: its CUDA devices matched to NVML by UUID.

CUDA numbers only the GPUs CUDA_VISIBLE_DEVICES shows (as ordinals, UUIDs, unique UUID prefixes or
MIG instances), in its own order, while NVML numbers every GPU by PCI bus; "device 0" in the
workload is NVML device 0 only by chance. The workload reports the UUIDs of the GPUs it used
(labs.result.where_it_ran); these are matched to the sampler's devices, so energy, power and the
datasheet figures describe the GPUs that did the work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence


def normalize_uuid(text: Any) -> str:
    """'GPU-6D0C...' and '6d0c...' name the same GPU; MIG UUIDs keep their MIG- prefix."""
    value = str(text or "").strip().lower()
    return value[4:] if value.startswith("gpu-") else value


@dataclass
class Mapping:
    used: list[Any] = field(default_factory=list)   # sampler devices (GpuInfo), in the workload's order
    notes: list[str] = field(default_factory=list)


def visible_in_cuda_order(devices: Sequence[Any], cuda_visible: str | None,
                          device_order: str | None = None) -> tuple[list[Any], list[str]]:
    """The NVML devices CUDA shows, by CUDA ordinal, and notes where the order is a guess.

    Like CUDA, an entry that names no device ends the list; MIG instances cannot be placed (NVML's
    device list holds their parent GPUs), so they end it too, with a note."""
    notes: list[str] = []
    if cuda_visible is None:
        if len(devices) > 1 and (device_order or "").upper() != "PCI_BUS_ID" \
                and len({getattr(d, "name", None) for d in devices}) > 1:
            notes.append("GPUs of different models and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA may number "
                         "them differently from NVML")
        return list(devices), notes
    chosen: list[Any] = []
    for entry in (e.strip() for e in cuda_visible.split(",")):
        if not entry:
            break
        if entry.lstrip("-").isdigit():
            index = int(entry)
            match = next((d for d in devices if d.index == index), None) if index >= 0 else None
            if match is not None and (device_order or "").upper() != "PCI_BUS_ID" and len(devices) > 1:
                notes.append(f"CUDA_VISIBLE_DEVICES={cuda_visible} gives ordinals and CUDA_DEVICE_ORDER is not "
                             "PCI_BUS_ID: matched to NVML by index (the workload's UUIDs settle it when reported)")
        elif entry.lower().startswith("mig-"):
            notes.append(f"{entry} is a MIG instance: its energy and power are not metered apart from its GPU's")
            break
        else:
            wanted = normalize_uuid(entry)
            found = [d for d in devices if normalize_uuid(getattr(d, "uuid", "")).startswith(wanted)]
            match = found[0] if len(found) == 1 else None
        if match is None:
            break
        if match not in chosen:
            chosen.append(match)
    return chosen, sorted(set(notes))


def used_devices(reported: dict, devices: Sequence[Any], cuda_visible: str | None,
                 device_order: str | None = None, processes: int = 1) -> Mapping:
    """The sampler's devices the workload ran on, from its result line (device, gpu_uuids,
    gpu_ordinals); `processes` > 1 for torchrun, one process per visible GPU."""
    if reported.get("device") != "cuda":
        return Mapping()
    uuids = [normalize_uuid(u) for u in reported.get("gpu_uuids") or [] if u]
    by_uuid = {normalize_uuid(getattr(d, "uuid", "")): d for d in devices if getattr(d, "uuid", None)}
    if uuids and processes <= 1:
        matched = [by_uuid[u] for u in uuids if u in by_uuid]
        if len(matched) == len(uuids):
            return Mapping(matched)
        missing = [u for u in uuids if u not in by_uuid]
        if any(u.startswith("mig-") for u in missing):
            return Mapping([], ["the workload ran on a MIG instance: energy and power are those of the whole GPU "
                                "and are not attributed"])
    visible, notes = visible_in_cuda_order(devices, cuda_visible, device_order)
    ordinals = reported.get("gpu_ordinals") or [0]
    if processes > 1:
        ordinals = list(range(processes))
    chosen = [visible[i] for i in ordinals if isinstance(i, int) and 0 <= i < len(visible)]
    if not chosen:
        notes.append("could not tell which GPU the workload used: no energy, power or datasheet figures")
    elif uuids and processes <= 1:
        notes.append("the workload's GPU UUIDs are not among NVML's: matched by CUDA ordinal instead")
    return Mapping(chosen, notes)
