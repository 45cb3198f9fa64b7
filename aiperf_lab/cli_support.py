"""What every aiperf command does at its edge: exit codes and one-line errors.

0 done, 2 the input or the environment is wrong (one line on stderr, never a traceback), 130
interrupted, 1 a bug (one line; AIPERF_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import sys
from collections.abc import Callable

from aiperf_lab.errors import InputError


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one InputError line (exit 2 through run_cli), not usage + message."""

    def error(self, message: str) -> None:
        raise InputError(f"{self.prog}: {message} (see {self.prog} --help)")

    def _print_message(self, message: str, file=None) -> None:
        # argparse drops an OSError here: `--help > /dev/full` would end 0 with no help and no word.
        if message:
            (file or sys.stderr).write(message)


def path_option(text: str, what: str = "folder") -> str:
    """A path option's value (`what`: "folder" or "file"), checked where argparse reads it: an empty or blank name
    would quietly become the folder we are in (Path("") is ".") or a path named by blanks, and `-` is no standard
    output (or input) here. Every command's path options share this one check."""
    if not text:
        raise argparse.ArgumentTypeError("the path is empty")
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is only blanks: name a {what}")
    if text == "-":
        stream = "output" if what == "folder" else "input"
        raise argparse.ArgumentTypeError(f"'-' is not standard {stream} here: the option takes a {what}")
    return text


def folder_option(text: str) -> str:
    """An output folder's value (path_option's checks)."""
    return path_option(text, "folder")


def file_option(text: str) -> str:
    """An input file's value (path_option's checks)."""
    return path_option(text, "file")


MAX_MESSAGE_CHARS = 2000


def one_line(message: str) -> str:
    """A message as one printable line: control characters and newlines escaped, the length bounded."""
    from aiperf_lab.inputs import printable

    text = printable(message.strip())
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS - 3] + "..."
    return text


def run_cli(prog: str, run: Callable[[list[str]], int], argv: list[str] | None) -> int:
    if sys.stderr is None:
        # Started with stderr closed (`2>&-`): print(file=None) writes to stdout, so the notes and errors meant for
        # stderr went into the result (SKIPPED lines inside the JSON). They go nowhere instead; os.open takes the
        # lowest free descriptor, 2 itself unless the start has taken it, so nothing opened later lands there.
        sys.stderr = open(os.open(os.devnull, os.O_WRONLY), "w", encoding="utf-8", errors="backslashreplace")
    if sys.stdout is None:  # started with stdout closed (`>&-`): nowhere to put the result
        if sys.stderr is not None:
            print(f"{prog}: standard output is closed", file=sys.stderr)
        return 2
    if hasattr(sys.stdout, "reconfigure"):
        # A name the output's encoding cannot hold (PYTHONIOENCODING=ascii, LANG=C on an old Python) is
        # written escaped rather than ending the command.
        sys.stdout.reconfigure(errors="backslashreplace")
    whole = _whole_writes_to(sys.stdout)  # (unbuffered or non-blocking: written through a layer that writes all)
    if whole is not None:
        sys.stdout, original = whole, sys.stdout
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        # What is still buffered goes out here, where a full disk or a closed pipe is still one line and an
        # exit code (print, then return: else the interpreter's own flush at exit meets the error, and says
        # it its own way, or not at all).
        sys.stdout.flush()
        return code
    except InputError as exc:
        message = one_line(str(exc))
        print(message if message.startswith(prog) else f"{prog}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if argv is None:   # the command itself (not a caller in the same process): a second Ctrl-C, pressed
            _ignore_more_interrupts()   # while this one is handled, must not print a traceback
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRORS:
            return _internal_error(prog, exc)
        # Standard output on a full disk or a dead device (`> /dev/full`): what could not be written is
        # lost; say so once, and keep Python from failing the same flush again at exit.
        print(one_line(f"{prog}: cannot write the output: {exc.strerror or exc}"), file=sys.stderr)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 2
    except MemoryError:
        print(f"{prog}: out of memory", file=sys.stderr)
        return 2
    except Exception as exc:
        return _internal_error(prog, exc)
    finally:
        if whole is not None:
            sys.stdout = original
            try:
                whole.detach()  # (flushed above; fd 1 stays open: the layer under it never closes the file)
            except (OSError, ValueError):
                pass


class _WholeWrites(io.RawIOBase):
    """A file that takes all of every write or raises. write(2) on a disk filling up takes part of a write and
    fails on the next; on a non-blocking pipe or terminal that is full it takes nothing (EAGAIN). Python's
    buffered stdout goes on to the failure on the first, and ends with BlockingIOError on the second; its
    unbuffered one (PYTHONUNBUFFERED, `python -u`: the text layer straight on the file) drops what a write
    did not take, silently. Here the rest is written, waiting for the reader where the file is non-blocking."""

    def __init__(self, raw: io.RawIOBase):
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def isatty(self) -> bool:
        return self._raw.isatty()

    def write(self, data) -> int:
        import select

        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            taken = self._raw.write(view[done:])
            if taken is None:  # a non-blocking file that is full: wait until its reader makes room
                select.select([], [self._raw.fileno()], [])
                continue
            if taken == 0:
                raise OSError(errno.EIO, "the output took nothing")
            done += taken
        return done

    def close(self) -> None:  # the file is the process's stdout, not this wrapper's to close
        super().close()


def _whole_writes_to(stream) -> "io.TextIOWrapper | None":
    """`stream` again, writing whole (_WholeWrites), where it is a text layer straight on an unbuffered file
    or on a non-blocking one; else None (a buffered, blocking file already writes whole or fails)."""
    if not isinstance(stream, io.TextIOWrapper):
        return None
    unbuffered = isinstance(stream.buffer, io.RawIOBase)
    raw = stream.buffer if unbuffered else getattr(stream.buffer, "raw", None)
    if not isinstance(raw, io.RawIOBase):
        return None
    if not unbuffered:
        try:
            if os.get_blocking(raw.fileno()):
                return None
        except (OSError, ValueError, AttributeError):
            return None
        stream.flush()
    whole = _WholeWrites(raw)
    return io.TextIOWrapper(whole if unbuffered else io.BufferedWriter(whole), encoding=stream.encoding,
                            errors=stream.errors, newline=None, line_buffering=stream.line_buffering,
                            write_through=unbuffered)


_OUTPUT_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG}


