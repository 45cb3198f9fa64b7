#!/usr/bin/env bash
# Issue 15 on the GPU machine (H100 or H200; Hopper or later for GPM). Expected runtime: about 3
# minutes (4 phases of 8 s under our sampler and `nvidia-smi dmon --gpm-metrics`, three 10 s CPU-cost
# runs, GPM read costs, a replayed Monitor screenshot if textual is importable, and a short nsys
# --gpu-metrics-devices capture if nsys is set up). Changes no clock or power limit. Always exits 0;
# failures are written into $OUT/results.md.
#
# From the repository root:  OUT=/some/dir bash benchmarks/verify_issue15.sh
# (optionally carry .nsyslibs for nsys and .whl for textual, as ../shared/device/README.md says)
# Writes at most 8 flat files into $OUT: results.md (the table, naming the GPU), gpm_10hz_phases.csv
# (the new --demo recording: copy it to aiperf_lab/metrics/telemetry/data/), dmon.txt, verify.json,
# monitor_gpm.svg, gpu_metrics_expert.txt, gpu_metrics.sqlite, log.txt.
set -u
OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if [ -f .nsyslibs/nsys-env.sh ]; then source .nsyslibs/nsys-env.sh || true; fi
timeout 420 python3 benchmarks/gpm_verify.py --out "$OUT" --phase-s 8 > "$OUT/log.txt" 2>&1
status=$?
if [ $status -ne 0 ]; then
  echo "- gpm_verify.py exited $status (see log.txt)" >> "$OUT/results.md"
fi
tail -60 "$OUT/log.txt"
exit 0
