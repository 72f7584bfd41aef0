#!/usr/bin/env bash
# Runs every test from a clean checkout: installs what is missing, runs the main job (scripts/build_sdk.sh: the SDK,
# the aarch64 cross build, wheels and conda channel), a sanitizer build (AddressSanitizer + UBSan) and the libFuzzer
# target, then runs the pytest suite in tests/.
#   scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build_sdk.sh

echo "== sanitizer build (build/asan)"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEXECUTORCH_SANITIZE=ON >/dev/null
cmake --build build/asan

echo "== fuzzer build (build/fuzz, clang-19)"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19 -DEXECUTORCH_BUILD_FUZZER=ON >/dev/null
cmake --build build/fuzz --target pte_fuzzer ptd_fuzzer tokenizer_fuzzer

echo "== tests"
.venv/bin/python -m ruff check scripts tests src
.venv/bin/python -m ruff format --check scripts tests src
# Two pytest workers (pytest-xdist), each test file on one of them: most tests wait on one single-threaded process
# (a runner, qemu, pip, the fuzzers), so two keep both cores busy; ET_TEST_WORKERS=0 runs them in this process.
ET_SDK_PREFIX="$PWD/dist/executorch-sdk" ET_ASAN_BUILD="$PWD/build/asan" ET_FUZZ_BUILD="$PWD/build/fuzz" \
  ET_RELEASE_BUILD="$PWD/build/release" .venv/bin/python -m pytest tests -n "${ET_TEST_WORKERS:-2}" --dist loadfile "$@"
