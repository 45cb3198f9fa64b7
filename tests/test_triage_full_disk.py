"""A full disk costs the workload's output, never the rest of the bundle (issue 11, red team D1).

A small disk is simulated: SmallDisk counts the bytes under a folder against a capacity, answers
statvfs-style free space for it, and makes the archive's writes fail with ENOSPC past it. Where the
tests run as root, the same two cases also run on a real 320 KiB tmpfs.
"""

from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import REPO

from aiperf_lab.errors import InputError
from aiperf_lab.triage import bundle as bundle_module
from aiperf_lab.triage import disk
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.workload_output import RedactedLog

# 424 KB that do not compress, the same on every run (random bytes from a fixed seed)
HEX_LINES = b"".join(b"%06d " % i + random.Random(i).randbytes(48).hex().encode() + b"\n" for i in range(4000))


class SmallDisk:
    """A filesystem of `capacity` bytes holding `folder`: what the files under it use counts against it."""

    def __init__(self, folder: Path, capacity: int):
        self.folder, self.capacity = folder, capacity

    def used(self) -> int:
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())

    def free(self, _folder=None) -> int:
        return max(self.capacity - self.used(), 0)

    def install(self, monkeypatch) -> None:
        monkeypatch.setattr(disk, "free_bytes", self.free)
        real_open = tarfile.open
        small = self

        class Limited:
            def __init__(self, name):
                self.handle = open(name, "wb")

            def write(self, data):
                if small.used() + len(data) > small.capacity:
                    raise OSError(errno.ENOSPC, "No space left on device")
                self.handle.write(data)
                self.handle.flush()
                return len(data)

            def close(self):
                self.handle.close()

        def open_archive(name, mode="r", **kwargs):
            return real_open(name, mode, fileobj=Limited(name)) if mode.startswith("w") else \
                real_open(name, mode, **kwargs)
        monkeypatch.setattr(bundle_module.tarfile, "open", open_archive)


def _pump(log: RedactedLog, data: bytes) -> None:
    read_end, write_end = os.pipe()
    log.attach(os.fdopen(read_end, "rb"))
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(data)
    log.finish()


def test_the_log_stops_where_the_bundle_s_room_begins_and_keeps_what_fit(tmp_path, monkeypatch):
    small = SmallDisk(tmp_path, capacity=200_000)
    monkeypatch.setattr(disk, "free_bytes", small.free)
    room = disk.DiskRoom(tmp_path)
    assert room.reserve_bytes == 50_000          # a quarter of what was free
    log = RedactedLog(tmp_path / "stdout.log", Redactor({}), cap_bytes=1 << 20, room=room)
    _pump(log, HEX_LINES)
    text = (tmp_path / "stdout.log").read_bytes()
    assert log.cut_by_full_disk and log.received_bytes == len(HEX_LINES)
    assert 140_000 <= len(text) <= 150_500       # up to the reserve, plus the note
    assert text.startswith(HEX_LINES[:140_000])  # the head of the output, as it came
    assert text.rstrip().endswith(b"what follows this point is not kept]")
    assert b"not redacted in time" not in text   # dropped for want of disk, not of time
    assert log.kept_bytes == len(text) and small.free() >= 49_000
    assert [p.name for p in tmp_path.iterdir()] == ["stdout.log"]   # no segment left behind


def _bundle_with_a_big_log(tmp_path: Path) -> BundleWriter:
    writer = BundleWriter(tmp_path, "aiperf-triage-node-20261123T000000Z", Redactor({}))
    writer.write_json("hardware", "hardware_capabilities.json", {"gpus": [{"name": "NVIDIA H200"}]})
    writer.write_text("report", "summary.md", "# aiperf-triage: node\n\n- GPUs: 0: NVIDIA H200\n")
    writer.write_text("telemetry", "telemetry.csv", "t_s,gpu,power_w\n" + "0.1,0,120.5\n" * 2000)
    writer.claim("workload", "workload/stdout.log").write_bytes(HEX_LINES)
    writer.expendable("workload/stdout.log")
    return writer


