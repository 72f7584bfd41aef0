"""Shared by the tests: where the built artifacts are, and the committed .pte fixtures with their references.

A module of its own, not conftest.py: tests/kernels has a conftest.py too, so `from conftest import` would depend
on collection order. The tests run against artifacts built by scripts/test.sh (or scripts/build_sdk.sh): the
installed SDK prefix (ET_SDK_PREFIX), the sanitizer build tree (ET_ASAN_BUILD) and the fuzzer build tree
(ET_FUZZ_BUILD); the fixtures in conftest.py copy the SDK to a temporary directory first.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

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


def dir_from_env(name: str, default: Path) -> Path:
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
