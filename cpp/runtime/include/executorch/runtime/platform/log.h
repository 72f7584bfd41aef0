#pragma once
// Logging: ET_LOG(Level, "printf format", args...). A line goes to the platform layer's log sink
// (et_pal_emit_log_message(); by default one line on stderr, "[executorch E file.cpp:42] message") when
//  - its level is at least ET_MIN_LOG_LEVEL (compile time; Debug unless defined otherwise), and
//  - its level is at least the threshold set by the environment variable EXECUTORCH_LOG_LEVEL (debug, info, error
//    or fatal, in any case; another value keeps only fatal lines; unset: error), read once, at the first log call.
//    Fatal lines always pass. The threshold applies before the sink, so a replaced sink sees the same lines.
// ET_LOG_ENABLED=0 removes logging altogether.
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

// Levels below this are compiled out. Unlike upstream (Info), every level is compiled in by default, since the
// run-time threshold (EXECUTORCH_LOG_LEVEL) already keeps debug lines quiet unless asked for.
#ifndef ET_MIN_LOG_LEVEL
#define ET_MIN_LOG_LEVEL Debug
#endif

#ifndef ET_LOG_ENABLED
#define ET_LOG_ENABLED 1
#endif

// For toolchains whose <cinttypes> lacks them.
#ifndef PRIu64
#define PRIu64 "llu"
#endif
#ifndef PRId64
#define PRId64 "lld"
#endif

namespace executorch {
namespace runtime {

// Severity, from lowest to highest.
enum class LogLevel : uint8_t {
  Debug,
  Info,
  Error,
  Fatal,
  NumLevels,  // not a level: the count (logging at it emits et_pal_log_level_t::kUnknown)
};

namespace internal {

// The timestamp of a log line: pal_current_ticks().
EXECUTORCH_API et_timestamp_t get_log_timestamp();

// Whether a line of this level passes the run-time threshold (EXECUTORCH_LOG_LEVEL).
EXECUTORCH_API bool log_level_enabled(LogLevel level);

// Formats a line and hands it to pal_emit_log_message(), if its level passes the run-time threshold. Long
// messages are cut at a UTF-8 character boundary. Use ET_LOG rather than calling this.
ET_PRINTFLIKE(6, 0)
EXECUTORCH_API void vlogf(LogLevel level, et_timestamp_t timestamp, const char* filename, const char* function,
                          size_t line, const char* format, va_list args);

ET_PRINTFLIKE(6, 7)
inline void logf(LogLevel level, et_timestamp_t timestamp, const char* filename, const char* function, size_t line,
                 const char* format, ...) {
#if ET_LOG_ENABLED
  va_list args;
  va_start(args, format);
  internal::vlogf(level, timestamp, filename, function, line, format, args);
  va_end(args);
#else
  (void)level, (void)timestamp, (void)filename, (void)function, (void)line, (void)format;
#endif
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::LogLevel;
}  // namespace executor
}  // namespace torch

#if ET_LOG_ENABLED

// Logs a printf-style message at `_level` (Debug, Info, Error or Fatal). Logging at Fatal does not abort.
#define ET_LOG(_level, _format, ...)                                                                                  \
  do {                                                                                                                \
    const auto _log_level = ::executorch::runtime::LogLevel::_level;                                                  \
    if (static_cast<uint32_t>(_log_level) >=                                                                          \
            static_cast<uint32_t>(::executorch::runtime::LogLevel::ET_MIN_LOG_LEVEL) &&                               \
        ::executorch::runtime::internal::log_level_enabled(_log_level)) {                                             \
      const auto _timestamp = ::executorch::runtime::internal::get_log_timestamp();                                   \
      ::executorch::runtime::internal::logf(_log_level, _timestamp, ET_SHORT_FILENAME, ET_FUNCTION, ET_LINE, _format, \
                                            ##__VA_ARGS__);                                                           \
    }                                                                                                                 \
  } while (0)

// Logs an Error line when the condition is false; goes on either way.
#define ET_CHECK_OR_LOG_ERROR(_condition, _format, ...) \
  do {                                                  \
    if (!(_condition)) {                                \
      ET_LOG(Error, _format, ##__VA_ARGS__);            \
    }                                                   \
  } while (0)

#else  // ET_LOG_ENABLED

#define ET_LOG(_level, _format, ...) ((void)0)
#define ET_CHECK_OR_LOG_ERROR(_condition, _format, ...) ((void)0)

#endif  // ET_LOG_ENABLED

// ET_CHECK, ET_CHECK_MSG and the other assertions, which code of this SDK has always reached through log.h.
#include <executorch/runtime/platform/assert.h>
