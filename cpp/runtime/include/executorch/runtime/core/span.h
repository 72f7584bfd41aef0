#pragma once
// Span<T>: a non-owning view of a contiguous array whose elements may be changed through it (upstream's).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class Span final {
 public:
  using value_type = T;
  using iterator = T*;
  using size_type = size_t;

  /* implicit */ constexpr Span() noexcept : data_(nullptr), length_(0) {}
  Span(T* data, size_t length) : data_(data), length_(length) { ET_DCHECK(data_ != nullptr || length_ == 0); }
  Span(T* begin, T* end) : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <size_t N>
  /* implicit */ constexpr Span(T (&arr)[N]) : data_(arr), length_(N) {}
  // A single element.
  /* implicit */ constexpr Span(T& single_element) : data_(&single_element), length_(1) {}
  // Extension of this SDK: a view of a std::vector's elements.
  template <typename U, typename A>
  /* implicit */ Span(std::vector<U, A>& v) : data_(v.data()), length_(v.size()) {}

  iterator begin() const noexcept { return data_; }
  iterator end() const noexcept { return data_ + length_; }
  constexpr bool empty() const noexcept { return length_ == 0; }
  constexpr T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return length_; }
  T& operator[](size_t index) const { return data_[index]; }

 private:
  T* data_;
  size_type length_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Span;
}  // namespace executor
}  // namespace torch
