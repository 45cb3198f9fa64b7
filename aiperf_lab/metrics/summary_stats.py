"""Summary statistics computed exactly as `nsys stats` reports them.

- Avg and Med are rounded to one decimal, StdDev is the *sample* standard deviation (n-1),
  0 for a single value, rounded to one decimal.
- Rounding is SQLite's ``round(x, 1)``: half away from zero on the exact binary value of the double,
  so 86953.25 gives 86953.3 (Python's ``round`` gives 86953.2) while 841.15, stored as 841.1499...,
  gives 841.1.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Sequence

_QUANTUM = {n: Decimal(1).scaleb(-n) for n in range(0, 7)}


def sqlite_round(value: float | int | None, digits: int = 1) -> float | None:
    """``round(value, digits)`` as SQLite computes it (half away from zero on the exact double)."""
    if value is None:
        return None
    if isinstance(value, int):
        return float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    exact = Decimal(value)  # the exact binary value, no decimal rounding on the way in
    return float(exact.quantize(_QUANTUM[digits], rounding=ROUND_HALF_UP))


def median(sorted_values: Sequence[int | float]) -> float:
    """Median of already sorted values; the mean of the two middle values for an even count."""
    n = len(sorted_values)
    mid = n // 2
    if n % 2:
        return float(sorted_values[mid])
    return (sorted_values[mid - 1] + sorted_values[mid]) / 2


def sample_stdev(values: Sequence[int], total: int | None = None) -> float:
    """Sample standard deviation of integers, from exact integer sums (no cancellation error)."""
    n = len(values)
    if n < 2:
        return 0.0
    s1 = sum(values) if total is None else total
    s2 = sum(v * v for v in values)
    numerator = n * s2 - s1 * s1  # exact: n(n-1) * variance
    if numerator <= 0:
        return 0.0
    return math.sqrt(numerator / (n * (n - 1)))


def sample_stdev_float(values: Sequence[float]) -> float:
    """Sample standard deviation of floats (two passes, for values that are not integers)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = math.fsum(values) / n
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))


def raw_summary(values: list[int]) -> tuple[int, int, float, float, int, int, float]:
    """(total, count, mean, median, min, max, sample stdev) of integers, unrounded. Sorts in place."""
    values.sort()
    n = len(values)
    total = sum(values)
    return total, n, total / n, median(values), values[0], values[-1], sample_stdev(values, total)


def duration_summary(values: list[int]) -> tuple[int, int, float, float, int, int, float]:
    """(total, count, avg, med, min, max, stdev) of integer durations, rounded as nsys prints them.

    Sorts `values` in place.
    """
    total, n, mean, med, low, high, stdev = raw_summary(values)
    return total, n, sqlite_round(mean), sqlite_round(med), low, high, sqlite_round(stdev)


def percent_of(part: int | float, whole: int | float) -> float:
    """``round(part * 100.0 / whole, 1)`` as nsys computes a "Time (%)" column; 0 when whole is 0."""
    if not whole:
        return 0.0
    return sqlite_round(part * 100.0 / whole)
