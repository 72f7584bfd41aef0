#include <executorch/runtime/core/error.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/log.h>

#include <cstdarg>
#include <cstdio>
#include <string>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace {
thread_local std::string t_last_error;
}

const char* last_error_message() { return t_last_error.c_str(); }

void clear_last_error() { t_last_error.clear(); }

namespace {
Error record(Error error, const char* fmt, va_list ap) {
  char buf[1024];
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  t_last_error = buf;
  ET_LOG(Debug, "%s (%s)", buf, to_string(error));
  return error;
}
}  // namespace

Error set_last_error(Error error, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(error, fmt, ap);
  va_end(ap);
  return error;
}

void KernelRuntimeContext::fail(Error error, const char* fmt, ...) {
  failure_state_ = error;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(failure_message_, sizeof(failure_message_), fmt, ap);
  va_end(ap);
}

}  // namespace runtime
}  // namespace executorch
