#!/usr/bin/env bash
# Issue 17 on the GPU machine: aiperf-stats against nsys stats 2025.3.1 (speed and byte identity) on a
# 150,000-kernel / 30,000-range trace, and real multi-rank NCCL captures for nccl_sum and rank_spread.
# Expected runtime: part speed about 2 minutes (under 3.5, with the phase timelines), part1 about 3 minutes, part2 about 1.5 minutes
# (each step has its own timeout).
#
#   bash benchmarks/verify_issue17.sh speed    # the speed goals alone: under 3.5 minutes, on any kind
#   bash benchmarks/verify_issue17.sh          # part1 on any kind; part2 as well where 2+ GPUs are seen
#   bash benchmarks/verify_issue17.sh part1    # or part2 alone (the nvidia-h200-x2 kind)
#
# speed: a storm-shaped export made without the GPU (benchmarks/make_storm_export.py: 150,000 kernels,
# 300,000 runtime calls, 30,000 NVTX ranges in the real H200 export's schema), then
# benchmarks/issue17_bench.py: per report (nvtx_kern_sum, nvtx_gpu_proj_sum, nvtx_gpu_proj_trace,
# cuda_gpu_kern_sum, cuda_kern_exec_sum, nvtx_pushpop_trace), the median of 5 whole-process runs of
# aiperf-stats (wall and CPU), of the bare sqlite3 GROUP BY over the kernels, of the least join in bare SQL
# (kernels joined to their launches, grouped) and of `nsys stats`, interleaved, with the ratios and a byte
# comparison of the CSVs; and the same reports from the code before the NVTX speed work (commit a3dbf74,
# or the checkout named by ISSUE17_BEFORE=DIR) in the same run, where git can make it; then a phase timeline
# of nvtx_kern_sum and the two projection reports (benchmarks/stats_timeline.py). part1 does the same
# on a real capture of benchmarks/kernel_storm.py.
#
# Run from the repository root with .nsyslibs carried (../shared/device/README.md). Never changes clocks or
# power limits. Writes at most 8 flat files into $OUT: results.md (the tables, naming the GPU), bench.json,
# storm_parity.txt, nccl_sum.csv, rank_spread.csv, rank0.sqlite, rank1.sqlite (the two-rank capture, kept
# small and scrubbed of the capture's environment and command line, to become test fixtures), log.txt.
# Exits 0 even when a measurement fails; the failure is written in the table.
set -uo pipefail
PARTS=${*:-part1 part2}
OUT=${OUT:-/tmp/aiperf-issue17}
W=$(mktemp -d /tmp/issue17.XXXXXX)
mkdir -p "$OUT"
export PYTHONPATH=$(pwd) PYTHONUNBUFFERED=1 LC_ALL=C NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
LOG="$OUT/log.txt"
MD="$OUT/results.md"
: > "$LOG"
note() { echo "$*" | tee -a "$LOG"; }
row() { echo "$*" >> "$MD"; }

GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{
  echo "# Issue 17 on the GPU machine"
  echo
  echo "GPU: ${GPU:-unknown} (x${NGPU}); $(date -u +%FT%TZ); parts: $PARTS"
  echo
} > "$MD"
if [ -f .nsyslibs/nsys-env.sh ]; then source .nsyslibs/nsys-env.sh; fi
if command -v nsys > /dev/null; then
  note "nsys: $(nsys --version 2>&1 | head -1)"
else
  row "**nsys not found** (.nsyslibs not carried?): only aiperf-stats and sqlite3 are timed; part1 and part2 need nsys."
  PARTS=$(echo " $PARTS " | sed 's/ part1 / /; s/ part2 / /')
fi

# Byte-compiled as pip install leaves a package (with PYTHONDONTWRITEBYTECODE set, as on the development
# VM, every run would otherwise compile each module again: 30-40 ms of each whole-process figure).
python3 -m compileall -q aiperf_lab >> "$LOG" 2>&1

