#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh Debian 12 machine:
# system packages (as root, through apt) and the Python tools (into the virtual environment .venv).
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build flatbuffers-compiler libflatbuffers-dev pkg-config binutils
          clang-19 libclang-rt-19-dev clang-format-19 python3-venv patchelf libgtest-dev libsentencepiece-dev)
# The Linux aarch64 cross build (scripts/build_aarch64.sh, docs/aarch64.md): the cross compilers (with the arm64 libc
# and libstdc++ in /usr/aarch64-linux-gnu), QEMU to run its tests, and GoogleTest for arm64 through Debian's
# multiarch (flatbuffers is header-only: the host's headers serve both). The aarch64 wheels' tests run Debian's arm64
# CPython 3.11 under QEMU: its standard library's extension modules and the C++ runtime come from multiarch packages
# (libpython3.11-dev:arm64 also gives the arm64 pyconfig.h that scripts/build_wheels.py's derivation is checked
# against); the interpreter itself (python3.11-minimal:arm64 cannot be installed beside the amd64 one) is unpacked
# into build/aarch64-python below.
packages+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static libgtest-dev:arm64 libpython3.11-dev libpython3.11-dev:arm64
           libstdc++6:arm64)
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
# The arm64 CPython 3.11 of the aarch64 wheel tests (tests/test_aarch64_wheels.py): the interpreter from
# python3.11-minimal:arm64 (the same version as the installed libpython3.11-stdlib:arm64) unpacked into
# build/aarch64-python/root, and numpy / flatbuffers wheels for it in build/aarch64-python/wheels.
a64py=build/aarch64-python
py_version=$(dpkg-query -W -f='${Version}' libpython3.11-stdlib:arm64)
if [ "$(cat "$a64py/version" 2>/dev/null)" != "$py_version" ]; then
  echo "setup: unpacking python3.11-minimal:arm64 $py_version into $a64py"
  rm -rf "$a64py" && mkdir -p "$a64py/debs"
  (cd "$a64py/debs" && apt-get download -qq "python3.11-minimal:arm64=$py_version" 2>/dev/null)
  dpkg -x "$a64py"/debs/python3.11-minimal_*_arm64.deb "$a64py/root"
  .venv/bin/python -m pip download -q --disable-pip-version-check --only-binary=:all: --implementation cp \
    --platform manylinux2014_aarch64 --python-version 3.11 -d "$a64py/wheels" "numpy>=1.22" "flatbuffers>=2.0"
  echo "$py_version" >"$a64py/version"
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
