"""Layering: the domain packages never import textual (they run headless, in CI and on a GPU box without
a TTY), and the arrows between packages point one way (design review, change 7):

- metrics never imports labs, triage or console (it is the library they all use);
- labs and triage never import each other;
- the telemetry layer and the PyTorch reader never import the nsys readers;
- nothing imports a command-line edge (cli modules) except the edge itself.
- the redaction package (triage/redaction) imports one way, from its leaves (names, tokens, spans) up,
  and no module of it grows past REDACTION_MOST_LINES.

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


# ---- the redaction package (triage/redaction): small modules, imports one way -----------------------------------
REDACTION = REPO / "aiperf_lab" / "triage" / "redaction"
REDACTION_MOST_LINES = 1000   # a guard: the split's largest module (redactor.py) is ~800 lines; past this, split again
REDACTION_LEAVES = {"names", "tokens", "spans"}   # they import nothing from the package


def _redaction_imports() -> dict[str, set[str]]:
    """Each module of the package and the package modules it imports, relatively or absolutely, deferred included."""
    graph = {}
    for path in sorted(REDACTION.glob("*.py")):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    found.add(node.module.split(".")[0])
                elif node.level == 1:
                    found.update(a.name for a in node.names)
                elif node.module and node.module.startswith("aiperf_lab.triage.redaction."):
                    found.add(node.module.split(".")[3])
        graph[path.stem] = found - {path.stem}
    return graph


def test_redaction_modules_stay_small():
    sizes = {path.name: len(path.read_text().splitlines()) for path in REDACTION.glob("*.py")}
    assert len(sizes) > 10, sizes   # the package is there, split
    assert not {name: n for name, n in sizes.items() if n > REDACTION_MOST_LINES}, sizes


def test_redaction_imports_point_one_way():
    graph = _redaction_imports()
    assert "names" in graph["redactor"] and "redactor" in graph["stream"]   # (the check sees the imports)
    assert not {leaf: graph[leaf] for leaf in REDACTION_LEAVES if graph[leaf]}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join(path + (module,))
        if module not in done:
            for imported in graph.get(module, ()):
                visit(imported, path + (module,))
            done.add(module)

    for module in graph:
        visit(module, ())


def test_redact_is_only_the_packages_public_face():
    tree = ast.parse((REPO / "aiperf_lab" / "triage" / "redact.py").read_text())
    code = [node for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr, ast.Assign))]
    assert not code, [ast.dump(node)[:80] for node in code]   # no rule lives there: it re-exports the package's names


def test_the_console_tests_make_their_app_and_wait_one_way():
    """test_console.py had its own make_app and wait_until, twins of test_console_truth's: a change to how a
    test console is built (a new context field) had to be made twice, or one copy drifted."""
    defined = {name: sorted(path.name for path in (REPO / "tests").glob("test_*.py")
                            if f"\ndef {name}(" in path.read_text() or f"\nasync def {name}(" in path.read_text())
               for name in ("make_app", "wait_until")}
    assert defined == {"make_app": ["test_console_truth.py"], "wait_until": ["test_console_truth.py"]}
