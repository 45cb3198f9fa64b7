#!/usr/bin/env bash
# aiperf-stats on a real .nsys-rep under the real nsys (GPU machine): see verify_nsys_rep_open.py.
# Expected runtime: under a minute. Run from the repository root:   OUT=/some/folder bash benchmarks/verify_nsys_rep_open.sh
set -u
OUT=${OUT:-./verify_nsys_rep_open_out}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH}
if [ -f .nsyslibs/nsys-env.sh ]; then
  # shellcheck disable=SC1091
  source .nsyslibs/nsys-env.sh
fi
timeout -s KILL 240 python3 benchmarks/verify_nsys_rep_open.py "$OUT" || echo "verify_nsys_rep_open.py ended with $? (see $OUT)"
exit 0
