"""An `nvidia-smi --query-gpu=timestamp,power.draw,... --format=csv` log held as columns.

The log is read a block of rows at a time (recording.CHUNK_ROWS) into arrays of doubles, 8 bytes a field a
row (NaN: no reading), where a GpuSample and a Tick per row cost about 1 KB and the rows themselves were all
held at once: `series(gpu)` gives the reports their columns without an object per row, `ticks()` makes the
Tick objects the console's replay plays, the same as the reader made them before.

The timestamp (`2026/11/22 02:06:28.210`, local time) is read as datetime.strptime(cell, "%Y/%m/%d
%H:%M:%S.%f").timestamp() reads it, to the same float: the whole second through `datetime(...).timestamp()`
once per distinct second (the rows come in time order: the last one is remembered), the fraction added the
way datetime.timestamp adds microseconds. A cell not in that fixed-width form goes through strptime itself.
"""

from __future__ import annotations

import math
import re
from array import array
from datetime import datetime
from itertools import accumulate, compress, count, islice, repeat
from operator import eq, itemgetter, le
from typing import Iterable, Sequence

from aiperf_lab.metrics.telemetry.cells import NAN, floats, numbers
from aiperf_lab.metrics.telemetry.columns import MAX_TIME_S, Series
from aiperf_lab.metrics.telemetry.energy import EnergyTracker, energy_in_time_order
from aiperf_lab.metrics.telemetry.model import GpuSample, Tick

STAMP_FORMAT = "%Y/%m/%d %H:%M:%S.%f"
# a GPU's columns: its rows' times and the values the reports read (NaN: no reading)
COLUMNS = ("t", "power_w", "energy_j", "util_gpu_pct", "util_mem_pct", "mem_used_bytes", "temp_c", "sm_clock_mhz")
# The form nvidia-smi writes (zero-padded, seconds 00-59, 1 to 6 digits of fraction), in ASCII digits only:
# anything else (one-digit fields, a leap second, other digits) is left to strptime.
_FIXED_STAMP = re.compile(r"([0-9]{4})/([0-9]{2})/([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-5][0-9])\.([0-9]{1,6})")


def slow_stamp(text: str) -> float:
    """The reference reading of a timestamp cell (ValueError, OverflowError or OSError where it has none)."""
    return datetime.strptime(text, STAMP_FORMAT).timestamp()


class StampReader:
    """Timestamp cells to seconds since 1970 (see the module docstring); `slow` counts the cells that went
    through strptime."""

    def __init__(self) -> None:
        self._second: str | None = None   # the last whole second read ("YYYY/MM/DD HH:MM:SS")
        self._base = 0.0                  # its timestamp()
        self.slow = 0

    def __call__(self, text: str) -> float:
        found = _FIXED_STAMP.fullmatch(text)
        if found is None:
            self.slow += 1
            return slow_stamp(text)
        second = text[:19]
        if second != self._second:
            try:
                base = datetime(*map(int, found.groups()[:6])).timestamp()
            except (ValueError, OverflowError, OSError):  # (Feb 30, month 13, year 0: strptime says why)
                self.slow += 1
                return slow_stamp(text)
            self._second, self._base = second, base
        fraction = found.group(7)
        # datetime.timestamp(): float(whole seconds) + microsecond / 1e6, as %f pads the fraction to 6 digits
        return self._base + int(fraction.ljust(6, "0")) / 1e6


