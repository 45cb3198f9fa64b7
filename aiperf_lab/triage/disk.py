"""Room on the disk that holds the bundle: the workload's log must not take what the bundle needs.

The workload's output is the one part of a bundle whose size triage does not control. A log that is
allowed to fill the disk leaves no room for the telemetry, the findings, the manifest and the
archive, and the whole bundle is lost. So the log stops (it is "cut by a full disk") once the free
space would fall below a reserve kept back for the rest: a quarter of what was free when the run
started, at most RESERVE_MAX_BYTES. What is left of the disk is checked with statvfs before each
piece of the log is written; a real ENOSPC (another process filled the disk) cuts it the same way.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

RESERVE_MAX_BYTES = 32 << 20
FULL_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def full_disk(exc: BaseException) -> bool:
    """An OSError that says the disk (or the user's quota, or the file size limit) is full."""
    return isinstance(exc, OSError) and exc.errno in FULL_DISK_ERRNOS


def free_bytes(folder: Path) -> int | None:
    """Bytes an unprivileged writer may still use on folder's filesystem; None when it cannot be read."""
    try:
        stat = os.statvfs(folder)
    except (OSError, AttributeError):   # statvfs is POSIX-only
        return None
    return stat.f_bavail * stat.f_frsize


class DiskRoom:
    """The free space on the bundle's filesystem, less a reserve for the rest of the bundle."""

    def __init__(self, folder: Path, reserve_bytes: int | None = None):
        self.folder = folder
        free = free_bytes(folder)
        self.reserve_bytes = reserve_bytes if reserve_bytes is not None else \
            min(RESERVE_MAX_BYTES, (free or 0) // 4)

    def free(self) -> int | None:
        return free_bytes(self.folder)

    def fits(self, nbytes: int) -> int:
        """How many of nbytes can be written and leave the reserve free (all when it cannot be told)."""
        free = self.free()
        return nbytes if free is None else max(0, min(nbytes, free - self.reserve_bytes))
