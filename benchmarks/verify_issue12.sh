#!/usr/bin/env bash
# Issue 12 on the GPU machine (H100 or H200): aiperf-triage under the real nsys, for every ending
# (workload shorter / longer than the duration, Ctrl-C at 5 s and 12 s, SIGTERM, Ctrl-C twice, the
# duration ending during nsys's collection). Expected runtime: 5 to 6 minutes (at most 7).
# Run from the repository root:   OUT=/some/folder bash benchmarks/verify_issue12.sh
# Writes into $OUT: verify_issue12.md (the table), verify_issue12.json, verify_issue12_runs.log.
# Changes no clock or power limit. Exits 0 even when a run fails (the table says so).
set -u
OUT=${OUT:-./verify_issue12_out}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH}
if [ -f .nsyslibs/nsys-env.sh ]; then
  # shellcheck disable=SC1091
  source .nsyslibs/nsys-env.sh
fi
if ! command -v nsys >/dev/null 2>&1; then
  printf '# Issue 12\n\nnsys is not on the PATH (source .nsyslibs/nsys-env.sh first): nothing measured.\n' > "$OUT/verify_issue12.md"
  cat "$OUT/verify_issue12.md"
  exit 0
fi
timeout -s KILL 470 python3 benchmarks/verify_issue12.py "$OUT" || echo "verify_issue12.py ended with $? (see $OUT)"
exit 0
