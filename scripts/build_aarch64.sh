#!/usr/bin/env bash
# Cross-builds the C++ SDK for Linux aarch64 on an x86-64 Debian host (docs/aarch64.md) and installs it.
#   scripts/build_aarch64.sh [--prefix DIR] [--build-dir DIR]
# Output:
#   build/aarch64/        the cross build tree (its test programs: bin/unit_tests, bin/executorch_kernels_test, ...)
#   build/sdk-aarch64/    the aarch64 SDK as an install prefix (lib/, include/, bin/, lib/cmake/executorch, ...)
# Everything but CUDA and the Python extension: the runtime, thread pool, kernels, kernels_quantized, llm, XNNPACK
# delegate, executorch_runner and the GoogleTest programs. tests/test_aarch64.py runs them under qemu-aarch64-static.
# Not in dist/: that directory belongs to scripts/build_sdk.sh. Rebuilds are incremental (build/aarch64 is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
prefix=build/sdk-aarch64
build=build/aarch64
triple=aarch64-linux-gnu
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 [--prefix DIR] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done

die() { echo "error: $*" >&2; exit 2; }
start=$(date +%s)
step() { printf '\n== [%s, %ds] %s\n' "$(date +%H:%M:%S)" "$(($(date +%s) - start))" "$1"; }

step "check the cross toolchain"
for tool in cmake:cmake ninja:ninja-build flatc:flatbuffers-compiler $triple-gcc:gcc-$triple \
            $triple-g++:g++-$triple qemu-aarch64-static:qemu-user-static readelf:binutils; do
  command -v "${tool%%:*}" >/dev/null || die "'${tool%%:*}' is missing (Debian package ${tool#*:}): run scripts/setup.sh"
done
[ -f /usr/lib/$triple/cmake/GTest/GTestConfig.cmake ] ||
  die "GoogleTest for arm64 is missing (Debian package libgtest-dev:arm64): run scripts/setup.sh"
pcre2=$repo/build/aarch64-pcre2/files/usr  # Debian's libpcre2-dev:arm64, unpacked by scripts/setup.sh
[ -f "$pcre2/lib/$triple/libpcre2-8.a" ] ||
  die "PCRE2 for arm64 is missing ($pcre2/lib/$triple/libpcre2-8.a, from libpcre2-dev:arm64): run scripts/setup.sh"
cache=$build/CMakeCache.txt
if [ -f "$cache" ]; then
  home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
  [ "$(cd "$home" 2>/dev/null && pwd -P)" = "$repo" ] ||
    die "$build was configured from another source tree ($home): remove it (rm -rf $build) and run again"
  grep -q '^CMAKE_SYSTEM_PROCESSOR:.*=aarch64$\|^CMAKE_TOOLCHAIN_FILE:.*aarch64-linux-gnu.cmake$' "$cache" ||
    die "$build is not an aarch64 cross build: remove it (rm -rf $build) or pass another --build-dir"
fi
if [ -e "$prefix" ] && [ -n "$(ls -A "$prefix")" ] && [ ! -f "$prefix/lib/cmake/executorch/executorch-config.cmake" ]; then
  die "$prefix exists and is not an executorch SDK prefix: choose another --prefix or remove it"
fi

step "configure $build (cmake/toolchains/$triple.cmake)"
mkdir -p "$(dirname "$build")"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/$triple.cmake \
    -DCMAKE_BUILD_TYPE=Release -DEXECUTORCH_BUILD_CUDA=OFF -DEXECUTORCH_BUILD_PYTHON=OFF \
    -DPCRE2_INCLUDE_DIR="$pcre2/include" -DPCRE2_LIBRARY="$pcre2/lib/$triple/libpcre2-8.a" \
    >"$build.configure.log" 2>&1; then
  cat "$build.configure.log" >&2
  die "configuring $build failed (output above)"
fi

step "build $build"
cmake --build "$build"

step "install into $prefix"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
machine=$(readelf -h "$prefix/bin/executorch_runner" | sed -n 's/^ *Machine: *//p')
[ "$machine" = AArch64 ] || die "$prefix/bin/executorch_runner is not an aarch64 program (Machine: $machine)"
echo "== done in $(($(date +%s) - start)) s: aarch64 SDK at $prefix, test programs in $build/bin" \
  "(tests: .venv/bin/python -m pytest tests/test_aarch64.py)"
