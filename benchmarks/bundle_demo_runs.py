"""Copy real run folders (run.json and tables/*.csv, no profiles or telemetry) into the package as the
console's --demo results, with the GPU machine's absolute paths made relative.

    python benchmarks/bundle_demo_runs.py RUN_FOLDER [RUN_FOLDER ...]
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "aiperf_lab" / "console" / "demo_runs"


def relative(text: str, name: str) -> str:
    text = re.sub(r"/\S*/runs/", "runs/", text)
    return re.sub(r"^/\S*/(python3?[\d.]*|nsys|ncu)$", r"\1", text)


def bundle(folder: Path) -> Path:
    record = json.loads((folder / "run.json").read_text())
    name = folder.name
    record["folder"] = f"runs/{name}"
    record["argv"] = [relative(a, name) for a in record["argv"]]
    record["env_delta"] = {k: ("runs/" + name if k == "AIPERF_RUN_DIR" else "<package>" if k == "PYTHONPATH" else v)
                           for k, v in record["env_delta"].items()}
    out = TARGET / name
    if out.exists():
        shutil.rmtree(out)
    (out / "tables").mkdir(parents=True)
    (out / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    for table in sorted((folder / "tables").glob("*.csv")):
        shutil.copy(table, out / "tables" / table.name)
    return out


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(bundle(Path(arg)))
