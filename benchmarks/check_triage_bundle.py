"""Check a triage bundle's hardware figures against what nvidia-smi prints on the same machine.

    python benchmarks/check_triage_bundle.py BUNDLE.tar.gz
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

FIELDS = "driver_version,power.limit,power.default_limit,power.min_limit,power.max_limit,clocks.max.sm," \
         "pcie.link.gen.max,pcie.link.width.max,memory.total,persistence_mode,name,compute_cap"


def main() -> int:
    archive = Path(sys.argv[1])
    with tarfile.open(archive) as tar:
        files = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if m.isfile()}
        hw = json.loads(tar.extractfile(files["hardware_capabilities.json"]).read())
        telemetry = json.loads(tar.extractfile(files["telemetry_summary.json"]).read())
        bench = json.loads(tar.extractfile(files["bench.json"]).read()) if "bench.json" in files else {}
        manifest = json.loads(tar.extractfile(files["manifest.json"]).read())
    smi = subprocess.run(["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.strip().splitlines()
    rows = []
    for line, gpu in zip(smi, hw["nvml"]["gpus"]):
        v = [c.strip() for c in line.split(",")]
        pairs = [("driver", v[0], hw["nvml"]["driver_version"]),
                 ("power limit W", float(v[1]), gpu["power_limit_enforced_w"]),
                 ("default limit W", float(v[2]), gpu["power_limit_default_w"]),
                 ("min limit W", float(v[3]), gpu["power_limit_min_w"]),
                 ("max limit W", float(v[4]), gpu["power_limit_max_w"]),
                 ("max SM clock MHz", int(v[5]), gpu["max_sm_clock_mhz"]),
                 ("PCIe gen max", int(v[6]), gpu["pcie_gen_max"]),
                 ("PCIe width max", int(v[7]), gpu["pcie_width_max"]),
                 ("memory MiB", int(v[8]), round(gpu["memory_total_bytes"] / 2**20)),
                 ("persistence", v[9] == "Enabled", gpu["persistence_mode"]),
                 ("name", v[10], gpu["name"]),
                 ("compute capability", v[11], gpu["compute_capability"])]
        rows += [(f"GPU {gpu['index']} {label}", smi_value, ours, smi_value == ours) for label, smi_value, ours in pairs]
    print("| figure | nvidia-smi | bundle | same |\n|---|---|---|---|")
    for label, theirs, ours, same in rows:
        print(f"| {label} | {theirs} | {ours} | {'yes' if same else 'NO'} |")
    print(f"\ncollectors: {[(c['name'], c['status']) for c in manifest['collectors']]}")
    print(f"telemetry: {telemetry['devices']}")
    print(f"bench: {bench}")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
