"""Digest a ground-truth folder made by benchmarks/nsys_groundtruth.py into the JSON the parity tests keep.

    python benchmarks/groundtruth_digests.py GROUNDTRUTH_DIR tests/data/nsys_2025_3_1_corpus_digests.json

Key: "<corpus dir>/<file>::<report>[:base|:mangled][@usec]"; value: the sha256 of what nsys wrote, whether it
was empty, and for an empty one the line nsys printed instead (SKIPPED: ... or ERROR: ...), so a test can tell
"no data" (we must exit 2) from "nsys refuses this old export's schema" (a documented difference).
The exports themselves are never copied: only these digests.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

PASSES = {"default": "", "base": ":base", "mangled": ":mangled", "usec": "@usec"}


def _reasons(log: str) -> dict[str, str]:
    """report file name (out_<report>[_base].csv) -> what nsys said when it wrote nothing useful."""
    reasons: dict[str, str] = {}
    current = None
    for line in log.splitlines():
        match = re.search(r"reports/(\w+)\.py\]\(?(\w*)\)? to \[.*/(out_[\w]+\.csv)\]", line)
        if match:
            current = match.group(3)
            continue
        if line.startswith("SKIPPED:") and current:
            reasons.setdefault(current, line.split(":", 1)[1].strip().split(" ", 1)[1])
        error = re.match(r"ERROR: Invalid argument passed to report '(\w+)\.py'", line)
        if error:
            reasons.setdefault(f"error:{error.group(1)}", line.strip())
    return reasons


def main() -> int:
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    manifest = json.loads((source / "manifest.json").read_text())
    outputs = {}
    for export in manifest["exports"].values():
        folder = source / export["folder"]
        for name, suffix in PASSES.items():
            pass_dir = folder / name
            if not pass_dir.is_dir():
                continue
            reasons = _reasons((pass_dir / "nsys.log").read_text(errors="replace"))
            for csv in sorted(pass_dir.glob("out_*.csv")):
                report = csv.stem[len("out_"):]
                for variant in ("_base", "_mangled"):
                    report = report[: -len(variant)] if report.endswith(variant) else report
                data = csv.read_bytes()
                entry = {"empty": not data, "sha256": hashlib.sha256(data).hexdigest()}
                if not data:
                    entry["nsys_said"] = reasons.get(csv.name) or reasons.get(f"error:{report}") or ""
                outputs[f"{export['file']}::{report}{suffix}"] = entry
    document = {"about": "sha256 of what nsys stats 2025.3.1 wrote (--format csv --output) for each report, "
                         "with :base, :mangled and --timeunit usec (@usec), of each export in ../shared/data/corpus "
                         "(and h200/lm_forward.sqlite = tests/data/h200), made on the GPU machine by "
                         "benchmarks/nsys_groundtruth.py and digested by benchmarks/groundtruth_digests.py; an empty "
                         "output means nsys skipped the report, nsys_said says why",
                "nsys_version": manifest["nsys_version"].split()[-1], "outputs": dict(sorted(outputs.items()))}
    target.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{len(outputs)} outputs -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
