#pragma once
#include <cstdint>

#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Numeric codes are those of upstream ExecuTorch, so logs and bindings agree.
enum class Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  AlreadyLoaded = 0x04,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// Name of an error code, e.g. "InvalidProgram".
EXECUTORCH_API const char* to_string(Error error);

// The most recent detailed error message recorded on this thread by the runtime (empty if none). Every
// non-Ok Error returned by the runtime sets it, naming what was wrong and, where it applies, what to install.
// Module logs it to stderr when a call fails (EXECUTORCH_LOG_LEVEL=fatal silences that).
EXECUTORCH_API const char* last_error_message();

// For backends and kernel libraries: records a printf-style message as this thread's last error message and
// returns `error`, so the runtime can pass the reason on (e.g. when a delegate fails to initialise).
EXECUTORCH_API Error set_last_error(Error error, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
EXECUTORCH_API void clear_last_error();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Error;
}  // namespace executor
}  // namespace torch
