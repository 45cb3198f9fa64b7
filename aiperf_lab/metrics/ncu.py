"""Nsight Compute output as tables: the long CSV (details page, ``--metrics``), the wide raw CSV
(``--page raw``, with its units row) and ``.ncu-rep`` reports (through ``ncu --import`` or the
``ncu_report`` module).

Real files mix in ``==PROF==`` lines and the program's own stdout, group thousands by locale
("32,768" under en_US, "32768" under C, "27.595.520" in European locales), and put strings in
numeric columns ("no data", "PolicySpread"); all of that is handled here.
"""

from __future__ import annotations

import csv
import math
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from aiperf_lab.errors import InputError, NotAProfile, ToolMissing
from aiperf_lab.inputs import decode_text, read_bounded, read_head
from aiperf_lab.metrics.tables import Table

ID_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC"]
NCU_REP_MAGIC = b"NVR\x00"

# Time units to nanoseconds; ncu writes both short ("us") and long ("usecond") forms.
_TIME_SCALE = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
               "s": 1e9, "second": 1e9}


@dataclass
class Metric:
    value: float | str
    unit: str


@dataclass
class NcuKernel:
    index: int
    name: str
    grid: str = ""
    block: str = ""
    device: str = ""
    cc: str = ""
    metrics: dict[str, Metric] = field(default_factory=dict)  # by metric id and by display label

    def number(self, *keys: str) -> float | None:
        """The first of `keys` present with a numeric value."""
        for key in keys:
            metric = self.metrics.get(key)
            if metric is not None and isinstance(metric.value, float):
                return metric.value
        return None

    def duration_ns(self) -> float | None:
        for key in ("gpu__time_duration.sum", "Duration", "gpu__time_duration.avg"):
            metric = self.metrics.get(key)
            if metric is not None and isinstance(metric.value, float):
                scale = _TIME_SCALE.get(metric.unit)
                if scale is not None:
                    return metric.value * scale
        return None


# --- numbers -------------------------------------------------------------------------------------

