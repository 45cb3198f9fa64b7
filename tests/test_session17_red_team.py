"""Red team h17r (session 17) on main after session 16's merges: the cases it found that broke the contract
(exit 0, or exit 2 with one line; nothing from a file's data steers the terminal), each fixed outside the
redaction rules.

1. `aiperf-triage show` and `compare` let bidirectional marks (U+200E, U+200F, U+061C), the line and paragraph
   separators (U+2028, U+2029) and lone surrogates from a bundle reach the terminal, where aiperf-stats escapes
   the same characters (inputs.printable)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from aiperf_lab.inputs import printable
from aiperf_lab.triage import archive

FIXTURE = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"
MANIFEST = {"tool": "aiperf-triage", "schema_version": 1, "host": "node7", "start_utc": "2026-11-22T00:00:00"}
# Characters that reorder or break the line a terminal shows, which aiperf-stats escapes and show/compare printed raw.
MARKS = ["\u200e", "\u200f", "\u061c", "\u2028", "\u2029"]
# A JSON member can also hold a lone surrogate (summary.md is decoded with replacement, so show never sees one).
JSON_MARKS = [*MARKS, "\ud800", "\udfff"]


def _bundle(path: Path, members: dict[str, bytes]) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


@pytest.mark.parametrize("mark", MARKS, ids=[f"U+{ord(m):04X}" for m in MARKS])
def test_show_escapes_what_aiperf_stats_escapes(tmp_path, mark):
    assert printable(mark) != mark   # aiperf-stats never prints it raw
    summary = f"# node7\n\nfile: {mark}gnp.exe\n".encode("utf-8", "surrogatepass")
    shown = archive.show(_bundle(tmp_path / "b.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode(),
                                                         "b/summary.md": summary}))
    assert "gnp.exe" in shown and mark not in shown, ascii(shown)


@pytest.mark.parametrize("mark", JSON_MARKS, ids=[f"U+{ord(m):04X}" for m in JSON_MARKS])
def test_compare_escapes_what_aiperf_stats_escapes(tmp_path, mark):
    manifest = dict(MANIFEST, host=f"node{mark}7")
    # no summary.md: show falls back to the manifest's text
    path = _bundle(tmp_path / "b.tar.gz", {"b/manifest.json": json.dumps(manifest).encode()})
    labels, rows, _odd = archive.compare([path, FIXTURE])
    cells = [*labels, *(cell for row in rows for cell in row)]
    assert any("node" in cell for cell in cells)
    assert not any(mark in cell for cell in cells), [ascii(c) for c in cells if "node" in c]
    assert mark not in archive.show(path)
