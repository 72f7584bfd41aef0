#!/usr/bin/env bash
# Staging build of the conda recipe (recipe/recipe.yaml): one CMake build of every C++ component. Nothing is
# installed into $PREFIX here; each package output installs its own CMake install component (cmake --install
# --component), so a package holds exactly what CMake puts in that component. executorch-python builds the extension
# per python itself (install_python.sh, EXECUTORCH_PYTHON_ONLY), so the library outputs do not vary with python.
#
# Environment (set by recipe.yaml from the render environment):
#   ET_SOURCE_DIR  source tree (default: $SRC_DIR, the copy rattler-build made)
#   ET_BUILD_DIR   CMake build tree (default: $SRC_DIR/_build)
#   ET_OFFLINE     "1" (scripts/build_conda.py): ET_BUILD_DIR is the tree scripts/build_sdk.sh built already
#                  (build/release, or build/aarch64 for linux-aarch64; build_conda.py brings it up to date first):
#                  build once, package many; nothing is compiled here. Online (a conda-forge style build) the
#                  tree is configured and built here.
set -euo pipefail
src=${ET_SOURCE_DIR:-$SRC_DIR}
build=${ET_BUILD_DIR:-$SRC_DIR/_build}
if [ "${ET_OFFLINE:-0}" = 1 ]; then
  if [ ! -f "$build/CMakeCache.txt" ] || [ ! -f "$build/build.ninja" ]; then
    echo "error: $build is not a built CMake tree (offline packages are staged from scripts/build_sdk.sh's)" >&2
    exit 1
  fi
  echo "staging from the prebuilt tree $build"
  exit 0
fi
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/executorch-conda-placeholder \
  -DEXECUTORCH_BUILD_TESTS=OFF \
  -DEXECUTORCH_BUILD_PYTHON=OFF \
  ${CMAKE_ARGS:-}
cmake --build "$build"
