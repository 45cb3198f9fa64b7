#!/usr/bin/env bash
# Issue 11, scale side, on the GPU machine (H100 or H200; the GPU itself is not used): the overview of a
# 2,000,334-kernel nsys export (`aiperf-stats FILE`, no --report) against the bare SQL, on an unloaded
# machine. Makes the export from tests/data/h200/lm_forward.sqlite (benchmarks/make_synthetic_export.py,
# 538 MB in a temporary folder, removed at the end), then runs benchmarks/stats_scale.py: 3 rounds of the
# two bare SQL sets, the overview and gpu_idle, each a whole process (wall, CPU, peak RSS; goals: within
# 10x the bare SQL, under 400 MB). Expected runtime: about 3 minutes (at most 7).
# Run from the repository root:   OUT=/some/folder bash benchmarks/verify_issue11_scale.sh  (KERNELS=N: another size)
# Writes into $OUT: verify_issue11_scale.md (the table) and verify_issue11_scale.log.
# Changes no clock or power limit. Exits 0 even when a step fails (the table says so).
set -u
OUT=${OUT:-./verify_issue11_scale_out}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TABLE="$OUT/verify_issue11_scale.md"
LOG="$OUT/verify_issue11_scale.log"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# Issue 11: the 2M-kernel overview against the bare SQL"
  echo
  echo "Machine: ${GPU:-no GPU named by nvidia-smi}, $(nproc) CPUs, $(python3 --version 2>&1), sqlite $(python3 -c 'import sqlite3; print(sqlite3.sqlite_version)')"
  echo
} > "$TABLE"
if timeout -s KILL 400 python3 benchmarks/stats_scale.py --workdir "$WORK" --kernels "${KERNELS:-2000000}" --repeat 3 \
     --reports overview,gpu_idle --skip-torch >> "$TABLE" 2> "$LOG"; then
  :
else
  echo "| stats_scale.py ended with exit $? | see verify_issue11_scale.log |" >> "$TABLE"
fi
exit 0
