"""A markdown table of lab runs from their run.json files: python benchmarks/lab_results.py RUNS_DIR"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KEYS = ["tflops", "avg_power_w", "idle_power_w", "peak_power_w", "energy_j", "work_per_joule", "nominal_tflops",
        "pageable_h2d_gb_s", "pinned_h2d_gb_s", "pinned_d2h_gb_s", "pcie_nominal_gb_s", "transfer_ms", "compute_ms",
        "sequential_ms", "overlapped_ms", "hidden_fraction_of_transfer", "top_kernel", "top_kernel_pct"]


def main() -> int:
    runs = sorted(Path(sys.argv[1]).glob("*/run.json"))
    print("| exercise | variant | profile | exit | s | measurements | checks |\n|---|---|---|---|---|---|---|")
    for path in runs:
        r = json.loads(path.read_text())
        m = r["measurements"]
        shown = ", ".join(f"{k}={m[k]:.4g}" if isinstance(m.get(k), float) else f"{k}={str(m[k])[:48]}"
                          for k in KEYS if m.get(k) is not None)
        checks = "; ".join(f"{c['id']} {c['status'].upper()} ({c['detail']})" for c in r["checks"])
        print(f"| {r['exercise']} | {r['variant']} | {r['profile']} | {r['exit_code']} | {r['seconds']} | {shown} | {checks} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
