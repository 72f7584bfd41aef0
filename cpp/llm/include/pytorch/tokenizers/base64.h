#pragma once
// Base64 decoding of tiktoken's vocabulary files (upstream's pytorch/tokenizers base64.h: base64::decode).
#include <cstdint>
#include <string>
#include <string_view>

#include <pytorch/tokenizers/result.h>

namespace base64 {

using tokenizers::Error;
using tokenizers::Result;

namespace detail {
// The value of a base64 digit ('A'-'Z', 'a'-'z', '0'-'9', '+', '/'), or -1.
inline int digit_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace detail

// Standard base64 with '=' padding; a length that is not a positive multiple of 4, a character outside the
// alphabet or misplaced padding -> Error::Base64DecodeFailure (logged).
inline Result<std::string> decode(const std::string_view& input) {
  TK_CHECK_OR_RETURN_ERROR(!input.empty() && input.size() % 4 == 0, Base64DecodeFailure,
                           "base64: length %zu is not a positive multiple of 4", input.size());
  size_t padding = 0;
  if (input[input.size() - 1] == '=') padding = input[input.size() - 2] == '=' ? 2 : 1;
  std::string output;
  output.reserve(input.size() / 4 * 3);
  uint32_t bits = 0;
  for (size_t i = 0; i < input.size() - padding; ++i) {
    const int v = detail::digit_value(static_cast<unsigned char>(input[i]));
    TK_CHECK_OR_RETURN_ERROR(v >= 0, Base64DecodeFailure, "base64: invalid character 0x%02x at offset %zu",
                             static_cast<unsigned char>(input[i]), i);
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (i % 4 == 3) {
      output.push_back(static_cast<char>((bits >> 16) & 0xFF));
      output.push_back(static_cast<char>((bits >> 8) & 0xFF));
      output.push_back(static_cast<char>(bits & 0xFF));
      bits = 0;
    }
  }
  if (padding == 1) {
    output.push_back(static_cast<char>((bits >> 10) & 0xFF));
    output.push_back(static_cast<char>((bits >> 2) & 0xFF));
  } else if (padding == 2) {
    output.push_back(static_cast<char>((bits >> 4) & 0xFF));
  }
  return output;
}

}  // namespace base64
