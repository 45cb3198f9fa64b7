"""Hostile and damaged inputs for every aiperf-stats report, and the contract each run must keep.

Used by tests/test_input_fuzz.py (bounded, in CI) and benchmarks/fuzz_stats.py (longer). The contract:
exit 0, or exit 2 with exactly one line on stderr; never a traceback, never exit 1, within 10 s; JSON
output parses; no control character from the data reaches table, CSV or JSON output raw.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from aiperf_lab.metrics.cli import main
from aiperf_lab.metrics.registry import reports_for

DATA = Path(__file__).parent / "data" / "h200"
LM = DATA / "lm_forward.sqlite"
TRACE = DATA / "torch_encoder_layer.pt.trace.json"
NCU_FILES = [DATA / "ncu_full_raw.csv", DATA / "ncu_full_details.csv", DATA / "ncu_raw_metrics.csv"]
SMI_LOG = DATA / "nvidia-smi-query-gpu-lms100.csv"
TIME_LIMIT_S = 10.0
REPORTS = {kind: [r.name for r in reports_for(kind)] for kind in ("nsys", "ncu", "torch", "telemetry")}
# Any C0/C1 control character but the newline (line ends) is a failure in output.
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")

# Values a hostile export puts where nsys writes integers or strings.
HOSTILE_SQL_VALUES = ["'text'", "NULL", "X'00ff'", "1e999", "-1e999", "0.5", "9223372036854775807",
                      "-9223372036854775808", "'[bold]x[/]'", "'\x1b]52;c;aGk=\x07'", "''"]
HOSTILE_NAMES = ["[/]", "[bold]red[/bold]", "\x1b[2J\x1b[H", "\x1b]52;c;aGk=\x07", "line\nbreak", "tab\there",
                 "\x9b31m", "\u2028sep", "a" * 5000]


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float

    def problem(self, fmt: str | None) -> str | None:
        """What breaks the contract, or None."""
        if self.seconds > TIME_LIMIT_S:
            return f"took {self.seconds:.1f} s"
        if "Traceback" in self.err or "internal error" in self.err:
            return f"crashed: {self.err.strip()[:300]}"
        if self.code not in (0, 2):
            return f"exit {self.code}: {self.err.strip()[:300]}"
        if self.code == 2 and self.err.count("\n") != 1:
            return f"exit 2 with {self.err.count(chr(10))} lines on stderr: {self.err[:300]!r}"
        if self.code == 0 and fmt == "json":
            try:
                json.loads(self.out)
            except ValueError as exc:
                return f"invalid JSON output ({exc})"
        found = _RAW_CONTROL.search(self.out) or _RAW_CONTROL.search(self.err)
        if found:
            return f"raw control character {found.group()!r} in output"
        return None


def run_stats(args: list[str]) -> Outcome:
    """aiperf-stats in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    began = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - began)


def check_all_reports(path: Path, kind: str, formats=("json", "table"), reports: list[str] | None = None) -> list[str]:
    """Every report of `kind` (and the overview) over `path` in each format; the contract breaches found."""
    problems = []
    for report in [None, *(reports if reports is not None else REPORTS[kind])]:
        for fmt in formats:
            args = [path, "--format", fmt] + (["--report", report] if report else [])
            outcome = run_stats(args)
            problem = outcome.problem(fmt)
            if problem:
                problems.append(f"{path.name} {report or 'overview'} {fmt}: {problem}")
    return problems


# --- nsys exports -------------------------------------------------------------------------------

def small_export(target: Path, keep: int = 40) -> Path:
    """lm_forward.sqlite with the first `keep` rows of each large table: every table and column nsys
    wrote, at a size where each report takes milliseconds."""
    shutil.copyfile(LM, target)
    con = sqlite3.connect(target)
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "OSRT_CALLCHAINS",
                  "CUPTI_ACTIVITY_KIND_MEMCPY", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                  "CUDA_GPU_MEMORY_USAGE_EVENTS"):
        con.execute(f"DELETE FROM {table} WHERE rowid > {keep}")
    con.commit()
    con.execute("VACUUM")
    con.close()
    return target


