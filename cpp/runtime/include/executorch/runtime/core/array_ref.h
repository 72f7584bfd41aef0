#pragma once
// ArrayRef<T>: a non-owning, read-only view of a contiguous array (upstream's, after LLVM's). The viewed memory
// must outlive the view: an ArrayRef made from a temporary (a braced list, a single value) dangles once the full
// expression ends.
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class ArrayRef final {
 public:
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;
  using value_type = T;

  /* implicit */ constexpr ArrayRef() : data_(nullptr), length_(0) {}
  // A single element.
  /* implicit */ constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  ArrayRef(const T* data, size_t length) : data_(data), length_(length) { ET_DCHECK(data_ != nullptr || length_ == 0); }
  ArrayRef(const T* begin, const T* end) : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <size_t N>
  /* implicit */ constexpr ArrayRef(const std::array<T, N>& arr) : data_(arr.data()), length_(N) {}
  template <size_t N>
  /* implicit */ constexpr ArrayRef(const T (&arr)[N]) : data_(arr), length_(N) {}
  // Extensions of this SDK: views of a std::vector and of a braced list.
  template <typename A>
  /* implicit */ ArrayRef(const std::vector<T, A>& v) : data_(v.data()), length_(v.size()) {}
  /* implicit */ constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), length_(il.size()) {}

  constexpr iterator begin() const { return data_; }
  constexpr iterator end() const { return data_ + length_; }
  constexpr const_iterator cbegin() const { return data_; }
  constexpr const_iterator cend() const { return data_ + length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return length_; }

  // First / last element; aborts when empty.
  const T& front() const {
    ET_CHECK(!empty());
    return data_[0];
  }
  const T& back() const {
    ET_CHECK(!empty());
    return data_[length_ - 1];
  }

  // Same length and equal elements.
  bool equals(ArrayRef rhs) const {
    if (length_ != rhs.length_) return false;
    for (size_t i = 0; i < length_; ++i) {
      if (!(data_[i] == rhs.data_[i])) return false;
    }
    return true;
  }

  // The m elements starting at n; aborts unless n + m <= size().
  ArrayRef<T> slice(size_t n, size_t m) const {
    ET_CHECK(n <= length_ && m <= length_ - n);
    return ArrayRef<T>(data_ + n, m);
  }
  // The elements from n on; aborts unless n <= size().
  ArrayRef<T> slice(size_t n) const {
    ET_CHECK(n <= length_);
    return slice(n, length_ - n);
  }

  constexpr const T& operator[](size_t index) const { return data_[index]; }
  // Bounds-checked element access; aborts when out of range.
  const T& at(size_t index) const {
    ET_CHECK(index < length_);
    return data_[index];
  }

  // A copy of the elements (extension of this SDK, as c10::ArrayRef::vec()).
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + length_); }

 private:
  const T* data_;
  size_type length_;
};

template <typename T>
ArrayRef<T> makeArrayRef(const T& one) {
  return one;
}
template <typename T>
ArrayRef<T> makeArrayRef(const T* data, size_t length) {
  return ArrayRef<T>(data, length);
}
template <typename T>
ArrayRef<T> makeArrayRef(const T* begin, const T* end) {
  return ArrayRef<T>(begin, end);
}
template <typename T, std::size_t N>
ArrayRef<T> makeArrayRef(const std::array<T, N>& arr) {
  return arr;
}
template <typename T>
ArrayRef<T> makeArrayRef(const ArrayRef<T>& ref) {
  return ref;
}
template <typename T>
ArrayRef<T>& makeArrayRef(ArrayRef<T>& ref) {
  return ref;
}
template <typename T, size_t N>
ArrayRef<T> makeArrayRef(const T (&arr)[N]) {
  return ArrayRef<T>(arr);
}

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}

using IntArrayRef = ArrayRef<int64_t>;

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::IntArrayRef;
using ::executorch::runtime::makeArrayRef;
}  // namespace executor
}  // namespace torch
