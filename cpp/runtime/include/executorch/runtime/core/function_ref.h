#pragma once
// FunctionRef<Ret(Params...)>: a non-owning reference to something callable (upstream's, after LLVM's
// function_ref). It stores a pointer to the callable, so the callable must outlive the FunctionRef: pass a lambda
// straight to a function taking a FunctionRef, do not keep a FunctionRef to a temporary lambda.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace executorch {
namespace runtime {

namespace internal {
template <typename T>
struct remove_cvref {
  using type = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
};
template <typename T>
using remove_cvref_t = typename remove_cvref<T>::type;
}  // namespace internal

template <typename Fn>
class FunctionRef;

template <typename Ret, typename... Params>
class FunctionRef<Ret(Params...)> {
  // Calls the callable whose address is `callable` (stored as an integer so one member fits every callable).
  Ret (*callback_)(intptr_t callable, Params... params) = nullptr;
  intptr_t callable_ = 0;

  template <typename Callable>
  static Ret call(intptr_t callable, Params... params) {
    // The cast lets a void FunctionRef wrap a callable that returns something.
    return static_cast<Ret>((*reinterpret_cast<Callable*>(callable))(std::forward<Params>(params)...));
  }

 public:
  FunctionRef() = default;
  /* implicit */ FunctionRef(std::nullptr_t) {}

  // Anything callable with Params... whose result converts to Ret (any result when Ret is void); not another
  // FunctionRef (that is copied instead).
  template <typename Callable>
  /* implicit */ FunctionRef(
      Callable&& callable,
      std::enable_if_t<!std::is_same<internal::remove_cvref_t<Callable>, FunctionRef>::value>* = nullptr,
      std::enable_if_t<
          std::is_void<Ret>::value ||
          std::is_convertible<decltype(std::declval<Callable>()(std::declval<Params>()...)), Ret>::value>* = nullptr)
      : callback_(call<std::remove_reference_t<Callable>>), callable_(reinterpret_cast<intptr_t>(&callable)) {}

  Ret operator()(Params... params) const { return callback_(callable_, std::forward<Params>(params)...); }

  // False for a default-constructed or null FunctionRef.
  explicit operator bool() const { return callback_ != nullptr; }

  // Whether both refer to the same callable object.
  bool operator==(const FunctionRef<Ret(Params...)>& other) const { return callable_ == other.callable_; }
};

}  // namespace runtime
}  // namespace executorch
