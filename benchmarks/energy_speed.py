"""How long the energy reports take on a large export: a 150,000-kernel synthetic export (made from the
H200 fixture by benchmarks/make_synthetic_export.py) with telemetry at 100 Hz over its whole span.

    python benchmarks/make_synthetic_export.py tests/data/h200/lm_forward.sqlite big.sqlite --kernels 150000
    python benchmarks/energy_speed.py big.sqlite [--repeat 3]

Prints the wall time of each report (median of the repeats), in-process, export opened once per run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.metrics.nsys.db import NsysDatabase  # noqa: E402
from aiperf_lab.metrics.sources import ReportOptions, open_profile  # noqa: E402
from aiperf_lab.metrics.telemetry.model import GpuSample, Tick  # noqa: E402
from aiperf_lab.metrics.telemetry.recording import TelemetryWriter  # noqa: E402


def write_telemetry(export: Path, path: Path, hz: float = 100.0) -> int:
    db = NsysDatabase(export)
    epoch = db.query("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")[0][0]
    start, stop = db.query("SELECT min(startTime), max(stopTime) FROM ANALYSIS_DETAILS")[0]
    end = max(stop, db.query("SELECT max([end]) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0])
    writer = TelemetryWriter(path.open("w", encoding="utf-8", newline=""))
    writer.utc_origin_ns = epoch + start
    n = int((end - start) / 1e9 * hz) + 2
    for i in range(n):
        t = i / hz
        power = 300.0 + 200.0 * (i % 7) / 7
        writer.write(Tick(t, [GpuSample(t, 0, power, "instant", power, 700.0, t * 400.0, "counter")], None), {})
    writer.close()
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    telemetry = Path(tempfile.mkdtemp()) / "telemetry.csv"
    samples = write_telemetry(args.export, telemetry)
    kernels = NsysDatabase(args.export).count("CUPTI_ACTIVITY_KIND_KERNEL")
    print(f"{args.export.name}: {kernels} kernels; telemetry: {samples} samples at 100 Hz")
    for report in ("energy_by_range", "energy_by_category"):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            open_profile(args.export).report(report, ReportOptions(telemetry=telemetry))
            times.append(time.perf_counter() - t0)
        print(f"{report}: {statistics.median(times):.2f} s (median of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
