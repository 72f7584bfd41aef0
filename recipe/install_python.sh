#!/usr/bin/env bash
# Package step of executorch-python: the _C extension (CMake install component "python", into
# lib/pythonX.Y/site-packages/executorch with RUNPATH $ORIGIN/../../..), the pure-Python package from
# src/executorch, and a minimal .dist-info so importlib.metadata.version("executorch") works.
# The extension is built here, once per python, against the components in $PREFIX (host dependencies) with
# EXECUTORCH_PYTHON_ONLY (docs/packaging.md, "Wheel matrix"), so the library outputs do not vary with python.
# Environment: ET_PYTHON / ET_PY_VER (offline: the build interpreter; online: $PYTHON / $PY_VER from host),
# ET_PYTHON_BUILD_DIR (the CMake tree; default $SRC_DIR/_build_python; offline scripts/build_conda.py keeps one per
# platform), ET_PYTHON_CMAKE_ARGS (offline cross builds: the toolchain file, the target's Python headers and
# extension suffix; online $CMAKE_ARGS carries the toolchain).
set -euo pipefail
src=${ET_SOURCE_DIR:-$SRC_DIR}
build=${ET_PYTHON_BUILD_DIR:-$SRC_DIR/_build_python}
python=${ET_PYTHON:-${PYTHON:-python3}}
py_ver=${ET_PY_VER:-${PY_VER:-}}
[ -n "$py_ver" ] || py_ver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
site="$PREFIX/lib/python$py_ver/site-packages"
# shellcheck disable=SC2016,SC2086  # $ORIGIN is for the dynamic loader; the CMake arguments are word lists
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DEXECUTORCH_PYTHON_ONLY=ON \
  "-DEXECUTORCH_SDK_PREFIX=$PREFIX" \
  -DEXECUTORCH_PYTHON_INSTALL_SDK=OFF \
  "-DPython_EXECUTABLE=$python" \
  "-Dpybind11_DIR=$("$python" -m pybind11 --cmakedir)" \
  "-DEXECUTORCH_PYTHON_INSTALL_DIR=lib/python$py_ver/site-packages/executorch" \
  '-DEXECUTORCH_PYTHON_RPATH=$ORIGIN/../../..' \
  ${ET_PYTHON_CMAKE_ARGS:-} ${CMAKE_ARGS:-} >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build"
cmake --install "$build" --component python --prefix "$PREFIX"
ext=$(echo "$site"/executorch/_C.*.so)
[ -f "$ext" ] || { echo "error: $ext missing: is build.sh configured for python $py_ver?" >&2; exit 1; }
runpath=$(readelf -d "$ext" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016
if [ "$runpath" != '$ORIGIN/../../..' ]; then
  echo "error: $ext has RUNPATH '$runpath', expected \$ORIGIN/../../.. (cpp/python/CMakeLists.txt must honour EXECUTORCH_PYTHON_RPATH)" >&2
  exit 1
fi
for f in "$src"/src/executorch/*.py "$src"/src/executorch/py.typed; do
  install -m 644 "$f" "$site/executorch/"
done
# Subpackages (executorch.llm).
for d in "$src"/src/executorch/*/; do
  name=$(basename "$d")
  [ -f "$d/__init__.py" ] || continue
  mkdir -p "$site/executorch/$name"
  install -m 644 "$d"/*.py "$site/executorch/$name/"
done
dist="$site/executorch-$PKG_VERSION.dist-info"
mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: executorch\nVersion: %s\n' "$PKG_VERSION" >"$dist/METADATA"
printf 'conda\n' >"$dist/INSTALLER"
