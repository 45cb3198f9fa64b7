"""What an nsys export holds of NCCL's NVTX extended payloads, and what aiperf-stats decodes from them.

Prints the payload schema rows, how many NCCL ranges carry binaryData or jsonText, the first ranges'
blobs in hex next to the decoded values, and with --expect-csv (nccl_sum's CSV for the two-rank capture of
benchmarks/nccl_allreduce.py) whether each row's bytes are what that workload moved: 16 MiB per
all-reduce, 4 MiB per rank per all-gather over 2 ranks (8 MiB as nccl-tests counts it).

    python benchmarks/nccl_payload_dump.py rank0.sqlite [--expect-csv nccl_sum.csv] [--rows 6]
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiperf_lab.metrics.nsys.db import NVTX, NsysDatabase  # noqa: E402
from aiperf_lab.metrics.nsys.nvtx import load_ranges  # noqa: E402
from aiperf_lab.metrics.nsys.nvtx_payload import ENTRIES, SCHEMAS, PayloadDecoder, event_payloads  # noqa: E402

MIB = 1 << 20
WORKLOAD = {"AllReduce": 16 * MIB, "AllGather": 4 * MIB * 2}   # benchmarks/nccl_allreduce.py, 2 ranks


def dump(path: Path, rows: int) -> None:
    db = NsysDatabase(path)
    for table in (SCHEMAS, ENTRIES):
        if db.has(table):
            print(f"{table}:")
            for row in db.query(f"SELECT * FROM [{table}]"):
                print("  ", row)
        else:
            print(f"{table}: absent")
    ranges = [r for r in load_ranges(db, end_bound="ranges") if r.name.startswith("NCCL:")]
    payloads = event_payloads(db, [r.range_id for r in ranges])
    blobs = sum(1 for _, blob, _ in payloads.values() if blob is not None)
    texts = sum(1 for _, _, text in payloads.values() if text is not None)
    print(f"NCCL ranges: {len(ranges)}; with binaryData: {blobs}; with jsonText: {texts}")
    decoder = PayloadDecoder(db)
    shown = 0
    for r in ranges:
        found = payloads.get(r.range_id)
        if found is None or shown >= rows:
            continue
        domain, blob, text = found
        shown += 1
        raw = bytes(blob).hex() if isinstance(blob, (bytes, bytearray)) else repr(blob)[:200]
        print(f"{r.name} (domain {domain}): binaryData {type(blob).__name__} {raw}")
        if text is not None:
            print(f"  jsonText {str(text)[:200]}")
        if blob is not None:
            decoded = decoder.decode(domain, blob)
            print("  decoded:", decoded if isinstance(decoded, str) else
                  f"schema {decoded.schema.schema_id}: {decoded.values}" +
                  (f"; unread {decoded.unread}" if decoded.unread else ""))


def check(csv_path: Path) -> bool:
    ok = True
    with csv_path.open() as handle:
        for row in csv.DictReader(handle):
            per_call = WORKLOAD.get(row["Collective"])
            if per_call is None:
                continue
            expected = per_call * int(row["Count"])
            same = row["Bytes"] == str(expected)
            ok &= same
            print(f"rank {row['Rank']} {row['Collective']}: bytes {row['Bytes']}, workload {expected}: "
                  f"{'match' if same else 'DIFFERENT'}; busbw {row['BusBW (GB/s)'] or '-'} GB/s")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export", type=Path)
    parser.add_argument("--expect-csv", type=Path)
    parser.add_argument("--rows", type=int, default=6)
    args = parser.parse_args()
    dump(args.export, args.rows)
    if args.expect_csv:
        print("bytes as the workload moved them:", "yes" if check(args.expect_csv) else "NO")
    return 0


if __name__ == "__main__":
    sys.exit(main())
