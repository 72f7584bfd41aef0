# Cross-compiling for Linux aarch64 on a Debian x86-64 host (docs/aarch64.md):
#   cmake -S . -B build/aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Needs g++-aarch64-linux-gnu, qemu-user-static and libgtest-dev:arm64 (scripts/setup.sh installs them).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(_et_triple aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${_et_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_et_triple}-g++)

# Target files: the cross toolchain's own sysroot (libc, libstdc++) and Debian's multiarch directories
# (/usr/lib/aarch64-linux-gnu, /usr/include/aarch64-linux-gnu: libgtest-dev:arm64). Under the root "/", only the
# aarch64 multiarch directories hold target libraries (CMAKE_LIBRARY_ARCHITECTURE above); the host's x86-64 ones
# (/usr/lib/x86_64-linux-gnu) are never searched. Architecture-independent headers (flatbuffers) come from
# /usr/include.
set(CMAKE_FIND_ROOT_PATH /usr/${_et_triple} /)
# Programs (flatc) run on the host: never look for them among the target's files.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Target programs (try_run, ctest, gtest_discover_tests) run through user-mode QEMU with the cross sysroot as
# the dynamic loader's root.
find_program(ET_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(ET_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ET_QEMU_AARCH64} -L /usr/${_et_triple})
endif()
