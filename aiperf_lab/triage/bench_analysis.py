"""What the node bench's figures mean: each GPU against the node's median and its datasheet, each GPU
pair against what its link promises, the NCCL sweep in nccl-tests' terms, and the findings.

Pure functions over the worker's JSON records (triage/bench_worker.py) and the facts triage already
collected (NVML per GPU, the `nvidia-smi topo -m` matrix, `nvidia-smi nvlink -s`); no GPU needed.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from aiperf_lab.metrics.nominal import nominal_for, pcie_nominal_gb_s
from aiperf_lab.triage.findings import Finding

# A GPU this far under the node's median, on any of its figures, is called out (issue: "slow node").
UNDER_MEDIAN = 0.10
# Copy-engine copies between GPUs reach about 75-90% of an NVLink's per-direction rate and 80-90% of a
# PCIe link's; under this share of what the link promises, the pair is called out.
LINK_FLOOR = 0.60
# Pinned host copies: under this share of the PCIe link's per-direction rate.
HOST_FLOOR = 0.60
# NCCL: the largest all-reduce's bus bandwidth under this share of the slowest GPU pair's link.
NCCL_FLOOR = 0.50
# NVLink per-link, per-direction rate when nvidia-smi does not print one (GB/s), by NVML's version enum:
# NVLink 2.0/2.2 (V100), 3.0/3.1 (A100), 4.0 (H100/H200) 25; 5.0 (B200) 50. Others (NVLink 1, 6.0): not
# known here, so the pair is not judged against its link.
NVLINK_GB_S_BY_NVML_VERSION = {2: 25.0, 3: 25.0, 4: 25.0, 5: 25.0, 6: 25.0, 7: 50.0}
GPU_FIGURES = (("copy_tb_s", "device copy (TB/s)", "memory_tb_s"),
               ("bf16_matmul_tflops", "bf16 matmul (TFLOP/s)", "bf16_matmul_tflops"),
               ("fp32_matmul_tflops", "fp32 matmul (TFLOP/s)", "fp32_matmul_tflops"))


def bus_factor(op: str, ranks: int) -> float:
    """nccl-tests' busBw / algBw: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter,
    1 for broadcast and reduce."""
    if ranks < 1:
        raise ValueError("ranks must be positive")
    if op == "all_reduce":
        return 2 * (ranks - 1) / ranks
    if op in ("all_gather", "reduce_scatter"):
        return (ranks - 1) / ranks
    if op in ("broadcast", "reduce"):
        return 1.0
    raise ValueError(f"unknown collective {op!r}")


@dataclass
class NodeBench:
    """Everything --bench measured, grouped; `phases` holds each phase's status, seconds and error."""
    gpus: list[dict[str, Any]] = field(default_factory=list)
    host_links: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    nccl: list[dict[str, Any]] = field(default_factory=list)
    nccl_info: dict[str, Any] = field(default_factory=dict)
    phases: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, record: Mapping[str, Any]) -> None:
        """One worker line."""
        kind = record.get("kind")
        body = {k: v for k, v in record.items() if k != "kind"}
        if kind == "gpu":
            self.gpus.append(body)
        elif kind == "host_link":
            self.host_links.append(body)
        elif kind == "pair":
            self.pairs.append(body)
        elif kind == "nccl":
            self.nccl.append(body)
        elif kind == "nccl_start":
            self.nccl_info.update(body)
        elif kind in ("skipped", "truncated", "note", "error"):
            phase = str(record.get("phase", "?"))
            text = record.get("reason") or record.get("note") or record.get("error") or ""
            where = f" ({record['at']})" if record.get("at") else ""
            self.notes.append(f"{phase}: {kind} {text}{where}".strip())

    def as_dict(self) -> dict[str, Any]:
        return {"gpus": self.gpus, "host_links": self.host_links, "pairs": self.pairs, "nccl": self.nccl,
                "nccl_info": self.nccl_info, "phases": self.phases, "notes": self.notes}


