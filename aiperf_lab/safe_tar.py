"""Reading a .tar.gz that came from elsewhere without trusting it: a regular file only (a FIFO would
block forever), a bounded number of members, and a bound on what it unpacks to (a gzip bomb is refused
before it costs time or disk); for a triage bundle, what a safe one is (bundle_members). Used by
triage's show/compare and by aiperf-stats on a bundle: the two accept the same bundles."""

from __future__ import annotations

import gzip
import os
import stat
import tarfile
import zlib
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterator

from aiperf_lab.errors import InputError
from aiperf_lab.inputs import printable, shown_path

# A real bundle has about 30 members; each costs tarfile some 30 us to parse, so this many take a
# fraction of a second (100,000 empty members took 12 s) and still leave room for any real bundle.
MAX_MEMBERS = 10_000
# tarfile's stream reader copies what is left of its buffer on every 512-byte header it reads: with
# a 1 MiB buffer each member cost a 1 MiB copy (half the time of a many-member archive). Its own
# default record size keeps that copy small; member data is read in bigger pieces regardless.
STREAM_BUFFER_BYTES = tarfile.RECORDSIZE
# Unpacking stops past 128 MiB plus 25 times the archive's size (real bundles stay far below: the H200
# fixture unpacks to 4.7 times its size), and an archive whose gzip trailer declares more than that is
# refused without unpacking anything.
UNPACKED_BASE_BYTES = 128 * 1024 * 1024
UNPACKED_RATIO = 25


class Unpacked(Exception):
    """Raised by LimitedReader past its limit."""


class LimitedReader:
    """A file object that refuses to give more than `limit` bytes (the unpacked stream of a gzip)."""

    def __init__(self, raw, limit: int):
        self.raw = raw
        self.limit = limit
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size if size is not None and size >= 0 else self.limit + 1 - self.count)
        self.count += len(data)
        if self.count > self.limit:
            raise Unpacked(self.count)
        return data


def unpacked_limit(size: int) -> int:
    return UNPACKED_BASE_BYTES + UNPACKED_RATIO * size


def open_regular(path: Path, what: str = "a triage archive", where: str | None = None):
    """(file object, size): the archive opened for reading, only when it is a regular file. `where`:
    how messages name the path (shown_path's form by default)."""
    where = where if where is not None else shown_path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{where}: is a directory, not {what}") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot read ({exc.strerror or exc})") from None
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise InputError(f"{where}: is a directory, not {what}")
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(f"{where}: not a regular file (a pipe, socket or device), not {what}")
    if info.st_size == 0:   # empty, or a kernel file (/proc/kmsg: a blocking read of it never ends)
        os.close(fd)
        raise InputError(f"{where}: an empty file (or a kernel file), not {what}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), info.st_size


def declared_size(handle, size: int) -> int | None:
    """The unpacked size a gzip's trailer declares (modulo 4 GiB), or None when it is too short."""
    if size < 18:
        return None
    handle.seek(size - 4)
    declared = int.from_bytes(handle.read(4), "little")
    handle.seek(0)
    return declared


@contextmanager
def streamed(path: Path, where: str, cap: int | None = None) -> Iterator[tuple[tarfile.TarFile, Iterator[tarfile.TarInfo]]]:
    """(the archive as a tar stream, its members one by one) under the bounds above: a regular gzip
    file, what its trailer declares, what it unpacks to (at most `cap` too), MAX_MEMBERS members. A
    breach, or an archive that cannot be read, is an InputError naming `where`, also when it happens
    while the caller reads a member's data."""
    handle, size = open_regular(path, where=where)
    bound = unpacked_limit(size) if cap is None else min(cap, unpacked_limit(size))
    try:
        if handle.read(2) != b"\x1f\x8b":
            raise InputError(f"{where}: not a triage archive (not a gzip file)")
        handle.seek(0)
        declared = declared_size(handle, size)
        if declared is not None and declared > bound:
            raise InputError(f"{where}: refused: it declares {declared} bytes unpacked from {size} "
                             "(a gzip bomb, or not a triage archive)")
        stream = LimitedReader(gzip.GzipFile(fileobj=handle, mode="rb"), bound)
        with tarfile.open(fileobj=stream, mode="r|", bufsize=STREAM_BUFFER_BYTES) as tar:
            yield tar, _counted(tar, where, bound)
    except Unpacked:
        raise InputError(f"{where}: refused: it unpacks to more than {bound} bytes from {size} "
                         "(a gzip bomb, or not a triage archive)") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{where}: not a triage archive (not a readable .tar.gz: "
                         f"{printable(str(exc))[:200]})") from None
    finally:
        handle.close()


def _counted(tar: tarfile.TarFile, where: str, bound: int) -> Iterator[tarfile.TarInfo]:
    for count, member in enumerate(tar, start=1):
        if count > MAX_MEMBERS:
            raise InputError(f"{where}: refused: more than {MAX_MEMBERS} members")
        # A header declaring more than the whole archive may unpack to (a PAX size of 10^20) would have
        # tarfile skip that far, one empty read at a time, past the stream's end: refused before that.
        if member.size > bound:
            raise InputError(f"{where}: refused: member {printable(member.name)[:200]} declares {member.size} "
                             f"bytes, more than the archive may unpack to ({bound})")
        yield member


def shown_member(member: tarfile.TarInfo) -> str:
    """A member's name for a message: quoted, escaped, one line, at most 200 characters."""
    return printable(repr(member.name))[:200]


def bundle_members(members: Iterator[tarfile.TarInfo], where: str) -> Iterator[tuple[tarfile.TarInfo, str]]:
    """(member, its name inside the top folder) for each file of a triage bundle, the bundle checked as its
    members come: refused (InputError naming `where`) at a member named empty, absolute or with "..", a
    link, device or FIFO (a bundle holds files and folders only), a file named twice (show would print one
    copy and aiperf-stats read the other), more than one top folder, or no member."""
    tops = set()
    files: set[tuple[str, ...]] = set()
    for member in members:
        name = PurePosixPath(member.name)
        if (not member.name or name.is_absolute() or ".." in name.parts
                or member.name.startswith(("/", "\\")) or "\x00" in member.name):
            raise InputError(f"{where}: refused: unsafe member name {shown_member(member)}")
        if not (member.isfile() or member.isdir()):
            raise InputError(f"{where}: refused: member {shown_member(member)} is a link or device, not a file")
        if not name.parts:  # "." or "./": the folder the archive was made in
            if member.isfile():
                raise InputError(f"{where}: refused: unsafe member name {shown_member(member)}")
            continue
        tops.add(name.parts[0])
        if len(tops) > 1:
            raise InputError(f"{where}: not a triage archive (expected one top folder, found several)")
        if member.isfile():
            if name.parts in files:
                raise InputError(f"{where}: refused: member {shown_member(member)} is in the archive more than once")
            files.add(name.parts)
        if member.isfile() and len(name.parts) >= 2:
            yield member, "/".join(name.parts[1:])
    if not tops:
        raise InputError(f"{where}: not a triage archive (empty)")
