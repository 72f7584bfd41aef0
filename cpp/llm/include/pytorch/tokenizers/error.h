#pragma once
// Error codes of the C++ tokenizers (upstream's pytorch/tokenizers error.h: the same names and values) and the
// early-return helpers TK_CHECK_OR_RETURN_ERROR / TK_CHECK_OK_OR_RETURN_ERROR.
#include <cstdint>

#include <pytorch/tokenizers/log.h>

namespace tokenizers {

typedef uint32_t error_code_t;

enum class Error : error_code_t {
  Ok = 0x00,
  Internal = 0x01,
  Uninitialized = 0x02,
  OutOfRange = 0x03,
  LoadFailure = 0x04,
  EncodeFailure = 0x05,
  Base64DecodeFailure = 0x06,
  ParseFailure = 0x07,
  DecodeFailure = 0x08,
  RegexFailure = 0x09,
};

// A short name of an error ("LoadFailure"), for messages.
inline const char* error_name(Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::Uninitialized: return "Uninitialized";
    case Error::OutOfRange: return "OutOfRange";
    case Error::LoadFailure: return "LoadFailure";
    case Error::EncodeFailure: return "EncodeFailure";
    case Error::Base64DecodeFailure: return "Base64DecodeFailure";
    case Error::ParseFailure: return "ParseFailure";
    case Error::DecodeFailure: return "DecodeFailure";
    case Error::RegexFailure: return "RegexFailure";
  }
  return "Unknown";
}

}  // namespace tokenizers

// Returns Error::<error__> (after logging the printf-style message) when cond__ is false.
#define TK_CHECK_OR_RETURN_ERROR(cond__, error__, message__, ...) \
  {                                                               \
    if (!(cond__)) {                                              \
      TK_LOG(Error, message__, ##__VA_ARGS__);                    \
      return ::tokenizers::Error::error__;                        \
    }                                                             \
  }

// Returns the error of an expression that yields an Error, unless it is Error::Ok; an optional printf-style
// message is logged first.
#define TK_CHECK_OK_OR_RETURN_ERROR(error__, ...)                                \
  do {                                                                           \
    const ::tokenizers::Error tk_error__ = (error__);                            \
    if (tk_error__ != ::tokenizers::Error::Ok) {                                 \
      ::tokenizers::internal::log_if_message(__FILE__, __LINE__, ##__VA_ARGS__); \
      return tk_error__;                                                         \
    }                                                                            \
  } while (0)

namespace tokenizers {
namespace internal {
inline void log_if_message(const char*, size_t) {}
inline void log_if_message(const char* file, size_t line, const char* message) {
#if TK_LOG_ENABLED
  logf(LogLevel::Error, file, line, "%s", message);
#else
  (void)file, (void)line, (void)message;
#endif
}
template <typename Arg, typename... Args>
inline void log_if_message(const char* file, size_t line, const char* format, Arg arg, Args... args) {
#if TK_LOG_ENABLED
  logf(LogLevel::Error, file, line, format, arg, args...);
#else
  (void)file, (void)line, (void)format, (void)arg;
#endif
}
}  // namespace internal
}  // namespace tokenizers
