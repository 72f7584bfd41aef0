"""The Linux aarch64 SDK (scripts/build_aarch64.sh, docs/aarch64.md), run under user-mode QEMU on the x86-64 host.

Reads the cross build tree (ET_AARCH64_BUILD, default build/aarch64: the GoogleTest programs) and its installed prefix
(ET_AARCH64_SDK, default the main job's dist/executorch-sdk-aarch64, else build/sdk-aarch64): the libraries are aarch64
ELF with the SDK's SONAMEs and `$ORIGIN` RUNPATHs; the C++ unit and kernel tests pass; executorch_runner reproduces
every committed fixture's references, portable and XNNPACK programs, with the NEON micro-kernels and with the baseline
ones (EXECUTORCH_GEMM_ISA=baseline); the quantized fixtures match upstream's outputs with the int8 SDOT kernel (QEMU's
default CPU has dotprod) and without it (`-cpu cortex-a72`: armv8.0, the fp32 fallback chosen at run time). All of it
takes about 45 s on 2 cores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_quantized import CASES as QUANTIZED
from test_quantized import QCase, check_outputs

from et_common import (
    BUILD_AARCH64,
    FIXTURES,
    MANIFEST,
    REPO,
    Case,
    built_program,
    dir_from_env,
    fixture_cases,
    gtest_listed,
    gtest_passed,
    missing_build,
)

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts

SYSROOT = "/usr/aarch64-linux-gnu"  # the cross toolchain's libc and libstdc++ (libc6-arm64-cross, ...)
PORTABLE = fixture_cases("portable")
XNNPACK = fixture_cases("xnnpack")
# The baseline (portable, non-NEON-tuned) GEMM kernels: the conv fixtures and three real networks.
BASELINE_FIXTURES = (
    "cnn",
    "mobilenet",
    "resnet_block",
    "gpt_decoder",
    "tv_mobilenet_v2",
    "tv_resnet18",
    "timm_deit_tiny",
)
# The int8 kernels' tests (int8 GEMM, qd8 x qb4w): they skip without dotprod (EXECUTORCH_GEMM_ISA=neon|baseline, or
# a CPU without it).
INT8_TESTS = "Kernels.Int8*:Kernels.BlockwiseInt4Dynamic*"
# An armv8.0 CPU (Raspberry Pi 4 class): NEON without dotprod.
NO_DOTPROD_CPU = "cortex-a72"


@pytest.fixture(scope="session")
def qemu() -> list[str]:
    exe = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")
    if exe is None:
        missing_build("qemu-aarch64-static (Debian package qemu-user-static)", "bash scripts/setup.sh")
    if not Path(SYSROOT, "lib", "ld-linux-aarch64.so.1").is_file():
        missing_build(f"the aarch64 C library in {SYSROOT} (libc6-arm64-cross)", "bash scripts/setup.sh")
    return [exe, "-L", SYSROOT]


@pytest.fixture(scope="session")
def a64_build() -> Path:
    return dir_from_env("ET_AARCH64_BUILD", REPO / "build" / "aarch64", BUILD_AARCH64)


@pytest.fixture(scope="session")
def a64_sdk() -> Path:
    # The main job's prefix (scripts/build_sdk.sh), else scripts/build_aarch64.sh's default one.
    main_job = REPO / "dist" / "executorch-sdk-aarch64"
    default = main_job if main_job.is_dir() else REPO / "build" / "sdk-aarch64"
    return dir_from_env("ET_AARCH64_SDK", default, BUILD_AARCH64)


def quiet(**extra: str) -> dict[str, str]:
    return dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal", **extra)


def run_case(qemu: list[str], sdk: Path, case: Case, out: Path, env: dict[str, str]) -> None:
    cmd = [*qemu, str(sdk / "bin" / "executorch_runner"), str(case.pte), "--method", case.method]
    cmd += ["--output-dir", str(out)]
    for i in case.inputs:
        cmd += ["--input", str(i)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for i, ref_path in enumerate(case.outputs):
        ref = np.load(ref_path)
        got = np.load(out / f"out{i}.npy")
        assert got.dtype == ref.dtype and got.shape == ref.shape, (i, got.dtype, got.shape, ref.dtype, ref.shape)
        if np.issubdtype(ref.dtype, np.floating):
            np.testing.assert_allclose(got, ref, atol=case.atol, rtol=case.rtol, err_msg=f"output {i}")
        else:
            np.testing.assert_array_equal(got, ref, err_msg=f"output {i}")


def elf_header(path: Path) -> dict[str, str]:
    text = subprocess.run(["readelf", "-h", str(path)], capture_output=True, text=True, check=True).stdout
    return {k.strip(): v.strip() for k, v in re.findall(r"^\s*([^:\n]+):\s*(.*)$", text, re.M)}


def test_sdk_is_aarch64_with_sonames_and_runpaths(a64_sdk: Path) -> None:
    files = check_artifacts.elf_files(a64_sdk)
    names = {p.relative_to(a64_sdk).as_posix() for p in files}
    # Everything but CUDA and the Python extension.
    for stem in ("", "_threadpool", "_kernels", "_kernels_quantized", "_llm", "_xnnpack"):
        assert f"lib/libexecutorch{stem}.so.0.1" in names, sorted(names)
    assert "bin/executorch_runner" in names
    assert not [n for n in names if "cuda" in n or "_C." in n], sorted(names)
    for path in files:
        header = elf_header(path)
        assert (header["Class"], header["Machine"]) == ("ELF64", "AArch64"), (path, header)
    report = check_artifacts.Report()
    check_artifacts.check_elf(a64_sdk, report)
    check_artifacts.check_exact_runpaths(a64_sdk, "prefix", report)
    check_artifacts.check_paths(a64_sdk, [str(REPO), str(Path.home())], report)
    check_artifacts.check_owners(a64_sdk, report)
    assert report.ok, report.checks


def test_unit_tests(qemu: list[str], a64_build: Path) -> None:
    exe = built_program(a64_build, "unit_tests", BUILD_AARCH64)
    env = quiet(EXECUTORCH_NUM_THREADS="3")
    proc = subprocess.run([*qemu, str(exe), str(FIXTURES)], capture_output=True, text=True, env=env, timeout=300)
    assert gtest_passed(proc) >= 10


@pytest.mark.parametrize("isa", ["dotprod", "neon", "baseline"])
def test_kernel_tests(qemu: list[str], a64_build: Path, isa: str) -> None:
    # The shared GEMM (fp32 blocked, packed, indirect and depthwise; int8 with SDOT), Winograd, transposes and sigmoid
    # against references, at every ISA level, and the kernels library loaded as a component.
    exe = built_program(a64_build, "executorch_kernels_test", BUILD_AARCH64)
    env = quiet(EXECUTORCH_GEMM_ISA=isa)
    filt = "*" if isa == "dotprod" else "-" + INT8_TESTS
    proc = subprocess.run(
        [*qemu, str(exe), "--gtest_filter=" + filt], capture_output=True, text=True, env=env, timeout=300
    )
    # Every listed test ran and passed (none skipped), the int8 ones too where the CPU has dotprod.
    assert gtest_passed(proc) == gtest_listed([*qemu, str(exe)], filt)
    if isa == "dotprod":
        assert gtest_listed([*qemu, str(exe)], INT8_TESTS) >= 4


def test_int8_kernel_is_chosen_at_run_time(qemu: list[str], a64_build: Path) -> None:
    # On a CPU without dotprod the int8 kernels say they are not there (getauxval), so their callers keep their fp32
    # paths.
    exe = built_program(a64_build, "executorch_kernels_test", BUILD_AARCH64)
    cmd = [qemu[0], "-cpu", NO_DOTPROD_CPU, *qemu[1:], str(exe), f"--gtest_filter={INT8_TESTS}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet(), timeout=300)
    assert proc.returncode == 0 and proc.stdout.count("[  SKIPPED ] Kernels.") == 8, proc.stdout[-3000:]


def test_xnnpack_payload_damage_fails_cleanly(qemu: list[str], a64_build: Path) -> None:
    # Not the random bit-flip loop (2 minutes under QEMU): the payload reader's code is the same as on x86-64,
    # where tests/test_xnnpack.py runs that loop under ASan.
    exe = built_program(a64_build, "xnnpack_payload_test", BUILD_AARCH64)
    cmd = [*qemu, str(exe), str(FIXTURES), "--gtest_filter=-XnnpackPayload.RandomFlipsNeverCrash"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet(), timeout=300)
    assert gtest_passed(proc) >= 3


def test_xnnpack_weights_held_once(qemu: list[str], a64_build: Path) -> None:
    # Weights released after packing and buffers shared on the NEON / dotprod paths (tests/test_xnnpack.py).
    exe = built_program(a64_build, "xnnpack_memory_test", BUILD_AARCH64)
    proc = subprocess.run([*qemu, str(exe), str(FIXTURES)], capture_output=True, text=True, env=quiet(), timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert gtest_passed(proc) == 2


def test_every_fixture_is_covered() -> None:
    assert {c.fixture for c in PORTABLE} == {fx["name"] for fx in MANIFEST["fixtures"]}
    assert {c.fixture for c in XNNPACK} == {fx["name"] for fx in MANIFEST["fixtures"] if "xnnpack" in fx["files"]}
    assert set(BASELINE_FIXTURES) <= {c.fixture for c in XNNPACK}


@pytest.mark.parametrize("case", PORTABLE + XNNPACK, ids=[c.id for c in PORTABLE + XNNPACK])
def test_fixture_matches_reference(qemu: list[str], a64_sdk: Path, case: Case, tmp_path: Path) -> None:
    run_case(qemu, a64_sdk, case, tmp_path, quiet())


@pytest.mark.parametrize("fixture", BASELINE_FIXTURES)
def test_baseline_gemm_matches_reference(qemu: list[str], a64_sdk: Path, fixture: str, tmp_path: Path) -> None:
    for case in (c for c in XNNPACK if c.fixture == fixture):
        out = tmp_path / str(case.index)
        out.mkdir()
        run_case(qemu, a64_sdk, case, out, quiet(EXECUTORCH_GEMM_ISA="baseline"))


def test_cmake_consumer_cross_builds_and_runs(qemu: list[str], a64_sdk: Path, tmp_path: Path) -> None:
    check_cross_consumer(qemu, a64_sdk, tmp_path)


def check_cross_consumer(qemu: list[str], prefix: Path, tmp_path: Path) -> None:
    """The README's consumer (tests/sdk_app) cross-built against the aarch64 SDK in `prefix` with the same toolchain
    file: find_package finds the aarch64 package, the app runs under QEMU and finds the kernels beside the runtime,
    and its output equals the prefix's executorch_runner's."""
    src = tmp_path / "app src"
    shutil.copytree(REPO / "tests" / "sdk_app", src)
    build = tmp_path / "app build"
    toolchain = REPO / "cmake" / "toolchains" / "aarch64-linux-gnu.cmake"
    configure = ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_TOOLCHAIN_FILE={toolchain}"]
    proc = subprocess.run([*configure, f"-DCMAKE_PREFIX_PATH={prefix}"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    proc = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    app = build / "app"
    assert elf_header(app)["Machine"] == "AArch64"
    pte = FIXTURES / "add_mul" / "portable.pte"
    proc = subprocess.run([*qemu, str(app), str(pte)], capture_output=True, text=True, env=quiet(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = np.array([float(x) for x in proc.stdout.split()], dtype=np.float32)
    inp = tmp_path / "in.npy"
    np.save(inp, np.arange(8, dtype=np.float32).reshape(2, 4))  # the app's input (tests/sdk_app/main.cpp)
    runner = [*qemu, str(prefix / "bin" / "executorch_runner"), str(pte), "--input", str(inp)]
    subprocess.run([*runner, "--output-dir", str(tmp_path)], check=True, capture_output=True, env=quiet())
    np.testing.assert_allclose(got, np.load(tmp_path / "out0.npy").ravel(), rtol=1e-6, atol=1e-6)


def run_quantized(qemu: list[str], sdk: Path, case: QCase, out: Path) -> bool:
    """Runs one quantized fixture; checks it against upstream's output as tests/test_quantized.py does (one output
    quantization step, or fp32 rounding for fp32 outputs). True when it is bit-exact."""
    cmd = [*qemu, str(sdk / "bin" / "executorch_runner"), str(case.pte), "--output-dir", str(out)]
    for path in case.inputs:
        cmd += ["--input", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return check_outputs(case, out)


@pytest.mark.parametrize("cpu", ["max", NO_DOTPROD_CPU])
def test_quantized_fixtures_match_upstream(qemu: list[str], a64_sdk: Path, cpu: str, tmp_path: Path) -> None:
    # Static int8, dynamic int8 and 8da4w programs (tests/fixtures/quantized): with the SDOT kernel (QEMU's `max`
    # CPU has dotprod) the integer paths reproduce upstream as on x86-64 (mostly bit-exact); without it the fp32
    # fallback stays within one output step.
    exact = 0
    static = [c for c in QUANTIZED if c.variant == "xnnpack_q8" and c.output_scale is not None]
    for case in QUANTIZED:
        out = tmp_path / case.id
        out.mkdir()
        exact += run_quantized([qemu[0], "-cpu", cpu, *qemu[1:]], a64_sdk, case, out) and case in static
    if cpu == "max":
        assert exact >= 0.75 * len(static), f"{exact} of {len(static)} static int8 XNNPACK cases are bit-exact"
