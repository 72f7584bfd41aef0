#pragma once
// UTF-8 helpers shared by the tokenizers of libexecutorch_llm (private header).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tokenizers {
namespace unicode {

// The byte of a byte piece "<0xHH>" (exactly two hex digits), or -1 for any other text.
inline int byte_piece(const std::string& piece) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  const int hi = hex(piece[3]), lo = hex(piece[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// Length of the UTF-8 sequence that starts with byte `c` (1 for a stray continuation or invalid byte).
inline size_t sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

// The code point at `pos` and its length in bytes (an invalid sequence: its first byte as U+FFFD, length 1).
inline uint32_t decode_at(const std::string& s, size_t pos, size_t* length) {
  const unsigned char c = static_cast<unsigned char>(s[pos]);
  size_t n = sequence_length(c);
  if (pos + n > s.size()) n = 1;
  if (n == 1) {
    *length = 1;
    return c < 0x80 ? c : 0xFFFD;
  }
  uint32_t cp = c & (0xFF >> (n + 1));
  for (size_t i = 1; i < n; ++i) {
    const unsigned char d = static_cast<unsigned char>(s[pos + i]);
    if ((d & 0xC0) != 0x80) {
      *length = 1;
      return 0xFFFD;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  *length = n;
  return cp;
}

inline void append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The characters of `s`, each as its UTF-8 bytes (invalid bytes one by one).
inline std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < s.size();) {
    size_t n = 0;
    decode_at(s, pos, &n);
    out.push_back(s.substr(pos, n));
    pos += n;
  }
  return out;
}

// Unicode White_Space (Rust's char::is_whitespace).
inline bool is_whitespace(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

}  // namespace unicode
}  // namespace tokenizers
