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

import codecs
import csv
import gc
import io
import json
import time
from itertools import chain, islice
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, TextIO

from aiperf_lab.errors import InputError, NotAProfile
from aiperf_lab.inputs import printable, shown_path
from aiperf_lab.metrics.telemetry.cells import integer, number, unreachable_time
from aiperf_lab.metrics.telemetry.columns import (MAX_GPUS, MAX_TIME_S, NOT_RECORDED, SampleColumns, Series,
                                                  TooManyGpus, series_of_ticks)
from aiperf_lab.metrics.telemetry.csv_blocks import Cells, blocks
from aiperf_lab.metrics.telemetry.energy import EnergyTracker, energy_in_time_order
from aiperf_lab.metrics.telemetry.model import GPM_NAMES, GpmSample, GpuInfo, GpuSample, GpuStatus, HostSample, Tick
from aiperf_lab.metrics.telemetry.smi import SmiColumns

_number, _int = number, integer  # the names the readers had

BASE_COLUMNS = ["t_s", "gpu", "power_w", "power_source", "power_avg_w", "power_limit_w", "energy_j", "energy_source",
                "util_gpu_pct", "util_mem_pct", "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz",
                "mem_clock_mhz", "clock_event_reasons", "clock_event_names", "pcie_gen", "pcie_width", "pcie_gen_max",
                "pcie_width_max", "lost", "cpu_pct", "host_mem_used_bytes", "host_mem_total_bytes"]
GPM_COLUMNS = ["gpm_t_s", "gpm_window_s", *("gpm_" + name for name in GPM_NAMES)]
COLUMNS = BASE_COLUMNS + GPM_COLUMNS + ["processes", "utc_ns", "status_t_s"]
META_PREFIX = "# aiperf-telemetry "
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


def demo_gpu_name() -> str:
    """The GPU the demo recording was taken on, from its `# aiperf-telemetry` line (the GPM recording names
    it); the raw NVML recording names none: it was taken on an NVIDIA H200."""
    try:
        with demo_recording().open(encoding="utf-8") as handle:
            meta, _rest = _meta(handle.readline())
        name = (meta.get("devices") or [{}])[0].get("name")
    except (OSError, UnicodeDecodeError, AttributeError, IndexError):
        name = None
    return name if isinstance(name, str) and name else "NVIDIA H200"


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


class Recording:
    """A telemetry recording: its devices, metadata and samples. A recording in our layout holds its
    samples as columns (`columns`; the Tick objects are made when first asked for: the console's
    replay plays them, the reports read `series(gpu)`), and so does an nvidia-smi log (`smi`, smi.py);
    the raw NVML layout and a live feed's, as ticks."""

    def __init__(self, path: Path, layout: str, devices: list[GpuInfo], ticks: list[Tick] | None = None,
                 meta: dict[str, Any] | None = None, status_updates: list[tuple[float, int, GpuStatus]] | None = None,
                 utc_origin_ns: int | None = None, *, columns: SampleColumns | None = None,
                 bad_time: tuple[int, str] | None = None, negative_time: tuple[int, str] | None = None,
                 smi: SmiColumns | None = None):
        self.path = path
        self.layout = layout              # "aiperf", "nvml-raw" or "nvidia-smi"
        self.devices = devices
        self.meta = meta if meta is not None else {}   # the `# aiperf-telemetry` line, when there is one
        # (t, GPU, its slow fields) where the recording read them: links and processes, for a replay's `slow`
        self.status_updates = status_updates if status_updates is not None else []
        self.utc_origin_ns = utc_origin_ns  # UTC ns at t = 0 (from the utc_ns column); None: no absolute clock
        self.columns = columns
        # an nvidia-smi log's samples as columns (smi.py): its ticks are made when first asked for, as ours
        self._store: SampleColumns | SmiColumns | None = columns if columns is not None else smi
        self._ticks = ticks if ticks is not None or self._store is not None else []
        # (its number among the sample rows, from 1; the cell) of the first row whose time is a number no
        # recording reaches (nan, inf, 1e400, 1e300): skipped here as damaged; a replay refuses the file
        self.bad_time = columns.bad_time if columns is not None else bad_time
        # (the same numbering; the cell) of the first sample whose time is negative, where the reader noted it
        self.negative_time = columns.negative_time if columns is not None else negative_time

    @property
    def ticks(self) -> list[Tick]:
        if self._ticks is None:
            self._ticks = self._store.ticks()
        return self._ticks

    @property
    def duration_s(self) -> float:
        if self._ticks is None:
            span = self._store.time_span()
            return span[1] - span[0] if span else 0.0
        return self.ticks[-1].t - self.ticks[0].t if self.ticks else 0.0

    def series(self, index: int) -> Series:
        """GPU `index`'s samples in time order as columns (lost samples left out)."""
        if self._store is not None:
            return self._store.series(index)
        return series_of_ticks(self.ticks, index)


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


