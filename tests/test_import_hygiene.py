"""Layering: the domain packages never import textual (they run headless, in CI and on a GPU box without
a TTY), and the arrows between packages point one way (design review, change 7):

- metrics never imports labs, triage or console (it is the library they all use);
- labs and triage never import each other;
- the telemetry layer and the PyTorch reader never import the nsys readers;
- nothing imports a command-line edge (cli modules) except the edge itself.

The import checks read every module's source, deferred imports inside functions included: that is
where a wrong-way import would hide.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

import aiperf_lab

DOMAIN_PACKAGES = ["aiperf_lab.metrics", "aiperf_lab.labs", "aiperf_lab.triage"]


def _modules(package: str) -> list[str]:
    """The package and every module under it, sub-packages included (metrics.nsys.db, ...)."""
    module = __import__(package, fromlist=["__path__"])
    return [package] + [info.name for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}.")]


def _imports(path: Path) -> set[str]:
    """Every aiperf_lab module a source file imports, at the top or deferred inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {name for name in found if name.startswith("aiperf_lab")}


def _sources(package: str):
    folder = REPO / package.replace(".", "/")
    for path in sorted(folder.rglob("*.py")):
        yield ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__"), path


# (importing package, forbidden prefixes): the layering contracts.
FORBIDDEN = [
    ("aiperf_lab.metrics", ("aiperf_lab.labs", "aiperf_lab.triage", "aiperf_lab.console")),
    ("aiperf_lab.labs", ("aiperf_lab.triage",)),
    ("aiperf_lab.triage", ("aiperf_lab.labs",)),
    ("aiperf_lab.metrics.telemetry", ("aiperf_lab.metrics.nsys", "aiperf_lab.metrics.kineto", "aiperf_lab.metrics.ncu")),
    ("aiperf_lab.metrics.kineto", ("aiperf_lab.metrics.nsys",)),
    ("aiperf_lab.metrics.torch_nccl", ("aiperf_lab.metrics.nsys",)),
    ("aiperf_lab.metrics.collectives", ("aiperf_lab.metrics.nsys", "aiperf_lab.metrics.kineto")),
]


@pytest.mark.parametrize("package,forbidden", FORBIDDEN, ids=[p for p, _ in FORBIDDEN])
def test_layering_contract(package, forbidden):
    wrong = [f"{module} imports {name}" for module, path in _sources(package) for name in sorted(_imports(path))
             if name.startswith(forbidden)]
    assert not wrong, wrong


def test_no_module_imports_a_command_line_edge_but_its_own():
    # triage.entry is aiperf-triage's console entry point: it owns the signals, then runs triage.cli
    edges = {"aiperf_lab.metrics.cli", "aiperf_lab.labs.cli", "aiperf_lab.triage.cli", "aiperf_lab.console.cli",
             "aiperf_lab.triage.entry"}
    wrong = [f"{module} imports {name}" for module, path in _sources("aiperf_lab") for name in _imports(path)
             if name in edges and module not in edges and not module.endswith("__main__")]
    assert not wrong, wrong


def test_the_contracts_see_sub_packages_and_deferred_imports():
    """The checks are not vacuous: they list metrics.nsys modules and find a deferred import."""
    modules = _modules("aiperf_lab.metrics")
    assert "aiperf_lab.metrics.nsys.db" in modules and "aiperf_lab.metrics.telemetry.recording" in modules
    sources = dict(_sources("aiperf_lab.metrics"))
    assert "aiperf_lab.metrics.nsys.ops" in _imports(sources["aiperf_lab.metrics.nsys.nvtx"])  # inside a function


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
