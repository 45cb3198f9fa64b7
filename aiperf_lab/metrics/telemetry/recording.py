"""Telemetry recordings on disk: the writer, the `Recording` and the readers of three layouts.
(Playing a recording as a live feed: replay.py.)

Written layout (one row per sample per GPU; with no GPU, one host-only row per tick with `gpu` empty):

| column | meaning |
|---|---|
| t_s | seconds since the recording started |
| gpu | NVML device index |
| power_w, power_source | instant power where supported ("instant"), else the averaged reading ("average") |
| power_avg_w | nvmlDeviceGetPowerUsage, averaged by the driver over about a second |
| power_limit_w | enforced power limit |
| energy_j, energy_source | energy since the start: "counter" (NVML total energy, interpolated with instant power between reads) or "integrated" |
| util_gpu_pct, util_mem_pct | NVML utilization rates |
| mem_used_bytes, mem_total_bytes | device memory |
| temp_c, sm_clock_mhz, mem_clock_mhz | temperature, clocks |
| clock_event_reasons, clock_event_names | NVML clock-event bitmask, and its names joined by "|" |
| pcie_gen, pcie_width, pcie_gen_max, pcie_width_max | PCIe link now (read every 2 s) and at most (read once) |
| lost | 1 when the GPU fell off the bus |
| cpu_pct, host_mem_used_bytes, host_mem_total_bytes | the host, through psutil |
| gpm_t_s, gpm_window_s | the GPM window each row carries: when it ended and how long it was (GPM is read every couple of seconds, so many rows share one window) |
| gpm_graphics_pct ... gpm_nvlink_tx_mibps | GPM metrics (model.GPM_FIELDS): empty where the GPU has none; why is in the header line |
| processes | on rows where the processes were read (every couple of seconds): a JSON list of [pid, name, user, GPU memory bytes, SM %, memory %, energy share % (estimate), energy J (estimate)]; command lines are never written |
| utc_ns | the sample's wall-clock time, UTC nanoseconds since 1970: the sampler's start on the system clock plus t_s on its monotonic clock (empty in recordings made before this column existed) |
| status_t_s | when the row's power_avg_w, memory, temperature, clocks and clock-event reasons were read: the sampler reads them about once a second and each row carries the latest (empty in recordings made before this column: read with the row) |

A first line `# aiperf-telemetry {JSON}` gives the sampling rate, the GPM window, `tiers` (which fields
are read how often, in seconds), and per GPU its name, power limit and why GPM or any GPM field is
missing. Recordings without it (written before GPM) read as before, with GPM "not in this recording".

`utc_ns` is what lines the samples up with a profiler's timeline (nsys: the session's `utcEpochNs`;
PyTorch: `baseTimeNanoseconds`), see `aiperf_lab.metrics.energy.clocks`.

Also read: the raw NVML loop layout of the H200 recording shipped with the package
(`t_s, power_mw, power_instant_mw, energy_mj, ...`, counter every 10th row) and `nvidia-smi
--query-gpu ... --format=csv` logs.
"""

from __future__ import annotations

import csv
import io
import json
import gc
import math
import time
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter, mul, sub
from pathlib import Path
from typing import Any, Callable, TextIO

from aiperf_lab.errors import InputError, NotAProfile
from aiperf_lab.metrics.telemetry.energy import EnergyTracker
from aiperf_lab.metrics.telemetry.model import (GPM_NAMES, GpmSample, GpuInfo, GpuProcess, GpuSample, GpuStatus,
                                                HostSample, Tick)

BASE_COLUMNS = ["t_s", "gpu", "power_w", "power_source", "power_avg_w", "power_limit_w", "energy_j", "energy_source",
                "util_gpu_pct", "util_mem_pct", "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz",
                "mem_clock_mhz", "clock_event_reasons", "clock_event_names", "pcie_gen", "pcie_width", "pcie_gen_max",
                "pcie_width_max", "lost", "cpu_pct", "host_mem_used_bytes", "host_mem_total_bytes"]
