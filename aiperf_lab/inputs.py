"""The edge every profile reader stands on: regular files only, read with bounds, and text from files
made safe to print.

- open_regular / read_bounded / read_head: a path is checked with stat() before it is opened (a FIFO,
  a device or a socket is refused, so nothing blocks on it), opened without following it into a
  different kind of file (O_NONBLOCK, then fstat again), and read up to a stated size.
- printable: control characters (C0, DEL, C1 and the Unicode line/paragraph separators) and lone
  surrogates in text from a file become visible escapes (``\\x1b``, ``\\n``, ``\\ud800``), so a kernel
  name can never move the cursor, clear the screen or write the clipboard of the terminal it is shown
  on. Normal names pass through unchanged.
- shown_path: a path as an error message shows it: printable, and cut in the middle when very long.
- shell_line: a command (argv) as one line a shell runs as given, quoted where needed and printable.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import stat
from pathlib import Path
from typing import BinaryIO

from aiperf_lab.errors import InputError

MAX_SHOWN_PATH = 160
# Inputs larger than this are refused before reading (a profile export of 64 GiB is not one we read in
# full anyway; SQLite exports are not read through here, they are opened by SQLite itself).
MAX_TEXT_INPUT_BYTES = 4 << 30

# C0/C1 controls, line separators, lone surrogates, and the bidirectional controls (U+202E makes a
# terminal show a name backwards: "Trojan Source"): escaped, never printed.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with control characters and lone surrogates escaped; unchanged when it has none."""
    # Every character above is one str.isprintable() rejects (Cc, Cf, Cs, Zl, Zp), and isprintable()
    # runs in C at about a nanosecond a character, the regex at 20: a 5 MB kernel name costs 0.1 s.
    if text.isprintable():
        return text
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def has_unprintable(text: str) -> bool:
    return not text.isprintable() and _UNPRINTABLE.search(text) is not None


def shell_line(argv: list[str]) -> str:
    """`argv` as one line to copy into bash or zsh: shlex quoting, and a word holding a control character
    written $'...' with the same escapes printable uses (the shell turns them back into the characters)."""
    def word(arg: str) -> str:
        if not _UNPRINTABLE.search(arg):
            return shlex.quote(arg)
        return "$'" + _UNPRINTABLE.sub(_escape, arg.replace("\\", "\\\\").replace("'", "\\'")) + "'"
    return " ".join(word(arg) for arg in argv)


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path for a one-line message: escaped, and at most MAX_SHOWN_PATH characters (cut in the middle)."""
    text = printable(os.fspath(path))
    if len(text) > MAX_SHOWN_PATH:
        half = (MAX_SHOWN_PATH - 3) // 2
        text = f"{text[:half]}...{text[-half:]}"
    return text


def stat_path(path: Path) -> os.stat_result:
    """os.stat, or an InputError in one line (missing, too long a name, no permission, a NUL byte)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{shown_path(path)}: no such file") from None
    except OSError as exc:
        raise InputError(f"{shown_path(path)}: cannot open ({exc.strerror or type(exc).__name__})") from None
    except ValueError:  # an embedded NUL byte
        raise InputError(f"{shown_path(path)}: not a valid path") from None


def check_regular(path: str | os.PathLike[str]) -> int:
    """The size of a regular file, or an InputError for anything else (missing, directory, FIFO, device)."""
    info = stat_path(Path(path))
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{shown_path(path)}: is a directory, not a profile")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{shown_path(path)}: not a regular file (a FIFO, device or socket); "
                         "profiles are read from files")
    return info.st_size


def open_regular(path: str | os.PathLike[str], max_bytes: int = MAX_TEXT_INPUT_BYTES) -> BinaryIO:
    """A binary handle on a regular file of at most `max_bytes`; never blocks on a FIFO."""
    size = check_regular(path)
    if size > max_bytes:
        raise InputError(f"{shown_path(path)}: {size / 2**30:.1f} GiB, more than the "
                         f"{max_bytes / 2**30:.1f} GiB this reader accepts")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(f"{shown_path(path)}: cannot open ({exc.strerror or type(exc).__name__})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped between stat() and open()
            raise InputError(f"{shown_path(path)}: not a regular file")
        if info.st_size == 0:
            # Empty, or a kernel file (/proc, /sys) whose size says nothing: read now, without waiting
            # (/proc/kmsg or a tracing pipe, read blocking, never ends), and bounded.
            data = read_without_waiting(fd, path, min(max_bytes, MAX_SIZELESS_BYTES))
            os.close(fd)
            return io.BufferedReader(io.BytesIO(data))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return io.open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


# A file whose size is 0 but reads as more (a kernel file) is read at most this far.
MAX_SIZELESS_BYTES = 64 << 20


def read_without_waiting(fd: int, path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """All of a non-blocking descriptor's data, or an InputError: it would block (a kernel file that waits
    for events, such as /proc/kmsg), or it gives more than `max_bytes`."""
    pieces, total = [], 0
    while True:
        try:
            piece = os.read(fd, 1 << 16)
        except BlockingIOError:
            raise InputError(f"{shown_path(path)}: cannot be read without waiting (a kernel file such as "
                             "/proc/kmsg), not a profile") from None
        except OSError as exc:
            raise InputError(f"{shown_path(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
        if not piece:
            return b"".join(pieces)
        total += len(piece)
        if total > max_bytes:
            raise InputError(f"{shown_path(path)}: its size says 0 bytes but it reads as more than {max_bytes} "
                             "(a kernel file), not a profile")
        pieces.append(piece)


def read_bounded(path: str | os.PathLike[str], max_bytes: int = MAX_TEXT_INPUT_BYTES) -> bytes:
    """The whole content of a regular file of at most `max_bytes`."""
    with open_regular(path, max_bytes) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(f"{shown_path(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > max_bytes:  # grew while we read
        raise InputError(f"{shown_path(path)}: larger than the {max_bytes} bytes this reader accepts")
    return data


def read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first bytes of a regular, non-empty file, or an InputError saying in one line what is wrong."""
    with open_regular(path, max_bytes=1 << 62) as handle:
        try:
            head = handle.read(size)
        except OSError as exc:
            raise InputError(f"{shown_path(path)}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if not head:
        raise InputError(f"{shown_path(path)}: empty file")
    return head


def text_encoding(head: bytes) -> str:
    """The encoding of a text file from its first bytes: "utf-16" where a UTF-16 byte order mark leads
    (what Windows PowerShell's `>` writes: `ncu --csv ... > out.csv`, `nvidia-smi --query-gpu ... > log.csv`),
    else "utf-8"."""
    return "utf-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8"


def decode_text(data: bytes, utf16: bool = False) -> str:
    """The UTF-8 text of a file, undecodable bytes replaced (U+FFFD), a leading BOM dropped. utf16: UTF-16
    behind its byte order mark too (profiles other tools wrote: text_encoding); our own files (run.json)
    are UTF-8 only."""
    text = data.decode(text_encoding(data) if utf16 else "utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text