if [[ " $PARTS " == *" speed "* ]]; then
  row "## Speed: 150,000 kernels, 30,000 NVTX ranges (benchmarks/make_storm_export.py)"
  row
  if timeout 60 python3 benchmarks/make_storm_export.py tests/data/h200/lm_forward.sqlite "$W/synthetic.sqlite" \
       >> "$LOG" 2>&1; then
    # The code before the NVTX speed work, timed in the same run (skipped where neither is at hand).
    BEFORE=()
    if [ -n "${ISSUE17_BEFORE:-}" ] && [ -d "${ISSUE17_BEFORE}/aiperf_lab" ]; then
      BEFORE=(--before "$ISSUE17_BEFORE")
    elif mkdir -p "$W/before" && git archive a3dbf74 aiperf_lab 2>> "$LOG" | tar -x -C "$W/before" 2>> "$LOG" \
         && [ -d "$W/before/aiperf_lab" ]; then
      BEFORE=(--before "$W/before")
    fi
    row "before: ${BEFORE[1]:-not timed (no git history here and no ISSUE17_BEFORE)}"
    row
    if timeout 170 python3 benchmarks/issue17_bench.py "$W/synthetic.sqlite" --out "$W/speed" --repeat 5 \
         --budget 110 "${BEFORE[@]}" > "$W/speed.md" 2>> "$LOG"; then
      cat "$W/speed.md" >> "$MD"
      python3 -c "import json,sys; json.dump({'speed': json.load(open(sys.argv[1]))}, open(sys.argv[2], 'w'), indent=1)" \
        "$W/speed/bench.json" "$OUT/bench.json" 2>> "$LOG"
    else
      row "**the speed benchmark failed or took over 170 s** (see log.txt)"
    fi
    # Where the time goes: each phase's wall time (and its thread's CPU) in one run, the best of 3.
    for report in nvtx_kern_sum nvtx_gpu_proj_sum nvtx_gpu_proj_trace; do
      row
      row "Timeline of $report (\`python benchmarks/stats_timeline.py STORM $report --repeat 3\`):"
      row '```'
      timeout 60 python3 benchmarks/stats_timeline.py "$W/synthetic.sqlite" "$report" --repeat 3 >> "$MD" 2>> "$LOG" \
        || echo "timeline failed (see log.txt)" >> "$MD"
      row '```'
    done
  else
    row "**making the storm-shaped export failed** (see log.txt)"
  fi
  row
fi

if [[ " $PARTS " == *" part1 "* ]]; then
  row "## Part 1: 150,000 kernels in 30,000 NVTX ranges (benchmarks/kernel_storm.py)"
  row
  if timeout 240 nsys profile -t cuda,nvtx -s none --cpuctxsw=none --force-overwrite true -o "$W/storm" \
       python3 benchmarks/kernel_storm.py --steps 10000 >> "$LOG" 2>&1 \
     && timeout 120 nsys export --type sqlite --force-overwrite true -o "$W/storm.sqlite" "$W/storm.nsys-rep" >> "$LOG" 2>&1; then
    python3 -c "import sqlite3; c=sqlite3.connect('$W/storm.sqlite'); print('rows:', [(t, c.execute(f'select count(*) from {t}').fetchone()[0]) for t in ('CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_RUNTIME','NVTX_EVENTS')])" | tee -a "$LOG" | sed 's/^/    /' >> "$MD"
    row
    # Whole process against whole process, best of 3, interleaved; CSVs compared byte for byte.
    if timeout 300 python3 benchmarks/issue17_bench.py "$W/storm.sqlite" --out "$W/bench" --repeat 3 \
         --small tests/data/h200/lm_forward.sqlite > "$W/bench.md" 2>> "$LOG"; then
      cat "$W/bench.md" >> "$MD"
      python3 -c "import json,os,sys; old=json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {}; \
old['storm']=json.load(open(sys.argv[1])); json.dump(old, open(sys.argv[2], 'w'), indent=1)" \
        "$W/bench/bench.json" "$OUT/bench.json" 2>> "$LOG"
    else
      row "**benchmark failed or timed out** (see log.txt)"
    fi
    # Every nsys stats report we offer, byte for byte, on the storm trace (summaries and traces).
    timeout 200 python3 - "$W/storm.sqlite" "$W/parity" > "$OUT/storm_parity.txt" 2>> "$LOG" <<'PY'
import hashlib, subprocess, sys
from pathlib import Path
from aiperf_lab.metrics.registry import reports_for
export, folder = sys.argv[1], Path(sys.argv[2])
folder.mkdir(exist_ok=True)
names = [r.name for r in reports_for("nsys") if r.nsys_stats]
argv = ["nsys", "stats", "--format", "csv", "--output", str(folder / "out"), "--force-overwrite", "true",
        "--force-export", "false"] + [a for n in names for a in ("--report", n)] + [export]
try:
    subprocess.run(argv, capture_output=True, timeout=150)
except subprocess.TimeoutExpired:
    print("nsys stats took over 150 s; comparing what it wrote")
same = tables = both_skipped = 0
for name in names:
    theirs = folder / f"out_{name}.csv"
    try:
        ours = subprocess.run([sys.executable, "-m", "aiperf_lab.metrics.cli", export, "--report", name, "--format",
                               "csv"], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"{name}: ours took over 60 s")
        continue
    if theirs.exists() and theirs.stat().st_size:
        ok = ours.stdout == theirs.read_bytes()
        same += ok
        tables += 1
        print(f"{name}: {'identical' if ok else 'DIFFERENT'} sha256 {hashlib.sha256(theirs.read_bytes()).hexdigest()}")
    else:
        both_skipped += ours.returncode == 2 and not ours.stdout
        print(f"{name}: nsys wrote nothing; ours exit {ours.returncode}")
