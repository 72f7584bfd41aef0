#pragma once
// Compile-time function pointers and function traits for the typed-kernel adapter (make_boxed_from_unboxed_functor.h),
// under upstream ExecuTorch's names: EXECUTORCH_FN(func) or EXECUTORCH_FN(func, name).
#include <type_traits>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

// A function known at compile time, as a type.
template <class FuncType_, FuncType_* func_ptr_>
struct CompileTimeFunctionPointer {
  static_assert(std::is_function<FuncType_>::value, "EXECUTORCH_FN takes a function");
  using FuncType = FuncType_;
  static constexpr FuncType* func_ptr() { return func_ptr_; }
};

template <class T>
struct is_compile_time_function_pointer : std::false_type {};
template <class FuncType, FuncType* func_ptr>
struct is_compile_time_function_pointer<CompileTimeFunctionPointer<FuncType, func_ptr>> : std::true_type {};

// The return and parameter types of a function type.
template <class... T>
struct typelist {};

template <class F>
struct infer_function_traits;
template <class Result, class... Args>
struct infer_function_traits<Result(Args...)> {
  using return_type = Result;
  using parameter_types = typelist<Args...>;
};
template <class F>
using infer_function_traits_t = infer_function_traits<F>;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch

// EXECUTORCH_FN(func [, name]): `func` as a CompileTimeFunctionPointer value. The optional name (upstream 1.x passes
// the operator name there for its profiler) is accepted and not needed here.
#define EXECUTORCH_FN_TYPE(func)                                             \
  ::executorch::extension::kernel_util_internal::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>
#define ET_INTERNAL_FN_FIRST(func, ...) EXECUTORCH_FN_TYPE(func)()
#define EXECUTORCH_FN(...) ET_INTERNAL_FN_FIRST(__VA_ARGS__, unused)
