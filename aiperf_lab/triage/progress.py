"""Progress on stderr: one `aiperf-triage: KIND ...` line per event, for people and for the console.

The protocol (console/sessions.py parses it; keep the two in step):
    aiperf-triage: phase NAME                               start, capture, summarize, find, report, archive
    aiperf-triage: collector NAME STATUS SECONDS s[: ERROR] a bundle part finished (ok, skipped, failed, timeout)
    aiperf-triage: nsys MESSAGE                             the capture's progress ("writing report, 14 s")
    aiperf-triage: coverage TEXT                            "trace covers 0-20 s of 20 s (...)"
    aiperf-triage: finding SEVERITY ID: TITLE
    aiperf-triage: archive PATH
    aiperf-triage: note MESSAGE                             anything else worth saying
Each line is one line: newlines and control characters in a message are replaced by spaces.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

PREFIX = "aiperf-triage:"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _one_line(text: str) -> str:
    return _CONTROL.sub(" ", str(text)).strip()


def _for_terminal(line: str, stream: TextIO) -> str:
    """On a terminal, `line` wrapped at words to its width (continuations indented), as the terminal
    would otherwise break it inside a word ("NVML Share" / "d Library"); into a pipe (the console
    parses these lines) it stays one line."""
    try:
        if not stream.isatty():
            return line
    except (AttributeError, ValueError, OSError):
        return line
    import shutil
    import textwrap
    width = shutil.get_terminal_size().columns
    if len(line) <= width or width < 20:
        return line
    return "\n".join(textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False,
                                    break_long_words=True))


class Emitter:
    """Writes the lines when `enabled` (aiperf-triage: on a terminal, or with --progress)."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None):
        self.enabled = enabled
        self.stream = stream
        self.start = time.monotonic()
        self._lock = threading.RLock()  # whole lines from collector threads; reentrant for signal handlers

    def _line(self, kind: str, text: str) -> None:
        if not self.enabled:
            return
        stream = self.stream or sys.stderr
        line = f"{PREFIX} {kind} {_one_line(text)}"
        try:
            with self._lock:
                stream.write(_for_terminal(line, stream) + "\n")
                stream.flush()
        except (OSError, ValueError):
            pass  # stderr closed: the archive matters more than the progress

    def phase(self, name: str) -> None:
        self._line("phase", name)

    def collector(self, record) -> None:
        error = f": {record.error}" if record.error else ""
        self._line("collector", f"{record.name} {record.status} {record.seconds:.1f} s{error}")

    def nsys(self, message: str) -> None:
        self._line("nsys", message)

    def coverage(self, text: str) -> None:
        self._line("coverage", text)

    def finding(self, finding) -> None:
        self._line("finding", f"{finding.severity} {finding.id}: {finding.title}")

    def archive(self, path: Path) -> None:
        self._line("archive", str(path))

    def say(self, message: str) -> None:
        self._line("note", f"[{time.monotonic() - self.start:5.1f}s] {message}")
