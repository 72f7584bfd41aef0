#!/usr/bin/env bash
# The main job: builds the SDK distribution and checks it.
#   scripts/build_sdk.sh [--prefix DIR] [--build-dir DIR]
# Output:
#   dist/executorch-sdk/   the C++ SDK as an install prefix (lib/, include/, bin/, lib/cmake/executorch, lib/pkgconfig)
#   dist/wheels/           the executorch wheel (Python bindings + the same SDK under site-packages/executorch)
#   dist/conda-channel/    the conda packages (executorch-runtime/-threadpool/-kernels/-python, executorch), offline
#   dist/report.json       the artifact checks (SONAMEs, RUNPATHs, build paths, registry owners)
# Rebuilds are incremental (build/release and build/wheel are kept).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=dist/executorch-sdk
build=build/release
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 [--prefix DIR] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
for tool in cmake ninja flatc c++; do
  command -v "$tool" >/dev/null || { echo "error: '$tool' is missing; run scripts/setup.sh first" >&2; exit 2; }
done
[ -x .venv/bin/python ] || { echo "error: .venv is missing; run scripts/setup.sh first" >&2; exit 2; }

start=$(date +%s)
echo "== configure ($build)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "== build"
cmake --build "$build"
echo "== install into $prefix"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
echo "== wheel (dist/wheels)"
rm -rf dist/wheels
.venv/bin/python -m pip wheel . -w dist/wheels --no-deps -q --disable-pip-version-check
echo "== conda channel (dist/conda-channel)"
.venv/bin/python scripts/build_conda.py
echo "== check artifacts"
.venv/bin/python scripts/check_artifacts.py "$prefix" --source-dir "$PWD" --build-dir "$build" --report dist/report.json
ls -l dist/wheels/*.whl | awk '{print "wheel", $NF, $5, "bytes"}'
.venv/bin/python -m auditwheel show dist/wheels/*.whl | tr '\n' ' ' | grep -o 'consistent with the following platform tag: "[^"]*"' || true
echo "== done in $(( $(date +%s) - start )) s: SDK at $prefix"
