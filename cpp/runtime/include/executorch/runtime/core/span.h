#pragma once
#include <cstddef>
#include <vector>

namespace executorch {
namespace runtime {

// A non-owning view of a contiguous, mutable array.
template <typename T>
class Span final {
 public:
  using value_type = T;
  using iterator = T*;

  constexpr Span() noexcept : data_(nullptr), length_(0) {}
  constexpr Span(T* data, size_t length) : data_(data), length_(length) {}
  constexpr Span(T* begin, T* end) : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <size_t N>
  constexpr Span(T (&arr)[N]) : data_(arr), length_(N) {}
  template <typename U, typename A>
  Span(std::vector<U, A>& v) : data_(v.data()), length_(v.size()) {}

  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + length_; }
  constexpr T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return length_; }
  constexpr bool empty() const noexcept { return length_ == 0; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_;
  size_t length_;
};

}  // namespace runtime
}  // namespace executorch
