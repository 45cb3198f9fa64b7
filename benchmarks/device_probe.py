"""What the GPU machine's tools offer the labs: cuda.core's API, a run-time compiled kernel launched
on PyTorch's stream, torch.cuda._sleep, the memory-history snapshot, and which nsys options (CPU
sampling, CUDA and Python backtraces, OS runtime) work there and what tables they fill.

    python3 benchmarks/device_probe.py OUTDIR      (nsys on the PATH for the nsys part)
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/probe")
OUT.mkdir(parents=True, exist_ok=True)

SYNC_SCRIPT = r'''
import torch, time
x = torch.randn(4096, 4096, device="cuda")
def loss_value(y):
    return y.sum().item()
torch.cuda.nvtx.range_push("hot_loop")
for i in range(20):
    y = x @ x
    v = loss_value(y)
    t = time.perf_counter()
    s = 0
    while time.perf_counter() - t < 0.01:
        s += 1
torch.cuda.nvtx.range_pop()
open("/tmp/probe_file.txt", "w").write("x" * 100)
print("done", v)
'''


def probe_cuda_core() -> dict:
    import torch
    from aiperf_lab.labs.workloads.nvrtc import Kernels, _cuda_core
    core = _cuda_core()
    result = {"module": core.__name__, "version": getattr(core, "__version__", None)}
    try:
        import cuda.core
        result["cuda.core version"] = getattr(cuda.core, "__version__", None)
    except ImportError:
        pass
    src = 'extern "C" __global__ void add_one(float* x, long long n) { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }'
    k = Kernels(torch, src, ["add_one"])
    x = torch.zeros(1000, device="cuda")
    k.launch("add_one", (4,), (256,), x, 1000)
    torch.cuda.synchronize()
    result["add_one_ok"] = bool((x == 1).all().item())
    result["sleep"] = hasattr(torch.cuda, "_sleep")
    torch.cuda.memory._record_memory_history(max_entries=1000)
    y = torch.empty(1 << 20, device="cuda")
    del y
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    result["snapshot_keys"] = sorted(snap)
    traces = snap.get("device_traces", [[]])
    result["trace_actions"] = sorted({e["action"] for e in traces[0]}) if traces else []
    result["trace_entry_keys"] = sorted(traces[0][0]) if traces and traces[0] else []
    return result


def dump_tables(db: Path) -> dict:
    c = sqlite3.connect(db)
    names = [r[0] for r in c.execute("select name from sqlite_master where type='table' order by 1")]
    info = {"tables": {n: c.execute(f"select count(*) from [{n}]").fetchone()[0] for n in names}}
    for n in names:
        if any(k in n.upper() for k in ("CALLCHAIN", "PYTHON", "COMPOSITE", "OSRT", "BACKTRACE", "SAMPL")):
            info[n + ".sql"] = c.execute("select sql from sqlite_master where name=?", (n,)).fetchone()[0]
            info[n + ".rows"] = [list(map(str, r)) for r in c.execute(f"select * from [{n}] limit 8")]
    cols = [r[1] for r in c.execute("pragma table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
    info["runtime_columns"] = cols
    if "callchainId" in cols:
        info["runtime_with_callchain"] = c.execute(
            "select count(*) from CUPTI_ACTIVITY_KIND_RUNTIME where callchainId is not null").fetchone()[0]
        for table in ("CUDA_CALLCHAINS", "PYTHON_CALLCHAINS"):
            if table in names:
                rows = c.execute(f"""select s.value, r.id_name, cc.stackDepth, m.value from CUPTI_ACTIVITY_KIND_RUNTIME rr
                    join (select id as rid, value as id_name from StringIds) r on r.rid = rr.nameId
                    join {table} cc on cc.id = rr.callchainId join StringIds s on s.id = cc.symbol
                    left join StringIds m on m.id = cc.module
                    where rr.callchainId is not null order by rr.start, cc.stackDepth limit 60""").fetchall()
                info[table + ".joined"] = [list(map(str, r)) for r in rows]
    return info


def probe_nsys() -> dict:
    nsys = shutil.which("nsys")
    if not nsys:
        return {"nsys": None}
    result = {"status": subprocess.run([nsys, "status", "--environment"], capture_output=True, text=True).stdout[-3000:]}
    script = OUT / "sync_script.py"
    script.write_text(SYNC_SCRIPT)
    trials = {
        "sample_cudabt": ["-t", "cuda,nvtx,osrt", "--sample", "process-tree", "--cudabacktrace", "all:0"],
        "python_bt": ["-t", "cuda,nvtx", "-s", "none", "--cpuctxsw", "none", "--python-backtrace", "cuda"],
        "python_sampling": ["-t", "cuda,nvtx", "--sample", "process-tree", "--python-sampling", "true"],
    }
    for name, options in trials.items():
        rep = OUT / f"{name}.nsys-rep"
        run = subprocess.run([nsys, "profile", *options, "--force-overwrite", "true", "-o", str(rep.with_suffix("")),
                              sys.executable, str(script)], capture_output=True, text=True, timeout=180)
        entry = {"rc": run.returncode, "tail": (run.stdout + run.stderr)[-1500:]}
        if rep.exists():
            db = rep.with_suffix(".sqlite")
            subprocess.run([nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "-o", str(db), str(rep)],
                           capture_output=True, timeout=180)
            if db.exists():
                entry["db"] = dump_tables(db)
        if name == "sample_cudabt" and rep.exists():
            an = subprocess.run([nsys, "analyze", str(rep.with_suffix(".sqlite"))], capture_output=True, text=True, timeout=180)
            entry["analyze"] = (an.stdout + an.stderr)[-6000:]
            st = subprocess.run([nsys, "stats", "-r", "osrt_sum", "-f", "csv", str(rep.with_suffix(".sqlite"))],
                                capture_output=True, text=True, timeout=180)
            entry["osrt_sum"] = st.stdout[-3000:]
        result[name] = entry
    help_text = subprocess.run([nsys, "profile", "--help"], capture_output=True, text=True).stdout
    result["python_help"] = [line for line in help_text.splitlines() if "python" in line.lower()][:40]
    an_help = subprocess.run([nsys, "analyze", "--help-rules", "ALL"], capture_output=True, text=True)
    result["analyze_rules"] = (an_help.stdout + an_help.stderr)[-8000:]
    return result


if __name__ == "__main__":
    report = {}
    try:
        report["cuda_core"] = probe_cuda_core()
    except Exception as exc:  # a probe: record what failed and go on
        report["cuda_core_error"] = repr(exc)
    report["nsys"] = probe_nsys()
    (OUT / "probe.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report.get("cuda_core", report.get("cuda_core_error")), indent=1))
