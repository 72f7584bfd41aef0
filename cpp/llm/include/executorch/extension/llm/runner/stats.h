#pragma once
// Timings of one generate() call (upstream: extension/llm/runner/stats.h: the same fields, reset(),
// on_sampling_begin/end, stats_to_json_string and print_report). As upstream's, the *_ms fields count
// SCALING_FACTOR_UNITS_PER_SECOND units a second since an arbitrary epoch; here microseconds (upstream:
// milliseconds), so that small models' rates are not rounded to zero. Every rate and time below divides by it.
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include <executorch/extension/llm/runner/util.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

// The clock of Stats: steady microseconds.
inline long stats_time() {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

struct Stats {
  static constexpr long SCALING_FACTOR_UNITS_PER_SECOND = 1000000;
  long model_load_start_ms = 0;
  long model_load_end_ms = 0;
  // Start of generate(): the prompt's encoding and prefill count as inference.
  long inference_start_ms = 0;
  long token_encode_end_ms = 0;
  long model_execution_start_ms = 0;
  long model_execution_end_ms = 0;
  // End of the prefill (the first generated token is known).
  long prompt_eval_end_ms = 0;
  long first_token_ms = 0;
  long inference_end_ms = 0;
  long aggregate_sampling_time_ms = 0;
  int64_t num_prompt_tokens = 0;
  // As upstream counts them: the tokens of the decode loop, not the first token (the prefill's prediction).
  int64_t num_generated_tokens = 0;
  // GPU memory (upstream's fields; never filled here: UINT64_MAX / -1 mean "not available").
  uint64_t gpu_total_bytes = static_cast<uint64_t>(-1);
  uint64_t gpu_free_before_load_bytes = static_cast<uint64_t>(-1);
  uint64_t gpu_free_after_load_bytes = static_cast<uint64_t>(-1);
  uint64_t gpu_free_after_generate_bytes = static_cast<uint64_t>(-1);
  double gpu_peak_usage_mb = -1.0;

  void on_sampling_begin() { aggregate_sampling_timer_start_timestamp = stats_time(); }
  void on_sampling_end() {
    aggregate_sampling_time_ms += stats_time() - aggregate_sampling_timer_start_timestamp;
    aggregate_sampling_timer_start_timestamp = 0;
  }

  // Clears the counters of a generation; the model load times too with all_stats.
  void reset(bool all_stats = false) {
    const long load_start = model_load_start_ms, load_end = model_load_end_ms;
    *this = Stats();
    if (!all_stats) {
      model_load_start_ms = load_start;
      model_load_end_ms = load_end;
    }
  }

  // Ours: prompt tokens per second of the prefill, and tokens per second of the decode loop.
  double prefill_tokens_per_second() const {
    const long t = prompt_eval_end_ms - inference_start_ms;
    return t > 0 ? SCALING_FACTOR_UNITS_PER_SECOND * static_cast<double>(num_prompt_tokens) / static_cast<double>(t)
                 : 0.0;
  }
  double decode_tokens_per_second() const {
    const long t = inference_end_ms - prompt_eval_end_ms;
    return t > 0 ? SCALING_FACTOR_UNITS_PER_SECOND * static_cast<double>(num_generated_tokens) / static_cast<double>(t)
                 : 0.0;
  }

 private:
  long aggregate_sampling_timer_start_timestamp = 0;
};

// upstream's JSON line: the rates first, then the counters and time stamps, the GPU fields when filled.
inline std::string stats_to_json_string(const Stats& stats) {
  std::ostringstream ss;
  ss << "{";
  if (stats.prompt_eval_end_ms - stats.inference_start_ms > 0) {
    ss << "\"prefill_token_per_sec\":" << stats.prefill_tokens_per_second() << ",";
  }
  if (stats.inference_end_ms - stats.prompt_eval_end_ms > 0) {
    ss << "\"decode_token_per_sec\":" << stats.decode_tokens_per_second() << ",";
  }
  ss << "\"prompt_tokens\":" << stats.num_prompt_tokens << ",\"generated_tokens\":" << stats.num_generated_tokens
     << ",\"model_load_start_ms\":" << stats.model_load_start_ms << ",\"model_load_end_ms\":" << stats.model_load_end_ms
     << ",\"inference_start_ms\":" << stats.inference_start_ms << ",\"inference_end_ms\":" << stats.inference_end_ms
     << ",\"prompt_eval_end_ms\":" << stats.prompt_eval_end_ms << ",\"first_token_ms\":" << stats.first_token_ms
     << ",\"aggregate_sampling_time_ms\":" << stats.aggregate_sampling_time_ms << ",";
  if (stats.gpu_total_bytes != static_cast<uint64_t>(-1)) {
    ss << "\"gpu_total_bytes\":" << stats.gpu_total_bytes;
    if (stats.gpu_free_before_load_bytes != static_cast<uint64_t>(-1))
      ss << ",\"gpu_free_before_load_bytes\":" << stats.gpu_free_before_load_bytes;
    if (stats.gpu_free_after_load_bytes != static_cast<uint64_t>(-1))
      ss << ",\"gpu_free_after_load_bytes\":" << stats.gpu_free_after_load_bytes;
    if (stats.gpu_free_after_generate_bytes != static_cast<uint64_t>(-1))
      ss << ",\"gpu_free_after_generate_bytes\":" << stats.gpu_free_after_generate_bytes;
    if (stats.gpu_peak_usage_mb >= 0.0) ss << ",\"gpu_peak_usage_mb\":" << stats.gpu_peak_usage_mb;
    ss << ",";
  }
  ss << "\"SCALING_FACTOR_UNITS_PER_SECOND\":" << Stats::SCALING_FACTOR_UNITS_PER_SECOND << "}";
  return ss.str();
}

// Ours: one line for people (tokens, time to first token, prefill and decode rates).
inline std::string stats_to_string(const Stats& s) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "prompt %lld tokens, generated %lld; time to first token %.1f ms; prefill %.1f tokens/s, decode "
                "%.1f tokens/s",
                static_cast<long long>(s.num_prompt_tokens), static_cast<long long>(s.num_generated_tokens),
                1e3 * static_cast<double>(s.first_token_ms - s.inference_start_ms) /
                    static_cast<double>(Stats::SCALING_FACTOR_UNITS_PER_SECOND),
                s.prefill_tokens_per_second(), s.decode_tokens_per_second());
  return buf;
}

