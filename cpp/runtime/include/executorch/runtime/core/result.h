#pragma once
#include <new>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/error.h>

namespace executorch {
namespace runtime {

// Either a value of type T or a non-Ok Error.
template <typename T>
class Result final {
 public:
  using value_type = typename std::remove_cv<T>::type;

  /* implicit */ Result(Error error) : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {}
  /* implicit */ Result(const value_type& value) : error_(Error::Ok), has_value_(true) {
    new (&value_) value_type(value);
  }
  /* implicit */ Result(value_type&& value) : error_(Error::Ok), has_value_(true) {
    new (&value_) value_type(std::move(value));
  }
  Result(Result&& other) noexcept : error_(other.error_), has_value_(other.has_value_) {
    if (has_value_) new (&value_) value_type(std::move(other.value_));
  }
  Result(const Result& other) : error_(other.error_), has_value_(other.has_value_) {
    if (has_value_) new (&value_) value_type(other.value_);
  }
  Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      reset();
      error_ = other.error_;
      has_value_ = other.has_value_;
      if (has_value_) new (&value_) value_type(std::move(other.value_));
    }
    return *this;
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      reset();
      error_ = other.error_;
      has_value_ = other.has_value_;
      if (has_value_) new (&value_) value_type(other.value_);
    }
    return *this;
  }
  ~Result() { reset(); }

  bool ok() const { return has_value_; }
  Error error() const { return error_; }

  // Precondition: ok().
  T& get() { return value_; }
  const T& get() const { return value_; }
  T& operator*() & { return value_; }
  const T& operator*() const& { return value_; }
  T&& operator*() && { return std::move(value_); }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  void reset() {
    if (has_value_) value_.~value_type();
    has_value_ = false;
  }
  union {
    value_type value_;
  };
  Error error_;
  bool has_value_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Result;
}  // namespace executor
}  // namespace torch

// Evaluates an expression returning Error or Result and returns its error from the enclosing function if not Ok.
#define ET_CHECK_OK_OR_RETURN_ERROR(expr)                              \
  do {                                                                 \
    const ::executorch::runtime::Error et_err__ = (expr);              \
    if (et_err__ != ::executorch::runtime::Error::Ok) return et_err__; \
  } while (0)
