"""The real nvidia-smi query log grown to any length: one writer for tests/test_telemetry_smi_scale.py and
benchmarks/smi_scale.py (each had its own copy); and bytes_a_row, what a reading holds a row (the tests of
memory in test_telemetry_smi_scale.py and test_session21_small.py)."""

from __future__ import annotations

import gc
import tracemalloc

from datetime import datetime, timedelta
from pathlib import Path

REAL = Path(__file__).parent / "data" / "h200" / "nvidia-smi-query-gpu-lms100.csv"
FORMAT = "%Y/%m/%d %H:%M:%S.%f"


def grow(target: Path, rows: int, gpus: int = 0) -> Path:
    """Write `rows` rows of the real log's (`nvidia-smi --query-gpu=timestamp,... --format=csv -lms 100`) to
    `target`: its rows repeated, each repeat's timestamps moved on by the log's span so that the times keep
    increasing at 100 ms (400,000 rows: 11 hours, 23 MB). With `gpus`, an index column and that many rows
    per time (a multi-GPU query). Written as it goes: the log is never held whole."""
    lines = REAL.read_text(encoding="utf-8").splitlines()
    header, body = lines[0], [line for line in lines[1:] if line.strip()]
    stamps = [datetime.strptime(line.split(",")[0], FORMAT) for line in body]
    step = stamps[-1] - stamps[0] + timedelta(milliseconds=100)
    if gpus:
        names = header.split(", ")
        header = ", ".join([names[0], "index", *names[1:]])
    written = repeat = 0
    with open(target, "w", encoding="utf-8") as out:
        out.write(header + "\n")
        while written < rows:
            for stamp, line in zip(stamps, body):
                text = (stamp + repeat * step).strftime(FORMAT)[:-3]
                rest = line[line.index(","):]
                for g in range(gpus or 1):
                    if written == rows:
                        return target
                    out.write(f"{text}, {g}{rest}\n" if gpus else text + rest + "\n")
                    written += 1
            repeat += 1
    return target


def bytes_a_row(work, rows: int) -> tuple[float, float]:
    """(held after, peak beyond that) of work(), in bytes a row, under tracemalloc."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        held, peak = tracemalloc.get_traced_memory()
        return (held - before) / rows, (peak - held) / rows
    finally:
        tracemalloc.stop()
