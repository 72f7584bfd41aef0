// The C++ tokenizers' log sink (pytorch/tokenizers/log.h): the runtime's log (ET_LOG's threshold,
// EXECUTORCH_LOG_LEVEL, and the platform layer's sink), and the thread's last error for callers that report it
// themselves (the Python binding's exceptions).
#include <executorch/runtime/platform/log.h>
#include <pytorch/tokenizers/log.h>

#include <cstring>
#include <string>

static_assert(static_cast<int>(tokenizers::LogLevel::Debug) == static_cast<int>(executorch::runtime::LogLevel::Debug) &&
                  static_cast<int>(tokenizers::LogLevel::Fatal) ==
                      static_cast<int>(executorch::runtime::LogLevel::Fatal),
              "the tokenizers' log levels map onto the runtime's one to one");

namespace tokenizers {
namespace internal {
namespace {
thread_local std::string g_last_error;

// Length of the well-formed UTF-8 sequence at s[0..n) (1-4), or 0.
size_t utf8_length(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
  }
  if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
      (c == 0xF4 && s[1] > 0x8F)) {
    return 0;  // overlong, surrogate or beyond U+10FFFF
  }
  return len;
}

// The message as printable UTF-8: control characters and bytes that are not UTF-8 (a damaged file's bytes quoted
// by a parser) become \xNN.
std::string printable(const char* message) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(message);
  for (size_t i = 0, n = std::strlen(message); i < n;) {
    const size_t len = s[i] < 0x20 || s[i] == 0x7F ? 0 : utf8_length(s + i, n - i);
    if (len == 0) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02X", s[i]);
      out += hex;
      ++i;
    } else {
      out.append(message + i, len);
      i += len;
    }
  }
  return out;
}
}  // namespace

void emit_log(LogLevel level, const char* file, size_t line, const char* message) {
  const std::string text = printable(message);
  if (level == LogLevel::Error || level == LogLevel::Fatal) g_last_error = text;
  using executorch::runtime::LogLevel;
  const LogLevel et_level = static_cast<LogLevel>(static_cast<uint8_t>(level));  // the same four levels, in order
  if (!executorch::runtime::internal::log_level_enabled(et_level)) return;
  executorch::runtime::internal::logf(et_level, executorch::runtime::internal::get_log_timestamp(), file, "tokenizers",
                                      line, "tokenizers: %s", text.c_str());
}

const char* last_error() { return g_last_error.c_str(); }

void clear_last_error() { g_last_error.clear(); }

}  // namespace internal
}  // namespace tokenizers
