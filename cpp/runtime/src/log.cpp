#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace executorch {
namespace runtime {
namespace {

int threshold() {
  static const int level = [] {
    const char* env = std::getenv("EXECUTORCH_LOG_LEVEL");
    if (env == nullptr) return static_cast<int>(LogLevel::Error);
    if (std::strcmp(env, "debug") == 0) return static_cast<int>(LogLevel::Debug);
    if (std::strcmp(env, "info") == 0) return static_cast<int>(LogLevel::Info);
    if (std::strcmp(env, "error") == 0) return static_cast<int>(LogLevel::Error);
    return static_cast<int>(LogLevel::Fatal);  // "fatal", "none" or anything else: only fatal messages
  }();
  return level;
}

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug: return "D";
    case LogLevel::Info: return "I";
    case LogLevel::Error: return "E";
    case LogLevel::Fatal: return "F";
  }
  return "?";
}

}  // namespace

void log_message(LogLevel level, const char* file, int line, const char* fmt, ...) {
  if (static_cast<int>(level) < threshold()) return;
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  char buf[1200];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "[executorch %s %s:%d] %s\n", level_name(level), base, line, buf);
}

void runtime_init() {}

const char* runtime_version() { return EXECUTORCH_VERSION; }

}  // namespace runtime
}  // namespace executorch
