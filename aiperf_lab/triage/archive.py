"""Reading bundles without extracting them: `show` and `compare`.

Anything that is not a bundle is refused with one line: not a gzip tar, no manifest, a member with
an absolute path or "..", a link or device, or members outside the bundle's one top folder.
"""

from __future__ import annotations

import json
import re
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any

from aiperf_lab.errors import InputError
from aiperf_lab.triage.bundle import MANIFEST

MAX_MEMBER_BYTES = 64 * 1024 * 1024  # what show/compare will read of one member


class Bundle:
    def __init__(self, path: Path):
        self.path = path
        if not path.exists():
            raise InputError(f"{path}: no such file")
        if path.is_dir():
            raise InputError(f"{path}: is a directory, not a triage archive")
        try:
            self._tar = tarfile.open(path, "r:gz")
            members = self._tar.getmembers()
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise InputError(f"{path}: not a triage archive (not a readable .tar.gz: {exc})") from None
        tops = set()
        self._members: dict[str, tarfile.TarInfo] = {}
        for member in members:
            name = PurePosixPath(member.name)
            if name.is_absolute() or ".." in name.parts or member.name.startswith(("/", "\\")):
                raise InputError(f"{path}: refused: unsafe member name {member.name!r}")
            if not (member.isfile() or member.isdir()):
                raise InputError(f"{path}: refused: member {member.name!r} is a link or device, not a file")
            tops.add(name.parts[0])
            if member.isfile():
                self._members["/".join(name.parts[1:])] = member
        if len(tops) != 1:
            raise InputError(f"{path}: not a triage archive (expected one top folder, found {len(tops)})")
        if MANIFEST not in self._members:
            raise InputError(f"{path}: not a triage archive (no {MANIFEST})")
        try:
            self.manifest = json.loads(self.read_text(MANIFEST))
        except json.JSONDecodeError:
            raise InputError(f"{path}: not a triage archive ({MANIFEST} is not JSON)") from None
        if not isinstance(self.manifest, dict) or self.manifest.get("tool") != "aiperf-triage":
            raise InputError(f"{path}: not a triage archive ({MANIFEST} is not aiperf-triage's)")

    def names(self) -> list[str]:
        return sorted(self._members)

    def read_text(self, name: str) -> str:
        member = self._members.get(name)
        if member is None:
            raise KeyError(name)
        if member.size > MAX_MEMBER_BYTES:
            raise InputError(f"{self.path}: member {name} is {member.size} bytes, too large to read")
        handle = self._tar.extractfile(member)
        return handle.read().decode("utf-8", "replace") if handle else ""

    def json(self, name: str) -> Any:
        try:
            return json.loads(self.read_text(name))
        except (KeyError, json.JSONDecodeError):
            return None

    def close(self) -> None:
        self._tar.close()


def show(path: Path) -> str:
    bundle = Bundle(path)
    try:
        try:
            return bundle.read_text("summary.md")
        except KeyError:
            return _manifest_text(bundle.manifest)
    finally:
        bundle.close()


def _manifest_text(manifest: dict) -> str:
    """A bundle without summary.md, from its manifest: one readable line per part, never a raw dict."""
    def known(value: Any) -> str:
        return "unknown" if value is None or value == "" else str(value)

    lines = [f"# {known(manifest.get('host'))} ({known(manifest.get('start_utc'))})", "(no summary.md in this bundle)"]
    capture = manifest.get("capture")
    if isinstance(capture, dict) and capture.get("text"):
        lines.append(f"nsys: {capture['text']}")
    collectors = manifest.get("collectors")
    for c in collectors if isinstance(collectors, list) else []:
        if isinstance(c, dict):
            note = f": {c['error']}" if c.get("error") else ""
            lines.append(f"- {known(c.get('name'))}: {known(c.get('status'))}, {known(c.get('seconds'))} s{note}")
    return "\n".join(lines) + "\n"


COMPARE_FIELDS = [
    ("GPU model", lambda b: _gpus(b, "name")),
    ("GPU count", lambda b: str(len((b.get("hw") or {}).get("nvml", {}).get("gpus", [])))),
    ("driver", lambda b: (b.get("hw") or {}).get("nvml", {}).get("driver_version")),
    ("CUDA (driver)", lambda b: (b.get("hw") or {}).get("nvml", {}).get("cuda_driver_version")),
    ("power limit (W)", lambda b: _gpus(b, "power_limit_enforced_w")),
    ("max SM clock (MHz)", lambda b: _gpus(b, "max_sm_clock_mhz")),
    ("PCIe now", lambda b: _gpus(b, "pcie_gen_current", "pcie_width_current")),
    ("PCIe max", lambda b: _gpus(b, "pcie_gen_max", "pcie_width_max")),
    ("NVLinks active", lambda b: ",".join(str(sum(1 for link in g.get("nvlinks") or [] if link.get("active")))
                                          for g in (b.get("hw") or {}).get("nvml", {}).get("gpus", [])) or None),
    ("persistence", lambda b: _gpus(b, "persistence_mode")),
    ("ECC uncorrected", lambda b: _gpus(b, "ecc_errors_uncorrected_aggregate")),
    ("topology", lambda b: _topology(b)),
    ("bench bf16 TFLOP/s", lambda b: _bench_gpus(b, "bf16_matmul_tflops", "bf16_matmul_tflops")),
    ("bench fp32 TFLOP/s", lambda b: _bench_gpus(b, "fp32_matmul_tflops", "fp32_matmul_tflops")),
    ("bench copy TB/s", lambda b: _bench_gpus(b, "copy_tb_s", "device_copy_tb_s")),
    ("bench H2D GB/s", lambda b: _bench_hosts(b, "h2d_gb_s", "h2d_pinned_gb_s")),
    ("bench D2H GB/s", lambda b: _bench_hosts(b, "d2h_gb_s", "d2h_pinned_gb_s")),
    ("bench GPU pairs GB/s (min-max)", lambda b: _bench_pairs(b)),
    *[(f"NCCL {op.replace('_', '-')} busbw GB/s @ {label}", (lambda o, n: lambda b: _bench_nccl(b, o, n))(op, size))
      for op in ("all_reduce", "all_gather") for label, size in (("1 KiB", 1 << 10), ("1 MiB", 1 << 20),
                                                                 ("64 MiB", 1 << 26), ("1 GiB", 1 << 30))],
    ("mean power (W)", lambda b: _telemetry(b, "avg_power_w")),
    ("mean util (%)", lambda b: _telemetry(b, "util_gpu_avg_pct")),
    ("max temp (C)", lambda b: _telemetry(b, "temp_max_c")),
    ("power-capped (%)", lambda b: _telemetry(b, "clock_event_power_cap_pct")),
    ("findings", lambda b: ",".join(sorted({f["id"] for f in b.get("findings") or []})) or "none"),
]


