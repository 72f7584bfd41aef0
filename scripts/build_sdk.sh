#!/usr/bin/env bash
# The main job: builds the SDK distribution from this checkout and checks it.
#   scripts/build_sdk.sh [--prefix DIR] [--build-dir DIR] [--no-cuda] [--host-only]
# Output (dist/ holds only what this script makes; dist/.builder records the source tree that made it):
#   dist/executorch-sdk/   the C++ SDK as an install prefix (lib/, include/, bin/, lib/cmake/executorch, lib/pkgconfig)
#   dist/executorch-sdk-aarch64/  the same for Linux aarch64 (unless --host-only), from the cross build
#   dist/wheels/           the executorch wheels, one per CPython of the matrix (scripts/build_wheels.py: 3.10-3.13;
#                          --host-only or EXECUTORCH_HOST_ONLY=1: only .venv's), each the Python bindings + the same
#                          SDK under site-packages/executorch, staged from the one C++ build; and the executorch-cuda
#                          wheel (the CUDA delegate). Every wheel carries its real manylinux tag (docs/packaging.md).
#                          Unless --host-only: the aarch64 wheels for the same CPythons, staged from the aarch64
#                          cross build (scripts/build_aarch64.sh: build/aarch64; docs/aarch64.md).
#   dist/conda-channel/    the conda packages (one per component, plus the executorch meta-package), offline, for
#                          linux-64 and (unless --host-only) linux-aarch64, staged from the same C++ trees
#   dist/report.json       every check on every artifact (scripts/builder_report.py), also printed as a table
# The CUDA delegate (libexecutorch_cuda, docs/cuda.md) is built when nvcc ($CUDACXX, else /usr/local/cuda/bin/nvcc)
# and the NVIDIA wheels in .venv (nvidia-cuda-runtime, nvidia-cublas: scripts/setup.sh) are there, unless
# --no-cuda: in the release tree (so the SDK prefix has it), and once more in build/cuda-wheel, a CMake tree of only the
# cuda target that the executorch-cuda wheel and the executorch-cuda conda package share.
# Rebuilds are incremental: build/release, build/pywheel, build/cuda-wheel and build/conda/python-* are kept. Wheels and
# .conda files are reproducible: SOURCE_DATE_EPOCH defaults to the commit time of HEAD (docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
prefix=dist/executorch-sdk
build=build/release
cuda=auto
host_only=${EXECUTORCH_HOST_ONLY:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --no-cuda) cuda=off; shift ;;
    --host-only) host_only=1; shift ;;
    *) echo "usage: $0 [--prefix DIR] [--build-dir DIR] [--no-cuda] [--host-only]" >&2; exit 2 ;;
  esac
done

die() { echo "error: $*" >&2; exit 2; }
start=$(date +%s)
step_start=$start
timings=()
step() {  # step NAME: closes the previous step's timing, prints a header with the elapsed time
  local now; now=$(date +%s)
  [ -z "${step_name:-}" ] || timings+=("--timing" "$step_name=$((now - step_start))")
  step_name=$1; step_start=$now
  printf '\n== [%s, %ds] %s\n' "$(date +%H:%M:%S)" "$((now - start))" "$2"
}

# ---- inputs: tools, Python environment, manifest and recipe, output and build directories
step preflight "check tools, manifest, recipe, output and build directories"
for tool in cmake:cmake ninja:ninja-build flatc:flatbuffers-compiler c++:build-essential cc:build-essential \
            patchelf:patchelf readelf:binutils nm:binutils git:git; do
  command -v "${tool%%:*}" >/dev/null || die "'${tool%%:*}' is missing (Debian package ${tool#*:}): run scripts/setup.sh"
done
[ -x .venv/bin/python ] || die ".venv is missing: run scripts/setup.sh"
.venv/bin/python -c 'import scikit_build_core, pybind11, rattler, rattler_build, auditwheel' 2>/dev/null ||
  die ".venv lacks scikit-build-core, pybind11, py-rattler, py-rattler-build or auditwheel: run scripts/setup.sh"
.venv/bin/python scripts/build_conda.py --check ||
  die "fix components.toml / recipe/ / pyproject.toml as said above (recipe: scripts/build_conda.py --write-recipe)"
