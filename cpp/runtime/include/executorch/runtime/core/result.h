#pragma once
// Result<T>: either a value of type T or a non-Ok Error, returned by every fallible runtime API. Plus upstream's
// macros for using one:
//   T v = ET_UNWRAP(expr [, "printf format", args...]);      // returns the error from the enclosing function
//   ET_ASSIGN_OR_RETURN(v, expr [, "printf format", args...]); // declares `auto v` from the value
#include <new>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class Result final {
 public:
  using value_type = typename std::remove_cv<T>::type;

  // An error. Error::Ok is not an error, so it becomes Error::Internal.
  /* implicit */ Result(Error error) : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {
    if ET_UNLIKELY (error == Error::Ok) {
      ET_LOG(Debug, "Result constructed from Error::Ok; it holds Error::Internal instead");
    }
  }
  /* implicit */ Result(const value_type& value) : has_value_(true) { new (&value_) value_type(value); }
  /* implicit */ Result(value_type&& value) : has_value_(true) { new (&value_) value_type(std::move(value)); }
  Result(Result&& other) noexcept : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) value_type(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  // Copying and assigning are extensions of this SDK (upstream's Result is move-construct only); they exist when
  // T allows them.
  Result(const Result& other) : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) value_type(other.value_);
    } else {
      error_ = other.error_;
    }
  }
  Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      reset();
      has_value_ = other.has_value_;
      if (has_value_) {
        new (&value_) value_type(std::move(other.value_));
      } else {
        error_ = other.error_;
      }
    }
    return *this;
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      reset();
      has_value_ = other.has_value_;
      if (has_value_) {
        new (&value_) value_type(other.value_);
      } else {
        error_ = other.error_;
      }
    }
    return *this;
  }
  ~Result() { reset(); }

  ET_NODISCARD bool ok() const { return has_value_; }
  // Error::Ok when there is a value.
  ET_NODISCARD Error error() const { return has_value_ ? Error::Ok : error_; }

  // The value; aborts (ET_CHECK) when there is none.
  T& get() {
    check_ok();
    return value_;
  }
  const T& get() const {
    check_ok();
    return value_;
  }
  T& operator*() & {
    check_ok();
    return value_;
  }
  const T& operator*() const& {
    check_ok();
    return value_;
  }
  T&& operator*() && {
    check_ok();
    return std::move(value_);
  }
  T* operator->() {
    check_ok();
    return &value_;
  }
  const T* operator->() const {
    check_ok();
    return &value_;
  }

 private:
  Result() = delete;
  void check_ok() const { ET_CHECK(has_value_); }
  void reset() {
    if (has_value_) value_.~value_type();
    has_value_ = false;
  }

  union {
    value_type value_;
    Error error_;
  };
  bool has_value_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Result;
}  // namespace executor
}  // namespace torch

// The value of a Result expression; if it holds an error, returns that error from the enclosing function (after
// logging the optional printf-style message). An expression (a GNU statement expression): `T v = ET_UNWRAP(r);`.
#define ET_UNWRAP(result__, ...) ET_INTERNAL_UNWRAP(result__, ##__VA_ARGS__)

#define ET_INTERNAL_UNWRAP(...) ET_INTERNAL_UNWRAP_SELECT(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)(__VA_ARGS__)
#define ET_INTERNAL_UNWRAP_SELECT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, N, ...) ET_INTERNAL_UNWRAP_##N

#define ET_INTERNAL_UNWRAP_1(result__) \
  ({                                   \
    auto et_result__ = (result__);     \
    if (!et_result__.ok()) {           \
      return et_result__.error();      \
    }                                  \
    std::move(*et_result__);           \
  })

#define ET_INTERNAL_UNWRAP_2(result__, message__, ...) \
  ({                                                   \
    auto et_result__ = (result__);                     \
    if (!et_result__.ok()) {                           \
      ET_LOG(Error, message__, ##__VA_ARGS__);         \
      return et_result__.error();                      \
    }                                                  \
    std::move(*et_result__);                           \
  })

#define ET_INTERNAL_UNWRAP_3 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_4 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_5 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_6 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_7 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_8 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_9 ET_INTERNAL_UNWRAP_2
#define ET_INTERNAL_UNWRAP_10 ET_INTERNAL_UNWRAP_2

// Declares `auto var__` holding the value of a Result expression; if it holds an error, returns that error from
// the enclosing function (after logging the optional printf-style message). A statement.
#define ET_ASSIGN_OR_RETURN(...)       \
  ET_INTERNAL_ASSIGN_OR_RETURN_EXPAND( \
      ET_INTERNAL_ASSIGN_OR_RETURN_SELECT(__VA_ARGS__, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)(__VA_ARGS__))
#define ET_INTERNAL_ASSIGN_OR_RETURN_EXPAND(x) x
#define ET_INTERNAL_ASSIGN_OR_RETURN_SELECT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, N, ...) \
  ET_INTERNAL_ASSIGN_OR_RETURN_##N

#define ET_INTERNAL_ASSIGN_OR_RETURN_2(var__, result__) \
  auto et_assign_result_##var__ = (result__);           \
  if (!et_assign_result_##var__.ok()) {                 \
    return et_assign_result_##var__.error();            \
  }                                                     \
  auto var__ = std::move(*et_assign_result_##var__)

#define ET_INTERNAL_ASSIGN_OR_RETURN_3(var__, result__, message__, ...) \
  auto et_assign_result_##var__ = (result__);                           \
  if (!et_assign_result_##var__.ok()) {                                 \
    ET_LOG(Error, message__, ##__VA_ARGS__);                            \
    return et_assign_result_##var__.error();                            \
  }                                                                     \
  auto var__ = std::move(*et_assign_result_##var__)

#define ET_INTERNAL_ASSIGN_OR_RETURN_4 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_5 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_6 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_7 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_8 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_9 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_10 ET_INTERNAL_ASSIGN_OR_RETURN_3
#define ET_INTERNAL_ASSIGN_OR_RETURN_11 ET_INTERNAL_ASSIGN_OR_RETURN_3
