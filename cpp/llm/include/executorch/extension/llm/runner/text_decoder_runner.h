#pragma once
// One call of an LLM's decoder method (upstream: extension/llm/runner/text_decoder_runner.h, the same class,
// constructor and methods): step() runs the method on a [1, n] tensor of tokens at KV-cache position start_pos and
// returns its logits; logits_to_token() samples the next token from them. With a KV cache (the method takes two
// inputs) the inputs come from the IOManager (tokens, and the position shaped as the method's second input wants
// it: populate_start_pos_or_cache_position); without one the method gets the tokens alone.
//
// Differs from upstream: a method that returns other than one tensor gives Error::InvalidProgram (upstream
// aborts). Ours: set_sampler().
#include <memory>
#include <string>

#include <executorch/extension/llm/runner/io_manager/io_manager.h>
#include <executorch/extension/llm/runner/util.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/llm/sampler/util.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API TextDecoderRunner {
 public:
  // Does not own the module or the IOManager: both must outlive it. sampler: reused by logits_to_token() (its
  // temperature set on each call); without one, each call samples with a temporary Sampler.
  explicit TextDecoderRunner(Module* module, IOManager* io_manager, std::string method_name = "forward",
                             std::unique_ptr<Sampler> sampler = nullptr);
  virtual ~TextDecoderRunner() = default;

  // Runs the method on `input` (int64 [1, n] tokens) at KV-cache position start_pos; returns its logits (a view
  // of the method's output, valid until the next call). An error of the method or of the IOManager is returned.
  virtual ::executorch::runtime::Result<executorch::aten::Tensor> step(TensorPtr& input, int64_t start_pos);

  // Loads the method (logs which one failed).
  virtual ::executorch::runtime::Error load() {
    auto err = module_->load_method(method_name_);
    if (err != ::executorch::runtime::Error::Ok) {
      ET_LOG(Error, "Failed to load method '%s'. Check available methods in the model.", method_name_.c_str());
    }
    return err;
  }
  virtual bool is_method_loaded() { return module_->is_method_loaded(method_name_); }
  const std::string& method_name() const { return method_name_; }

  // The next token from the logits of step(): argmax at temperature 0, else sampled (see sampler/util.h). Not
  // thread-safe with an injected sampler.
  inline int32_t logits_to_token(const executorch::aten::Tensor& logits_tensor, const float temperature = 0.0f) {
    if (sampler_) {
      sampler_->set_temperature(temperature);
      return ::executorch::extension::llm::sample_from_logits(logits_tensor, *sampler_);
    }
    return ::executorch::extension::llm::logits_to_token(logits_tensor, temperature);
  }

  // Ours: replaces the sampler logits_to_token() reuses (nullptr: a temporary one per call). TextLLMRunner gives
  // each generate() a Sampler seeded with its config's seed and top-p.
  void set_sampler(std::unique_ptr<Sampler> sampler) { sampler_ = std::move(sampler); }

 protected:
  Module* module_;
  IOManager* io_manager_;
  std::string method_name_;
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::TextDecoderRunner;
}  // namespace executor
}  // namespace torch
