#!/usr/bin/env bash
# Where does Nsight Systems keep NCCL's NVTX extended payloads (message sizes)? One GPU is enough:
# a one-rank NCCL communicator still emits its NVTX ranges with payloads.
# Expected runtime: about 1.5 minutes. Writes into $OUT: probe.md (the table), export_help.txt,
# profile_help.txt, and the exports' excerpts. Needs .nsyslibs (source .nsyslibs/nsys-env.sh).
# Usage (repo root, GPU machine): bash benchmarks/probe_nccl_payload.sh
set -u
OUT=${OUT:-/tmp/probe_out}; mkdir -p "$OUT"; W=$(mktemp -d); MD="$OUT/probe.md"; LOG="$OUT/log.txt"
export PYTHONPATH=$(pwd)
row() { echo "$*" >> "$MD"; }
source .nsyslibs/nsys-env.sh > "$OUT/nsys_version.txt" 2>&1
row "# NCCL payload probe on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(cat "$OUT/nsys_version.txt" | tail -1)"
nsys export --help > "$OUT/export_help.txt" 2>&1
nsys profile --help > "$OUT/profile_help.txt" 2>&1
row "export types: $(grep -A3 -- '--type' "$OUT/export_help.txt" | tr -s ' \n' ' ' | cut -c1-300)"
row "export options mentioning blob/binary/payload/json: $(grep -i -E 'blob|binary|payload|json' "$OUT/export_help.txt" | tr -s ' \n' ' ' | cut -c1-400)"
row "profile options mentioning payload/nvtx: $(grep -i -E 'payload|nvtx' "$OUT/profile_help.txt" | tr -s ' \n' ' ' | cut -c1-600)"
export NCCL_NVLS_ENABLE=0
if timeout 150 torchrun --nproc_per_node 1 --no-python nsys profile -t cuda,nvtx -s none --cpuctxsw=none \
     --force-overwrite true -o "$W/r0" python3 benchmarks/nccl_allreduce.py --steps 6 >> "$LOG" 2>&1; then
  row "capture: ok ($(ls -l "$W/r0.nsys-rep" | awk '{print $5}') bytes)"
else
  row "capture: FAILED (see log.txt)"
fi
for t in sqlite json text jsonlines arrow parquetdir hdf; do
  case $t in sqlite) o="$W/r0.sqlite";; json) o="$W/r0.json";; text) o="$W/r0.txt";; jsonlines) o="$W/r0.jsonl";; *) o="$W/r0.$t";; esac
  if timeout 60 nsys export --type "$t" --force-overwrite true -o "$o" "$W/r0.nsys-rep" >> "$LOG" 2>&1; then
    size=$(du -sb "$o" 2>/dev/null | cut -f1)
    hits=$(grep -r -a -c -E 'Message size|16777216|ncclAllReduce|binaryData|payload' "$o" 2>/dev/null | awk -F: '{s+=$NF} END {print s+0}')
    row "- export $t: ok, $size bytes, lines matching size/payload words: $hits"
  else
    row "- export $t: failed ($(tail -1 "$LOG" | cut -c1-160))"
  fi
done
if [ -f "$W/r0.sqlite" ]; then
  python3 - "$W/r0.sqlite" >> "$MD" 2>&1 <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
tables = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
print("- tables with NVTX or PAYLOAD in the name:", ", ".join(t for t in tables if "NVTX" in t or "PAYLOAD" in t))
cols = [r[1] for r in con.execute("PRAGMA table_info(NVTX_EVENTS)")]
print("- NVTX_EVENTS columns:", ", ".join(cols))
sel = ["count(*)"] + [f"count({c})" for c in ("binaryData", "jsonText", "jsonTextId", "uint64Value", "int64Value") if c in cols]
print("- NVTX_EVENTS counts", sel, con.execute(f"SELECT {', '.join(sel)} FROM NVTX_EVENTS").fetchone())
for t in tables:
    if "PAYLOAD" in t:
        print(f"- {t}: {con.execute(f'SELECT count(*) FROM {t}').fetchone()[0]} rows; first: {con.execute(f'SELECT * FROM {t} LIMIT 2').fetchall()}")
print("- NCCL ranges:", con.execute("SELECT count(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId WHERE coalesce(n.text, s.value) LIKE 'nccl%'").fetchone()[0])
PY
fi
for f in "$W/r0.json" "$W/r0.txt" "$W/r0.jsonl"; do
  [ -f "$f" ] && grep -a -m 8 -E 'Message size|16777216|binaryData|[Pp]ayload' "$f" | cut -c1-400 > "$OUT/$(basename "$f").excerpt"
done
[ -d "$W/r0.parquetdir" ] && ls "$W/r0.parquetdir" > "$OUT/parquetdir.ls"
for d in "$W/r0.arrow" "$W/r0.parquetdir"; do [ -e "$d" ] && ls -la "$d" >> "$OUT/arrow_parquet.ls" 2>&1; done
nsys stats --help-reports > "$OUT/stats_reports.txt" 2>&1
row "nsys stats reports mentioning nccl/payload: $(grep -i -E 'nccl|payload' "$OUT/stats_reports.txt" | tr -s ' \n' ' ' | cut -c1-300)"
python3 -c "import torch; print('NCCL', torch.cuda.nccl.version())" >> "$MD" 2>&1
rm -rf "$W"; cat "$MD"; exit 0