print(f"identical: {same} of the {tables} tables nsys wrote; no data for both: {both_skipped} of {len(names) - tables}")
PY
    row
    row "Every nsys stats report we offer on this trace: $(tail -1 "$OUT/storm_parity.txt" 2>/dev/null || echo 'check failed')"
    row
  else
    row "**the storm capture failed** (see log.txt)"
  fi
fi

if [[ " $PARTS " == *" part2 "* ]]; then
  row "## Part 2: two ranks, NCCL all-reduce and all-gather (benchmarks/nccl_allreduce.py), one export per rank"
  row
  if [ "${NGPU:-0}" -lt 2 ]; then
    row "skipped: ${NGPU:-0} GPU(s) here; run on the nvidia-h200-x2 kind."
  else
    if timeout 240 torchrun --nproc_per_node 2 --no-python nsys profile -t cuda,nvtx -s none --cpuctxsw=none \
         --force-overwrite true -o "$W/rank%q{RANK}" python3 benchmarks/nccl_allreduce.py --steps 20 \
         >> "$LOG" 2>&1; then
      # NCCL's message sizes are NVTX extended payloads: nsys export writes their bytes (NVTX_EVENTS.binaryData)
      # only with --include-blobs=true, where this nsys has that option.
      BLOBS=()
      # (The help is read whole before grep: `grep -q` closing the pipe early made nsys die of SIGPIPE, and
      # under pipefail the option looked absent.)
      EXPORT_HELP=$(nsys export --help 2>&1)
      if [[ "$EXPORT_HELP" == *--include-blobs* ]]; then BLOBS=(--include-blobs=true); fi
      row "nsys export ${BLOBS[*]:-(this nsys has no --include-blobs: payload bytes not exported)}"
      for r in 0 1; do
        timeout 60 nsys export --type sqlite "${BLOBS[@]}" --force-overwrite true -o "$W/rank$r.sqlite" "$W/rank$r.nsys-rep" >> "$LOG" 2>&1
        # Fixtures: drop what the capture knew of this machine and its user (environment, command line,
        # host), keep every table the reports read, then shrink the file.
        python3 - "$W/rank$r.sqlite" <<'PY' >> "$LOG" 2>&1
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
for table in ("META_DATA_CAPTURE", "TARGET_INFO_SYSTEM_ENV", "ProcessStreams", "PROCESSES"):
    if table in tables:
        con.execute(f"DELETE FROM {table}")
# StringIds also holds each process's environment as one NUL-separated block ("NAME=value\0NAME=...").
con.text_factory = bytes
for sid, value in con.execute("SELECT id, value FROM StringIds").fetchall():
    if isinstance(value, bytes) and b"\x00" in value and b"=" in value.split(b"\x00", 1)[0]:
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", ("(environment removed)", sid))
con.commit(); con.execute("VACUUM"); con.close()
PY
        cp "$W/rank$r.sqlite" "$OUT/rank$r.sqlite"
      done
      python3 -m aiperf_lab.metrics.cli "$OUT/rank0.sqlite" "$OUT/rank1.sqlite" --report nccl_sum --format csv \
        > "$OUT/nccl_sum.csv" 2>> "$LOG"
      echo "nccl_sum exit $?" >> "$LOG"
      python3 -m aiperf_lab.metrics.cli "$OUT/rank0.sqlite" "$OUT/rank1.sqlite" --report rank_spread --format csv \
        > "$OUT/rank_spread.csv" 2>> "$LOG"
      echo "rank_spread exit $?" >> "$LOG"
      row "sizes: $(ls -l "$OUT"/rank*.sqlite | awk '{printf "%s %.2f MB; ", $NF, $5/1e6}')"
      row
      row '```'
      cat "$OUT/nccl_sum.csv" >> "$MD"
      row '```'
      row
      row "rank_spread, first rows (the straggler is rank 1: a second matmul each step):"
      row '```'
      head -6 "$OUT/rank_spread.csv" >> "$MD"
      row '```'
      # How this nsys stores NCCL's NVTX payload (what nccl_sum reads the bytes from): the schema rows, NCCL
      # ranges' binaryData in hex and what the decoder makes of them, and the bytes against the workload's.
      row "NCCL's NVTX payloads in rank0.sqlite, as exported, and decoded:"
      row '```'
      timeout 60 python3 benchmarks/nccl_payload_dump.py "$OUT/rank0.sqlite" --expect-csv "$OUT/nccl_sum.csv" \
        >> "$MD" 2>&1 || row "(nccl_payload_dump exit $?)"
      row '```'
    else
      row "**the two-rank capture failed** (see log.txt)"
    fi
  fi
fi
rm -rf "$W"
cat "$MD"
exit 0
