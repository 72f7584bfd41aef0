"""pytest fixtures shared by the top-level tests (helpers and constants live in et_common.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from et_common import REPO, dir_from_env


@pytest.fixture(scope="session")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the installed SDK, in a path with a space, away from the source tree."""
    src = dir_from_env("ET_SDK_PREFIX", REPO / "dist" / "executorch-sdk")
    dst = tmp_path_factory.mktemp("sdk") / "executorch sdk"
    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.fixture(scope="session")
def asan_build() -> Path:
    return dir_from_env("ET_ASAN_BUILD", REPO / "build" / "asan")


@pytest.fixture(scope="session")
def fuzz_build() -> Path:
    return dir_from_env("ET_FUZZ_BUILD", REPO / "build" / "fuzz")


@pytest.fixture()
def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env["EXECUTORCH_LOG_LEVEL"] = "fatal"
    return env
