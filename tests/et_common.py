"""Shared by the tests: where the built artifacts are, and the committed .pte fixtures with their references.

A module of its own, not conftest.py: tests/kernels has a conftest.py too, so `from conftest import` would depend
on collection order. The tests run against artifacts built by scripts/test.sh (or scripts/build_sdk.sh): the
installed SDK prefix (ET_SDK_PREFIX), the release build tree (ET_RELEASE_BUILD), the sanitizer build tree
(ET_ASAN_BUILD), the fuzzer build tree (ET_FUZZ_BUILD), the wheels (ET_WHEEL_DIR) and the conda channel
(ET_CONDA_CHANNEL); the fixtures in conftest.py copy the SDK to a temporary directory first. A tree that is not
there skips its tests with the command that builds it, and fails them under CI (missing_build).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())
# The real networks (torchvision, timm, upstream's zoo; programs of a few MB) run in every correctness test; the
# sanitizer damage loops, which load and run a program hundreds of times under ASan, take the smaller ones: the
# real networks add no file-format paths the small programs lack, only node kinds that those tests do not target.
DAMAGE_MAX_BYTES = 1_000_000


def damage_fixtures(variant: str) -> list[str]:
    """Fixtures whose `variant` program is small enough for the sanitizer damage loops."""
    return [
        fx["name"]
        for fx in MANIFEST["fixtures"]
        if variant in fx["files"] and (FIXTURES / fx["files"][variant]).stat().st_size <= DAMAGE_MAX_BYTES
    ]


# The commands that make each tree the tests read (scripts/test.sh runs all of them; keep these equal to it).
BUILD_SDK = "bash scripts/build_sdk.sh"  # dist/executorch-sdk, build/release, dist/wheels, dist/conda-channel
BUILD_ASAN = (
    "cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEXECUTORCH_SANITIZE=ON && cmake --build build/asan"
)
BUILD_FUZZ = (
    "cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-19 "
    "-DCMAKE_CXX_COMPILER=clang++-19 -DEXECUTORCH_BUILD_FUZZER=ON && "
    "cmake --build build/fuzz --target pte_fuzzer ptd_fuzzer tokenizer_fuzzer"
)
BUILD_AARCH64 = "bash scripts/build_aarch64.sh"  # build/aarch64 and build/sdk-aarch64 (needs scripts/setup.sh)


def gtest_passed(proc: subprocess.CompletedProcess[str]) -> int:
    """How many tests a GoogleTest program passed; asserts that it exited 0 and that no test failed or skipped."""
    out = proc.stdout
    m = re.search(r"^\[  PASSED  \] (\d+) tests?\.$", out, re.M)
    assert proc.returncode == 0 and m and "[  FAILED  ]" not in out and "[  SKIPPED ]" not in out, (
        out[-4000:] + proc.stderr[-4000:]
    )
    return int(m.group(1))


def gtest_listed(cmd: list[str], gtest_filter: str) -> int:
    """How many tests a GoogleTest program (``cmd``: the program, after any emulator) holds under ``gtest_filter``."""
    proc = subprocess.run(
        [*cmd, "--gtest_list_tests", "--gtest_filter=" + gtest_filter], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return sum(1 for line in proc.stdout.splitlines() if line.startswith("  "))


# The gtest filter that leaves out the int8 kernels' tests (the int8 GEMM, the 4-bit x dynamic int8 one) where they
# would skip, below AVX2 (EXECUTORCH_GEMM_ISA=baseline): gtest_passed counts a skip as a failure.
INT8_KERNEL_TESTS = "*Int8*:*Int4Dynamic*"


def under_ci() -> bool:
    """CI=true (or 1, yes) in the environment: a missing build tree is a failure, never a skip."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing_build(what: str, command: str, env: str | None = None) -> NoReturn:
    """The one rule for a build tree or artifact that is not there: skip, naming the command that makes it;
    under CI fail instead, so a CI run can never pass by skipping."""
    message = f"{what} is missing: build it with `{command}`" + (f" (or set {env})" if env else "")
    if under_ci():
        pytest.fail(f"{message} [CI=true: missing build trees fail]", pytrace=False)
    pytest.skip(message)


def dir_from_env(name: str, default: Path, command: str) -> Path:
    """The directory named by environment variable `name` (else `default`); missing: see missing_build."""
    path = Path(os.environ.get(name, default))
    if not path.is_dir():
        missing_build(str(path), command, name)
    return path


def built_program(tree: Path, name: str, command: str) -> Path:
    """`tree`/bin/`name`, a program of a build tree; missing (a tree configured but not built): missing_build."""
    exe = tree / "bin" / name
    if not exe.is_file():
        missing_build(str(exe), command)
    return exe


def build_app(sdk: Path, src: Path, build: Path) -> Path:
    """Configures and builds the CMake project `src` (one of tests/*_app) against the installed SDK `sdk` in `build`;
    asserts that it built, with the compiler's output in the message."""
    configure = ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={sdk}"]
    for cmd in (configure, ["cmake", "--build", str(build)]):
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return build


def host_wheel_pattern() -> str:
    """The executorch wheel of the interpreter running the tests (dist/wheels holds one per CPython and architecture
    of the matrix)."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"executorch-*-{tag}-{tag}-*_{platform.machine()}.whl"


def wheel_file(pattern: str | None = None) -> Path:
    """The one wheel matching `pattern` (default: the executorch wheel for this CPython) in dist/wheels (or
    ET_WHEEL_DIR)."""
    pattern = pattern or host_wheel_pattern()
    where = Path(os.environ.get("ET_WHEEL_DIR", REPO / "dist" / "wheels"))
    found = sorted(where.glob(pattern))
    if not found:
        missing_build(f"{where}/{pattern}", BUILD_SDK, "ET_WHEEL_DIR")
    if len(found) > 1:
        pytest.fail(f"expected one {pattern} in {where}, found {[p.name for p in found]}: run {BUILD_SDK}")
    return found[0]


def conda_channel() -> Path:
    """dist/conda-channel (or ET_CONDA_CHANNEL), as scripts/build_sdk.sh (scripts/build_conda.py) writes it."""
    path = Path(os.environ.get("ET_CONDA_CHANNEL", REPO / "dist" / "conda-channel"))
    if not (path / "noarch" / "repodata.json").is_file():
        missing_build(f"the conda channel {path}", BUILD_SDK, "ET_CONDA_CHANNEL")
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
