"""Unit tests, damaged programs and fuzzing, all under AddressSanitizer + UndefinedBehaviorSanitizer."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from et_common import (
    BUILD_ASAN,
    FIXTURES,
    INT8_KERNEL_TESTS,
    REPO,
    built_program,
    damage_fixtures,
    gtest_passed,
)

# LeakSanitizer's tracer crashes in this sandbox when the pool's worker threads are alive at exit (seen with
# the mobilenet fixture), so leak checking runs in the unit tests only (LEAK_ENV); memory errors and undefined
# behaviour are checked everywhere.
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "EXECUTORCH_LOG_LEVEL": "fatal",
}


LEAK_ENV = dict(SAN_ENV, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")


def damage_program(asan_build: Path, pte: Path, flips: int) -> subprocess.CompletedProcess[str]:
    """robustness_test on a program under the sanitizers: truncations, identifier, targeted and random damage."""
    env = dict(os.environ, **SAN_ENV)
    cmd = [str(asan_build / "bin" / "robustness_test"), str(pte), "--flips", str(flips)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


def test_unit_tests_under_sanitizers(asan_build: Path) -> None:
    env = dict(os.environ, **LEAK_ENV, EXECUTORCH_NUM_THREADS="3")
    proc = subprocess.run(
        [str(asan_build / "bin" / "unit_tests"), str(FIXTURES)], capture_output=True, text=True, env=env, timeout=600
    )
    assert gtest_passed(proc) >= 8  # none skipped: the Module tests ran on the fixtures too


@pytest.mark.parametrize("name", damage_fixtures("portable"))
def test_damaged_programs_fail_cleanly(asan_build: Path, name: str) -> None:
    # truncations, identifiers, flips, the targeted and header cases all ran
    assert gtest_passed(damage_program(asan_build, FIXTURES / name / "portable.pte", 200)) >= 6


@pytest.mark.parametrize("variant", ["kv_portable", "kv_sdpa_xnnpack", "kv_8da4w", "kv_int8_cache"])
def test_damaged_llm_programs_fail_cleanly(asan_build: Path, variant: str) -> None:
    # export_llama programs (mutable KV-cache buffers, llama:: kernels, XNNPACK fp32 and 8da4w payloads): damaged
    # copies are refused or run, never crash; the intact program runs on zero tokens.
    assert gtest_passed(damage_program(asan_build, FIXTURES / "llm" / f"{variant}.pte", 100)) >= 6


@pytest.mark.slow  # every ISA path and kernel, unoptimized under ASan
def test_kernels_under_sanitizers(asan_build: Path) -> None:
    # GEMM/convolution against naive references on every ISA path, and random arguments into every kernel.
    env = dict(os.environ, **SAN_ENV)
    cmd = [str(asan_build / "bin" / "executorch_kernels_test")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert gtest_passed(proc) >= 5


@pytest.mark.parametrize("isa", ["avx2", "baseline"])
def test_winograd_and_gemm_under_sanitizers_on_capped_isa(asan_build: Path, isa: str) -> None:
    # The Winograd transforms and the GEMMs they call on the narrower ISA paths too (the run above takes the
    # machine's own): tiles at the image edges, channel tails, the post-op, under ASan / UBSan; on AVX2 the int8
    # kernels without VNNI too.
    env = dict(os.environ, **SAN_ENV, EXECUTORCH_GEMM_ISA=isa)
    exe = asan_build / "bin" / "executorch_kernels_test"
    filt = "*Winograd*:*PackedIndirectGemm*" + (":" + INT8_KERNEL_TESTS if isa == "avx2" else "")
    proc = subprocess.run(
        [str(exe), "--gtest_filter=" + filt],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert gtest_passed(proc) >= (5 if isa == "avx2" else 2)


def run_fuzzer(fuzzer: Path, seed_corpus: Path, tmp_path: Path, **extra_env: str) -> None:
    """libFuzzer `fuzzer` for ET_FUZZ_SECONDS (default 60) under the sanitizers, from a copy of `seed_corpus`."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for src in seed_corpus.iterdir():
        (corpus / src.name).write_bytes(src.read_bytes())
    seconds = os.environ.get("ET_FUZZ_SECONDS", "60")
    env = dict(os.environ, **SAN_ENV, **extra_env)
    proc = subprocess.run(
        [
            str(fuzzer),
            f"-max_total_time={seconds}",
            "-rss_limit_mb=4096",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=int(seconds) + 300,
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert "Done" in proc.stderr


def test_fuzzer_runs_clean(fuzz_build: Path, tmp_path: Path) -> None:
    run_fuzzer(fuzz_build / "bin" / "pte_fuzzer", REPO / "tests" / "fuzz" / "corpus", tmp_path)


# The .ptd fixtures with one data file, in the order ptd_fuzzer's selector byte indexes them (tests/fuzz/ptd_corpus).
PTD_PROGRAMS = ["portable_mlp", "xnnpack_cnn", "xnnpack_mixed", "xnnpack_q8", "mutable_external"]


def test_damaged_data_files_fail_cleanly(asan_build: Path) -> None:
    # .ptd files (program-data separation) truncated, flipped and damaged field by field, loaded and run with their
    # programs: refused with an error, or run, never a sanitizer report.
    pairs = [f"{FIXTURES / 'ptd' / n / 'model.pte'}={FIXTURES / 'ptd' / n / 'model.ptd'}" for n in PTD_PROGRAMS]
    env = dict(os.environ, **SAN_ENV)
    cmd = [str(built_program(asan_build, "ptd_robustness_test", BUILD_ASAN)), *pairs, "--flips", "100"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert gtest_passed(proc) >= 4, proc.stdout[-6000:] + proc.stderr[-3000:]


def test_data_file_fuzzer_runs_clean(fuzz_build: Path, tmp_path: Path) -> None:
    programs = ":".join(str(FIXTURES / "ptd" / n / "model.pte") for n in PTD_PROGRAMS)
    corpus = REPO / "tests" / "fuzz" / "ptd_corpus"
    run_fuzzer(fuzz_build / "bin" / "ptd_fuzzer", corpus, tmp_path, ET_PTD_FUZZ_PROGRAMS=programs)


def test_tokenizer_fuzzer_runs_clean(fuzz_build: Path, tmp_path: Path) -> None:
    # Tokenizer files (tests/fixtures/tokenizers) as the seed corpus, each behind its reader's selector byte.
    tok = FIXTURES / "tokenizers"
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for selector, name in enumerate(["bytelevel.json", "tiktoken.model", "sp_bpe.model", "llama2c.bin", "tekken.json"]):
        (seeds / name).write_bytes(bytes([selector]) + (tok / name).read_bytes())
    (seeds / "metaspace.json").write_bytes(b"\x00" + (tok / "metaspace" / "tokenizer.json").read_bytes())
    run_fuzzer(fuzz_build / "bin" / "tokenizer_fuzzer", seeds, tmp_path)


def test_damaged_bundled_programs_fail_cleanly(asan_build: Path, tmp_path: Path) -> None:
    # .bpte files (tests/fixtures/bundled), truncated and byte-damaged, through `executorch_runner --bundled`
    # with an ETDump: refused with a message, or run with their cases passing or failing; never a sanitizer report.
    runner = built_program(asan_build, "executorch_runner", BUILD_ASAN)
    env = dict(os.environ, **SAN_ENV)
    rng = random.Random(11)
    path, etdump = tmp_path / "damaged.bpte", tmp_path / "run.etdp"
    outcomes: dict[int, int] = {}
    for name in ["portable.bpte", "xnnpack.bpte"]:
        good = (FIXTURES / "bundled" / name).read_bytes()
        copies = [good, *(good[:n] for n in (0, 7, 64, len(good) // 3, len(good) - 1))]
        for _ in range(30):
            data = bytearray(good)
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            copies.append(bytes(data))
        for data in copies:
            path.write_bytes(data)
            cmd = [str(runner), "--bundled", str(path), "--etdump-path", str(etdump)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
            assert proc.returncode in (0, 1, 2, 3), (proc.returncode, proc.stderr[-4000:])
            assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr, proc.stderr[-4000:]
            outcomes[proc.returncode] = outcomes.get(proc.returncode, 0) + 1
    assert outcomes.get(0, 0) >= 2 and outcomes.get(2, 0) >= 5, outcomes  # the intact files pass; damage refused
