"""The layout of the packaging code (docs/packaging.md, "Layout of the packaging code"): the model and every step
live in the package scripts/et_packaging; scripts/build_conda.py, scripts/build_wheels.py and scripts/builder_report.py
are drivers that import it, and nothing imports a driver. The import graph of scripts/ has no cycle, with every
import counted wherever it is written (a lazy import inside a function is an edge like any other, so it cannot hide a
cycle). Reads the sources only (ast), plus a few quick runs of the drivers' command lines.
"""

from __future__ import annotations

import ast
import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

from et_common import REPO

SCRIPTS = REPO / "scripts"
PACKAGE = "et_packaging"
DRIVERS = ("build_conda", "build_wheels", "builder_report")
THIN_DRIVERS = ("build_conda", "build_wheels")  # a command line, then the package's steps in order


def modules(root: Path) -> dict[str, Path]:
    """Every Python module under `root` by its import name there (a package's __init__.py under the package's)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imported_names(tree: ast.Module, name: str, is_package: bool) -> list[str]:
    """The dotted names module `name` imports, wherever the import statement is (top level or in a function), and
    the string arguments of importlib.import_module / __import__ calls."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            out.append(module)
            out += [f"{module}.{alias.name}" for alias in node.names]  # `from pkg import submodule`
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                out.append(node.args[0].value)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules under `root` it imports. Importing a.b also runs a (its __init__): an edge to a too. A
    script in a folder that is not a package (scripts/ci) finds its siblings first, then the modules of `root`."""
    known = modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        folder = name.rpartition(".")[0]
        sibling_first = not is_package and folder and folder not in known  # a script run from its own folder
        edges: set[str] = set()
        for dotted in imported_names(ast.parse(path.read_text(), str(path)), name, is_package):
            if sibling_first and f"{folder}.{dotted}" in known:
                edges.add(f"{folder}.{dotted}")
                continue
            parts = dotted.split(".")
            edges |= {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in known}
        graph[name] = edges - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (a, b, ..., a), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def top_level_names(path: Path) -> dict[str, str]:
    """The names a module defines at its top level: name -> "def", "class" or "assign"."""
    out = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = "def"
        elif isinstance(node, ast.ClassDef):
            out[node.name] = "class"
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update({t.id: "assign" for t in targets if isinstance(t, ast.Name)})
    return out


GRAPH = import_graph(SCRIPTS)


def test_import_graph_of_scripts_is_acyclic() -> None:
    # The graph is the real one: the drivers' and the package's own edges are in it.
    assert {f"{PACKAGE}.model", f"{PACKAGE}.conda", f"{PACKAGE}.recipe"} <= GRAPH["build_conda"], GRAPH["build_conda"]
    assert {f"{PACKAGE}.model", f"{PACKAGE}.wheels"} <= GRAPH["build_wheels"], GRAPH["build_wheels"]
    assert "check_artifacts" in GRAPH[f"{PACKAGE}.conda"]
    assert "check_cuda_device_code" in GRAPH["check_artifacts"]  # a lazy import is an edge
    cycle = find_cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_cycle_finder_sees_lazy_imports(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f() -> None:\n    import a\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "x.py").write_text("from . import y\n")
    (tmp_path / "pkg" / "y.py").write_text("def g() -> None:\n    from pkg.x import g\n")
    graph = import_graph(tmp_path)
    assert graph["pkg.x"] == {"pkg", "pkg.y"} and graph["pkg.y"] == {"pkg", "pkg.x"}, graph
    assert find_cycle(graph) in (["a", "b", "a"], ["b", "a", "b"])
    assert find_cycle({k: v for k, v in graph.items() if k not in ("a", "b")}) == ["pkg.x", "pkg.y", "pkg.x"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_package_modules_import_no_driver() -> None:
    """Nothing imports a driver: not the package, not another script, not a test (the tests import the package)."""
    importers = {name: sorted(edges & set(DRIVERS)) for name, edges in GRAPH.items() if edges & set(DRIVERS)}
    assert not importers, importers
    for test in sorted((REPO / "tests").rglob("*.py")):
        tree = ast.parse(test.read_text())
        names = imported_names(tree, test.stem, False)
        assert not {n.split(".")[0] for n in names} & set(DRIVERS), test.relative_to(REPO)


@pytest.mark.parametrize("driver", DRIVERS)
def test_drivers_import_the_model_from_the_package(driver: str) -> None:
    assert f"{PACKAGE}.model" in GRAPH[driver], GRAPH[driver]
    defined = top_level_names(SCRIPTS / f"{driver}.py")
    package = {}
    for name, path in modules(SCRIPTS).items():
        if name == PACKAGE or name.startswith(f"{PACKAGE}."):
            package |= {n: name for n in top_level_names(path)}
    again = {n: package[n] for n in defined if n in package}
    assert not again, f"{driver}.py defines names the package defines (a second copy of the model): {again}"


@pytest.mark.parametrize("driver", THIN_DRIVERS)
def test_drivers_are_thin(driver: str) -> None:
    """build_conda.py and build_wheels.py hold their command line and the order of the steps, nothing else."""
    defined = top_level_names(SCRIPTS / f"{driver}.py")
    assert {n for n, kind in defined.items() if kind != "def"} == set(), defined
    assert set(defined) <= {"build", "main"}, defined


def test_script_modules_shadow_no_installed_module() -> None:
    """A script runs with scripts/ first on sys.path, so a module or package there named like an installed one
    (PyPI's `packaging`, which auditwheel and scikit-build-core import) would replace it in that process."""
    ours = {name.split(".")[0] for name in modules(SCRIPTS)} - {"ci"}
    local = {REPO.resolve(), SCRIPTS.resolve(), (REPO / "tests").resolve()}
    path = [p for p in sys.path if Path(p or ".").resolve() not in local]
    clashes = {name: str(spec.origin or spec.submodule_search_locations) for name in sorted(ours)
               if (spec := importlib.machinery.PathFinder.find_spec(name, path)) is not None}  # fmt: skip
    stdlib = set(sys.builtin_module_names) | set(sys.stdlib_module_names)
    clashes |= {name: "the standard library" for name in ours & stdlib}
    assert not clashes, clashes


def test_wheel_staging_needs_only_the_standard_library() -> None:
    """`build_wheels.py stage` runs in cibuildwheel's manylinux container before anything is installed
    (scripts/ci/cibw_before_all.sh): the modules it loads import only the standard library and each other at their
    top level (auditwheel, only for a retag, is imported where it is used)."""
    todo, chain = ["build_wheels"], set()
    while todo:
        name = todo.pop()
        if name not in chain:
            chain.add(name)
            todo += GRAPH[name]
    assert f"{PACKAGE}.model" in chain and "check_artifacts" not in chain and f"{PACKAGE}.recipe" not in chain, chain
    known = modules(SCRIPTS)
    stdlib = set(sys.stdlib_module_names)
    for name in sorted(chain):
        for node in ast.parse(known[name].read_text()).body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                tops = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                outside = [t for t in tops if t.split(".")[0] not in stdlib | {PACKAGE}]
                assert not outside, f"{name} imports {outside} at its top level"


@pytest.mark.parametrize(
    "args",
    [
        ["build_conda.py", "--help"],
        ["build_conda.py", "--check-recipe"],
        ["build_wheels.py", "--help"],
        ["build_wheels.py", "matrix"],
        ["builder_report.py", "--help"],
    ],
    ids=" ".join,
)
def test_driver_command_lines_run(args: list[str]) -> None:
    """The drivers import the package when run as scripts (scripts/ is then first on sys.path), as build_sdk.sh runs
    them."""
    proc = subprocess.run([sys.executable, str(SCRIPTS / args[0]), *args[1:]], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