class SmiColumns:
    """The rows of an nvidia-smi query log that have a timestamp as columns, each GPU's its own (its rows in
    file order; `gpu` holds which GPU each row of the file was, for the ticks). Feed it with
    `add(rows)` (csv.reader's rows after the header, any number of times); `bad_time` and `negative_time`
    are never set (its times are dates): a replay checks the ticks."""

    bad_time = None
    negative_time = None

    def __init__(self, header: list[str]):
        names = [h.strip() for h in header]
        self.width = len(names)
        self.col = {name.split(" [")[0]: i for i, name in enumerate(names)}
        # the power column: power.draw, else the explicit forms drivers from R530 offer (a log asking only for
        # power.draw.average or .instant was read as one with no power: no energy, no average power)
        self.power_column, self.power_source = next(
            ((name, source) for name, source in (("power.draw", "average"), ("power.draw.average", "average"),
                                                 ("power.draw.instant", "instant")) if name in self.col),
            ("power.draw", "average"))
        self.stamps = StampReader()
        self.records = 0            # rows that are not blank, cut short or not
        self.gpu = array("l")       # per row, in file order: its GPU's position in self.gpus
        self.gpus: list[int | None] = []
        self._gpu_id: dict[int | None, int] = {}
        # per GPU (by position): its rows' times and values in file order, each GPU's columns its own, so that
        # its series is them (no copy of its rows out of columns shared by every GPU)
        self.columns: list[dict[str, array]] = []
        self._trackers: dict[int | None, EnergyTracker] = {}
        self._last_t: dict[int | None, float] = {}   # per GPU, its latest time in file order
        self._stepped_back: set[int | None] = set()  # GPUs whose clock went back in the file: energy redone
        self._t0: float | None = None
        self._series: dict[int | None, Series] = {}

    def __len__(self) -> int:
        return len(self.gpu)

    def add(self, rows: Iterable[list[str]]) -> None:
        width = self.width
        kept: list[list[str]] = []
        for row in rows:
            if not row or not (row[0].strip() or any(cell.strip() for cell in row)):
                continue  # a blank line
            self.records += 1
            if len(row) >= width:  # (shorter: a line cut short, the log was still being written)
                kept.append(row)
        if not kept:
            return
        col = self.col

        def column(name: str) -> list[str] | None:
            return [row[col[name]].strip() for row in kept] if name in col else None

        index_cells = column("index")
        # a GPU id that is no number makes the row a damaged one, skipped as one without a timestamp is
        gpus_all = numbers(index_cells, integers=True) if index_cells is not None else None
        read = self.stamps
        t0 = self._t0
        times: list[float] = []
        timed: list[bool] = []
        for k, text in enumerate(column("timestamp")):
            try:
                stamp = read(text)
            except (ValueError, IndexError, OverflowError, OSError):
                timed.append(False)
                continue
            if gpus_all is not None and gpus_all[k] is None:
                timed.append(False)
                continue
            timed.append(True)
            if t0 is None:
                t0 = stamp
            times.append(stamp - t0)
        self._t0 = t0
        if not times:
            return
        every = all(timed)

        def cells(name: str) -> list[str] | None:
            cells_of = column(name)
            return cells_of if cells_of is None or every else list(compress(cells_of, timed))

        gpus = [0] * len(times) if gpus_all is None else gpus_all if every else list(compress(gpus_all, timed))

        def doubles(name: str) -> list[float]:
            cells_of = cells(name)
            return floats(cells_of) if cells_of is not None else [NAN] * len(times)

        power = doubles(self.power_column)
        mem_mib = doubles("memory.used")
        energy: list[float] = []
        trackers = self._trackers
        last_t = self._last_t
        for t, index, watts in zip(times, gpus, power):
            tracker = trackers.get(index)
            if tracker is None:
                tracker = trackers[index] = EnergyTracker()
            if t < last_t.get(index, t):
                self._stepped_back.add(index)
            last_t[index] = t
            tracker.add_power(t, watts if watts == watts else None)
            joules = tracker.energy_j()
            energy.append(NAN if joules is None else joules)
        ids = self._gpu_id
        for index in set(gpus).difference(ids):
            ids[index] = len(self.gpus)
            self.gpus.append(index)
            self.columns.append({name: array("d") for name in COLUMNS})
        positions = list(map(ids.__getitem__, gpus))
        self.gpu.extend(positions)
        # the bytes as integer(str(MiB * 1024 * 1024)) made them: int() of the product where it is finite
        mem_bytes = [float(math.trunc(v * 1048576)) if v == v and math.isfinite(v * 1048576) else NAN
                     for v in mem_mib]
        chunk = {"t": times, "power_w": power, "energy_j": energy, "util_gpu_pct": doubles("utilization.gpu"),
                 "util_mem_pct": doubles("utilization.memory"), "mem_used_bytes": mem_bytes,
                 "temp_c": doubles("temperature.gpu"), "sm_clock_mhz": doubles("clocks.current.sm")}
        first = positions[0]
        if positions.count(first) == len(positions):   # one GPU's rows (a log of one GPU: every chunk)
            for name, column in self.columns[first].items():
                column.extend(chunk[name])
            return
        # the chunk's rows grouped by GPU (a stable sort: each GPU's in file order), each group to its columns
        order = sorted(range(len(positions)), key=positions.__getitem__)
        take = itemgetter(*order)
        ends = list(accumulate(map(positions.count, sorted(set(positions)))))
        starts = [0, *ends[:-1]]
        for name, cells_of in chunk.items():
            grouped = take(cells_of)
            for start, end in zip(starts, ends):
                self.columns[positions[order[start]]][name].extend(grouped[start:end])

    def _energy_in_time_order(self) -> None:
        """Energy integrated again, in time order, for each GPU whose clock went back in the file (a log
        appended to after a reboot, an NTP step): integrated in file order, the running total read in time
        order went up and down, and its last minus its first (what the reports take) was anything (0 J, or an
        average power over the peak). Rows at one time keep their file order, as the series sorts them."""
        if not self._stepped_back:
            return
        for index in self._stepped_back:
            columns = self.columns[self._gpu_id[index]]
            energy, power, t = columns["energy_j"], columns["power_w"], columns["t"]
            rows = sorted(range(len(t)), key=t.__getitem__)
            watts = (power[k] for k in rows)
            made = energy_in_time_order(map(t.__getitem__, rows), (w if w == w else None for w in watts))
            for k, (joules, _source) in zip(rows, made):
                energy[k] = NAN if joules is None else joules
        self._stepped_back = set()
        self._series.clear()

    # --- what the recording offers ---------------------------------------------------------------

    def device_indices(self) -> list[int | None]:
        """The GPU ids of the rows that have a timestamp, sorted (as the devices are listed)."""
        return sorted(self.gpus)

    def kept(self) -> list[bool]:
        """Whether each row's time is one a clock reaches, GPU by GPU (each GPU's rows in file order)."""
        return [kept for columns in self.columns for kept in map(le, map(abs, columns["t"]), repeat(MAX_TIME_S))]

    def time_span(self) -> tuple[float, float] | None:
        spans = []
        for columns in self.columns:
            times = columns["t"]
            times = array("d", compress(times, map(le, map(abs, times), repeat(MAX_TIME_S))))  # 8 bytes a row
            if times:
                spans.append((min(times), max(times)))
        return (min(low for low, _ in spans), max(high for _, high in spans)) if spans else None

    def series(self, index: int | None) -> Series:
        """GPU `index`'s samples, damaged times left out, in time order (rows at one time in file order):
        what series_of_ticks(ticks(), index) gives, without making them."""
        self._energy_in_time_order()
        if index not in self._series:
            self._series[index] = self._make_series(index)
        return self._series[index]

    def _make_series(self, index: int | None) -> Series:
        wanted = self._gpu_id.get(index)
        if wanted is None:
            values = {name: array("d") for name in COLUMNS}
            rows: Sequence[int] = range(0)
        else:
            values = self.columns[wanted]
            t = values["t"]
            # the rows' positions held as an array (8 bytes a row), none where every row is kept
            rows = array("q", compress(count(), map(le, map(abs, t), repeat(MAX_TIME_S))))
            if len(rows) == len(t):
                rows = range(len(t))
        t = values["t"]
        times = t if isinstance(rows, range) else array("d", map(t.__getitem__, rows))
        in_order = all(map(le, times, islice(times, 1, None)))
        if not in_order:
            order = sorted(range(len(rows)), key=times.__getitem__)  # stable: equal times keep file order
            rows = array("q", map(rows.__getitem__, order))
        if in_order and len(rows) == len(t):   # the GPU's own columns, as they are
            def pick(column: array) -> array:
                return column
        elif len(rows) == 1:
            def pick(column: array) -> array:
                return array("d", [column[rows[0]]])
        elif rows:
            take = itemgetter(*rows)

            def pick(column: array) -> array:
                return array("d", take(column))
        else:
            def pick(column: array) -> array:
                return array("d")
        power, energy = pick(values["power_w"]), pick(values["energy_j"])
        sources = {True: self.power_source, False: ""}
        return Series(pick(t), power, list(map(sources.__getitem__, map(eq, power, power))), energy,
                      list(map({True: "integrated", False: ""}.__getitem__, map(eq, energy, energy))),
                      pick(values["util_gpu_pct"]), pick(values["util_mem_pct"]), pick(values["mem_used_bytes"]),
                      pick(values["temp_c"]), pick(values["sm_clock_mhz"]), [None] * len(rows), [None] * len(rows))

    def ticks(self) -> list[Tick]:
        """The Tick objects the reader made before: consecutive rows at one time are one tick, sorted by
        time (stable), damaged times left out."""
        self._energy_in_time_order()
        # per GPU, its samples in file order; the rows are taken in file order, each from its GPU's next
        samples = [iter(self._samples(position)) for position in range(len(self.gpus))]
        ticks: list[Tick] = []
        for position in self.gpu:
            sample = next(samples[position])
            if ticks and abs(ticks[-1].t - sample.t) < 1e-9:
                ticks[-1].gpus.append(sample)
            else:
                ticks.append(Tick(sample.t, [sample], None))
        ticks = [tick for tick in ticks if abs(tick.t) <= MAX_TIME_S]
        ticks.sort(key=lambda tick: tick.t)
        return ticks

    def _samples(self, position: int) -> list[GpuSample]:
        """The GpuSample of each of a GPU's rows, in file order."""
        values = self.columns[position]

        def optional(name: str) -> list:
            return [v if v == v else None for v in values[name]]

        power, energy, util_gpu, util_mem, temp, sm_clock = map(optional, ("power_w", "energy_j", "util_gpu_pct",
                                                                          "util_mem_pct", "temp_c", "sm_clock_mhz"))
        mem = [int(v) if v == v else None for v in values["mem_used_bytes"]]
        gpu, source = self.gpus[position], self.power_source
        return [GpuSample(t, gpu, watts, source if watts is not None else "",
                          watts if source == "average" else None, None, joules,
                          "integrated" if joules is not None else "", util_gpu[k], util_mem[k], mem[k], None,
                          temp[k], sm_clock[k])
                for k, (t, watts, joules) in enumerate(zip(values["t"], power, energy))]
