"""Make an export shaped like benchmarks/kernel_storm.py's capture, on a machine without a GPU.

kernel_storm.py under nsys gives 15 kernels per step (12 in a "forward" range, 3 in a "backward" range,
both inside a "step" range), each launched by cudaLaunchKernel followed by a cuKernelGetName call, as
PyTorch does: 150,000 kernels, 300,000 runtime calls and 30,000 NVTX ranges for 10,000 steps. This
script writes the same rows into a copy of a real export's schema (tests/data/h200/lm_forward.sqlite),
with kernel durations and queue delays drawn from a seeded generator, so the speed of aiperf-stats can be
measured here; the official figures come from the real storm on the GPU machine (verify_issue17.sh).

    python benchmarks/make_storm_export.py tests/data/h200/lm_forward.sqlite storm.sqlite [--steps 10000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import sys

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
NVTX = "NVTX_EVENTS"
# The step's kernels: (range, template kernel number); 6 distinct kernels as mul_/add_/sub_/div_/neg_ give.
STEP = [("forward", k) for _ in range(4) for k in (0, 1, 2)] + [("backward", k) for k in (3, 4, 5)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    shutil.copyfile(args.source, args.target)
    con = sqlite3.connect(args.target)
    rng = random.Random(args.seed)
    kcols = [r[1] for r in con.execute(f"PRAGMA table_info({KERNEL})")]
    rcols = [r[1] for r in con.execute(f"PRAGMA table_info({RUNTIME})")]
    ncols = [r[1] for r in con.execute(f"PRAGMA table_info({NVTX})")]
    templates = [list(r) for r in con.execute(
        f"SELECT * FROM {KERNEL} WHERE rowid IN (SELECT min(rowid) FROM {KERNEL} GROUP BY demangledName) "
        "ORDER BY rowid LIMIT 6")]
    call = list(con.execute(f"SELECT * FROM {RUNTIME} AS r JOIN StringIds AS s ON s.id = r.nameId "
                            "WHERE s.value = 'cudaLaunchKernel_v7000' LIMIT 1").fetchone()[:len(rcols)])
    get_name = con.execute("SELECT id FROM StringIds WHERE value = 'cuKernelGetName'").fetchone()[0]
    launch_name = call[rcols.index("nameId")]
    tid = call[rcols.index("globalTid")]
    pid = templates[0][kcols.index("globalPid")]
    text_ids = {}
    for text in ("step", "forward", "backward"):
        con.execute("INSERT INTO StringIds(id, value) VALUES ((SELECT max(id) + 1 FROM StringIds), ?)", (text,))
        text_ids[text] = con.execute("SELECT max(id) FROM StringIds").fetchone()[0]
    con.execute(f"DELETE FROM {KERNEL}")
    con.execute(f"DELETE FROM {RUNTIME}")
    con.execute(f"DELETE FROM {NVTX} WHERE eventType <> 75")
    for table in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):  # their calls are gone
        con.execute(f"DELETE FROM {table}") if con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() else None

    k_at = {c: kcols.index(c) for c in ("start", "end", "correlationId", "globalPid")}
    r_at = {c: rcols.index(c) for c in ("start", "end", "correlationId", "nameId", "globalTid")}
    kernels, calls, ranges = [], [], []

    def nvtx_row(start: int, end: int, text: str) -> list:
        row = [None] * len(ncols)
        row[ncols.index("start")], row[ncols.index("end")], row[ncols.index("eventType")] = start, end, 59
        row[ncols.index("textId")], row[ncols.index("globalTid")] = text_ids[text], tid
        if "domainId" in ncols:
            row[ncols.index("domainId")] = 0
        return row

    now, gpu, corr = 10_000_000_000, 10_000_000_000, 1
    for _step in range(args.steps):
        step_start = now
        now += 500
        opened: dict[str, int] = {}
        for index, (range_name, template) in enumerate(STEP):
            if range_name not in opened:
                if opened:  # close "forward" before "backward" opens
                    ranges.append(nvtx_row(opened.pop("forward"), now, "forward"))
                    now += 300
                opened[range_name] = now
                now += 200
            api_start, api_end = now, now + rng.randint(2_500, 6_000)
            row = list(call)
            row[r_at["start"]], row[r_at["end"]], row[r_at["correlationId"]] = api_start, api_end, corr
            row[r_at["nameId"]], row[r_at["globalTid"]] = launch_name, tid
            calls.append(row)
            extra = list(row)
            extra[r_at["start"]], extra[r_at["end"]] = api_end + 100, api_end + 400
            extra[r_at["correlationId"]], extra[r_at["nameId"]] = corr + 1, get_name
            calls.append(extra)
            gpu = max(gpu, api_end + rng.randint(-1_500, 3_000))
            duration = rng.randint(1_200, 2_400) + 400 * template
            krow = list(templates[template])
            krow[k_at["start"]], krow[k_at["end"]] = gpu, gpu + duration
            krow[k_at["correlationId"]], krow[k_at["globalPid"]] = corr, pid
            kernels.append(krow)
            gpu += duration + rng.randint(200, 800)
            corr += 2
            now = api_end + 600
        ranges.append(nvtx_row(opened.pop("backward"), now, "backward"))
        now += 300
        ranges.append(nvtx_row(step_start, now, "step"))
        now += 1_000
    con.executemany(f"INSERT INTO {KERNEL} VALUES ({','.join('?' * len(kcols))})", kernels)
    con.executemany(f"INSERT INTO {RUNTIME} VALUES ({','.join('?' * len(rcols))})", calls)
    ranges.sort(key=lambda r: r[0])
    con.executemany(f"INSERT INTO {NVTX} VALUES ({','.join('?' * len(ncols))})", ranges)
    con.commit()
    con.execute("VACUUM")
    con.close()
    print(f"{args.target}: {len(kernels)} kernels, {len(calls)} runtime calls, {len(ranges)} NVTX ranges",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
