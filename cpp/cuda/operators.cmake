# The CUDA operator list from cpp/cuda/src/ops.def: the "name.overload" of every ETCUDA_OP line, in order, under a
# fixed header. Run by the build (cpp/cuda, cpp/python) and usable alone, with no compiler:
#   cmake -DOPS_DEF=cpp/cuda/src/ops.def -DOUT=<file> -P cpp/cuda/operators.cmake
# OUT is written only when its content changes.
if(NOT OPS_DEF OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DOPS_DEF=<ops.def> -DOUT=<operators.txt> -P operators.cmake")
endif()
file(STRINGS "${OPS_DEF}" _lines REGEX "^ETCUDA_OP\\(")
set(_text "# Operators the CUDA delegate (libexecutorch_cuda) executes, one \"name.overload\" per line, fp32 tensors only.
# Generated from cpp/cuda/src/ops.def (its ETCUDA_OP lines, in order) by the build: edit the table.
# The lowering tool (executorch.lower, installed as executorch/cuda_operators.txt) delegates exactly these.
")
set(_count 0)
foreach(_l IN LISTS _lines)
  if(NOT _l MATCHES "^ETCUDA_OP\\([A-Za-z_][A-Za-z0-9_]*, *\"([A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*)\",")
    message(FATAL_ERROR "${OPS_DEF}: \"${_l}\" is not an ETCUDA_OP(Id, \"namespace::name.overload\", ...) line")
  endif()
  string(APPEND _text "${CMAKE_MATCH_1}\n")
  math(EXPR _count "${_count} + 1")
endforeach()
if(_count EQUAL 0)
  message(FATAL_ERROR "${OPS_DEF} has no ETCUDA_OP line")
endif()
set(_old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE "${OUT}" "${_text}")
endif()
