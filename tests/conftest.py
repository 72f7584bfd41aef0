"""pytest fixtures shared by the top-level tests (helpers and constants live in et_common.py), and the markers.

Markers (registered in pyproject.toml, [tool.pytest.ini_options], with --strict-markers) are applied here, by
test module and by fixture, so a new test in a marked module or on a marked fixture gets them without a
decorator; a few single tests carry their own `@pytest.mark.slow`. The fast developer loop leaves the slow ones
out: `pytest tests -m "not slow"` (CONTRIBUTING.md).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from et_common import BUILD_ASAN, BUILD_FUZZ, BUILD_SDK, REPO, dir_from_env

# Every test of these modules (file stem -> markers).
MODULE_MARKERS: dict[str, tuple[str, ...]] = {
    "test_reproducible": ("slow",),  # builds the wheel and the conda packages again from a clone (minutes)
    "test_conda": ("conda",),
    "test_cuda_packaging": ("cuda",),
}
# Every test that uses one of these fixtures, directly or through another fixture. Slow: over ~20 s on 2 cores
# (`pytest --durations`), or a fixture of that cost that most tests of a module share.
FIXTURE_MARKERS: dict[str, tuple[str, ...]] = {
    "asan_build": ("sanitizer",),  # also tests/kernels' sanitizer harness (asan_harness_exe)
    "fuzz_build": ("sanitizer", "slow"),  # libFuzzer for ET_FUZZ_SECONDS (60 s)
    "wheel_venv": ("slow",),  # test_lower, test_inspect: a fresh venv with the wheel installed (~25 s)
    "venv": ("slow",),  # test_wheel, test_cuda_packaging: fresh venvs with the wheel(s) installed (~25-35 s)
    "llm_venv": ("slow",),  # test_llm: a fresh venv with the wheel and sentencepiece
    "channel": ("conda",),  # test_conda, test_cuda_packaging: the conda channel dist/conda-channel
    "stub_channel": ("conda",),
    "cuda_stubs": ("conda",),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = set(MODULE_MARKERS.get(item.path.stem, ()))
        for fixture in getattr(item, "fixturenames", ()):
            names.update(FIXTURE_MARKERS.get(fixture, ()))
        for name in sorted(names - {m.name for m in item.iter_markers()}):
            item.add_marker(name)


@pytest.fixture(scope="session")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the installed SDK, in a path with a space, away from the source tree."""
    src = dir_from_env("ET_SDK_PREFIX", REPO / "dist" / "executorch-sdk", BUILD_SDK)
    dst = tmp_path_factory.mktemp("sdk") / "executorch sdk"
    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.fixture(scope="session")
def release_build() -> Path:
    """The release build tree (its test programs); scripts/build_sdk.sh makes it."""
    return dir_from_env("ET_RELEASE_BUILD", REPO / "build" / "release", BUILD_SDK)


@pytest.fixture(scope="session")
def asan_build() -> Path:
    return dir_from_env("ET_ASAN_BUILD", REPO / "build" / "asan", BUILD_ASAN)


@pytest.fixture(scope="session")
def fuzz_build() -> Path:
    return dir_from_env("ET_FUZZ_BUILD", REPO / "build" / "fuzz", BUILD_FUZZ)


@pytest.fixture()
def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env["EXECUTORCH_LOG_LEVEL"] = "fatal"
    return env
