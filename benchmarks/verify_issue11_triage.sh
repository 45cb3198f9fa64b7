#!/usr/bin/env bash
# Issue 11, triage side, on the GPU machine (H100 or H200) under the real nsys: a clean environment
# keeps the .nsys-rep; a URL password and a token-shaped value planted in the environment are in no
# byte of the bundle and the .nsys-rep is left out; so are the forms red team rt6 found (a path-shaped
# password, argv pieces printed back, a bytes value, a framed private key, a secret in an NVTX name);
# a SIGKILLed triage leaves neither nsys, the application nor any file; a child the application put in a session of its own (setsid) ends with
# the workload and the trace is still written; on a 2 MiB tmpfs (root only) the run keeps an archive
# that says what a full disk cut, or exits 2 with one line; a one-rank NCCL job keeps its NVTX
# payloads (message sizes) in the bundle; the forms red team rt9 found (30,000 terminal hyperlinks kept whole, a coloured
# heredoc printed a line at a time, forms behind a log prefix and in a JSON record, an aligned flag, Rust's Some("X")).
# Expected runtime: about 3 minutes (at most 5). Session 17 added its forms (setter calls, openssl -text, op, gopass, SQLAlchemy tuples);
# session 18 its forms (table rows, angle brackets, launchers' prefixes) with 2,000 known secrets in the environment;
# sessions 20 and 21 theirs (a password column, escaped known values, command lines, headers, interleaved pods);
# session 22 its (values announced on the next line, TOKEN columns, expect's send) and lines that must stay.
# Run from the repository root:   OUT=/some/folder bash benchmarks/verify_issue11_triage.sh
# Writes into $OUT: verify_issue11_triage.md (the table), .json and .log.
# Changes no clock or power limit. Exits 0 even when a case fails (the table says so).
set -u
OUT=${OUT:-./verify_issue11_triage_out}
mkdir -p "$OUT"
export PYTHONPATH=$(pwd)${PYTHONPATH:+:$PYTHONPATH}
if [ -f .nsyslibs/nsys-env.sh ]; then
  # shellcheck disable=SC1091
  source .nsyslibs/nsys-env.sh
fi
timeout -s KILL 330 python3 benchmarks/verify_issue11_triage.py "$OUT" || echo "verify_issue11_triage.py ended with $? (see $OUT)"
exit 0
