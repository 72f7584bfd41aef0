#pragma once
// Small helpers of the LLM runner (upstream: extension/llm/runner/util.h): printing a token's text, the clock of
// the stats, the process's memory, and the macros that turn a tokenizers::Result into a runtime error.
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#if defined(__linux__) || defined(__unix__)
#include <sys/resource.h>
#endif

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>
#include <pytorch/tokenizers/error.h>

// The value of a tokenizers::Result, or return Error::InvalidArgument from the enclosing function (a GNU
// statement expression, as upstream's).
#define ET_UNWRAP_TOKENIZER(result__)                                                   \
  ({                                                                                    \
    auto tk_result__ = (result__);                                                      \
    if (!tk_result__.ok()) {                                                            \
      ET_LOG(Error, "Tokenizers error code %d", static_cast<int>(tk_result__.error())); \
      return ::executorch::runtime::Error::InvalidArgument;                             \
    }                                                                                   \
    std::move(*tk_result__);                                                            \
  })

// The same as a statement: declares var__ holding the value.
#define ET_ASSIGN_OR_RETURN_TOKENIZER(var__, result__)                                             \
  auto et_assign_result_##var__ = (result__);                                                      \
  if (!et_assign_result_##var__.ok()) {                                                            \
    ET_LOG(Error, "Tokenizers error code %d", static_cast<int>(et_assign_result_##var__.error())); \
    return ::executorch::runtime::Error::InvalidArgument;                                          \
  }                                                                                                \
  auto var__ = std::move(*et_assign_result_##var__)

// Returns Error::InvalidArgument (after logging the message) when a tokenizers::Error is not Ok.
#define ET_CHECK_TK_OK_OR_RETURN_ERROR(result__, ...)                                            \
  do {                                                                                           \
    auto tk_error__ = (result__);                                                                \
    if (tk_error__ != ::tokenizers::Error::Ok) {                                                 \
      ET_LOG(Error, "Tokenizer error: %d", static_cast<uint32_t>(tk_error__));                   \
      ET_CHECK_OK_OR_RETURN_ERROR(::executorch::runtime::Error::InvalidArgument, ##__VA_ARGS__); \
    }                                                                                            \
  } while (0)

namespace executorch {
namespace extension {
namespace llm {

// Prints a token's text to stdout, except a lone byte that is neither printable nor white space.
inline void safe_printf(const char* piece) {
  if (piece == nullptr || piece[0] == '\0') return;
  if (piece[1] == '\0') {
    const unsigned char byte = static_cast<unsigned char>(piece[0]);
    if (!(std::isprint(byte) || std::isspace(byte))) return;
  }
  std::fputs(piece, stdout);
}

// Wall-clock milliseconds (upstream's clock). The runner's Stats count microseconds (stats.h: stats_time()).
inline long time_in_ms() {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// The peak resident set size of the process in bytes (0 where unknown).
inline size_t get_rss_bytes() {
#if defined(__linux__) || defined(__unix__)
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0) return static_cast<size_t>(usage.ru_maxrss) * 1024;
#endif
  return 0;
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
