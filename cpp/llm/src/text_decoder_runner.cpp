// TextDecoderRunner::step (text_decoder_runner.h).
#include <executorch/extension/llm/runner/text_decoder_runner.h>

#include <vector>

namespace executorch {
namespace extension {
namespace llm {

using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::Result;

TextDecoderRunner::TextDecoderRunner(Module* module, IOManager* io_manager, std::string method_name,
                                     std::unique_ptr<Sampler> sampler)
    : module_(module), io_manager_(io_manager), method_name_(std::move(method_name)), sampler_(std::move(sampler)) {}

namespace {

// The logits: the only output, a tensor.
Result<executorch::aten::Tensor> only_tensor(const std::vector<EValue>& outputs, const std::string& method) {
  if (outputs.size() != 1 || !outputs[0].isTensor()) {
    ET_LOG(Error, "%s returned %zu outputs; expected one tensor of logits", method.c_str(), outputs.size());
    return Error::InvalidProgram;
  }
  return outputs[0].toTensor();
}

}  // namespace

Result<executorch::aten::Tensor> TextDecoderRunner::step(TensorPtr& tokens, int64_t start_pos) {
  if (module_ == nullptr || !tokens) {
    ET_LOG(Error, "TextDecoderRunner::step: no module or no tokens");
    return Error::InvalidArgument;
  }
  auto method_meta = module_->method_meta(method_name_);
  if (!method_meta.ok()) {
    ET_LOG(Error, "TextDecoderRunner::step: the program has no method '%s'", method_name_.c_str());
    return method_meta.error();
  }
  // One input: no KV cache, the method sees the whole sequence every time.
  if (method_meta->num_inputs() <= 1) {
    auto outputs = module_->execute(method_name_, std::vector<EValue>{tokens});
    if (!outputs.ok()) return outputs.error();
    return only_tensor(*outputs, method_name_);
  }
  if (io_manager_ == nullptr) {
    ET_LOG(Error, "TextDecoderRunner::step: no IOManager");
    return Error::InvalidState;
  }
  std::vector<int64_t> cache_positions;
  auto start_pos_tensor = populate_start_pos_or_cache_position(module_, start_pos, cache_positions,
                                                               static_cast<int>(tokens->numel()), method_name_.c_str());
  if (!start_pos_tensor.ok()) return start_pos_tensor.error();
  auto inputs = io_manager_->prepare_decode(tokens, *start_pos_tensor, method_name_);
  if (!inputs.ok()) return inputs.error();
  auto outputs = module_->execute(method_name_, *inputs);
  if (!outputs.ok()) return outputs.error();
  const Error err = io_manager_->update_decode(*outputs, method_name_);
  if (err != Error::Ok) return err;
  return only_tensor(*outputs, method_name_);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