def _by_uuid(hardware_gpus: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(g["uuid"]): g for g in hardware_gpus if isinstance(g, Mapping) and g.get("uuid")}


def _by_index(records: Iterable[Mapping[str, Any]], *keys: str) -> list[Mapping[str, Any]]:
    """`records` in GPU order (`keys`: the index fields, e.g. src then dst), as the workers' finishing order is
    not: a Bench table listed GPU 1 before GPU 0. Records without an index go last, in their order."""
    def key(record: Mapping[str, Any]) -> tuple:
        values = [record.get(k) for k in keys]
        return tuple((0, v) if isinstance(v, int) and not isinstance(v, bool) else (1, 0) for v in values)
    return sorted(records, key=key)


def _nvml_index(record: Mapping[str, Any], hardware: dict[str, Mapping[str, Any]]) -> int | None:
    gpu = hardware.get(str(record.get("uuid")))
    if gpu is not None and isinstance(gpu.get("index"), int):
        return gpu["index"]
    return None


def gpu_rows(bench: NodeBench, hardware_gpus: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Per GPU and figure: the value, the node's median, the share of the median, and the share of the
    datasheet figure (None where the device is not in the datasheet table)."""
    hardware = _by_uuid(hardware_gpus)
    rows = []
    for key, label, nominal_key in GPU_FIGURES:
        values = [g[key] for g in bench.gpus if isinstance(g.get(key), (int, float))]
        if not values:
            continue
        median = statistics.median(values)
        for g in _by_index(bench.gpus, "index"):
            value = g.get(key)
            if not isinstance(value, (int, float)):
                continue
            hw = hardware.get(str(g.get("uuid")), {})
            nominal = nominal_for(g.get("name"), hw.get("memory_total_bytes"))
            paper = nominal.get(nominal_key) if nominal else None
            rows.append({"gpu": g.get("index"), "nvml_index": _nvml_index(g, hardware), "name": g.get("name"),
                         "figure": label, "key": key, "value": value, "node_median": round(median, 3),
                         "of_median": round(value / median, 3) if median else None,
                         "datasheet": paper, "of_datasheet": round(value / paper, 3) if paper else None})
    return rows


def gpu_findings(rows: list[dict[str, Any]], gpu_count: int) -> list[Finding]:
    """A GPU more than 10% under the node's median on any figure (needs two GPUs or more)."""
    if gpu_count < 2:
        return []
    found = []
    for row in rows:
        share = row.get("of_median")
        if share is not None and share < 1 - UNDER_MEDIAN:
            found.append(Finding(
                "bench_gpu_under_median", "warning",
                f"GPU {row['gpu']}: {row['figure']} {row['value']} is {100 * (1 - share):.0f}% under the node's median",
                f"Measured at the same time on every GPU: {row['value']} against a median of {row['node_median']} "
                f"over {gpu_count} GPUs (the bench flags anything more than {UNDER_MEDIAN:.0%} under). Look at its "
                "clocks and clock-event reasons during the bench (power or thermal capping), its PCIe/NVLink state "
                "and ECC/remapped rows; rerun to confirm.",
                {k: row[k] for k in ("gpu", "figure", "value", "node_median", "of_median")}))
    return found


_NV_LINKS = re.compile(r"^NV(\d+)$")
_LINK_SPEED = re.compile(r"Link\s+\d+\s*:\s*([0-9.]+)\s*GB/s")


def nvlink_speed_gb_s(nvlink_status: str | None) -> float | None:
    """Per-link rate from `nvidia-smi nvlink -s` (the most common figure over active links)."""
    speeds = [float(m) for m in _LINK_SPEED.findall(nvlink_status or "")]
    return statistics.mode(speeds) if speeds else None


def link_expectation(src: Mapping[str, Any] | None, dst: Mapping[str, Any] | None, matrix: Mapping[str, Any],
                     link_speed: float | None) -> dict[str, Any]:
    """What the link between two GPUs (NVML facts) promises per direction, from the topology matrix:
    NV# links times the per-link rate, or the slower GPU's PCIe link."""
    if not src or not dst:
        return {"link": None, "nominal_gb_s": None, "basis": "GPU not matched to NVML by UUID"}
    cell = str(((matrix.get("rows") or {}).get(f"GPU{src.get('index')}") or {}).get(f"GPU{dst.get('index')}", ""))
    nv = _NV_LINKS.match(cell)
    if nv:
        links = int(nv.group(1))
        per_link, basis = link_speed, "nvidia-smi nvlink -s"
        if per_link is None:
            versions = [l.get("version") for l in src.get("nvlinks") or [] if l.get("active")]
            per_link = NVLINK_GB_S_BY_NVML_VERSION.get(max((v for v in versions if isinstance(v, int)), default=-1))
            basis = "NVLink generation (NVML)"
        if per_link is None:
            return {"link": cell, "nominal_gb_s": None, "basis": "NVLink rate unknown"}
        return {"link": cell, "nominal_gb_s": round(links * per_link, 1), "basis": f"{links} links x {per_link} GB/s ({basis})"}
    rates = [pcie_nominal_gb_s(g.get("pcie_gen_max"), g.get("pcie_width_max")) for g in (src, dst)]
    if all(rates):
        return {"link": cell or "PCIe", "nominal_gb_s": min(rates),
                "basis": f"PCIe gen {min(src.get('pcie_gen_max'), dst.get('pcie_gen_max'))}, the slower GPU's link"}
    return {"link": cell or None, "nominal_gb_s": None, "basis": "link rate unknown"}


def pair_rows(bench: NodeBench, hardware_gpus: Iterable[Mapping[str, Any]], matrix: Mapping[str, Any],
              nvlink_status: str | None) -> list[dict[str, Any]]:
    hardware = _by_uuid(hardware_gpus)
    speed = nvlink_speed_gb_s(nvlink_status)
    rows = []
    for p in _by_index(bench.pairs, "src", "dst"):
        expect = link_expectation(hardware.get(str(p.get("src_uuid"))), hardware.get(str(p.get("dst_uuid"))),
                                  matrix, speed)
        nominal = expect["nominal_gb_s"]
        rows.append({**{k: p.get(k) for k in ("src", "dst", "peer_access", "gb_s", "bidir_gb_s", "small_copy_us")},
                     "link": expect["link"], "nominal_gb_s": nominal, "basis": expect["basis"],
                     "of_nominal": round(p["gb_s"] / nominal, 3) if nominal and isinstance(p.get("gb_s"), (int, float))
                     else None})
    return rows


def pair_findings(rows: list[dict[str, Any]]) -> list[Finding]:
    found = []
    for row in rows:
        share = row.get("of_nominal")
        if share is not None and share < LINK_FLOOR:
            found.append(Finding(
                "bench_link_slow", "warning",
                f"GPU {row['src']} -> GPU {row['dst']}: {row['gb_s']} GB/s is {share:.0%} of its {row['link']} link",
                f"A copy-engine copy between the two GPUs reached {row['gb_s']} GB/s against {row['nominal_gb_s']} GB/s "
                f"per direction promised ({row['basis']}); copies usually reach 75-90%, the bench flags under "
                f"{LINK_FLOOR:.0%}. " + ("Peer access is off between them, so copies go through host memory. "
                                         if row.get("peer_access") is False else "")
                + "Check `nvidia-smi nvlink -s` / `-e` for down links or errors, and the PCIe topology.",
                {k: row[k] for k in ("src", "dst", "gb_s", "nominal_gb_s", "link", "peer_access")}))
    return found


def host_rows(bench: NodeBench, hardware_gpus: Iterable[Mapping[str, Any]],
              affinity: Mapping[str, Mapping[str, str]] | None = None) -> list[dict[str, Any]]:
    hardware = _by_uuid(hardware_gpus)
    rows = []
    for h in _by_index(bench.host_links, "index"):
        hw = hardware.get(str(h.get("uuid")), {})
        nominal = pcie_nominal_gb_s(hw.get("pcie_gen_max"), hw.get("pcie_width_max"))
        numa = ((affinity or {}).get(f"GPU{hw.get('index')}") or {}).get("numa_affinity") if hw else None
        rows.append({"gpu": h.get("index"), "nvml_index": hw.get("index"), "numa_node": numa or None,
                     "cpus": h.get("cpus"), "h2d_gb_s": h.get("h2d_gb_s"), "d2h_gb_s": h.get("d2h_gb_s"),
                     "pcie": f"gen {hw.get('pcie_gen_max')} x{hw.get('pcie_width_max')}" if nominal else None,
                     "nominal_gb_s": nominal,
                     "h2d_of_nominal": round(h["h2d_gb_s"] / nominal, 3) if nominal and h.get("h2d_gb_s") else None,
                     "d2h_of_nominal": round(h["d2h_gb_s"] / nominal, 3) if nominal and h.get("d2h_gb_s") else None})
    return rows


def host_findings(rows: list[dict[str, Any]]) -> list[Finding]:
    found = []
    for row in rows:
        for way in ("h2d", "d2h"):
            share = row.get(f"{way}_of_nominal")
            if share is not None and share < HOST_FLOOR:
                found.append(Finding(
                    "bench_host_link_slow", "warning",
                    f"GPU {row['gpu']}: pinned {way.upper()} {row[f'{way}_gb_s']} GB/s is {share:.0%} of its PCIe link",
                    f"Pinned copies reached {row[f'{way}_gb_s']} GB/s against {row['nominal_gb_s']} GB/s per direction "
                    f"for {row['pcie']} (flagged under {HOST_FLOOR:.0%}; healthy links reach 80-90%). Check the link "
                    "width and generation under load, the NUMA placement of the host buffer, and IOMMU settings.",
                    {k: row[k] for k in ("gpu", f"{way}_gb_s", "nominal_gb_s", "pcie", "numa_node")}))
    return found


def nccl_rows(bench: NodeBench) -> list[dict[str, Any]]:
    """nccl-tests' columns: size, time, algbw = size / time, busbw = algbw x the op's bus factor."""
    rows = []
    for r in bench.nccl:
        size, time_us, ranks = r.get("bytes"), r.get("time_us"), r.get("ranks")
        if not all(isinstance(v, (int, float)) and v > 0 for v in (size, time_us, ranks)):
            continue
        algbw = size / (time_us * 1e-6) / 1e9
        rows.append({"op": r["op"], "bytes": size, "ranks": ranks, "iters": r.get("iters"), "time_us": time_us,
                     "algbw_gb_s": round(algbw, 2), "busbw_gb_s": round(algbw * bus_factor(r["op"], int(ranks)), 2)})
    return rows


def nccl_findings(rows: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> list[Finding]:
    """The largest all-reduce's bus bandwidth against the slowest GPU pair's link."""
    reduces = [r for r in rows if r["op"] == "all_reduce"]
    links = [p["nominal_gb_s"] for p in pairs if p.get("nominal_gb_s")]
    if not reduces or not links:
        return []
    largest = max(reduces, key=lambda r: r["bytes"])
    if largest["bytes"] < 64 << 20:
        return []   # small messages are latency-bound: no verdict on bandwidth
    floor = min(links)
    if largest["busbw_gb_s"] < NCCL_FLOOR * floor:
        return [Finding(
            "bench_nccl_slow", "warning",
            f"NCCL all-reduce bus bandwidth {largest['busbw_gb_s']} GB/s at {largest['bytes'] >> 20} MiB is under "
            f"{NCCL_FLOOR:.0%} of the slowest link ({floor} GB/s)",
            "Bus bandwidth (nccl-tests' busbw, 2(n-1)/n x algbw) should approach the slowest link's per-direction "
            "rate for large messages. Check NCCL_DEBUG=INFO for the transport chosen (P2P/NVLink vs SHM/NET), "
            "NCCL_P2P_DISABLE and the topology.",
            {"bytes": largest["bytes"], "busbw_gb_s": largest["busbw_gb_s"], "slowest_link_gb_s": floor})]
    return []


def phase_telemetry(ticks: Iterable[Any], windows: Mapping[str, tuple[float, float]]) -> list[dict[str, Any]]:
    """Per bench phase and GPU (NVML index): average and peak power, average SM clock and the
    clock-event reasons seen, from the sampler's ticks inside the phase's window."""
    ticks = list(ticks)
    rows = []
    for phase, (t0, t1) in windows.items():
        per_gpu: dict[int, list[Any]] = {}
        for tick in ticks:
            if t0 <= tick.t <= t1:
                for sample in tick.gpus:
                    per_gpu.setdefault(sample.index, []).append(sample)
        for index, samples in sorted(per_gpu.items()):
            power = [s.power_w for s in samples if s.power_w is not None]
            clocks = [s.sm_clock_mhz for s in samples if s.sm_clock_mhz]
            reasons = sorted({name for s in samples for name in s.clock_event_names if name != "idle"})
            rows.append({"phase": phase, "nvml_index": index, "samples": len(samples),
                         "avg_power_w": round(sum(power) / len(power), 1) if power else None,
                         "peak_power_w": round(max(power), 1) if power else None,
                         "avg_sm_clock_mhz": round(sum(clocks) / len(clocks)) if clocks else None,
                         "clock_events": ", ".join(reasons)})
    return rows


@dataclass
class BenchVerdict:
    """The bench's tables (name -> rows of dicts) and findings, ready for the bundle and the report."""
    tables: dict[str, list[dict[str, Any]]]
    findings: list[Finding]


def judge(bench: NodeBench, *, hardware_gpus: Iterable[Mapping[str, Any]] = (), matrix: Mapping[str, Any] | None = None,
          nvlink_status: str | None = None, affinity: Mapping[str, Mapping[str, str]] | None = None,
          ticks: Iterable[Any] = (), windows: Mapping[str, tuple[float, float]] | None = None) -> BenchVerdict:
    hardware_gpus = [g for g in hardware_gpus if isinstance(g, Mapping)]
    gpus = gpu_rows(bench, hardware_gpus)
    pairs = pair_rows(bench, hardware_gpus, matrix or {}, nvlink_status)
    hosts = host_rows(bench, hardware_gpus, affinity)
    sweep = nccl_rows(bench)
    tables = {"bench_gpus": gpus, "bench_host_links": hosts, "bench_pairs": pairs, "bench_nccl": sweep,
              "bench_power": phase_telemetry(ticks, windows or {})}
    findings = gpu_findings(gpus, len(bench.gpus)) + host_findings(hosts) + pair_findings(pairs) + \
        nccl_findings(sweep, pairs)
    return BenchVerdict({k: v for k, v in tables.items() if v}, findings)


def cpus_by_uuid(hardware_gpus: Iterable[Mapping[str, Any]],
                 affinity: Mapping[str, Mapping[str, str]] | None) -> dict[str, str]:
    """Each GPU's CPU list from the topology (`nvidia-smi topo -m`'s CPU Affinity), by UUID."""
    out = {}
    for g in hardware_gpus:
        if isinstance(g, Mapping) and g.get("uuid"):
            cpus = ((affinity or {}).get(f"GPU{g.get('index')}") or {}).get("cpu_affinity") or ""
            if re.fullmatch(r"[0-9,\-]+", cpus):
                out[str(g["uuid"])] = cpus
    return out
