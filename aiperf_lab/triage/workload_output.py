"""A workload's stdout and stderr, redacted as they stream: raw output never touches the disk.

Each stream is read from its pipe by a thread, redacted piece by piece (StreamRedactor: pieces end
at a newline, a line longer than 1 MiB is cut where no secret crosses the cut) and appended to
segment files. Only the last `cap_bytes` are kept: old segments are deleted as new ones fill, and
finish() joins what is left into the log, starting at a line. Since everything on disk is already
redacted, cutting the head off can no longer leave a key's body without its BEGIN line.

Reading and redacting are two threads with a bounded queue in memory between them (SPOOL_BYTES,
never on disk: the raw output holds secrets): a workload that writes faster than redaction runs for a
while is not slowed by its pipe filling up, and redaction takes everything queued at once, so a
workload that flushes line by line costs one redaction call per batch, not one per line.

A full disk never costs more than the log: when the disk fills (or would eat into the room kept for
the rest of the bundle, disk.DiskRoom), writing stops, what was written stays, the pipe is still
read (the workload is not blocked) and the log ends with a note that the disk cut it.
"""

from __future__ import annotations

import codecs
import collections
import errno
import os
import select
import threading
import time
from pathlib import Path
from typing import BinaryIO

from aiperf_lab.triage.disk import DiskRoom, full_disk
from aiperf_lab.triage.redact import Redactor, StreamRedactor

READ_BYTES = 1 << 16
TAIL_CHARS = 1 << 16
SPOOL_BYTES = 64 << 20    # raw output waiting for redaction, in memory; past it the reader waits
BATCH_BYTES = 1 << 20     # the most taken from the queue at once
# A batch is fed to the redactor in pieces of this size, and an abandon is heeded between them: a text that is slow
# to redact (seconds per MB) must not keep the redactor busy long after finish() gave up on it.
FEED_BYTES = 1 << 16
GRACE_AFTER_STOP_S = 1.0  # after an interrupt, how long finish() still lets the redactor catch up
REDACT_WAIT_S = 30.0      # after the pipe ended, how long finish() lets the redactor work through a backlog
ABANDON_WAIT_S = 5.0      # after finish() gave up on a backlog, how long it waits for the redactor to stop
# The stream cuts its pieces every 64 KiB of text (StreamRedactor); a workload printing a line now and then would
# show nothing for minutes, and triage reads nsys's phase from what was shown. When the redactor is idle, or this
# long after its last flush, it lets out every whole line the hold rules allow: at most 10 extra cuts a second.
FLUSH_EVERY_S = 0.1


