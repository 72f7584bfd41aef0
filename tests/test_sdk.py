"""The installed SDK is a usable C++ SDK: find_package + executorch::runtime builds and runs upstream-style code."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from et_common import FIXTURES, REPO


def build_app(sdk: Path, tmp_path: Path, *, extra: list[str] | None = None) -> Path:
    src = tmp_path / "app src"
    shutil.copytree(REPO / "tests" / "sdk_app", src)
    build = tmp_path / "app build"
    subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={sdk}", *(extra or [])],
        check=True,
        capture_output=True,
        text=True,
    )
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True, text=True)
    return build / "app"


@pytest.fixture(scope="module")
def app(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_app(sdk, tmp_path_factory.mktemp("app"))


def run_app(app: Path, env: dict[str, str], model: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(app), str(model)], capture_output=True, text=True, env=env, timeout=60)


def test_readme_example_runs_with_only_runtime_linked(
    app: Path, sdk: Path, quiet_env: dict[str, str], tmp_path: Path
) -> None:
    # The app links only libexecutorch; the kernels library is found beside it and loaded on demand.
    needed = subprocess.run(["readelf", "-d", str(app)], capture_output=True, text=True, check=True).stdout
    assert "libexecutorch.so" in needed and "libexecutorch_kernels" not in needed
    proc = run_app(app, quiet_env, FIXTURES / "add_mul" / "portable.pte")
    assert proc.returncode == 0, proc.stderr
    got = np.array([float(x) for x in proc.stdout.split()], dtype=np.float32)
    # Same computation through the runner on the same input gives the same numbers.
    inp = tmp_path / "in.npy"
    np.save(inp, np.arange(8, dtype=np.float32).reshape(2, 4))
    subprocess.run(
        [
            str(sdk / "bin" / "executorch_runner"),
            str(FIXTURES / "add_mul" / "portable.pte"),
            "--input",
            str(inp),
            "--output-dir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        env=quiet_env,
    )
    np.testing.assert_allclose(got, np.load(tmp_path / "out0.npy").ravel(), rtol=1e-6, atol=1e-6)


def test_autoload_off_names_missing_operators(app: Path, quiet_env: dict[str, str]) -> None:
    env = dict(quiet_env, EXECUTORCH_AUTOLOAD="0", EXECUTORCH_LOG_LEVEL="error")
    proc = run_app(app, env, FIXTURES / "add_mul" / "portable.pte")
    assert proc.returncode == 2
    assert "error 0x14" in proc.stdout  # OperatorMissing
    assert "aten::addmm.out" in proc.stderr and "executorch-kernels" in proc.stderr, proc.stderr


def test_component_dir_override(app: Path, sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(quiet_env, EXECUTORCH_COMPONENT_DIR=str(empty), EXECUTORCH_LOG_LEVEL="error")
    proc = run_app(app, env, FIXTURES / "add_mul" / "portable.pte")
    assert proc.returncode == 2 and str(empty) in proc.stderr, proc.stderr
    env["EXECUTORCH_COMPONENT_DIR"] = str(sdk / "lib")
    assert run_app(app, env, FIXTURES / "add_mul" / "portable.pte").returncode == 0


def test_relocated_sdk_still_builds_and_runs(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    moved = tmp_path / "moved prefix"
    shutil.copytree(sdk, moved, symlinks=True)
    app = build_app(moved, tmp_path)
    assert run_app(app, quiet_env, FIXTURES / "mlp" / "portable.pte").returncode == 2  # mlp takes [2, 8]
    assert run_app(app, quiet_env, FIXTURES / "add_mul" / "portable.pte").returncode == 0


def test_missing_component_fails_configure(sdk: Path, tmp_path: Path) -> None:
    """A component the prefix lacks (here: cuda, removed from a copy of the SDK) fails find_package by name."""
    prefix = tmp_path / "prefix"
    shutil.copytree(sdk, prefix, symlinks=True)
    for f in (prefix / "lib" / "cmake" / "executorch").glob("executorch-cuda-targets*.cmake"):
        f.unlink()
    for f in (prefix / "lib").glob("libexecutorch_cuda.so*"):
        f.unlink()
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(p CXX)\n"
        "find_package(executorch REQUIRED COMPONENTS kernels cuda)\n"
    )
    proc = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={prefix}"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert "'cuda' is not installed" in proc.stderr and "executorch-cuda" in proc.stderr, proc.stderr


@pytest.mark.parametrize(("version", "ok"), [("0.1", True), ("0.1.0", True), ("1.0", False), ("0.2", False)])
def test_version_request(sdk: Path, tmp_path: Path, version: str, ok: bool) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.24)\nproject(p CXX)\nfind_package(executorch {version} REQUIRED "
        "COMPONENTS runtime kernels threadpool)\n"
    )
    proc = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={sdk}"],
        capture_output=True,
        text=True,
    )
    assert (proc.returncode == 0) == ok, proc.stderr


def test_pkg_config(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    env = dict(quiet_env, PKG_CONFIG_PATH=str(sdk / "lib" / "pkgconfig"))
    flags = shlex.split(
        subprocess.run(
            ["pkg-config", "--cflags", "--libs", "executorch"], capture_output=True, text=True, env=env, check=True
        ).stdout
    )
    exe = tmp_path / "app"
    subprocess.run(
        ["c++", str(REPO / "tests" / "sdk_app" / "main.cpp"), "-o", str(exe), *flags],
        check=True,
        capture_output=True,
        text=True,
    )
    proc = subprocess.run(
        [str(exe), str(FIXTURES / "add_mul" / "portable.pte")], capture_output=True, text=True, env=quiet_env
    )
    assert proc.returncode == 0, proc.stderr
