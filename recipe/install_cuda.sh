#!/usr/bin/env bash
# Package step of executorch-cuda: installs CMake install component $1 (libexecutorch_cuda, its CMake targets,
# share/executorch/cuda-architectures.json) into $PREFIX, adds the development link $2, and gives the library the
# conda RUNPATH `$ORIGIN` (cudart and cuBLAS come from the cuda-cudart / libcublas packages in $PREFIX/lib).
#
# The CUDA code is compiled once: ET_CUDA_BUILD_DIR names a CMake tree that already built the cuda target
# (scripts/build_conda.py passes build/cuda-wheel, the executorch-cuda wheel's tree, whose RUNPATH is the wheel's
# `$ORIGIN:$ORIGIN/../../nvidia/cu13/lib`; it is rewritten here). Without it (an online build) only the cuda
# target is configured and built here, with EXECUTORCH_CUDA_RPATH=$ORIGIN.
set -euo pipefail
component=$1
devlink=$2
src=${ET_SOURCE_DIR:-$SRC_DIR}
build=${ET_CUDA_BUILD_DIR:-}
if [ -z "$build" ]; then
  build=$SRC_DIR/_build_cuda
  # shellcheck disable=SC2016  # $ORIGIN is for the dynamic loader
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/executorch-conda-placeholder \
    -DEXECUTORCH_BUILD_TESTS=OFF -DEXECUTORCH_BUILD_CUDA=ON '-DEXECUTORCH_CUDA_RPATH=$ORIGIN' ${CMAKE_ARGS:-}
  cmake --build "$build" --target executorch_cuda
fi
# --strip, as scikit-build-core installs the wheel's copy: nvcc leaves its temporary file names (tmpxft_<pid>_...)
# in the symbol table, which would make the package differ from build to build.
cmake --install "$build" --component "$component" --prefix "$PREFIX" --strip
lib=$(cd "$PREFIX/$(dirname "$devlink")" && echo "$(basename "$devlink")".*.*)
[ -f "$PREFIX/$(dirname "$devlink")/$lib" ] || { echo "error: no $devlink.<major>.<minor> installed from $build" >&2; exit 1; }
ln -sf "$lib" "$PREFIX/$devlink"
path="$PREFIX/$(dirname "$devlink")/$lib"
# shellcheck disable=SC2016
if [ "$(patchelf --print-rpath "$path")" != '$ORIGIN' ]; then
  patchelf --set-rpath '$ORIGIN' "$path"
fi
runpath=$(readelf -d "$path" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016
[ "$runpath" = '$ORIGIN' ] || { echo "error: $path has RUNPATH '$runpath', expected \$ORIGIN" >&2; exit 1; }
