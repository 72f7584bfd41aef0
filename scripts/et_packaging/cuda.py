"""The CUDA toolchain here, and the CMake tree the executorch-cuda wheel and conda package share.

scripts/build_sdk.sh builds the CUDA delegate when nvcc and the NVIDIA wheels are there (cuda_toolchain_missing says
why not, with the same rule); the executorch-cuda wheel's build (packaging/cuda/pyproject.toml) leaves its CMake tree
in build/cuda-wheel (CUDA_WHEEL_TREE), which the executorch-cuda conda package installs from (cuda_library;
build_cuda_tree brings that tree up to date the way the wheel build does).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from et_packaging.model import REPO
from et_packaging.reproducible import source_date_epoch

CUDA_WHEEL_TREE = REPO / "build" / "cuda-wheel"  # packaging/cuda/pyproject.toml's build-dir


def cuda_toolchain_missing() -> str | None:
    """Why scripts/build_sdk.sh would not build the CUDA delegate here (None: it builds it). Same rule as there:
    nvcc ($CUDACXX, else /usr/local/cuda/bin/nvcc) and the NVIDIA wheels' cu13 headers/libraries in the Python
    that runs this script (the CUDA build uses that Python's site-packages too), else in the checkout's .venv."""
    nvcc = Path(os.environ.get("CUDACXX") or "/usr/local/cuda/bin/nvcc")
    if not os.access(nvcc, os.X_OK):
        return f"no nvcc ({nvcc})"
    roots = [Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13"]
    roots += sorted((REPO / ".venv" / "lib").glob("python3*/site-packages/nvidia/cu13"))
    if not any((r / "include" / "cublas_v2.h").is_file() and (r / "lib" / "libcudart.so.13").is_file() for r in roots):
        return f"the NVIDIA wheels (nvidia-cuda-runtime, nvidia-cublas) are not in {sys.executable}'s site-packages"
    return None


def cuda_library(cuda_build: Path) -> Path | None:
    """The CUDA delegate built in `cuda_build` (build/cuda-wheel: the executorch-cuda wheel's tree), if it is there."""
    libs = sorted((cuda_build / "lib").glob("libexecutorch_cuda.so.*")) if cuda_build.is_dir() else []
    return libs[0] if libs else None


def build_cuda_tree(wheel_dir: Path) -> subprocess.CompletedProcess[str]:
    """Brings CUDA_WHEEL_TREE up to date as the executorch-cuda wheel build does (incremental): `pip wheel
    packaging/cuda` into `wheel_dir` (the wheel itself is not used; the caller removes it)."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO / "packaging" / "cuda"), "-w", str(wheel_dir),
         "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "-q", "-C", "wheel.reproducible=true"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
        env=dict(os.environ, SOURCE_DATE_EPOCH=str(source_date_epoch())),
    )  # fmt: skip
