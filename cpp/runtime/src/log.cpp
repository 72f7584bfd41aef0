// ET_LOG's back end: the run-time threshold (EXECUTORCH_LOG_LEVEL), formatting, and the hand-off to the platform
// layer's log sink (pal_emit_log_message(), stderr by default: platform.cpp).
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>

#include <strings.h>

#include <cstdio>
#include <cstdlib>

namespace executorch {
namespace runtime {
namespace internal {
namespace {

static_assert(LogLevel::Debug < LogLevel::Info && LogLevel::Info < LogLevel::Error &&
                  LogLevel::Error < LogLevel::Fatal && LogLevel::Fatal < LogLevel::NumLevels,
              "log levels are ordered by severity");

// The lowest level written, from EXECUTORCH_LOG_LEVEL, read once. Unset: error. An unknown value (e.g. "none")
// keeps only fatal lines, so a misspelt attempt to silence the runtime still silences it.
LogLevel threshold() {
  static const LogLevel level = [] {
    const char* env = std::getenv("EXECUTORCH_LOG_LEVEL");
    if (env == nullptr || *env == '\0') return LogLevel::Error;
    if (strcasecmp(env, "debug") == 0) return LogLevel::Debug;
    if (strcasecmp(env, "info") == 0) return LogLevel::Info;
    if (strcasecmp(env, "error") == 0) return LogLevel::Error;
    return LogLevel::Fatal;
  }();
  return level;
}

et_pal_log_level_t to_pal(LogLevel level) {
  switch (level) {
    case LogLevel::Debug: return kDebug;
    case LogLevel::Info: return kInfo;
    case LogLevel::Error: return kError;
    case LogLevel::Fatal: return kFatal;
    case LogLevel::NumLevels: break;
  }
  return kUnknown;
}

// The longest prefix of s[0, n) that does not end inside a UTF-8 sequence, so a message cut at the buffer's end
// stays valid UTF-8.
size_t utf8_prefix(const char* s, size_t n) {
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  size_t lead = n;
  while (lead > 0 && n - lead < 3 && (u[lead - 1] & 0xC0) == 0x80) --lead;  // step back over continuation bytes
  if (lead == 0) return 0;
  --lead;
  const unsigned char c = u[lead];
  const size_t want = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (want == 1) return lead + 1;  // ASCII: keep it, drop any stray continuation bytes after it
  return n - lead == want ? n : lead;
}

}  // namespace

et_timestamp_t get_log_timestamp() { return pal_current_ticks(); }

bool log_level_enabled(LogLevel level) { return level >= threshold(); }

void vlogf(LogLevel level, et_timestamp_t timestamp, const char* filename, const char* function, size_t line,
           const char* format, va_list args) {
  if (!log_level_enabled(level)) return;
  // Longer than upstream's 256 bytes: the runtime's error lines carry whole error messages (up to 1 KiB).
  constexpr size_t kMaxMessage = 2048;
  char buf[kMaxMessage];
  const int written = std::vsnprintf(buf, sizeof(buf), format, args);
  size_t n = written < 0                                   ? 0
             : static_cast<size_t>(written) >= sizeof(buf) ? sizeof(buf) - 1
                                                           : static_cast<size_t>(written);
  n = utf8_prefix(buf, n);
  buf[n] = '\0';
  pal_emit_log_message(timestamp, to_pal(level), filename, function, line, buf, n);
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