# The CUDA delegate: nvcc and the NVIDIA wheels (headers + libcudart/libcublas, site-packages/nvidia/cu13).
if [ "$cuda" = auto ]; then
  nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
  nvidia=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/nvidia/cu13
  if [ ! -x "$nvcc" ]; then
    cuda=off; echo "note: no nvcc ($nvcc): the CUDA delegate is not built (set CUDACXX, or install CUDA 13)"
  elif [ ! -f "$nvidia/include/cublas_v2.h" ] || [ ! -f "$nvidia/lib/libcudart.so.13" ]; then
    cuda=off; echo "note: the NVIDIA wheels are not in .venv ($nvidia): the CUDA delegate is not built (run scripts/setup.sh)"
  else
    cuda=on; export CUDACXX=$nvcc
  fi
fi
# dist/ belongs to this script: refuse entries it did not make and output made from another source tree.
mkdir -p dist
if [ -f dist/.builder ] && [ "$(cat dist/.builder)" != "$repo" ]; then
  die "dist/ was made from another source tree ($(cat dist/.builder)): remove dist/ and run again"
fi
for entry in dist/* dist/.[!.]*; do
  [ -e "$entry" ] || [ -L "$entry" ] || continue
  case "$entry" in
    dist/executorch-sdk|dist/executorch-sdk-aarch64|dist/wheels|dist/conda-channel|dist/report.json) ;;
    dist/.builder|"$prefix") ;;
    *) die "$entry was not made by scripts/build_sdk.sh: move it out of dist/ (or remove it) and run again" ;;
  esac
done
for f in dist/wheels/* dist/conda-channel/*; do
  [ -e "$f" ] || continue
  case "$f" in
    dist/wheels/executorch-*.whl|dist/wheels/executorch_cuda-*.whl|dist/conda-channel/linux-64) ;;
    dist/conda-channel/linux-aarch64|dist/conda-channel/noarch) ;;
    *) die "$f was not made by scripts/build_sdk.sh: remove it and run again" ;;
  esac
done
if [ -e "$prefix" ] && [ -n "$(ls -A "$prefix")" ] && [ ! -f "$prefix/lib/cmake/executorch/executorch-config.cmake" ]; then
  die "$prefix exists and is not an executorch SDK prefix: choose another --prefix or remove it"
fi
echo "$repo" >dist/.builder
# Build trees configured from another checkout (a copied tree) would build the wrong sources.
for tree in "$build" build/pywheel/*/cp3* build/cuda-wheel build/conda/python-*; do
  cache=$tree/CMakeCache.txt
  [ -f "$cache" ] || continue
  home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
  [ "$(cd "$home" 2>/dev/null && pwd -P)" = "$repo" ] ||
    die "$tree was configured from another source tree ($home): remove it (rm -rf $tree) and run again"
done
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 315532800)
fi
export SOURCE_DATE_EPOCH
echo "tools, manifest and recipe ok; SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH; CUDA delegate: $cuda"
cuda_cmake=OFF
[ "$cuda" = off ] || cuda_cmake=ON

# ---- the C++ SDK
step sdk "C++ build ($build, CUDA $cuda_cmake) and install into $prefix"
mkdir -p "$(dirname "$build")"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXECUTORCH_BUILD_CUDA=$cuda_cmake \
    >"$build.configure.log" 2>&1; then
  cat "$build.configure.log" >&2
  die "configuring $build failed (output above)"
fi
cmake --build "$build"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

# ---- the wheels: the SDK components staged from $build, only executorch._C compiled per CPython (scikit-build-core,
# EXECUTORCH_PYTHON_ONLY, build/pywheel/<arch>/cp3XX; logs beside them), each retagged with its manylinux tag
pythons=$(.venv/bin/python -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
# The matrix: every CPython of et_packaging.model.PYTHONS with an interpreter here (pyenv, python3.X on PATH); a
# missing one is a note (a failure under CI=true, where the whole matrix must be built).
mkdir -p build
if [ "$host_only" != 1 ]; then
  pythons=$(.venv/bin/python scripts/build_wheels.py matrix --found 2>build/wheel-matrix.note) ||
    die "scripts/build_wheels.py matrix failed"
  if [ -s build/wheel-matrix.note ]; then
    cat build/wheel-matrix.note
    case "${CI:-}" in 1|true|TRUE|yes) die "CI=true: the wheel matrix must be complete (install the CPythons above)" ;; esac
  fi
fi
step wheel "wheels for CPython $pythons ($build -> build/pywheel -> dist/wheels)"
rm -rf dist/wheels
wheel_args=()
for v in $pythons; do wheel_args+=(--python "$v"); done
.venv/bin/python scripts/build_wheels.py build --build-dir "$build" --out dist/wheels "${wheel_args[@]}" ||
  die "the wheel build failed (output above)"

