"""The linux-aarch64 conda packages (scripts/build_conda.py --arch aarch64, made by the main job from the aarch64 cross
build), installed into a prefix with py-rattler for linux-aarch64 and used under QEMU.

rattler-build cannot run their environment tests on this x86_64 machine (it skips them for a cross build), so they
are here: one package per built component (all but CUDA) and the per-platform meta-package, each holding only aarch64
ELF files; a prefix of the library packages (solved and installed for linux-aarch64 from the channel alone) runs the
committed fixtures through its executorch_runner and the README's CMake consumer cross-built against it; the
executorch-python package, unpacked into that prefix (its python / numpy dependencies are not in any offline
channel), imports and runs every portable fixture and quantized program with Debian's arm64 CPython 3.11, its
extension finding the prefix's libraries through its RUNPATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_aarch64 import check_cross_consumer, elf_header, quiet, run_case
from test_aarch64 import qemu as qemu  # the session fixture, shared
from test_aarch64_wheels import pip_target, qemu_python_checks

from et_common import REPO, Case, conda_channel, fixture_cases, missing_build

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts
from et_packaging import conda, model

TOOL = REPO / "tests" / "conda" / "rattler_tool.py"
SUBDIR = model.SUBDIRS["aarch64"]
MANIFEST = model.load_manifest()
# What the cross build packages: every built component but the CUDA delegate (x86_64 only).
OUTPUTS = {c["conda"] for c in model.built_components(MANIFEST).values() if "cuda_architectures" not in c}
META = MANIFEST["package"]["conda_meta"]
LIBRARIES = sorted(o for o in OUTPUTS if o != "executorch-python")
CASES = [c for c in fixture_cases("xnnpack") if c.fixture in ("cnn", "resnet_block", "gpt_decoder")]


@pytest.fixture(scope="module")
def packages() -> dict[str, Path]:
    found = {p.name.rsplit("-", 2)[0]: p for p in sorted((conda_channel() / SUBDIR).glob("*.conda"))}
    if not found:
        missing_build(f"the {SUBDIR} conda packages in {conda_channel()}", "bash scripts/build_sdk.sh")
    return found


@pytest.fixture(scope="module")
def prefix(packages: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("conda-aarch64")
    prefix = base / "env"
    env = dict(os.environ, ET_CONDA_PLATFORM=SUBDIR)
    proc = subprocess.run(
        [sys.executable, str(TOOL), "install", str(prefix), str(base / "pkgs"), str(conda_channel()), *LIBRARIES],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(installed) == set(LIBRARIES), installed
    return prefix


def test_one_package_per_component(packages: dict[str, Path], tmp_path: Path) -> None:
    assert set(packages) == OUTPUTS | {META}, sorted(packages)
    forbidden = [str(REPO), str(Path.home()), "/executorch-conda-placeholder"]
    for name, pkg in packages.items():
        dest = tmp_path / name
        info = conda.read_package(pkg, dest, forbidden)
        assert not info.problems, (name, info.problems)
        index = json.loads((dest / "info" / "index.json").read_text())
        assert index["subdir"] == SUBDIR and index.get("arch") == "aarch64", (name, index)
        for elf in check_artifacts.elf_files(dest):
            assert elf_header(elf)["Machine"] == "AArch64", (name, elf)
        if name == META:
            # It pins this platform's builds exactly (the linux-64 meta-package pins those of linux-64).
            pins = {d.split()[0]: d.split()[2] for d in info.depends}
            assert pins == {o: packages[o].name[:-6].rsplit("-", 1)[1] for o in OUTPUTS}, pins


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_prefix_runner_matches_reference(qemu: list[str], prefix: Path, case: Case, tmp_path: Path) -> None:
    run_case(qemu, prefix, case, tmp_path, quiet())


def test_prefix_cmake_consumer(qemu: list[str], prefix: Path, tmp_path: Path) -> None:
    check_cross_consumer(qemu, prefix, tmp_path)


@pytest.mark.slow
def test_python_package_under_qemu(packages: dict[str, Path], prefix: Path, tmp_path: Path) -> None:
    # executorch-python's payload unpacked into (a copy of) the library prefix, as an install would place it.
    env_prefix = tmp_path / "env"
    shutil.copytree(prefix, env_prefix, symlinks=True)
    payload = tmp_path / "payload"
    conda.read_package(packages["executorch-python"], payload, [])
    for item in payload.iterdir():
        if item.name != "info":
            shutil.copytree(item, env_prefix / item.name, symlinks=True, dirs_exist_ok=True)
    (site,) = env_prefix.glob("lib/python3.11/site-packages")
    deps = tmp_path / "deps"
    pip_target(deps, "manylinux2014_aarch64", "numpy>=1.22", "flatbuffers>=2.0")
    ext = qemu_python_checks([site, deps], tmp_path / "work", "fixtures_match", "quantized_programs")
    assert ext == str(site / "executorch" / "_C.cpython-311-aarch64-linux-gnu.so")
