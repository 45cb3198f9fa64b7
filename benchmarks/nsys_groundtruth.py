"""Ground truth for aiperf-stats parity: what `nsys stats` prints for every report of every export.

    python benchmarks/nsys_groundtruth.py OUT_DIR EXPORT.sqlite [EXPORT.sqlite ...]

Run on a machine with Nsight Systems (the GPU machine: `source .nsyslibs/nsys-env.sh` first).
For each export writes OUT_DIR/<parent>__<stem>/<pass>/out_<report>...csv exactly as
`nsys stats --report R --format csv --output PREFIX` wrote it (no file when nsys skipped the
report: no data; passes: default, base, mangled, usec), the report options tried (`:base`, `:mangled`, `--timeunit usec`), nsys's own log,
and OUT_DIR/manifest.json (export sha256 -> folder, nsys version, the command lines).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPORTS = ["cuda_api_gpu_sum", "cuda_api_sum", "cuda_api_trace", "cuda_gpu_kern_gb_sum", "cuda_gpu_kern_sum",
           "cuda_gpu_mem_size_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_sum", "cuda_gpu_trace", "cuda_kern_exec_sum",
           "cuda_kern_exec_trace", "nvtx_gpu_proj_sum", "nvtx_gpu_proj_trace", "nvtx_kern_sum", "nvtx_pushpop_sum",
           "nvtx_pushpop_trace", "nvtx_startend_sum", "nvtx_sum", "osrt_sum", "um_cpu_page_faults_sum", "um_sum",
           "um_total_sum", "mpi_event_sum", "mpi_event_trace", "openmp_sum"]
# Reports that name kernels, and so take :base / :mangled.
NAMED = ["cuda_api_gpu_sum", "cuda_gpu_kern_gb_sum", "cuda_gpu_kern_sum", "cuda_gpu_sum", "cuda_gpu_trace",
         "cuda_kern_exec_sum", "cuda_kern_exec_trace", "nvtx_gpu_proj_sum", "nvtx_gpu_proj_trace", "nvtx_kern_sum"]
TIMEUNIT_REPORTS = ["cuda_gpu_kern_sum", "nvtx_sum", "cuda_api_sum", "cuda_gpu_trace"]


def _stats(nsys: str, export: Path, folder: Path, specs: list[str], suffix: str, extra: list[str]) -> list[str]:
    """One nsys stats call; its files land in folder/<pass>/ under the names nsys gives them
    (out_<report>[...].csv); reports nsys skipped leave no file."""
    folder = folder / (suffix.strip("_") or "default")
    folder.mkdir(exist_ok=True)
    prefix = folder / "out"
    argv = [nsys, "stats", "--format", "csv", "--output", str(prefix), "--force-overwrite", "true",
            "--force-export", "false", *extra]
    for spec in specs:
        argv += ["--report", spec]
    done = subprocess.run(argv + [str(export)], capture_output=True, text=True, timeout=600)
    with (folder / "nsys.log").open("a") as log:
        log.write(" ".join(argv) + f"\n-- exit {done.returncode}\n{done.stdout}\n{done.stderr}\n")
    return argv


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    nsys = shutil.which("nsys")
    if not nsys:
        print("nsys is not on the PATH", file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([nsys, "--version"], capture_output=True, text=True).stdout.strip()
    help_reports = subprocess.run([nsys, "stats", "--help-reports", "ALL"], capture_output=True, text=True)
    (out / "help-reports.txt").write_text(help_reports.stdout + help_reports.stderr)
    manifest = {"nsys_version": version, "exports": {}}
    for export in map(Path, sys.argv[2:]):
        name = f"{export.parent.name}__{export.stem}"
        folder = out / name
        folder.mkdir(exist_ok=True)
        commands = [_stats(nsys, export, folder, REPORTS, "", [])]
        commands.append(_stats(nsys, export, folder, [f"{r}:base" for r in NAMED], "__base", []))
        commands.append(_stats(nsys, export, folder, [f"{r}:mangled" for r in NAMED], "__mangled", []))
        commands.append(_stats(nsys, export, folder, TIMEUNIT_REPORTS, "__usec", ["--timeunit", "usec"]))
        digest = hashlib.sha256(export.read_bytes()).hexdigest()
        manifest["exports"][digest] = {"folder": name, "file": f"{export.parent.name}/{export.name}",
                                       "commands": [" ".join(Path(a).name if i == 0 else a for i, a in enumerate(c))
                                                    for c in commands]}
        print(f"{name}: {sum(1 for f in folder.rglob('*.csv'))} outputs", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
