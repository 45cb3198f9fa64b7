"""A recording in our own layout (recording.py) held as columns, and one GPU's samples as columns.

`SampleColumns` takes the CSV records a block at a time as columns of cells (csv_blocks.py): per row
its time, the fields that change every sample as arrays of doubles (NaN where a cell has no reading), and a group id naming its combination of
the fields that change about once a second or less (held once per combination). About 70 bytes a row,
where one GpuSample, Tick and HostSample per row cost about 2 KB, and the rows themselves are never all
in memory at once. GPM windows (one per window, shared by the rows that carry it), link and process
reads (the rows where they change) and the devices are read as the rows come. `ticks()` makes the Tick
objects the console's replay plays, the same as a whole read made them; the reports read
`series(gpu)`, one GPU's samples in time order as columns.
"""

from __future__ import annotations

import gc
import math
from array import array
from dataclasses import dataclass, field, replace
from itertools import chain, compress, count, islice, repeat
from operator import attrgetter, eq, is_not, itemgetter, le, mul, ne, sub
from typing import Any, Callable, Sequence

from aiperf_lab.metrics.telemetry.cells import (NAN, float_or_none, floats, integer, number, numbers, processes,
                                               unreachable_time)
from aiperf_lab.metrics.telemetry.csv_blocks import Cells
from aiperf_lab.metrics.telemetry.model import (GPM_NAMES, GpmSample, GpuInfo, GpuSample, GpuStatus, HostSample,
                                                Tick)

NOT_RECORDED = "not in this recording"
MAX_TIME_S = 1e9  # 31 years from the recording's start: a time past it is a damaged row, left out
MAX_UTC_NS = 1 << 63  # a wall-clock anchor past year 2262 in ns is not a clock reading
# The most distinct GPU ids a recording may name: the NVIDIA driver runs at most 32 GPUs in one system
# (NV_MAX_DEVICES, nvlimits.h of open-gpu-kernel-modules) and a recording is one host's. Twice that leaves
# room; past it the file is many hosts' rows under one gpu column or a damaged one, and a table of one
# block per GPU would help nobody.
MAX_GPUS = 64


class TooManyGpus(ValueError):
    """More than MAX_GPUS distinct GPU ids in a recording (the reader says which file)."""

    def __init__(self, count: int, records: int):
        super().__init__(f"{count} distinct GPU ids in its first {records} records, over the {MAX_GPUS} one "
                         f"recording may name (one host's driver runs at most 32 GPUs): many hosts' rows under "
                         f"one gpu column, or a damaged one")

# The number columns a sample and its host reading take (the integer ones stored as doubles too: a
# cell's integer() is int(number()), so int() of the double gives it back exactly)
NUMBER_FIELDS = ["power_w", "power_avg_w", "power_limit_w", "energy_j", "util_gpu_pct", "util_mem_pct",
                 "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz", "mem_clock_mhz",
                 "clock_event_reasons", "status_t_s", "cpu_pct", "host_mem_used_bytes", "host_mem_total_bytes"]
INTEGER_FIELDS = {"mem_used_bytes", "mem_total_bytes", "clock_event_reasons", "host_mem_used_bytes",
                  "host_mem_total_bytes"}
TEXT_FIELDS = ["power_source", "energy_source"]
# Fields that change about once a second or less (the GPU, the sources, the GPM window the row carries,
# the sampler's status tier): see SampleColumns.add
GROUPED_FIELDS = ["gpu", "power_source", "energy_source", "lost", "gpm_t_s", "power_avg_w", "power_limit_w",
                  "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz", "mem_clock_mhz",
                  "clock_event_reasons", "status_t_s", "host_mem_total_bytes"]
GROUPED_NUMBER_FIELDS = [name for name in NUMBER_FIELDS if name in GROUPED_FIELDS]
ROW_FIELDS = [name for name in NUMBER_FIELDS if name not in GROUPED_FIELDS]  # power, energy, utilization, host