// upstream's report: "PyTorchObserver <json>" on stdout, then the times and rates in the log (Info).
inline void print_report(const Stats& stats) {
  std::printf("PyTorchObserver %s\n", stats_to_json_string(stats).c_str());
  const double unit = static_cast<double>(Stats::SCALING_FACTOR_UNITS_PER_SECOND);
  ET_LOG(Info, "\tPrompt Tokens: %" PRId64 "    Generated Tokens: %" PRId64, stats.num_prompt_tokens,
         stats.num_generated_tokens);
  ET_LOG(Info, "\tModel Load Time:\t\t%f (seconds)",
         static_cast<double>(stats.model_load_end_ms - stats.model_load_start_ms) / unit);
  const double inference = static_cast<double>(stats.inference_end_ms - stats.inference_start_ms);
  ET_LOG(Info, "\tTotal inference time:\t\t%f (seconds)\t\t Rate: \t%f (tokens/second)", inference / unit,
         inference > 0 ? static_cast<double>(stats.num_generated_tokens) / inference * unit : 0.0);
  const double prompt_eval = static_cast<double>(stats.prompt_eval_end_ms - stats.inference_start_ms);
  ET_LOG(Info, "\t\tPrompt evaluation:\t%f (seconds)\t\t Rate: \t%f (tokens/second)", prompt_eval / unit,
         stats.prefill_tokens_per_second());
  const double eval = static_cast<double>(stats.inference_end_ms - stats.prompt_eval_end_ms);
  ET_LOG(Info, "\t\tGenerated %" PRId64 " tokens:\t%f (seconds)\t\t Rate: \t%f (tokens/second)",
         stats.num_generated_tokens, eval / unit, stats.decode_tokens_per_second());
  ET_LOG(Info, "\tTime to first generated token:\t%f (seconds)",
         static_cast<double>(stats.first_token_ms - stats.inference_start_ms) / unit);
  ET_LOG(Info, "\tSampling time over %" PRId64 " tokens:\t%f (seconds)",
         stats.num_prompt_tokens + stats.num_generated_tokens,
         static_cast<double>(stats.aggregate_sampling_time_ms) / unit);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
