#pragma once
// Timings of one generate() call (upstream: extension/llm/runner/stats.h; the same fields). As upstream's, the
// *_ms fields count SCALING_FACTOR_UNITS_PER_SECOND units a second since an arbitrary epoch; here microseconds,
// so that small models' rates are not rounded to zero.
#include <cstdint>
#include <string>

#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

struct Stats {
  static constexpr int64_t SCALING_FACTOR_UNITS_PER_SECOND = 1000000;
  int64_t model_load_start_ms = 0;
  int64_t model_load_end_ms = 0;
  int64_t inference_start_ms = 0;
  int64_t token_encode_end_ms = 0;
  int64_t prompt_eval_end_ms = 0;
  int64_t first_token_ms = 0;
  int64_t inference_end_ms = 0;
  int64_t aggregate_sampling_time_ms = 0;
  int64_t num_prompt_tokens = 0;
  int64_t num_generated_tokens = 0;

  // Prompt tokens per second of the prefill, and generated tokens per second after the first one.
  double prefill_tokens_per_second() const;
  double decode_tokens_per_second() const;
  void reset() { *this = Stats(); }
};

// One line: tokens, time to first token, prefill and decode rates.
EXECUTORCH_API std::string stats_to_string(const Stats& stats);
// upstream's JSON form ({"prompt_tokens": ..., "generated_tokens": ..., ...}).
EXECUTORCH_API std::string stats_to_json_string(const Stats& stats);

inline double Stats::prefill_tokens_per_second() const {
  const int64_t ms = prompt_eval_end_ms - inference_start_ms;
  return ms > 0 ? SCALING_FACTOR_UNITS_PER_SECOND * static_cast<double>(num_prompt_tokens) / static_cast<double>(ms)
                : 0.0;
}
inline double Stats::decode_tokens_per_second() const {
  const int64_t ms = inference_end_ms - first_token_ms;
  return ms > 0 && num_generated_tokens > 1
             ? SCALING_FACTOR_UNITS_PER_SECOND * static_cast<double>(num_generated_tokens - 1) / static_cast<double>(ms)
             : 0.0;
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
