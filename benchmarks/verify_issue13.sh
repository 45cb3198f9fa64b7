#!/usr/bin/env bash
# Issue 13 on a real GPU: every single-GPU exercise at full size with each profile its checks need,
# graded by the runner; a markdown table of grades, each check's status and numbers, and the GPU.
#
#   bash benchmarks/verify_issue13.sh [EXERCISE ...]     e.g. 01-ex01 01-ex02 02-ex04
#   bash benchmarks/verify_issue13.sh --multi [EXERCISE ...]   the multi-GPU ones (nvidia-h200-x2)
#
# Expected runtime: 10-40 s per run (nsys and ncu runs the longest); all 24 single-GPU exercises take
# about 45 runs, more than one 8-minute call: split the exercises over calls, e.g.
#   01-ex01 01-ex02 01-ex03 02-ex01 02-ex02 02-ex03 02-ex04   |   03-ex01 03-ex02 04-ex01 04-ex02 05-ex01
#   06-ex01 06-ex02 06-ex03 06-ex04 06-ex05   |   06-ex06 06-ex07 06-ex08 07-ex01 07-ex02 07-ex03 07-ex04
# Each run is cut at LAB_TIMEOUT seconds (default 150); the script stops starting runs after
# BUDGET_S seconds (default 400) and says which it left out. It never changes clocks or power limits,
# and exits 0 whatever a run does (failures are in the table).
# Writes to $OUT (at most 4 files): issue13_results.md, issue13_log.txt, issue13_runs.tar.gz,
# issue13_plan.txt.
set -uo pipefail
OUT=${OUT:-/tmp/issue13-out}
W=$(mktemp -d /tmp/issue13.XXXXXX)
mkdir -p "$OUT"
export PYTHONPATH=$(pwd) PYTHONUNBUFFERED=1 LC_ALL=C
[ -f .nsyslibs/nsys-env.sh ] && source .nsyslibs/nsys-env.sh
LOG="$OUT/issue13_log.txt"
MULTI=""
if [ "${1:-}" = "--multi" ]; then MULTI="--multi"; shift; export NCCL_NVLS_ENABLE=0; fi
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd, -)
GPU=${GPU:-no GPU seen by nvidia-smi}
{
  echo "GPU(s): $GPU"
  nvidia-smi --query-gpu=index,name,uuid,memory.total,power.limit,clocks.max.sm --format=csv 2>&1
  python3 -c "import torch, sys; print('torch', torch.__version__, 'python', sys.version.split()[0])" 2>&1
  command -v nsys || echo "no nsys on the PATH"; command -v ncu || echo "no ncu on the PATH"
} > "$LOG" 2>&1
python3 benchmarks/verify_issue13.py plan $MULTI "$@" > "$OUT/issue13_plan.txt" 2>> "$LOG" \
  || echo "could not plan the runs (see the log)" >> "$LOG"
START=$(date +%s)
for spec in $(cat "$OUT/issue13_plan.txt"); do
  IFS=: read -r ex variant prof <<< "$spec"
  if [ $(( $(date +%s) - START )) -gt "${BUDGET_S:-400}" ]; then
    echo "LEFT OUT (time budget): $spec" | tee -a "$LOG"; continue
  fi
  echo "--- $spec ($(date +%T))" >> "$LOG"
  before=$(ls "$W/runs" 2>/dev/null | wc -l)
  timeout --kill-after=10 "${LAB_TIMEOUT:-150}" python3 -m aiperf_lab.labs run "$ex" --variant "$variant" \
    --profile "$prof" --runs-dir "$W/runs" > "$W/run.log" 2>&1
  code=$?
  echo "exit $code" >> "$LOG"; grep -v "^  | " "$W/run.log" | tail -n 14 >> "$LOG"
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then
    echo "| $ex | $variant | $prof | killed after ${LAB_TIMEOUT:-150} s | | $GPU |" >> "$W/extra.md"
  elif [ "$(ls "$W/runs" 2>/dev/null | wc -l)" = "$before" ]; then
    echo "| $ex | $variant | $prof | not run: $(tail -n 1 "$W/run.log" | tr '|' '/') | | $GPU |" >> "$W/extra.md"
  fi
done
{
  python3 benchmarks/verify_issue13.py table "$W/runs" "$GPU" 2>&1
  [ -f "$W/extra.md" ] && cat "$W/extra.md"
  grep "^LEFT OUT" "$LOG" | sed 's/^/- /'
} > "$OUT/issue13_results.md"
mkdir -p "$W/runs"
tar -czf "$OUT/issue13_runs.tar.gz" -C "$W" --exclude='*.nsys-rep' --exclude='*.sqlite' --exclude='*.ncu-rep' \
  --exclude='torch_trace.json' --exclude='*.pickle' --exclude='telemetry.csv' runs 2>> "$LOG"
rm -rf "$W"
cat "$OUT/issue13_results.md"
exit 0
