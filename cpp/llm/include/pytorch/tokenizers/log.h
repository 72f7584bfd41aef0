#pragma once
// Logging of the C++ tokenizers (the API of upstream's pytorch/tokenizers log.h): TK_LOG(Level, printf-format, ...)
// writes one line "tokenizers: <message>" through the runtime's log (ET_LOG's run-time threshold
// EXECUTORCH_LOG_LEVEL, default error, and the platform layer's sink, stderr by default). Levels: Debug, Info, Error,
// Fatal; lines below TK_MIN_LOG_LEVEL (default Info) are compiled away, and TK_LOG_ENABLED=0 compiles every TK_LOG
// away.
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <executorch/runtime/export.h>

#ifndef TK_MIN_LOG_LEVEL
#define TK_MIN_LOG_LEVEL Info
#endif

#ifndef TK_LOG_ENABLED
#define TK_LOG_ENABLED 1
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TK_PRINTFLIKE(fmt_index, va_index) __attribute__((format(printf, fmt_index, va_index)))
#else
#define TK_PRINTFLIKE(fmt_index, va_index)
#endif

namespace tokenizers {

enum class LogLevel : uint8_t { Debug, Info, Error, Fatal, NumLevels };

namespace internal {

inline const char* short_file_name(const char* path) {
  const char* name = path;
  for (const char* p = path; *p != '\0'; ++p) {
    if (*p == '/' || *p == '\\') name = p + 1;
  }
  return name;
}

// Hands the line to the runtime's log; an Error or Fatal message is also kept as the thread's last error.
EXECUTORCH_API void emit_log(LogLevel level, const char* file, size_t line, const char* message);
// The message of the thread's last Error / Fatal log line ("" when none since clear_last_error()).
EXECUTORCH_API const char* last_error();
EXECUTORCH_API void clear_last_error();

TK_PRINTFLIKE(4, 5)
inline void logf(LogLevel level, const char* file, size_t line, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  emit_log(level, short_file_name(file), line, message);
}

}  // namespace internal
}  // namespace tokenizers

#if TK_LOG_ENABLED
#define TK_LOG(level__, format__, ...)                                                                            \
  do {                                                                                                            \
    if (static_cast<uint32_t>(::tokenizers::LogLevel::level__) >=                                                 \
        static_cast<uint32_t>(::tokenizers::LogLevel::TK_MIN_LOG_LEVEL)) {                                        \
      ::tokenizers::internal::logf(::tokenizers::LogLevel::level__, __FILE__, __LINE__, format__, ##__VA_ARGS__); \
    }                                                                                                             \
  } while (0)
#else
#define TK_LOG(level__, format__, ...) ((void)0)
#endif
