"""Make a large nsys export from a small real one by repeating its CUDA and NVTX activity in time.

For measuring speed on a machine without a GPU; the official figures come from a real trace made on
the GPU machine (see docs/benchmarks.md). Every copy is shifted past the previous one and gets fresh
correlation ids, so attribution and statistics stay meaningful.

    python benchmarks/make_synthetic_export.py tests/data/h200/lm_forward.sqlite /tmp/big.sqlite --kernels 150000
"""

from __future__ import annotations

import argparse
import math
import shutil
import sqlite3
import sys

TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--kernels", type=int, default=150_000)
    args = parser.parse_args()
    shutil.copyfile(args.source, args.target)
    con = sqlite3.connect(args.target)
    present = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tables = [t for t in TABLES if t in present]
    base = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    copies = math.ceil(args.kernels / base)
    lo, hi = con.execute("SELECT min(start), max([end]) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
    span = hi - lo + 1_000_000
    max_corr = max(con.execute(f"SELECT max(correlationId) FROM {t}").fetchone()[0] or 0
                   for t in tables if t != "NVTX_EVENTS")
    columns = {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")] for t in tables}
    originals = {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
    for copy in range(1, copies):
        shift, corr_shift = copy * span, copy * (max_corr + 1)
        for table in tables:
            cols = columns[table]
            s, e = cols.index("start"), cols.index("end")
            c = cols.index("correlationId") if "correlationId" in cols else None
            rows = []
            for row in originals[table]:
                row = list(row)
                row[s] += shift
                if row[e] is not None:
                    row[e] += shift
                if c is not None:
                    row[c] += corr_shift
                rows.append(row)
            con.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(cols))})", rows)
    con.commit()
    total = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    con.execute("VACUUM")
    con.close()
    print(f"{args.target}: {total} kernels ({copies} copies of {base})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
