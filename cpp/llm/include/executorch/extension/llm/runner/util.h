#pragma once
// Small helpers of the LLM runner (upstream: extension/llm/runner/util.h): printing a token's text, the clock of
// the stats, the process's memory, the macros that turn a tokenizers::Result into a runtime error, and the
// position tensor of a decoder call (populate_start_pos_or_cache_position), a float tensor in bfloat16
// (convert_to_bfloat16).
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#if defined(__linux__) || defined(__unix__)
#include <sys/resource.h>
#endif

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
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

// The position input of a decoder call of seq_len tokens starting at start_pos, shaped as the method's second
// input wants it: a view of start_pos itself when that input holds one element, else the seq_len cache positions
// start_pos, start_pos + 1, ... written into cache_positions_vec. Both must outlive the returned tensor.
inline runtime::Result<TensorPtr> populate_start_pos_or_cache_position(Module* module, int64_t& start_pos,
                                                                       std::vector<int64_t>& cache_positions_vec,
                                                                       int seq_len,
                                                                       const char* method_name = "forward") {
  auto method_meta = module->method_meta(method_name);
  if (!method_meta.ok()) return method_meta.error();
  auto input_meta = method_meta->input_tensor_meta(1);
  if (!input_meta.ok()) return input_meta.error();
  const auto sizes = input_meta->sizes();
  const int64_t numel = sizes.size() == 0 ? 1 : sizes[0];
  if (numel > 1) {
    cache_positions_vec.resize(static_cast<size_t>(seq_len));
    for (int i = 0; i < seq_len; ++i) cache_positions_vec[static_cast<size_t>(i)] = start_pos + i;
    return from_blob(cache_positions_vec.data(), {static_cast<executorch::aten::SizesType>(seq_len)},
                     executorch::aten::ScalarType::Long);
  }
  return from_blob(&start_pos, {1}, executorch::aten::ScalarType::Long);
}

// A bfloat16 copy of a float tensor (same sizes; rounded to nearest even); Error::InvalidArgument for another
// dtype.
inline runtime::Result<TensorPtr> convert_to_bfloat16(const TensorPtr& src_tensor) {
  if (src_tensor->scalar_type() != executorch::aten::ScalarType::Float) {
    ET_LOG(Error, "BFloat16 conversion only supported from Float source data");
    return runtime::Error::InvalidArgument;
  }
  const auto n = static_cast<size_t>(src_tensor->numel());
  const float* src = src_tensor->const_data_ptr<float>();
  auto out = empty_like(src_tensor, executorch::aten::ScalarType::BFloat16);
  auto* dst = out->mutable_data_ptr<executorch::aten::BFloat16>();
  for (size_t i = 0; i < n; ++i) dst[i] = executorch::aten::BFloat16(src[i]);
  return out;
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
