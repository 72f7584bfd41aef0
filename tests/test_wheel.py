"""The executorch wheel, installed into fresh virtual environments: Python runtime and complete C++ SDK."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from et_common import FIXTURES, REPO, wheel_file

sys.path.insert(0, str(REPO / "scripts"))
import build_conda
import check_artifacts

PLUGIN_SRC = REPO / "tests" / "plugin"


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="session")
def wheel() -> Path:
    return wheel_file()


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with only the wheel (and numpy) installed; returns its root."""
    root = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    subprocess.run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
    )
    return root


def wheel_libraries() -> list[str]:
    """The component libraries the executorch wheel ships (components.toml), as file names in its lib/."""
    manifest = build_conda.load_manifest()
    so = build_conda.soversion(build_conda.project_version())
    libs = [
        Path(c["library"]).name.replace("*", so)
        for c in build_conda.built_components(manifest).values()
        if c["wheel"] == "executorch" and c["library"].startswith("{prefix}/lib/")
    ]
    return sorted(libs)


def site_executorch(venv: Path) -> Path:
    (pkg,) = venv.glob("lib/python3*/site-packages/executorch")
    return pkg


def py(venv: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    proc = run([str(venv / "bin" / "python"), *args], env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def plugin(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test plugin built against the installed wheel with find_package; returns the library path."""
    work = tmp_path_factory.mktemp("plugin")
    shutil.copytree(PLUGIN_SRC, work / "src")
    prefix = py(venv, "-m", "executorch", "--cmake-dir")
    subprocess.run(
        ["cmake", "-S", str(work / "src"), "-B", str(work / "b"), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["cmake", "--build", str(work / "b")], check=True, capture_output=True)
    lib = work / "src" / "libet_plugin.so"
    shutil.copy(work / "b" / "libet_plugin.so", lib)  # beside custom_op.pte and its references
    return lib


def python_checks(venv: Path, plugin: Path, tmp_path: Path, *checks: str, **env: str) -> None:
    script = tmp_path / "python_checks.py"
    shutil.copy(REPO / "tests" / "python_checks.py", script)
    fixtures = tmp_path / "fixtures"
    if not fixtures.exists():
        shutil.copytree(FIXTURES, fixtures)
    full_env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal", **env)
    full_env.pop("PYTHONPATH", None)
    proc = run(
        [str(venv / "bin" / "python"), str(script), str(fixtures), str(plugin), *checks], env=full_env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"^{len(checks)} passed, 0 failed$", proc.stdout, re.M), proc.stdout


def test_import_is_light(venv: Path, tmp_path: Path) -> None:
    out = py(
        venv,
        "-c",
        "import sys, executorch.runtime; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))",
        cwd=tmp_path,
    )
    assert out == "[]"


def test_python_runs_every_portable_fixture(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(
        venv,
        plugin,
        tmp_path,
        "fixtures_match",
        "quantized_programs",
        "bytes_and_paths",
        "metadata",
        "inputs_from_dlpack_and_buffers",
    )


def test_python_errors(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(venv, plugin, tmp_path, "errors_carry_codes")
    empty = tmp_path / "empty"
    empty.mkdir()
    python_checks(venv, plugin, tmp_path, "missing_operator_names_package", EXECUTORCH_COMPONENT_DIR=str(empty))


def test_one_registry_one_pool(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(venv, plugin, tmp_path, "one_registry_with_plugin", "thread_pool")


def test_decoy_library_on_ld_library_path(venv: Path, plugin: Path, tmp_path: Path) -> None:
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    src = tmp_path / "decoy.c"
    src.write_text("int decoy_marker(void) { return 1; }\n")
    for name in ("libexecutorch.so.0.1", "libexecutorch_threadpool.so.0.1", "libexecutorch_kernels.so.0.1"):
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{name}", str(src), "-o", str(decoy / name)], check=True)
    python_checks(venv, plugin, tmp_path, "fixtures_match", LD_LIBRARY_PATH=str(decoy))


def test_sdk_helpers(venv: Path) -> None:
    pkg = site_executorch(venv)
    assert py(venv, "-m", "executorch", "--cmake-dir") == str(pkg)
    assert py(venv, "-m", "executorch", "--include-dir") == str(pkg / "include")
    assert py(venv, "-m", "executorch", "--lib-dir") == str(pkg / "lib")
    assert py(venv, "-m", "executorch", "--version") == py(
        venv, "-c", "import executorch; print(executorch.__version__)"
    )
    assert (
        Path(py(venv, "-c", "import executorch; print(executorch.get_cmake_dir())")) / "executorch-config.cmake"
    ).is_file()


def test_wheel_layout_and_hygiene(venv: Path) -> None:
    pkg = site_executorch(venv)
    libs = sorted(p.name for p in (pkg / "lib").glob("*.so*"))
    expected = wheel_libraries()
    assert {"libexecutorch.so.0.1", "libexecutorch_kernels.so.0.1", "libexecutorch_threadpool.so.0.1"} <= set(expected)
    assert libs == expected, libs
    (ext,) = pkg.glob("_C*.so")
    dyn = check_artifacts.dynamic_entries(ext)
    assert dyn["RUNPATH"] == ["$ORIGIN/lib"], dyn
    assert {"libexecutorch.so.0.1", "libexecutorch_threadpool.so.0.1"} <= set(dyn["NEEDED"]), dyn
    report = check_artifacts.check_prefix(pkg, [str(REPO), str(REPO / "build"), str(Path.home()), "/tmp/pip-"])
    assert report.ok, report.checks
    # The extension defines none of the registry or pool functions: it imports them from the shared libraries.
    ext_symbols = check_artifacts.defined_symbols(ext)
    owned = [s for syms in check_artifacts.OWNERS.values() for s in syms]
    assert not [s for s in ext_symbols if any(s.startswith(o) for o in owned)]


def test_auditwheel_tag(wheel: Path) -> None:
    proc = run([sys.executable, "-m", "auditwheel", "show", str(wheel)])
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    m = re.search(r'consistent with the following platform tag: "(manylinux_\d+_\d+_x86_64)"', text)
    assert m, text
    print(f"auditwheel: {m.group(1)}")


def build_cpp_example(cmake: str, prefix: str, work: Path) -> Path:
    src = work / "src dir"
    shutil.copytree(REPO / "tests" / "sdk_app", src)
    build = work / "build dir"
    proc = run([cmake, "-S", str(src), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run([cmake, "--build", str(build)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return build / "app"


@pytest.fixture(scope="session")
def cmake_versions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """CMake 3.24 (the oldest supported) and the newest 4.x, from PyPI, plus the system CMake."""
    found = {"system": shutil.which("cmake") or "cmake"}
    for label, spec in (("3.24", "cmake==3.24.*"), ("4.x", "cmake>=4,<5")):
        env_dir = tmp_path_factory.mktemp(f"cmake-{label}")
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        subprocess.run([str(env_dir / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", spec], check=True)
        found[label] = str(env_dir / "bin" / "cmake")
    return found


@pytest.mark.parametrize("cmake", ["system", "3.24", "4.x"])
def test_cpp_example_against_wheel(venv: Path, cmake_versions: dict[str, str], cmake: str, tmp_path: Path) -> None:
    prefix = py(venv, "-m", "executorch", "--cmake-dir")
    app = build_cpp_example(cmake_versions[cmake], prefix, tmp_path)
    proc = run(
        [str(app), str(FIXTURES / "add_mul" / "portable.pte")], env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(proc.stdout.split()) == 6  # [2, 3] output


def test_relocated_venv(venv: Path, plugin: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved venv with space"
    shutil.copytree(venv, moved, symlinks=True)
    pkg = site_executorch(moved)
    app = build_cpp_example("cmake", str(pkg), tmp_path)
    proc = run(
        [str(app), str(FIXTURES / "add_mul" / "portable.pte")], env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Python from the copy uses the copy's package.
    where = py(moved, "-c", "import executorch.runtime, executorch; print(executorch.get_lib_dir())", cwd=tmp_path)
    assert where == str(pkg / "lib")
    python_checks(moved, plugin, tmp_path, "fixtures_match")
