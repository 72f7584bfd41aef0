#pragma once
// Custom operators written the upstream ExecuTorch way: a typed kernel
//
//   Tensor& my_op_out(KernelRuntimeContext& ctx, const Tensor& in, double alpha, Tensor& out);
//   EXECUTORCH_LIBRARY(my_ns, "my_op.out", my_op_out);
//
// registers "my_ns::my_op.out" in the process-wide kernel registry when the library is loaded (a static
// initializer; load the library into a process that uses libexecutorch, e.g. `executorch_runner --load-library`,
// ctypes in Python, or link it). The adapter reads each argument from the call's values in schema order, the
// KernelRuntimeContext& first parameter being optional. Parameter types: const Tensor& / Tensor&, double, int64_t,
// bool, Scalar, ScalarType, std::optional<T> of those, ArrayRef<int64_t> / <double> / <bool> / <Tensor> /
// <std::optional<Tensor>>, std::string_view. A value of another kind than the parameter's (a corrupt or mismatched
// program) fails the call with InvalidArgument naming the argument, instead of aborting.
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <executorch/extension/kernel_util/meta_programming.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

// Upstream's helpers for counting the trailing non-const Tensor& parameters (the outputs) of a kernel.
template <class T>
struct is_nonconst_tensor : std::false_type {};
template <>
struct is_nonconst_tensor<::executorch::aten::Tensor&> : std::true_type {};

// The number of Tensor& parameters at the end of the list (0 when the last parameter is not one).
template <class TypeList>
struct count_nonconst_tensors;
template <>
struct count_nonconst_tensors<typelist<>> {
  static constexpr size_t value = 0;
};
template <class Head, class... Tail>
struct count_nonconst_tensors<typelist<Head, Tail...>> {
 private:
  static constexpr size_t tail = count_nonconst_tensors<typelist<Tail...>>::value;

 public:
  static constexpr size_t value = is_nonconst_tensor<Head>::value && tail == sizeof...(Tail) ? tail + 1 : tail;
};

// Parameters by value are read as their decayed type; tensor references keep their reference.
template <class T>
struct decay_if_not_tensor final {
  using type = std::decay_t<T>;
};
template <>
struct decay_if_not_tensor<::executorch::aten::Tensor&> final {
  using type = ::executorch::aten::Tensor&;
};
template <>
struct decay_if_not_tensor<const ::executorch::aten::Tensor&> final {
  using type = const ::executorch::aten::Tensor&;
};

// How one parameter type is read from an EValue: matches() says whether the value can be read as that type
// (expected names the type for the error), get() (or upstream's name, call()) reads it.
template <class T>
struct evalue_to_arg {
  static_assert(sizeof(T) == 0,
                "unsupported parameter type for a typed kernel: use const Tensor&, Tensor&, double, int64_t, bool, "
                "Scalar, ScalarType, std::optional of those, ArrayRef of int64_t/double/bool/Tensor/optional<Tensor>, "
                "or std::string_view");
};

#define ET_INTERNAL_EVALUE_ARG(type, name, cond, expr)                           \
  template <>                                                                    \
  struct evalue_to_arg<type> {                                                   \
    static constexpr const char* expected = name;                                \
    static bool matches(const ::executorch::runtime::EValue& v) { return cond; } \
    static type get(::executorch::runtime::EValue& v) { return expr; }           \
    static type call(::executorch::runtime::EValue& v) { return get(v); }        \
  };

ET_INTERNAL_EVALUE_ARG(double, "a float", v.isDouble() || v.isInt(), v.toScalarDouble())
ET_INTERNAL_EVALUE_ARG(int64_t, "an int", v.isInt(), v.toInt())
ET_INTERNAL_EVALUE_ARG(bool, "a bool", v.isBool(), v.toBool())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::Scalar, "a Scalar", v.isScalar(), v.toScalar())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ScalarType, "a ScalarType",
                       v.isInt() && v.toInt() >= 0 && v.toInt() < 64 &&
                           ::executorch::aten::isValid(static_cast<::executorch::aten::ScalarType>(v.toInt())),
                       v.toScalarType())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::Tensor, "a Tensor", v.isTensor(), v.toTensor())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ArrayRef<int64_t>, "an int[]", v.isIntList(), v.toIntList())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ArrayRef<double>, "a float[]", v.isDoubleList(), v.toDoubleList())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ArrayRef<bool>, "a bool[]", v.isBoolList(), v.toBoolList())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ArrayRef<::executorch::aten::Tensor>, "a Tensor[]", v.isTensorList(),
                       v.toTensorList())