# Read in chunks of rows into compact columns (columns.py), a recording costs about 70 bytes a row in
# memory, under its size on disk (207 MB, 900,000 rows at 100 Hz = 2.5 h: docs/benchmarks.md). The Tick
# objects the console's replay plays cost about 2 KB a row: above 512 MiB (about 5.5 h at 100 Hz) a
# one-line refusal, not a machine out of memory when one is replayed.
MAX_RECORDING_BYTES = 512 << 20
CHUNK_ROWS = 4096       # rows converted to columns at a time, where they are read row by row
READ_BYTES = 1 << 20    # bytes read from the file at a time: a block of records (about 4,500 rows)


def read_recording(path: Path, on_header: Callable[[str, list[str]], None] | None = None) -> Recording:
    """A recording in any of the three layouts; rows cut short (a killed writer) are skipped, values that
    are not finite numbers read as missing, times must be finite. InputError for anything else.
    `on_header(layout, header)`: called once the header is read, before any sample; it may refuse the file
    for what its header already tells (an InputError), sparing the read of the rest."""
    # Many short-lived containers are made (each chunk's rows) and none is garbage: the cyclic collector's
    # passes over them would add to the read for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _read_recording(path, on_header)
    finally:
        if collecting:
            gc.enable()


def _text_chunks(handle: BinaryIO, path: Path, encoding: str = "utf-8") -> Iterator[str]:
    """The file's text (UTF-8 or UTF-16 as inputs.text_encoding tells, undecodable bytes replaced, a leading
    BOM dropped: inputs.decode_text) in pieces that end at a line end (except the last), read a few MB at a
    time."""
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    total, pending, started = 0, [], False
    while True:
        try:
            data = handle.read(READ_BYTES)
        except OSError as exc:
            raise InputError(f"{shown_path(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
        total += len(data)
        if total > MAX_RECORDING_BYTES:  # grew while we read
            raise InputError(f"{shown_path(path)}: larger than the {MAX_RECORDING_BYTES} bytes this reader accepts")
        text = decoder.decode(data, final=not data)
        if not started and text:
            started = True
            text = text[1:] if text.startswith("\ufeff") else text
        cut = text.rfind("\n") + 1
        if cut:
            yield "".join(pending) + text[:cut]
            pending = []
        pending.append(text[cut:])
        if not data:
            break
    rest = "".join(pending)
    if rest:
        yield rest


def _binary_kind(path: Path, head: bytes) -> str | None:
    """What a file that is no text is, and what to do with it, in words after its path; None for text.
    A recording is a CSV: its first bytes decoded would otherwise be shown as "unknown columns"."""
    if head.startswith(b"\x1f\x8b"):
        return _gzip_kind(path)
    if head.startswith(b"SQLite format 3\x00"):
        return "an SQLite database (an nsys export?), not a telemetry recording: aiperf-stats reads it"
    for magic, kind in ((b"NVR\x00", "an Nsight Compute report (.ncu-rep)"), (b"PK\x03\x04", "a zip archive")):
        if head.startswith(magic):
            return f"{kind}, not a telemetry recording (a CSV: aiperf, NVML raw or nvidia-smi)"
    from aiperf_lab.inputs import text_encoding

    encoding = text_encoding(head)
    text = head.decode(encoding, "replace")
    if b"\x00" in head and encoding == "utf-8" or "\x00" in text or text.count("\ufffd") > len(text) // 20:
        return "binary data, not a telemetry recording (a CSV: aiperf, NVML raw or nvidia-smi)"
    return None


def _other_text_kind(path: Path, header: list[str]) -> str:
    """Words after its path for a text file that is no recording: a profile aiperf-stats reads is named
    as such (a PyTorch trace is JSON, an ncu CSV has a "Kernel Name" column), else the headers a recording
    has (none of the file's own text)."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        start = b""
    if start.startswith((b"{", b"[")):
        # a guess from its first byte: said as one (JSON that is no PyTorch trace, tests/data/dump_forms.json,
        # was said to be read by aiperf-stats, which refuses it: "JSON without traceEvents")
        return "JSON, not a telemetry recording: if it is a PyTorch profiler trace, aiperf-stats reads it"
    # an ncu CSV as aiperf-stats tells one (a "Kernel Name" column alone is also nsys stats' nvtx_kern_sum,
    # which was said to be read by aiperf-stats: it is not)
    from aiperf_lab.metrics.sources import sniff

    if sniff(path) == "ncu-csv":
        return "an Nsight Compute CSV, not a telemetry recording: aiperf-stats reads it"
    # what a header would have been, not what this one holds: the file's first line can be anything (a
    # password file's), and a message is shown and kept where the file is not
    return ("not a telemetry recording: its first line is no header of one (aiperf's CSV starts t_s,gpu,...; "
            "NVML raw's t_s,power_mw,...; an nvidia-smi query log's timestamp,... with a power.draw column)")


def _gzip_kind(path: Path) -> str:
    """A gzip file: an aiperf-triage bundle (its telemetry.csv is a recording), another .tar.gz, or a
    compressed file; the members are listed under safe_tar's bounds."""
    from pathlib import PurePosixPath

    from aiperf_lab.safe_tar import streamed

    where = shown_path(path)
    telemetry: str | None = None
    triage = False
    try:
        with streamed(path, where) as (_tar, members):
            for member in members:
                parts = PurePosixPath(member.name).parts
                inner = "/".join(parts[1:])
                triage = triage or inner == "manifest.json" and parts[0].startswith("aiperf-triage")
                if inner == "telemetry.csv" and member.isfile():
                    telemetry = member.name
    except InputError:
        return "a gzip file, not a telemetry recording (a CSV): gunzip it first"
    kind = "an aiperf-triage bundle" if triage else "a .tar.gz archive"
    if telemetry is None:
        return f"{kind}, not a telemetry recording; it holds no telemetry.csv"
    return (f"{kind}, not a telemetry recording; its telemetry.csv is one: tar xzf {printable(path.name)}, "
            f"then use {printable(telemetry)}")


def _meta(first: str) -> tuple[dict[str, Any], io.StringIO]:
    """The `# aiperf-telemetry` line's JSON ({} without one) and the first piece of text, read past it."""
    head = io.StringIO(first)
    line = head.readline()
    if not line.startswith(META_PREFIX):
        head.seek(0)
        return {}, head
    try:
        meta = json.loads(line[len(META_PREFIX):].removesuffix("\n"))
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        meta = {}
    if not isinstance(meta, dict):
        return {}, head
    if "devices" in meta:  # a list of objects, each with an integer index (or none): anything else is left out
        devices = meta["devices"]
        meta["devices"] = [d for d in devices if isinstance(d, dict) and (d.get("index") is None or type(d.get("index"))
                                                                          is int)] if isinstance(devices, list) else []
    return meta, head


def _read_recording(path: Path, on_header: Callable[[str, list[str]], None] | None) -> Recording:
    from aiperf_lab.inputs import open_regular, text_encoding

    with open_regular(path, MAX_RECORDING_BYTES) as handle:
        try:
            head = handle.read(4096)
            handle.seek(0)
        except OSError as exc:
            raise InputError(f"{shown_path(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
        what = _binary_kind(path, head)
        if what is not None:
            raise NotAProfile(f"{shown_path(path)}: {what}")
        pieces = _text_chunks(handle, path, text_encoding(head))
        meta, head = _meta(next(pieces, ""))
        went_on: list[bool] = []  # set when the header's record ran past the first piece

        def later_lines() -> Iterator[str]:
            went_on.append(True)
            yield from chain.from_iterable(map(io.StringIO, pieces))

        # each line ends at "\n" only (as io.StringIO splits them: a lone "\r" stays inside its line)
        lines = chain(head, later_lines())
        try:
            reader = csv.reader(lines)
            header = next(reader, None)
            if header is None:
                raise InputError(f"{path}: empty file")
            layout = sniff_recording(header)
            if layout is None:
                raise NotAProfile(f"{path}: {_other_text_kind(path, header)}")
            if on_header is not None:
                on_header(layout, [name.strip() for name in header])
            if layout == "aiperf":
                width = len(header)
                if went_on:  # (a header of over a MB) the rest through the same reader
                    body = (Cells.of_rows(rows, width) for rows in iter(lambda: list(islice(reader, CHUNK_ROWS)), []))
                else:
                    body = blocks(chain([head.read()], pieces), width)
                return _read_aiperf(path, header, body, meta)
            if layout == "nvidia-smi":  # a block of rows at a time into columns (smi.py)
                smi = SmiColumns(header)
                for chunk in iter(lambda: list(islice(reader, CHUNK_ROWS)), []):
                    smi.add(chunk)
            else:
                rows = list(reader)
        except csv.Error as exc:  # a field over csv's 128 KiB limit, a NUL byte
            raise InputError(f"{path}: not a telemetry recording ({exc})") from None
    if layout == "nvidia-smi":
        return _smi_recording(path, smi, meta)
    body = [r for r in rows if r and (r[0].strip() or any(cell.strip() for cell in r))]
    devices, ticks, bad_time, negative_time = _read_raw(header, body)
    if len(devices) > MAX_GPUS:
        raise InputError(f"{path}: {TooManyGpus(len(devices), len(body))}")
    devices = [_no_gpm(d) for d in devices]
    # A time no recording reaches (1e300 s) is a damaged row, skipped like a row cut short: in ns it
    # would be past any integer a clock holds.
    ticks = [tick for tick in ticks if abs(tick.t) <= MAX_TIME_S]
    ticks.sort(key=lambda tick: tick.t)  # stable: a log whose clock stepped back replays in time order
    if not ticks:
        raise InputError(f"{path}: a telemetry recording with a header but no samples")
    return Recording(path, layout, devices, ticks, meta, bad_time=bad_time, negative_time=negative_time)


def _smi_recording(path: Path, smi: SmiColumns, meta: dict[str, Any]) -> Recording:
    """An nvidia-smi log read into columns: average power only, energy integrated (smi.py)."""
    indices = smi.device_indices()
    if len(indices) > MAX_GPUS:
        raise InputError(f"{path}: {TooManyGpus(len(indices), smi.records)}")
    if not any(smi.kept()):
        raise InputError(f"{path}: a telemetry recording with a header but no samples")
    return Recording(path, "nvidia-smi", [_no_gpm(GpuInfo(i)) for i in indices], None, meta, smi=smi)


def _read_aiperf(path: Path, header: list[str], body: Iterator[Cells], meta: dict[str, Any]) -> Recording:
    """Our layout, a block of records at a time into columns (columns.SampleColumns)."""
    columns = SampleColumns(header, meta)
    try:
        for cells in body:
            columns.add_cells(cells)
    except TooManyGpus as exc:
        raise InputError(f"{path}: {exc}") from None
    columns.finish()
    if not any(columns.kept()):
        raise InputError(f"{path}: a telemetry recording with a header but no samples")
    return Recording(path, "aiperf", columns.devices, None, meta, columns.updates, columns.utc_origin_ns(),
                     columns=columns)


def _no_gpm(info: GpuInfo) -> GpuInfo:
    from dataclasses import replace

    return replace(info, gpm_reason=NOT_RECORDED, gpm_missing={})


def _read_raw(header: list[str], body: list[list[str]]):
    """The raw pynvml loop layout: mW, mJ (the counter every few rows), one GPU."""
    col = {name: i for i, name in enumerate(header)}
    tracker = EnergyTracker()
    ticks = []
    counters: list[float | None] = []   # each tick's counter reading (mJ), for _energy_in_time_order
    instant_seen = counter_seen = False
    bad_time = negative_time = None  # Recording.bad_time, Recording.negative_time
    for number_of_row, row in enumerate(row for row in body if len(row) >= len(header)):
        get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
        t = number(get("t_s"))
        if bad_time is None and (t is None or abs(t) > MAX_TIME_S) and unreachable_time(get("t_s"), MAX_TIME_S):
            bad_time = (number_of_row + 1, get("t_s"))
        if t is None:
            continue
        if negative_time is None and t < 0:
            negative_time = (number_of_row + 1, get("t_s"))
        average = number(get("power_mw"))
        instant = number(get("power_instant_mw"))
        power_mw, source = (instant, "instant") if instant is not None else (average, "average" if average else "")
        power = power_mw / 1000.0 if power_mw is not None else None
        tracker.add_power(t, power)
        counter = number(get("energy_mj"))
        tracker.add_counter(t, counter)
        counters.append(counter)
        instant_seen |= instant is not None
        counter_seen |= counter is not None
        ticks.append(Tick(t, [GpuSample(
            t, 0, power, source, average / 1000.0 if average is not None else None, None,
            tracker.energy_j(), tracker.source, number(get("util_gpu")), number(get("util_mem")),
            integer(get("mem_used_b")), None, number(get("temp_c")), number(get("sm_clock_mhz")),
            number(get("mem_clock_mhz")), integer(get("clock_event_reasons")))], None))
    if any(later.t < earlier.t for earlier, later in zip(ticks, ticks[1:])):
        _energy_in_time_order(ticks, counters)
    return [GpuInfo(0, energy_counter=counter_seen, instant_power=instant_seen)], ticks, bad_time, negative_time


def _energy_in_time_order(ticks: list[Tick], counters: list[float | None]) -> None:
    """A raw NVML log whose clock went back (rows appended after a restart, or out of order): energy made
    again in time order (rows at one time in file order, as the ticks are sorted): energy.energy_in_time_order."""
    order = sorted(range(len(ticks)), key=lambda k: ticks[k].t)
    samples = [ticks[k].gpus[0] for k in order]
    made = energy_in_time_order([s.t for s in samples], [s.power_w for s in samples], [counters[k] for k in order])
    for sample, (joules, source) in zip(samples, made):
        sample.energy_j, sample.energy_source = joules, source