def test_an_archive_that_does_not_fit_costs_the_log_not_the_bundle(tmp_path, monkeypatch):
    writer = _bundle_with_a_big_log(tmp_path)
    SmallDisk(tmp_path, capacity=len(HEX_LINES) + 150_000).install(monkeypatch)  # the log fits, its archive not
    archive = writer.finish("node", ["--duration", "1"], interrupted=False)
    assert [p.name for p in tmp_path.iterdir()] == [archive.name]
    with tarfile.open(archive) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"])
    cut = manifest["cut_by_full_disk"]["workload/stdout.log"]
    assert cut.startswith("the disk was full: kept the first ") and cut.endswith(f"of {len(HEX_LINES)} bytes")
    log = files["workload/stdout.log"]
    assert 0 < len(log) < len(HEX_LINES) and HEX_LINES.startswith(log[:log.index(b"\n[cut here")])
    assert log.endswith(b"[cut here to make room for the rest of the bundle: the disk was full]\n")
    assert files["telemetry.csv"].count(b"\n") == 2001 and b"NVIDIA H200" in files["hardware_capabilities.json"]
    assert b"## Cut by a full disk" in files["summary.md"] and b"workload/stdout.log" in files["summary.md"]


def test_the_cut_is_sized_from_the_failed_attempt_not_found_by_halving(tmp_path, monkeypatch):
    writer = BundleWriter(tmp_path, "aiperf-triage-node-20261123T000000Z", Redactor({}))
    writer.write_text("hardware", "environment.txt", os.urandom(100_000).hex())   # 200 KB, compresses 2:1
    big = HEX_LINES * 8                                                            # 3.4 MB
    writer.claim("workload", "workload/stdout.log").write_bytes(big)
    writer.expendable("workload/stdout.log")
    small = SmallDisk(tmp_path, capacity=len(big) + 1_200_000)
    small.install(monkeypatch)
    attempts = []
    counting = bundle_module.tarfile.open
    monkeypatch.setattr(bundle_module.tarfile, "open", lambda name, mode="r", **kw: (
        attempts.append(mode) if mode.startswith("w") else None) or counting(name, mode, **kw))
    archive = writer.finish("node", [], interrupted=False)
    kept = int(writer.cuts["workload/stdout.log"].split("kept the first ")[1].split(" of")[0])
    assert len(attempts) <= 3, attempts              # halving from 3.4 MB would take several more
    assert kept > len(big) // 4                      # and it keeps what fits, not far less
    assert archive.exists()


def test_a_binary_trace_is_left_out_whole_once_the_logs_are_empty(tmp_path, monkeypatch):
    writer = _bundle_with_a_big_log(tmp_path)
    writer.claim("workload", "nsys/workload.sqlite").write_bytes(os.urandom(300_000))
    writer.expendable("nsys/workload.sqlite", whole=True)
    SmallDisk(tmp_path, capacity=300_000).install(monkeypatch)
    archive = writer.finish("node", [], interrupted=False)
    with tarfile.open(archive) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"])
    assert "nsys/workload.sqlite" not in files and "nsys/workload.sqlite" not in manifest["files"]
    assert manifest["cut_by_full_disk"]["nsys/workload.sqlite"] == "the disk was full: left out (300000 bytes)"
    assert manifest["cut_by_full_disk"]["workload/stdout.log"].endswith(f"all {len(HEX_LINES)} bytes left out")
    assert all("nsys/workload.sqlite" not in c["files"] for c in manifest["collectors"])


def test_a_bundle_that_does_not_fit_even_without_the_log_is_one_line_naming_the_folder(tmp_path, monkeypatch):
    writer = _bundle_with_a_big_log(tmp_path)
    writer.write_text("environment", "environment.txt", os.urandom(20_000).hex())   # 40 KB that do not compress
    # another process took the rest of the disk meanwhile: without the log, 80 KB are free
    SmallDisk(tmp_path, capacity=80_000).install(monkeypatch)
    with pytest.raises(InputError) as refused:
        writer.finish("node", [], interrupted=False)
    message = str(refused.value)
    assert "\n" not in message and str(tmp_path) in message and "is full" in message
    assert "does not fit even without the workload's output" in message and "nothing written" in message
    assert list(tmp_path.iterdir()) == []       # nothing half-written, under any name