def _present(values: Sequence[float]) -> list[bool]:
    """True where a value is a reading (NaN is not equal to itself), in C."""
    return list(map(eq, values, values))


def _optional(values: Sequence[float], integers: bool = False) -> list:
    """The values with None for NaN (int() of each where `integers`)."""
    if integers:
        return [int(v) if v == v else None for v in values]
    return [v if v == v else None for v in values]


@dataclass
class Series:
    """One GPU's samples in time order (lost ones left out), a column per field. Numbers: NaN where
    the sample has no reading."""

    t: Sequence[float]
    power_w: Sequence[float]
    power_source: list[str]
    energy_j: Sequence[float]
    energy_source: list[str]
    util_gpu_pct: Sequence[float]
    util_mem_pct: Sequence[float]
    mem_used_bytes: Sequence[float]
    temp_c: Sequence[float]
    sm_clock_mhz: Sequence[float]
    clock_event_reasons: list[int | None]
    gpm: list[GpmSample | None]   # the window each sample carries (the same object for one window)
    # what the reports work out from the columns once (the windows covering each sample, ...)
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.t)

    @classmethod
    def of_samples(cls, samples: list[GpuSample]) -> "Series":
        """The columns of GpuSample objects (a live feed's ticks, the smaller layouts' readers)."""
        def column(name: str) -> list:
            return [NAN if v is None else v for v in map(attrgetter(name), samples)]

        return cls([s.t for s in samples], column("power_w"), [s.power_source for s in samples], column("energy_j"),
                   [s.energy_source for s in samples], column("util_gpu_pct"), column("util_mem_pct"),
                   column("mem_used_bytes"), column("temp_c"), column("sm_clock_mhz"),
                   [s.clock_event_reasons for s in samples], [s.gpm for s in samples])


def series_of_ticks(ticks: list[Tick], index: int) -> Series:
    """GPU `index`'s samples of a list of ticks, lost ones left out."""
    return Series.of_samples([s for tick in ticks for s in tick.gpus if s.index == index and not s.lost])


def _plain_floats(cells: list[str]) -> list[float] | None:
    """float() of every cell where each takes it and every value is finite (then number() of each is
    the same value), else None."""
    try:
        values = list(map(float, cells))
    except ValueError:
        return None
    return values if math.isfinite(sum(values)) or all(map(math.isfinite, values)) else None


def utc_origins(t_cells: list[str], utc_cells: list[str], times: list[float] | None = None) -> list[int]:
    """utc_ns - t_s (in ns) of the rows (their t_s and utc_ns cells) that have both: the candidates for the
    recording's UTC origin (the median of them all, see SampleColumns.utc_origin_ns). `times`: float()
    of each t_s cell, where already known."""
    try:  # the common case, every cell a number and every anchor in range, in C; else cell by cell
        utcs = list(map(int, utc_cells))
        times = times if times is not None else list(map(float, t_cells))
        if utcs and not (min(utcs) > 0 and max(utcs) < MAX_UTC_NS):
            raise ValueError
        return list(map(sub, utcs, map(round, map(mul, times, repeat(1e9)))))
    except (ValueError, OverflowError):
        origins = []
        for t_text, utc_text in zip(t_cells, utc_cells):
            try:
                utc, t_ns = int(utc_text), round(float(t_text) * 1e9)
            except (ValueError, OverflowError):  # not numbers, or a time beyond any float in ns
                continue
            if 0 < utc < MAX_UTC_NS:
                origins.append(utc - t_ns)
        return origins


def first_negative_time(t_cells: list[str], plain: list[float] | None, records_before: int) -> tuple[int, str] | None:
    """(its number among the records, from 1; the cell) of the first time cell below 0 in `t_cells`, the
    records after `records_before` others (`plain`: float() of each cell, where all are finite)."""
    if plain is not None and (not plain or min(plain) >= 0):
        return None
    times = plain if plain is not None else numbers(t_cells)
    for k, t in enumerate(times):
        if t is not None and t < 0:
            return records_before + k + 1, t_cells[k]
    return None


