#!/usr/bin/env bash
# Script test of a library output (recipe/recipe.yaml `tests:`; rattler-build copies this file into the package's
# info/tests/tests.yaml and runs it in a new environment holding the package, its run dependencies and the
# package with the CMake config). A CMake project as docs/conda.md shows one: find_package(executorch), link the
# component's target, build, run. Offline, cmake, ninja and the C++ compiler are the system's (on PATH).
#
# Environment (set by the test's `env:`):
#   ET_COMPONENT  find_package component of the package (kernels)
#   ET_TARGETS    CMake targets to link: the package's and executorch::runtime (main.cpp calls the runtime)
#   ET_SONAME     the library's SONAME, which the program must record (libexecutorch_kernels.so.0.1)
#   ET_VERSION    the version find_package asks for (major.minor)
set -euo pipefail
mkdir -p consumer
cat >consumer/CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.24)
project(consumer CXX)
find_package(executorch $ET_VERSION REQUIRED COMPONENTS $ET_COMPONENT)
add_executable(consumer main.cpp)
# Every library linked is recorded (DT_NEEDED), also one whose functions main.cpp does not call.
target_link_options(consumer PRIVATE "LINKER:--no-as-needed")
target_link_libraries(consumer PRIVATE $ET_TARGETS)
CMAKE
cat >consumer/main.cpp <<'CPP'
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>

#include <cstdio>
#include <cstring>

// Exit 0 when the runtime that was loaded, the headers and the package (argv[1]) have one version.
int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  const char* loaded = executorch::runtime::runtime_version();
  std::printf("libexecutorch %s, headers %s, package %s\n", loaded, EXECUTORCH_VERSION, argc > 1 ? argv[1] : "?");
  if (argc != 2) return 2;
  return std::strcmp(loaded, EXECUTORCH_VERSION) == 0 && std::strcmp(loaded, argv[1]) == 0 ? 0 : 1;
}
CPP
cmake -S consumer -B consumer/build -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PREFIX"
# The package's own CMake config, not one of another installation.
found=$(sed -n 's/^executorch_DIR:PATH=//p' consumer/build/CMakeCache.txt)
if [ "$found" != "$PREFIX/lib/cmake/executorch" ]; then
  echo "error: find_package(executorch) found $found, not $PREFIX/lib/cmake/executorch" >&2
  exit 1
fi
cmake --build consumer/build
if ! "${READELF:-readelf}" -d consumer/build/consumer | grep -qF "[$ET_SONAME]"; then
  echo "error: the consumer does not record $ET_SONAME (DT_NEEDED):" >&2
  "${READELF:-readelf}" -d consumer/build/consumer >&2
  exit 1
fi
consumer/build/consumer "$PKG_VERSION"
