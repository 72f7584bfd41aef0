#pragma once
// A two-way map between token strings and integer ids (upstream's pytorch/tokenizers string_integer_map.h:
// StringIntegerMap<> with tryGetInteger / tryGetString / size / getElement). Header-only.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tokenizers {
namespace detail {

template <typename TStringHash = std::hash<std::string_view>, typename TIntegerHash = std::hash<std::uint64_t>,
          typename TAllocator = std::allocator<std::uint8_t>>
class StringIntegerMap {
 public:
  StringIntegerMap() = default;

  // From any iterable of (string-like, unsigned integer) pairs; the elements are ordered by integer.
  template <typename TMap>
  explicit StringIntegerMap(const TMap& map) {
    entries_.reserve(map.size());
    for (const auto& [str, value] : map) {
      entries_.emplace_back(std::string(str), static_cast<std::uint64_t>(value));
    }
    std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    by_string_.reserve(entries_.size());
    by_integer_.reserve(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      by_string_.emplace(std::string_view(entries_[i].first), i);
      by_integer_.emplace(entries_[i].second, i);
    }
  }

  StringIntegerMap(const StringIntegerMap& other) : StringIntegerMap(other.entries_) {}
  StringIntegerMap(StringIntegerMap&&) = default;  // moving the strings keeps their buffers (views stay valid)
  StringIntegerMap& operator=(const StringIntegerMap& other) {
    if (this != &other) *this = StringIntegerMap(other.entries_);
    return *this;
  }
  StringIntegerMap& operator=(StringIntegerMap&&) = default;

  std::optional<std::uint64_t> tryGetInteger(std::string_view str) const {
    auto it = by_string_.find(str);
    if (it == by_string_.end()) return std::nullopt;
    return entries_[it->second].second;
  }

  std::optional<std::string_view> tryGetString(std::uint64_t value) const {
    auto it = by_integer_.find(value);
    if (it == by_integer_.end()) return std::nullopt;
    return std::string_view(entries_[it->second].first);
  }

  std::size_t size() const { return entries_.size(); }

  // The index-th element in the order of the integers.
  std::pair<std::string_view, std::uint64_t> getElement(std::size_t index) const {
    return {std::string_view(entries_[index].first), entries_[index].second};
  }

 private:
  // The views in the indexes point into entries_' strings: moving the vector moves its buffer, never a string.
  std::vector<std::pair<std::string, std::uint64_t>> entries_;
  std::unordered_map<std::string_view, size_t, TStringHash> by_string_;
  std::unordered_map<std::uint64_t, size_t, TIntegerHash> by_integer_;
};

}  // namespace detail
}  // namespace tokenizers