class SampleColumns:
    """The rows of a recording in our layout that have a time, in file order, as columns (see the module
    docstring). Feed it with `add(rows)` (any number of times), then call `finish()`.

    Per row: its time, the fields that change every sample (ROW_FIELDS, arrays of doubles), and a group:
    the fields that change about once a second or less (GROUPED_FIELDS) are held once per distinct
    combination of their cells (`tables`, a list per field), each row naming its combination."""

    def __init__(self, header: list[str], meta: dict[str, Any]):
        self.header = header
        self.col = {name: i for i, name in enumerate(header)}
        self.has_gpm = "gpm_t_s" in self.col
        self._described = {d.get("index"): d for d in meta.get("devices") or [] if isinstance(d, dict)}
        self.t = array("d")
        self.values = {name: array("d") for name in ROW_FIELDS}   # NaN: no reading
        self.group = array("l")                                    # per row: its index into the tables
        # per group: the GPU (int, None for a host-only row), lost, the window id (into self.windows, 0:
        # none), the text fields as written and the grouped number fields as doubles (NaN: no reading)
        self.tables: dict[str, list] = {name: [] for name in ["gpu", "lost", "window", *TEXT_FIELDS,
                                                              *GROUPED_NUMBER_FIELDS]}
        self._group_of: dict[tuple[str, ...], int] = {}
        self.windows: list[GpmSample | None] = [None]
        self._window_ids_of: dict[tuple[int | None, str], int] = {}
        self._with_gpm: set[int] = set()
        self._devices: dict[int, GpuInfo] = {}
        self.devices: list[GpuInfo] = []
        self.updates: list[tuple[float, int, GpuStatus]] = []
        # utc_ns - t_s of every row that has both (8 bytes each while they fit in 64 bits)
        self._origins: array | list[int] | None = array("q") if "utc_ns" in self.col else None
        self._series: dict[int, Series] = {}
        self._series_parts: tuple[dict[int, array], list[int | None]] | None = None  # see _parts
        self.records = 0  # the rows of full width read so far
        # (its number among those rows, from 1; the cell) of the first whose time is a number no recording
        # reaches (nan, inf, 1e400, past MAX_TIME_S): the reports skip such rows, a replay refuses the file
        self.bad_time: tuple[int, str] | None = None
        # (the same numbering; the cell) of the first row whose time is negative: a replay refuses the file
        self.negative_time: tuple[int, str] | None = None

    def __len__(self) -> int:
        return len(self.t)

    def add(self, body: list[list[str]]) -> None:
        """The next rows of the file (csv.reader's, after the header); rows cut short and rows without a
        time are skipped."""
        self.add_cells(Cells.of_rows(body, len(self.header)))

    def add_cells(self, cells: Cells) -> None:
        """The next records of the file, a column at a time (csv_blocks.blocks)."""
        col = self.col
        t_cells = cells.column(col["t_s"])
        t = _plain_floats(t_cells)  # every time a plain finite number (the common case), else None
        if self.bad_time is None:
            self._find_bad_time(t_cells, t)
        if self.negative_time is None:
            self.negative_time = first_negative_time(t_cells, t, self.records)
        self.records += len(t_cells)
        if self._origins is not None:
            self._add_origins(cells, t_cells, t)
        source: list[int] | None = None    # per kept row, its record in `cells` (None: every record)
        if t is None:
            t = numbers(t_cells)
            timed = list(map(is_not, t, repeat(None)))
            if not all(timed):
                source, t = list(compress(range(len(t)), timed)), list(compress(t, timed))
        if not t:
            return

        def text(name: str) -> list[str]:
            if name not in col:
                return [""] * len(t)
            cells_of = cells.column(col[name])
            return cells_of if source is None else list(map(cells_of.__getitem__, source))

        def row_of(k: int) -> list[str]:
            return cells.row(k if source is None else source[k])

        self.t += array("d", t)
        for name in ROW_FIELDS:
            self.values[name] += array("d", floats(text(name)))  # (faster than extend from a list)
        groups = self.tables["gpu"]
        first_group = len(groups)
        present = [name for name in GROUPED_FIELDS if name in col]
        grouped = self._distinct_groups([text(name) for name in present], len(t)) if present else None
        if grouped is None:  # too many combinations: each row a group of its own
            self.group.extend(range(first_group, first_group + len(t)))
            self._add_groups(text, row_of)
        else:
            units, run_units, starts = grouped  # units: (combination, its first row); per run: its unit
            unit_group = []                     # per unit: its group
            new: list[int] = []                 # the units seen for the first time in the recording
            for k, (key, _first) in enumerate(units):
                group = self._group_of.get(key)
                if group is None:
                    group = self._group_of[key] = first_group + len(new)
                    new.append(k)
                unit_group.append(group)
            if len(starts) == len(t):
                self.group.extend(map(unit_group.__getitem__, run_units))
            else:
                lengths = map(sub, [*starts[1:], len(t)], starts)
                self.group.extend(chain.from_iterable(map(repeat, map(unit_group.__getitem__, run_units), lengths)))
            if new:
                fresh = [units[k][0] for k in new]
                first_rows = [units[k][1] for k in new]

                def cells_of(name: str) -> list[str]:
                    if name not in col:
                        return [""] * len(fresh)
                    return list(map(itemgetter(present.index(name)), fresh))

                self._add_groups(cells_of, lambda k: row_of(first_rows[k]))
        self._add_updates(text, row_of, t, self.group[len(self.group) - len(t):])

    def _find_bad_time(self, t_cells: list[str], plain: list[float] | None) -> None:
        """bad_time from the next records' time cells (`plain`: float() of each, where all are finite)."""
        if plain is not None and (not plain or max(map(abs, plain)) <= MAX_TIME_S):
            return
        for k, cell in enumerate(t_cells):
            if unreachable_time(cell, MAX_TIME_S):
                self.bad_time = (self.records + k + 1, cell)
                return

    def _add_origins(self, cells: Cells, t_cells: list[str], times: list[float] | None) -> None:
        """utc_ns - t_s of the records that have both cells (rows cut short past them too); `times`:
        float() of every t_cells' cell where each takes it."""
        t_col, utc_col = self.col["t_s"], self.col["utc_ns"]
        origins = utc_origins(t_cells, cells.column(utc_col), times)
        reach = max(t_col, utc_col)
        reaching = [row for row in cells.short if len(row) > reach]
        if reaching:
            origins += utc_origins(list(map(itemgetter(t_col), reaching)), list(map(itemgetter(utc_col), reaching)))
        if isinstance(self._origins, array) and origins and not -(1 << 63) <= min(origins) <= max(origins) < 1 << 63:
            self._origins = list(self._origins)  # (a time of 1e300 s: an origin past 64 bits)
        self._origins.extend(origins)

    @staticmethod
    def _distinct_groups(columns: list[list[str]], rows: int) \
            -> tuple[list[tuple[tuple[str, ...], int]], list[int], list[int]] | None:
        """(units, run_units, starts) of the rows' cells of the grouped fields (a column each): the
        starts of the runs of rows whose cells are all the same, the distinct combinations with the
        first row that has each (units, in first-seen order), and per run its unit; None where the
        combinations are not much fewer than the rows."""
        starts_found = {0}
        for column in columns:
            if column.count(column[0]) != rows:  # (most are the same on every row of a block)
                starts_found.update(compress(range(1, rows), map(ne, islice(column, 1, None), column)))
        if 4 * len(starts_found) > rows:
            starts = list(range(rows))
            keys = zip(*columns)
        else:
            starts = sorted(starts_found)
            keys = zip(*(map(column.__getitem__, starts) for column in columns))
        first_of: dict[tuple[str, ...], int] = {}  # combination -> the first run that has it
        first_runs = list(map(first_of.setdefault, keys, count()))  # one dict step a run
        if 4 * len(first_of) > rows:
            return None
        unit_of = {run: unit for unit, run in enumerate(first_of.values())}
        return ([(key, starts[run]) for key, run in first_of.items()],
                list(map(unit_of.__getitem__, first_runs)), starts)

    def _add_groups(self, cells, row_of) -> None:
        """New groups: `cells(name)` their cells of a grouped field, `row_of(k)` the first row of group k
        (in file order: a GPM window and a GPU are described from the first row that has them)."""
        tables = self.tables
        gpus = numbers(cells("gpu"), integers=True)
        tables["gpu"].extend(gpus)
        tables["lost"].extend(map(eq, cells("lost"), repeat("1")))
        for name in TEXT_FIELDS:
            tables[name].extend(cells(name))
        for name in GROUPED_NUMBER_FIELDS:
            tables[name].extend(floats(cells(name)))
        tables["window"].extend(self._window_ids(list(zip(gpus, cells("gpm_t_s"))), row_of))
        self._add_devices(row_of, gpus)

    def _window_ids(self, keys: list[tuple[int | None, str]], row_of: Callable[[int], list[str]]) -> list[int]:
        """The window id of each (GPU, gpm_t_s cell); a new one's GpmSample made from the row that first
        carries it (row_of(k): the first row of key k)."""
        if not self.has_gpm:
            return [0] * len(keys)
        ids = self._window_ids_of
        new = set(keys).difference(ids)
        if new:
            first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))  # key -> its first position
            window_col = self.col.get("gpm_window_s")
            value_cols = [(name, self.col.get("gpm_" + name)) for name in GPM_NAMES]
            for key in sorted(new, key=first.__getitem__):
                index, gpm_text = key
                gpm_t = number(gpm_text) if index is not None and gpm_text else None
                if gpm_t is None:
                    ids[key] = 0
                    continue
                row = row_of(first[key])
                self.windows.append(GpmSample(
                    gpm_t, (number(row[window_col]) if window_col is not None else None) or 0.0,
                    **{name: number(row[i]) if i is not None else None for name, i in value_cols}))
                ids[key] = len(self.windows) - 1
                self._with_gpm.add(index)
        return list(map(ids.__getitem__, keys))

    def _add_updates(self, text: Callable[[str], list[str]], row_of: Callable[[int], list[str]], t: list[float],
                     groups: Sequence[int]) -> None:
        """Links and processes, on the rows that read them (a `processes` cell): `text(name)` a column of
        the rows, `row_of(k)` row k."""
        col = self.col
        if "processes" not in col:
            return
        gpus = self.tables["gpu"]
        cells = text("processes")
        for k in compress(range(len(cells)), cells):
            index = gpus[groups[k]]
            if index is None:
                continue
            row = row_of(k)
            get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
            self.updates.append((t[k], index, GpuStatus(integer(get("pcie_gen")), integer(get("pcie_width")),
                                                         integer(get("pcie_gen_max")), integer(get("pcie_width_max")),
                                                         power_limit_w=number(get("power_limit_w")),
                                                         processes=processes(cells[k]))))

    def _add_devices(self, row_of: Callable[[int], list[str]], gpus: list[int | None]) -> None:
        """Each GPU as its first row and the metadata line describe it (row_of(k) has the GPU gpus[k],
        in file order). TooManyGpus past MAX_GPUS of them."""
        col = self.col
        first = {}  # each GPU not seen before -> its first position in gpus
        for k, index in enumerate(gpus):
            if index is not None and index not in self._devices and index not in first:
                first[index] = k
        if len(self._devices) + len(first) > MAX_GPUS:
            raise TooManyGpus(len(self._devices) + len(first), self.records)
        for index, position in first.items():
            row = row_of(position)
            get = lambda name: row[col[name]] if name in col else ""  # noqa: E731
            about = self._described.get(index) or {}
            missing = about.get("gpm_missing")
            self._devices[index] = GpuInfo(
                index, name=about.get("name") if isinstance(about.get("name"), str) else None,
                mem_total_bytes=integer(get("mem_total_bytes")),
                power_limit_w=number(get("power_limit_w")) or float_or_none(about.get("power_limit_w")),
                energy_counter=get("energy_source") == "counter", instant_power=get("power_source") == "instant",
                gpm_reason=str(about["gpm_reason"]) if "gpm_reason" in about else
                ("" if self.has_gpm else NOT_RECORDED),
                gpm_missing={str(k): str(v) for k, v in missing.items()} if isinstance(missing, dict) else {})

    def finish(self) -> None:
        devices = self._devices
        for index, info in list(devices.items()):
            if info.gpm_reason == "" and index not in self._with_gpm:
                devices[index] = replace(info, gpm_reason="no GPM values in this recording")
        self.devices = [devices[i] for i in sorted(devices)]

    # --- what the recording offers ---------------------------------------------------------------

    def kept(self) -> list[bool]:
        """Per row: its time is one a recording reaches (|t| <= MAX_TIME_S)."""
        return list(map(le, map(abs, self.t), repeat(MAX_TIME_S)))

    def utc_origin_ns(self) -> int | None:
        """UTC ns at t = 0: the median of utc_ns - t_s over the rows that have both (t_s is rounded to 0.1 ms,
        utc_ns is exact, so the median sits within 50 us of the sampler's own origin)."""
        if not self._origins:
            return None
        # sorted as offsets from one of them where they all fit in 30 bits (about a second): ints of one
        # digit compare faster; the same order
        base = self._origins[0]
        offsets = list(map(sub, self._origins, repeat(base)))
        if -(1 << 30) < min(offsets) and max(offsets) < 1 << 30:
            return sorted(offsets)[len(offsets) // 2] + base
        origins = sorted(self._origins)
        return origins[len(origins) // 2]

    def time_span(self) -> tuple[float, float] | None:
        """(first, last) of the times kept, None when no row is kept."""
        times = list(compress(self.t, self.kept()))
        return (min(times), max(times)) if times else None

    def column(self, name: str) -> Sequence:
        """A field's value per row: a ROW_FIELDS array, or a group table's values row by row."""
        if name in self.values:
            return self.values[name]
        return list(map(self.tables[name].__getitem__, self.group))

    def series(self, index: int) -> Series:
        """GPU `index`'s samples, lost ones and damaged times left out, in time order (rows at one time
        in file order): what a walk over ticks() gives, without making them. Made once per GPU (the
        summary and the findings read the same)."""
        if index not in self._series:
            self._series[index] = self._make_series(index)
        return self._series[index]

    def _parts(self) -> tuple[dict[int, array], list[int | None]]:
        """What every GPU's series takes from the whole recording, worked out once in one pass over the
        rows: per GPU its rows (time kept, not lost) in file order, and per group its clock-event mask
        (None: no reading). A pass per GPU instead cost 64 GPUs 64 passes over every row."""
        if self._series_parts is None:
            tables = self.tables
            gpu_of_group = [None if lost else gpu for gpu, lost in zip(tables["gpu"], tables["lost"])]
            reasons = [int(v) if v == v else None for v in tables["clock_event_reasons"]]
            kept = self.kept()
            kept_rows = compress(range(len(self.t)), kept)
            distinct = set(gpu_of_group)
            rows_of: dict[int | None, array] = {}  # (8 bytes a row: kept as long as the recording)
            if len(distinct) == 1:  # one GPU and no host-only or lost row (the common case): in C
                rows_of[distinct.pop()] = array("q", kept_rows)
            else:
                for row, gpu in zip(kept_rows, map(gpu_of_group.__getitem__, compress(self.group, kept))):
                    rows = rows_of.get(gpu)
                    if rows is None:
                        rows = rows_of[gpu] = array("q")
                    rows.append(row)
            rows_of.pop(None, None)
            self._series_parts = (rows_of, reasons)
        return self._series_parts

    def _make_series(self, index: int) -> Series:
        tables = self.tables
        rows_of, reasons = self._parts()
        rows = rows_of.get(index, array("q"))
        every_row = len(rows) == len(self.t)
        times = self.t.tolist() if every_row else list(map(self.t.__getitem__, rows))
        if not all(map(le, times, times[1:])):
            order = sorted(range(len(rows)), key=times.__getitem__)  # stable: equal times keep file order
            rows = list(map(rows.__getitem__, order))
            times = list(map(times.__getitem__, order))
            every_row = False
        if every_row:
            def pick(column: array) -> Sequence:
                return column
        elif len(rows) == 1:
            def pick(column: array) -> Sequence:
                return array(column.typecode, [column[rows[0]]])
        else:
            take = itemgetter(*rows)  # in C, one index after the other

            def pick(column: array) -> Sequence:
                return array(column.typecode, take(column))
        groups = pick(self.group)

        def grouped(name: str, table: list | None = None) -> list:
            return list(map((table if table is not None else tables[name]).__getitem__, groups))

        values = self.values
        return Series(array("d", times), pick(values["power_w"]), grouped("power_source"), pick(values["energy_j"]),
                      grouped("energy_source"), pick(values["util_gpu_pct"]), pick(values["util_mem_pct"]),
                      grouped("mem_used_bytes"), grouped("temp_c"), grouped("sm_clock_mhz"),
                      grouped("clock_event_reasons", reasons),
                      grouped("window", list(map(self.windows.__getitem__, tables["window"]))))

    def ticks(self) -> list[Tick]:
        """One Tick per distinct time (in time order, damaged times left out), its HostSample from the
        first row at that time and one GpuSample per GPU row, as a whole read made them."""
        collecting = gc.isenabled()
        gc.disable()  # a million objects and none of them garbage: see recording.read_recording
        try:
            ticks = self._ticks()
            gc.freeze()
            return ticks
        finally:
            if collecting:
                gc.enable()

    def _ticks(self) -> list[Tick]:
        tables, group = self.tables, self.group

        def row_values(name: str) -> list:  # with None for no reading
            if name in self.values:
                return _optional(self.values[name], name in INTEGER_FIELDS)
            return list(map(_optional(tables[name], name in INTEGER_FIELDS).__getitem__, group))

        power_w, power_avg_w, power_limit_w, energy_j, util_gpu, util_mem, mem_used, mem_total, temp_c, \
            sm_clock, mem_clock, reasons, status_t, cpu, host_used, host_total = map(row_values, NUMBER_FIELDS)
        power_source, energy_source = (list(map(tables[name].__getitem__, group)) for name in TEXT_FIELDS)
        gpus, losts, window_ids = (list(map(tables[name].__getitem__, group)) for name in ("gpu", "lost", "window"))
        windows = self.windows
        ticks: dict[float, Tick] = {}
        for k, (t, gpu, lost, window) in enumerate(zip(self.t, gpus, losts, window_ids)):
            tick = ticks.get(t)
            if tick is None:
                tick = ticks[t] = Tick(t, [], HostSample(t, cpu[k], host_used[k], host_total[k]))
            if gpu is None:
                continue
            sample = GpuSample(t, gpu, power_w[k], power_source[k], power_avg_w[k], power_limit_w[k], energy_j[k],
                               energy_source[k], util_gpu[k], util_mem[k], mem_used[k], mem_total[k], temp_c[k],
                               sm_clock[k], mem_clock[k], reasons[k], lost, status_t=status_t[k])
            if window:
                sample.gpm = windows[window]
            tick.gpus.append(sample)
        ordered = sorted(ticks.values(), key=lambda tick: tick.t)
        return [tick for tick in ordered if abs(tick.t) <= MAX_TIME_S]