ET_INTERNAL_EVALUE_ARG(::executorch::aten::ArrayRef<std::optional<::executorch::aten::Tensor>>, "a Tensor?[]",
                       v.isListOptionalTensor(), v.toListOptionalTensor())
ET_INTERNAL_EVALUE_ARG(std::string_view, "a str", v.isString(), v.toString())
#undef ET_INTERNAL_EVALUE_ARG

template <>
struct evalue_to_arg<::executorch::aten::Tensor&> {
  static constexpr const char* expected = "a Tensor";
  static bool matches(const ::executorch::runtime::EValue& v) { return v.isTensor(); }
  static ::executorch::aten::Tensor& get(::executorch::runtime::EValue& v) { return v.toTensor(); }
  static ::executorch::aten::Tensor& call(::executorch::runtime::EValue& v) { return v.toTensor(); }
};

template <>
struct evalue_to_arg<const ::executorch::aten::Tensor&> {
  static constexpr const char* expected = "a Tensor";
  static bool matches(const ::executorch::runtime::EValue& v) { return v.isTensor(); }
  static const ::executorch::aten::Tensor& get(::executorch::runtime::EValue& v) { return v.toTensor(); }
  static const ::executorch::aten::Tensor& call(::executorch::runtime::EValue& v) { return v.toTensor(); }
};

template <class T>
struct evalue_to_arg<std::optional<T>> {
  static constexpr const char* expected = evalue_to_arg<T>::expected;
  static bool matches(const ::executorch::runtime::EValue& v) { return v.isNone() || evalue_to_arg<T>::matches(v); }
  static std::optional<T> get(::executorch::runtime::EValue& v) {
    if (v.isNone()) return std::nullopt;
    return evalue_to_arg<T>::get(v);
  }
  static std::optional<T> call(::executorch::runtime::EValue& v) { return get(v); }
};

template <class T>
using arg_reader = evalue_to_arg<typename decay_if_not_tensor<T>::type>;

// Checks every argument before any is read, so a mismatched program fails the call instead of aborting.
template <class Reader>
bool check_arg(::executorch::runtime::KernelRuntimeContext& ctx, const ::executorch::runtime::EValue* v, size_t i) {
  if (v != nullptr && Reader::matches(*v)) return true;
  ctx.fail(::executorch::runtime::Error::InvalidArgument, "argument %zu is %s, the kernel takes %s", i,
           v != nullptr ? ::executorch::runtime::tag_to_string(v->tag) : "missing", Reader::expected);
  return false;
}

template <class... Args, size_t... I>
bool check_args(::executorch::runtime::KernelRuntimeContext& ctx,
                ::executorch::runtime::Span<::executorch::runtime::EValue*> stack, std::index_sequence<I...>) {
  if (stack.size() < sizeof...(Args)) {
    ctx.fail(::executorch::runtime::Error::InvalidArgument, "the call has %zu values, the kernel takes %zu arguments",
             stack.size(), sizeof...(Args));
    return false;
  }
  bool ok = true;
  ((ok = ok && check_arg<arg_reader<Args>>(ctx, stack[I], I)), ...);
  return ok;
}

// The boxed form of a typed kernel: without and with the KernelRuntimeContext& first parameter.
template <class FnPtr, class Sig>
struct boxed_kernel;

template <class FnPtr, class Result, class... Args>
struct boxed_kernel<FnPtr, Result(Args...)> {
  static void call(::executorch::runtime::KernelRuntimeContext& ctx,
                   ::executorch::runtime::Span<::executorch::runtime::EValue*> stack) {
    if (check_args<Args...>(ctx, stack, std::index_sequence_for<Args...>())) {
      invoke(stack, std::index_sequence_for<Args...>());
    }
  }
  template <size_t... I>
  static void invoke(::executorch::runtime::Span<::executorch::runtime::EValue*> stack, std::index_sequence<I...>) {
    (*FnPtr::func_ptr())(arg_reader<Args>::get(*stack[I])...);
  }
};