GPM_COLUMNS = ["gpm_t_s", "gpm_window_s", *("gpm_" + name for name in GPM_NAMES)]
COLUMNS = BASE_COLUMNS + GPM_COLUMNS + ["processes", "utc_ns", "status_t_s"]
META_PREFIX = "# aiperf-telemetry "
NOT_RECORDED = "not in this recording"
RAW_NVML_COLUMNS = ["t_s", "power_mw", "power_instant_mw", "energy_mj", "util_gpu", "util_mem", "mem_used_b",
                    "temp_c", "sm_clock_mhz", "mem_clock_mhz", "clock_event_reasons"]

DATA = Path(__file__).with_name("data")
DEMO_RECORDING = DATA / "nvml_100hz_matmul_copy.csv"        # H200, raw NVML loop at 100 Hz, no GPM
# Made by benchmarks/verify_issue15.sh on a Hopper GPU: our sampler at 10 Hz with GPM over a bf16 matmul,
# a device copy, a small-kernel phase and idle. Shipped when the GPU machine has produced it.
DEMO_GPM_RECORDING = DATA / "gpm_10hz_phases.csv"


def demo_recording() -> Path:
    """The recording --demo replays: the GPM one where it ships, else the H200 power recording."""
    return DEMO_GPM_RECORDING if DEMO_GPM_RECORDING.is_file() else DEMO_RECORDING


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e15 else repr(value)
    return str(value)


class TelemetryWriter:
    """CSV rows for each tick; flushed about once a second and on close. The header (and the metadata
    line, when the sampler gives it through `start`) is written before the first row."""

    def __init__(self, stream: TextIO, flush_every_s: float = 1.0, *, scrub: Callable[[str], str] | None = None,
                 users: bool = True):
        """`scrub`: applied to process names and users before they are written (triage passes its
        redactor); `users=False` leaves user names out (triage with --redact-hosts)."""
        self._scrub = scrub
        self._users = users
        self._stream = stream
        self._writer = csv.writer(stream, lineterminator="\n")
        self._flush_every = flush_every_s
        self._last_flush = time.monotonic()
        self._started = False
        # GPU -> the GpuStatus whose processes were written last (held, so that its id is never reused)
        self._processes_seen: dict[int, GpuStatus] = {}
        # GPU -> (the object, its formatted cells): a GPM window, a status read and a link status repeat on
        # many rows (the sampler's tiers), so each is formatted once. The object is held: `is` stays true.
        self._gpm_cells: dict[int, tuple[Any, list[str]]] = {}
        self._status_cells: dict[int, tuple[Any, list[str]]] = {}
        self._link_cells: dict[int, tuple[Any, list[str]]] = {}
        # UTC ns at t = 0 of the samples' clock; the sampler sets it when it starts (None: column left empty)
        self.utc_origin_ns: int | None = None

    @classmethod
    def to_path(cls, path: Path, **options: Any) -> "TelemetryWriter":
        return cls(open(path, "w", encoding="utf-8", newline=""), **options)

    def _text(self, value: str | None) -> str | None:
        if value is None or self._scrub is None:
            return value
        return self._scrub(value)

    def start(self, meta: dict[str, Any] | None = None) -> None:
        """The metadata line (sampling rate, GPM window, per-GPU names and missing-field reasons), then the header."""
        if self._started:
            return
        self._started = True
        if meta is not None:
            self._stream.write(META_PREFIX + json.dumps(meta, separators=(",", ":"), default=str) + "\n")
        self._writer.writerow(COLUMNS)

    def write(self, tick: Tick, slow: dict[int, GpuStatus]) -> None:
        self.start()
        host = tick.host or HostSample(tick.t)
        host_cells = [_cell(host.cpu_pct), _cell(host.mem_used_bytes), _cell(host.mem_total_bytes)]
        origin = self.utc_origin_ns
        if not tick.gpus:
            utc = str(origin + round(tick.t * 1e9)) if origin is not None else ""
            self._writer.writerow([f"{tick.t:.4f}"] + [""] * (len(BASE_COLUMNS) - 4) + host_cells
                                  + [""] * (len(GPM_COLUMNS) + 1) + [utc, ""])
        for s in tick.gpus:
            index = s.index
            link = slow.get(index) or _NO_STATUS
            processes = ""
            if index in slow and self._processes_seen.get(index) is not link:
                self._processes_seen[index] = link
                processes = json.dumps([[p.pid, self._text(p.name), self._text(p.user) if self._users else None,
                                         p.gpu_memory_bytes, p.sm_pct, p.mem_pct,
                                         p.energy_share_pct, p.energy_est_j] for p in link.processes],
                                       separators=(",", ":"))
            self._writer.writerow([
                f"{s.t:.4f}", index, _cell(s.power_w), s.power_source, _cell(s.power_avg_w),
                _cell(s.power_limit_w), _cell(s.energy_j), s.energy_source, _cell(s.util_gpu_pct),
                _cell(s.util_mem_pct), *self._cells(self._status_cells, index, s.status_t, s, _status_cells),
                *self._cells(self._link_cells, index, link, link, _link_cells), "1" if s.lost else "0",
                *host_cells, *self._cells(self._gpm_cells, index, s.gpm, s.gpm, _gpm_cells), processes,
                str(origin + round(s.t * 1e9)) if origin is not None else "",
                f"{s.status_t:.4f}" if s.status_t is not None else ""])
        if time.monotonic() - self._last_flush >= self._flush_every:
            self.flush()

    @staticmethod
    def _cells(cache: dict[int, tuple[Any, list[str]]], index: int, key: Any, value: Any,
               format_cells: Callable[[Any], list[str]]) -> list[str]:
        """format_cells(value), reused while `key` is the same object (None: always formatted afresh)."""
        held = cache.get(index)
        if key is not None and held is not None and held[0] is key:
            return held[1]
        cells = format_cells(value)
        if key is not None:
            cache[index] = (key, cells)
        return cells

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass
        self._last_flush = time.monotonic()

    def close(self) -> None:
        self.start()
        self.flush()
        self._stream.close()


