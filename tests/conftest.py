"""Shared paths and helpers for the tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
DATA = TESTS / "data"
H200 = DATA / "h200"
REPO = TESTS.parent
# Other people's real profiler files, read in place and never copied into the project.
CORPUS = REPO.parent / "shared" / "data" / "corpus"
SHARED_H200 = REPO.parent / "shared" / "data" / "h200"

sys.path.insert(0, str(TESTS))

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/data/corpus is not present")


def corpus_files(pattern: str) -> list[Path]:
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []
