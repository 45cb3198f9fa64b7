"""Opening the files a user names: one clear InputError line for each way a path can be wrong."""

from __future__ import annotations

from pathlib import Path

from aiperf_lab.errors import InputError


def read_head(path: Path, size: int) -> bytes:
    """The first bytes of a file the user named, or an InputError saying in one line what is wrong."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a profile")
    try:
        with path.open("rb") as handle:
            head = handle.read(size)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if not head:
        raise InputError(f"{path}: empty file")
    return head