_EN = re.compile(r"^[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
_EU = re.compile(r"^[-+]?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$")


def detect_number_style(values: list[str]) -> str:
    """"en" (1,234.5) or "eu" (1.234,5), from the values of one file; en when nothing tells."""
    for text in values:
        if re.fullmatch(r"[-+]?\d+,\d{1,2}", text) or re.fullmatch(r"[-+]?\d+,\d{4,}", text):
            return "eu"  # a decimal comma: not three digits after it
        if re.fullmatch(r"[-+]?\d{1,3}(\.\d{3}){2,}(,\d+)?", text) or re.fullmatch(r"[-+]?\d{1,3}(\.\d{3})+,\d+", text):
            return "eu"
        if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+\.\d+", text) or re.fullmatch(r"[-+]?\d+\.\d{1,2}", text):
            return "en"
    return "en"


def parse_number(text: str, style: str = "en") -> float | str:
    """A float for a number in the file's style, else the text itself ("no data", "PolicySpread")."""
    stripped = text.strip()
    if not stripped:
        return ""
    if style == "en" and _EN.match(stripped):
        return float(stripped.replace(",", ""))
    if style == "eu" and _EU.match(stripped):
        return float(stripped.replace(".", "").replace(",", "."))
    try:
        return float(stripped)  # 1e+06, nan, inf
    except ValueError:
        return stripped


def metric_id(column: str) -> str:
    """The metric id in a raw-page column: "FBSP.TriageCompute.dramc__x.avg" -> "dramc__x.avg"."""
    parts = column.split(".")
    for i, part in enumerate(parts):
        if "__" in part:
            return ".".join(parts[i:])
    return column


# --- CSV -----------------------------------------------------------------------------------------

def _csv_rows(text: str) -> list[list[str]]:
    """Rows of the CSV part: lines that start with a quote (ncu quotes every field)."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    try:
        return list(csv.reader(lines))
    except csv.Error as exc:
        raise InputError(f"malformed ncu CSV ({exc})") from None


def parse_ncu_csv(text: str, source: str = "input") -> list[NcuKernel]:
    rows = _csv_rows(text)
    header_at = next((i for i, row in enumerate(rows) if row[:2] == ["ID", "Process ID"]), None)
    if header_at is None:
        if any(row[:1] in (["Launch Attribute"], ["Session Attribute"]) for row in rows):
            raise NotAProfile(f"{source}: an ncu session page; export kernels with --page details or --page raw")
        raise NotAProfile(f"{source}: not Nsight Compute CSV (no \"ID\",\"Process ID\",... header)")
    header, body = rows[header_at], rows[header_at + 1:]
    if "Metric Name" in header:
        return _parse_long(header, body)
    return _parse_raw(header, body)


def _values_for_style(rows: list[list[str]], start: int) -> list[str]:
    return [cell for row in rows[:200] for cell in row[start:] if any(ch.isdigit() for ch in cell)]


def _kernel_from(row: dict[str, str], index: int) -> NcuKernel:
    return NcuKernel(index, row.get("Kernel Name", ""), row.get("Grid Size", ""), row.get("Block Size", ""),
                     row.get("Device", ""), row.get("CC", ""))


def _parse_long(header: list[str], body: list[list[str]]) -> list[NcuKernel]:
    col = {name: i for i, name in enumerate(header)}
    needed = ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
    if any(name not in col for name in needed):
        raise InputError("ncu CSV lacks one of the columns " + ", ".join(needed))
    width = col["Metric Value"] + 1
    # Metric rows stop after "Metric Value" (a trailing comma, no rule fields), rule rows run to the end;
    # anything else (a program line that happened to start with a quote) is not ncu's.
    body = [row for row in body if len(row) >= width and row[0].isdigit()]
    style = detect_number_style([r[col["Metric Value"]] for r in body[:2000]])
    section_at = col.get("Section Name")
    id_at, name_at, unit_at, value_at = (col[name] for name in ("ID", "Metric Name", "Metric Unit", "Metric Value"))
    kernels: dict[str, NcuKernel] = {}
    for row in body:  # by index: a dict per row was half the parse of a 3,000-kernel file
        kernel = kernels.get(row[id_at])
        if kernel is None:
            kernel = kernels[row[id_at]] = _kernel_from(dict(zip(header, row)), len(kernels))
        name = row[name_at]
        if not name:
            continue  # a rule-result row (Rule Name/Type filled, metric fields empty)
        metric = Metric(parse_number(row[value_at], style), row[unit_at])
        # A label can repeat across sections ("Memory Throughput" is % in Speed Of Light and Gbyte/s in
        # Memory Workload Analysis): the first keeps the bare label, each is also kept as section/label.
        kernel.metrics.setdefault(name, metric)
        if section_at is not None:
            kernel.metrics[f"{row[section_at]}/{name}"] = metric
    return list(kernels.values())


def _parse_raw(header: list[str], body: list[list[str]]) -> list[NcuKernel]:
    if header[:len(ID_COLUMNS)] == ID_COLUMNS:
        n_id = len(ID_COLUMNS)
    elif "CC" in header and "Kernel Name" in header:
        n_id = header.index("CC") + 1
    else:
        raise InputError("ncu CSV header lacks the kernel identification columns (ID ... Kernel Name ... CC)")
    name_at = header.index("Kernel Name")
    units = [""] * len(header)
    data = []
    for row in body:
        if len(row) != len(header):
            continue
        if not row[0] and not row[name_at]:
            units = row  # the units row: id columns empty
        else:
            data.append(row)
    style = detect_number_style(_values_for_style(data, n_id))
    kernels = []
    for index, row in enumerate(data):
        record = dict(zip(header[:n_id], row[:n_id]))
        kernel = _kernel_from(record, index)
        for column, unit, cell in zip(header[n_id:], units[n_id:], row[n_id:]):
            if cell == "":
                continue
            kernel.metrics[metric_id(column)] = Metric(parse_number(cell, style), unit)
        kernels.append(kernel)
    return kernels


# --- .ncu-rep ------------------------------------------------------------------------------------

def _finite(value) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def read_ncu_rep(path: Path) -> list[NcuKernel]:
    """Kernels of a report, through `ncu --import` when ncu is on the PATH, else `ncu_report`."""
    ncu = shutil.which("ncu")
    if ncu:
        argv = [ncu, "--import", str(path), "--csv", "--page", "raw", "--print-units", "base"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=600,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise InputError(f"{path}: ncu --import took over 600 s") from None
        if done.returncode != 0:
            message = (done.stderr or done.stdout).strip().splitlines()
            raise InputError(f"{path}: ncu --import failed: {message[-1] if message else done.returncode}")
        return parse_ncu_csv(done.stdout, str(path))
    try:
        import ncu_report  # type: ignore[import-not-found]
    except ImportError:
        raise ToolMissing(f"{path}: reading .ncu-rep needs Nsight Compute's `ncu` on the PATH or the "
                          "`ncu-report` Python package (pip install ncu-report)") from None
    return _kernels_from_ncu_report(ncu_report, path)


def _kernels_from_ncu_report(module, path: Path) -> list[NcuKernel]:
    try:
        context = module.load_report(str(path))
    except Exception as exc:  # the SWIG layer raises plain exceptions for damaged files
        raise InputError(f"{path}: ncu_report could not load it ({exc})") from None
    kernels = []
    for r in range(context.num_ranges()):
        profile_range = context.range_by_idx(r)
        for a in range(profile_range.num_actions()):
            action = profile_range.action_by_idx(a)
            kernel = NcuKernel(len(kernels), action.name(module.IAction.NameBase_DEMANGLED))
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                try:
                    value = metric.value()
                except Exception:
                    continue
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    value = float(value)
                elif not isinstance(value, str):
                    continue
                kernel.metrics[name] = Metric(value, metric.unit() or "")
            grid = [kernel.metrics.get(f"launch__grid_dim_{axis}") for axis in "xyz"]
            block = [kernel.metrics.get(f"launch__block_dim_{axis}") for axis in "xyz"]
            if all(isinstance(m, Metric) and _finite(m.value) for m in grid):
                kernel.grid = "(" + ", ".join(str(int(m.value)) for m in grid) + ")"
            if all(isinstance(m, Metric) and _finite(m.value) for m in block):
                kernel.block = "(" + ", ".join(str(int(m.value)) for m in block) + ")"
            kernels.append(kernel)
    return kernels


MAX_CSV_BYTES = 2 << 30


def read_ncu_file(path: Path) -> list[NcuKernel]:
    if read_head(path, 4) == NCU_REP_MAGIC:
        return read_ncu_rep(path)
    text = decode_text(read_bounded(path, MAX_CSV_BYTES), utf16=True)
    kernels = parse_ncu_csv(text, str(path))
    if not kernels:
        raise InputError(f"{path}: Nsight Compute CSV with a header but no kernel rows")
    return kernels


# --- the summary with verdicts -------------------------------------------------------------------

# Thresholds from the hardware-profiling guide: > 60% of peak is high use of a unit; under 30% is low.
HIGH_PCT = 60.0
LOW_PCT = 30.0
LOW_OCCUPANCY_PCT = 30.0
SHORT_KERNEL_NS = 20_000.0  # shorter kernels may not reach steady state

SM_KEYS = ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput")
DRAM_KEYS = ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
             "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput")
L2_KEYS = ("lts__throughput.avg.pct_of_peak_sustained_elapsed",
           "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "L2 Cache Throughput")
MEMORY_KEYS = ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput")
OCCUPANCY_KEYS = ("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy")


def _pct_metric(kernel: NcuKernel, keys: tuple[str, ...]) -> float | None:
    # "Memory Throughput" is a percentage in the SOL section and Gbyte/s in Memory Workload Analysis.
    for key in keys:
        metric = kernel.metrics.get(key)
        if metric is not None and isinstance(metric.value, float) and metric.unit in ("%", ""):
            return metric.value
    return None


def verdict(sm: float | None, memory: float | None, occupancy: float | None,
            offchip: float | None = None) -> tuple[str, str]:
    """(verdict, the numbers behind it) from SM and memory throughput (% of peak) and occupancy.

    `memory` is the busiest memory unit (L1/shared included); `offchip` the busier of DRAM and L2.
    A kernel with busy SMs whose memory load stays on chip (a GEMM feeding its tensor cores from shared
    memory: SM 93%, memory 94%, DRAM 21%) is compute-bound, not memory-bound.
    """
    def show(label: str, value: float | None) -> str:
        return f"{label} {value:.1f}%" if value is not None else f"{label} n/a"

    if sm is None and memory is None:
        return "unknown", "no SM or memory throughput metrics collected (add --section SpeedOfLight)"
    sm_v, mem_v = sm or 0.0, memory or 0.0
    if sm_v >= HIGH_PCT and (offchip is not None and offchip < HIGH_PCT or sm_v >= mem_v):
        why = f"{show('SM', sm)} >= {HIGH_PCT:.0f}%"
        if offchip is not None and mem_v >= HIGH_PCT:
            why += f"; memory {mem_v:.1f}% is on chip (DRAM/L2 at most {offchip:.1f}%)"
        else:
            why += f", at least {show('memory', memory)}"
        return "compute-bound", why
    if mem_v >= HIGH_PCT:
        unit = "DRAM/L2" if offchip is not None and offchip >= HIGH_PCT else "on-chip memory (L1/shared)"
        return "memory-bound", f"{show('memory', memory)} >= {HIGH_PCT:.0f}% ({unit}), above {show('SM', sm)}"
    both = f"{show('SM', sm)} and {show('memory', memory)} both < {HIGH_PCT:.0f}%"
    if occupancy is not None and occupancy < LOW_OCCUPANCY_PCT:
        return "low occupancy", f"{both}; {show('achieved occupancy', occupancy)} < {LOW_OCCUPANCY_PCT:.0f}%"
    return "latency-bound", both + (f"; {show('achieved occupancy', occupancy)}" if occupancy is not None else "")


def ncu_summary(kernels: list[NcuKernel]) -> Table:
    rows = []
    for kernel in kernels:
        sm = _pct_metric(kernel, SM_KEYS)
        dram = _pct_metric(kernel, DRAM_KEYS)
        l2 = _pct_metric(kernel, L2_KEYS)
        overall = _pct_metric(kernel, MEMORY_KEYS)
        memory = max((v for v in (overall, dram, l2) if v is not None), default=None)
        occupancy = _pct_metric(kernel, OCCUPANCY_KEYS)
        duration = kernel.duration_ns()
        offchip = max((v for v in (dram, l2) if v is not None), default=None)
        label, why = verdict(sm, memory, occupancy, offchip)
        if duration is not None and duration < SHORT_KERNEL_NS:
            why += f"; short kernel ({duration / 1000:.1f} us < 20 us): may not reach steady state"
        rows.append([kernel.index, kernel.name, label, round(duration, 1) if duration is not None else None,
                     sm, memory, dram, l2, occupancy, kernel.grid, kernel.block, why])
    columns = ["ID", "Kernel Name", "Verdict", "Duration (ns)", "SM Throughput (%)", "Memory Throughput (%)",
               "DRAM Throughput (%)", "L2 Throughput (%)", "Achieved Occupancy (%)", "Grid", "Block", "Why"]
    notes = [f"Verdicts: compute-bound when SM throughput >= {HIGH_PCT:.0f}% of peak and either at least the "
             f"memory throughput or with DRAM and L2 under {HIGH_PCT:.0f}% (memory busy on chip, feeding the SMs); "
             f"memory-bound when memory (the busiest of DRAM, L2 and the overall memory SOL) >= {HIGH_PCT:.0f}%; "
             f"otherwise low occupancy if achieved occupancy < {LOW_OCCUPANCY_PCT:.0f}%, else latency-bound."]
    return Table("ncu_summary", "Nsight Compute Kernel Summary", columns, rows, notes)


def ncu_metrics(kernels: list[NcuKernel]) -> Table:
    """Every collected metric, one row per kernel and metric."""
    rows = [[k.index, k.name, name, m.unit, m.value] for k in kernels for name, m in k.metrics.items()]
    return Table("ncu_metrics", "Nsight Compute Metrics", ["ID", "Kernel Name", "Metric", "Unit", "Value"], rows)
