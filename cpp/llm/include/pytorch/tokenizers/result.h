#pragma once
// Result<T>: a value or an Error (upstream's pytorch/tokenizers result.h: the same API), and the unwrapping
// helpers TK_UNWRAP(result[, printf-style message...]) (returns the error from the enclosing function) and
// TK_UNWRAP_THROW(result) (throws std::runtime_error). Both are GNU statement expressions, as upstream's.
#include <cassert>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include <pytorch/tokenizers/error.h>

namespace tokenizers {

template <typename T>
class Result final {
 public:
  typedef T value_type;

  // An Error::Ok error becomes Error::Internal, so that ok() == (error() == Error::Ok) always holds.
  /* implicit */ Result(Error error) : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {}
  /* implicit */ Result(const T& value) : value_(value), has_value_(true) {}
  /* implicit */ Result(T&& value) : value_(std::move(value)), has_value_(true) {}
  Result(Result&& other) noexcept : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  ~Result() {
    if (has_value_) value_.~T();
  }
  Result() = delete;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  bool ok() const { return has_value_; }
  Error error() const { return has_value_ ? Error::Ok : error_; }

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
  T* operator->() {
    check_ok();
    return &value_;
  }
  const T* operator->() const {
    check_ok();
    return &value_;
  }

 private:
  void check_ok() const { assert(has_value_ && "Result must be ok to access its value"); }

  union {
    T value_;
    Error error_;
  };
  const bool has_value_;
};

}  // namespace tokenizers

#define TK_UNWRAP_THROW(result__)                                                                         \
  ({                                                                                                      \
    auto tk_unwrap_result__ = (result__);                                                                 \
    if (!tk_unwrap_result__.ok()) {                                                                       \
      throw std::runtime_error("Error: " + std::to_string(static_cast<int>(tk_unwrap_result__.error()))); \
    }                                                                                                     \
    std::move(tk_unwrap_result__.get());                                                                  \
  })

#define TK_UNWRAP(result__, ...)                                                 \
  ({                                                                             \
    auto tk_result__ = (result__);                                               \
    if (!tk_result__.ok()) {                                                     \
      ::tokenizers::internal::log_if_message(__FILE__, __LINE__, ##__VA_ARGS__); \
      return tk_result__.error();                                                \
    }                                                                            \
    std::move(*tk_result__);                                                     \
  })
