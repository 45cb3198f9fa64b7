"""Reading bundles without extracting them: `show` and `compare`.

Anything that is not a bundle is refused with one line: not a gzip tar, no manifest, a member with
an absolute path or "..", a link or device, or members outside the bundle's one top folder (the
check aiperf-stats makes of a bundle too: safe_tar.bundle_members).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tarfile
from collections import Counter
from operator import methodcaller
from pathlib import Path
from typing import Any, Callable

from aiperf_lab.cli_support import short_path
from aiperf_lab.errors import InputError
from aiperf_lab.inputs import printable
from aiperf_lab.safe_tar import MAX_MEMBERS, bundle_members, streamed
from aiperf_lab.triage.bundle import MANIFEST, SCHEMA_VERSION

MAX_MEMBER_BYTES = 16 * 1024 * 1024   # what show/compare will read of one member
# What show and compare read; everything else is listed and skipped.
READ_MEMBERS = {MANIFEST, "summary.md", "hardware_capabilities.json", "bench.json", "telemetry_summary.json",
                "findings.json", "topology/topology.json", "workload/workload.json"}
NSYS_MEMBERS = ("nsys/workload.nsys-rep", "nsys/workload.sqlite")   # the trace as triage keeps it
# Control characters (ESC starts terminal escapes: OSC 52 writes the clipboard, CSI clears the
# screen), C1 controls, bidirectional marks and overrides (U+200E/F, U+061C, U+202A-E, U+2066-9), line and
# paragraph separators (U+2028/9) and lone surrogates never reach the terminal from a bundle: the set aiperf-stats
# escapes (inputs.printable).
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


_UNSAFE_CODES = [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0), 0x061c, 0x200e, 0x200f,
                 *range(0x2028, 0x202f), *range(0x2066, 0x206a), *range(0xd800, 0xe000)]
# str.translate runs in C: 16 MiB of ESC bytes escaped in well under a second (a regex with a Python
# callback per match took minutes).
_ESCAPES = {code: ascii(chr(code))[1:-1] for code in _UNSAFE_CODES}
_ESCAPES_ONE_LINE = {**_ESCAPES, ord("\n"): "\\n", ord("\t"): "\\t"}
MAX_SHOWN_SUMMARY_CHARS = 1 << 20  # a real summary.md is a few KB


def terminal_safe(text: str, single_line: bool = False) -> str:
    """Text from a bundle made safe to print: control characters shown escaped, never sent."""
    if not single_line and not UNSAFE_CHARACTERS.search(text):
        return text
    return text.translate(_ESCAPES_ONE_LINE if single_line else _ESCAPES)


class Bundle:
    """A triage archive read in one pass, without extracting it: every member is checked, the
    members show and compare need are kept in memory (each up to 16 MiB), the rest is skipped."""

    def __init__(self, path: Path):
        self.path = path
        where = _short(path)
        self._members: dict[str, tarfile.TarInfo] = {}
        self._data: dict[str, bytes] = {}
        folder = _bundle_folder(path, where)
        if folder is not None:   # a bundle unpacked by `tar xf`: read as the archive would be
            self._read_folder(folder, where)
        else:
            with streamed(path, where) as (tar, members):
                self._read(tar, members, where)
        if MANIFEST not in self._members:
            raise InputError(f"{where}: not a triage archive (no {MANIFEST})")
        if MANIFEST not in self._data:
            raise InputError(f"{where}: refused: {MANIFEST} is {self._members[MANIFEST].size} bytes, more than "
                             f"the {MAX_MEMBER_BYTES >> 20} MiB show and compare read of a member")
        manifest = self.json(MANIFEST)
        if not isinstance(manifest, dict) or manifest.get("tool") != "aiperf-triage":
            raise InputError(f"{where}: not a triage archive ({MANIFEST} is not aiperf-triage's JSON)")
        self.manifest: dict = manifest
        self.newer_note = _newer_schema_note(manifest, where)


    def _read(self, tar: tarfile.TarFile, members, where: str) -> None:
        for member, relative in bundle_members(members, where):
            self._members[relative] = member
            if relative in READ_MEMBERS and member.size <= MAX_MEMBER_BYTES:
                handle = tar.extractfile(member)
                self._data[relative] = handle.read(MAX_MEMBER_BYTES + 1) if handle else b""

    def _read_folder(self, folder: Path, where: str) -> None:
        """An unpacked bundle under the archive's bounds: files and folders only (a link, FIFO or device is
        refused, as in an archive; none is followed or opened), MAX_MEMBERS entries, FOLDER_DEPTH levels, and
        only the members show and compare read are opened (each a regular file of at most MAX_MEMBER_BYTES)."""
        pending: list[tuple[Path, tuple[str, ...]]] = [(folder, ())]
        count = 0
        while pending:
            here, parts = pending.pop()
            try:
                entries = sorted(os.scandir(here), key=lambda entry: entry.name)
            except OSError as exc:
                raise InputError(f"{where}: cannot read {_shown_member(parts)} ({exc.strerror or exc})") from None
            for entry in entries:
                count += 1
                if count > MAX_MEMBERS:
                    raise InputError(f"{where}: refused: more than {MAX_MEMBERS} members")
                inner = (*parts, entry.name)
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError as exc:
                    raise InputError(f"{where}: cannot read {_shown_member(inner)} ({exc.strerror or exc})") from None
                if stat.S_ISDIR(info.st_mode):
                    if len(inner) >= FOLDER_DEPTH:
                        raise InputError(f"{where}: refused: folders more than {FOLDER_DEPTH} deep")
                    pending.append((Path(entry.path), inner))
                    continue
                if not stat.S_ISREG(info.st_mode):
                    raise InputError(f"{where}: refused: member {_shown_member(inner)} is a link or device, not a file")
                relative = "/".join(inner)
                member = tarfile.TarInfo(relative)
                member.size = info.st_size
                self._members[relative] = member
                if relative in READ_MEMBERS and info.st_size <= MAX_MEMBER_BYTES:
                    data = _read_member_file(Path(entry.path), where, relative)
                    if data is not None:
                        self._data[relative] = data

    def names(self) -> list[str]:
        return sorted(self._members)

    def read_text(self, name: str) -> str:
        member = self._members.get(name)
        if member is None:
            raise KeyError(name)
        if name not in self._data:
            raise InputError(f"{_short(self.path)}: member {name} is {member.size} bytes, too large to read")
        return self._data[name].decode("utf-8", "replace")

    def too_large(self, name: str) -> bool:
        """The member is in the bundle but over MAX_MEMBER_BYTES, so it was not read."""
        return name in self._members and name in READ_MEMBERS and name not in self._data

    def json(self, name: str) -> Any:
        try:
            return json.loads(self.read_text(name))
        except (KeyError, ValueError, RecursionError, InputError):
            return None

    def close(self) -> None:
        self._data.clear()


FOLDER_DEPTH = 16   # a bundle's deepest member is two folders down


def _shown_member(parts: tuple[str, ...]) -> str:
    return printable(repr("/".join(parts) or "."))[:200]


def _bundle_folder(path: Path, where: str) -> Path | None:
    """The unpacked bundle `path` names, or None where it is no folder (then it is read as an archive). The folder
    itself when it holds the manifest, or the one folder inside it that does (where `tar xf` was run); else one
    line saying what to give."""
    try:
        if not stat.S_ISDIR(os.stat(path).st_mode):
            return None
    except (OSError, ValueError):
        return None   # the archive's reader says what is wrong with the path
    if os.path.lexists(path / MANIFEST):
        return path
    try:
        with os.scandir(path) as listing:
            entries = [entry for _, entry in zip(range(3), listing)]
    except OSError as exc:
        raise InputError(f"{where}: cannot read the folder ({exc.strerror or exc})") from None
    if (len(entries) == 1 and entries[0].is_dir(follow_symlinks=False)
            and os.path.lexists(Path(entries[0].path) / MANIFEST)):
        return Path(entries[0].path)
    raise InputError(f"{where}: a folder with no {MANIFEST}: give a triage archive (.tar.gz) or the folder "
                     "unpacked from one")


def _read_member_file(path: Path, where: str, relative: str) -> bytes | None:
    """A member of an unpacked bundle: a regular file, not followed through a link, at most MAX_MEMBER_BYTES
    (None where it grew past that since it was listed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputError(f"{where}: cannot read {_shown_member((relative,))} ({exc.strerror or exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):   # swapped since it was listed
            raise InputError(f"{where}: refused: member {_shown_member((relative,))} is a link or device, not a file")
        pieces, total = [], 0
        while total <= MAX_MEMBER_BYTES:
            piece = os.read(fd, min(1 << 20, MAX_MEMBER_BYTES + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
        return b"".join(pieces) if total <= MAX_MEMBER_BYTES else None
    except OSError as exc:
        raise InputError(f"{where}: cannot read {_shown_member((relative,))} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _newer_schema_note(manifest: dict, where: str) -> str | None:
    """One line when the manifest says a newer aiperf-triage wrote the bundle (a schema_version past
    SCHEMA_VERSION, or not a number): what this version reads of it is shown, and the user is told that
    parts it does not know may be missing. None for this version's bundles and older ones (with or
    without the field)."""
    version = manifest.get("schema_version")
    if version is None or (type(version) is int and version <= SCHEMA_VERSION):
        return None
    shown = str(version) if type(version) is int else terminal_safe(repr(version), single_line=True)[:40]
    return (f"{where}: written by a newer aiperf-triage (bundle schema {shown[:40]}; this one reads schema "
            f"{SCHEMA_VERSION}): what it can read is shown, newer parts may be missing")


def _short(path: Path | str) -> str:
    return short_path(path)


def show(path: Path, warn: Callable[[str], None] | None = None) -> str:
    """The bundle's summary.md (else its manifest) as text safe for a terminal; `warn(line)` is told of a
    bundle from a newer version."""
    bundle = Bundle(path)
    if warn is not None and bundle.newer_note:
        warn(bundle.newer_note)
    try:
        try:
            summary = bundle.read_text("summary.md")
        except KeyError:
            summary = None
        if summary is not None:
            summary = _no_rule_fired_without_gpu(summary, bundle)
            if len(summary) <= MAX_SHOWN_SUMMARY_CHARS:
                return terminal_safe(summary)
            return (terminal_safe(summary[:MAX_SHOWN_SUMMARY_CHARS]) +
                    f"\n... (summary.md holds {len(summary)} characters; the first {MAX_SHOWN_SUMMARY_CHARS} "
                    "are shown: unpack the bundle to read it whole)\n")
        return terminal_safe(_manifest_text(bundle.manifest))
    finally:
        bundle.close()


def _no_rule_fired_without_gpu(summary: str, bundle: "Bundle") -> str:
    """A bundle written before the summary said so holds "No rule fired." though it saw no GPU: no GPU rule
    could judge that machine, which is said instead (never read as healthy)."""
    if "\nNo rule fired.\n" not in summary:
        return summary
    nvml = _dict(bundle.json("hardware_capabilities.json")).get("nvml")
    if not isinstance(nvml, dict) or _list(nvml.get("gpus")):   # unread or unreadable: the summary as written
        return summary
    status = _scalar(nvml.get("status"))
    why = "no GPU found" if status in (None, "", "ok") else str(status)
    return summary.replace("\nNo rule fired.\n",
                           f"\nNo GPU rule could judge this machine: {why}. The host rules found nothing.\n", 1)


def _manifest_text(manifest: dict) -> str:
    """A bundle without summary.md, from its manifest: one readable line per part, never a raw dict."""
    def known(value: Any) -> str:
        return "unknown" if value is None or value == "" else str(value)

    lines = [f"# {known(manifest.get('host'))} ({known(manifest.get('start_utc'))})", "(no summary.md in this bundle)"]
    capture = manifest.get("capture")
    if isinstance(capture, dict) and capture.get("text"):
        lines.append(f"nsys: {capture['text']}")
    collectors = manifest.get("collectors")
    for c in collectors if isinstance(collectors, list) else []:
        if isinstance(c, dict):
            note = f": {c['error']}" if c.get("error") else ""
            lines.append(f"- {known(c.get('name'))}: {known(c.get('status'))}, {known(c.get('seconds'))} s{note}")
    return "\n".join(lines) + "\n"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


SCALARS = (str, int, float, bool)


def _scalar(value: Any) -> Any:
    """A cell's value: numbers and strings as they are; anything else (a list, a dict) is not one."""
    return value if isinstance(value, SCALARS) or value is None else None


def _nvml(b: dict) -> dict:
    return _dict(_dict(b.get("hw")).get("nvml"))


def _gpu_rows(b: dict) -> list[dict]:
    """The bundle's GPU entries, filtered once when it is loaded (compare's cost is per GPU entry)."""
    rows = b.get("gpus")
    if rows is None:
        rows = b["gpus"] = [g for g in _list(_nvml(b).get("gpus")) if isinstance(g, dict)]
    return rows


def _active_links(rows: list[dict]) -> str | None:
    """Active NVLinks per GPU, in one comprehension (one nested step per GPU, no helper call)."""
    counts = [str(len([1 for link in links if isinstance(link, dict) and link.get("active")]))
              if isinstance(links, list) else "0" for links in map(methodcaller("get", "nvlinks"), rows)]
    return _per_gpu(counts)


def _per_gpu(values: list[str]) -> str | None:
    """A per-GPU field: one value when every GPU has it (a one-GPU and a two-GPU bundle of the same
    model then compare equal; the GPU count row says 1 vs 2), else every GPU's value in order."""
    if not values:
        return None
    return values[0] if len(set(values)) == 1 else ",".join(values)


# Each field with the member it is read from: a member too large to read is said so, never shown as 0.
HW, TOPOLOGY, BENCH = "hardware_capabilities.json", "topology/topology.json", "bench.json"
TELEMETRY, FINDINGS, WORKLOAD = "telemetry_summary.json", "findings.json", "workload/workload.json"
# What a row absent from every bundle is part of, in compare's one line about them.
ABSENT_PARTS = {HW: "GPU hardware", TOPOLOGY: "GPU topology", BENCH: "bench (--bench)",
                TELEMETRY: "GPU telemetry", WORKLOAD: "workload", FINDINGS: "findings"}
COMPARE_FIELDS = [
    ("command", WORKLOAD, lambda b: _workload_command(b)),
    ("workload ended", WORKLOAD, lambda b: _workload_end(b)),
    ("workload seconds", WORKLOAD, lambda b: _scalar(_dict(b.get("workload")).get("seconds"))),
    ("workload output (bytes)", WORKLOAD, lambda b: _workload_output(b)),
    ("nsys trace", WORKLOAD, lambda b: _nsys_trace(b)),
    ("GPU model", HW, lambda b: _gpus(b, "name")),
    ("GPU count", HW, lambda b: str(len(_gpu_rows(b)))),
    ("driver", HW, lambda b: _scalar(_nvml(b).get("driver_version"))),
    ("CUDA (driver)", HW, lambda b: _scalar(_nvml(b).get("cuda_driver_version"))),
    ("power limit (W)", HW, lambda b: _gpus(b, "power_limit_enforced_w")),
    ("max SM clock (MHz)", HW, lambda b: _gpus(b, "max_sm_clock_mhz")),
    ("PCIe now", HW, lambda b: _gpus(b, "pcie_gen_current", "pcie_width_current")),
    ("PCIe max", HW, lambda b: _gpus(b, "pcie_gen_max", "pcie_width_max")),
    ("NVLinks active", HW, lambda b: _active_links(_gpu_rows(b))),
    ("persistence", HW, lambda b: _gpus(b, "persistence_mode")),
    ("ECC uncorrected", HW, lambda b: _gpus(b, "ecc_errors_uncorrected_aggregate")),
    ("topology", TOPOLOGY, lambda b: _topology(b)),
    ("bench bf16 TFLOP/s", BENCH, lambda b: _bench_gpus(b, "bf16_matmul_tflops", "bf16_matmul_tflops")),
    ("bench fp32 TFLOP/s", BENCH, lambda b: _bench_gpus(b, "fp32_matmul_tflops", "fp32_matmul_tflops")),
    ("bench copy TB/s", BENCH, lambda b: _bench_gpus(b, "copy_tb_s", "device_copy_tb_s")),
    ("bench H2D GB/s", BENCH, lambda b: _bench_hosts(b, "h2d_gb_s", "h2d_pinned_gb_s")),
    ("bench D2H GB/s", BENCH, lambda b: _bench_hosts(b, "d2h_gb_s", "d2h_pinned_gb_s")),
    ("bench GPU pairs GB/s (min-max)", BENCH, lambda b: _bench_pairs(b)),
    *[(f"NCCL {op.replace('_', '-')} busbw GB/s @ {label}", BENCH,
       (lambda o, n: lambda b: _bench_nccl(b, o, n))(op, size))
      for op in ("all_reduce", "all_gather") for label, size in (("1 KiB", 1 << 10), ("1 MiB", 1 << 20),
                                                                 ("64 MiB", 1 << 26), ("1 GiB", 1 << 30))],
    ("mean power (W)", TELEMETRY, lambda b: _telemetry(b, "avg_power_w")),
    ("mean util (%)", TELEMETRY, lambda b: _telemetry(b, "util_gpu_avg_pct")),
    ("mean SM active (%)", TELEMETRY, lambda b: _telemetry(b, "sm_active_avg_pct")),
    ("max temp (C)", TELEMETRY, lambda b: _telemetry(b, "temp_max_c")),
    ("power-capped (%)", TELEMETRY, lambda b: _telemetry(b, "clock_event_power_cap_pct")),
    ("findings", FINDINGS, lambda b: _finding_ids(b)),
]


def _ran_no_workload(b: dict) -> bool:
    """The bundle was made without a command (telemetry only): its manifest lists no workload collector."""
    collectors = _list(b.get("collectors"))
    return bool(collectors) and not any(isinstance(c, dict) and c.get("name") == "workload" for c in collectors)


def _workload_command(b: dict) -> str | None:
    """The workload's command line as summary.md writes it (already redacted in workload.json)."""
    command = _dict(b.get("workload")).get("command")
    if isinstance(command, list) and command and all(isinstance(word, str) for word in command):
        from aiperf_lab.triage.report import command_text
        return command_text(command)
    return "none (telemetry only)" if _ran_no_workload(b) else None


def _workload_end(b: dict) -> str | None:
    """How the workload ended, in summary.md's words: its exit code or signal, and what stopped it."""
    workload = b.get("workload")
    if not isinstance(workload, dict):
        return "none (telemetry only)" if _ran_no_workload(b) else None
    from aiperf_lab.triage.report import _exit_words

    if _scalar(workload.get("error")):
        return f"did not run: {workload['error']}"
    code = workload.get("exit_code")
    words = _exit_words(code if type(code) is int else None)
    stopped = {"duration": "stopped at the end of the duration", "interrupt": "stopped by an interrupt"}
    stopped_by = _scalar(workload.get("stopped_by"))   # a list or dict (a crafted bundle) is no key to look up
    return words + (f", {stopped[stopped_by]}" if stopped_by in stopped else "")


def _workload_output(b: dict) -> str | None:
    """Bytes of the workload's output the bundle keeps (stdout.log and stderr.log), with what was left out."""
    if b.get("workload") is None and _ran_no_workload(b):
        return "none (telemetry only)"
    logs = [state for state in _dict(_dict(b.get("workload")).get("logs")).values() if isinstance(state, dict)]
    kept = [state.get("kept_bytes") for state in logs]
    if not kept or not all(type(n) is int for n in kept):
        return None
    left = sum(n for n in (state.get("left_out_bytes") for state in logs) if type(n) is int)
    return f"{sum(kept)}" + (f" ({left} left out)" if left else "")


def _nsys_trace(b: dict) -> str | None:
    """Whether the bundle keeps the workload's nsys trace: the report and its export, the export alone (the
    report left out: it could hold a secret), or none and why."""
    kept = [name for name in NSYS_MEMBERS if name in b["members"]]
    if kept:
        return "report and SQLite export" if len(kept) == 2 else \
            "report only" if kept[0].endswith(".nsys-rep") else "SQLite export only (report left out)"
    workload = b.get("workload")
    if not isinstance(workload, dict):
        return "none (telemetry only)" if _ran_no_workload(b) else None
    if workload.get("exit_code") is None and isinstance(workload.get("error"), str) and workload["error"]:
        return "none (the workload did not start)"
    if workload.get("under_nsys") is False:
        return "none (ran without nsys)"
    error = _dict(workload.get("nsys")).get("error")
    return f"none ({error})" if isinstance(error, str) and error else "none"


def _finding_ids(b: dict) -> str:
    """The findings' ids; none without a GPU is said as such: no GPU rule could judge that machine, so
    its "none" is no verdict, never a healthy GPU beside the others."""
    ids = ",".join(sorted({str(f["id"]) for f in _list(b.get("findings"))
                           if isinstance(f, dict) and _scalar(f.get("id")) is not None}))
    if ids:
        return ids
    # "no GPU" only from a hardware report that was read and lists none (one over 16 MiB is not read)
    seen_none = isinstance(b.get("hw"), dict) and HW not in b.get("unread", ()) and not _gpu_rows(b)
    return "none (no GPU to judge)" if seen_none else "none"   # short: whole at 80 columns beside another


def _bench_tables(b: dict) -> dict:
    bench = b.get("bench")
    tables = bench.get("tables") if isinstance(bench, dict) else None
    return tables if isinstance(tables, dict) else {}


def _bench_gpus(b: dict, key: str, old_key: str) -> str | None:
    """Per GPU, in order; bundles from before the node bench had one figure for GPU 0."""
    rows = [r for r in _list(_bench_tables(b).get("bench_gpus")) if isinstance(r, dict) and r.get("key") == key]
    if rows:
        return _per_gpu(_gpu_values(rows, "value"))
    old = b.get("bench")
    return str(old.get(old_key)) if isinstance(old, dict) and old.get(old_key) is not None else None


def _bench_hosts(b: dict, key: str, old_key: str) -> str | None:
    rows = [r for r in _list(_bench_tables(b).get("bench_host_links")) if isinstance(r, dict)]
    if rows:
        return ",".join(_gpu_values(rows, key))
    old = b.get("bench")
    return str(old.get(old_key)) if isinstance(old, dict) and old.get(old_key) is not None else None


def _bench_pairs(b: dict) -> str | None:
    values = [r.get("gb_s") for r in _list(_bench_tables(b).get("bench_pairs"))
              if isinstance(r, dict) and isinstance(r.get("gb_s"), (int, float))]
    return f"{min(values)}-{max(values)}" if values else None


def _bench_nccl(b: dict, op: str, size: int) -> str | None:
    for r in _list(_bench_tables(b).get("bench_nccl")):
        if isinstance(r, dict) and r.get("op") == op and r.get("bytes") == size:
            return f"{r.get('busbw_gb_s')} ({r.get('ranks')} GPUs)"
    return None


def _gpu_values(rows: list[dict], key: str) -> list[str]:
    """str(_scalar(row[key])) for every GPU's row, "-" where it is missing or not measured, in one
    comprehension (a bundle may list 60,000 GPUs)."""
    return [str(v) if isinstance(v, SCALARS) else "-" for v in map(methodcaller("get", key), rows)]


def _gpus(b: dict, *keys: str) -> str | None:
    rows = _gpu_rows(b)
    if not rows:
        return None
    columns = [_gpu_values(rows, key) for key in keys]
    return _per_gpu(columns[0] if len(columns) == 1 else list(map("x".join, zip(*columns))))


def _telemetry(b: dict, key: str) -> str | None:
    rows = _list(b.get("telemetry"))  # dicts only (_rows)
    return _per_gpu(_gpu_values(rows, key))


def _topology(b: dict) -> str | None:
    rows = _dict(_dict(_dict(b.get("topology")).get("matrix")).get("rows"))
    links = sorted({str(v) for row in rows.values() if isinstance(row, dict) for col, v in row.items()
                    if re.fullmatch(r"GPU\d+", str(col)) and v != "X" and _scalar(v) is not None})
    return ",".join(links) if links else ("single GPU" if rows else None)


def _rows(document: Any) -> list[dict]:
    """telemetry_summary.json holds {"devices": [...]}, findings.json a plain list: rows either way."""
    if isinstance(document, dict):
        document = document.get("devices")
    return [row for row in document if isinstance(row, dict)] if isinstance(document, list) else []


def compare(paths: list[Path], warn: Callable[[str], None] | None = None,
            absent: Callable[[str], None] | None = None) -> tuple[list[str], list[list[str]], list[set[int]]]:
    """(bundle labels, rows of [field, value per bundle], per row the columns that differ from the rest).
    Every label and value is one line, safe for a terminal. `warn(line)` is told of each bundle from a
    newer version. A field no bundle holds is no row (it was a row of "-"): `absent(line)` is told once
    what none of them holds."""
    if len(paths) < 2:
        raise InputError("compare needs at least two bundles")
    loaded = []
    for path in paths:
        bundle = Bundle(path)
        if warn is not None and bundle.newer_note:
            warn(bundle.newer_note)
        try:
            manifest = bundle.manifest
            loaded.append({"host": _scalar(manifest.get("host")), "start": str(_scalar(manifest.get("start_utc")) or ""),
                           "hw": bundle.json("hardware_capabilities.json"), "bench": bundle.json("bench.json"),
                           "telemetry": _rows(bundle.json("telemetry_summary.json")),
                           "findings": _rows(bundle.json("findings.json")),
                           "topology": bundle.json("topology/topology.json"),
                           "workload": bundle.json(WORKLOAD), "collectors": manifest.get("collectors"),
                           "members": {name for name in NSYS_MEMBERS if name in bundle._members},
                           "unread": {name for name in READ_MEMBERS if bundle.too_large(name)}})
        finally:
            bundle.close()
    rows, odd, missing = [], [], {}
    for label, source, getter in COMPARE_FIELDS:
        # Whole values are compared (two bundles may differ only at their 50th GPU); 200 characters are shown.
        values = [f"not read: {source} is over {MAX_MEMBER_BYTES >> 20} MiB" if source in b["unread"]
                  else None if (value := getter(b)) is None else str(value) for b in loaded]
        if all(value is None for value in values):
            missing.setdefault(_part(label, source), []).append(label)
            continue
        values = ["-" if value is None else value for value in values]
        rows.append([label, *(terminal_safe(v[:200], single_line=True)[:200] for v in values)])
        counts = Counter(values)
        majority = max(counts.values())
        # flag the values that differ from the most common one (a tie flags every value)
        odd.append({i for i, v in enumerate(values) if counts[v] < majority or (majority * 2 <= len(values) and len(counts) > 1)}
                   if len(counts) > 1 else set())
    if absent is not None and missing:
        absent(_absent_line(missing, loaded))
    return _labels(loaded), rows, odd


def _part(label: str, source: str) -> str:
    """The part of a bundle a row belongs to, as compare's line about absent rows names it: the bench's GPU
    pairs and NCCL rows apart (a bench on one GPU has neither)."""
    if label.startswith(("NCCL ", "bench GPU pairs")):
        return "GPU pairs and NCCL (--bench on 2 or more GPUs)"
    return ABSENT_PARTS[source]


def _absent_line(missing: dict[str, list[str]], loaded: list[dict[str, Any]]) -> str:
    """Once, what no bundle holds (each part with its rows where only some of its rows are missing), and why
    where it is known: no GPU in any of them."""
    # a part is named alone where every row it can lack is missing (GPU count and findings always have a value)
    whole = {part: sum(1 for label, source, _g in COMPARE_FIELDS
                       if _part(label, source) == part and label not in ("GPU count", "findings")) for part in missing}
    if len(missing.get(ABSENT_PARTS[BENCH], ())) == whole.get(ABSENT_PARTS[BENCH]):
        missing.pop(_part("NCCL ", BENCH), None)   # no bench at all: its pairs and NCCL rows are no part apart
    parts = [part if len(labels) == whole[part] else f"{part} ({', '.join(labels)})"
             for part, labels in missing.items()]
    which = "neither bundle holds" if len(loaded) == 2 else "none of these bundles holds"
    line = f"{which}: {'; '.join(parts)}"
    if not any(_gpu_rows(b) for b in loaded):
        why = sorted({str(_scalar(_nvml(b).get("status")) or "no GPU found") for b in loaded if isinstance(b.get("hw"), dict)})
        line += f" (no GPU in {'either' if len(loaded) == 2 else 'any'}: {terminal_safe('; '.join(why)[:200], single_line=True)})" \
            if why else ""
    return line


def _labels(loaded: list[dict[str, Any]]) -> list[str]:
    """Each bundle's column title: its host and start to the minute; to the second where two would
    otherwise read the same (two runs in one minute on one node), and numbered where that is not enough."""
    def titles(cut: int) -> list[str]:
        return [terminal_safe(f"{b['host']} {b['start'][:cut]}", single_line=True)[:80] for b in loaded]

    labels = titles(16)
    if len(set(labels)) < len(labels):
        labels = titles(19)
    if len(set(labels)) < len(labels):
        labels = [f"#{k} {label}" for k, label in enumerate(labels, 1)]
    return labels
