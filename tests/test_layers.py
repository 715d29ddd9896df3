"""The layering, enforced: import-linter's contracts (``[tool.importlinter]``
in pyproject.toml), no import circle anywhere (imports inside functions
count), and a command line that starts without Spark or psutil."""

import os
import subprocess
import sys

import grimp

from support import ROOT


def test_the_import_contracts_hold():
    lint = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    done = subprocess.run([lint, "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def circles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_circles():
    graph = grimp.build_graph("modelcheck", cache_dir=None)
    assert "modelcheck.engines" in graph.find_modules_directly_imported_by("modelcheck.capabilities.coverage")  # in a function
    assert circles(graph) == []


def test_the_command_line_starts_without_spark():
    code = ("import sys, cli; cli.main.make_context('modelcheck', ['list']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'psutil', 'py4j') "
            "or m.startswith('modelcheck.spark') or m == 'modelcheck.engines.spark'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
