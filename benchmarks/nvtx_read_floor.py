"""What nvtx_kern_sum's reads cost against the bare GROUP BY, in one process (issue 17).

    python benchmarks/nvtx_read_floor.py EXPORT.sqlite [--repeat 7]

CPU time (best of --repeat, this thread alone, one connection, no threads) of:
- the bare GROUP BY over the kernels (the figure "within 3x" is measured against);
- each SQL read nvtx_kern_sum makes, as the code builds it (the kernels' name and duration packed, the
  launch calls, the NVTX ranges' grouped read), SQL alone (sqlite3 printing group_concat's text);
- the same with their text parsed as the reports parse it (json, in Python);
- the attribution alone (load_ranges and the launch join already done; nvtx_kern_sum's rows).
The reads run in threads in the report, SQLite without Python's lock: on N free cores their SQL costs
about its CPU / N of wall time, the parsing and everything after it runs under the lock, one at a time.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import sys
import time


def best(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        work()
        times.append(time.thread_time() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    gc.disable()  # as aiperf-stats runs
    from aiperf_lab.metrics.nsys import launch_join, nvtx
    from aiperf_lab.metrics.nsys.db import KERNEL, NVTX, NVTX_PUSHPOP, NVTXT_PUSHPOP, NsysDatabase

    db = NsysDatabase(args.export)
    name_col = db.kernel_name_column()
    con = sqlite3.connect(f"file:{db.path.resolve()}?mode=ro", uri=True)
    group_by = ("SELECT demangledName, count(*), sum([end]-start), avg([end]-start), min([end]-start), "
                f"max([end]-start) FROM {KERNEL} GROUP BY demangledName")
    kernels = launch_join._read_sqls(db, KERNEL, "globalPid", launch_join._op_read_columns(nvtx._packed_read(db, name_col)))
    calls = launch_join._read_sqls(db, nvtx._launch_reads(db, name_col)[1][0], "globalTid",
                                   launch_join._call_read_columns(()))
    text_id, domain_id, end_tid = nvtx._optional_columns(db)
    types = ",".join(str(t) for t in nvtx.NVTX_RANGE_TYPES)
    pushpop = ",".join(str(t) for t in (NVTX_PUSHPOP, NVTXT_PUSHPOP))
    ranges = nvtx._grouped_sqls(db, types, "ranges", pushpop, end_tid, domain_id, text_id) if NVTX in db.tables else []

    def sql(queries):
        return lambda: [con.execute(q).fetchall() for q in queries]

    def parsed(queries, then):
        return lambda: [then(con.execute(q).fetchall()) for q in queries]

    rows = [("bare GROUP BY", best(args.repeat, sql([group_by])))]
    rows.append(("kernels' read (name and duration packed), SQL", best(args.repeat, sql(kernels))))
    rows.append(("launch calls' read, SQL", best(args.repeat, sql(calls))))
    rows.append(("NVTX ranges' grouped read, SQL", best(args.repeat, sql(ranges))))
    rows.append(("kernels' read, SQL + parsing", best(args.repeat, parsed(kernels, launch_join._unparsed_first))))
    rows.append(("launch calls' read, SQL + parsing", best(args.repeat, parsed(calls, launch_join._parsed_keeping_text))))
    rows.append(("NVTX ranges: load_ranges whole", best(args.repeat, lambda: nvtx.load_ranges(NsysDatabase(args.export),
                                                                                            end_bound="ranges"))))
    threads = nvtx._launches_by_thread(NsysDatabase(args.export), name_col)
    loaded = [r for r in nvtx.load_ranges(NsysDatabase(args.export), end_bound="ranges") if not r.ends_elsewhere]
    by_thread: dict = {}
    for r in loaded:
        by_thread.setdefault(r.global_tid, []).append(r)

    def attribute():
        acc = nvtx._Attribution()
        for gtid, starts, ends, kernels_of in threads:
            fresh = nvtx._Kernels(packed=list(kernels_of._packed)) if kernels_of._packed is not None else kernels_of
            if gtid is None or not nvtx._attribute_thread(acc, gtid, by_thread.get(gtid, []), starts, ends, fresh):
                raise SystemExit("this export needs the general attribution: not measured here")
        for group in acc.groups().values():
            group.summary()

    rows.append(("attribution and rows (nvtx_kern_sum after its reads)", best(args.repeat, attribute)))
    base = rows[0][1]
    print(f"{args.export}: CPU seconds, best of {args.repeat}, one thread")
    print()
    print("| step | CPU (s) | x bare GROUP BY |")
    print("|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.3f} | {seconds / base:.2f}x |")
    sql_total = rows[1][1] + rows[2][1] + rows[3][1]
    print(f"| the three reads' SQL together | {sql_total:.3f} | {sql_total / base:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
