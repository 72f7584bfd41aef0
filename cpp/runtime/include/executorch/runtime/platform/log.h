#pragma once
#include <cstdlib>

#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

enum class LogLevel : int { Debug = 0, Info = 1, Error = 2, Fatal = 3 };

// printf-style logging to stderr. Messages below the level set by the environment variable
// EXECUTORCH_LOG_LEVEL (debug, info, error; default error) are dropped.
EXECUTORCH_API void log_message(LogLevel level, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

}  // namespace runtime
}  // namespace executorch

#define ET_LOG(level, ...) \
  ::executorch::runtime::log_message(::executorch::runtime::LogLevel::level, __FILE__, __LINE__, __VA_ARGS__)

// Aborts the process with a message when an internal invariant is broken. Never used for input validation.
#define ET_CHECK_MSG(cond, ...)   \
  do {                            \
    if (!(cond)) {                \
      ET_LOG(Fatal, __VA_ARGS__); \
      std::abort();               \
    }                             \
  } while (0)
#define ET_CHECK(cond) ET_CHECK_MSG(cond, "check failed: %s", #cond)
