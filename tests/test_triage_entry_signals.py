"""aiperf-triage owns SIGINT, SIGTERM and SIGHUP before it imports anything of its own beyond the entry
module (issue 11, red team S2: a signal in the first 50 ms gave exit -15 or a KeyboardInterrupt traceback)."""

from __future__ import annotations

import importlib.metadata
import signal
import subprocess
import sys

import pytest

from conftest import REPO


def _python(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_the_console_script_starts_in_the_entry_module():
    scripts = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "aiperf-triage"]
    if not scripts:
        pytest.skip("aiperf-triage is not installed here")
    assert scripts[0].value == "aiperf_lab.triage.entry:main"


def test_the_entry_module_imports_nothing_else_of_ours_nor_anything_new_from_the_library():
    done = _python("import sys\nbefore = set(sys.modules)\nimport aiperf_lab.triage.entry\n"
                   "print(sorted(set(sys.modules) - before))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['aiperf_lab', 'aiperf_lab.triage', 'aiperf_lab.triage.entry']"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_as_the_command_starts_to_import_is_exit_130_and_one_line(sig):
    # The signal is sent from inside the import of aiperf_lab.triage.cli (the first thing main() imports,
    # before argparse and the rest): the handler must already be there.
    script = f"""
import os, sys
class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "aiperf_lab.triage.cli":
            os.kill(os.getpid(), {int(sig)})
        return None
sys.meta_path.insert(0, SignalOnImport())
sys.argv = ["aiperf-triage", "--duration", "1", "--output", os.devnull + "/nothing"]
from aiperf_lab.triage.entry import main
main()
print("went on")
"""
    done = _python(script)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr == "aiperf-triage: interrupted before it started; nothing written\n"
    assert "went on" not in done.stdout