template <class FnPtr, class Result, class... Args>
struct boxed_kernel<FnPtr, Result(::executorch::runtime::KernelRuntimeContext&, Args...)> {
  static void call(::executorch::runtime::KernelRuntimeContext& ctx,
                   ::executorch::runtime::Span<::executorch::runtime::EValue*> stack) {
    if (check_args<Args...>(ctx, stack, std::index_sequence_for<Args...>())) {
      invoke(ctx, stack, std::index_sequence_for<Args...>());
    }
  }
  template <size_t... I>
  static void invoke(::executorch::runtime::KernelRuntimeContext& ctx,
                     ::executorch::runtime::Span<::executorch::runtime::EValue*> stack, std::index_sequence<I...>) {
    (*FnPtr::func_ptr())(ctx, arg_reader<Args>::get(*stack[I])...);
  }
};

}  // namespace kernel_util_internal

// The boxed kernel function (the registry's OpFunction) of EXECUTORCH_FN(func).
template <class FuncType>
struct WrapUnboxedIntoFunctor {
  static_assert(kernel_util_internal::is_compile_time_function_pointer<FuncType>::value,
                "WrapUnboxedIntoFunctor takes EXECUTORCH_FN(func)");
  using TrueType = typename FuncType::FuncType;
  using ReturnType = typename kernel_util_internal::infer_function_traits_t<TrueType>::return_type;
  using ArgsType = typename kernel_util_internal::infer_function_traits_t<TrueType>::parameter_types;
  // Whether the kernel takes the KernelRuntimeContext& first (optional here; upstream requires it).
  static constexpr bool first_arg_is_context =
      std::is_same<::executorch::runtime::KernelRuntimeContext,
                   std::remove_reference_t<kernel_util_internal::head_with_default_t<void, ArgsType>>>::value;
  // The parameters read from the call's values.
  using ContextRemovedArgsType =
      std::conditional_t<first_arg_is_context, kernel_util_internal::drop_if_nonempty_t<ArgsType, 1>, ArgsType>;

  static void call(::executorch::runtime::KernelRuntimeContext& ctx,
                   ::executorch::runtime::Span<::executorch::runtime::EValue*> stack) {
    kernel_util_internal::boxed_kernel<FuncType, TrueType>::call(ctx, stack);
  }
};

// A registry entry for a typed kernel: make_boxed_kernel("my_ns::my_op.out", EXECUTORCH_FN(my_op_out)).
template <class FuncType>
inline ::executorch::runtime::Kernel make_boxed_kernel(const char* name, FuncType) {
  return ::executorch::runtime::Kernel(name, WrapUnboxedIntoFunctor<FuncType>::call);
}

}  // namespace extension
}  // namespace executorch

#define ET_CONCATENATE_IMPL(s1, s2) s1##s2
#define ET_CONCATENATE(s1, s2) ET_CONCATENATE_IMPL(s1, s2)
#define ET_UID __LINE__

// EXECUTORCH_LIBRARY(ns, "op.overload", func): registers `func` as "ns::op.overload" when the library loads (a
// namespace-scope static initializer). The registration's Error is kept in a static: RegistrationAlreadyRegistered
// when the name is taken (the first registration stays; unlike upstream, nothing aborts).
#define EXECUTORCH_LIBRARY(ns, op_name, func) _EXECUTORCH_LIBRARY_IMPL(ns, op_name, func, ET_UID)
#define _EXECUTORCH_LIBRARY_IMPL(ns, op_name, func, uid)                                 \
  static constexpr const char ET_CONCATENATE(name_of_op_, uid)[] = #ns "::" op_name;     \
  static auto ET_CONCATENATE(res_##ns##_, uid) =                                         \
      ::executorch::runtime::register_kernel(::executorch::extension::make_boxed_kernel( \
          #ns "::" op_name, EXECUTORCH_FN(func, ET_CONCATENATE(name_of_op_, uid))))

namespace torch {
namespace executor {
using ::executorch::extension::make_boxed_kernel;
using ::executorch::extension::WrapUnboxedIntoFunctor;
}  // namespace executor
}  // namespace torch
