"""The domain packages never import textual: they must run headless, in CI and on a GPU box without a TTY."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

from conftest import REPO

import aiperf_lab

DOMAIN_PACKAGES = ["aiperf_lab.metrics", "aiperf_lab.labs", "aiperf_lab.triage"]


def _modules(package: str) -> list[str]:
    module = __import__(package, fromlist=["__path__"])
    return [package] + [f"{package}.{info.name}" for info in pkgutil.iter_modules(module.__path__)]


@pytest.mark.parametrize("module", [m for p in DOMAIN_PACKAGES for m in _modules(p)])
def test_domain_module_does_not_pull_in_textual(module):
    # A fresh interpreter, so deferred imports done by other tests cannot hide one.
    code = f"import sys, {module}; sys.exit(1 if any(m == 'textual' or m.startswith('textual.') for m in sys.modules) else 0)"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, f"{module} imports textual" + done.stderr


def test_no_domain_source_mentions_a_textual_import():
    for package in DOMAIN_PACKAGES:
        folder = REPO / package.replace(".", "/")
        for path in folder.rglob("*.py"):
            for line in path.read_text().splitlines():
                stripped = line.strip()
                assert not (stripped.startswith(("import textual", "from textual"))), f"{path}: {line}"


def test_the_package_version_is_set():
    assert aiperf_lab.__version__