def _bench_tables(b: dict) -> dict:
    bench = b.get("bench")
    tables = bench.get("tables") if isinstance(bench, dict) else None
    return tables if isinstance(tables, dict) else {}


def _bench_gpus(b: dict, key: str, old_key: str) -> str | None:
    """Per GPU, in order; bundles from before the node bench had one figure for GPU 0."""
    rows = [r for r in _bench_tables(b).get("bench_gpus") or [] if isinstance(r, dict) and r.get("key") == key]
    if rows:
        return ",".join(str(r.get("value")) for r in rows)
    old = b.get("bench")
    return str(old.get(old_key)) if isinstance(old, dict) and old.get(old_key) is not None else None


def _bench_hosts(b: dict, key: str, old_key: str) -> str | None:
    rows = [r for r in _bench_tables(b).get("bench_host_links") or [] if isinstance(r, dict)]
    if rows:
        return ",".join(str(r.get(key)) for r in rows)
    old = b.get("bench")
    return str(old.get(old_key)) if isinstance(old, dict) and old.get(old_key) is not None else None


def _bench_pairs(b: dict) -> str | None:
    values = [r.get("gb_s") for r in _bench_tables(b).get("bench_pairs") or []
              if isinstance(r, dict) and isinstance(r.get("gb_s"), (int, float))]
    return f"{min(values)}-{max(values)}" if values else None


def _bench_nccl(b: dict, op: str, size: int) -> str | None:
    for r in _bench_tables(b).get("bench_nccl") or []:
        if isinstance(r, dict) and r.get("op") == op and r.get("bytes") == size:
            return f"{r.get('busbw_gb_s')} ({r.get('ranks')} GPUs)"
    return None


def _gpus(b: dict, *keys: str) -> str | None:
    gpus = (b.get("hw") or {}).get("nvml", {}).get("gpus", [])
    values = ["x".join(str(g.get(k)) for k in keys) if len(keys) > 1 else str(g.get(keys[0])) for g in gpus]
    return ",".join(values) if values else None


def _telemetry(b: dict, key: str) -> str | None:
    rows = b.get("telemetry") or []
    return ",".join(str(r.get(key)) for r in rows) if rows else None


def _topology(b: dict) -> str | None:
    topo = b.get("topology") or {}
    rows = topo.get("matrix", {}).get("rows", {})
    links = sorted({v for row in rows.values() for col, v in row.items() if re.fullmatch(r"GPU\d+", col) and v != "X"})
    return ",".join(links) if links else ("single GPU" if rows else None)


def _rows(document: Any) -> list[dict]:
    """telemetry_summary.json holds {"devices": [...]}, findings.json a plain list: rows either way."""
    if isinstance(document, dict):
        document = document.get("devices")
    return [row for row in document if isinstance(row, dict)] if isinstance(document, list) else []


def compare(paths: list[Path]) -> tuple[list[str], list[list[str]], list[set[int]]]:
    """(bundle labels, rows of [field, value per bundle], per row the columns that differ from the rest)."""
    if len(paths) < 2:
        raise InputError("compare needs at least two bundles")
    loaded = []
    for path in paths:
        bundle = Bundle(path)
        try:
            loaded.append({"label": f"{bundle.manifest.get('host')} {bundle.manifest.get('start_utc', '')[:16]}",
                           "hw": bundle.json("hardware_capabilities.json"), "bench": bundle.json("bench.json"),
                           "telemetry": _rows(bundle.json("telemetry_summary.json")),
                           "findings": _rows(bundle.json("findings.json")),
                           "topology": bundle.json("topology/topology.json")})
        finally:
            bundle.close()
    rows, odd = [], []
    for label, getter in COMPARE_FIELDS:
        values = [str(getter(b)) if getter(b) is not None else "-" for b in loaded]
        rows.append([label, *values])
        counts = {v: values.count(v) for v in values}
        majority = max(counts.values())
        # flag the values that differ from the most common one (a tie flags every value)
        odd.append({i for i, v in enumerate(values) if counts[v] < majority or (majority * 2 <= len(values) and len(counts) > 1)}
                   if len(counts) > 1 else set())
    return [b["label"] for b in loaded], rows, odd
