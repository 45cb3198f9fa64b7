"""Recognise a profile file by its content and give the reports it supports.

One entry point for the CLI, the console and the lab runner: ``open_profile(path)`` returns a
Profile whose ``report(name)`` yields tables, whatever the format underneath.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from aiperf_lab.errors import InputError, NotAProfile, ToolMissing
from aiperf_lab.inputs import decode_text, read_head
from aiperf_lab.metrics import registry
from aiperf_lab.metrics.tables import Table

NSYS_REPORT_MAGIC = b"NVIDIA Tegra Profiler Report"
ENERGY_REPORTS = ("energy_by_range", "energy_by_category")  # need telemetry besides the profile

class ReportOptions:
    """Options that shape some reports: an NVTX range to scope the breakdown, and cross-thread attribution."""

    def __init__(self, nvtx_range: str | None = None, cross_thread: bool = False, timeunit: str | None = None,
                 telemetry: Path | None = None, work: float | None = None, work_unit: str | None = None,
                 gpu: int | None = None):
        self.nvtx_range = nvtx_range
        self.cross_thread = cross_thread
        self.timeunit = timeunit  # nsys's --timeunit: nsec, usec, msec, sec
        self.telemetry = telemetry      # energy reports: the telemetry recording (default: found with the profile)
        self.work = work                # energy reports: work done in the run, for joules per unit
        self.work_unit = work_unit
        self.gpu = gpu                  # energy reports: the telemetry's GPU index


class Profile:
    """An opened profile: its kind ("nsys", "ncu", "torch", "telemetry") and the data its reports read.

    The reports it supports, the overview and how each is built come from the registry.
    """

    def __init__(self, path: Path, kind: str, data: object):
        self.path = path
        self.kind = kind
        self.data = data
        self.reports = [r.name for r in registry.reports_for(kind)]
        self.overview_reports = list(registry.OVERVIEWS[kind])
        self.notices: list[str] = []  # said once on stderr (e.g. "exported X to Y")
        self.rank = "0"  # its rank among several exports (see open_profiles)
        self.telemetry: Path | None = None  # a telemetry recording found with the profile (run folder, bundle)
        self.work: float | None = None      # the work count the lab run reported (run.json)
        self.work_unit = ""
        # a bundle or run folder without a profile: the notice saying its telemetry.csv's reports are shown
        self.no_profile_notice: str | None = None

    def report(self, spec: str, options: ReportOptions | None = None) -> list[Table]:
        """Tables of one report; `spec` is a name with optional nsys-style arguments ("cuda_gpu_kern_sum:base")."""
        name, _, argument = spec.partition(":")
        entry = registry.find(self.kind, name)
        if entry is None and self.kind == "nsys" and name in registry.NSYS_ONLY:
            raise InputError(f"{name} is an `nsys stats` report aiperf-stats does not make; run "
                             f"`nsys stats --report {name}` for it")
        if entry is None:
            known = any(r.name == name for r in registry.REPORTS)
            raise InputError((f"report {name!r} does not apply to this {self.kind} file; " if known else
                              f"unknown report {name!r} (aiperf-stats --list-reports lists them); ")
                             + f"for this file: {', '.join(self.reports)}")
        entry.check_argument(argument)
        options = options or ReportOptions()
        if name in ENERGY_REPORTS:
            options = ReportOptions(options.nvtx_range, options.cross_thread, options.timeunit,
                                    telemetry=options.telemetry or self.telemetry,
                                    work=options.work if options.work is not None else self.work,
                                    work_unit=options.work_unit if options.work is not None else self.work_unit,
                                    gpu=options.gpu)
            if options.telemetry is None:
                from aiperf_lab.errors import MissingData
                raise MissingData(f"{self.path.name} has no telemetry recording with it, which {name} needs: pass "
                                  "--telemetry FILE, or give the lab run folder or triage bundle that holds both")
        data = [(self.rank, self.data)] if entry.multi_rank else self.data
        tables = entry.build(data, argument, options)
        if options.timeunit:  # every "(ns)" column of every report, ours as nsys's
            from aiperf_lab.metrics.tables import in_time_unit
            tables = [in_time_unit(t, options.timeunit) for t in tables]
        return tables


class RankedProfiles:
    """Several profiles of one kind, one per rank: multi-rank reports see them all at once, the others
    are made per file and joined into one table with a Rank column."""

    def __init__(self, profiles: list[Profile]):
        self.profiles = profiles
        self.kind = profiles[0].kind
        self.reports = profiles[0].reports
        self.overview_reports = profiles[0].overview_reports
        self.notices = [n for p in profiles for n in p.notices]

    def report(self, spec: str, options: ReportOptions | None = None) -> list[Table]:
        name, _, argument = spec.partition(":")
        entry = registry.find(self.kind, name)
        if entry is not None and entry.multi_rank:
            entry.check_argument(argument)
            return entry.build([(p.rank, p.data) for p in self.profiles], argument, options or ReportOptions())
        from aiperf_lab.errors import MissingData

        per_rank, missing = [], []
        for profile in self.profiles:  # a rank without the data drops out; all without it: skipped
            try:
                per_rank.append((profile.rank, profile.report(spec, options)))
            except MissingData as exc:
                missing.append(exc)
        if not per_rank:
            raise missing[0]
        self.notices.extend(f"rank {p.rank}: {exc}" for p, exc in zip(
            [p for p in self.profiles if p.rank not in {r for r, _ in per_rank}], missing))
        return [_with_rank_column([(rank, tables[i]) for rank, tables in per_rank if i < len(tables)])
                for i in range(max(len(tables) for _, tables in per_rank))]


def _with_rank_column(parts: list[tuple[str, Table]]) -> Table:
    first = parts[0][1]

    def rows():
        for rank, table in parts:
            for row in table.rows:
                yield [rank, *row]

    streamed = not all(isinstance(t.rows, list) for _, t in parts)
    notes = list(dict.fromkeys(n for _, t in parts for n in t.notes))
    return Table(first.name, first.title, ["Rank", *first.columns], rows() if streamed else list(rows()), notes)


def open_profiles(paths: list[str]) -> Profile | RankedProfiles:
    """One profile, or several of one kind with their ranks (the number ending each name, else the order)."""
    if len(paths) == 1:
        return open_profile(paths[0])
    from aiperf_lab.metrics.nsys.ranks import ranks_from_names

    _refuse_a_file_given_twice(paths)
    profiles = [open_profile(p) for p in paths]
    kinds = {p.kind for p in profiles}
    if len(kinds) > 1:
        raise InputError(f"several files must be of one kind (here: {', '.join(sorted(kinds))})")
    labels = ranks_from_names([Path(p) for p in paths])
    if labels is None:  # the names do not tell the ranks apart: the order does, and the user is told which is which
        labels = [str(i) for i in range(len(paths))]
        profiles[0].notices.append("the file names do not number the ranks (no number ending each name, or one "
                                   "number twice), so the ranks are the files' order: "
                                   + ", ".join(f"{label} = {path}" for label, path in zip(labels, paths)))
    for profile, label in zip(profiles, labels):
        profile.rank = label
    return RankedProfiles(profiles)


def report_tables(profile: Profile | RankedProfiles, specs: list[str],
                  options: ReportOptions | None = None) -> tuple[list[Table], list[str]]:
    """The tables of every report in `specs`, in order, and the reasons of those the file has no data for
    (skipped, as `nsys stats` prints SKIPPED:). None made at all: InputError, naming each reason once."""
    from aiperf_lab.errors import MissingData

    tables, skipped = [], []
    for spec in specs:
        try:
            tables.extend(profile.report(spec, options))
        except MissingData as exc:
            skipped.append(str(exc))
    if not tables:
        raise InputError("nothing to report: " + " ".join(dict.fromkeys(skipped)))
    return tables, skipped


class Overview:
    """What `aiperf-stats FILE` shows for one file, with every row read: its overview tables, the reports
    skipped for want of data, and what opening it said (an export made, a bundle without a profile)."""

    def __init__(self, path: str) -> None:
        profile = open_profile(path)
        self.path, self.kind = Path(path), profile.kind
        self.tables, self.skipped = report_tables(profile, profile.overview_reports)
        for table in self.tables:
            table.rows = list(table.rows)
        self.notices = list(profile.notices)
        self.no_profile_notice = profile.no_profile_notice


def _refuse_a_file_given_twice(paths: list[str]) -> None:
    """One file as two ranks would be a spread of zero between them: the same path, or another name (a link,
    `./x`, a hard link) of the same file, is refused."""
    from aiperf_lab.inputs import stat_path

    seen: dict[tuple[int, int], str] = {}
    for path in paths:
        info = stat_path(Path(path))
        key = (info.st_dev, info.st_ino)
        if key in seen:
            same = "twice" if seen[key] == path else f"twice (as {seen[key]} and {path})"
            raise InputError(f"{seen[key]}: the same file is given {same}; give each rank's file once")
        seen[key] = path


def nsys_report_version(path: Path) -> str | None:
    """The nsys version written in a .nsys-rep header ("2024.6.2.225"), readable without nsys."""
    head = read_head(path, 80)
    if not head.startswith(NSYS_REPORT_MAGIC):
        return None
    tail = head[len(NSYS_REPORT_MAGIC):].strip().split(b"-")[0].split(b"\n")[0]
    version = tail.decode("ascii", "replace").replace("@", ".")
    return version if version and version[0].isdigit() and "." in version else None


def sniff(path: Path) -> str:
    """The format of a file from its first bytes: nsys-rep, sqlite, ncu-rep, gzip, json, csv or text."""
    head = read_head(path, 4096)
    if head.startswith(NSYS_REPORT_MAGIC):
        return "nsys-rep"
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if head.startswith(b"NVR\x00"):
        return "ncu-rep"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    text = decode_text(head, utf16=True).lstrip("\ufeff \t\r\n")
    if text.startswith(("{", "[")):
        return "json"
    if '"ID","Process ID"' in text or text.startswith("==PROF==") or "\n\"ID\"," in text:
        return "ncu-csv"
    from aiperf_lab.metrics.telemetry.recording import sniff_text

    if sniff_text(text):
        return "telemetry"
    return "text"


def open_profile(path: str | os.PathLike[str]) -> Profile:
    """A profile file; or a lab run folder or triage bundle (folder or .tar.gz): the profile inside, with
    the telemetry recording and work count found with it (for the energy reports)."""
    import stat

    from aiperf_lab.inputs import stat_path
    from aiperf_lab.metrics.energy import inputs

    path = Path(path)
    folder = stat.S_ISDIR(stat_path(path).st_mode)
    if folder or inputs.is_triage_archive(path):
        found = inputs.from_folder(path) if folder else inputs.from_archive(path)
        try:
            profile = open_profile(found.profile)
        except InputError as exc:
            if folder:
                raise
            # name the member of the bundle the user gave, not our temporary copy of it
            raise type(exc)(str(exc).replace(str(found.profile), f"{path} ({found.profile.name} in it)")) from None
        profile.telemetry = found.telemetry
        profile.work, profile.work_unit = found.work, found.work_unit
        if not folder:
            profile.path = path
        if found.only_telemetry:
            profile.no_profile_notice = (f"{path} holds no profile (the workload ran without nsys or the PyTorch "
                                         f"profiler, or the export failed): the reports of its telemetry.csv only, "
                                         f"{', '.join(profile.reports)}")
            profile.notices.append(profile.no_profile_notice)
        return profile
    profile = _open_file(path)
    if profile.kind in ("nsys", "torch"):
        profile.telemetry = inputs.telemetry_beside(path)
    return profile


def _open_file(path: Path) -> Profile:
    kind = sniff(path)
    if kind == "nsys-rep":
        sqlite_path, notice = export_nsys_report(path)
        profile = _nsys_profile(sqlite_path)
        profile.path = path
        profile.notices.append(notice)
        return profile
    if kind == "sqlite":
        return _nsys_profile(path)
    if kind in ("ncu-rep", "ncu-csv"):
        return _ncu_profile(path)
    if kind in ("gzip", "json"):
        return _torch_profile(path)
    if kind == "telemetry":
        return _telemetry_profile(path)
    if path.suffix.lower() == ".csv":
        raise NotAProfile(f"{path}: a CSV file, but neither Nsight Compute output nor a telemetry recording")
    raise NotAProfile(f"{path}: not a profile aiperf-stats reads (nsys .sqlite/.nsys-rep, ncu .csv/.ncu-rep, "
                      "PyTorch .json/.json.gz, telemetry .csv)")


# `nsys export`s this process has running: the console's quit ends them (stop_exports), since the worker thread
# that waits for one would hold the console's exit until nsys ended (minutes for a big report).
_RUNNING_EXPORTS: dict = {}        # Popen -> whether stop_exports ended it
_EXPORTS_LOCK = threading.Lock()


def stop_exports() -> None:
    """End every `nsys export` still running in this process; their callers raise InputError ("stopped")."""
    with _EXPORTS_LOCK:
        running = list(_RUNNING_EXPORTS)
        _RUNNING_EXPORTS.update(dict.fromkeys(running, True))
    for process in running:
        try:
            process.kill()
        except OSError:
            pass


def export_nsys_report(path: Path) -> tuple[Path, str]:
    """The SQLite export of a .nsys-rep: reuse one beside it that is newer, else run `nsys export`. nsys writes
    into a partial file that takes the export's name only when nsys succeeded, so an export that was stopped,
    failed or killed never passes for a finished one ("newer than the report") the next time."""
    import shutil
    import subprocess
    import tempfile

    from aiperf_lab.metrics.config import nsys_export_argv, nsys_export_has_blobs

    beside = path.with_suffix(".sqlite")
    if beside.is_file() and beside.stat().st_mtime >= path.stat().st_mtime:
        return beside, f"using the existing export {beside}"
    nsys = shutil.which("nsys")
    if nsys is None:
        version = nsys_report_version(path)
        made = f" (made by nsys {version})" if version else ""
        raise ToolMissing(f"{path}: reading a .nsys-rep{made} needs Nsight Systems' `nsys` on the PATH; "
                          f"or export it elsewhere with `nsys export --type sqlite` and pass the .sqlite")
    target = beside if os.access(path.parent, os.W_OK) else Path(tempfile.mkdtemp(prefix="aiperf-")) / beside.name
    partial = target.with_name(f".{target.stem}.partial-{os.getpid()}-{threading.get_ident()}.sqlite")
    argv = nsys_export_argv(str(path), str(partial), nsys=nsys, include_blobs=nsys_export_has_blobs(nsys))
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace")
        with _EXPORTS_LOCK:
            _RUNNING_EXPORTS[process] = False
        try:
            out, err = process.communicate(timeout=900)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise InputError(f"{path}: nsys export took over 900 s") from None
        finally:
            with _EXPORTS_LOCK:
                stopped = _RUNNING_EXPORTS.pop(process)
        if stopped:
            raise InputError(f"{path}: nsys export stopped")
        if process.returncode != 0 or not partial.exists():
            lines = (err or out).strip().splitlines()
            raise InputError(f"{path}: nsys export failed: {lines[-1] if lines else 'exit ' + str(process.returncode)}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target, f"exported {path.name} to {target}"


def _nsys_profile(path: Path) -> Profile:
    from aiperf_lab.metrics.nsys.db import KERNEL, MEMCPY, MEMSET, NVTX, RUNTIME, NsysDatabase

    db = NsysDatabase(path)
    if not any(t in db.tables for t in (KERNEL, RUNTIME, MEMCPY, MEMSET, NVTX, "OSRT_API")):  # values: checked when read
        hint = db.failed_capture_hint()
        raise InputError(f"{path}: the export holds no CUDA, NVTX or OS runtime data"
                         + (f"; the capture failed: {hint}" if hint else
                            " (captured without -t cuda,nvtx, or the capture failed)"))
    return Profile(path, "nsys", db)


def _ncu_profile(path: Path) -> Profile:
    from aiperf_lab.metrics import ncu

    return Profile(path, "ncu", ncu.read_ncu_file(path))


def _telemetry_profile(path: Path) -> Profile:
    from aiperf_lab.metrics.telemetry.recording import read_recording

    return Profile(path, "telemetry", read_recording(path))


def _torch_profile(path: Path) -> Profile:
    from aiperf_lab.metrics import kineto

    return Profile(path, "torch", kineto.load_trace(path))
