#!/usr/bin/env bash
# One call on the GPU machine that measures and checks the readers (aiperf-stats) and the telemetry
# sampler against the real tools and a real GPU. Run from the repository root there, with .nsyslibs
# and .corpus carried (see docs/benchmarks.md); results land in $OUT/results.tar.gz and a short table
# at the end of the output.
set -uo pipefail
# Stages to run (default all): stats sampler triage fixture interrupt labs; labs1, labs2 (the halves
# of labs) and multi (the multi-GPU exercises, on the two-GPU kind); LAB_SPECS="ex:variant:profile ..."
# runs just those
STAGES=${*:-stats sampler triage fixture interrupt labs}
want() { [[ " $STAGES " == *" $1 "* ]]; }
OUT=${OUT:-/tmp/aiperf-out}
W=/tmp/aiperf-work
mkdir -p "$OUT" "$W"
export PYTHONPATH=$(pwd) PYTHONUNBUFFERED=1 LC_ALL=C
step() { echo; echo "=== $* ($(date +%T))"; }

step machine
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv | tee "$W/gpu.txt"
python3 -c "import torch, sys; print('torch', torch.__version__, 'python', sys.version.split()[0])"
source .nsyslibs/nsys-env.sh
which sqlite3 || echo "no sqlite3 CLI"

if want stats; then
step "nsys trace of 150,000 kernels in 30,000 NVTX ranges"
/usr/bin/time -f "profile wall %e s" nsys profile -t cuda,nvtx -s none --cpuctxsw=none --force-overwrite true \
  -o "$W/storm" python3 benchmarks/kernel_storm.py --steps 10000 2>&1 | tail -4
/usr/bin/time -f "export wall %e s" nsys export --type sqlite --force-overwrite true -o "$W/storm.sqlite" "$W/storm.nsys-rep" 2>&1 | tail -2
python3 -c "import sqlite3; c=sqlite3.connect('$W/storm.sqlite'); print([ (t, c.execute(f'select count(*) from {t}').fetchone()[0]) for t in ('CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_RUNTIME','NVTX_EVENTS')])"

step "speed: aiperf-stats against sqlite3 and nsys stats"
python3 benchmarks/stats_speed.py "$W/storm.sqlite" --repeat 9 --json "$W/stats_speed.json" | tee "$W/stats_speed.txt"
python3 benchmarks/make_synthetic_export.py tests/data/h200/lm_forward.sqlite "$W/synthetic.sqlite" --kernels 150000
python3 benchmarks/stats_speed.py "$W/synthetic.sqlite" --repeat 7 --json "$W/stats_speed_synthetic.json" | tee "$W/stats_speed_synthetic.txt"
nsys stats --report cuda_gpu_kern_sum --format csv tests/data/h200/lm_forward.sqlite > "$W/nsys_console_stdout.txt" 2> "$W/nsys_console_stderr.txt"
echo "nsys stats console stdout, as bytes:"; head -c 400 "$W/nsys_console_stdout.txt" | od -c | head -12; echo "stderr:"; head -5 "$W/nsys_console_stderr.txt"

step "parity with nsys stats 2025.3.1 on the exports here (.corpus when carried)"
python3 benchmarks/parity_check.py --nsys-out "$W/parity" "$W/storm.sqlite" tests/data/h200/lm_forward.sqlite \
  $(find .corpus -name '*.sqlite' 2>/dev/null | sort) | tee "$W/parity.txt"

if [ -d .corpus ]; then
step ".nsys-rep through nsys export"
for rep in $(find .corpus -name '*.nsys-rep' | sort); do
  cp "$rep" "$W/$(basename "$(dirname "$rep")")_$(basename "$rep")"
  python3 -m aiperf_lab.metrics.cli "$W/$(basename "$(dirname "$rep")")_$(basename "$rep")" -r cuda_gpu_kern_sum -f csv > "$W/rep_out.csv" 2> "$W/rep_err.txt"
  echo "$rep: exit $? $(head -c 300 "$W/rep_err.txt") rows $(wc -l < "$W/rep_out.csv")"
done

step "ncu: .ncu-rep through ncu --import, and every configured metric id"
python3 -m aiperf_lab.metrics.cli .corpus/ncu-esmm/profile.ncu-rep -r ncu_summary -f csv > "$W/esmm_rep.csv"; echo "exit $?"
python3 -m aiperf_lab.metrics.cli .corpus/ncu-derived/profile__raw.csv -r ncu_summary -f csv > "$W/esmm_raw.csv"; echo "exit $?"
python3 - "$W/esmm_rep.csv" "$W/esmm_raw.csv" <<'PY'
import csv, sys
a = list(csv.DictReader(open(sys.argv[1]))); b = list(csv.DictReader(open(sys.argv[2])))
same = [x["Verdict"] == y["Verdict"] and abs(float(x["Duration (ns)"]) - float(y["Duration (ns)"])) < 1 for x, y in zip(a, b)]
print(f"ncu-rep vs raw csv: {len(a)} and {len(b)} kernels, {sum(same)} agree on verdict and duration")
PY
timeout 300 python3 benchmarks/check_ncu_metrics.py | tee "$W/ncu_metrics.txt"
fi
nsys profile --help 2>&1 | grep -A40 -- '--trace=' | head -45 > "$W/nsys_trace_help.txt"
fi

if want sampler; then
step "telemetry sampler on the real GPU"
python3 benchmarks/sampler_on_gpu.py --seconds 10 --json "$W/sampler.json" | tee "$W/sampler.txt"
python3 -m pytest -q -p no:cacheprovider tests/test_gpu_telemetry.py tests/test_telemetry.py 2>&1 | tail -3
fi

