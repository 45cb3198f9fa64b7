"""Ctrl-C and SIGTERM end a long SQL statement of an nsys report at once (Python runs a signal's handler
only between bytecodes, never while SQLite runs a statement), in the main thread and in the prefetch
threads it waits for."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from aiperf_lab.metrics.cli import _end_on_sigterm_as_on_ctrl_c
from aiperf_lab.metrics.nsys.db import NsysDatabase

LM = Path(__file__).parent / "data" / "h200" / "lm_forward.sqlite"
# Counts to 10^8: 10-60 s of SQLite (a real report's statement can run as long on a large export).
LONG_SQL = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000000) SELECT count(*) FROM n"
LIMIT_S = 2.0


def _interrupted_after(number: int, run) -> float:
    """Seconds `run` took to raise KeyboardInterrupt with `number` sent to this process 0.2 s in."""
    previous = _end_on_sigterm_as_on_ctrl_c()  # SIGTERM as aiperf-stats handles it
    timer = threading.Timer(0.2, os.kill, (os.getpid(), number))
    began = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
        return time.monotonic() - began
    finally:
        timer.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_main_threads_statement(number):
    db = NsysDatabase(LM)
    assert _interrupted_after(number, lambda: db.query(LONG_SQL)) < LIMIT_S
    assert db.query("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == [(582,)]  # the connection still reads
    db.close()


def test_a_signal_ends_the_wait_for_a_prefetch_and_its_statement():
    db = NsysDatabase(LM)
    before = threading.active_count()
    db.prefetch(LONG_SQL)
    assert _interrupted_after(signal.SIGINT, lambda: db.query(LONG_SQL)) < LIMIT_S
    began = time.monotonic()
    while threading.active_count() > before and time.monotonic() - began < LIMIT_S:
        time.sleep(0.01)
    assert threading.active_count() == before  # the prefetch thread's statement was ended too
    db.close()
