#pragma once
// Compile-time function pointers and function traits for the typed-kernel adapter (make_boxed_from_unboxed_functor.h),
// under upstream ExecuTorch's names: EXECUTORCH_FN(func, name) as upstream 1.x writes it, or EXECUTORCH_FN(func).
#include <executorch/extension/kernel_util/type_list.h>

#include <cstdlib>
#include <memory>
#include <type_traits>
#include <typeinfo>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

template <class T>
struct is_function_type : std::false_type {};
template <class Result, class... Args>
struct is_function_type<Result(Args...)> : std::true_type {};
template <class T>
using is_function_type_t = typename is_function_type<T>::type;

// A function known at compile time, as a type. func_name is the operator's name (a static constexpr char array, as
// EXECUTORCH_LIBRARY passes it) or null when EXECUTORCH_FN got no name.
template <class FuncType_, FuncType_* func_ptr_, const char* func_name = nullptr>
struct CompileTimeFunctionPointer final {
  static_assert(is_function_type<FuncType_>::value, "EXECUTORCH_FN takes a function");
  using FuncType = FuncType_;
  static constexpr const char* func_name_ = func_name;
  static constexpr FuncType* func_ptr() { return func_ptr_; }
};

template <class T>
struct is_compile_time_function_pointer : std::false_type {};
template <class FuncType, FuncType* func_ptr, const char* func_name>
struct is_compile_time_function_pointer<CompileTimeFunctionPointer<FuncType, func_ptr, func_name>> : std::true_type {};

// The function type of a pointer to member function (for lambdas' and functors' operator()).
template <typename T>
struct strip_class {};
template <typename Class, typename Result, typename... Args>
struct strip_class<Result (Class::*)(Args...)> {
  using type = Result(Args...);
};
template <typename Class, typename Result, typename... Args>
struct strip_class<Result (Class::*)(Args...) const> {
  using type = Result(Args...);
};
template <typename T>
using strip_class_t = typename strip_class<T>::type;

// Return type, parameter types and arity of a plain function type.
template <class Func>
struct function_traits {
  static_assert(!std::is_same<Func, Func>::value, "function_traits<F> takes a plain function type");
};
template <class Result, class... Args>
struct function_traits<Result(Args...)> {
  using func_type = Result(Args...);
  using return_type = Result;
  using parameter_types = typelist<Args...>;
  static constexpr auto number_of_parameters = sizeof...(Args);
};

// function_traits of a function type, a function pointer, or a functor / lambda (its operator()).
template <typename Functor>
struct infer_function_traits {
  using type = function_traits<strip_class_t<decltype(&Functor::operator())>>;
};
template <typename Result, typename... Args>
struct infer_function_traits<Result (*)(Args...)> {
  using type = function_traits<Result(Args...)>;
};
template <typename Result, typename... Args>
struct infer_function_traits<Result(Args...)> {
  using type = function_traits<Result(Args...)>;
};
template <typename T>
using infer_function_traits_t = typename infer_function_traits<T>::type;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch

// EXECUTORCH_FN_TYPE(func [, name]): the CompileTimeFunctionPointer type of `func`; EXECUTORCH_FN(func [, name]): a
// value of it. `name` must be a constant with linkage (a namespace-scope static constexpr char array).
#define ET_INTERNAL_FN_TYPE_1(func)                                          \
  ::executorch::extension::kernel_util_internal::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>
#define ET_INTERNAL_FN_TYPE_2(func, name)                                    \
  ::executorch::extension::kernel_util_internal::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func, name>
#define ET_INTERNAL_FN_PICK(_1, _2, which, ...) which
#define EXECUTORCH_FN_TYPE(...) \
  ET_INTERNAL_FN_PICK(__VA_ARGS__, ET_INTERNAL_FN_TYPE_2, ET_INTERNAL_FN_TYPE_1, unused)(__VA_ARGS__)
#define EXECUTORCH_FN(...) EXECUTORCH_FN_TYPE(__VA_ARGS__)()
