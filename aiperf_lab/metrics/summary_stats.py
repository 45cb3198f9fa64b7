"""Summary statistics computed exactly as `nsys stats` reports them.

- Avg and Med are rounded to one decimal, StdDev is the *sample* standard deviation (n-1),
  0 for a single value, rounded to one decimal.
- Rounding is SQLite's ``round(x, 1)``: half away from zero on the exact binary value of the double,
  so 86953.25 gives 86953.3 (Python's ``round`` gives 86953.2) while 841.15, stored as 841.1499...,
  gives 841.1.
"""

from __future__ import annotations

import math
from operator import mul

SUM_COLUMNS = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
               "StdDev (ns)"]


def sqlite_round(value: float | int | None, digits: int = 1) -> float | None:
    """``round(value, digits)`` as nsys's SQLite computes it: half away from zero on the exact double.

    (Python's own sqlite3 may be older and round differently: 3.40 gives 841.2 for 841.15, nsys 841.1.)
    """
    if value is None:
        return None
    if isinstance(value, int):
        return float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    numerator, denominator = abs(value).as_integer_ratio()  # exact: the denominator is a power of two
    scale = 10 ** digits
    halves_up = (2 * numerator * scale + denominator) // (2 * denominator)  # floor(x * scale + 1/2)
    rounded = halves_up / scale  # int / int: the float nearest to the decimal result
    return -rounded if value < 0 else rounded


def median(sorted_values: list[int] | list[float]) -> float:
    """Median of already sorted values; the mean of the two middle values for an even count."""
    n = len(sorted_values)
    mid = n // 2
    if n % 2:
        return float(sorted_values[mid])
    return (sorted_values[mid - 1] + sorted_values[mid]) / 2


def _sum_of_squares(values: list[int]) -> int:
    return sum(map(mul, values, values))


if hasattr(math, "sumprod"):  # Python 3.12+: the same exact integer sum in one C loop, no product objects
    def _sum_of_squares(values: list[int]) -> int:  # noqa: F811
        return math.sumprod(values, values) if values else 0


def sample_stdev(values: list[int], total: int | None = None) -> float:
    """Sample standard deviation of integers, from exact integer sums (no cancellation error)."""
    n = len(values)
    if n < 2:
        return 0.0
    return stdev_from_sums(n, sum(values) if total is None else total, _sum_of_squares(values))


def stdev_from_sums(n: int, total: int, squares: int) -> float:
    """sample_stdev from n, the sum and the sum of squares of integers (exact: Python ints do not overflow)."""
    if n < 2:
        return 0.0
    numerator = n * squares - total * total  # exact: n(n-1) * variance
    if numerator <= 0:
        return 0.0
    return math.sqrt(numerator / (n * (n - 1)))


def sum_of_squares(values: list[int]) -> int:
    return _sum_of_squares(values)


def sample_stdev_float(values: list[float]) -> float:
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


def summary_rows(groups: dict, count_label_rows: bool = True) -> list[list]:
    """Rows of Time(%), Total, n, Avg, Med, Min, Max, StdDev, name; ordered Total desc, then name.

    With `count_label_rows`, ties in Total go by Instances then name (nsys's kernel summary order).
    Ties otherwise keep the order of the group key, as SQLite's stable sort over GROUP BY output does.
    """
    stats = [(name, duration_summary(values)) for name, values in groups.items()]
    grand_total = sum(s[0] for _, s in stats)
    stats.sort(key=lambda item: item[0])
    stats.sort(key=lambda item: (-item[1][0], item[1][1]) if count_label_rows else -item[1][0])
    return [[percent_of(s[0], grand_total), *s, name] for name, s in stats]
