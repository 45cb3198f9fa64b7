#!/usr/bin/env bash
# Issue 18 on the GPU machine (one GPU or several): aiperf-triage --bench with no workload, its bench
# tables, nvidia-smi topo -m beside them, and an independent all-reduce timing loop.
# Expected runtime: about 90 s on 2 H200s, about 40 s on one GPU. Writes into $OUT:
#   issue18.md (the table), bundle.tar.gz (the archive, --redact-hosts), topo.txt, allreduce_check.txt
set -u
export PYTHONPATH=$(pwd):${PYTHONPATH:-}
OUT=${OUT:-/tmp/issue18}
mkdir -p "$OUT"
work=$(mktemp -d)
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
start=$(date +%s.%N)
python3 -m aiperf_lab.triage.cli --duration 3 --bench --no-nsys --redact-hosts --output "$work" > "$work/stdout" 2> "$work/stderr"
rc=$?
end=$(date +%s.%N)
archive=$(tail -1 "$work/stdout")
[ -f "$archive" ] && cp "$archive" "$OUT/bundle.tar.gz"
python3 benchmarks/nccl_allreduce_check.py > "$OUT/allreduce_check.txt" 2>&1
python3 - "$OUT" "$rc" "$start" "$end" "$work/stderr" <<'PY'
import json, subprocess, sys, tarfile
out, rc, start, end, err = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
gpu = subprocess.run(["nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
lines = [f"# issue 18: aiperf-triage --bench", "", f"GPUs: {gpu}", f"triage exit {rc}, whole run {end - start:.1f} s", ""]
try:
    with tarfile.open(f"{out}/bundle.tar.gz") as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/bench.json"))
        bench = json.load(tar.extractfile(member))
        summary = next(m for m in tar.getmembers() if m.name.endswith("/summary.md"))
        text = tar.extractfile(summary).read().decode()
    lines += ["## bench phases", "", *(f"- {k}: {v}" for k, v in bench["measured"]["phases"].items()), ""]
    lines += ["## summary.md bench and findings", "", text[text.find("## Findings"):]]
except Exception as exc:
    lines += [f"no bench in the bundle: {exc}", "", open(err).read()[-3000:]]
lines += ["", "## independent all-reduce loop (CUDA events)", "", open(f"{out}/allreduce_check.txt").read()]
lines += ["", "## nvidia-smi topo -m", "", open(f"{out}/topo.txt").read()]
lines += ["", "## triage stderr (tail)", "", open(err).read()[-2500:]]
open(f"{out}/issue18.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
exit 0
