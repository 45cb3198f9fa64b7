"""Check that every metric id our configuration can ask ncu for exists, by asking ncu on one kernel.

    python benchmarks/check_ncu_metrics.py   (needs ncu, a GPU and PyTorch)
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.metrics import config  # noqa: E402

KERNEL = "import torch; x = torch.ones(1 << 20, device='cuda'); (x * 2).sum().item()"


def all_metric_ids() -> list[str]:
    names = config.merge(config.BASE_NCU_METRICS, *(m.ncu_metrics for m in config.PRESETS.values()),
                         *(m.ncu_metrics for m in config.CHAPTER_OVERRIDES.values()))
    return config.ncu_metric_ids(names)


def run(ids: list[str]) -> subprocess.CompletedProcess:
    argv = [shutil.which("ncu"), "--clock-control", "none", "--launch-count", "1", "--csv",
            "--metrics", ",".join(ids), sys.executable, "-c", KERNEL]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def main() -> int:
    if not shutil.which("ncu"):
        print("ncu is not on the PATH")
        return 2
    ids = all_metric_ids()
    done = run(ids)
    text = done.stdout + done.stderr
    missing = sorted(set(re.findall(r"Failed to find metric (\S+)", text)))
    collected = {m for m in ids if f'"{m}"' in done.stdout}
    print(f"ncu exit {done.returncode}; {len(ids)} metric ids asked, {len(collected)} in the CSV, "
          f"{len(missing)} unknown to ncu")
    for metric in ids:
        state = "unknown" if metric in missing else ("collected" if metric in collected else "not in output")
        print(f"| {metric} | {state} |")
    if done.returncode != 0:
        print(text[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
