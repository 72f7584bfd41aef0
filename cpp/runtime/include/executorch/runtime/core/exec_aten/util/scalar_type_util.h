#pragma once
// Dtype dispatch for kernel code, under upstream ExecuTorch's names:
//
//   ET_SWITCH_FLOAT_TYPES(in.scalar_type(), ctx, "my_op.out", CTYPE, [&]() { ... CTYPE ... });
//
// runs the lambda with CTYPE bound to the C++ type of the dtype; any other dtype fails the kernel call with
// InvalidArgument, naming the operator and the dtype (and the lambda is not run). The lambda returns void.
// Unlike upstream's, the macro is a statement (it does not return the lambda's value), and the *H* / *BF16* variants
// are absent: kernels here take Half / BFloat16 through float32 (see docs/upstream_compat.md).
#include <cstdint>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#define ET_INTERNAL_SWITCH_CASE(enum_name, cpp_type, CTYPE_ALIAS, ...) \
  case ::executorch::aten::ScalarType::enum_name: {                    \
    using CTYPE_ALIAS = cpp_type;                                      \
    (__VA_ARGS__)();                                                   \
    break;                                                             \
  }

#define ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, CASES)                                                    \
  do {                                                                                                    \
    const ::executorch::aten::ScalarType et_switch_type_ = (TYPE);                                        \
    switch (et_switch_type_) {                                                                            \
      CASES                                                                                               \
      default:                                                                                            \
        (CONTEXT).fail(::executorch::runtime::Error::InvalidArgument, "%s: unsupported dtype %s", (NAME), \
                       ::executorch::aten::toString(et_switch_type_));                                    \
    }                                                                                                     \
  } while (false)

#define ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, ...)                 \
  ET_INTERNAL_SWITCH_CASE(Float, float, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(Double, double, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_CASES_INT(CTYPE_ALIAS, ...)                     \
  ET_INTERNAL_SWITCH_CASE(Byte, uint8_t, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE(Char, int8_t, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(Short, int16_t, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(Int, int32_t, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(Long, int64_t, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_FLOAT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_INT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_INT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                            \
                     ET_INTERNAL_CASES_INT(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REALB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                                                   \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                                              \
                     ET_INTERNAL_CASES_INT(CTYPE_ALIAS, __VA_ARGS__) ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_CASE(Bool, bool, CTYPE_ALIAS, __VA_ARGS__))
