#pragma once
// Everything a kernel library needs: values, tensors, the registry, the run-time context and the kernel checks.
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstddef>

// ET_DEFINE_OPERATOR_NAME(variable, "ns::op.overload") defines a compile-time operator name usable as a template
// argument, of type ET_OPERATOR_NAME_TYPE. MSVC in C++20 mode cannot take a string literal's address as a template
// argument, so there the name is a structural type holding the characters; elsewhere it is a plain char array.
#if defined(_MSC_VER) && defined(_MSVC_LANG) && _MSVC_LANG >= 202002L
#define ET_USE_STRUCTURAL_OPERATOR_NAME 1
namespace executorch {
namespace runtime {
template <std::size_t N>
struct OperatorName {
  char value[N];
  constexpr OperatorName(const char (&name)[N]) : value{} {
    for (std::size_t i = 0; i < N; ++i) value[i] = name[i];
  }
  constexpr operator const char*() const { return value; }
};
}  // namespace runtime
}  // namespace executorch
#define ET_OPERATOR_NAME_TYPE ::executorch::runtime::OperatorName
#define ET_DEFINE_OPERATOR_NAME(variable, name) \
  static constexpr auto variable = ::executorch::runtime::OperatorName { name }
#else
#define ET_USE_STRUCTURAL_OPERATOR_NAME 0
#define ET_OPERATOR_NAME_TYPE const char*
#define ET_DEFINE_OPERATOR_NAME(variable, name) static constexpr const char variable[] = name
#endif
