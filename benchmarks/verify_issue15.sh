#!/usr/bin/env bash
# Issue 15 on the GPU machine (H100 or H200; Hopper or later for GPM). Expected runtime: about 3.5
# minutes: the sampler's CPU cost (NVML per-call costs spaced as the sampler spaces them, then the
# sampler at 10 Hz for 25 s each idle and under a bf16 matmul, GPM on and off, and the loop alone),
# then a quick re-check of our GPM figures against `nvidia-smi dmon --gpm-metrics` (4 phases of 10 s:
# matmul, copy, small kernels, idle). Changes no clock or power limit. Always exits 0; failures are
# written into the tables.
#
# From the repository root:  OUT=/some/dir bash benchmarks/verify_issue15.sh
# Writes into $OUT (7 flat files): results.md (both tables, naming the GPU), sampler_cost.md,
# sampler_cost.json, dmon.txt, verify.json, gpm_10hz_phases.csv (a recording with the sampler's tiers),
# log.txt. The older, longer run (Monitor screenshot, nsys GPU-metrics capture): run
# `python3 benchmarks/gpm_verify.py --out DIR` without --agreement-only.
set -u
OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
: > "$OUT/log.txt"
timeout 260 python3 benchmarks/sampler_cost_gpu.py --out "$OUT" --seconds 25 >> "$OUT/log.txt" 2>&1
cost=$?
timeout 150 python3 benchmarks/gpm_verify.py --out "$OUT" --phase-s 10 --agreement-only >> "$OUT/log.txt" 2>&1
agreement=$?
{
  if [ -f "$OUT/results.md" ]; then cat "$OUT/results.md"; else echo "# Issue 15: no dmon agreement table"; fi
  echo
  if [ -f "$OUT/sampler_cost.md" ]; then cat "$OUT/sampler_cost.md"; else echo "(no sampler cost table)"; fi
  [ $cost -ne 0 ] && echo "- sampler_cost_gpu.py exited $cost (see log.txt)"
  [ $agreement -ne 0 ] && echo "- gpm_verify.py exited $agreement (see log.txt)"
} > "$OUT/results.md.tmp"
mv "$OUT/results.md.tmp" "$OUT/results.md"
cat "$OUT/results.md"
exit 0
