#!/usr/bin/env bash
# cibuildwheel's before-all (pyproject.toml, packaging/cuda/pyproject.toml): runs once per architecture, in the
# manylinux_2_28 container (AlmaLinux 8; cmake, ninja, patchelf and /opt/python/* are there) or on a macOS runner.
#   scripts/ci/cibw_before_all.sh          flatc, the C++ SDK (build/release), its wheel components staged into
#                                          build/pywheel/sdk for every CPython's EXECUTORCH_PYTHON_ONLY build
#   scripts/ci/cibw_before_all.sh --cuda   nvcc 13.0 and the NVIDIA wheels' cuBLAS/cudart (/opt/nvidia-wheels), for
#                                          the executorch-cuda add-on (its own CMake tree; nothing else is built)
set -euo pipefail
cd "$(dirname "$0")/../.."
flatbuffers_version=2.0.8  # the schema's generated code matches Debian 12's flatc (scripts/setup.sh)
python=python3
for p in /opt/python/cp312-cp312/bin/python /opt/python/cp311-cp311/bin/python; do
  if [ -x "$p" ]; then python=$p; break; fi
done
jobs=$(nproc 2>/dev/null || sysctl -n hw.ncpu)

if [ "${1:-}" = --cuda ]; then
  arch=$(uname -m); [ "$arch" = aarch64 ] && arch=sbsa
  dnf install -y dnf-plugins-core
  dnf config-manager --add-repo "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/$arch/cuda-rhel8.repo"
  dnf install -y cuda-nvcc-13-0 cuda-cudart-devel-13-0
  # The same cuBLAS/cudart the delegate links at run time (requirements-dev.txt's pins), outside every venv.
  "$python" -m pip install --target /opt/nvidia-wheels \
    "$(grep -E '^nvidia-cublas==' requirements-dev.txt)" "$(grep -E '^nvidia-cuda-runtime==' requirements-dev.txt)"
  exit 0
fi

if ! command -v flatc >/dev/null; then
  curl -fsSL "https://github.com/google/flatbuffers/archive/refs/tags/v$flatbuffers_version.tar.gz" | tar -xz -C /tmp
  cmake -S "/tmp/flatbuffers-$flatbuffers_version" -B /tmp/flatbuffers-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DFLATBUFFERS_BUILD_TESTS=OFF -DFLATBUFFERS_BUILD_FLATLIB=OFF -DFLATBUFFERS_BUILD_FLATHASH=OFF
  cmake --build /tmp/flatbuffers-build --target flatc -j "$jobs"
  install -m 755 /tmp/flatbuffers-build/flatc /usr/local/bin/flatc
fi
# The C++ tokenizers of libexecutorch_llm: PCRE2 as a static, position-independent archive (linked in and hidden, so
# the wheel grafts nothing) and nlohmann-json's headers, the versions of Debian 12 (scripts/setup.sh).
if [ ! -f /usr/local/include/pcre2.h ]; then
  curl -fsSL "https://github.com/PCRE2Project/pcre2/releases/download/pcre2-10.42/pcre2-10.42.tar.gz" | tar -xz -C /tmp
  cmake -S /tmp/pcre2-10.42 -B /tmp/pcre2-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF \
    -DCMAKE_INSTALL_PREFIX=/usr/local -DCMAKE_INSTALL_LIBDIR=lib
  cmake --build /tmp/pcre2-build -j "$jobs" && cmake --install /tmp/pcre2-build
fi
if [ ! -d /usr/local/include/nlohmann ]; then
  curl -fsSL "https://github.com/nlohmann/json/archive/refs/tags/v3.11.2.tar.gz" | tar -xz -C /tmp
  cmake -S /tmp/json-3.11.2 -B /tmp/json-build -G Ninja -DJSON_BuildTests=OFF -DCMAKE_INSTALL_PREFIX=/usr/local
  cmake --install /tmp/json-build
fi

# The C++ SDK, once for every CPython of this architecture; then only the components the executorch wheel ships.
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXECUTORCH_BUILD_TESTS=OFF
cmake --build build/release -j "$jobs"
"$python" scripts/build_wheels.py stage --build-dir build/release --out build/pywheel/sdk
