"""Shared paths and helpers for the tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

TESTS = Path(__file__).parent
DATA = TESTS / "data"
H200 = DATA / "h200"
REPO = TESTS.parent
# Other people's real profiler files, read in place and never copied into the project.
CORPUS = REPO.parent / "shared" / "data" / "corpus"
SHARED_H200 = REPO.parent / "shared" / "data" / "h200"

sys.path.insert(0, str(TESTS))

# The suite draws one fixed set of Hypothesis examples, so a property that fails does so on every run and not on
# one run in ten (CI lands nothing when a test fails). HYPOTHESIS_PROFILE=explore draws new examples each run.
settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/data/corpus is not present")


def corpus_files(pattern: str) -> list[Path]:
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []


def python_calls(work) -> int:
    """How many Python function calls `work()` makes: a cost a loaded machine cannot blur, for tests that
    must show work per row or per entry stays small (never a timed test)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls
