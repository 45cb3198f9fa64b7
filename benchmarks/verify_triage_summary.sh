#!/usr/bin/env bash
# What `aiperf-triage show` says about a run, on the GPU machine (H100 or H200). Expected runtime:
# about 2 to 4 minutes (four short triage runs; two under nsys, whose export takes most of it).
# Changes no clock or power limit. Always exits 0; a failed case is written into the table.
#
# From the repository root:  OUT=/some/dir bash benchmarks/verify_triage_summary.sh
# Writes into $OUT (6 flat files): results.md (one row per case, naming the GPU), show_<case>.txt
# (what `aiperf-triage show` printed for each case) and log.txt. The archives go to a temporary folder.
#
# Cases (the workload is a PyTorch matmul loop given with `python3 -c` and a multi-line program, so
# the command line needs quoting):
#   nsys       --duration 15, the workload runs 4 s under nsys: the trace's coverage, "the workload ended at"
#   no_nsys    --duration 15 --no-nsys (a cold machine took over 10 s for the 4 s workload): "nsys trace: none — --no-nsys was given"
#   outlives   --duration 6 under nsys, the workload would run 40 s: "the 6 s asked ran out at"
#   not_found  nsys not on the PATH: "nsys trace: none — nsys is not installed"
# Every case: the command line pastes back into bash as the same argv, and the telemetry line names
# GPUs and host.
set -u
OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
: > "$OUT/log.txt"
PLAIN_PATH=$PATH
PY=$(command -v python3)
TIMEOUT=$(command -v timeout)
if [ -f .nsyslibs/nsys-env.sh ]; then
  # shellcheck disable=SC1091
  source .nsyslibs/nsys-env.sh >> "$OUT/log.txt" 2>&1
fi
NSYS_PATH=$PATH
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)

workload() {   # a matmul loop of $1 seconds, as a multi-line program
  printf 'import time, torch\na = torch.randn(4096, 4096, device="cuda")\nt = time.time()\nwhile time.time() - t < %s:\n    a @ a\ntorch.cuda.synchronize()\nprint("x y")\n' "$1"
}

run_case() {   # name, PATH to use, triage arguments...
  local name=$1 path=$2
  shift 2
  local dir="$WORK/$name"
  mkdir -p "$dir"
  echo "== $name: aiperf-triage $*" >> "$OUT/log.txt"
  PATH=$path "$TIMEOUT" 200 "$PY" -m aiperf_lab.triage.cli --output "$dir" "$@" > "$dir/stdout.txt" 2>> "$OUT/log.txt"
  echo "exit $?" >> "$OUT/log.txt"
  local archive
  archive=$(ls "$dir"/*.tar.gz 2>/dev/null | head -1)
  if [ -n "$archive" ]; then
    "$PY" -m aiperf_lab.triage.cli show "$archive" > "$OUT/show_$name.txt" 2>> "$OUT/log.txt"
  else
    echo "(no archive)" > "$OUT/show_$name.txt"
  fi
}

short=$(workload 4)
long=$(workload 40)
run_case nsys "$NSYS_PATH" --duration 15 -- python3 -c "$short"
run_case no_nsys "$NSYS_PATH" --duration 15 --no-nsys -- python3 -c "$short"
run_case outlives "$NSYS_PATH" --duration 6 -- python3 -c "$long"
bare="$WORK/bin"
mkdir -p "$bare"
for tool in python3 nvidia-smi lscpu numactl uname sh; do
  # a wrapper, not a symlink: a virtual environment's python3 linked from elsewhere loses its packages
  # (the first H100 run's workload died at once: no torch)
  if [ "$tool" = python3 ]; then found=$("$PY" -c 'import sys; print(sys.executable)')   # not a shim needing bash
  else found=$(PATH=$PLAIN_PATH command -v "$tool"); fi && printf '#!/bin/sh\nexec %q "$@"\n' "$found" > "$bare/$tool" &&
    chmod +x "$bare/$tool"
done
run_case not_found "$bare" --duration 10 -- python3 -c "$short"

python3 - "$OUT" "$gpu" "$short" "$long" > "$OUT/results.md" 2>> "$OUT/log.txt" <<'EOF'
import re, shlex, subprocess, sys
from pathlib import Path

out, gpu, short, long_ = Path(sys.argv[1]), sys.argv[2] or "unknown GPU", sys.argv[3], sys.argv[4]
SHOW = 'for a in "$@"; do printf "%s|" "$a"; done'
cases = {
    "nsys": (short, [r"^- workload: exit code 0,", r"^- nsys trace: trace covers ", r"the workload ended at \d+\.\d s, before the 15 s asked"]),
    "no_nsys": (short, [r"^- workload: exit code 0,", r"^- nsys trace: none — --no-nsys was given", r"the workload ended at"]),
    "outlives": (long_, [r"^- nsys trace: trace covers ", r"the 6 s asked ran out at \d+\.\d s"]),
    "not_found": (short, [r"^- workload: exit code 0,", r"^- nsys trace: none — nsys is not installed \(not on PATH\)", r"the workload ended at"]),
}
print(f"# aiperf-triage show: what a bundle says it holds ({gpu})\n")
print("| case | command pastes back | telemetry names GPUs | expected lines | ok |")
print("|---|---|---|---|---|")
for name, (program, patterns) in cases.items():
    text = (out / f"show_{name}.txt").read_text(errors="replace")
    line = next((l for l in text.splitlines() if l.startswith("- command: ")), "")
    pasted = "no command line"
    if line:
        want = subprocess.run(["bash", "-c", SHOW, "_", "python3", "-c", program], capture_output=True).stdout
        got = subprocess.run(["bash", "-c", f"f(){{ {SHOW}; }}; f {line[len('- command: '):]}"],
                             capture_output=True).stdout
        pasted = "yes" if got == want else "NO"
    gpus = "yes" if "- telemetry (GPUs and host)" in text else "NO"
    found = [bool(re.search(p, text, re.M)) for p in patterns]
    missing = [p for p, f in zip(patterns, found) if not f]
    ok = pasted == "yes" and gpus == "yes" and not missing
    print(f"| {name} | {pasted} | {gpus} | {'all' if not missing else 'missing: ' + '; '.join(missing)} | "
          f"{'ok' if ok else 'FAIL'} |")
print("\nThe telemetry and nsys lines as shown:\n")
for name in cases:
    for l in (out / f"show_{name}.txt").read_text(errors="replace").splitlines():
        if l.startswith(("- telemetry", "- nsys trace", "- command")):
            print(f"- {name}: `{l[2:]}`")
EOF
[ -s "$OUT/results.md" ] || echo "# aiperf-triage show: the check itself failed (see log.txt)" > "$OUT/results.md"
cat "$OUT/results.md"
exit 0
