"""The bundle folder being filled, its manifest, and the archive written from it.

Every text goes through the redactor before it reaches the disk. The archive is written under a
temporary name and renamed at the end, so a failed or interrupted write never leaves a file that
looks like a finished archive.
"""

from __future__ import annotations

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
from aiperf_lab.errors import InputError
from aiperf_lab.triage.redact import Redactor

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"


@dataclass
class CollectorRecord:
    name: str
    status: str = "pending"      # ok, skipped, failed, timeout
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
            path.write_text(clean, encoding="utf-8")
        return path

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
        """Write the manifest, then the archive (temporary name, then rename). Returns the archive path."""
        with self._lock:
            self._closed = True
        manifest = self.manifest(host, arguments, interrupted, extra)
        (self.root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        partial = self.partial_archive
        try:
            with tarfile.open(partial, "w:gz") as tar:
                for path in sorted(self.root.rglob("*")):
                    if path.is_file():
                        tar.add(path, arcname=f"{self.name}/{path.relative_to(self.root).as_posix()}",
                                recursive=False, filter=_plain_member)
            final = _publish(partial, self.output_dir, self.name)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise InputError(f"cannot write the archive in {self.output_dir}: {exc.strerror or exc}") from None
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
        return final

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
