"""`nvidia-smi topo -m` as a matrix: GPU-to-GPU links, and each GPU's CPU and NUMA affinity."""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def parse_topo_matrix(text: str) -> dict:
    """{"columns": [...], "rows": {name: {column: value}}} from the matrix part (before "Legend")."""
    lines = [line for line in strip_ansi(text).splitlines()]
    body = []
    for line in lines:
        if line.strip().startswith("Legend"):
            break
        if line.strip():
            body.append(line)
    if not body:
        return {"columns": [], "rows": {}}
    header = [cell.strip() for cell in body[0].split("\t") if cell.strip()]
    rows = {}
    for line in body[1:]:
        cells = line.split("\t")
        name = cells[0].strip()
        values = [c.strip() for c in cells[1:] if c.strip()]  # nvidia-smi pads some cells with two tabs
        rows[name] = {column: (values[i] if i < len(values) else "") for i, column in enumerate(header)}
    return {"columns": header, "rows": rows}


def gpu_affinity(matrix: dict) -> dict[str, dict[str, str]]:
    """Per GPU row: its CPU affinity and NUMA affinity (as nvidia-smi prints them)."""
    out = {}
    for name, row in matrix.get("rows", {}).items():
        if name.startswith("GPU"):
            out[name] = {"cpu_affinity": row.get("CPU Affinity", ""), "numa_affinity": row.get("NUMA Affinity", "")}
    return out


def cpu_list(spec: str) -> set[int]:
    """'0-3,8,10-11' -> {0,1,2,3,8,10,11}; empty for N/A."""
    cpus: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if re.fullmatch(r"\d+-\d+", part):
            a, b = map(int, part.split("-"))
            cpus.update(range(a, b + 1))
        elif part.isdigit():
            cpus.add(int(part))
    return cpus
