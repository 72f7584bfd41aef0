"""Shared fixtures: where the built artifacts are, and the committed .pte fixtures with their references.

The tests run against artifacts built by scripts/test.sh (or scripts/build_sdk.sh): the installed SDK prefix
(ET_SDK_PREFIX), the sanitizer build tree (ET_ASAN_BUILD) and the fuzzer build tree (ET_FUZZ_BUILD). The SDK is
copied to a temporary directory first, so nothing can reach back into the source tree or the build tree.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())


def _dir_from_env(name: str, default: Path) -> Path:
    path = Path(os.environ.get(name, default))
    if not path.is_dir():
        pytest.fail(f"{path} does not exist: build it first with scripts/test.sh (or set {name})")
    return path


@dataclass(frozen=True)
class Case:
    fixture: str
    variant: str  # "portable" or "xnnpack"
    method: str
    index: int
    pte: Path
    inputs: list[Path]
    outputs: list[Path]
    atol: float
    rtol: float

    @property
    def id(self) -> str:
        return f"{self.fixture}-{self.variant}-{self.method}-{self.index}"


def fixture_cases(variant: str) -> list[Case]:
    cases = []
    for fx in MANIFEST["fixtures"]:
        for method, spec in fx["methods"].items():
            for i, case in enumerate(spec["cases"]):
                cases.append(
                    Case(
                        fixture=fx["name"],
                        variant=variant,
                        method=method,
                        index=i,
                        pte=FIXTURES / fx["files"][variant],
                        inputs=[FIXTURES / x["file"] for x in case["inputs"]],
                        outputs=[FIXTURES / x["file"] for x in case["outputs"]],
                        atol=float(fx["atol"]),
                        rtol=float(fx["rtol"]),
                    )
                )
    return cases


@pytest.fixture(scope="session")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the installed SDK, in a path with a space, away from the source tree."""
    src = _dir_from_env("ET_SDK_PREFIX", REPO / "dist" / "executorch-sdk")
    dst = tmp_path_factory.mktemp("sdk") / "executorch sdk"
    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.fixture(scope="session")
def asan_build() -> Path:
    return _dir_from_env("ET_ASAN_BUILD", REPO / "build" / "asan")


@pytest.fixture(scope="session")
def fuzz_build() -> Path:
    return _dir_from_env("ET_FUZZ_BUILD", REPO / "build" / "fuzz")


@pytest.fixture()
def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env["EXECUTORCH_LOG_LEVEL"] = "fatal"
    return env
