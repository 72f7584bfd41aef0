#!/usr/bin/env bash
# The main job: builds the C++ SDK (runtime, thread pool, kernels, tools) into an install tree and checks it.
#   scripts/build_sdk.sh [--prefix DIR] [--build-dir DIR]
# Output: the SDK in dist/executorch-sdk (a prefix with lib/, include/, bin/, lib/cmake/executorch), and a JSON
# report of the artifact checks in dist/report.json. Rebuilds are incremental (the build directory is kept).
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
echo "== check artifacts"
.venv/bin/python scripts/check_artifacts.py "$prefix" --source-dir "$PWD" --build-dir "$build" --report dist/report.json
echo "== done in $(( $(date +%s) - start )) s: SDK at $prefix"
