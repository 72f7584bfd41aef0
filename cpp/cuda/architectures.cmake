# The GPU architectures libexecutorch_cuda is built for: one explicit list per CUDA major version, so what a
# package claims (EXECUTORCH_CUDA_ARCHITECTURES_CLAIMED, share/executorch/cuda-architectures.json) is exactly
# what `cuobjdump --list-elf --list-ptx` finds in the library. Any other CUDA major is a configure error.
#
# Input:  EXECUTORCH_CUDA_VERSION (e.g. "13.0", from nvcc --version).
# Output: EXECUTORCH_CUDA_SASS_ARCHS (e.g. "75;80;..."), EXECUTORCH_CUDA_PTX_ARCHS (e.g. "120"),
#         EXECUTORCH_CUDA_ARCHITECTURES (CMake's CUDA_ARCHITECTURES form: "75-real;...;120-virtual"),
#         EXECUTORCH_CUDA_ARCHITECTURES_CLAIMED (cache, INTERNAL: "sm_75;...;sm_120;compute_120").
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _et_cuda_mm "${EXECUTORCH_CUDA_VERSION}")
set(_et_cuda_major "${CMAKE_MATCH_1}")

if(_et_cuda_major STREQUAL "13")
  # CUDA 13 dropped everything below Turing. SASS for each data-center/consumer generation we support, PTX for
  # the newest so later GPUs JIT-compile it.
  set(EXECUTORCH_CUDA_SASS_ARCHS 75 80 86 89 90 100 120)
  set(EXECUTORCH_CUDA_PTX_ARCHS 120)
else()
  message(FATAL_ERROR
    "EXECUTORCH_BUILD_CUDA: CUDA ${EXECUTORCH_CUDA_VERSION} (${EXECUTORCH_CUDA_NVCC}) is not supported: "
    "cpp/cuda/architectures.cmake has an architecture list for CUDA 13 only. Use a CUDA 13.x toolkit "
    "(CMAKE_CUDA_COMPILER=/path/to/cuda-13/bin/nvcc), or add a list for CUDA ${_et_cuda_major} there.")
endif()

set(EXECUTORCH_CUDA_ARCHITECTURES "")
set(_et_claimed "")
foreach(_a IN LISTS EXECUTORCH_CUDA_SASS_ARCHS)
  list(APPEND EXECUTORCH_CUDA_ARCHITECTURES "${_a}-real")
  list(APPEND _et_claimed "sm_${_a}")
endforeach()
foreach(_a IN LISTS EXECUTORCH_CUDA_PTX_ARCHS)
  list(APPEND EXECUTORCH_CUDA_ARCHITECTURES "${_a}-virtual")
  list(APPEND _et_claimed "compute_${_a}")
endforeach()
set(EXECUTORCH_CUDA_ARCHITECTURES_CLAIMED "${_et_claimed}" CACHE INTERNAL
  "GPU code in libexecutorch_cuda: sm_XX = SASS, compute_XX = PTX (set by cpp/cuda/architectures.cmake)" FORCE)
string(REPLACE ";" ", " EXECUTORCH_CUDA_SASS_JSON "${EXECUTORCH_CUDA_SASS_ARCHS}")
string(REPLACE ";" ", " EXECUTORCH_CUDA_PTX_JSON "${EXECUTORCH_CUDA_PTX_ARCHS}")