class RedactedLog:
    def __init__(self, path: Path, redactor: Redactor, cap_bytes: int, room: DiskRoom | None = None):
        self.path = path
        self._room = room
        self.cut_by_full_disk = False   # writing stopped because the disk was full: what fit is kept
        self.received_bytes = 0         # what the workload wrote to the pipe
        self.kept_bytes = 0             # the final log's size, once finish() wrote it
        self.cap_bytes = cap_bytes
        self.segment_bytes = max(cap_bytes // 4, 1)
        self._redactor = redactor
        self._stream = StreamRedactor(redactor)
        self.failed_bytes = 0           # output left out where redaction raised (a bug): said in the log, never raw
        self.failed_because = ""
        self._segments: list[Path] = []
        self._handle: BinaryIO | None = None
        self._written_in_segment = 0
        self._total = 0
        self._dropped = 0
        self._next_index = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._redactor_thread: threading.Thread | None = None
        self._queue: collections.deque[bytes] = collections.deque()
        self._queued = 0
        self._ended = False
        self._queue_ready = threading.Condition()
        self._abandon = threading.Event()   # stop redacting: what is still queued is dropped
        self.abandoned_bytes = 0
        self._fed_bytes = 0             # raw bytes fed to the stream whose output was written
        self._held_text = ""            # of those, what the stream held back (not written yet) after that write
        self._write_lock = threading.Lock()
        self._closed = False            # finish() gave up on the redactor: it writes nothing more
        self.abandoned_because = "not redacted in time"
        self.error: str | None = None
        self._tail: collections.deque[str] = collections.deque()
        self._tail_chars = 0
        self._tail_lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")

    def attach(self, pipe: BinaryIO) -> None:
        """Start pumping a pipe (a Popen's stdout or stderr) into this log."""
        self._redactor_thread = threading.Thread(target=self._redact_queued, name=f"redact-{self.path.name}", daemon=True)
        self._redactor_thread.start()
        self._thread = threading.Thread(target=self._pump, args=(pipe,), name=f"log-{self.path.name}", daemon=True)
        self._thread.start()

    def _pump(self, pipe: BinaryIO) -> None:
        """Read the pipe into the queue until it ends (or stop); past SPOOL_BYTES queued, wait for the redactor."""
        fd = pipe.fileno()
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([fd], [], [], 0.2)
                if not ready:
                    continue
                chunk = os.read(fd, READ_BYTES)
                if not chunk:
                    break
                self.received_bytes += len(chunk)
                with self._queue_ready:
                    while (self._queued >= SPOOL_BYTES and not self._stop.is_set() and self.error is None
                           and not self._abandon.is_set()):
                        self._queue_ready.wait(0.2)
                    if self.error is None:  # after a write failed the output is dropped, the pipe still read
                        self._queue.append(chunk)
                        self._queued += len(chunk)
                    self._queue_ready.notify_all()
        except (OSError, ValueError) as exc:
            self._record(exc)
        finally:
            with self._queue_ready:
                self._ended = True
                self._queue_ready.notify_all()
            try:
                pipe.close()
            except OSError:
                pass

    def _redact_queued(self) -> None:
        """Redact and write what the reader queued, everything waiting at once, until the pipe ended and
        the queue is empty (or abandoned: what is still queued is dropped, never written raw)."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        flushed_at = time.monotonic()
        waiting = False   # whether the stream may hold whole lines since the last flush
        try:
            while True:
                with self._queue_ready:
                    while not self._queue and not self._ended and not self._abandon.is_set():
                        if waiting and time.monotonic() - flushed_at >= FLUSH_EVERY_S:
                            break
                        self._queue_ready.wait(FLUSH_EVERY_S)
                    if self._abandon.is_set() or (not self._queue and self._ended):
                        break
                    batch = []
                    size = 0
                    while self._queue and size < BATCH_BYTES:
                        batch.append(self._queue.popleft())
                        size += len(batch[-1])
                    self._queued -= size
                    self._queue_ready.notify_all()
                if self.error is not None:   # (the reader drops the rest)
                    waiting = False
                    continue
                if batch:
                    raw = b"".join(batch)
                    for start in range(0, len(raw), FEED_BYTES):
                        piece = raw[start:start + FEED_BYTES]
                        if self._abandon.is_set() or not self._write_fed(
                                self._redacted(self._stream.feed, decoder.decode(piece)), len(piece)):
                            break
                    waiting = True
                else:   # idle a while with lines held for the next cut: let out what the hold rules allow
                    self._write_fed(self._redacted(self._stream.flush), 0)
                    flushed_at, waiting = time.monotonic(), False
            if self.error is None and not self._abandon.is_set():
                self._write_fed(self._redacted(self._stream.feed, decoder.decode(b"", final=True))
                                + self._redacted(self._stream.close), 0)
        except (OSError, ValueError) as exc:  # a full disk: recorded, the workload goes on (the reader drops the rest)
            self._record(exc)
            self.cut_by_full_disk = self.cut_by_full_disk or full_disk(exc)
        finally:
            with self._queue_ready:
                self._queue.clear()
                self._queued = 0
                self._queue_ready.notify_all()
            with self._write_lock:
                self._close_segment()

    def _redacted(self, step, *text: str) -> str:
        """One step of the stream (feed, flush or close). Should redaction raise (a bug: no input is known to make it),
        what the stream held and was given is left out, never written raw, and a one-line note stands in its place;
        a fresh stream goes on with the rest of the output instead of the whole log ending there."""
        held = self._stream.held_text
        try:
            return step(*text)
        except Exception as exc:
            self._stream = StreamRedactor(self._redactor)
            size = len((held + "".join(text)).encode("utf-8", "replace"))
            self.failed_bytes += size
            self.failed_because = type(exc).__name__   # (its message could quote the text)
            return f"\n[{size} bytes left out here: redaction failed ({self.failed_because})]\n"

    def _write_fed(self, text: str, raw_bytes: int) -> bool:
        """Write the redacted text of raw_bytes of output, unless finish() already gave up on the redactor."""
        with self._write_lock:
            if self._closed:
                return False
            self._write(text)
            self._fed_bytes += raw_bytes
            self._held_text = self._stream.held_text   # (a reference: measured once, in finish())
            return True

    def _record(self, exc: Exception) -> None:
        if self.error is None:
            self.error = f"{type(exc).__name__}: {exc}"
        if full_disk(exc):
            self.cut_by_full_disk = True

    def tail(self) -> str:
        """The last redacted output (up to 64 Ki characters), for watching the workload while it runs."""
        with self._tail_lock:
            return "".join(self._tail)[-TAIL_CHARS:]

    def _write(self, text: str) -> None:
        if not text:
            return
        with self._tail_lock:
            self._tail.append(text[-TAIL_CHARS:])
            self._tail_chars += len(self._tail[-1])
            while self._tail_chars - len(self._tail[0]) >= TAIL_CHARS:
                self._tail_chars -= len(self._tail.popleft())
        data = text.encode("utf-8", "replace")
        while data:
            if self._handle is None or self._written_in_segment >= self.segment_bytes:
                self._next_segment()
            assert self._handle is not None
            room = self.segment_bytes - self._written_in_segment
            # segments end at a line where one is near, so the kept tail starts at a line
            piece = data[:room] if len(data) <= room else data[:(data.rfind(b"\n", 0, room) + 1) or room]
            fits = self._room.fits(len(piece)) if self._room is not None else len(piece)
            if fits < len(piece):   # what fits is kept (already redacted: any cut is safe), then writing stops
                self._handle.write(piece[:fits])
                self._total += fits
                raise OSError(errno.ENOSPC, "the disk is nearly full; the rest is kept for the bundle")
            self._handle.write(piece)
            self._written_in_segment += len(piece)
            self._total += len(piece)
            data = data[len(piece):]

    def _next_segment(self) -> None:
        self._close_segment()
        segment = self.path.with_name(f".{self.path.name}.{self._next_index}.seg")
        self._next_index += 1
        self._handle = open(segment, "wb")
        self._segments.append(segment)
        self._written_in_segment = 0
        # keep just enough whole segments behind the current one to hold cap_bytes
        while len(self._segments) > 1 and self._total - self._dropped - self._size(self._segments[0]) >= self.cap_bytes:
            oldest = self._segments.pop(0)
            self._dropped += self._size(oldest)
            oldest.unlink(missing_ok=True)

    @staticmethod
    def _size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return 0

    def _close_segment(self) -> None:
        """Close the segment being written; a flush that fails (ENOSPC) is recorded, never raised: this
        runs in the pump thread, where an exception would print a traceback."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                handle.close()
            except OSError as exc:
                self._record(exc)

    def drain(self, timeout_s: float = 2.0) -> None:
        """Wait (up to timeout_s) until everything the pipe held is read and redacted, after the writer exited."""
        deadline = time.monotonic() + timeout_s
        for thread in (self._thread, self._redactor_thread):
            if thread is not None:
                thread.join(max(0.0, deadline - time.monotonic()))

    def finish(self, timeout_s: float = 5.0, redact_s: float | None = None, stop: threading.Event | None = None) -> None:
        """Wait for the pipe to end (the workload group is gone by now) and for what it held to be redacted
        (redact_s more at most, REDACT_WAIT_S by default: what is not redacted by then is left out and said), then
        write the log: its last cap_bytes, from the start of a line, after a note of what was left out. Once `stop` is set (an
        interrupt), the waits end GRACE_AFTER_STOP_S later and what is still queued is left out: Ctrl-C
        must not wait for a backlog of output. Never raises: a disk that fills while the log is joined
        keeps what was joined (the log is marked cut)."""
        if self._thread is not None:
            _join(self._thread, timeout_s, stop)
            if self._thread.is_alive():  # something the workload started still holds the pipe
                self._stop.set()
                self._thread.join(2.0)
        if self._redactor_thread is not None:
            _join(self._redactor_thread, REDACT_WAIT_S if redact_s is None else redact_s, stop)
            if self._redactor_thread.is_alive():
                if stop is not None and stop.is_set():
                    self.abandoned_because = "interrupted before they were redacted"
                self._abandon.set()
                self._redactor_thread.join(ABANDON_WAIT_S)
        with self._write_lock:   # a redactor still inside one piece writes nothing after this
            self._closed = True
            self._close_segment()   # (the redactor's own close comes after its piece: flush what it wrote)
            # what was received and never written redacted, wherever it was (queued, in a batch, held by the
            # stream for its next cut): counted here, so the note says it even when the redactor has not stopped
            if not self.cut_by_full_disk:
                held = len(self._held_text.encode("utf-8", "replace"))
                self.abandoned_bytes = max(0, self.received_bytes - self._fed_bytes + held)
                if self.abandoned_bytes and self.error is not None:
                    self.abandoned_because = f"not written ({self.error})"
        try:
            self._join_segments()
        except (OSError, ValueError) as exc:
            self._record(exc)
        finally:
            for segment in self._segments:
                segment.unlink(missing_ok=True)
            self._segments = []
        notes = []
        if self.abandoned_bytes:
            notes.append(f"[last {self.abandoned_bytes} bytes left out: {self.abandoned_because}]")
        if self.cut_by_full_disk:
            notes.append(f"[cut here: the disk was full; {self.received_bytes} bytes of output were received, "
                         "what follows this point is not kept]")
        if notes:
            try:
                with open(self.path, "ab") as out:
                    out.write(("\n" + "\n".join(notes) + "\n").encode())
            except OSError as exc:
                self._record(exc)
        try:
            self.kept_bytes = self.path.stat().st_size
        except OSError:
            self.kept_bytes = 0

    def _join_segments(self) -> None:
        """The kept segments into the log, each removed as soon as it is copied (a full disk needs room
        for one segment more, not for the whole log twice); the first one is renamed when it is kept whole."""
        kept = self._total - self._dropped
        skip = max(kept - self.cap_bytes, 0)
        left_out = self._dropped + skip
        segments = self._segments
        if not left_out and segments:
            os.replace(segments[0], self.path)
            segments.pop(0)
            mode = "ab"
        else:
            mode = "wb"
        with open(self.path, mode) as out:
            if left_out:
                out.write(f"[first {left_out} bytes left out; the last {kept - skip} follow]\n".encode())
            while segments:
                segment = segments[0]
                with open(segment, "rb") as handle:
                    size = self._size(segment)
                    if skip >= size:
                        skip -= size
                    else:
                        if skip:
                            handle.seek(skip)
                            skip = 0
                            handle.readline(READ_BYTES)  # start at a line (when one is near)
                        while chunk := handle.read(READ_BYTES):
                            out.write(chunk)
                segment.unlink(missing_ok=True)
                segments.pop(0)


def _join(thread: threading.Thread, seconds: float, stop: threading.Event | None) -> None:
    """thread.join(seconds), cut to GRACE_AFTER_STOP_S from when `stop` is seen set."""
    deadline = time.monotonic() + seconds
    while thread.is_alive():
        now = time.monotonic()
        if stop is not None and stop.is_set():
            deadline = min(deadline, now + GRACE_AFTER_STOP_S)
            stop = None
        if now >= deadline:
            return
        thread.join(min(0.1, deadline - now))
