"""Big Kineto traces for the benchmarks, made by repeating a real trace's events: each copy shifted in time
past the one before and given correlation ids of its own, so launches still pair with their kernels."""

from __future__ import annotations

CORRELATION_STRIDE = 10_000_000  # more than any real trace's correlation ids


def shifted_event(event: dict, copy: int, span: int) -> dict:
    """`event` as it stands in copy number `copy` of a trace whose events cover `span` microseconds."""
    shifted = dict(event)
    if isinstance(shifted.get("ts"), (int, float)):
        shifted["ts"] = shifted["ts"] + copy * span
    args = shifted.get("args")
    if isinstance(args, dict) and "correlation" in args:
        shifted["args"] = dict(args, correlation=args["correlation"] + copy * CORRELATION_STRIDE)
    return shifted
