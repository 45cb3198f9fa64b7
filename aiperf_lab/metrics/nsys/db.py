"""Open an Nsight Systems SQLite export and describe what it holds.

Everything is decided from the tables and columns present (``sqlite_master``, ``PRAGMA table_info``),
never from a version number: columns depend on the nsys *and* the CUPTI version, and tables are
created only when they have data.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import namedtuple
from pathlib import Path
from typing import Any, Callable

from aiperf_lab.errors import InputError, MissingData, NotAProfile
from aiperf_lab.inputs import read_head

SQLITE_MAGIC = b"SQLite format 3\x00"

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
NVTX = "NVTX_EVENTS"
GRAPH_TRACE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"

# Tables only an nsys export has; any one of them identifies the file.
_NSYS_MARKERS = ("StringIds", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU", KERNEL, RUNTIME, NVTX,
                 "ThreadNames", "ANALYSIS_DETAILS")

# What each column the reports read must hold; a table is checked the first time a report asks for it
# (``has``), so a file with text, blobs, reals (inf, nan) or NULLs where nsys writes integers is one
# clear error, not a crash deep in a report. The reports over the large tables (kernels, API calls,
# NVTX ranges) ask with columns=() and check what they read in the read itself (span_sql,
# integers_or_none, the types of the keys): a separate typeof() scan cost them more than the bare
# GROUP BY they are measured against. Where such a read finds a wrong value, ``check`` names it. "int": an integer; "int?": an integer or NULL; "time":
# an integer within +-2^62 (so end - start cannot overflow); "text"/"text?" likewise.
_INT, _INT_OR_NULL, _TIME, _TIME_OR_NULL, _TEXT, _TEXT_OR_NULL = "int", "int?", "time", "time?", "text", "text?"
_ID_COLUMNS = {"deviceId": _INT, "streamId": _INT, "correlationId": _INT, "globalPid": _INT}
COLUMN_TYPES: dict[str, dict[str, str]] = {
    KERNEL: {"start": _TIME, "end": _TIME, **_ID_COLUMNS, "demangledName": _INT, "shortName": _INT,
             "mangledName": _INT_OR_NULL},
    RUNTIME: {"start": _TIME, "end": _TIME, "globalTid": _INT, "correlationId": _INT, "nameId": _INT,
              "callchainId": _INT_OR_NULL},
    MEMCPY: {"start": _TIME, "end": _TIME, **_ID_COLUMNS, "copyKind": _INT, "bytes": _TIME,
             "srcKind": _INT_OR_NULL, "dstKind": _INT_OR_NULL},
    MEMSET: {"start": _TIME, "end": _TIME, **_ID_COLUMNS, "bytes": _TIME},
    NVTX: {"start": _TIME, "end": _TIME_OR_NULL, "eventType": _INT, "globalTid": _INT_OR_NULL,
           "endGlobalTid": _INT_OR_NULL, "textId": _INT_OR_NULL, "domainId": _INT_OR_NULL, "text": _TEXT_OR_NULL},
    GRAPH_TRACE: {"start": _TIME_OR_NULL, "end": _TIME_OR_NULL},
    "StringIds": {"id": _INT, "value": _TEXT},
    "OSRT_API": {"start": _TIME, "end": _TIME, "nameId": _INT, "eventClass": _INT, "globalTid": _INT_OR_NULL},
    "COMPOSITE_EVENTS": {"id": _INT, "start": _TIME, "globalTid": _INT_OR_NULL},
    "SAMPLING_CALLCHAINS": {"id": _INT, "symbol": _INT_OR_NULL, "module": _INT_OR_NULL, "stackDepth": _INT},
    "CUDA_CALLCHAINS": {"id": _INT, "symbol": _INT_OR_NULL, "module": _INT_OR_NULL, "stackDepth": _INT},
    "ENUM_CUDA_MEMCPY_OPER": {"id": _INT, "label": _TEXT_OR_NULL},
    "ENUM_NSYS_EVENT_CLASS": {"id": _INT, "name": _TEXT_OR_NULL},
    "TARGET_INFO_GPU": {"id": _INT_OR_NULL, "deviceId": _INT_OR_NULL, "name": _TEXT_OR_NULL},
    "TARGET_INFO_CUDA_GPU": {"deviceId": _INT_OR_NULL, "name": _TEXT_OR_NULL},
    "META_DATA_EXPORT": {"name": _TEXT_OR_NULL, "value": _TEXT_OR_NULL},
    "EXPORT_META_DATA": {"name": _TEXT_OR_NULL, "value": _TEXT_OR_NULL},
}
# Columns only some reports read: checked when one asks for them by name (db.check(KERNEL, GRID_BLOCK)), never in a
# table's full check, so the overview's scan of a large kernel table does not pay for them. A text or a real in a grid
# dimension ended cuda_gpu_kern_gb_sum (sorting) and cuda_kern_exec_trace (formatting) in "internal error", a text in
# a shared memory size cuda_gpu_trace (its MB).
GRID_BLOCK = ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")
SHARED_MEMORY = ("staticSharedMemory", "dynamicSharedMemory")
ASKED_BY_NAME: dict[str, dict[str, str]] = {
    KERNEL: {**dict.fromkeys(GRID_BLOCK, _INT), **dict.fromkeys(SHARED_MEMORY, _INT_OR_NULL)},
}
for _table, _columns in ASKED_BY_NAME.items():
    COLUMN_TYPES[_table] = {**COLUMN_TYPES[_table], **_columns}
TIME_LIMIT = 1 << 62
SPLIT_ROWS = 50_000  # a grouped read of a table this long is split over threads


# A time within +-(2^62 - 1): what _bad_value_sql accepts for "time" (an integer there).
TIME_BOUND = TIME_LIMIT - 1
_INTEGER_TEXT_CHARS = b"0123456789,-"


def _times_inside(start: str, end: str) -> str:
    """SQL: start and end are both numbers within +-2^62 (TIME_BOUND)."""
    return f"{start} BETWEEN -{TIME_BOUND} AND {TIME_BOUND} AND {end} BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"


def span_sql(start: str = "start", end: str = "[end]") -> str:
    """`end - start` where both are numbers within +-2^62, else NULL. With integers_or_none over the
    group_concat of it, a read checks its own time columns: text, blobs, NULLs and values out of range
    become NULL (a count that comes up short), reals give a real (not an integer's text). Two BETWEENs
    per row cost a tenth of a separate typeof() scan of the table."""
    return f"CASE WHEN {_times_inside(start, end)} THEN {end} - {start} END"


def end_sql(start: str = "start", end: str = "[end]") -> str:
    """The end where start and end are both within +-2^62 (span_sql's check), else NULL: for a read that needs
    the ends, cheaper than durations added to the starts in Python (150,000 adds cost more than printing and
    parsing the longer numbers)."""
    return f"CASE WHEN {_times_inside(start, end)} THEN {end} END"


def integers_or_none(text: str | None, count: int) -> list[int] | None:
    """The `count` integers of a group_concat string, or None where the column held anything else.

    Strict: only digits, minus signs and commas pass (no real's point or exponent, no Inf, no JSON
    literal), json then accepts only well-formed integers, and a NULL (which group_concat skips) or a
    text holding a comma shows in the count."""
    if text is None:
        return [] if count == 0 else None
    if not isinstance(text, str) or text.encode().translate(None, _INTEGER_TEXT_CHARS):
        return None
    try:
        values = json.loads(f"[{text}]")
    except ValueError:
        return None
    return values if len(values) == count else None


def _bad_value_sql(column: str, kind: str) -> str:
    allowed = "'integer'" if kind.startswith(("int", "time")) else "'text'"
    if kind.endswith("?"):
        allowed += ", 'null'"
    condition = f"typeof([{column}]) NOT IN ({allowed})"
    if kind.startswith("time"):  # (not abs(): it overflows on -2^63)
        condition += f" OR [{column}] NOT BETWEEN -{TIME_BOUND} AND {TIME_BOUND}"
    return condition


# ENUM_CUDA_MEMCPY_OPER labels, for exports that carry no ENUM tables (2020-2021 files).
MEMCPY_KIND_LABELS = {
    0: "Unknown", 1: "Host-to-Device", 2: "Device-to-Host", 3: "Host-to-Array", 4: "Array-to-Host",
    5: "Array-to-Array", 6: "Array-to-Device", 7: "Device-to-Array", 8: "Device-to-Device",
    9: "Host-to-Host", 10: "Peer-to-Peer", 11: "Unified Host-to-Device",
    12: "Unified Device-to-Host", 13: "Unified Device-to-Device",
}

# NVTX event types (ENUM_NSYS_EVENT_TYPE).
NVTX_PUSHPOP, NVTX_STARTEND, NVTXT_PUSHPOP, NVTXT_STARTEND = 59, 60, 70, 71
NVTX_DOMAIN_CREATE = 75
NVTX_RANGE_TYPES = (NVTX_PUSHPOP, NVTX_STARTEND, NVTXT_PUSHPOP, NVTXT_STARTEND)
# Python runs a signal's handler (Ctrl-C's KeyboardInterrupt, aiperf-stats' SIGTERM) only between bytecodes
# of the main thread, never while SQLite runs a statement for it. A progress handler is Python called every
# this many SQLite VM steps (10-60 ms of a query): the handler runs there, its exception ends the statement
# ("interrupted"), and query() raises KeyboardInterrupt. 22 calls over a 1M-kernel GROUP BY: no cost seen.
PROGRESS_STEPS = 1_000_000
_VIRTUAL_GENERATED = 2  # PRAGMA table_xinfo's "hidden": 2 a VIRTUAL generated column, 3 a STORED one
PID_MASK = 0xFFFFFFFFFF000000  # globalTid -> globalPid (keeps the VM/host bits)


def _let_signal_handlers_run() -> int:
    return 0  # (a pending signal's handler runs as this is called; 0: the statement goes on)


def interrupted(exc: BaseException) -> bool:
    """Whether an SQLite error is a statement ended by a signal (see PROGRESS_STEPS) or by interrupt()."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted"


def read_failure(path: Path, exc: sqlite3.Error) -> BaseException:
    """What to raise for an SQLite error while reading an export: KeyboardInterrupt where a signal ended
    the statement, else InputError."""
    if interrupted(exc):
        return KeyboardInterrupt()
    return InputError(f"{path}: the export is damaged or truncated ({exc})")


def _lenient_text(raw: bytes) -> str:
    # Real exports carry non-UTF-8 metadata (a localized time-zone name); never fail on it.
    return raw.decode("utf-8", "replace")


def parse_integers(text: str | None) -> list[int]:
    """The integers of a group_concat string ("12,7,-3"); json's C parser is twice as fast as int()."""
    return json.loads(f"[{text}]") if text else []


def split_global_tid(global_tid: int | None) -> tuple[int | None, int | None]:
    """(pid, tid) from nsys's serialized globalTid."""
    if global_tid is None:
        return None, None
    return (global_tid >> 24) & 0xFFFFFF, global_tid & 0xFFFFFF


# What the export says of itself (None in 2020-2021 exports, which carry no metadata table).
ExportInfo = namedtuple("ExportInfo", "product_version schema_version platform")


class NsysDatabase:
    """A read-only nsys export. Raises InputError for anything that is not a readable export."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        _check_sqlite_file(self.path)
        uri = self._uri = self.path.resolve().as_uri() + "?mode=ro"
        self._prefetched: dict[str, tuple] = {}  # SQL -> (thread, result box): see prefetch()
        self._apart: set[sqlite3.Connection] = set()  # the prefetch threads' open connections
        try:
            self.con = sqlite3.connect(uri, uri=True)
            self.con.set_progress_handler(_let_signal_handlers_run, PROGRESS_STEPS)
            self.con.text_factory = _lenient_text
            self.con.execute("PRAGMA trusted_schema = OFF")
            rows = self.con.execute("SELECT name, type, sql FROM sqlite_master").fetchall()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path}: not a readable SQLite database ({exc})") from None
        # Text is decoded in C (str) until a value is not UTF-8; query() then switches to the lenient
        # decoder, a Python call per value (30,000 range names cost 40 ms that way).
        self.con.text_factory = str
        # Real tables only: a view (or a virtual table) under a table's name could run any query,
        # a recursive one included, every time a report reads it; nsys writes neither.
        self.tables = {name for name, kind, sql in rows
                       if kind == "table" and isinstance(name, str)
                       and not (isinstance(sql, str) and sql.lstrip()[:14].upper().startswith("CREATE VIRTUAL"))}
        self._checked: dict[str, set[str]] = {}  # table -> columns whose values were checked
        if not any(t in self.tables for t in _NSYS_MARKERS):
            raise NotAProfile(f"{self.path}: an SQLite database, but not an Nsight Systems export")
        self._refuse_computed_columns(rows)
        self._columns: dict[str, list[str]] = {}
        if "StringIds" in self.tables:
            self._refuse_repeated_string_ids()
        # What one report computed that another in the same run reuses rather than scan again (the
        # overview's kernel totals per name: cuda_gpu_kern_sum's groups give kernel_breakdown's sums).
        self.memo: dict[object, object] = {}

    def _refuse_computed_columns(self, schema: list[tuple]) -> None:
        """InputError if a table holds a VIRTUAL generated column: SQLite computes its expression at every
        read of a row, any expression (one of hex(zeroblob(20e6)) made a 1.8 MB export's report run 70 s),
        so it is a query hidden in a table, as a view is; nsys writes none. A STORED one is computed when
        the row is written and read as any column (it costs a read nothing more), so it is read."""
        for name, _kind, sql in schema:
            # (GENERATED ALWAYS is optional in the syntax: "x AS (expr)" declares one too)
            if name in self.tables and isinstance(sql, str) and "AS" in sql.upper():
                try:
                    columns = self.con.execute("SELECT cid, name, type, [notnull], dflt_value, pk, hidden "
                                               "FROM pragma_table_xinfo(?)", (name,)).fetchall()
                except sqlite3.DatabaseError as exc:
                    if interrupted(exc):
                        raise KeyboardInterrupt from None
                    raise InputError(f"{self.path}: not a readable SQLite database ({exc})") from None
                computed = [row[1] for row in columns if row[6] == _VIRTUAL_GENERATED]
                if computed:
                    raise InputError(f"{self.path}: not a valid nsys export: {name}.{computed[0]} is a generated "
                                     "column, computed at every read (nsys writes none)")

    def _refuse_repeated_string_ids(self) -> None:
        """InputError if StringIds holds an id more than once. nsys writes `id INTEGER NOT NULL PRIMARY KEY`
        (every export from 2020 to 2026): one string per id. Without that key the reports' joins on
        StringIds would pair each kernel, call or range with every copy of its name (3,000 copies of 40
        ids: 270 s and 2.4 GB for one report) and a name looked up could be any copy, so such a file is
        refused at once: its names are not to be trusted. Free where the schema guarantees unique ids
        (the key, or a unique index on id alone); else one sort of the table's ids."""
        if self._string_ids_unique_by_schema():
            return
        repeated = self.query("SELECT id, count(*) FROM StringIds GROUP BY id HAVING count(*) > 1 LIMIT 1")
        if repeated:
            string_id, copies = repeated[0]
            shown = string_id if isinstance(string_id, int) else type(string_id).__name__
            raise InputError(f"{self.path}: not a valid nsys export: StringIds holds id {shown} {copies} times "
                             "(nsys writes each string id once, as the table's primary key)")

    def _string_ids_unique_by_schema(self) -> bool:
        """Whether StringIds' schema makes its ids unique: a primary key of id alone, or a unique index
        on id alone."""
        info = self.query("SELECT name, pk FROM pragma_table_info('StringIds')")
        if [name for name, pk in info if pk] == ["id"]:
            return True
        for index_name, unique in self.query("SELECT name, [unique] FROM pragma_index_list('StringIds')"):
            if unique and isinstance(index_name, str) and \
                    [row[0] for row in self.query("SELECT name FROM pragma_index_info(?)", (index_name,))] == ["id"]:
                return True
        return False

    def cancel(self) -> None:
        """End the prefetch threads' statements now (thread-safe): their results are no longer wanted."""
        for con in list(self._apart):
            con.interrupt()

    def close(self) -> None:
        self.cancel()
        for thread, _then, _box in self._prefetched.values():
            thread.join()
        self._prefetched.clear()
        self.con.close()

    def has(self, table: str, columns: tuple[str, ...] | None = None) -> bool:
        """Whether the export has this table; its values are checked the first time (InputError if wrong):
        every column COLUMN_TYPES lists, or only `columns` (a report that reads few columns of a large
        table checks only those; a later full check skips them)."""
        if table not in self.tables:
            return False
        done = self._checked.setdefault(table, set())
        expected = COLUMN_TYPES.get(table, {})
        if columns is None:
            columns = tuple(c for c in expected if c not in ASKED_BY_NAME.get(table, ()))
        wanted = [c for c in columns if c in expected and c not in done]
        if wanted:
            done.update(wanted)
            self._check_values(table, wanted)
        return True

    def check(self, table: str, columns: tuple[str, ...] | None = None) -> None:
        """Check the values of `columns` (all COLUMN_TYPES lists by default) now, if not done already:
        for a report that read the table with its own checks (integers_or_none, span_sql) and found
        something wrong, which this names in one InputError, or that falls back to plain SQL."""
        self.has(table, columns)

    def _check_values(self, table: str, columns: list[str]) -> None:
        """One scan: each of `columns` holds what nsys writes there (see COLUMN_TYPES)."""
        expected = COLUMN_TYPES[table]
        present = set(self.columns(table))
        checks = [(column, expected[column]) for column in columns if column in present]
        if not checks:
            return
        where = " OR ".join(f"({_bad_value_sql(c, k)})" for c, k in checks)
        cases = ", ".join(f"({_bad_value_sql(c, k)})" for c, k in checks)
        bad = self.query(f"SELECT {cases} FROM [{table}] WHERE {where} LIMIT 1")
        if bad:
            column, kind = next(check for check, flag in zip(checks, bad[0]) if flag)
            want = {"int": "an integer", "time": "an integer under 2^62", "text": "text"}[kind.rstrip("?")]
            raise InputError(f"{self.path}: not a valid nsys export: {table}.{column} holds a value that is "
                             f"not {want}" + (" or NULL" if kind.endswith("?") else ""))

    def require(self, *tables: str, what: str, columns: tuple[str, ...] | None = None) -> None:
        """MissingData with nsys's sentence ("X does not contain CUDA kernel data.") unless all tables exist;
        their values (all listed columns, or only `columns`) are checked on the way."""
        for table in tables:
            if not self.has(table, columns):
                raise MissingData(f"{self.path.name} does not contain {what}.")

    def columns(self, table: str) -> list[str]:
        if table not in self._columns:
            self._columns[table] = [r[1] for r in self.query(f"PRAGMA table_info([{table}])")
                                    if isinstance(r[1], str)]
        return self._columns[table]

    def has_column(self, table: str, column: str) -> bool:
        return self.has(table) and column in self.columns(table)

    def column_or(self, table: str, column: str, alias: str = "", default: str = "NULL") -> str:
        """`alias.column` for a SELECT, or `default` where this export's table lacks that column."""
        if self.has_column(table, column):
            return f"{alias}.[{column}]" if alias else f"[{column}]"
        return default

    def prefetch(self, *queries: str, then: Callable[[list[tuple]], Any] | None = None) -> None:
        """Start these queries now, each on a connection of its own in a thread (SQLite runs without
        Python's lock), and apply `then` to the rows there: a later query() (query_then() with the same
        `then`) of the same SQL waits for that result instead of running it. A report that reads three
        tables reads them at once on a machine with the cores for it. Anything that goes wrong there is
        left to query(), which runs the SQL again itself."""
        import threading

        for sql in queries:
            if sql not in self._prefetched:
                box: dict = {}
                thread = threading.Thread(target=self._query_apart, args=(sql, then, box), daemon=True)
                self._prefetched[sql] = (thread, then, box)
                thread.start()

    def prefetching(self, sql: str) -> bool:
        """Whether a prefetch of this SQL (with no `then`) is under way or done and not yet taken."""
        pending = self._prefetched.get(sql)
        return pending is not None and pending[1] is None

    def _query_apart(self, sql: str, then: Callable | None, box: dict) -> None:
        try:
            con = sqlite3.connect(self._uri, uri=True)
            self._apart.add(con)
            try:
                con.execute("PRAGMA trusted_schema = OFF")
                rows = con.execute(sql).fetchall()
            finally:
                self._apart.discard(con)
                con.close()
            box["result"] = rows if then is None else then(rows)
        except Exception as exc:  # noqa: BLE001 (query() runs it again and reports what it finds)
            box["error"] = exc

    def _prefetched_result(self, sql: str, then: Callable | None) -> dict | None:
        pending = self._prefetched.pop(sql, None)
        if pending is None:
            return None
        thread, their_then, box = pending
        try:
            thread.join()  # (a signal's handler runs during the wait: Ctrl-C ends it at once)
        except BaseException:
            self.cancel()
            raise
        return box if their_then is then and "result" in box else None

    def query_then(self, sql: str, then: Callable[[list[tuple]], Any]) -> Any:
        """then(query(sql)), or the result a prefetch with the same `then` made of it."""
        found = self._prefetched_result(sql, then) if self._prefetched else None
        return found["result"] if found is not None else then(self.query(sql))

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        found = self._prefetched_result(sql, None) if self._prefetched and not params else None
        if found is not None:
            return found["result"]
        try:
            return self.con.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if self.con.text_factory is str and "decode" in str(exc):
                self.lenient_text()
                return self.query(sql, params)
            if interrupted(exc):
                self.cancel()
            raise read_failure(self.path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise read_failure(self.path, exc) from None
        except OverflowError:  # an integer sum past 64 bits
            raise InputError(f"{self.path}: not a valid nsys export: values too large to add up") from None

    def lenient_text(self) -> None:
        """Decode text that is not UTF-8 with replacement characters from now on (streams set it first:
        a row they have written cannot be read again)."""
        self.con.text_factory = _lenient_text

    def grouped_integers(self, key_sql: str, value_sql: str, from_sql: str,
                         params: tuple = ()) -> list[tuple[object, list[int]]]:
        """(key, [values]) per key, the grouping done by SQLite.

        The values travel as one group_concat string per key and are parsed in C: far cheaper than
        one Python tuple per row for the 100k+ rows of a real export.
        """
        rows = self.query(f"SELECT {key_sql} AS k, group_concat({value_sql}) FROM {from_sql} GROUP BY k", params)
        return [(key, parse_integers(text)) for key, text in rows]

    def grouped_spans(self, table: str, key: str) -> list[tuple[object, list[int]]]:
        """(value of column `key`, [end - start of its rows]) per value, the grouping done by SQLite.

        The read checks the three columns it reads (span_sql, integers_or_none, the key's type) instead
        of a separate scan of the table first; a wrong value raises the full check's InputError."""
        sql = f"SELECT [{key}] AS k, count(*), group_concat({span_sql()}) FROM [{table}] {{}} GROUP BY k"
        parts = [sql.format(where) for where in self.rowid_ranges(table)]
        self.prefetch(*parts[1:])
        null_key = COLUMN_TYPES.get(table, {}).get(key, "int").endswith("?")
        out: dict = {}
        for part in parts:
            for value, count, text in self.query(part):
                spans = integers_or_none(text, count)
                if spans is None or not (type(value) is int or (value is None and null_key)):
                    self.check(table, ("start", "end", key))
                    raise InputError(f"{self.path}: not a valid nsys export: {table} holds values that are not "
                                     "integers")  # (the check above names the column; this is a safety net)
                out.setdefault(value, []).extend(spans)
        return list(out.items())

    def rowid_ranges(self, table: str, rowid: str = "rowid", min_rows: int = SPLIT_ROWS) -> list[str]:
        """WHERE clauses that split a table of `min_rows` or more into up to 4 rowid ranges (each a range
        search of its B-tree) for reads that run at once in threads, one per core; [""] (the whole table)
        otherwise."""
        threads = min(4, os.cpu_count() or 1)
        try:  # (a table WITHOUT ROWID has none: read whole)
            last = self.con.execute(f"SELECT max(rowid) FROM [{table}]").fetchone()[0]
        except sqlite3.Error as exc:
            if interrupted(exc):
                raise KeyboardInterrupt from None
            last = None
        if type(last) is not int or last < min_rows or threads < 2:
            return [""]
        edges = [last * i // threads for i in range(threads)] + [last]
        return [f"WHERE {rowid} > {a} AND {rowid} <= {b}" if i else f"WHERE {rowid} <= {b}"
                for i, (a, b) in enumerate(zip(edges, edges[1:]))]

    def count(self, table: str) -> int:
        return self.query(f"SELECT count(*) FROM [{table}]")[0][0] if self.has(table) else 0

    def strings(self, ids: set[int] | None = None) -> dict[int, str]:
        """StringIds values, all or only the given ids."""
        if not self.has("StringIds"):
            return {}
        if ids is None:
            return dict(self.query("SELECT id, value FROM StringIds"))
        if not ids:
            return {}
        wanted = sorted(i for i in ids if i is not None)
        result: dict[int, str] = {}
        for start in range(0, len(wanted), 900):  # stay under SQLite's bound-parameter limit
            chunk = wanted[start:start + 900]
            marks = ",".join("?" * len(chunk))
            result.update(self.query(f"SELECT id, value FROM StringIds WHERE id IN ({marks})", tuple(chunk)))
        return result

    @property
    def export_info(self) -> ExportInfo:
        for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):  # 2023.1 used the second name
            if self.has(table):
                meta = dict(self.query(f"SELECT name, value FROM [{table}]"))
                return ExportInfo(meta.get("EXPORT_PRODUCT_VERSION"), meta.get("EXPORT_SCHEMA_VERSION"),
                                  meta.get("EXPORT_PLATFORM"))
        return ExportInfo(None, None, None)

    def launch_calls(self) -> list[str]:
        """Row sources for the calls that launch GPU work: first only the calls whose names say so
        (...Launch..., ...Memcpy..., ...Memset...: a PyTorch trace holds as many other calls, such as
        cuKernelGetName per launch, which a join need not look at), then the whole table.

        A caller joins with the first and uses the second only when the first left some GPU operation
        without its call, so the result is always that of the full join.
        """
        if not self.has("StringIds"):
            return [RUNTIME]
        ids = [i for (i,) in self.query("SELECT id FROM StringIds WHERE value LIKE '%Launch%' "
                                        "OR value LIKE '%Memcpy%' OR value LIKE '%Memset%'")]
        if not ids:
            return [RUNTIME]
        return [f"(SELECT rowid AS rid, * FROM {RUNTIME} WHERE nameId IN ({','.join(map(str, ids))}))", RUNTIME]

    def kernel_name_column(self, variant: str = "demangled") -> str:
        """The kernel-table column naming kernels: demangledName, shortName (base) or mangledName."""
        if variant == "base":
            return "shortName"
        if variant == "mangled" and KERNEL in self.tables and "mangledName" in self.columns(KERNEL):
            return "mangledName"
        return "demangledName"

    def memcpy_labels(self) -> dict[int, str]:
        if self.has("ENUM_CUDA_MEMCPY_OPER"):
            return {i: label or "" for i, label in self.query("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER")}
        return dict(MEMCPY_KIND_LABELS)

    def gpu_names(self) -> dict[int, str]:
        """Device id -> GPU name, from whichever TARGET_INFO layout the export has."""
        if self.has_column("TARGET_INFO_GPU", "id"):
            return {r[0]: r[1] for r in self.query("SELECT id, name FROM TARGET_INFO_GPU")}
        for table in ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"):
            if self.has_column(table, "deviceId") and self.has_column(table, "name"):
                return {r[0]: r[1] for r in self.query(f"SELECT deviceId, name FROM [{table}]")}
        return {}

    def failed_capture_hint(self) -> str | None:
        """An error string the injection library left behind, if the capture failed."""
        if not self.has("StringIds"):
            return None
        rows = self.query(
            "SELECT value FROM StringIds WHERE value LIKE '%error%' AND "
            "(value LIKE '%injection%' OR value LIKE '%symbol lookup%' OR value LIKE '%not supported%') LIMIT 1")
        return rows[0][0].strip().splitlines()[0][:200] if rows else None


# The files SQLite itself opens beside a database: a rollback journal, to see whether it is hot (a FIFO
# under that name blocked the reader for ever, the export itself regular), and a WAL and its index (a FIFO
# there gave exit 0 or "disk I/O error" with this SQLite; refused the same way, whatever SQLite does).
SQLITE_SIDE_FILES = ("-journal", "-wal", "-shm")


def _check_sqlite_file(path: Path) -> None:
    if read_head(path, len(SQLITE_MAGIC)) != SQLITE_MAGIC:
        raise NotAProfile(f"{path}: not an SQLite database")
    import stat

    from aiperf_lab.inputs import shown_path

    real = os.path.realpath(path)   # SQLite names them after the path it opens (the URI's resolved one)
    for suffix in SQLITE_SIDE_FILES:
        try:
            mode = os.stat(real + suffix).st_mode
        except (OSError, ValueError):   # none there (the usual case), or one SQLite cannot open either
            continue
        if not stat.S_ISREG(mode):
            raise InputError(f"{shown_path(path)}: refused: {shown_path(os.path.basename(real) + suffix)} beside "
                             "it is not a regular file (SQLite would open it as the export's journal)")
