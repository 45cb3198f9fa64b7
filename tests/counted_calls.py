"""A stand-in for a compiled pattern or a function that counts the calls made on it, for tests that count the work a
rule does (a call per distinct line or value, not per match) instead of timing it; and python_lines_run, which counts
the Python lines a call runs (sys.settrace)."""

from __future__ import annotations

import sys


class Counted:
    """Stands in for a compiled pattern or a function and counts the calls made on it."""

    def __init__(self, target, method=None):
        self.target, self.method, self.calls = target, method, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.target(*args, **kwargs)

    def __getattr__(self, name):
        attribute = getattr(self.target, name)
        if name != self.method:
            return attribute

        def counted(*args, **kwargs):
            self.calls += 1
            return attribute(*args, **kwargs)
        return counted


def python_lines_run(function, *args):
    """function(*args) and how many Python lines ran in it and what it called (sys.settrace's line events)."""
    lines = 0

    def trace(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return trace

    sys.settrace(trace)
    try:
        result = function(*args)
    finally:
        sys.settrace(None)
    return result, lines
