#pragma once
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace executorch {
namespace runtime {

// A non-owning view of a contiguous, read-only array.
template <typename T>
class ArrayRef final {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;

  constexpr ArrayRef() : data_(nullptr), length_(0) {}
  constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  constexpr ArrayRef(const T* data, size_t length) : data_(data), length_(length) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), length_(v.size()) {}
  constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), length_(il.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&arr)[N]) : data_(arr), length_(N) {}

  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + length_; }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[length_ - 1]; }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, length_ - start); }
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + length_); }
  bool equals(ArrayRef other) const {
    if (length_ != other.length_) return false;
    for (size_t i = 0; i < length_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }

 private:
  const T* data_;
  size_t length_;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}

template <typename T>
ArrayRef<T> makeArrayRef(const T* data, size_t length) {
  return ArrayRef<T>(data, length);
}

}  // namespace runtime
}  // namespace executorch