# ---- aarch64: the C++ cross build, installed as dist/executorch-sdk-aarch64 (tested under QEMU by
# tests/test_aarch64.py), and its wheels, executorch._C cross-compiled per CPython (scripts/build_wheels.py --arch).
arches=x86_64
if [ "$host_only" != 1 ]; then
  if command -v aarch64-linux-gnu-g++ >/dev/null && [ -f /usr/lib/aarch64-linux-gnu/cmake/GTest/GTestConfig.cmake ]; then
    arches="x86_64 aarch64"
    step aarch64 "aarch64 cross build (build/aarch64 -> dist/executorch-sdk-aarch64) and wheels for CPython $pythons"
    if ! bash scripts/build_aarch64.sh --prefix dist/executorch-sdk-aarch64 >build/aarch64.log 2>&1; then
      tail -n 40 build/aarch64.log >&2
      die "the aarch64 cross build failed (end of build/aarch64.log above)"
    fi
    tail -n 1 build/aarch64.log
    .venv/bin/python scripts/build_wheels.py build --arch aarch64 --out dist/wheels "${wheel_args[@]}" ||
      die "the aarch64 wheel build failed (output above)"
  else
    echo "note: no aarch64 cross toolchain (scripts/setup.sh installs it): no aarch64 SDK, wheels or packages"
    case "${CI:-}" in 1|true|TRUE|yes) die "CI=true: the aarch64 wheels must be built (run scripts/setup.sh)" ;; esac
  fi
fi
[ "$arches" != x86_64 ] || rm -rf dist/executorch-sdk-aarch64  # none of this run's

# ---- the executorch-cuda wheel: build/cuda-wheel, a CMake tree of only the cuda target (and the runtime it links),
# configured by scikit-build-core from packaging/cuda/pyproject.toml; the conda package installs from it too.
if [ "$cuda" = on ]; then
  step cuda-wheel "executorch-cuda wheel (build/cuda-wheel -> dist/wheels)"
  log=build/wheel-cuda.log
  rm -rf build/cuda-wheel-raw
  if ! .venv/bin/python -m pip wheel ./packaging/cuda -w build/cuda-wheel-raw --no-deps --no-build-isolation -v \
      --disable-pip-version-check -C wheel.reproducible=true </dev/null 2>&1 | tee "$log" |
      { grep --line-buffered -aE '^\s*\[[0-9]+/[0-9]+\]' | sed -u 's/^ *//'; true; }; then
    tail -n 40 "$log" >&2
    die "the executorch-cuda wheel build failed (end of $log above)"
  fi
  # cudart/cuBLAS come from the NVIDIA wheels and libexecutorch* from the executorch wheel: excluded, never vendored.
  .venv/bin/python scripts/build_wheels.py retag --cuda --out dist/wheels build/cuda-wheel-raw/executorch_cuda-*.whl ||
    die "the executorch-cuda wheel has no manylinux tag (output above)"
fi

# ---- the conda channel
# Staged from the C++ trees above (build once, package many): linux-64 from $build, linux-aarch64 from build/aarch64.
step conda "conda channel ($arches: build/conda -> dist/conda-channel)"
if [ "$cuda" = on ]; then
  .venv/bin/python scripts/build_conda.py --tree "$build" --cuda-build-dir build/cuda-wheel
else
  .venv/bin/python scripts/build_conda.py --tree "$build" --no-cuda
fi
case " $arches " in
  *" aarch64 "*) .venv/bin/python scripts/build_conda.py --arch aarch64 ;;
  *) rm -f dist/conda-channel/linux-aarch64/*.conda ;;  # none of this run's (the next index drops them)
esac

# ---- every check, one table, dist/report.json
step checks "artifact checks"
.venv/bin/python scripts/builder_report.py --prefix "$prefix" --report dist/report.json \
  --forbid "$build" --forbid build "${timings[@]}" "${wheel_args[@]}" $([ "$cuda" = off ] || echo --cuda) \
  $(for a in $arches; do echo --arch "$a"; done) \
  $([ "$arches" = x86_64 ] || echo --cross-prefix aarch64=dist/executorch-sdk-aarch64) && rc=0 || rc=$?
echo "== done in $(( $(date +%s) - start )) s: SDK at $prefix, wheel in dist/wheels, channel in dist/conda-channel"
exit "$rc"
