"""The XNNPACK delegate (libexecutorch_xnnpack): upstream XNNPACK-delegated programs run and match eager PyTorch,
and damaged payloads fail with an error, never a crash (the damage tests run under ASan/UBSan)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from et_common import (
    BUILD_SDK,
    FIXTURES,
    INT8_KERNEL_TESTS,
    MANIFEST,
    Case,
    built_program,
    damage_fixtures,
    fixture_cases,
    gtest_passed,
)

XNNPACK = fixture_cases("xnnpack")
XNNPACK_FIXTURES = [fx["name"] for fx in MANIFEST["fixtures"] if "xnnpack" in fx["files"]]
LIB = "libexecutorch_xnnpack.so.0.1"
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "EXECUTORCH_LOG_LEVEL": "fatal",
}


def run_case(sdk: Path, case: Case, out_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [str(sdk / "bin" / "executorch_runner"), str(case.pte), "--method", case.method, "--output-dir", str(out_dir)]
    for i in case.inputs:
        cmd += ["--input", str(i)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out_dir, timeout=120)


def test_real_networks_are_there() -> None:
    # torchvision / timm / upstream-zoo networks with random weights (tests/fixtures/README.md)
    assert len(REAL_NETWORKS) >= 10
    expected = {"tv_mobilenet_v2", "tv_resnet18", "tv_efficientnet_b0", "timm_deit_tiny", "kws_ds_cnn"}
    assert expected <= set(REAL_NETWORKS)


def test_every_xnnpack_fixture_is_covered() -> None:
    assert len(XNNPACK_FIXTURES) >= 15
    assert {"dynamic_batch", "transformer", "gpt_decoder"} <= set(XNNPACK_FIXTURES)
    assert len({c.fixture for c in XNNPACK}) == len(XNNPACK_FIXTURES)


@pytest.mark.parametrize("case", XNNPACK, ids=[c.id for c in XNNPACK])
def test_xnnpack_fixture_matches_reference(sdk: Path, case: Case, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    assert (sdk / "lib" / LIB).is_file(), "the XNNPACK delegate is not installed in the SDK"
    proc = run_case(sdk, case, tmp_path, quiet_env)
    assert proc.returncode == 0, proc.stderr
    for i, ref_path in enumerate(case.outputs):
        ref = np.load(ref_path)
        got = np.load(tmp_path / f"out{i}.npy")
        assert got.dtype == ref.dtype, f"output {i}: dtype {got.dtype}, expected {ref.dtype}"
        assert got.shape == ref.shape, f"output {i}: shape {got.shape}, expected {ref.shape}"
        if np.issubdtype(ref.dtype, np.floating):
            np.testing.assert_allclose(got, ref, atol=case.atol, rtol=case.rtol)
        else:
            np.testing.assert_array_equal(got, ref)


REAL_NETWORKS = tuple(fx["name"] for fx in MANIFEST["fixtures"] if "real network" in fx.get("notes", []))
CONV_FIXTURES = ("cnn", "mobilenet", "resnet_block", "mobilenet_v3", "unet", "audio_conv1d", "gpt_decoder")


@pytest.mark.parametrize("isa", ["avx2", "baseline"])
@pytest.mark.parametrize("fixture", CONV_FIXTURES + REAL_NETWORKS)
def test_every_gemm_isa_path_matches_reference(
    sdk: Path, tmp_path: Path, quiet_env: dict[str, str], fixture: str, isa: str
) -> None:
    # The shared GEMM picks its micro-kernels (and the depthwise kernel) per CPU; EXECUTORCH_GEMM_ISA caps the
    # choice so the AVX2 and baseline kernels are checked on an AVX-512 machine too.
    env = dict(quiet_env, EXECUTORCH_GEMM_ISA=isa)
    for case in (c for c in XNNPACK if c.fixture == fixture):
        out = tmp_path / str(case.index)
        out.mkdir()
        proc = run_case(sdk, case, out, env)
        assert proc.returncode == 0, proc.stderr
        for i, ref_path in enumerate(case.outputs):
            np.testing.assert_allclose(np.load(out / f"out{i}.npy"), np.load(ref_path), atol=case.atol, rtol=case.rtol)


# Fixtures with fp32 3x3 convolutions large enough for Winograd F(4x4, 3x3) (16 or more channels, 4x4 output tiles
# at least 16 per image).
WINOGRAD_FIXTURES = ("tv_resnet18", "tv_squeezenet1_1", "resnet_block")


@pytest.mark.parametrize("fixture", WINOGRAD_FIXTURES)
def test_winograd_convolutions_match_reference_and_direct(
    sdk: Path, tmp_path: Path, quiet_env: dict[str, str], fixture: str
) -> None:
    # The same program with Winograd (the default) and with every convolution direct (EXECUTORCH_WINOGRAD=0): both
    # within the fixture's tolerance of eager PyTorch, and not bit-identical (the Winograd path really ran).
    for case in (c for c in XNNPACK if c.fixture == fixture):
        outs = {}
        for mode in ("1", "0"):
            out = tmp_path / f"{case.index}_{mode}"
            out.mkdir()
            proc = run_case(sdk, case, out, dict(quiet_env, EXECUTORCH_WINOGRAD=mode))
            assert proc.returncode == 0, proc.stderr
            outs[mode] = np.load(out / "out0.npy")
            np.testing.assert_allclose(outs[mode], np.load(case.outputs[0]), atol=case.atol, rtol=case.rtol)
        assert not np.array_equal(outs["1"], outs["0"]), f"{fixture}: no convolution took the Winograd path"


@pytest.mark.parametrize("isa", ["native", "avx2", "baseline"])
def test_cpu_base_kernels_on_every_isa_path(release_build: Path, isa: str) -> None:
    # The delegate's shared kernels against references, each ISA level's code: the blocked GEMM (alpha, beta, strided
    # C, several blocks), packed / indirect GEMM (several K blocks, row chunks, the column split) and depthwise (with
    # the fused requantization), the int8 GEMMs, 2-D transposes (tiles, the 3-row interleave, the pool split),
    # sigmoid / SiLU (the AVX-512 path without a division, NaN, infinities, clamps) and Winograd convolutions.
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    if isa != "native":
        env["EXECUTORCH_GEMM_ISA"] = isa
    exe = built_program(release_build, "executorch_kernels_test", BUILD_SDK)
    filt = "--gtest_filter=*Gemm*:*Depthwise*:*Transpose*:*Sigmoid*:*Winograd*"
    if isa == "baseline":  # the int8 kernels skip below AVX2
        filt += ":-" + INT8_KERNEL_TESTS
    proc = subprocess.run([str(exe), filt], capture_output=True, text=True, env=env, timeout=600)
    assert gtest_passed(proc) >= 6


@pytest.mark.parametrize("isa", ["native", "baseline"])
def test_weights_held_once_and_buffers_shared(release_build: Path, isa: str) -> None:
    # The heap a loaded program holds (glibc's count, so the release build, not ASan's allocator): weights packed at
    # init are not kept a second time (fp32 named data, int8 weights' float copies), and the delegate calls of a
    # transformer split by its LayerNorms share one set of intermediate buffers (the convolutions direct: see
    # xnnpack_memory_test.cpp).
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    if isa != "native":
        env["EXECUTORCH_GEMM_ISA"] = isa
    exe = built_program(release_build, "xnnpack_memory_test", BUILD_SDK)
    proc = subprocess.run([str(exe), str(FIXTURES)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert gtest_passed(proc) == 2


FUSED = [
    ("mobilenet_v3", "Hardswish"),
    ("tv_mobilenet_v3_small", "Hardswish"),
    ("resnet_block", "Add"),
    ("tv_resnet18", "Add"),
    ("tv_mobilenet_v2", "Add"),
]


@pytest.mark.parametrize(("fixture", "kind"), FUSED, ids=[f"{f}-{k}" for f, k in FUSED])
def test_activation_and_residual_add_run_inside_the_layer_before_them(
    sdk: Path, tmp_path: Path, quiet_env: dict[str, str], fixture: str, kind: str
) -> None:
    # Every Hardswish of these MobileNet-V3 programs, and every residual Add of these ResNet / MobileNet-V2 ones,
    # follows a convolution read by it alone: that layer applies it to each block of its output as it finishes it
    # (fuse_activations), so none runs as a node of its own (the profile counts node runs by kind), and the outputs
    # still match eager PyTorch.
    case = next(c for c in XNNPACK if c.fixture == fixture)
    proc = run_case(sdk, case, tmp_path, dict(quiet_env, EXECUTORCH_XNNPACK_PROFILE="1"))
    assert proc.returncode == 0, proc.stderr
    kinds = {line.split()[0] for line in proc.stderr.splitlines() if line.startswith("  ")}
    assert "Conv2d" in kinds, proc.stderr
    assert kind not in kinds, proc.stderr
    for i, ref_path in enumerate(case.outputs):
        np.testing.assert_allclose(np.load(tmp_path / f"out{i}.npy"), np.load(ref_path), atol=case.atol, rtol=case.rtol)


def test_silu_runs_inside_the_layer_before_it(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    # EfficientNet's SiLU (x * sigmoid(x), one Multiply node after fuse_silu) after each of its convolutions runs
    # inside that convolution: the Multiply nodes left are the squeeze-excite scales, one per Sigmoid (the gate).
    case = next(c for c in XNNPACK if c.fixture == "tv_efficientnet_b0")
    proc = run_case(sdk, case, tmp_path, dict(quiet_env, EXECUTORCH_XNNPACK_PROFILE="1"))
    assert proc.returncode == 0, proc.stderr
    runs = {f[0]: int(f[-3]) for f in (ln.split() for ln in proc.stderr.splitlines()) if f[-2:] == ["node", "runs"]}
    assert runs.get("Sigmoid", 0) >= 8, proc.stderr
    assert runs.get("Multiply") == runs["Sigmoid"], proc.stderr
    assert "Add" not in runs, proc.stderr
    for i, ref_path in enumerate(case.outputs):
        np.testing.assert_allclose(np.load(tmp_path / f"out{i}.npy"), np.load(ref_path), atol=case.atol, rtol=case.rtol)


def test_dynamic_batch_runs_every_batch_size(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    cases = [c for c in XNNPACK if c.fixture == "dynamic_batch"]
    batches = {np.load(c.inputs[0]).shape[0] for c in cases}
    assert {1, 3, 8} <= batches
    for c in cases:
        out = tmp_path / str(c.index)
        out.mkdir()
        proc = run_case(sdk, c, out, quiet_env)
        assert proc.returncode == 0, proc.stderr
        assert np.load(out / "out0.npy").shape == np.load(c.outputs[0]).shape


def thread_cpu_ticks(pid: int) -> dict[int, int]:
    """utime + stime (clock ticks) of every thread of a running process, by thread id."""
    ticks = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread (or the process) ended meanwhile
        ticks[int(task.name)] = int(fields[11]) + int(fields[12])
    return ticks


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/task")
@pytest.mark.parametrize("threads", [1, 3])
def test_delegate_runs_on_the_configured_pool(
    sdk: Path, tmp_path: Path, quiet_env: dict[str, str], threads: int
) -> None:
    # EXECUTORCH_NUM_THREADS sizes the one process-wide pool, and the delegate's convolutions run on exactly that
    # many threads: the process never has more threads than that (the caller + threads - 1 workers; no second
    # pool, no XNNPACK/pthreadpool threads), and with a pool every one of them (up to the CPU count) does work.
    case = next(c for c in XNNPACK if c.fixture == "resnet_block")
    cmd = [str(sdk / "bin" / "executorch_runner"), str(case.pte), "--repeat", "10000"]
    for i in case.inputs:
        cmd += ["--input", str(i)]
    # EXECUTORCH_GEMM_PARALLEL_MIN=0: split every product, even the fixture's small ones (by default products
    # under 1e6 multiply-adds stay on the caller).
    env = dict(quiet_env, EXECUTORCH_NUM_THREADS=str(threads), EXECUTORCH_GEMM_PARALLEL_MIN="0")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    # Per thread, the most CPU time any sample saw: the last samples may come while the process exits, after its
    # workers were joined.
    most, ticks = 0, {}
    deadline = time.monotonic() + 300
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                sample = thread_cpu_ticks(proc.pid)
            except OSError:
                break  # exited between poll() and the read
            most = max(most, len(sample))
            for tid, t in sample.items():
                ticks[tid] = max(ticks.get(tid, 0), t)
            time.sleep(0.02)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "median_us" in out
    assert most == threads, f"{most} threads seen with EXECUTORCH_NUM_THREADS={threads}"
    busy = [tid for tid, t in ticks.items() if t > 0]
    # With more pool threads than CPUs a descheduled worker's share goes to whoever runs (the pool's dynamic
    # distribution), so a worker may do nothing; then at least as many threads as there are CPUs did work.
    cpus = len(os.sched_getaffinity(0))
    assert len(busy) >= min(threads, cpus), f"threads that ran: {ticks} ({cpus} CPUs)"


def test_missing_delegate_library_names_the_package(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    # A copy of the SDK without the delegate: the error names the backend and the package to install.
    bare = tmp_path / "bare"
    shutil.copytree(sdk, bare, symlinks=True)
    for lib in (bare / "lib").glob("libexecutorch_xnnpack.so*"):
        lib.unlink()
    case = next(c for c in XNNPACK if c.fixture == "mlp")
    proc = run_case(bare, case, tmp_path, quiet_env)
    assert proc.returncode == 2
    assert "XnnpackBackend" in proc.stderr and "executorch-xnnpack" in proc.stderr, proc.stderr


def test_library_exports_only_its_descriptor(sdk: Path) -> None:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm is not installed")
    proc = subprocess.run([nm, "-D", "--defined-only", str(sdk / "lib" / LIB)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    symbols = [line.split()[-1] for line in proc.stdout.splitlines() if line.strip()]
    assert not [s for s in symbols if s.startswith(("xnn_", "pthreadpool_", "cpuinfo_"))]
    # Only the component descriptor (executorch/runtime/platform/component.h) is exported.
    assert symbols == ["executorch_component"], f"unexpected exports: {symbols[:20]}"
    readelf = shutil.which("readelf")
    if readelf is not None:
        dyn = subprocess.run([readelf, "-d", str(sdk / "lib" / LIB)], capture_output=True, text=True).stdout
        assert f"[{LIB}]" in dyn and "[$ORIGIN]" in dyn
        assert "libxnnpack" not in dyn


def test_cmake_package_exports_the_target(sdk: Path) -> None:
    targets = sdk / "lib" / "cmake" / "executorch" / "executorch-xnnpack-targets.cmake"
    assert targets.is_file()
    assert "executorch::xnnpack" in targets.read_text()


@pytest.mark.slow  # over a minute in the release build already
def test_payload_damage_fails_cleanly(asan_build: Path) -> None:
    # Targeted damage to the payload (header, identifier, ids, constants, dims, dtypes) of real programs.
    exe = asan_build / "bin" / "xnnpack_payload_test"
    env = dict(os.environ, **SAN_ENV)
    proc = subprocess.run([str(exe), str(FIXTURES)], capture_output=True, text=True, env=env, timeout=600)
    assert gtest_passed(proc) >= 3  # the undamaged programs, the flips and the targeted damage


@pytest.mark.parametrize("name", damage_fixtures("xnnpack"))
def test_damaged_xnnpack_programs_fail_cleanly(asan_build: Path, name: str) -> None:
    # The runtime's robustness program (truncations, identifiers, bit flips) on the delegated programs, which
    # reach the delegate's payload reader and interpreter.
    pte = FIXTURES / name / "xnnpack.pte"
    env = dict(os.environ, **SAN_ENV)
    proc = subprocess.run(
        [str(asan_build / "bin" / "robustness_test"), str(pte), "--flips", "200"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert gtest_passed(proc) >= 6
