"""The public C++ API, as upstream ExecuTorch's headers and documentation describe it, against the installed SDK:
tests/api/*_test.cpp (GoogleTest programs written from upstream's headers) are built from a copy away from the
source tree with find_package(executorch) and run one by one. The wheel's and the conda prefix's runs of the same
programs are in tests/test_wheel.py and tests/test_conda.py (they call build_api_tests / run_api_test)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from et_common import FIXTURES, REPO

API = REPO / "tests" / "api"
PROGRAMS = sorted(p.stem for p in API.glob("*_test.cpp"))
# What the wheel and conda tests build against their installs (the whole set builds against the SDK prefix): the
# application-level programs, every call of upstream's executor_runner and the data files among them.
APP_PROGRAMS = ["runner_flow_test", "data_map_test", "module_test", "tensor_ptr_test"]


def build_api_tests(prefix: Path, work: Path, programs: list[str] | None = None) -> Path:
    """Copies tests/api to `work`, configures it against `prefix` (CMAKE_PREFIX_PATH) and builds `programs` (all
    when None)."""
    src = work / "api src"
    shutil.copytree(API, src)
    build = work / "api build"
    for cmd in (
        ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"],
        ["cmake", "--build", str(build), *(["--target", *programs] if programs else [])],
    ):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return build


def run_api_test(build: Path, name: str, env: dict[str, str] | None = None) -> None:
    """Runs one API test program; fails with its output when a test fails."""
    run_env = dict(env if env is not None else os.environ)
    run_env.setdefault("EXECUTORCH_LOG_LEVEL", "fatal")
    run_env["ET_FIXTURES"] = str(FIXTURES)
    proc = subprocess.run(
        [str(build / name), "--gtest_brief=1"], capture_output=True, text=True, env=run_env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-4000:]


@pytest.fixture(scope="module")
def api_build(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_api_tests(sdk, tmp_path_factory.mktemp("api"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_api_program(api_build: Path, name: str) -> None:
    run_api_test(api_build, name)