def mutate_export(source: Path, target: Path, table: str, column: str, value_sql: str, row: int = 1) -> Path:
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    update = f"UPDATE [{table}] SET [{column}] = {value_sql} WHERE rowid = ?"
    try:
        try:
            con.execute(update, (row,))
        except sqlite3.IntegrityError:  # nsys's NOT NULL: a hostile file simply has no such constraint
            con.executescript(f"CREATE TABLE loose AS SELECT * FROM [{table}]; DROP TABLE [{table}]; "
                              f"ALTER TABLE loose RENAME TO [{table}];")
            con.execute(update, (row,))
        con.commit()
    finally:
        con.close()
    return target


# (table, column) pairs the reports read, for type mutations.
EXPORT_CELLS = [
    ("CUPTI_ACTIVITY_KIND_KERNEL", c) for c in ("start", "end", "deviceId", "streamId", "correlationId",
                                                 "globalPid", "demangledName", "shortName")
] + [("CUPTI_ACTIVITY_KIND_RUNTIME", c) for c in ("start", "end", "globalTid", "correlationId", "nameId")] + [
    ("CUPTI_ACTIVITY_KIND_MEMCPY", c) for c in ("start", "end", "copyKind", "bytes", "deviceId", "srcKind")
] + [("NVTX_EVENTS", c) for c in ("start", "end", "eventType", "globalTid", "text", "textId", "domainId")] + [
    ("OSRT_API", c) for c in ("start", "end", "nameId", "eventClass")
] + [("StringIds", "id"), ("StringIds", "value"), ("ENUM_CUDA_MEMCPY_OPER", "id"),
     ("ENUM_CUDA_MEMCPY_OPER", "label"), ("ENUM_NSYS_EVENT_CLASS", "id"), ("ENUM_NSYS_EVENT_CLASS", "name"),
     ("TARGET_INFO_GPU", "name"), ("META_DATA_EXPORT", "value")]


def export_with_names(source: Path, target: Path, names: list[str]) -> Path:
    """Kernel, API and NVTX names replaced by hostile ones (markup, escape sequences, newlines)."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    ids = [r[0] for r in con.execute("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    ids += [r[0] for r in con.execute("SELECT DISTINCT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME")]
    for i, string_id in enumerate(ids):
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (names[i % len(names)] + str(i), string_id))
    con.execute("UPDATE NVTX_EVENTS SET text = ? || rowid WHERE text IS NOT NULL", (names[0],))
    con.commit()
    con.close()
    return target


def export_with_recursive_view(source: Path, target: Path) -> Path:
    """The kernel table replaced by a view over an endless recursive query."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    con.executescript("""
        DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
        CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)
            SELECT x AS start, x + 1 AS [end], 0 AS deviceId, 0 AS streamId, x AS correlationId,
                   0 AS globalPid, 1 AS demangledName, 1 AS shortName FROM n;
    """)
    con.commit()
    con.close()
    return target


def export_with_generated_column(source: Path, target: Path, expression: str, kind: str = "VIRTUAL") -> Path:
    """The kernel table rebuilt with demangledName as a GENERATED column (`expression` over the stored
    column dn): SQLite computes a VIRTUAL one at every read of a row, a STORED one when the row is written."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    table = "CUPTI_ACTIVITY_KIND_KERNEL"
    columns = [row[1] for row in con.execute(f"PRAGMA table_info({table})")]
    defs = ["dn INTEGER" if c == "demangledName" else f"[{c}]" for c in columns]
    defs.append(f"demangledName INTEGER GENERATED ALWAYS AS ({expression}) {kind}")
    con.execute(f"CREATE TABLE rebuilt ({', '.join(defs)})")
    stored = ", ".join("dn" if c == "demangledName" else f"[{c}]" for c in columns)
    con.execute(f"INSERT INTO rebuilt ({stored}) SELECT {', '.join(f'[{c}]' for c in columns)} FROM {table}")
    con.executescript(f"DROP TABLE {table}; ALTER TABLE rebuilt RENAME TO {table};")
    con.commit()
    con.close()
    return target


