#!/usr/bin/env bash
# Staging build of the conda recipe (recipe/recipe.yaml): one CMake build of every component. Nothing is installed
# into $PREFIX here; each package output installs its own CMake install component (cmake --install --component),
# so a package holds exactly what CMake puts in that component.
#
# Environment (set by recipe.yaml from the render environment):
#   ET_SOURCE_DIR  source tree (default: $SRC_DIR, the copy rattler-build made)
#   ET_BUILD_DIR   CMake build tree (default: $SRC_DIR/_build); scripts/build_conda.py keeps one in build/conda
#                  so that rebuilds are incremental
#   ET_PYTHON      interpreter with pybind11 (offline: the build venv's; online: $PYTHON from host)
#   ET_PY_VER      X.Y of that interpreter: the extension goes to lib/pythonX.Y/site-packages/executorch
#   ET_OFFLINE     "1" (scripts/build_conda.py): the extension is built here too, for the one build interpreter.
#                  Online the staging build has no python (it would give every output the python variant):
#                  executorch-python builds the extension per python itself (install_python.sh)
set -euo pipefail
src=${ET_SOURCE_DIR:-$SRC_DIR}
build=${ET_BUILD_DIR:-$SRC_DIR/_build}
python_args=(-DEXECUTORCH_BUILD_PYTHON=OFF)
if [ "${ET_OFFLINE:-0}" = 1 ]; then
  python=${ET_PYTHON:-${PYTHON:-python3}}
  py_ver=${ET_PY_VER:-${PY_VER:-}}
  [ -n "$py_ver" ] || py_ver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  # The extension sits in <prefix>/lib/pythonX.Y/site-packages/executorch and its libraries in <prefix>/lib.
  # shellcheck disable=SC2016  # $ORIGIN is for the dynamic loader
  python_args=(
    -DEXECUTORCH_BUILD_PYTHON=ON
    "-DPython_EXECUTABLE=$python"
    "-Dpybind11_DIR=$("$python" -m pybind11 --cmakedir)"
    "-DEXECUTORCH_PYTHON_INSTALL_DIR=lib/python$py_ver/site-packages/executorch"
    '-DEXECUTORCH_PYTHON_RPATH=$ORIGIN/../../..'
  )
fi

cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/executorch-conda-placeholder \
  -DEXECUTORCH_BUILD_TESTS=OFF \
  "${python_args[@]}" \
  ${CMAKE_ARGS:-}
cmake --build "$build"