def _ignore_more_interrupts() -> None:
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:   # not the main thread: nothing to do there
        pass


def _internal_error(prog: str, exc: Exception) -> int:
    if os.environ.get("AIPERF_DEBUG"):
        raise exc
    print(one_line(f"{prog}: internal error: {type(exc).__name__}: {exc} "
                   "(rerun with AIPERF_DEBUG=1 for the traceback)"), file=sys.stderr)
    return 1


def make_folders(path: "os.PathLike[str] | str") -> None:
    """`path` and its missing parents made, as Path.mkdir(parents=True, exist_ok=True) makes them, one level at a
    time: pathlib (and os.makedirs) recurse once per missing level, so an output folder 1,000 levels deep (2 KB of
    path, well under PATH_MAX) ended a command in RecursionError. A file in the way raises what mkdir raises."""
    from pathlib import Path

    missing = []
    at = Path(path)
    while not at.is_dir():
        if missing and at.exists():   # a file in the way of the folders under it: their mkdir says so (ENOTDIR)
            break
        missing.append(at)
        if at.parent == at:
            break
        at = at.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            if not folder.is_dir():
                raise


def short_path(path: "os.PathLike[str] | str", keep: int = 120) -> str:
    """A path for a one-line message: a 5,000-character one is shortened in the middle, and control
    characters in it are shown escaped."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(path))
    return text if len(text) <= keep else f"{text[:keep // 2]}...{text[-keep // 2:]}"


def terminal_columns(stream=None) -> int | None:
    """The width to fit text to where `stream` (stdout) is a terminal (COLUMNS first, as shutil reads it);
    None when it is a pipe or a file, which get lines whole, for grep."""
    import shutil

    stream = sys.stdout if stream is None else stream
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):
        return None
    return max(20, shutil.get_terminal_size().columns) if interactive else None


def reflow_markdown(text: str, width: int) -> str:
    """Markdown written with lines of about 100 characters, refilled to `width` at words: a paragraph or a
    list item (`- `, `1. `) is joined and wrapped, its further lines indented under its text. Headings,
    fenced code, tables and blank lines stay as written; a word longer than the width is left whole."""
    import re
    import textwrap

    out: list[str] = []
    block: list[str] = []   # the lines of the paragraph or list item being gathered
    lead = ""               # its marker ("- ", "1. ") and indentation

    def flush() -> None:
        nonlocal block, lead
        if block:
            words = " ".join(line.strip() for line in block)
            out.extend(textwrap.wrap(words, width, initial_indent=lead, subsequent_indent=" " * len(lead),
                                     break_long_words=False, break_on_hyphens=False) or [lead.rstrip()])
        block, lead = [], ""

    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            flush()
            fenced = not fenced
            out.append(line)
            continue
        item = re.match(r"(\s*(?:[-*+]|\d+[.)])\s+)(.*)", line)
        if fenced or not line.strip() or line.lstrip().startswith(("#", "|", ">")):
            flush()
            out.append(line)
        elif item:
            flush()
            lead, block = item.group(1), [item.group(2)]
        else:
            block.append(line)
    flush()
    return "\n".join(out)
