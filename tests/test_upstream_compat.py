"""Code written against upstream ExecuTorch 1.5.1's documented C++ API builds and runs unchanged against the installed
SDK, from a directory without the source tree: the application and custom-operator library of
tests/upstream_compat/ (scripts/check_upstream_compat.py builds the same files against upstream's wheel), in both
of upstream's CMake styles (component targets; the variable contract), and upstream's target names as aliases.
The Python side (executorch.extension.pybindings.portable_lib, bf16 / fp16) is in tests/test_wheel.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from et_common import FIXTURES, REPO

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging.model import built_components, load_manifest

COMPAT = REPO / "tests" / "upstream_compat"


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)  # type: ignore[call-overload]


def cmake_build(src: Path, build: Path, *args: str) -> str:
    """Configures and builds; returns the configure output."""
    conf = run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", *args])
    assert conf.returncode == 0, conf.stdout + conf.stderr
    built = run(["cmake", "--build", str(build)])
    assert built.returncode == 0, built.stdout + built.stderr
    return conf.stdout + conf.stderr


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/upstream_compat copied away from the source tree."""
    dst = tmp_path_factory.mktemp("compat") / "upstream compat"
    shutil.copytree(COMPAT, dst)
    return dst


def app_inputs(shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """The inputs upstream_app feeds: (k % 7) * 0.25 - 0.75 over each input's elements."""
    return [((np.arange(int(np.prod(s))) % 7) * 0.25 - 0.75).astype(np.float32).reshape(s) for s in shapes]


def parse_outputs(stdout: str) -> list[np.ndarray]:
    return [np.array([float(v) for v in line.split(":")[1].split()]) for line in stdout.splitlines()]


def custom_ops_reference(x: np.ndarray, bias: np.ndarray) -> list[np.ndarray]:
    """What tests/upstream_compat/custom_ops.pte computes (export_programs.py's CustomOps), in numpy."""
    y = np.maximum(x, 0) * 0.5 + 2 + bias
    rows = -y[[3, 1]].astype(np.float64)
    return [y, rows, x[[0, 1, 2]].sum(0, keepdims=True)]


@pytest.mark.parametrize("style", ["targets", "variables"])
def test_upstream_app_builds_and_runs(sdk: Path, sources: Path, tmp_path: Path, style: str, quiet_env: dict) -> None:
    # Targets: CMAKE_PREFIX_PATH at share/cmake, where upstream's wheel keeps its config; variables: the prefix.
    prefix = sdk / "share" / "cmake" if style == "targets" else sdk
    log = cmake_build(
        sources / "app",
        tmp_path / "b",
        f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DUSE_VARIABLES={'ON' if style == 'variables' else 'OFF'}",
    )
    assert "is not in this package" not in log, log  # kernels_optimized, backend_xnnpack, threadpool, etdump
    app = tmp_path / "b" / "upstream_app"

    etdump = tmp_path / "run.etdp"
    proc = run([str(app), str(COMPAT / "custom_ops.pte"), "--etdump", str(etdump)], env=quiet_env)
    assert proc.returncode == 0, proc.stderr
    x, bias = app_inputs([(4, 5), (5,)])
    for got, want in zip(parse_outputs(proc.stdout), custom_ops_reference(x, bias), strict=True):
        np.testing.assert_allclose(got, want.ravel(), rtol=1e-6, atol=1e-6)
    data = etdump.read_bytes()  # a size-prefixed ETDump flatbuffer (tests/test_devtools.py reads its events)
    assert int.from_bytes(data[:4], "little") == len(data) - 4 and data[8:12] == b"ED00"

    # An XNNPACK program through the same app gives what executorch_runner gives on the same input.
    model = FIXTURES / "mobilenet" / "xnnpack.pte"
    proc = run([str(app), str(model)], env=quiet_env)
    assert proc.returncode == 0, proc.stderr
    (inp,) = app_inputs([np.load(FIXTURES / "mobilenet" / "forward_case0_in0.npy").shape])
    np.save(tmp_path / "in.npy", inp)
    (tmp_path / "out").mkdir()
    runner = run(
        [
            str(sdk / "bin" / "executorch_runner"),
            str(model),
            "--input",
            str(tmp_path / "in.npy"),
            "--output-dir",
            str(tmp_path / "out"),
        ],
        env=quiet_env,
    )
    assert runner.returncode == 0, runner.stderr
    np.testing.assert_allclose(parse_outputs(proc.stdout)[0], np.load(tmp_path / "out" / "out0.npy").ravel(), 1e-6)


def test_custom_op_library_runs_in_runner(sdk: Path, sources: Path, tmp_path: Path, quiet_env: dict) -> None:
    cmake_build(sources / "custom_ops", tmp_path / "b", f"-DCMAKE_PREFIX_PATH={sdk}")
    lib = tmp_path / "b" / "libupstream_custom_ops.so"
    runner = str(sdk / "bin" / "executorch_runner")
    model = str(COMPAT / "custom_ops.pte")
    inputs = ["--input", str(COMPAT / "custom_ops_in0.npy"), "--input", str(COMPAT / "custom_ops_in1.npy")]
    # Without the library the runner names the missing operators; with it, the eager references come out.
    missing = run([runner, model, *inputs], env=quiet_env)
    assert missing.returncode == 2 and "upstream_ops::scale_shift.out" in missing.stderr, missing.stderr
    (tmp_path / "out").mkdir()
    proc = run(
        [runner, model, *inputs, "--load-library", str(lib), "--output-dir", str(tmp_path / "out")], env=quiet_env
    )
    assert proc.returncode == 0, proc.stderr
    for i in range(3):
        want = np.load(COMPAT / f"custom_ops_out{i}.npy")
        got = np.load(tmp_path / "out" / f"out{i}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_every_upstream_target_name_is_defined(sdk: Path, tmp_path: Path) -> None:
    manifest = built_components(load_manifest())
    names = [t for c in manifest.values() if c.get("optional") is not True for t in c.get("upstream_targets", [])]
    assert {"executorch::kernels_optimized", "executorch::backend_xnnpack", "executorch::etdump"} <= set(names)
    src = tmp_path / "src"
    src.mkdir()
    checks = "\n".join(f'if(NOT TARGET {n})\n  message(FATAL_ERROR "{n} is not defined")\nendif()' for n in names)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(names NONE)\nfind_package(executorch REQUIRED)\n"
        f"{checks}\n"
        'if(NOT EXECUTORCH_FOUND OR NOT EXECUTORCH_CXX_STANDARD EQUAL 17 OR NOT EXISTS "${EXECUTORCH_INCLUDE_DIRS}")\n'
        '  message(FATAL_ERROR "variable contract")\nendif()\n'
        'message(STATUS "libraries: ${EXECUTORCH_LIBRARIES}")\n'
    )
    conf = run(["cmake", "-S", str(src), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={sdk}"])
    assert conf.returncode == 0, conf.stdout + conf.stderr
    assert "libraries: executorch::runtime;executorch::threadpool;executorch::kernels" in conf.stdout
