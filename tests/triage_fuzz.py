"""Hostile archives for `aiperf-triage show` and `compare`, made from the real H200 bundle: byte
flips and cuts of the gzip, of the tar inside it, and bundles rebuilt with one member replaced by
crafted content (wrong-typed or deep JSON, control characters, odd member names). Used by the CI test
(a few hundred cases) and by benchmarks/fuzz_show_compare.py (thousands, with timings)."""

from __future__ import annotations

import gzip
import io
import json
import random
import re
import tarfile
import time
from pathlib import Path

from aiperf_lab.errors import InputError
from aiperf_lab.triage.archive import compare, show

FIXTURE = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

HOSTILE_TEXT = ["\x1b]52;c;ZXZpbA==\x07", "\x1b[2J\x1b[H", "[bold]x[/]", "[/]", "\u202etxt.exe", "\r\x08\x7f",
                "\ud800", "\x9b31m"]
HOSTILE_JSON = [
    "[1, 2]", "5", "null", '"text"', '{"nvml": {"gpus": 3}}', '{"nvml": [1]}', '[{"x": 1}, 5, null]',
    '{"matrix": {"rows": [1, 2]}}', '{"matrix": {"rows": {"GPU0": [1]}}}', '{"devices": 3}', '{"devices": [1, "a"]}',
    "[" * 50_000 + "]" * 50_000, '{"a": ' * 5000 + "1" + "}" * 5000, "1e400", "9" * 5000, "NaN", "-Infinity",
    '{"nvml": {"gpus": [{"name": {"a": 1}, "nvlinks": 5}]}}',
    '{"tables": {"bench_gpus": 5, "bench_host_links": "x", "bench_pairs": [{"gb_s": "a"}], '
    '"bench_nccl": [1, {"op": "all_reduce", "bytes": 1024, "busbw_gb_s": [1]}]}}', '{"tables": [1]}', '[{"id": [1]}, {"id": null}, {"id": "x\\u001b[2J"}]',
]
MEMBER_NAMES = [".", "./", "", "./x", "b/./manifest.json", "b//manifest.json", "b/\nname", "b/\x1b[2Jname",
                "b/" + "n" * 300, "b/\u202ename"]


def fixture_members() -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(FIXTURE, "r:gz") as tar:
        return [(m, tar.extractfile(m).read() if m.isfile() else b"") for m in tar.getmembers()]


def _pack(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            info = tarfile.TarInfo(info.name) if not isinstance(info, tarfile.TarInfo) else info
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def _flip(data: bytes, rng: random.Random, count: int) -> bytes:
    buffer = bytearray(data)
    for _ in range(count):
        at = rng.randrange(len(buffer))
        buffer[at] = rng.randrange(256)
    return bytes(buffer)


def mutate(rng: random.Random, members: list[tuple[tarfile.TarInfo, bytes]], packed: bytes,
           compressed: bytes) -> tuple[str, bytes]:
    """One hostile archive: (what was done, its bytes)."""
    kind = rng.randrange(7)
    if kind == 0:
        return "gzip bytes flipped", _flip(compressed, rng, rng.randint(1, 8))
    if kind == 1:
        return "gzip cut", compressed[:rng.randrange(len(compressed))]
    if kind == 2:
        return "tar bytes flipped", gzip.compress(_flip(packed, rng, rng.randint(1, 16)), 1)
    if kind == 3:
        return "tar cut", gzip.compress(packed[:rng.randrange(len(packed))], 1)
    top = members[0][0].name.split("/")[0]
    rebuilt = [(tarfile.TarInfo(info.name), data) for info, data in members if info.isfile()]
    if kind == 4:  # a member the readers use gets hostile JSON
        target = rng.choice(["manifest.json", "hardware_capabilities.json", "findings.json", "telemetry_summary.json",
                             "topology/topology.json", "bench.json"])
        document = rng.choice(HOSTILE_JSON)
        if target == "manifest.json":
            manifest = json.loads(dict((i.name, d) for i, d in rebuilt)[f"{top}/manifest.json"])
            key = rng.choice(["host", "start_utc", "collectors", "files"])
            try:
                manifest[key] = json.loads(document)
            except (ValueError, RecursionError):
                manifest[key] = document
            try:
                document = json.dumps(manifest)
            except (ValueError, RecursionError):
                document = "{}"
        rebuilt = [(i, document.encode("utf-8", "surrogatepass") if i.name == f"{top}/{target}" else d)
                   for i, d in rebuilt]
        return f"{target} = hostile JSON", gzip.compress(_pack(rebuilt), 1)
    if kind == 5:  # terminal escapes and markup in what show and compare print
        text = "".join(rng.choice(HOSTILE_TEXT) for _ in range(4))
        rebuilt = [(i, (text + d.decode("utf-8", "replace") + text).encode("utf-8", "surrogatepass")
                    if i.name.endswith(("summary.md", "hardware_capabilities.json")) else d) for i, d in rebuilt]
        manifest_name = f"{top}/manifest.json"
        rebuilt = [(i, json.dumps(dict(json.loads(d), host=text)).encode() if i.name == manifest_name else d)
                   for i, d in rebuilt]
        return "escape sequences", gzip.compress(_pack(rebuilt), 1)
    name = rng.choice(MEMBER_NAMES)
    extra = tarfile.TarInfo(name)
    if rng.random() < 0.5:
        extra.type = tarfile.DIRTYPE
        return f"member {name!r} (folder)", gzip.compress(_pack([(extra, b"")] + rebuilt), 1)
    return f"member {name!r}", gzip.compress(_pack(rebuilt + [(extra, b"x")]), 1)


def check(path: Path, other: Path = FIXTURE) -> tuple[str, float]:
    """Run show and compare on path; return ("ok" | "refused", seconds). Anything else (another
    exception, a control character in the output) raises AssertionError with the cause."""
    start = time.perf_counter()
    outcome = "ok"
    for run in (lambda: show(path), lambda: compare([path, other])):
        try:
            result = run()
        except InputError as exc:
            message = str(exc)
            assert "\n" not in message and not UNSAFE.search(message), repr(message)
            outcome = "refused"
            continue
        except Exception as exc:  # noqa: BLE001 - the point is to see any
            raise AssertionError(f"{type(exc).__name__}: {exc}") from exc
        if isinstance(result, str):
            text = result
        else:
            labels, rows, _odd = result
            text = "".join(labels) + "".join(cell for row in rows for cell in row)
            assert all("\n" not in cell for cell in [*labels, *(c for row in rows for c in row)]), "a cell of two lines"
        assert not UNSAFE.search(text.replace("\n", "").replace("\t", "")), "control character reached the output"
    return outcome, time.perf_counter() - start
