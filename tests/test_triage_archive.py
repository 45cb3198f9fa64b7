"""show/compare against the hostile archives of issue 11: bombs, FIFOs, odd member names, wrong-typed
JSON, escape sequences. Each is shown or refused in one line within seconds."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from conftest import REPO, python_calls
from fuzz_cases import bundle_of_empty_members

from aiperf_lab.errors import InputError
from aiperf_lab import safe_tar
from aiperf_lab.triage import archive

FIXTURE = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"
MANIFEST = {"tool": "aiperf-triage", "schema_version": 1, "host": "node7", "start_utc": "2026-11-22T00:00:00"}


def triage(*args, timeout=30):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, timeout=timeout)


def bundle(path: Path, members: dict[str, bytes | None]) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


def test_members_named_dot_and_dot_slash_are_the_folder_it_was_made_in(tmp_path):
    path = bundle(tmp_path / "dots.tar.gz", {".": None, "./": None, "./b/manifest.json": json.dumps(MANIFEST).encode(),
                                             "./b/summary.md": b"# node7\n"})
    assert archive.show(path) == "# node7\n"
    empty = bundle(tmp_path / "empty.tar.gz", {"": b"x", "b/manifest.json": json.dumps(MANIFEST).encode()})
    with pytest.raises(InputError, match="unsafe member name ''"):
        archive.show(empty)


@pytest.mark.parametrize("documents", [
    {"hardware_capabilities.json": [1, 2]},
    {"hardware_capabilities.json": {"nvml": {"gpus": 3}}},
    {"findings.json": [{"severity": "warning"}, 5, {"id": None}]},
    {"topology/topology.json": {"matrix": {"rows": [1, 2]}}},
    {"telemetry_summary.json": {"devices": 3}},
])
def test_wrong_typed_json_inside_a_bundle_is_shown_as_unknown(tmp_path, documents):
    members = {"b/manifest.json": json.dumps(dict(MANIFEST, start_utc=5)).encode()}
    members.update({f"b/{name}": json.dumps(doc).encode() for name, doc in documents.items()})
    labels, rows, _odd = archive.compare([bundle(tmp_path / "odd.tar.gz", members), FIXTURE])
    assert labels[0] == "node7 5"
    assert dict((r[0], r[1]) for r in rows)["GPU count"] == "0"


def test_a_100k_deep_manifest_is_refused_in_one_line(tmp_path):
    path = bundle(tmp_path / "deep.tar.gz", {"b/manifest.json": b"[" * 100_000 + b"]" * 100_000})
    done = triage("show", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not aiperf-triage's" in done.stderr


def test_escape_sequences_and_markup_never_reach_the_terminal(tmp_path):
    osc52, clear = "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J"
    members = {"b/manifest.json": json.dumps(dict(MANIFEST, host=f"evil{osc52}")).encode(),
               "b/summary.md": f"# hi {clear}{osc52} [bold]x[/]\n".encode(),
               "b/hardware_capabilities.json": json.dumps({"nvml": {"gpus": [{"name": f"H200{clear}\nX"}]}}).encode()}
    path = bundle(tmp_path / "escapes.tar.gz", members)
    for args in (["show", path], ["compare", path, FIXTURE]):
        done = triage(*args)
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    shown = triage("show", path).stdout
    assert "[bold]x[/]" in shown and "\\x1b[2J" in shown  # shown as text, escaped, never interpreted


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "bundle.tar.gz"
    os.mkfifo(fifo)
    start = time.monotonic()
    done = triage("show", fifo, timeout=20)
    assert done.returncode == 2 and "not a regular file" in done.stderr and time.monotonic() - start < 15


def test_a_gzip_bomb_is_refused_by_its_declared_size_and_by_what_it_unpacks(tmp_path, monkeypatch):
    header = tarfile.TarInfo("b/big")
    header.size = 64 * 1024 * 1024
    data = header.tobuf() + b"\0" * header.size
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(gzip.compress(data, 9))
    monkeypatch.setattr(safe_tar, "UNPACKED_BASE_BYTES", 1024 * 1024)
    monkeypatch.setattr(safe_tar, "UNPACKED_RATIO", 10)
    with pytest.raises(InputError, match="declares .* bytes unpacked"):
        archive.show(bomb)
    lying = bytearray(bomb.read_bytes())
    lying[-4:] = (1000).to_bytes(4, "little")  # the trailer says 1000 bytes: the member's header still says
    bomb.write_bytes(bytes(lying))
    with pytest.raises(InputError, match="member b/big declares 67108864 bytes, more than the archive may unpack"):
        archive.show(bomb)
    members = b""  # members each within the bound, together past it: unpacking stops there
    for n in range(4):
        header = tarfile.TarInfo(f"b/part{n}")
        header.size = 1024 * 1024
        members += header.tobuf() + b"\0" * header.size
    bomb.write_bytes(gzip.compress(members, 9))
    lying = bytearray(bomb.read_bytes())
    lying[-4:] = (1000).to_bytes(4, "little")
    bomb.write_bytes(bytes(lying))
    with pytest.raises(InputError, match="unpacks to more than"):
        archive.show(bomb)


def test_a_bundle_of_ten_thousand_empty_members_is_refused_before_it_costs_seconds(tmp_path):
    # A real bundle has about 30 members; 100,000 empty ones (a 1 MB file) took show 12 s to list.
    assert safe_tar.MAX_MEMBERS <= 10_000
    many = bundle_of_empty_members(tmp_path / "many.tar.gz", safe_tar.MAX_MEMBERS + 1, MANIFEST)
    with pytest.raises(InputError, match=f"more than {safe_tar.MAX_MEMBERS} members"):
        archive.show(many)
    from aiperf_lab.metrics.sources import open_profile
    with pytest.raises(InputError, match=f"more than {safe_tar.MAX_MEMBERS} members"):
        open_profile(many)
    assert archive.show(bundle_of_empty_members(tmp_path / "fits.tar.gz", 200, MANIFEST)).startswith("# node7")


def test_the_tar_stream_buffer_is_small_so_each_member_header_costs_no_big_copy(tmp_path):
    # tarfile's stream reader copies the rest of its buffer after each 512-byte header: a 1 MiB
    # buffer made every member cost a 1 MiB copy.
    with safe_tar.streamed(FIXTURE, "fixture") as (tar, members):
        assert tar.fileobj.bufsize <= 64 * 1024
        assert sum(1 for _ in members) > 20




def test_compare_does_per_gpu_entry_no_python_call_per_field(tmp_path):
    # A 180 KB bundle listing 60,000 GPUs cost compare 2.5 s per copy: every per-GPU field re-filtered
    # the GPU list and ran a generator and a helper per GPU. The work per GPU entry is now a few
    # comprehension steps, counted here as Python calls (a time would depend on the machine).
    def gpus(count: int) -> Path:
        gpu = {"name": "NVIDIA H200", "power_limit_enforced_w": 700, "pcie_gen_current": 5, "pcie_width_current": 16,
               "nvlinks": [{"active": True}] * 18, "persistence_mode": "Enabled"}
        hw = {"nvml": {"gpus": [dict(gpu, max_sm_clock_mhz=1980 + (i == count - 1)) for i in range(count)]}}
        return bundle(tmp_path / f"gpus{count}.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode(),
                                                         "b/hardware_capabilities.json": json.dumps(hw).encode()})
    small, big = gpus(8), gpus(2008)
    extra = python_calls(lambda: archive.compare([big, big])) - python_calls(lambda: archive.compare([small, small]))
    assert extra < 2 * 2000 * 2  # at most 2 calls per GPU entry in all fields together
    labels, rows, odd = archive.compare([big, gpus(2008), small])
    row = dict((r[0], (r[1:], o)) for r, o in zip(rows, odd))
    assert row["GPU count"][0] == ["2008", "2008", "8"]
    assert row["NVLinks active"][0] == ["18", "18", "18"] and row["NVLinks active"][1] == set()  # 18 on every GPU
    assert row["max SM clock (MHz)"][0][0].startswith("1980,1980,") and len(row["max SM clock (MHz)"][0][0]) == 200
    # whole values are compared: the last of 2,008 GPUs differs from the first 8 (past what is shown)
    assert row["max SM clock (MHz)"][1] == {2}


def test_a_manifest_over_16_mib_is_refused_as_too_large(tmp_path):
    manifest = json.dumps(dict(MANIFEST, collectors=["x" * 1000] * 17_000)).encode()
    assert len(manifest) > archive.MAX_MEMBER_BYTES
    done = triage("show", bundle(tmp_path / "huge.tar.gz", {"b/manifest.json": manifest}))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "manifest.json is" in done.stderr and "more than the 16 MiB" in done.stderr, done.stderr


def test_a_member_too_large_to_read_is_said_in_compare_never_shown_as_zero_gpus(tmp_path):
    # 60,000 full GPU entries make hardware_capabilities.json 60 MB: compare used to show "GPU count 0".
    gpu = {"name": "NVIDIA H200", "pad": "x" * 1000}
    hw = json.dumps({"nvml": {"gpus": [gpu] * 17_000}}).encode()
    assert len(hw) > archive.MAX_MEMBER_BYTES
    big = bundle(tmp_path / "big.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode(),
                                           "b/hardware_capabilities.json": hw})
    _labels, rows, odd = archive.compare([big, FIXTURE])
    row = dict((r[0], (r[1:], o)) for r, o in zip(rows, odd))
    assert row["GPU count"][0][0] == "not read: hardware_capabilities.json is over 16 MiB"
    assert row["GPU model"][0][0] == row["driver"][0][0] == row["GPU count"][0][0]
    assert row["GPU count"][0][1] == "1" and row["GPU count"][1] == {0, 1}
    assert row["findings"][0][0] == "none"  # other members are still read


def test_a_summary_of_16_mib_of_escapes_is_shown_cut_and_escaped_at_once(tmp_path):
    members = {"b/manifest.json": json.dumps(MANIFEST).encode(), "b/summary.md": b"\x1b" * (16 * 1024 * 1024 - 1)}
    shown = archive.show(bundle(tmp_path / "esc.tar.gz", members))
    assert "\x1b" not in shown and shown.startswith("\\x1b\\x1b")
    assert len(shown) < 5 * archive.MAX_SHOWN_SUMMARY_CHARS
    assert shown.rstrip().endswith(f"(summary.md holds {16 * 1024 * 1024 - 1} characters; the first "
                                   f"{archive.MAX_SHOWN_SUMMARY_CHARS} are shown: unpack the bundle to read it whole)")
    assert archive.terminal_safe("a\x1b[2Jb\u202ec\nd\te", single_line=True) == "a\\x1b[2Jb\\u202ec\\nd\\te"
    assert archive.terminal_safe("a\x9bb\nc") == "a\\x9bb\nc"


def test_a_member_declaring_more_than_the_archive_may_unpack_to_is_refused_before_skipping_it(tmp_path):
    """A PAX size of 10^20 on summary.md: tarfile would skip that far past the stream's end, one empty read
    at a time (show and compare hung)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        data = json.dumps(MANIFEST).encode()
        info = tarfile.TarInfo("b/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("b/summary.md")
        info.pax_headers = {"size": "99999999999999999999"}
        tar.addfile(info, io.BytesIO(b""))
    path = tmp_path / "pax.tar.gz"
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    for args in (["show", path], ["compare", FIXTURE, path]):
        done = triage(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "summary.md declares 99999999999999999999 bytes, more than the archive may unpack to" in done.stderr


def test_show_of_an_older_gpu_less_bundle_does_not_read_no_rule_fired_as_healthy(tmp_path):
    # Bundles written before the summary said so hold "No rule fired." though no GPU rule could run.
    hw = {"nvml": {"status": "no NVIDIA driver: NVML Shared Library Not Found", "gpus": []}}
    old = bundle(tmp_path / "old.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode(),
                                           "b/hardware_capabilities.json": json.dumps(hw).encode(),
                                           "b/summary.md": b"# aiperf-triage: node7\n\n## Findings\n\nNo rule fired.\n"})
    shown = archive.show(old)
    assert "No rule fired" not in shown
    assert "No GPU rule could judge this machine: no NVIDIA driver: NVML Shared Library Not Found." in shown
    assert "No rule fired." in archive.show(FIXTURE)  # a bundle with its GPU keeps it


def _bundle_with(path: Path, hostile: tarfile.TarInfo, data: bytes = b"x") -> Path:
    """A bundle aiperf-stats reads (a manifest and a short telemetry.csv) with one more member."""
    telemetry = "\n".join((Path(__file__).parent / "data" / "h100" / "energy_04ex03_stall_telemetry.csv")
                          .read_text(encoding="utf-8").splitlines()[:400]).encode() + b"\n"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, payload in (("b/manifest.json", json.dumps(MANIFEST).encode()), ("b/telemetry.csv", telemetry)):
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
        if hostile.isfile():
            hostile.size = len(data)
            tar.addfile(hostile, io.BytesIO(data))
        else:
            tar.addfile(hostile)
    path.write_bytes(gzip.compress(raw.getvalue(), 1))
    return path


def _symlink(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, "/etc/shadow"
    return info


@pytest.mark.parametrize("hostile, fragment", [
    (tarfile.TarInfo("b/../../evil"), "unsafe member name 'b/../../evil'"),
    (_symlink("b/summary.md"), "member 'b/summary.md' is a link or device"),
    (_symlink("b/notes.txt"), "member 'b/notes.txt' is a link or device"),
])
def test_aiperf_stats_and_show_refuse_the_same_bundles_in_the_same_words(tmp_path, hostile, fragment):
    from fuzz_cases import run_stats
    path = _bundle_with(tmp_path / "hostile.tar.gz", hostile)
    stats = run_stats([path, "--report", "telemetry_summary"])
    assert stats.code == 2 and stats.err.count("\n") == 1 and fragment in stats.err, stats.err
    with pytest.raises(InputError, match="refused: ") as caught:
        archive.show(path)
    assert fragment in str(caught.value)
    clean = _bundle_with(tmp_path / "clean.tar.gz", tarfile.TarInfo("b/summary.md"), b"# node7\n")
    assert run_stats([clean, "--report", "telemetry_summary"]).code == 0 and archive.show(clean) == "# node7\n"


def test_a_bundle_from_a_newer_version_is_shown_with_one_line_saying_so(tmp_path):
    newer = bundle(tmp_path / "newer.tar.gz", {"b/manifest.json": json.dumps({**MANIFEST, "schema_version": 999})
                                               .encode(), "b/summary.md": b"# node7\n"})
    notes = []
    assert archive.show(newer, warn=notes.append) == "# node7\n"
    assert len(notes) == 1 and "newer aiperf-triage (bundle schema 999; this one reads schema 1)" in notes[0]
    current = bundle(tmp_path / "current.tar.gz", {"b/manifest.json": json.dumps(MANIFEST).encode()})
    unversioned = bundle(tmp_path / "old.tar.gz", {"b/manifest.json": json.dumps(
        {k: v for k, v in MANIFEST.items() if k != "schema_version"}).encode()})
    odd = bundle(tmp_path / "odd.tar.gz", {"b/manifest.json": json.dumps({**MANIFEST, "schema_version": "2\x1b[2J"})
                                           .encode()})
    labels, rows, _odd = archive.compare([current, unversioned, odd, newer], warn=notes.append)
    assert len(labels) == 4 and len(notes) == 3 and "\x1b" not in notes[1] and "schema '2\\x1b[2J'" in notes[1]
    done = triage("show", newer)
    assert done.returncode == 0 and done.stdout == "# node7\n"
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("aiperf-triage: note: ")


@pytest.mark.parametrize("name", ["b/telemetry.csv", "b/./telemetry.csv", "b//telemetry.csv"])
def test_a_member_given_twice_is_refused_by_show_and_aiperf_stats_alike(tmp_path, name):
    # show kept the last copy of a name and aiperf-stats the first: what one printed was not what the
    # other read. A bundle triage writes holds each file once.
    from fuzz_cases import run_stats
    path = _bundle_with(tmp_path / "twice.tar.gz", tarfile.TarInfo(name), b"utc_ns,gpu\n1,0\n")
    stats = run_stats([path, "--report", "telemetry_summary"])
    assert stats.code == 2 and stats.err.count("\n") == 1 and "telemetry.csv" in stats.err, stats.err
    assert "more than once" in stats.err
    with pytest.raises(InputError, match="more than once"):
        archive.show(path)