_NO_STATUS = GpuStatus()


def _status_cells(s: GpuSample) -> list[str]:
    """Memory, temperature, clocks and clock-event reasons: the status tier's columns."""
    return [_cell(s.mem_used_bytes), _cell(s.mem_total_bytes), _cell(s.temp_c), _cell(s.sm_clock_mhz),
            _cell(s.mem_clock_mhz), _cell(s.clock_event_reasons), "|".join(s.clock_event_names)]


def _link_cells(link: GpuStatus) -> list[str]:
    return [_cell(link.pcie_gen), _cell(link.pcie_width), _cell(link.pcie_gen_max), _cell(link.pcie_width_max)]


def _gpm_cells(gpm: GpmSample | None) -> list[str]:
    if gpm is None:
        return [""] * len(GPM_COLUMNS)
    return [f"{gpm.t:.4f}", _cell(gpm.window_s), *(_cell(getattr(gpm, name)) for name in GPM_NAMES)]


def recording_meta(devices: list[GpuInfo], rate_hz: float, gpm_every_s: float,
                   tiers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The metadata line a sampler gives its writer; `tiers`: Sampler.tiers(), which fields are read how often."""
    meta: dict[str, Any] = {
            "version": 3 if tiers else 2, "rate_hz": rate_hz, "gpm_every_s": gpm_every_s,
            "note": f"power and utilization every {1 / rate_hz:g} s; GPM windows of about {gpm_every_s:g} s "
                    "(each row carries the latest window)" + (
                        "; the other fields as `tiers` says, each row carrying the latest read (status_t_s: "
                        "when memory, temperature, clocks and clock-event reasons were read)" if tiers else ""),
            "devices": [{"index": d.index, "name": d.name, "power_limit_w": d.power_limit_w,
                         "mem_total_bytes": d.mem_total_bytes, "gpm_reason": d.gpm_reason,
                         "gpm_missing": d.gpm_missing} for d in devices]}
    if tiers:
        meta["tiers"] = tiers
    return meta


@dataclass
class Recording:
    path: Path
    layout: str                   # "aiperf", "nvml-raw" or "nvidia-smi"
    devices: list[GpuInfo]
    ticks: list[Tick]
    meta: dict[str, Any] = field(default_factory=dict)     # the `# aiperf-telemetry` line, when there is one
    # (t, GPU, its slow fields) where the recording read them: links and processes, for a replay's `slow`
    status_updates: list[tuple[float, int, GpuStatus]] = field(default_factory=list)
    utc_origin_ns: int | None = None  # UTC ns at t = 0 (from the utc_ns column); None: no absolute clock

    @property
    def duration_s(self) -> float:
        return self.ticks[-1].t - self.ticks[0].t if self.ticks else 0.0


def _number(text: str) -> float | None:
    text = text.strip()
    if not text or text in ("[N/A]", "N/A", "[Not Supported]"):
        return None
    try:
        value = float(text.split()[0].replace(",", ""))  # "81.72 W" -> 81.72
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # nan/inf: no reading


def _int(text: str) -> int | None:
    value = _number(text)
    return int(value) if value is not None else None  # _number is finite, so int() cannot fail


def sniff_recording(header: list[str]) -> str | None:
    names = [h.strip() for h in header]
    if names[:2] == ["t_s", "gpu"] and "power_w" in names:
        return "aiperf"
    if names[:3] == ["t_s", "power_mw", "power_instant_mw"] or (names[:1] == ["t_s"] and "power_mw" in names):
        return "nvml-raw"
    if names and names[0] == "timestamp" and any(n.startswith("power.draw") for n in names):
        return "nvidia-smi"
    return None


def sniff_text(text: str) -> str | None:
    """The layout of a recording from its first bytes. Our metadata line says "aiperf" by itself: with
    many GPUs it can be longer than the head a sniffer reads."""
    if text.startswith(META_PREFIX):
        return "aiperf"
    lines = text.splitlines()
    return sniff_recording(lines[0].split(",")) if lines else None


def _split_meta(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith(META_PREFIX):
        return {}, text
    first, _, rest = text.partition("\n")
    try:
        meta = json.loads(first[len(META_PREFIX):])
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        meta = {}
    return (meta if isinstance(meta, dict) else {}), rest


# Read whole, a recording costs about 14 times its size in memory (cells, then one sample object per row:
# 207 MB, 900,000 rows at 100 Hz = 2.5 h, peak 2.9 GB) and about 12 s of CPU per 200 MB on a loaded 2-core
# VM (docs/benchmarks.md): above 512 MiB (about 5.5 h at 100 Hz) a one-line refusal, not a machine out of memory.
MAX_RECORDING_BYTES = 512 << 20
MAX_TIME_S = 1e9  # 31 years from the recording's start


def read_recording(path: Path) -> Recording:
    """A recording in any of the three layouts; rows cut short (a killed writer) are skipped, values that
    are not finite numbers read as missing, times must be finite. InputError for anything else."""
    # Millions of cells and samples are made and none is garbage: the cyclic collector's passes over
    # them (more, the more there are) would take as long as the read itself.
    # They live as long as the recording, so they are then left out of the collector's later passes too
    # (gc.freeze): each pass of a report over them would otherwise walk them all again. (Freed as usual
    # when dropped: a recording holds no reference cycle.)
    collecting = gc.isenabled()
    gc.disable()
    try:
        recording = _read_recording(path)
        gc.freeze()
        return recording
    finally:
        if collecting:
            gc.enable()


def _read_recording(path: Path) -> Recording:
    from aiperf_lab.inputs import decode_text, read_bounded

    text = decode_text(read_bounded(path, MAX_RECORDING_BYTES))
    meta, text = _split_meta(text)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # a field over csv's 128 KiB limit, a NUL byte
        raise InputError(f"{path}: not a telemetry recording ({exc})") from None
    if not rows:
        raise InputError(f"{path}: empty file")
    layout = sniff_recording(rows[0])
    if layout is None:
        raise NotAProfile(f"{path}: not a telemetry recording (unknown columns: {','.join(rows[0][:4])}...)")
    body = [r for r in rows[1:] if r and (r[0].strip() or any(cell.strip() for cell in r))]
    updates: list[tuple[float, int, GpuStatus]] = []
    if layout == "aiperf":
        devices, ticks = _read_aiperf(rows[0], body, meta, updates)
    else:
        devices, ticks = {"nvml-raw": _read_raw, "nvidia-smi": _read_smi}[layout](rows[0], body)
        devices = [_no_gpm(d) for d in devices]
    # A time no recording reaches (1e300 s) is a damaged row, skipped like a row cut short: in ns it
    # would be past any integer a clock holds.
    ticks = [tick for tick in ticks if abs(tick.t) <= MAX_TIME_S]
    ticks.sort(key=lambda tick: tick.t)  # stable: a log whose clock stepped back replays in time order
    if not ticks:
        raise InputError(f"{path}: a telemetry recording with a header but no samples")
    origin = _utc_origin(rows[0], body) if layout == "aiperf" else None
    return Recording(path, layout, devices, ticks, meta, updates, origin)


MAX_UTC_NS = 1 << 63  # a wall-clock anchor past year 2262 in ns is not a clock reading


def _utc_origin(header: list[str], body: list[list[str]]) -> int | None:
    """UTC ns at t = 0: the median of utc_ns - t_s over the rows that have both (t_s is rounded to 0.1 ms,
    utc_ns is exact, so the median sits within 50 us of the sampler's own origin)."""
    if "utc_ns" not in header:
        return None
    t_col, utc_col = header.index("t_s"), header.index("utc_ns")
    reach = max(t_col, utc_col)
    rows = [row for row in body if len(row) > reach]
    origins: list[int] = []
    try:  # the common case, every cell a number and every anchor in range, in C; else cell by cell
        utcs, times = list(map(int, map(itemgetter(utc_col), rows))), list(map(float, map(itemgetter(t_col), rows)))
        if utcs and not (min(utcs) > 0 and max(utcs) < MAX_UTC_NS):
            raise ValueError
        origins = list(map(sub, utcs, map(round, map(mul, times, repeat(1e9)))))
    except (ValueError, OverflowError):
        origins = []
        for t_text, utc_text in map(itemgetter(t_col, utc_col), rows):
            try:
                utc, t_ns = int(utc_text), round(float(t_text) * 1e9)
            except (ValueError, OverflowError):  # not numbers, or a time beyond any float in ns
                continue
            if 0 < utc < MAX_UTC_NS:
                origins.append(utc - t_ns)
    if not origins:
        return None
    origins.sort()
    return origins[len(origins) // 2]


def _no_gpm(info: GpuInfo) -> GpuInfo:
    from dataclasses import replace

    return replace(info, gpm_reason=NOT_RECORDED, gpm_missing={})


def _numbers(cells: list[str], integers: bool = False) -> list:
    """_number (or _int, with `integers`) of every cell of a column, in C where it can be: a long
    recording's columns repeat a few values (clocks, temperatures, utilization), converted once each
    and shared; a column of mostly distinct plain numbers through float() (it accepts exactly those of
    _number's inputs that need no unit or comma stripped, and gives the same value), else one _number
    per distinct cell."""
    distinct = set(cells)
    if 4 * len(distinct) > len(cells):
        try:
            values: list = list(map(float, cells))
        except ValueError:
            pass
        else:
            if all(map(math.isfinite, values)):
                return list(map(int, values)) if integers else values
            return [(int(v) if integers else v) if math.isfinite(v) else None for v in values]
    convert = _int if integers else _number
    converted = {cell: convert(cell) for cell in distinct}
    return list(map(converted.__getitem__, cells))


def _ints(cells: list[str]) -> list[int | None]:
    return _numbers(cells, integers=True)


def _read_aiperf(header: list[str], body: list[list[str]], meta: dict[str, Any],
                 updates: list[tuple[float, int, GpuStatus]]):
    """Read column by column: each number column converted in one pass (see _numbers), one GpuSample
    per row made from the converted columns; GPM windows, links and processes read from their row only
    where they change (once per window, every couple of seconds)."""
    col = {name: i for i, name in enumerate(header)}
    has_gpm = "gpm_t_s" in col
    described = {d.get("index"): d for d in meta.get("devices") or [] if isinstance(d, dict)}
    rows = [row for row in body if len(row) >= len(header)]  # a shorter row: a line cut short (killed writer)
    count = len(rows)
    blank = [""] * count

    def text(name: str) -> list[str]:  # one column's cells (only the columns read: not a transpose of all)
        return list(map(itemgetter(col[name]), rows)) if name in col else blank

    t_s = _numbers(text("t_s"))
    gpu = _ints(text("gpu"))
    number_columns = [_numbers(text(name)) for name in (
        "power_w", "power_avg_w", "power_limit_w", "energy_j", "util_gpu_pct", "util_mem_pct")]
    status_columns = [_ints(text("mem_used_bytes")), _ints(text("mem_total_bytes")), _numbers(text("temp_c")),
                      _numbers(text("sm_clock_mhz")), _numbers(text("mem_clock_mhz")),
                      _ints(text("clock_event_reasons"))]
    power_w, power_avg_w, power_limit_w, energy_j, util_gpu, util_mem = number_columns
    mem_used, mem_total, temp_c, sm_clock, mem_clock, reasons = status_columns
    status_t = _numbers(text("status_t_s"))
    power_source, energy_source, lost = text("power_source"), text("energy_source"), text("lost")
    cpu, host_used, host_total = _numbers(text("cpu_pct")), _ints(text("host_mem_used_bytes")), \
        _ints(text("host_mem_total_bytes"))
    gpm_column = text("gpm_t_s") if has_gpm else blank
    gpm_window, gpm_values = col.get("gpm_window_s"), [(name, col.get("gpm_" + name)) for name in GPM_NAMES]
    processes_column = text("processes")
    ticks: dict[float, Tick] = {}
    devices: dict[int, GpuInfo] = {}
    windows: dict[tuple[int, str], GpmSample] = {}   # one GpmSample per window, shared by its rows
    for k in range(count):
        t = t_s[k]
        if t is None:
            continue
        tick = ticks.get(t)
        if tick is None:
            tick = ticks[t] = Tick(t, [], HostSample(t, cpu[k], host_used[k], host_total[k]))
        index = gpu[k]
        if index is None:
            continue
        sample = GpuSample(t, index, power_w[k], power_source[k], power_avg_w[k], power_limit_w[k], energy_j[k],
                           energy_source[k], util_gpu[k], util_mem[k], mem_used[k], mem_total[k], temp_c[k],
                           sm_clock[k], mem_clock[k], reasons[k], lost[k] == "1", status_t=status_t[k])
        gpm_text = gpm_column[k]
        if gpm_text:
            key = (index, gpm_text)
            window = windows.get(key)
            if window is None and key not in windows:
                gpm_t = _number(gpm_text)
                row = rows[k]
                window = windows[key] = None if gpm_t is None else GpmSample(
                    gpm_t, (_number(row[gpm_window]) if gpm_window is not None else None) or 0.0,
                    **{name: _number(row[i]) if i is not None else None for name, i in gpm_values})
            sample.gpm = window
        tick.gpus.append(sample)
        processes = processes_column[k]
        if processes:
            row = rows[k]
            get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
            updates.append((t, index, GpuStatus(_int(get("pcie_gen")), _int(get("pcie_width")),
                                                 _int(get("pcie_gen_max")), _int(get("pcie_width_max")),
                                                 power_limit_w=sample.power_limit_w,
                                                 processes=_processes(processes))))
        if index not in devices:
            about = described.get(index) or {}
            missing = about.get("gpm_missing")
            devices[index] = GpuInfo(
                index, name=about.get("name") if isinstance(about.get("name"), str) else None,
                mem_total_bytes=sample.mem_total_bytes,
                power_limit_w=sample.power_limit_w or _float_or_none(about.get("power_limit_w")),
                energy_counter=sample.energy_source == "counter", instant_power=sample.power_source == "instant",
                gpm_reason=str(about["gpm_reason"]) if "gpm_reason" in about else
                ("" if has_gpm else NOT_RECORDED),
                gpm_missing={str(k): str(v) for k, v in missing.items()} if isinstance(missing, dict) else {})
    ordered = sorted(ticks.values(), key=lambda k: k.t)
    with_gpm = {i for (i, _text), window in windows.items() if window is not None}  # each held by a sample
    for index, info in list(devices.items()):
        if info.gpm_reason == "" and index not in with_gpm:
            from dataclasses import replace
            devices[index] = replace(info, gpm_reason="no GPM values in this recording")
    return [devices[i] for i in sorted(devices)], ordered


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _processes(cell: str) -> list[GpuProcess]:
    """The `processes` cell: [[pid, name, user, memory, sm %, mem %, energy share %, energy J], ...]."""
    try:
        entries = json.loads(cell)
    except ValueError:
        return []
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, list) or len(entry) < 4 or not isinstance(entry[0], int):
            continue
        entry = entry + [None] * (8 - len(entry))
        text = lambda v: v if isinstance(v, str) else None  # noqa: E731
        memory = entry[3] if isinstance(entry[3], int) else None
        found.append(GpuProcess(entry[0], text(entry[1]), memory, text(entry[2]), None, _float_or_none(entry[4]),
                                _float_or_none(entry[5]), _float_or_none(entry[6]), _float_or_none(entry[7])))
    return found


def _read_raw(header: list[str], body: list[list[str]]):
    """The raw pynvml loop layout: mW, mJ (the counter every few rows), one GPU."""
    col = {name: i for i, name in enumerate(header)}
    tracker = EnergyTracker()
    ticks = []
    instant_seen = counter_seen = False
    for row in body:
        if len(row) < len(header):
            continue
        get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
        t = _number(get("t_s"))
        if t is None:
            continue
        average = _number(get("power_mw"))
        instant = _number(get("power_instant_mw"))
        power_mw, source = (instant, "instant") if instant is not None else (average, "average" if average else "")
        power = power_mw / 1000.0 if power_mw is not None else None
        tracker.add_power(t, power)
        counter = _number(get("energy_mj"))
        tracker.add_counter(t, counter)
        instant_seen |= instant is not None
        counter_seen |= counter is not None
        ticks.append(Tick(t, [GpuSample(
            t, 0, power, source, average / 1000.0 if average is not None else None, None,
            tracker.energy_j(), tracker.source, _number(get("util_gpu")), _number(get("util_mem")),
            _int(get("mem_used_b")), None, _number(get("temp_c")), _number(get("sm_clock_mhz")),
            _number(get("mem_clock_mhz")), _int(get("clock_event_reasons")))], None))
    return [GpuInfo(0, energy_counter=counter_seen, instant_power=instant_seen)], ticks


def _read_smi(header: list[str], body: list[list[str]]):
    """`nvidia-smi --query-gpu=timestamp,power.draw,... --format=csv`: average power only, integrated."""
    from datetime import datetime

    names = [h.strip() for h in header]
    col = {name.split(" [")[0]: i for i, name in enumerate(names)}
    trackers: dict[int, EnergyTracker] = {}
    ticks: list[Tick] = []
    t0 = None
    for row in body:
        if len(row) < len(names):
            continue  # a line cut short (the log was still being written)
        row = [c.strip() for c in row]
        try:
            stamp = datetime.strptime(row[col["timestamp"]], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        except (ValueError, IndexError, OverflowError, OSError):
            continue
        t0 = stamp if t0 is None else t0
        t = stamp - t0
        index = _int(row[col["index"]]) if "index" in col else 0
        tracker = trackers.setdefault(index, EnergyTracker())
        power = _number(row[col["power.draw"]]) if "power.draw" in col else None
        tracker.add_power(t, power)
        mem_used = _number(row[col["memory.used"]]) if "memory.used" in col else None
        sample = GpuSample(t, index, power, "average" if power is not None else "", power, None, tracker.energy_j(),
                           tracker.source,
                           _number(row[col["utilization.gpu"]]) if "utilization.gpu" in col else None,
                           _number(row[col["utilization.memory"]]) if "utilization.memory" in col else None,
                           _int(str(mem_used * 1024 * 1024)) if mem_used is not None else None, None,
                           _number(row[col["temperature.gpu"]]) if "temperature.gpu" in col else None,
                           _number(row[col["clocks.current.sm"]]) if "clocks.current.sm" in col else None)
        if ticks and abs(ticks[-1].t - t) < 1e-9:
            ticks[-1].gpus.append(sample)
        else:
            ticks.append(Tick(t, [sample], None))
    return [GpuInfo(i) for i in sorted(trackers)], ticks
