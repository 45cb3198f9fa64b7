"""Find an export and its telemetry: a lab run folder, a triage bundle (folder or .tar.gz), or an export
with the telemetry named or lying beside it; and the work count a lab run reported."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from aiperf_lab.errors import InputError

# Where each producer puts its profile, in order of preference.
EXPORT_NAMES = ["profile.sqlite", "profile.nsys-rep", "nsys/workload.sqlite", "torch_trace.json",
                "torch_trace.json.gz"]
TELEMETRY_NAME = "telemetry.csv"


class RunInputs:
    """A run's profile, its telemetry recording and the work count it reported. (A plain class: every
    aiperf-stats call imports this module, and dataclasses costs more to import than the report it
    makes on a small export.)"""

    def __init__(self, profile: Path, telemetry: Path | None, work: float | None = None, work_unit: str = "",
                 only_telemetry: bool = False):
        self.profile = profile
        self.telemetry = telemetry
        self.work = work
        self.work_unit = work_unit
        self.only_telemetry = only_telemetry  # no profile in the folder or bundle: `profile` is its telemetry.csv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunInputs) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"RunInputs({self.profile!r}, {self.telemetry!r}, {self.work!r}, {self.work_unit!r})"


def is_triage_archive(path: Path) -> bool:
    name = path.name.lower()
    return path.is_file() and (name.endswith(".tar.gz") or name.endswith(".tgz"))


def from_folder(folder: Path) -> RunInputs:
    profile = next((folder / n for n in EXPORT_NAMES if (folder / n).is_file()), None)
    telemetry = folder / TELEMETRY_NAME
    if profile is None:
        exports = sorted(folder.glob("*.sqlite")) + sorted(folder.glob("*.nsys-rep"))
        if not exports and telemetry.is_file():  # a run or bundle without a profile: its telemetry's reports
            return RunInputs(telemetry, telemetry, only_telemetry=True)
        if len(exports) != 1:
            raise InputError(f"{folder}: is a directory with no profile in it (looked for {', '.join(EXPORT_NAMES)}"
                             + (f"; {len(exports)} exports here, name one" if exports else f", {TELEMETRY_NAME}")
                             + ")")
        profile = exports[0]
    inputs = RunInputs(profile, telemetry if telemetry.is_file() else None)
    run_json = folder / "run.json"
    if run_json.is_file():
        inputs.work, inputs.work_unit = _work_of(run_json)
    return inputs


def _work_of(run_json: Path) -> tuple[float | None, str]:
    """(work, its unit) from a run.json's measurements; (None, "") where it has no usable one. The file is
    the folder's, not ours to trust: read as a regular file with a bound, any shape of JSON."""
    import math

    from aiperf_lab.inputs import decode_text, read_bounded

    try:
        record = json.loads(decode_text(read_bounded(run_json, 64 << 20)))
    except (InputError, ValueError, RecursionError):   # not JSON, nested too deep, a 5,000-digit number
        return None, ""
    measurements = record.get("measurements") if isinstance(record, dict) else None
    if not isinstance(measurements, dict):
        return None, ""
    work = measurements.get("work")
    if not isinstance(work, (int, float)) or isinstance(work, bool) or not work > 0:
        return None, ""
    try:
        work = float(work)
    except OverflowError:   # an integer past a float's range
        return None, ""
    if not math.isfinite(work):
        return None, ""
    return work, str(measurements.get("work_unit") or "")


def from_archive(path: Path, limit: int = 4 << 30) -> RunInputs:
    """The export and telemetry of a triage archive (a .tar.gz with one top folder), copied out to a
    temporary folder in one streaming pass. Only regular files are read; member names are matched, never
    extracted as paths; the member count and what the archive unpacks to are bounded as for `show`
    (aiperf_lab.safe_tar), so a crafted bundle costs neither minutes nor /tmp."""
    # Imported here: opening any profile looks for its telemetry through this module, and tarfile and
    # tempfile cost a PyTorch trace's whole read on a small trace.
    import atexit
    import shutil
    import tempfile

    from aiperf_lab.inputs import shown_path
    from aiperf_lab.safe_tar import bundle_members, streamed

    where = shown_path(path)
    wanted = set(EXPORT_NAMES) | {TELEMETRY_NAME}
    target = Path(tempfile.mkdtemp(prefix="aiperf-energy-"))
    atexit.register(shutil.rmtree, target, True)  # the copies live as long as this process reads them
    copied: dict[str, Path] = {}
    manifest = False
    try:
        with streamed(path, where, cap=limit) as (tar, members):
            for member, name in bundle_members(members, where):  # the bundle checked as show checks it
                manifest = manifest or name == "manifest.json"
                if name in wanted and name not in copied:
                    if member.size > limit:
                        raise InputError(f"{where}: {name} is {member.size} bytes, over the {limit} allowed")
                    source = tar.extractfile(member)
                    dest = target / f"{len(copied)}-{PurePosixPath(name).name}"
                    with dest.open("wb") as out:
                        if source is not None:
                            shutil.copyfileobj(source, out, 1 << 20)
                    copied[name] = dest
    except InputError:
        shutil.rmtree(target, True)
        raise
    if not manifest:
        shutil.rmtree(target, True)
        raise InputError(f"{where}: not a triage archive (expected one top folder with a manifest.json)")
    export = next((n for n in EXPORT_NAMES if n in copied), None)
    if export is None and TELEMETRY_NAME not in copied:
        shutil.rmtree(target, True)
        raise InputError(f"{where}: the bundle holds no nsys export (the workload ran without nsys, or the "
                         "export failed) and no telemetry.csv: no report has data in it")
    # The copies keep their member's file name (readers tell the kind from it), one folder each.
    telemetry = _renamed(copied[TELEMETRY_NAME], TELEMETRY_NAME) if TELEMETRY_NAME in copied else None
    if export is None:  # its telemetry is all there is to report on
        return RunInputs(telemetry, telemetry, only_telemetry=True)
    return RunInputs(_renamed(copied[export], PurePosixPath(export).name), telemetry)


def _renamed(copy: Path, name: str) -> Path:
    folder = copy.parent / copy.name.split("-", 1)[0]
    folder.mkdir(exist_ok=True)
    return copy.rename(folder / name)


def telemetry_beside(export: Path) -> Path | None:
    """telemetry.csv in the export's folder (lab run) or the one above it (bundle: nsys/workload.sqlite)."""
    for folder in (export.parent, export.parent.parent):
        candidate = folder / TELEMETRY_NAME
        if candidate.is_file():
            return candidate
    return None
