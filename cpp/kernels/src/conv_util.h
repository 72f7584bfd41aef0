#pragma once
// Shared by convolution and pooling (src/ops/): window parameters given as 1 or n entries, and their bounds.
#include "kernel_utils.h"

namespace etk {

// Expands a 1- or n-element int list to n spatial values.
inline bool expand_param(const std::vector<int64_t>& v, int n, int64_t dflt, int64_t* out) {
  if (v.empty()) {
    for (int i = 0; i < n; ++i) out[i] = dflt;
    return true;
  }
  if (v.size() == 1) {
    for (int i = 0; i < n; ++i) out[i] = v[0];
    return true;
  }
  if (static_cast<int>(v.size()) != n) return false;
  for (int i = 0; i < n; ++i) out[i] = v[i];
  return true;
}

constexpr int64_t kMaxParam = 1 << 20;

inline std::string lst(const std::vector<int64_t>& v) { return shape_string(v.data(), static_cast<int>(v.size())); }

inline bool in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

}  // namespace etk
