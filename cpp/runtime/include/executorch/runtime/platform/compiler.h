#pragma once
// Compiler feature macros under upstream ExecuTorch's names (ET_NODISCARD, ET_WEAK, ET_PRINTFLIKE, ...), so code
// written against upstream's headers compiles unchanged. This SDK needs C++17 and GCC >= 7 or Clang >= 5.
#include <cstddef>
#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 7
#error "ExecuTorch headers need GCC 7 or newer"
#endif
#if defined(__clang__) && __clang_major__ < 5
#error "ExecuTorch headers need Clang 5 or newer"
#endif
#if (defined(_MSC_VER) && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L)) || \
    (!defined(_MSC_VER) && __cplusplus < 201703L)
#error "ExecuTorch headers need C++17"
#endif

#define ET_NORETURN [[noreturn]]
#define ET_DEPRECATED [[deprecated]]
#define ET_EXPERIMENTAL [[deprecated("This API is experimental and may change without notice.")]]
#define ET_FALLTHROUGH [[fallthrough]]
#define ET_NODISCARD [[nodiscard]]
#define ET_UNUSED [[maybe_unused]]

#if defined(_MSC_VER)
#define ET_NOINLINE __declspec(noinline)
#define ET_INLINE __forceinline
#define ET_RESTRICT __restrict
#define ET_UNREACHABLE() __assume(0)
#define ET_WEAK
#define ET_PRINTFLIKE(fmt_index, va_index) _Printf_format_string_
#else
#define ET_NOINLINE __attribute__((noinline))
#define ET_INLINE __attribute__((always_inline)) inline
#define ET_RESTRICT __restrict__
#define ET_UNREACHABLE() __builtin_unreachable()
#define ET_WEAK __attribute__((weak))
#define ET_PRINTFLIKE(fmt_index, va_index) __attribute__((format(printf, fmt_index, va_index)))
#endif

#if __cplusplus >= 202002L
#define ET_LIKELY(expr) (expr) [[likely]]
#define ET_UNLIKELY(expr) (expr) [[unlikely]]
#else
#define ET_LIKELY(expr) (expr)
#define ET_UNLIKELY(expr) (expr)
#endif

#ifndef __has_builtin
#define __has_builtin(x) (0)
#endif

// The file name without its directories, for log lines.
#if defined(__FILE_NAME__)
#define ET_SHORT_FILENAME __FILE_NAME__
#elif __has_builtin(__builtin_strrchr)
#define ET_SHORT_FILENAME (__builtin_strrchr("/" __FILE__, '/') + 1)
#else
#define ET_SHORT_FILENAME __FILE__
#endif

#if __has_builtin(__builtin_LINE)
#define ET_LINE __builtin_LINE()
#else
#define ET_LINE __LINE__
#endif

#if defined(ET_USE_BUILTIN_FUNCTION_NAME) && ET_USE_BUILTIN_FUNCTION_NAME == 0
#define ET_FUNCTION __FUNCTION__
#elif __has_builtin(__builtin_FUNCTION)
#define ET_FUNCTION __builtin_FUNCTION()
#else
#define ET_FUNCTION __FUNCTION__
#endif

// printf length modifiers for size_t / ssize_t.
#define ET_PRIsize_t "zu"
#define ET_PRIssize_t "zd"

#ifndef ET_HAVE_GNU_STATEMENT_EXPRESSIONS
#if defined(__GNUC__) || defined(__clang__)
#define ET_HAVE_GNU_STATEMENT_EXPRESSIONS 1
#else
#define ET_HAVE_GNU_STATEMENT_EXPRESSIONS 0
#endif
#endif

#if defined(__EXCEPTIONS) || (defined(_MSC_VER) && defined(_HAS_EXCEPTIONS) && _HAS_EXCEPTIONS)
#define ET_HAS_EXCEPTIONS 1
#else
#define ET_HAS_EXCEPTIONS 0
#endif

#if defined(_MSC_VER)
#include <BaseTsd.h>
using ssize_t = SSIZE_T;
#else
#include <sys/types.h>
#endif

// The namespace of the runtime's types (executorch::ET_RUNTIME_NAMESPACE::Program, ...). Upstream switches it to
// runtime::aten for its ATen-mode build; this SDK has only the portable mode.
#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime
#endif

// Older spellings upstream still accepts.
#define __ET_DEPRECATED ET_DEPRECATED
#define __ET_FALLTHROUGH ET_FALLTHROUGH
#define __ET_FUNCTION ET_FUNCTION
#define __ET_HAVE_GNU_STATEMENT_EXPRESSIONS ET_HAVE_GNU_STATEMENT_EXPRESSIONS
#define __ET_INLINE ET_INLINE
#define __ET_LIKELY ET_LIKELY
#define __ET_LINE ET_LINE
#define __ET_NODISCARD ET_NODISCARD
#define __ET_NOINLINE ET_NOINLINE
#define __ET_NORETURN ET_NORETURN
#define __ET_PRINTFLIKE ET_PRINTFLIKE
#define __ET_SHORT_FILENAME ET_SHORT_FILENAME
#define __ET_UNLIKELY ET_UNLIKELY
#define __ET_UNREACHABLE ET_UNREACHABLE
#define __ET_UNUSED ET_UNUSED
#define __ET_WEAK ET_WEAK