def test_a_write_after_the_logs_that_meets_a_full_disk_cuts_them_first(tmp_path, monkeypatch):
    writer = _bundle_with_a_big_log(tmp_path)
    small = SmallDisk(tmp_path, capacity=len(HEX_LINES) + 60_000)
    real_write_text = Path.write_text

    def write_text(path, text, *args, **kwargs):
        if small.used() + len(text) > small.capacity:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write_text(path, text, *args, **kwargs)
    monkeypatch.setattr(Path, "write_text", write_text)
    writer.write_text("report", "report.html", "<!doctype html>" + "x" * 100_000)
    assert (tmp_path / writer.root.name / "report.html").stat().st_size > 100_000
    assert "workload/stdout.log" in writer.cuts


def test_triage_with_a_workload_that_fills_the_disk_keeps_the_bundle(tmp_path, monkeypatch, capsys):
    from aiperf_lab.triage import cli

    out = tmp_path / "out"
    out.mkdir()
    SmallDisk(out, capacity=400_000).install(monkeypatch)
    workload = "import os, sys; sys.stdout.write(os.urandom(1500000).hex())"
    code = cli.main(["--duration", "1", "--no-nsys", "--output", str(out), "--", sys.executable, "-c", workload])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    archive = Path(captured.out.strip().splitlines()[-1])
    assert [p.name for p in out.iterdir()] == [archive.name]
    with tarfile.open(archive) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()}
    logs = json.loads(files["workload/workload.json"])["logs"]
    assert logs["stdout.log"]["cut_by_full_disk"] is True and logs["stdout.log"]["received_bytes"] == 3_000_000
    assert b"stdout.log cut by a full disk" in files["summary.md"]
    workload_record = next(c for c in json.loads(files["manifest.json"])["collectors"] if c["name"] == "workload")
    assert "cut by a full disk" in workload_record["error"]
    for part in ("telemetry.csv", "findings.json", "hardware_capabilities.json", "report.html", "environment.txt"):
        assert part in files, part


def _tmpfs(path: Path, size: str) -> None:
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")


@pytest.mark.parametrize("size, fits", [("320k", True), ("48k", False)])
def test_on_a_real_small_tmpfs(tmp_path, size, fits):
    mount = tmp_path / "small"
    _tmpfs(mount, size)
    try:
        done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "1", "--no-nsys",
                               "--output", str(mount / "out"), "--", sys.executable, "-c",
                               "import os; print(os.urandom(3000000).hex())"],
                              cwd=REPO, capture_output=True, text=True, timeout=60)
        left = sorted(p.name for p in (mount / "out").iterdir())
        if fits:
            assert done.returncode == 0, done.stderr
            assert len(left) == 1 and left[0].endswith(".tar.gz")
            with tarfile.open(mount / "out" / left[0]) as tar:
                names = [m.name.split("/", 1)[1] for m in tar.getmembers()]
            assert {"manifest.json", "summary.md", "telemetry.csv", "workload/stdout.log"} <= set(names)
        else:
            assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
            assert str(mount / "out") in done.stderr and "is full" in done.stderr
            assert left == []
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_a_trace_export_that_meets_a_full_disk_is_left_out_and_the_bundle_kept(tmp_path, monkeypatch, capsys):
    from aiperf_lab.triage import cli, nsys_capture

    standin = REPO / "tests" / "standin" / "nsys.py"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nsys").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{standin}" "$@"\n')
    (bin_dir / "nsys").chmod(0o755)
    (tmp_path / "sessions").mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("STANDIN_NSYS_STATE", str(tmp_path / "sessions"))
    monkeypatch.setenv("AIPERF_TRIAGE_GRACE", "app=3,term=1,settle=0.3,stop=3,write=15")

    def export_until_the_disk_fills(bundle, report, **_kwargs):
        bundle.add_file("workload", "nsys/workload.sqlite", report)   # half-written when the disk filled
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(nsys_capture, "add_capture", export_until_the_disk_fills)
    out = tmp_path / "out"
    code = cli.main(["--duration", "2", "--output", str(out), "--", sys.executable, "-c", "print('step 1')"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    with tarfile.open(captured.out.strip().splitlines()[-1]) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()}
    assert not [name for name in files if name.startswith("nsys/")]
    workload = json.loads(files["workload/workload.json"])
    assert workload["nsys"] == {"error": "the trace was left out: the disk was full"}
    assert workload["under_nsys"] is True and b"step 1" in files["workload/stdout.log"]
    manifest = json.loads(files["manifest.json"])
    assert all(not f.startswith("nsys/") for c in manifest["collectors"] for f in c["files"])
