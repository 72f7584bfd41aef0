#pragma once
// Assertions for invariants of the program itself (never for validating input): on failure they log a Fatal line
// "In function f(), assert failed (cond): message" and end the process through runtime_abort().
#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

// The Fatal line of a failed assertion; `_format` is a string literal.
#define ET_ASSERT_MESSAGE_EMIT(_format, ...) \
  ET_LOG(Fatal, "In function %s(), assert failed" _format, ET_FUNCTION, ##__VA_ARGS__)

// Aborts unless `_cond` holds, in every build type. `_format` is a string literal (printf-style).
#define ET_CHECK_MSG(_cond, _format, ...)                               \
  do {                                                                  \
    if ET_UNLIKELY (!(_cond)) {                                         \
      ET_ASSERT_MESSAGE_EMIT(" (%s): " _format, #_cond, ##__VA_ARGS__); \
      ::executorch::runtime::runtime_abort();                           \
    }                                                                   \
  } while (0)

// Aborts unless `_cond` holds, in every build type.
#define ET_CHECK(_cond)                       \
  do {                                        \
    if ET_UNLIKELY (!(_cond)) {               \
      ET_ASSERT_MESSAGE_EMIT(": %s", #_cond); \
      ::executorch::runtime::runtime_abort(); \
    }                                         \
  } while (0)

// Debug-build-only checks: nothing (the condition is not evaluated) when NDEBUG is defined. ET_DEBUG_ONLY marks
// variables that only these checks read.
#ifdef NDEBUG
#define ET_DCHECK_MSG(_cond, _format, ...) ((void)0)
#define ET_DCHECK(_cond) ((void)0)
#define ET_DEBUG_ONLY [[maybe_unused]]
#else
#define ET_DCHECK_MSG(_cond, _format, ...) ET_CHECK_MSG(_cond, _format, ##__VA_ARGS__)
#define ET_DCHECK(_cond) ET_CHECK(_cond)
#define ET_DEBUG_ONLY
#endif

// Marks a place execution never reaches; aborts if it does.
#define ET_ASSERT_UNREACHABLE()                                   \
  do {                                                            \
    ET_CHECK_MSG(false, "Execution should not reach this point"); \
    ET_UNREACHABLE();                                             \
  } while (0)

#define ET_ASSERT_UNREACHABLE_MSG(_format, ...)                                            \
  do {                                                                                     \
    ET_CHECK_MSG(false, "Execution should not reach this point. " _format, ##__VA_ARGS__); \
    ET_UNREACHABLE();                                                                      \
  } while (0)
