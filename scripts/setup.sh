#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh Debian 12 machine:
# system packages (as root, through apt) and the Python tools (into the virtual environment .venv).
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build flatbuffers-compiler libflatbuffers-dev pkg-config binutils
          clang-19 libclang-rt-19-dev clang-format-19 python3-venv patchelf libgtest-dev libsentencepiece-dev
          libpcre2-dev nlohmann-json3-dev)
# The Linux aarch64 cross build (scripts/build_aarch64.sh, docs/aarch64.md): the cross compilers (with the arm64 libc
# and libstdc++ in /usr/aarch64-linux-gnu), QEMU to run its tests, and GoogleTest for arm64 through Debian's
# multiarch (flatbuffers and nlohmann-json are header-only: the host's headers serve both; PCRE2 for arm64 is unpacked
# below). libpython3.11-dev: the x86_64 pyconfig.h that tests/test_aarch64_wheels.py derives the arm64 one from
# (scripts/build_wheels.py), against Debian's.
packages+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static libgtest-dev:arm64 libpython3.11-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
# requirements-dev.txt includes the NVIDIA wheels the CUDA delegate builds against (nvidia-cuda-runtime,
# nvidia-cublas: headers and libraries in site-packages/nvidia/cu13) and cuobjdump (nvidia-cuda-cuobjdump).
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
# The arm64 CPython 3.11 of the aarch64 wheel and conda tests (tests/test_aarch64_wheels.py, test_conda_aarch64.py):
# Debian's arm64 packages of the interpreter, its standard library and the C and C++ runtimes, unpacked (never
# installed: an arm64 libc in the system's multiarch directories would be mixed with the cross toolchain's under QEMU)
# into one sysroot, build/aarch64-python/root, that QEMU runs it in (-L); numpy and flatbuffers wheels for it in
# build/aarch64-python/wheels. libpython3.11-dev:arm64 gives the arm64 pyconfig.h.
a64py=build/aarch64-python
a64debs=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev libc6 libgcc-s1 libstdc++6
         libexpat1 zlib1g libffi8 libbz2-1.0 liblzma5 libuuid1 libcrypt1 libssl3)
want="${a64debs[*]} $(apt-cache policy python3.11-minimal:arm64 | sed -n 's/ *Candidate: //p')"
if [ "$(cat "$a64py/packages" 2>/dev/null)" != "$want" ]; then
  echo "setup: unpacking Debian's arm64 CPython 3.11 into $a64py/root"
  rm -rf "$a64py" && mkdir -p "$a64py/debs" "$a64py/root"
  (cd "$a64py/debs" && apt-get download -qq "${a64debs[@]/%/:arm64}" 2>&1 | grep -v unsandboxed >&2 || true)
  [ "$(ls "$a64py"/debs/*.deb | wc -l)" -eq ${#a64debs[@]} ] ||
    { echo "setup: error: apt-get download of ${a64debs[*]} (arm64) failed (apt-get update?)" >&2; exit 1; }
  for deb in "$a64py"/debs/*.deb; do dpkg -x "$deb" "$a64py/root"; done
  .venv/bin/python -m pip download -q --disable-pip-version-check --only-binary=:all: --implementation cp \
    --platform manylinux2014_aarch64 --python-version 3.11 -d "$a64py/wheels" "numpy>=1.22" "flatbuffers>=2.0"
  echo "$want" >"$a64py/packages"
fi
# PCRE2 for the aarch64 cross build (the C++ tokenizers of libexecutorch_llm link its static archive): Debian's
# libpcre2-dev:arm64 unpacked into build/aarch64-pcre2/files (never installed: it depends on libc6:arm64, and an arm64
# libc in the multiarch directories breaks the QEMU runs, as above). scripts/build_aarch64.sh points CMake at it.
a64pcre=build/aarch64-pcre2
want="libpcre2-dev (files/) $(apt-cache policy libpcre2-dev:arm64 | sed -n 's/ *Candidate: //p')"
if [ "$(cat "$a64pcre/packages" 2>/dev/null)" != "$want" ]; then
  echo "setup: unpacking Debian's arm64 PCRE2 into $a64pcre/files"
  rm -rf "$a64pcre" && mkdir -p "$a64pcre/debs" "$a64pcre/files"
  (cd "$a64pcre/debs" && apt-get download -qq libpcre2-dev:arm64 2>&1 | grep -v unsandboxed >&2 || true)
  ls "$a64pcre"/debs/*.deb >/dev/null 2>&1 ||
    { echo "setup: error: apt-get download of libpcre2-dev (arm64) failed (apt-get update?)" >&2; exit 1; }
  dpkg -x "$a64pcre"/debs/*.deb "$a64pcre/files"
  echo "$want" >"$a64pcre/packages"
fi
# The CUDA toolkit (nvcc) is not a Debian package here: scripts/build_sdk.sh builds the CUDA delegate when it finds
# $CUDACXX or /usr/local/cuda/bin/nvcc, and skips it otherwise.
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [ -x "$nvcc" ]; then
  echo "setup: CUDA delegate will be built ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p'), $nvcc)"
else
  echo "setup: no nvcc ($nvcc): the CUDA delegate (executorch-cuda) will not be built; install CUDA 13 to build it"
fi
echo "setup: done"
