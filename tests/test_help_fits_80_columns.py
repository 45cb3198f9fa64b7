"""Every command's --help at 80 columns: no line wraps (a newcomer's first screen)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO


@pytest.mark.parametrize("module", ["aiperf_lab.triage.cli", "aiperf_lab.metrics.cli", "aiperf_lab.console.cli"])
def test_help_fits_80_columns(module):
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, COLUMNS="80"), timeout=60)
    assert done.returncode == 0, done.stderr
    long = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert not long and done.stdout.count("\n") > 10, long
