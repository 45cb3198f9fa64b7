"""A recording's cells as numbers: one cell (`number`, `integer`), a column of them in one pass
(`numbers`), and a column kept compact (`extend_floats`: an array of doubles, NaN where no reading)."""

from __future__ import annotations

import json
import math
from array import array
from typing import Any

from aiperf_lab.metrics.telemetry.model import GpuProcess

NAN = math.nan


def number(text: str) -> float | None:
    text = text.strip()
    if not text or text in ("[N/A]", "N/A", "[Not Supported]"):
        return None
    try:
        value = float(text.split()[0].replace(",", ""))  # "81.72 W" -> 81.72
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # nan/inf: no reading


def unreachable_time(text: str, limit: float) -> bool:
    """A time cell that is a number no recording reaches: nan, inf, -inf, 1e400 (read as inf) or past `limit`
    seconds either way. Text that is no number at all (a header line written again) is not one: that row is
    skipped as damaged, as a row cut short is."""
    try:
        value = float(text.strip().split()[0].replace(",", ""))
    except (ValueError, IndexError):
        return False
    return not abs(value) <= limit


def integer(text: str) -> int | None:
    value = number(text)
    return int(value) if value is not None else None  # number() is finite, so int() cannot fail


def numbers(cells: list[str], integers: bool = False) -> list:
    """number (or integer, with `integers`) of every cell of a column, in C where it can be: a column of
    plain numbers through float() (it accepts exactly those of number's inputs that need no unit or
    comma stripped, and gives the same value), else one number() per distinct cell, shared."""
    try:
        values: list = list(map(float, cells))
    except ValueError:
        pass
    else:
        if all(map(math.isfinite, values)):
            return list(map(int, values)) if integers else values
        return [(int(v) if integers else v) if math.isfinite(v) else None for v in values]
    distinct = set(cells)
    convert = integer if integers else number
    converted = {cell: convert(cell) for cell in distinct}
    return list(map(converted.__getitem__, cells))


def floats(cells: list[str]) -> list[float]:
    """number() of every cell, NaN for None (number() is never NaN, so NaN stands for "no reading"
    without loss); in C: float() where every cell takes it (it gives number()'s value for each), else
    number() once per distinct cell. An integer column is kept the same way: integer() is
    int(number()), so int() of the double gives it back exactly."""
    try:  # (float() is cheaper than a set of the cells even where they repeat)
        values = list(map(float, cells))
    except ValueError:
        pass
    else:
        # a finite sum: every value finite (an inf or a NaN makes it inf or NaN); else look at each
        if not math.isfinite(sum(values)) and not all(map(math.isfinite, values)):
            values = [v if math.isfinite(v) else NAN for v in values]
        return values
    distinct = set(cells)
    converted = {cell: number(cell) for cell in distinct}
    converted = {cell: NAN if value is None else value for cell, value in converted.items()}
    return list(map(converted.__getitem__, cells))


def extend_floats(column: array, cells: list[str]) -> None:
    """floats(cells) appended to an array of doubles."""
    column.extend(floats(cells))


def float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def processes(cell: str) -> list[GpuProcess]:
    """The `processes` cell: [[pid, name, user, memory, sm %, mem %, energy share %, energy J], ...]."""
    try:
        entries = json.loads(cell)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return []
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, list) or len(entry) < 4 or not isinstance(entry[0], int):
            continue
        entry = entry + [None] * (8 - len(entry))
        text = lambda v: v if isinstance(v, str) else None  # noqa: E731
        memory = entry[3] if isinstance(entry[3], int) else None
        found.append(GpuProcess(entry[0], text(entry[1]), memory, text(entry[2]), None, float_or_none(entry[4]),
                                float_or_none(entry[5]), float_or_none(entry[6]), float_or_none(entry[7])))
    return found
