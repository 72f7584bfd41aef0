"""The wheel matrix (scripts/build_wheels.py): one executorch wheel per CPython, each with its real manylinux tag,
all staged from one C++ build; and the cibuildwheel configuration that builds the same matrix in CI.

Fast: the cibuildwheel identifiers (`cibuildwheel --print-build-identifiers`, no build) for Linux and macOS, and
the CUDA add-on's configuration. Slow: each matrix wheel of another CPython than this one, installed into a fresh
venv of its own CPython (numpy from PyPI) and smoke-tested (scripts/ci/wheel_smoke.py); the wheel of this CPython
gets the full tests/test_wheel.py. The SDK files are the same bytes in every wheel (built once).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

from et_common import BUILD_SDK, FIXTURES, REPO, missing_build, under_ci

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging import interpreters, model
from et_packaging.wheels import CUDA_WHEEL_EXTERNAL

OTHER_PYTHONS = [v for v in model.PYTHONS if v != model.host_python()]
LINUX_ARCHS = ("x86_64", "aarch64")
MACOS_ARCHS = ("x86_64", "arm64")


def wheel_dir() -> Path:
    return Path(os.environ.get("ET_WHEEL_DIR", REPO / "dist" / "wheels"))


def matrix_wheel(version: str) -> Path:
    tag = model.cp_tag(version)
    found = sorted(wheel_dir().glob(f"executorch-*-{tag}-{tag}-*_{platform.machine()}.whl"))
    if len(found) != 1:
        missing_build(f"the CPython {version} wheel in {wheel_dir()} ({found})", BUILD_SDK + " (without --host-only)")
    return found[0]


# --------------------------------------------------------------------------------------------- cibuildwheel


def cibuildwheel() -> str:
    exe = shutil.which("cibuildwheel", path=str(Path(sys.executable).parent)) or shutil.which("cibuildwheel")
    if exe is None:
        if under_ci():
            pytest.fail("cibuildwheel is not installed (requirements-dev.txt)")
        pytest.skip("cibuildwheel is not installed: pip install -r requirements-dev.txt")
    return exe


def identifiers(platform: str, package: Path = REPO) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CIBW_")}
    proc = subprocess.run(
        [cibuildwheel(), "--print-build-identifiers", "--platform", platform, str(package)],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split()


def test_cibuildwheel_linux_matrix() -> None:
    want = {f"{model.cp_tag(v)}-manylinux_{a}" for v in model.PYTHONS for a in LINUX_ARCHS}
    got = identifiers("linux")
    assert sorted(got) == sorted(want), got  # no musllinux, PyPy, i686 or free-threaded builds


def test_cibuildwheel_macos_matrix() -> None:
    want = {f"{model.cp_tag(v)}-macosx_{a}" for v in model.PYTHONS for a in MACOS_ARCHS}
    assert sorted(identifiers("macos")) == sorted(want)


def test_cibuildwheel_cuda_addon_is_one_wheel_per_arch() -> None:
    # py3-none: one build (the first CPython of the matrix) per Linux architecture.
    got = identifiers("linux", REPO / "packaging" / "cuda")
    first = model.cp_tag(model.PYTHONS[0])
    assert sorted(got) == sorted(f"{first}-manylinux_{a}" for a in LINUX_ARCHS), got


def test_cibuildwheel_config_matches_builder() -> None:
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    assert cfg["build"] == [f"{model.cp_tag(v)}-*" for v in model.PYTHONS]
    settings = cfg["config-settings"]
    assert settings["cmake.define.EXECUTORCH_PYTHON_ONLY"] == "ON"
    assert "{wheel_tag}" in settings["build-dir"]
    cuda = tomllib.loads((REPO / "packaging" / "cuda" / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    repair = cuda["linux"]["repair-wheel-command"]
    for lib in CUDA_WHEEL_EXTERNAL:
        assert f"--exclude '{lib}'" in repair, (lib, repair)
    workflow = (REPO / ".github" / "workflows" / "wheels.yml").read_text()
    for needle in ("ubuntu-24.04-arm", "pypa/cibuildwheel", "packaging/cuda", "macos-14", "macos-13"):
        assert needle in workflow, needle


# ----------------------------------------------------------------------------------------------- the matrix


def test_matrix_wheels_share_one_sdk_build() -> None:
    """Every matrix wheel of one architecture holds the same SDK bytes (staged from one C++ build) and only its own
    _C."""
    for arch in LINUX_ARCHS:
        wheels = sorted(wheel_dir().glob(f"executorch-*-cp3*-*_{arch}.whl"))
        if len(wheels) < 2:
            missing_build(
                f"two or more {arch} executorch wheels in {wheel_dir()}", BUILD_SDK + " (without --host-only)"
            )
        check_one_sdk_build(wheels, arch)


def check_one_sdk_build(wheels: list[Path], arch: str) -> None:
    digests = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as z:
            digests.append(
                {
                    n: hashlib.sha256(z.read(n)).hexdigest()
                    for n in z.namelist()
                    if n.startswith("executorch/lib/") or n.startswith("executorch/bin/")
                }
            )
            exts = [n for n in z.namelist() if n.startswith("executorch/_C.")]
            tag = wheel.name.split("-")[2]
            assert exts == [f"executorch/_C.cpython-{tag[2:]}-{arch}-linux-gnu.so"], (wheel.name, exts)
            assert "-manylinux_" in wheel.name and f"linux_{arch}.whl" not in wheel.name.replace("manylinux", ""), wheel
    assert all(d == digests[0] for d in digests), [w.name for w in wheels]


@pytest.mark.slow
@pytest.mark.parametrize("version", OTHER_PYTHONS)
def test_wheel_smoke_in_fresh_venv(version: str, tmp_path: Path) -> None:
    wheel = matrix_wheel(version)
    python = interpreters.find_python(version)
    if python is None:
        missing_build(f"CPython {version}", f"pyenv install {version}")
    venv = tmp_path / "venv"
    subprocess.run([str(python), "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    proc = subprocess.run([*pip, str(wheel)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run(
        [str(venv / "bin" / "python"), str(REPO / "scripts" / "ci" / "wheel_smoke.py"), str(FIXTURES)],
        cwd=tmp_path, capture_output=True, text=True, env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("smoke: all passed"), proc.stdout
    print(proc.stdout)