if want triage; then
step "a real triage bundle: PyTorch training under nsys, with --bench"
python3 -m aiperf_lab.triage.cli --duration 40 --bench --output "$W/triage" --tag nsys -- \
  python3 benchmarks/triage_workload.py --seconds 15 > "$W/triage_nsys.txt" 2> "$W/triage_nsys.err"
echo "exit $?"; tail -n 3 "$W/triage_nsys.err"; BUNDLE=$(tail -n 1 "$W/triage_nsys.txt"); echo "$BUNDLE"
python3 benchmarks/check_triage_bundle.py "$BUNDLE" | tee "$W/triage_check.txt"
python3 -m aiperf_lab.triage.cli show "$BUNDLE" | head -40
tar tzvf "$BUNDLE" | awk '{print $3, $6}'
fi
if want fixture; then
step "a small redacted bundle for the tests (no nsys), and compare"
python3 -m aiperf_lab.triage.cli --duration 30 --bench --redact-hosts --no-nsys --output "$W/fixture" --tag fixture -- \
  python3 benchmarks/triage_workload.py --seconds 4 > "$W/triage_fixture.txt"; echo "exit $?"
FIXTURE=$(tail -n 1 "$W/triage_fixture.txt"); cp "$FIXTURE" "$OUT/"
python3 -m aiperf_lab.triage.cli show "$FIXTURE" | head -30
[ -n "${BUNDLE:-}" ] && python3 -m aiperf_lab.triage.cli compare "$BUNDLE" "$FIXTURE" | tee "$W/compare.txt"
fi
if want interrupt; then
step "Ctrl-C (SIGINT) 10 s into a 60 s run under nsys"
timeout -s INT 10 python3 -m aiperf_lab.triage.cli --duration 60 --output "$W/int" -- \
  python3 benchmarks/triage_workload.py --seconds 50 > "$W/int.txt" 2> "$W/int.err"; echo "interrupted run: exit $?"
tail -n 4 "$W/int.err"; INT=$(tail -n 1 "$W/int.txt"); echo "$INT"
python3 -c "import json,sys,tarfile; t=tarfile.open(sys.argv[1]); m=[x for x in t.getmembers() if x.name.endswith('manifest.json')][0]; d=json.load(t.extractfile(m)); print('interrupted:', d['interrupted'], [(c['name'], c['status']) for c in d['collectors']])" "$INT"
pgrep -fa triage_workload.py || echo "no workload process left"
fi

if want labs || want labs1 || want labs2 || want multi; then
step "lab exercises on the GPU"
SET1="01-ex01:baseline:nsys 01-ex01:optimized:nsys 01-ex02:baseline:nsys 01-ex02:optimized:nsys
02-ex01:strided:ncu 02-ex02:divergent:ncu 02-ex03:sweep:ncu 02-ex04:v3:ncu 03-ex01:train:torch
03-ex02:baseline:none 03-ex02:optimized:none 05-ex01:single:none 07-ex02:forward:nsys 07-ex03:both:nsys
07-ex04:forward:nsys 01-ex03:optimized:nsys 04-ex01:bf16:none"
SET2="06-ex01:baseline:nsys 06-ex01:optimized:nsys 06-ex02:baseline:nsys 06-ex02:optimized:nsys
06-ex03:forward:nsys 06-ex04:train:nsys 06-ex05:compare:nsys 06-ex06:baseline:nsys 06-ex06:optimized:nsys
06-ex07:compare:nsys 06-ex08:baseline:nsys 06-ex08:optimized:nsys 07-ex01:forward:nsys"
MULTI="01-ex04:baseline:nsys 01-ex04:optimized:nsys 03-ex03:profile:torch 05-ex02:strong:none
05-ex03:buckets25:none 05-ex03:buckets1:none"
SPECS=""
want labs && SPECS="$SET1 $SET2"
want labs1 && SPECS="$SPECS $SET1"
want labs2 && SPECS="$SPECS $SET2"
want multi && SPECS="$SPECS $MULTI"
[ -n "${LAB_SPECS:-}" ] && SPECS="$LAB_SPECS"
for spec in $SPECS; do
  IFS=: read -r ex variant prof <<< "$spec"
  echo "--- $ex $variant $prof ($(date +%T))"
  mkdir -p "$OUT/lab_logs"
  timeout "${LAB_TIMEOUT:-240}" python3 -m aiperf_lab.labs run "$ex" --variant "$variant" --profile "$prof" \
    --runs-dir "$W/runs" > "$OUT/lab_logs/$ex-$variant-$prof.log" 2>&1
  echo "exit $?"; grep -v "^  | " "$OUT/lab_logs/$ex-$variant-$prof.log" | tail -n 12
  python3 benchmarks/lab_results.py "$W/runs" > "$OUT/lab_results.md"
done
python3 benchmarks/lab_results.py "$W/runs" | tee "$W/lab_results.md"
cp "$W/lab_results.md" "$OUT/"
# the run folders without the large profiler outputs
tar -czf "$OUT/runs.tar.gz" -C "$W" --exclude='*.nsys-rep' --exclude='*.sqlite' --exclude='*.ncu-rep' \
  --exclude='torch_trace.json' --exclude='memory_snapshot.pickle' --exclude='telemetry.csv' runs
rm -rf "$W/runs"
fi

step summary
want stats && { tail -n 12 "$W/stats_speed.txt"; tail -n 4 "$W/stats_speed_synthetic.txt"; tail -n 1 "$W/parity.txt"; }
want sampler && tail -n 12 "$W/sampler.txt"
want triage && cat "$W/triage_check.txt"
rm -f "$W"/*.nsys-rep "$W"/storm.sqlite "$W"/synthetic.sqlite "$W"/*_result*.sqlite
tar -czf "$OUT/results.tar.gz" -C "$W" .
ls -la "$OUT"