def export_with_osrt_injection(source: Path, target: Path) -> Path:
    """An ENUM_NSYS_EVENT_CLASS row whose id, were it pasted into SQL, would change osrt_sum's result."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    con.executescript("CREATE TABLE loose AS SELECT * FROM ENUM_NSYS_EVENT_CLASS; DROP TABLE ENUM_NSYS_EVENT_CLASS; "
                      "ALTER TABLE loose RENAME TO ENUM_NSYS_EVENT_CLASS;")
    con.execute("INSERT INTO ENUM_NSYS_EVENT_CLASS (id, name, label) VALUES "
                "('0) OR (1', 'TRACE_OS_RUNTIME_START', 'x')")
    con.commit()
    con.close()
    return target


# --- Kineto traces ------------------------------------------------------------------------------

def kineto_document(events: list, extra: str = "") -> str:
    return '{"schemaVersion": 1, ' + extra + '"traceEvents": [' + ",".join(events) + "]}"


_KERNEL = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"correlation": 1}}'
_LAUNCH = '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 9, "dur": 1, "args": {"correlation": 1}}'
_ANNOTATION = '{"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 1, "ts": 8, "dur": 20}'

CRAFTED_TRACES = {
    "ts_1e400": kineto_document([_LAUNCH, _KERNEL.replace('"ts": 10', '"ts": 1e400'), _ANNOTATION]),
    "dur_nan_like": kineto_document([_KERNEL.replace('"dur": 5', '"dur": -1e400'), _KERNEL]),
    "int_5000_digits": kineto_document([_KERNEL.replace('"ts": 10', '"ts": ' + "9" * 5000)]),
    "corr_5000_digits": kineto_document([_KERNEL.replace('"correlation": 1', '"correlation": ' + "7" * 5000)]),
    "cat_list": kineto_document([_KERNEL.replace('"cat": "kernel"', '"cat": ["kernel"]'), _KERNEL]),
    "pid_list": kineto_document([_LAUNCH.replace('"pid": 1', '"pid": [1]'), _KERNEL, _ANNOTATION]),
    "pid_dict": kineto_document([_KERNEL.replace('"pid": 0', '"pid": {"a": 1}'), _ANNOTATION]),
    "name_list": kineto_document([_KERNEL.replace('"name": "k"', '"name": ["k"]'), _KERNEL]),
    "args_list": kineto_document([_KERNEL.replace('"args": {"correlation": 1}', '"args": [1]')]),
    "device_props_5": kineto_document([_KERNEL], '"deviceProperties": 5, '),
    "device_props_bad": kineto_document([_KERNEL], '"deviceProperties": [{"id": [1], "name": 3}, 7], '),
    "deep_nesting": kineto_document([_KERNEL, "[" * 100_000 + "]" * 100_000]),
    "deep_meta": '{"deviceProperties": ' + "[" * 100_000 + "]" * 100_000 + ', "traceEvents": []}',
    "lone_surrogate": kineto_document([_KERNEL.replace('"name": "k"', '"name": "k\\ud800x"'), _LAUNCH, _ANNOTATION]),
    "markup_names": kineto_document([_KERNEL.replace('"name": "k"', '"name": "[bold]k[/]\\u001b[2J"'), _LAUNCH,
                                     _ANNOTATION.replace('"step"', '"[/]\\u001b]52;c;aGk=\\u0007"')]),
    "trace_events_dict": '{"traceEvents": {"a": 1}}',
    "truncated": kineto_document([_KERNEL] * 3)[:-7],
    "bare_array": "[" + _KERNEL + "]",
    "bare_number": "12345",
    "stream_float": kineto_document([_KERNEL.replace('"tid": 7', '"tid": 1e300')]),
    "bool_ts": kineto_document([_KERNEL.replace('"ts": 10', '"ts": true')]),
}


# --- telemetry and ncu --------------------------------------------------------------------------

def telemetry_variants(source_text: str) -> dict[str, str]:
    """Hostile versions of a telemetry recording (aiperf, nvml-raw or nvidia-smi layout)."""
    lines = source_text.splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    first = body[0].rstrip("\n").split(",")
    variants = {
        "truncated_mid_row": "".join(lines[:6]) + lines[6][: len(lines[6]) // 2],
        "header_only": header,
        "nan_everywhere": header + "".join(",".join(["nan"] * len(first)) + "\n" for _ in range(4)),
        "inf_values": header + "".join(",".join(["inf", *first[1:]]) + "\n" for _ in range(3)) + "".join(body[:5]),
        "field_128k": header + ",".join([first[0], "9" * 131_073, *first[2:]]) + "\n" + "".join(body[:5]),
        "negative_times": header + "".join(("-" + line) if line[:1].isdigit() else line for line in body[:20]),
        "backwards_times": header + "".join(reversed(body[:30])),
        "nul_byte": header + "\x00" + "".join(body[:5]),
        "huge_numbers": header + "".join(",".join([first[0], *(["1e308"] * (len(first) - 1))]) + "\n"
                                         for _ in range(3)),
    }
    return variants


def ncu_variants() -> dict[str, str]:
    raw = NCU_FILES[0].read_text()
    details = NCU_FILES[1].read_text()
    header = raw.splitlines()[0]
    return {
        "four_column_header": '"ID","Process ID","Process Name","Host Name"\n"0","1","p","h"\n"","","",""\n',
        "kernel_name_no_cc": '"ID","Process ID","Kernel Name","CC"\n"0","1"\n"","","",""\n"1","2","[bold]k[/]","9.0"\n',
        "header_only_raw": header + "\n",
        "raw_nan_inf": raw.replace('"0.', '"nan', 50).replace('"1', '"inf', 50),
        "details_cut": details[: len(details) // 3],
        "details_markup": details.replace("_kernel", "[bold]_kernel[/]\x1b[2J"),
        "field_128k": header.split(",", 1)[0] + ',"Process ID",' + '"' + "x" * 140_000 + '"\n',
        "eu_numbers": raw.replace(".", ","),
    }


# --- byte mutation ------------------------------------------------------------------------------

def mutate_bytes(data: bytes, rng: random.Random, edits: int = 4) -> bytes:
    """A few random byte edits: flips, deletions, duplications, truncation, hostile insertions."""
    buf = bytearray(data)
    for _ in range(edits):
        if not buf:
            break
        at = rng.randrange(len(buf))
        op = rng.randrange(7)
        if op == 0:
            buf[at] ^= 1 << rng.randrange(8)
        elif op == 1:
            del buf[at:at + rng.randrange(1, 64)]
        elif op == 2:
            span = buf[at:at + rng.randrange(1, 256)]
            buf[at:at] = span * rng.randrange(1, 4)
        elif op == 3:
            del buf[at:]
        elif op == 4:
            buf[at:at] = rng.choice([b"nan", b"inf", b"1e400", b"-", b"\x1b[2J", b"[/]", b'"', b",", b"\n",
                                     b"\xff\xfe", b"\\ud800", b"9" * 400, b"{", b"]"])
        elif op == 5:
            buf[at] = rng.choice(b'",{}[]:0123456789.-eE \n')
        else:
            buf[at:at + 1] = b"\x00"
    return bytes(buf)


def bundle_of_empty_members(path: Path, count: int, manifest: dict) -> Path:
    """A .tar.gz of a manifest and count - 1 empty members (a few bytes each once compressed): what made
    show/compare and aiperf-stats on a bundle spend seconds per 100,000 member headers."""
    import gzip
    import tarfile

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo("b/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        header = tarfile.TarInfo("b/f")
        for i in range(count - 1):
            header.name = f"b/f{i}"
            tar.addfile(header)
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path
