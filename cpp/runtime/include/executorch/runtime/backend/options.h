#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <variant>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace runtime {

static constexpr size_t kMaxOptionKeyLength = 64;
static constexpr size_t kMaxOptionValueLength = 256;

// A backend option's value: a flag, a number, or a NUL-terminated string.
using OptionValue = std::variant<bool, int, std::array<char, kMaxOptionValueLength>>;

struct BackendOption {
  char key[kMaxOptionKeyLength]{};
  OptionValue value;
};

// A fixed-capacity set of options for one backend (set_option / get_option in interface.h, LoadBackendOptionsMap).
template <size_t MaxCapacity>
class BackendOptions {
 public:
  BackendOptions() : size_(0) {}
  BackendOptions(const BackendOptions& other) : size_(other.size_) {
    for (size_t i = 0; i < size_; ++i) options_[i] = other.options_[i];
  }
  BackendOptions& operator=(const BackendOptions& other) {
    if (this != &other) {
      size_ = other.size_;
      for (size_t i = 0; i < size_; ++i) options_[i] = other.options_[i];
    }
    return *this;
  }

  Span<BackendOption> view() { return Span<BackendOption>(options_, size_); }

  // Sets (or replaces) an option. InvalidArgument when the set is full.
  template <size_t N>
  Error set_option(const char (&key)[N], bool value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "option key too long");
    return set_option_impl(key, value);
  }
  template <size_t N>
  Error set_option(const char (&key)[N], int value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "option key too long");
    return set_option_impl(key, value);
  }
  template <size_t N>
  Error set_option(const char (&key)[N], const char* value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "option key too long");
    std::array<char, kMaxOptionValueLength> text{};
    std::strncpy(text.data(), value, kMaxOptionValueLength - 1);
    return set_option_impl(key, text);
  }

  // NotFound when `key` is not set, InvalidArgument when it holds another type.
  template <typename T, size_t KeyLen>
  Error get_option(const char (&key)[KeyLen], T& out) const {
    static_assert(KeyLen <= kMaxOptionKeyLength, "option key too long");
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) != 0) continue;
      if constexpr (std::is_same_v<T, const char*>) {
        if (const auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&options_[i].value)) {
          out = text->data();
          return Error::Ok;
        }
      } else if (const auto* v = std::get_if<T>(&options_[i].value)) {
        out = *v;
        return Error::Ok;
      }
      return Error::InvalidArgument;
    }
    return Error::NotFound;
  }

 private:
  template <typename T>
  Error set_option_impl(const char* key, T value) {
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) == 0) {
        options_[i].value = value;
        return Error::Ok;
      }
    }
    if (size_ >= MaxCapacity) return Error::InvalidArgument;
    BackendOption option;
    const size_t n = std::min(std::strlen(key), kMaxOptionKeyLength - 1);
    std::memcpy(option.key, key, n);
    option.key[n] = '\0';
    option.value = value;
    options_[size_++] = option;
    return Error::Ok;
  }

  BackendOption options_[MaxCapacity]{};
  size_t size_;
};

}  // namespace runtime
}  // namespace executorch
