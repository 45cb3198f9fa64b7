"""`show` and `compare` over hostile archives: every case is shown or refused in one line, never a
crash, and nothing they print carries a control character. A few hundred cases here; the long run
is benchmarks/fuzz_show_compare.py."""

from __future__ import annotations

import gzip
import io
import json
import random
import tarfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_fuzz import FIXTURE, check, fixture_members, mutate, _pack

MEMBERS = fixture_members()
PACKED = _pack([(m, d) for m, d in MEMBERS if m.isfile()])
COMPRESSED = FIXTURE.read_bytes()


def test_mutations_of_the_real_h200_bundle_are_shown_or_refused(tmp_path):
    rng = random.Random(11)
    outcomes = {"ok": 0, "refused": 0}
    for case in range(160):
        what, data = mutate(rng, MEMBERS, PACKED, COMPRESSED)
        path = tmp_path / f"case{case}.tar.gz"
        path.write_bytes(data)
        try:
            outcome, _ = check(path)
        except AssertionError as exc:
            raise AssertionError(f"case {case} ({what}): {exc}") from None
        outcomes[outcome] += 1
    assert outcomes["ok"] and outcomes["refused"]  # both paths were exercised


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                                    max_size=4),
                    max_leaves=20)
MEMBER = st.sampled_from(["hardware_capabilities.json", "findings.json", "telemetry_summary.json",
                          "topology/topology.json", "bench.json", "summary.md"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(manifest_extra=st.dictionaries(st.sampled_from(["host", "start_utc", "collectors", "files", "tool"]), JSON,
                                      max_size=3),
       documents=st.dictionaries(MEMBER, JSON, max_size=4))
def test_crafted_bundles_with_any_json_are_shown_or_refused(tmp_path, manifest_extra, documents):
    manifest = {"tool": "aiperf-triage", "schema_version": 1, "host": "h", "start_utc": "2026-11-22T00:00:00"}
    manifest.update(manifest_extra)
    members = [(tarfile.TarInfo("b/manifest.json"), json.dumps(manifest).encode())]
    members += [(tarfile.TarInfo(f"b/{name}"), json.dumps(doc).encode()) for name, doc in documents.items()]
    path = tmp_path / "crafted.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    check(path)
