#pragma once
// Error codes of every runtime API (upstream's names and numbers, so logs and bindings agree), the last detailed
// error message of the calling thread, and upstream's early-return macros:
//   ET_CHECK_OR_RETURN_ERROR(cond, ErrorName, "printf format", args...)
//   ET_CHECK_OK_OR_RETURN_ERROR(expr [, "printf format", args...])
//   ET_CHECK_OR_RETURN_FALSE(cond, "printf format", args...)
#include <stdint.h>

#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

typedef uint32_t error_code_t;

enum class Error : error_code_t {
  // Success.
  Ok = 0x00,
  // An internal error (a bug in the runtime or a backend).
  Internal = 0x01,
  // The object is not in a state where the call is allowed (e.g. not loaded yet).
  InvalidState = 0x02,
  // Method::step() ran past the last instruction.
  EndOfMethod = 0x03,
  // Already loaded.
  AlreadyLoaded = 0x04,

  // Logical errors.
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,

  // Resource errors.
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,

  // Delegate errors.
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// Name of an error code, e.g. "InvalidProgram"; "Unknown" for a value outside the enum.
// (Upstream's returns the names with an "Error::" prefix.)
constexpr const char* to_string(const Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::InvalidState: return "InvalidState";
    case Error::EndOfMethod: return "EndOfMethod";
    case Error::AlreadyLoaded: return "AlreadyLoaded";
    case Error::NotSupported: return "NotSupported";
    case Error::NotImplemented: return "NotImplemented";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidType: return "InvalidType";
    case Error::OperatorMissing: return "OperatorMissing";
    case Error::RegistrationExceedingMaxKernels: return "RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered: return "RegistrationAlreadyRegistered";
    case Error::NotFound: return "NotFound";
    case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::AccessFailed: return "AccessFailed";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::InvalidExternalData: return "InvalidExternalData";
    case Error::OutOfResources: return "OutOfResources";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
  }
  return "Unknown";
}

// The most recent detailed error message recorded on this thread by the runtime (empty if none). Every
// non-Ok Error returned by the runtime sets it, naming what was wrong and, where it applies, what to install.
// Module logs it to stderr when a call fails (EXECUTORCH_LOG_LEVEL=fatal silences that).
EXECUTORCH_API const char* last_error_message();

// For backends and kernel libraries: records a printf-style message as this thread's last error message and
// returns `error`, so the runtime can pass the reason on (e.g. when a delegate fails to initialise).
EXECUTORCH_API Error set_last_error(Error error, const char* fmt, ...) ET_PRINTFLIKE(2, 3);
EXECUTORCH_API void clear_last_error();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Error;
using ::executorch::runtime::error_code_t;
}  // namespace executor
}  // namespace torch

// If `cond__` is false: logs the printf-style message and returns Error::error__ (e.g. InvalidArgument) from the
// enclosing function.
#define ET_CHECK_OR_RETURN_ERROR(cond__, error__, message__, ...) \
  do {                                                            \
    if (!(cond__)) {                                              \
      ET_LOG(Error, message__, ##__VA_ARGS__);                    \
      return ::executorch::runtime::Error::error__;               \
    }                                                             \
  } while (0)

// In a bool-returning check function: when `cond__` is false, logs "Check failed (<cond>): <message>" and returns
// false.
#define ET_CHECK_OR_RETURN_FALSE(cond__, message__, ...)                      \
  do {                                                                        \
    if (!(cond__)) {                                                          \
      ET_LOG(Error, "Check failed (%s): " message__, #cond__, ##__VA_ARGS__); \
      return false;                                                           \
    }                                                                         \
  } while (0)

// Evaluates `error__` (an Error) once and returns it from the enclosing function unless it is Ok; with a message
// (a printf format and its arguments) it also logs that message first.
#define ET_CHECK_OK_OR_RETURN_ERROR(...) ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR(__VA_ARGS__)

// Picks the 1- or 2+-argument form by counting arguments (up to 10).
#define ET_INTERNAL_EXPAND(x) x
#define ET_INTERNAL_GET_MACRO(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, NAME, ...) NAME
#define ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR(...)                                                  \
  ET_INTERNAL_EXPAND(ET_INTERNAL_GET_MACRO(                                                        \
      __VA_ARGS__, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, \
      ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2,              \
      ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2,              \
      ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2,              \
      ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2, ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_1)(__VA_ARGS__))

#define ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_1(error__)   \
  do {                                                    \
    const auto et_error__ = (error__);                    \
    if (et_error__ != ::executorch::runtime::Error::Ok) { \
      return et_error__;                                  \
    }                                                     \
  } while (0)

#define ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR_2(error__, message__, ...) \
  do {                                                                  \
    const auto et_error__ = (error__);                                  \
    if (et_error__ != ::executorch::runtime::Error::Ok) {               \
      ET_LOG(Error, message__, ##__VA_ARGS__);                          \
      return et_error__;                                                \
    }                                                                   \
  } while (0)
