"""Files a reader takes for a result are written whole or not at all (issue 11: nothing half-written under the final
name): a run's run.json and tables, the console's CSV export and aiperf-stats' --output go through
replaced_file.write_replacing, which a kill or a full disk mid-write leaves at the old state."""

from __future__ import annotations

import json
import os
import sys

import pytest

from fake_nvml import FakeGpu, FakeNvml

from aiperf_lab.labs import runner
from aiperf_lab.metrics.telemetry.nvml_source import NvmlSource
from aiperf_lab.metrics.telemetry.sampler import Sampler
from aiperf_lab.replaced_file import write_replacing, write_text_replacing


class Killed(BaseException):
    """Stands for a SIGKILL's effect on what is on disk: the write stops where it is."""


def test_a_write_cut_short_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "run.json"
    path.write_text('{"old": true}\n')

    def half(handle):
        handle.write('{"new": ')
        handle.flush()
        raise Killed

    with pytest.raises(Killed):
        write_replacing(path, half)
    assert path.read_text() == '{"old": true}\n' and os.listdir(tmp_path) == ["run.json"]


def test_a_whole_write_replaces_a_symlink_not_its_target(tmp_path):
    target = tmp_path / "elsewhere.csv"
    target.write_text("theirs\n")
    link = tmp_path / "table.csv"
    link.symlink_to(target)
    write_text_replacing(link, "a,b\n1,2\n")
    assert not link.is_symlink() and link.read_text() == "a,b\n1,2\n" and target.read_text() == "theirs\n"


def test_a_run_killed_while_saving_its_record_leaves_no_run_json(monkeypatch, tmp_path):
    script = ("import time; time.sleep(0.2); print('AIPERF_RESULT ' + " + repr(json.dumps(
        {"dtype": "bf16", "tflops": 600.0, "device": "cuda", "size": "full"})) + ")")
    monkeypatch.setattr(runner, "build_argv", lambda *args, **kwargs: [sys.executable, "-c", script])
    monkeypatch.setattr(runner, "IDLE_BASELINE_S", 0.2)
    real_replace = os.replace

    def killed_at_the_record(source, destination):
        if str(destination).endswith("run.json"):
            raise Killed
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", killed_at_the_record)
    sampler = Sampler(20, source=NvmlSource.open(FakeNvml([FakeGpu(power_w=300.0)]))).start()
    try:
        with pytest.raises(Killed):
            runner.run_exercise("04-ex01", runs_dir=tmp_path, sampler=sampler)
    finally:
        sampler.close()
    (folder,) = tmp_path.iterdir()
    assert (folder / "stdout.log").exists()   # (the run did run: only its record's write was cut)
    assert not (folder / "run.json").exists()
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".partial")]
