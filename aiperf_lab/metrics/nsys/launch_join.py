"""GPU operations joined to their launching calls by a hash join in Python, not by SQLite.

SQLite joins CUPTI_ACTIVITY_KIND_KERNEL to CUPTI_ACTIVITY_KIND_RUNTIME by building a temporary B-tree
over the calls' correlation ids (there is no index in an export): on 150,000 kernels that join costs
more than reading both tables. Here each table is read once as group_concat strings (parsed in C by
json), and the join is a dict from correlation id to call: no Python object per row.

The result is that of ``ops LEFT JOIN calls ON correlationId AND process``, row for row. Where it could
differ (a correlation id that two calls of one process share, a NULL in a column) the caller is told
(None) and keeps its SQL join.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from operator import and_, lt
from itertools import chain, islice, repeat

from aiperf_lab.metrics.nsys.db import (KERNEL, MEMCPY, MEMSET, PID_MASK, RUNTIME, NsysDatabase, end_sql,
                                        integers_or_none)

# One thread's operations, ordered by their call's start: call starts, call ends, then the op columns.
Columns = list[list[int]]
# The tables a read covers and the columns it reads of each: checked in full (one line naming the column)
# only when the read's own checks found a value that is not what nsys writes.
Checks = dict[str, tuple[str, ...]]
CALL_COLUMNS = ("correlationId", "globalTid", "start", "end")


def _read(db: NsysDatabase, source: str, key: str, columns: list[str], checks: Checks,
          then: Callable | None = None) -> tuple[list[int] | None, int | None, list[list[int]]] | None:
    """(key per row or None, the key when all rows share it, [column values]) of `source` in table
    order; None where a value is NULL. With then=_unparsed_first or _parsed_keeping_text, the first column
    comes as a _Text.

    One scan; a second one for the keys only where they differ (several processes or threads). The read
    checks what it reads (integers_or_none; times through span_sql): a wrong value found raises the
    InputError of the full check of `checks`; a NULL where nsys may write one gives None."""
    parts = [db.query_then(sql, then or _parsed) for sql in _read_sqls(db, source, key, columns)]
    if any(part_rows and not (type(part_low) is int and type(part_high) is int)
           for part_rows, _keyed, part_low, part_high, _values in parts):
        return _checked_none(db, checks)
    rows, keyed = sum(p[0] for p in parts), sum(p[1] for p in parts)
    low = min((p[2] for p in parts if p[0]), default=None)
    high = max((p[3] for p in parts if p[0]), default=None)
    values = [None if any(p[4][i] is None for p in parts) else
              (parts[0][4][i] if len(parts) == 1 else
               _Text.joined([p[4][i] for p in parts]) if type(parts[0][4][i]) is _Text else
               list(chain.from_iterable(p[4][i] for p in parts)))
              for i in range(len(columns))]
    for i, column in enumerate(columns):
        if values[i] is None and column in _MOSTLY_CONSTANT:  # several values after all: read them all
            values[i] = integers_or_none(db.query(f"SELECT group_concat({column}) FROM {source}")[0][0], rows)
    if keyed != rows or None in values:
        return _checked_none(db, checks)
    if low == high:
        return None, low, values
    keys = integers_or_none(db.query(f"SELECT group_concat({key}) FROM {source}")[0][0], rows)
    return (keys, None, values) if keys is not None else _checked_none(db, checks)


def _parsed(result: list[tuple]) -> tuple:
    """A _read_sql row with its group_concat columns parsed (in the prefetching thread where there is one)."""
    rows, keyed, low, high, *texts = result[0]
    return rows, keyed, low, high, [_one_value(t, rows) if t is not None and t[:1] == "=" else
                                    integers_or_none(t, rows) for t in texts]


def _parsed_keeping_text(result: list[tuple]) -> tuple:
    """_parsed, the first column (correlation ids) also kept as its text (a _Text)."""
    return _with_text(result, True)


def _unparsed_first(result: list[tuple]) -> tuple:
    """_parsed, the first column (the operations' correlation ids) left as its text (a _Text): mostly it
    is the calls' own, text for text, and need not be parsed at all."""
    return _with_text(result, False)


def _with_text(result: list[tuple], parse: bool) -> tuple:
    rows, keyed, low, high, first, *texts = result[0]
    parsed = _parsed([(rows, keyed, low, high, *texts)])[4]
    if first is None and rows:
        return rows, keyed, low, high, [None, *parsed]
    pieces = [first] if first is not None else []
    return rows, keyed, low, high, [_Text(pieces, rows, integers_or_none(first, rows) if parse else False), *parsed]


class _Text:
    """A column of integers as group_concat's text (its pieces in table order) and, where parsed, its values."""

    __slots__ = ("pieces", "rows", "parsed")

    def __init__(self, pieces: list[str], rows: int, parsed: list[int] | None | bool):
        self.pieces, self.rows, self.parsed = pieces, rows, parsed  # parsed: False where not parsed yet

    @classmethod
    def joined(cls, parts: list[_Text]) -> _Text:
        parsed = [p.parsed for p in parts]
        return cls([t for p in parts for t in p.pieces], sum(p.rows for p in parts),
                   False if False in parsed else None if None in parsed else list(chain.from_iterable(parsed)))

    def values(self) -> list[int] | None:
        if self.parsed is False:
            self.parsed = integers_or_none(",".join(self.pieces) if self.pieces else None, self.rows)
        return self.parsed

    def same_text(self, other: _Text) -> bool:
        return self.rows == other.rows and ",".join(self.pieces) == ",".join(other.pieces)


# Columns that hold one value in most exports (one GPU, one launch API): read as "=" and their distinct
# values; a list where that is one integer, else (several, or a NULL among them) _read reads them in full.
_MOSTLY_CONSTANT = ("deviceId", "nameId")


def _one_value(text: str, rows: int) -> list[int] | None:
    value = text[1:]
    if value.isascii() and value.lstrip("-").isdigit() and len(value) < 20:
        return [int(value)] * rows
    return None


def _read_sql(source: str, key: str, columns: list[str]) -> str:
    concat = ", ".join(f"CASE WHEN count({c}) = count(*) THEN '=' || group_concat(DISTINCT {c}) END"
                       if c in _MOSTLY_CONSTANT else f"group_concat({c})" for c in columns)
    return f"SELECT count(*), count({key}), min({key}), max({key}), {concat} FROM {source}"


def _read_sqls(db: NsysDatabase, source: str, key: str, columns: list[str]) -> list[str]:
    """The read of `source`, split over rowid ranges of its table where it is long (run at once, in
    threads, by prefetch): a table, or a subquery of one table that carries its rowid as `rid`."""
    sql = _read_sql(source, key, columns)
    if source in (KERNEL, RUNTIME, MEMCPY, MEMSET):
        return [f"{sql} {where}" for where in db.rowid_ranges(source)]
    if source.startswith(f"({OPS_UNION_PART}") and source.endswith(")"):  # table by table, in the union's order
        tables = [part[len(OPS_UNION_PART):] for part in source[1:-1].split(" UNION ALL ")]
        if all(part.startswith(OPS_UNION_PART) for part in source[1:-1].split(" UNION ALL ")) and \
                all(table in (KERNEL, MEMCPY, MEMSET) for table in tables):
            return [sql for table in tables for sql in _read_sqls(db, table, key, columns)]
    if source.startswith(f"(SELECT rowid AS rid, ") and f" FROM {RUNTIME} WHERE " in source:
        return [f"{sql} {where}" for where in db.rowid_ranges(RUNTIME, "rid")]
    return [sql]


# A union of GPU operation tables, as nvtx_tree reads them: each read on its own (split like a table).
OPS_UNION_PART = "SELECT start, [end], correlationId, globalPid FROM "


def _op_read_columns(op_columns: list[str]) -> list[str]:
    return ["correlationId", *(c for c in op_columns if c != "correlationId")]


def _call_read_columns(call_columns: tuple[str, ...]) -> list[str]:
    return ["correlationId", "start", end_sql(), *call_columns]


def prefetch(db: NsysDatabase, ops: str, op_columns: list[str], call_sources: list[str],
             call_columns: tuple[str, ...] = ()) -> None:
    """Start launches_by_thread's reads of the ops and of the first call source in threads of their own
    (NsysDatabase.prefetch), so that they run while the caller reads something else (the ranges)."""
    db.prefetch(*_read_sqls(db, ops, "globalPid", _op_read_columns(op_columns)), then=_unparsed_first)
    db.prefetch(*_read_sqls(db, call_sources[0], "globalTid", _call_read_columns(call_columns)),
                then=_parsed_keeping_text)


def _checked_none(db: NsysDatabase, checks: Checks) -> None:
    for table, columns in checks.items():
        db.check(table, columns)
    return None


def _order(keys: list, values: list[list[int]]) -> list[list[int]]:
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return [list(map(v.__getitem__, order)) for v in values]


# SQL's join repeats an operation once per call that shares its correlation id. CUPTI numbers each
# call of a process once, so in a real export this adds nothing; a damaged one (every call with the same
# id) turns 600 kernels and 2,000 calls into 1.3 million rows and minutes of work.
RUNAWAY_EXTRA_ROWS = 100_000


def runaway_cap(operations: int) -> int:
    """The most rows a join of `operations` GPU operations to their calls may make."""
    return 2 * operations + RUNAWAY_EXTRA_ROWS


def runaway_join_error(db: NsysDatabase, operations: int, rows: str):
    from aiperf_lab.errors import InputError

    return InputError(f"{db.path.name}: damaged export: CUDA API calls of one process share correlation ids "
                      f"(CUPTI numbers each call once); joining {operations} GPU operations to their calls "
                      f"would make {rows} rows")


def _refuse_a_runaway_join(db: NsysDatabase, call_keys: list, op_keys: list) -> None:
    from collections import Counter

    per_key = Counter(call_keys)
    rows = sum(per_key.get(key, 1) for key in op_keys)
    if rows > runaway_cap(len(op_keys)):
        raise runaway_join_error(db, len(op_keys), str(rows))


def sql_join_rows(db: NsysDatabase, ops: str, calls: str) -> int:
    """How many rows `ops` JOIN `calls` on correlation id and process makes, from the counts per (id,
    process) on each side: counting the join's own rows took as long as the join (74,000 kernels and
    72,000 calls sharing one id: 5 billion rows)."""
    return db.query(f"SELECT coalesce(sum(o.n * c.n), 0) FROM "
                    f"(SELECT correlationId AS id, globalPid AS process, count(*) AS n FROM {ops} GROUP BY 1, 2) AS o "
                    f"JOIN (SELECT correlationId AS id, globalTid & 0xFFFFFFFFFF000000 AS process, count(*) AS n "
                    f"FROM {calls} GROUP BY 1, 2) AS c ON c.id = o.id AND c.process = o.process")[0][0]


def refuse_a_runaway_sql_join(db: NsysDatabase, ops: str, calls: str) -> None:
    """The same refusal for a report that joins in SQL (`ops` JOIN `calls` on correlation id and
    process). A real export has no shared id, and finding that out is one GROUP BY over the calls."""
    shared = db.query(f"SELECT count(*) FROM (SELECT 1 FROM {calls} AS r GROUP BY r.correlationId, "
                      "r.globalTid & 0xFFFFFFFFFF000000 HAVING count(*) > 1)")[0][0]
    if not shared:
        return
    rows = sql_join_rows(db, ops, calls)
    count = db.count(ops)
    if rows > runaway_cap(count):
        raise runaway_join_error(db, count, str(rows))


def launches_by_thread(db: NsysDatabase, ops: str, op_columns: list[str], call_sources: list[str],
                       op_checks: Checks, call_columns: tuple[str, ...] = ()) -> dict[int | None, Columns] | None:
    """Per launching thread, [call starts, call ends, *call_columns, *op_columns] ordered by call start (a stable sort
    over the ops' table order, as a sorted SQL join gives); thread None holds the ops whose call is not
    in the export (call start and end 0).

    `ops` is a table or subquery with correlationId and globalPid, `op_checks` the tables and columns it
    reads (times through span_sql); `call_sources` as NsysDatabase.launch_calls gives them: the next is
    used when the previous left an op without its call. None when this join could differ from SQL's
    (see the module's docstring). Raises InputError where a value read is not what nsys writes.
    """
    prefetch(db, ops, op_columns, call_sources, call_columns)  # both reads at once (if not started already)
    op_read = _read(db, ops, "globalPid", _op_read_columns(op_columns), op_checks, _unparsed_first)
    if op_read is None:
        return None
    op_pids, op_pid, (op_text, *read_values) = op_read
    op_corr: list[int] | None = None
    for source in call_sources:
        call_read = _read(db, source, "globalTid", _call_read_columns(call_columns),
                          {RUNTIME: CALL_COLUMNS + call_columns}, _parsed_keeping_text)
        if call_read is None:
            return None
        call_tids, call_tid, (call_text, call_starts, call_ends, *call_values) = call_read
        call_corr = call_text.values()
        if call_corr is None:
            return _checked_none(db, {RUNTIME: CALL_COLUMNS + call_columns})
        call_pids = None if call_tids is None else list(map(and_, call_tids, repeat(PID_MASK)))
        if op_pids is None and call_pids is None:  # one process on both sides: the correlation id alone
            same = op_pid is None or call_tid is None or op_pid == call_tid & PID_MASK
            if same and op_text.same_text(call_text) and all(map(lt, call_corr, islice(call_corr, 1, None))):
                op_corr = call_corr  # the same numbers (the same text, checked as the calls' was)
                found = None  # the n-th op is the n-th call's (kernels and launches alike in order): no index
                break
            op_corr = _op_values(db, op_text, op_checks, op_corr)
            if op_corr is None:
                return None
            call_keys, op_keys = (call_corr, op_corr) if same else ([], op_corr)
        else:
            op_corr = _op_values(db, op_text, op_checks, op_corr)
            if op_corr is None:
                return None
            call_keys = list(zip(call_corr, call_pids if call_pids is not None else
                                 repeat(None if call_tid is None else call_tid & PID_MASK)))
            op_keys = list(zip(op_corr, op_pids if op_pids is not None else repeat(op_pid)))
        index = dict(zip(call_keys, range(len(call_keys))))
        if len(index) != len(call_keys):
            _refuse_a_runaway_join(db, call_keys, op_keys)
            return None  # a correlation id repeated within a process: SQL's join would repeat the op
        found = list(map(index.get, op_keys))
        if None not in found or source is call_sources[-1]:
            break
    by_column = iter(read_values)
    op_values = [op_corr if c == "correlationId" else next(by_column) for c in op_columns]
    threads: dict[int | None, Columns] = {}
    if found is None:
        starts, ends, columns = call_starts, call_ends, [call_starts, call_ends, *call_values, *op_values]
        if not starts:
            return threads
        return _by_thread(threads, call_tids, call_tid, starts, columns)
    if None in found:
        missing = [i for i, f in enumerate(found) if f is None]
        threads[None] = [[0] * len(missing), [0] * len(missing), *([None] * len(missing) for _ in call_values),
                         *([v[i] for i in missing] for v in op_values)]
        keep = [i for i, f in enumerate(found) if f is not None]
        found = [found[i] for i in keep]
        op_values = [[v[i] for i in keep] for v in op_values]
    if not found:
        return threads
    starts = list(map(call_starts.__getitem__, found))
    ends = list(map(call_ends.__getitem__, found))
    columns = [starts, ends, *(list(map(v.__getitem__, found)) for v in call_values), *op_values]
    tids = None if call_tids is None else list(map(call_tids.__getitem__, found))
    return _by_thread(threads, tids, call_tid, starts, columns)


def _op_values(db: NsysDatabase, text: _Text, checks: Checks, parsed: list[int] | None) -> list[int] | None:
    """The operations' correlation ids (parsed once); None as _read gives it for a column it cannot parse."""
    if parsed is not None:
        return parsed
    values = text.values()
    return values if values is not None else _checked_none(db, checks)


def _by_thread(threads: dict, tids: list[int] | None, tid: int | None, starts: list[int],
               columns: list[list[int]]) -> dict[int | None, Columns]:
    """`columns` (per op, its call's start first) split by launching thread (`tids` per op, or `tid` for
    all), each ordered by call start (stable)."""
    if tids is None:  # one launching thread
        threads[tid] = _order(starts, columns) if starts != sorted(starts) else columns
        return threads
    if starts != sorted(starts):
        columns = _order(starts, columns)
        tids = list(map(tids.__getitem__, sorted(range(len(starts)), key=starts.__getitem__)))
    if tids[0] == tids[-1] and len(set(tids)) == 1:
        threads[tids[0]] = columns
        return threads
    order = sorted(range(len(tids)), key=tids.__getitem__)  # stable: call order within each thread
    tids = list(map(tids.__getitem__, order))
    columns = [list(map(c.__getitem__, order)) for c in columns]
    for tid in sorted(set(tids)):
        lo, hi = bisect_left(tids, tid), bisect_right(tids, tid)
        threads[tid] = [c[lo:hi] for c in columns]
    return threads
