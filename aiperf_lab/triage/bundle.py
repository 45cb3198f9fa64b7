"""The bundle folder being filled, its manifest, and the archive written from it.

Every text goes through the redactor before it reaches the disk. The archive is written under a
temporary name and renamed at the end, so a failed or interrupted write never leaves a file that
looks like a finished archive.

A full disk costs the workload's output first, never the rest: files marked expendable (the
workload's logs, once written) are cut to make room when a later write or the archive does not fit,
each cut said in the file itself, the manifest (`cut_by_full_disk`) and summary.md. Only when the
bundle does not fit without them is the run refused (exit 2, one line naming the folder), and then
nothing is left under the final name.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tarfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from aiperf_lab import __version__
from aiperf_lab.cli_support import short_path
from aiperf_lab.errors import InputError
from aiperf_lab.triage import disk
from aiperf_lab.triage.disk import full_disk
from aiperf_lab.triage.redact import Redactor

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
SUMMARY = "summary.md"
MAX_ARCHIVE_ATTEMPTS = 40   # each attempt cuts something; this only bounds a disk that keeps filling
ARCHIVE_GZIP_LEVEL = 6     # gzip's default (see _write_archive)
SMALLEST_CUT_BYTES = 4096   # an expendable file cut below this is emptied: halving further gains nothing
CUT_NOTE = "\n[cut here to make room for the rest of the bundle: the disk was full]\n"


@dataclass
class CollectorRecord:
    name: str
    status: str = "pending"      # ok, host-only (telemetry without a GPU), skipped, failed, timeout
    seconds: float = 0.0
    error: str | None = None
    files: list[str] = field(default_factory=list)


class BundleClosed(RuntimeError):
    """A write after the bundle was archived or abandoned (a collector thread that outlived an interrupt)."""


class BundleWriter:
    def __init__(self, output_dir: Path, name: str, redactor: Redactor):
        self.output_dir = output_dir
        self.name = name
        self.redactor = redactor
        # The process id keeps two runs apart that start in the same second with the same host name and
        # --output (srun on nodes that report one name): each has its own working folder and archive.
        self.root = output_dir / f".{name}.{os.getpid()}.partial"
        if self.root.exists():   # left by a killed run whose pid this process now has
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True, mode=0o700)
        self.records: dict[str, CollectorRecord] = {}
        self._lock = threading.Lock()
        self._closed = False   # after finish() or abandon(): a late collector thread writes nothing
        self._expendable: list[str] = []     # cut first when the disk is full (the workload's logs)
        self.cuts: dict[str, str] = {}       # file -> what a full disk cost it
        self._sizes_before_cuts: dict[str, int] = {}
        self._whole: set[str] = set()        # expendable binaries: left out whole, never cut
        self._summary_as_written: str | None = None
        self.started = datetime.now(timezone.utc)

    def record(self, name: str) -> CollectorRecord:
        with self._lock:
            return self.records.setdefault(name, CollectorRecord(name))

    def claim(self, collector: str, relative: str) -> Path:
        """A path in the bundle for a file the collector will write itself (recorded in the manifest)."""
        with self._lock:
            return self._claim(collector, relative)

    def _claim(self, collector: str, relative: str) -> Path:
        if self._closed:  # a collector still running when an interrupted run wrote its archive
            raise BundleClosed(f"the bundle is already written; {relative} comes too late")
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        record = self.records.setdefault(collector, CollectorRecord(collector))
        if relative not in record.files:
            record.files.append(relative)
        return path

    def write_text(self, collector: str, relative: str, text: str) -> Path:
        clean = self.redactor.text(text)
        with self._lock:  # so finish() cannot remove the folder between the claim and the write
            path = self._claim(collector, relative)
            while True:
                try:
                    path.write_text(clean, encoding="utf-8")
                    break
                except OSError as exc:
                    if not (full_disk(exc) and self._make_room()):
                        path.unlink(missing_ok=True)   # no half-written file in the bundle
                        raise
        return path

    def expendable(self, relative: str, whole: bool = False) -> None:
        """A file (written, closed) that a full disk may cut to make room for the rest of the bundle:
        text is cut from its end (its head kept), a binary (whole=True: an nsys report or export) is
        left out whole, and only once every text file is empty."""
        with self._lock:
            if relative not in self._expendable:
                self._expendable.append(relative)
            if whole:
                self._whole.add(relative)

    def _make_room(self, needed: int | None = None) -> bool:
        """Cut `needed` bytes from the expendable files (text first, keeping each one's head, ending at
        a line where one is near and with a note of the cut; then whole binaries), or, when the need
        is not known, halve each text file (emptying one that is small). False when nothing is left."""
        texts = [r for r in self._expendable if r not in self._whole and self._size(r) > self._cut_size(r)]
        if texts:
            if needed is None:
                plan = {r: self._size(r) // 2 if self._size(r) > SMALLEST_CUT_BYTES else 0 for r in texts}
            else:
                plan, left = {}, needed
                for relative in texts:   # the first files give their bytes first
                    size = self._size(relative)
                    keep = max(size - left, 0)
                    plan[relative] = keep if keep > SMALLEST_CUT_BYTES else 0
                    left -= size - plan[relative]
                    if left <= 0:
                        break
            for relative, keep in plan.items():
                self._cut_text(relative, keep)
            return True
        for relative in self._expendable:
            if relative in self._whole and (self.root / relative).is_file():
                original = self._size(relative)
                (self.root / relative).unlink()
                for record in self.records.values():
                    if relative in record.files:
                        record.files.remove(relative)
                self.cuts[relative] = f"the disk was full: left out ({original} bytes)"
                return True
        return False

    def discard(self, prefix: str) -> None:
        """Remove what was written under `prefix` (a part that could not be finished), from the folder
        and from the records."""
        with self._lock:
            for path in sorted(self.root.glob(prefix.rstrip("/") + "/**/*"), reverse=True):
                if path.is_file() or path.is_symlink():
                    path.unlink(missing_ok=True)
            for record in self.records.values():
                record.files = [f for f in record.files if not f.startswith(prefix)]

    def _size(self, relative: str) -> int:
        try:
            return (self.root / relative).stat().st_size
        except OSError:
            return 0

    def _cut_size(self, relative: str) -> int:
        """The size below which a text file cannot be cut further (empty, or only the note of a cut)."""
        return len(CUT_NOTE) if relative in self.cuts else 0

    def _cut_text(self, relative: str, keep: int) -> None:
        path = self.root / relative
        size = self._size(relative)
        original = self._sizes_before_cuts.setdefault(relative, size)
        with path.open("r+b") as handle:
            if keep:   # end at a line when one is within the last 4 KiB kept
                start = max(keep - 4096, 0)
                handle.seek(start)
                newline = handle.read(keep - start).rfind(b"\n")
                keep = start + newline + 1 if newline >= 0 else keep
            handle.truncate(keep)
            handle.seek(keep)
            handle.write(CUT_NOTE.encode())   # the room just freed holds it
        self.cuts[relative] = (f"the disk was full: kept the first {keep} of {original} bytes" if keep else
                               f"the disk was full: all {original} bytes left out")

    def write_json(self, collector: str, relative: str, data) -> Path:
        return self.write_text(collector, relative, json.dumps(data, indent=2, default=str) + "\n")

    def add_file(self, collector: str, relative: str, source: Path, move: bool = False) -> Path:
        """A binary file as it is (nsys reports): the caller has checked it holds nothing to redact."""
        with self._lock:
            path = self._claim(collector, relative)
            (shutil.move if move else shutil.copyfile)(str(source), str(path))
        return path

    @property
    def partial_archive(self) -> Path:
        """Where the archive is written before it is renamed to its final name."""
        return self.output_dir / f".{self.name}.{os.getpid()}.tar.gz.partial"

    def path(self, relative: str) -> Path:
        return self.root / relative

    def manifest(self, host: str, arguments: list[str], interrupted: bool, extra: dict | None = None) -> dict:
        files = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and path.name != MANIFEST:
                files[path.relative_to(self.root).as_posix()] = _sha256(path)
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": "aiperf-triage",
            "tool_version": __version__,
            "host": host,
            "start_utc": self.started.isoformat(timespec="seconds"),
            "end_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "arguments": arguments,
            "interrupted": interrupted,
            "collectors": [vars(r) for r in self.records.values()],
            **(extra or {}),
            "files": files,
        }

    def finish(self, host: str, arguments: list[str], interrupted: bool, extra: dict | None = None) -> Path:
        """Write the manifest, then the archive (temporary name, then rename). Returns the archive path.
        On a full disk the expendable files are cut by what the failed attempt says is missing, and the
        archive written again, until it fits or nothing is left to cut (then InputError naming the folder)."""
        with self._lock:
            self._closed = True
        partial = self.partial_archive
        try:
            for _attempt in range(MAX_ARCHIVE_ATTEMPTS):
                progress = [0]   # input bytes compressed before it failed
                try:
                    self._say_cuts_in_summary()
                    cuts = {"cut_by_full_disk": dict(self.cuts)} if self.cuts else {}
                    manifest = self.manifest(host, arguments, interrupted, {**(extra or {}), **cuts})
                    (self.root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
                    self._write_archive(partial, progress)
                    return _publish(partial, self.output_dir, self.name)
                except OSError as exc:
                    written = partial.stat().st_size if partial.exists() else 0
                    partial.unlink(missing_ok=True)
                    if full_disk(exc) and self._make_room(self._missing(written, progress[0])):
                        continue
                    shutil.rmtree(self.root, ignore_errors=True)   # first: the free space said is then true
                    raise InputError(self._cannot_write(exc)) from None
            shutil.rmtree(self.root, ignore_errors=True)
            raise InputError(self._cannot_write(OSError(errno.ENOSPC, "No space left on device")))
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _write_archive(self, partial: Path, progress: list[int]) -> None:
        # gzip level 6, not tarfile's 9: level 9 searched matches for 1 s a MB in a log of binary output (U+FFFD
        # over and over), 20 s for a log at its cap; 6 took 0.1 s a MB there, the archive 5% larger
        tar = tarfile.open(partial, "w:gz", compresslevel=ARCHIVE_GZIP_LEVEL)
        try:
            for path in sorted(self.root.rglob("*")):
                if path.is_file():
                    tar.add(path, arcname=f"{self.name}/{path.relative_to(self.root).as_posix()}",
                            recursive=False, filter=_plain_member)
            tar.close()
        except OSError:
            progress[0] = getattr(tar.fileobj, "size", 0)   # gzip's count of what it was given
            try:
                tar.close()
            except OSError:
                pass
            raise

    def _missing(self, written: int, archived: int) -> int | None:
        """Bytes to cut so the next archive fits, from how far the failed one got: it compressed
        `archived` input bytes to `written` bytes before the disk was full. Cutting c bytes frees c and
        shrinks the archive by about ratio x c, so c = (ratio x total - room) / (1 + ratio), with a
        margin. None when the attempt failed too early to tell (then each text file is halved)."""
        if archived < 64 * 1024 or written <= 0:
            return None
        ratio = min(max(written / archived, 0.02), 1.0)
        total = sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())
        room = (disk.free_bytes(self.output_dir) or 0)
        return max(int(1.2 * (ratio * total - room) / (1 + ratio)), 64 * 1024)

    def _say_cuts_in_summary(self) -> None:
        """summary.md as the report wrote it, plus what a full disk cut (rewritten on each attempt)."""
        if not self.cuts:
            return
        summary = self.root / SUMMARY
        if self._summary_as_written is None:
            self._summary_as_written = summary.read_text(encoding="utf-8") if summary.is_file() else ""
        lines = [f"- `{relative}`: {what}" for relative, what in self.cuts.items()]
        summary.write_text(self._summary_as_written.rstrip("\n") + "\n\n## Cut by a full disk\n\n" +
                           "\n".join(lines) + "\n", encoding="utf-8")

    def _cannot_write(self, exc: OSError) -> str:
        where = short_path(self.output_dir)
        if not full_disk(exc):
            return f"aiperf-triage: cannot write the archive in {where}: {exc.strerror or exc}"
        free = disk.free_bytes(self.output_dir)
        return (f"aiperf-triage: the disk holding {where} is full" +
                (f" ({_size(free)} free without the bundle)" if free is not None else "") +
                (": the bundle does not fit even without the workload's output" if self._expendable else
                 ": the bundle does not fit") + "; nothing written")

    def abandon(self) -> None:
        with self._lock:
            self._closed = True
        shutil.rmtree(self.root, ignore_errors=True)


def _publish(partial: Path, folder: Path, name: str) -> Path:
    """The archive under its final name, never over another run's: NAME.tar.gz, else NAME-2.tar.gz, ..."""
    for n in range(1, 1000):
        final = folder / (f"{name}.tar.gz" if n == 1 else f"{name}-{n}.tar.gz")
        try:
            os.link(partial, final)          # fails if the name is taken: no race with another run
        except FileExistsError:
            continue
        except OSError:                      # a filesystem without hard links
            if final.exists():
                continue
            os.replace(partial, final)
            return final
        partial.unlink()
        return final
    raise OSError(f"{name}.tar.gz and 998 numbered names are taken")


def _size(nbytes: int) -> str:
    return f"{nbytes / (1 << 30):.1f} GiB" if nbytes >= 1 << 30 else \
        f"{nbytes / (1 << 20):.1f} MiB" if nbytes >= 1 << 20 else f"{nbytes // 1024} KiB"


def _plain_member(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o644
    info.mtime = int(time.time())
    return info


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
