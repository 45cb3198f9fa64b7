"""A file written whole or not at all: the text goes into a new file beside its name, which is then renamed onto
the name. A kill or a full disk mid-write leaves the name as it was (absent, or the previous whole file), never a
half file a reader would take for a result."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Callable, TextIO


def write_replacing(path: Path, write: Callable[[TextIO], object]) -> None:
    """`write(handle)` into a new file beside `path`, then renamed onto it. A symlink already at the name (a shared
    output folder) is replaced, never followed, so its target is left alone. The file gets the usual umask-given
    mode."""
    temporary = path.with_name(f".{path.name[:150]}.{secrets.token_hex(4)}.partial")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_text_replacing(path: Path, text: str) -> None:
    """`text` as the whole of `path` (see write_replacing)."""
    write_replacing(path, lambda handle: handle.write(text))
