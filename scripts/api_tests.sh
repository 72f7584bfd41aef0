#!/usr/bin/env bash
# Developer loop for the public-API tests (tests/api): configures and builds a build tree (default build/api-dev;
# no CUDA, no test programs of the build itself), installs it into <tree>/prefix, builds tests/api against that
# prefix with find_package(executorch) as an application would, and runs the test programs (all, or those named).
#   bash scripts/api_tests.sh [--build DIR] [NAME_test ...] [-- GTEST_ARGS...]
# pytest runs the same programs against the installed SDK, the wheel and the conda prefix (tests/test_api.py).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/api-dev
if [ "${1:-}" = "--build" ]; then build=$2; shift 2; fi
names=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do names+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXECUTORCH_BUILD_TESTS=OFF -DEXECUTORCH_BUILD_CUDA=OFF \
  >/dev/null
cmake --build "$build"
rm -rf "$build/prefix"
cmake --install "$build" --prefix "$build/prefix" >/dev/null
cmake -S tests/api -B "$build/api-tests" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$build/prefix" >/dev/null
if [ ${#names[@]} -gt 0 ]; then cmake --build "$build/api-tests" --target "${names[@]}"; else cmake --build "$build/api-tests"; fi
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(cd "$build/api-tests" && ls -- *_test)
status=0
for n in "${names[@]}"; do
  echo "== $n"
  ET_FIXTURES="$PWD/tests/fixtures" "$build/api-tests/$n" "$@" || status=1
done
exit $status
