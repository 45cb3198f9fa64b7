"""Session 23, h23r: readers, show and compare (issue 11), what this lane changed.

- `aiperf-triage show DIR` / `compare DIR ...` refused a bundle unpacked by `tar xf` ("is a directory, not a
  triage archive"). The folder is now read as its archive would be (the same bytes out), under the archive's
  rules: files and folders only (a link, FIFO or device inside is refused, never followed or opened), a
  bounded number of members and depth, only the members show and compare read are opened. A folder that is
  no bundle gets one line saying what to give.
"""

from __future__ import annotations

import contextlib
import io
import os
import tarfile
from pathlib import Path

import pytest

from aiperf_lab.triage.cli import main as triage_main

TRIAGE = Path(__file__).parent / "data" / "triage"


def _triage(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = triage_main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _unpacked(archive: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (top,) = into.iterdir()
    return top


def _one_line_exit_2(result) -> str:
    code, out, err = result
    assert (code, out) == (2, ""), result
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- show and compare of an unpacked bundle --------------------------------------------------------------

@pytest.mark.parametrize("name", ["h200-fixture.tar.gz", "h200x2-bench.tar.gz"])
@pytest.mark.parametrize("which", ["bundle folder", "folder tar xf ran in"])
def test_show_of_an_unpacked_bundle_prints_what_show_of_its_archive_prints(tmp_path, name, which):
    top = _unpacked(TRIAGE / name, tmp_path / "x")
    given = top if which == "bundle folder" else tmp_path / "x"
    expected = _triage(["show", TRIAGE / name])
    assert expected[0] == 0
    assert _triage(["show", given]) == expected


def test_compare_of_unpacked_bundles_prints_what_compare_of_their_archives_prints(tmp_path):
    one = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "a")
    two = _unpacked(TRIAGE / "h200x2-bench.tar.gz", tmp_path / "b")
    expected = _triage(["compare", TRIAGE / "h200-fixture.tar.gz", TRIAGE / "h200x2-bench.tar.gz"])
    assert expected[0] == 0
    assert _triage(["compare", one, two]) == expected
    assert _triage(["compare", one, TRIAGE / "h200x2-bench.tar.gz"]) == expected


def test_a_folder_that_is_no_bundle_gets_one_line_saying_what_to_give(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    err = _one_line_exit_2(_triage(["show", tmp_path]))
    assert "no manifest.json" in err and ".tar.gz" in err and "folder unpacked" in err


@pytest.mark.parametrize("member", ["summary.md", "manifest.json", "workload/workload.json", "telemetry.csv"])
@pytest.mark.parametrize("kind", ["link to /dev/zero", "link to a file", "fifo"])
def test_a_link_or_fifo_inside_an_unpacked_bundle_is_refused_not_followed(tmp_path, member, kind):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    target = top / member
    if target.exists():
        target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero" if kind == "link to /dev/zero" else top / "environment.txt", target)
    err = _one_line_exit_2(_triage(["show", top]))
    assert "link or device" in err and member in err
    _one_line_exit_2(_triage(["compare", top, TRIAGE / "h200-fixture.tar.gz"]))


def test_an_unpacked_bundle_too_deep_or_too_many_members_is_refused_in_one_line(tmp_path):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    deep = top.joinpath(*["d"] * 40)
    deep.mkdir(parents=True)
    assert "deep" in _one_line_exit_2(_triage(["show", top]))
    top2 = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "y")
    many = top2 / "many"
    many.mkdir()
    for index in range(10_001):
        (many / str(index)).touch()
    assert "members" in _one_line_exit_2(_triage(["show", top2]))


def test_an_unreadable_member_folder_is_one_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    (top / "topology").chmod(0)
    try:
        err = _one_line_exit_2(_triage(["show", top]))
    finally:
        (top / "topology").chmod(0o755)
    assert "topology" in err


def test_a_member_over_the_read_cap_in_a_folder_is_said_too_large(tmp_path):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    with open(top / "manifest.json", "r+b") as handle:
        handle.truncate(17 * 1024 * 1024)
    err = _one_line_exit_2(_triage(["show", top]))
    assert "manifest.json" in err and "MiB" in err
