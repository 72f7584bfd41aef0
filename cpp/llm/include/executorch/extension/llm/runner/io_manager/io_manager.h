#pragma once
// The inputs and outputs of an LLM decoder method (upstream: extension/llm/runner/io_manager/io_manager.h, the
// same class and methods). This base class serves programs whose prefill / decode method takes (tokens,
// input_pos) and keeps its KV cache in its own mutable buffers, as export_llama -kv writes them: prepare_*()
// checks that the method takes two inputs and passes the two tensors through; load / reset / update_* have
// nothing to do. Subclasses override the virtuals for programs that take their caches or a mask as inputs.
// Header-only, as upstream's.
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API IOManager {
 public:
  // The module is used for the methods' metadata; it must outlive the IOManager.
  explicit IOManager(ET_MODULE_NAMESPACE::Module& module) : module_(module) {}
  virtual ~IOManager() = default;

  // Prepares for the given prefill and decode methods (nothing to do here).
  ET_NODISCARD virtual runtime::Error load(const std::string& prefill_method, const std::string& decode_method) {
    (void)prefill_method;
    (void)decode_method;
    return runtime::Error::Ok;
  }
  // load("forward", "forward").
  ET_NODISCARD runtime::Error load() { return load("forward", "forward"); }

  // Resets any state kept between calls (none here).
  ET_NODISCARD virtual runtime::Error reset(const std::string& prefill_method, const std::string& decode_method) {
    (void)prefill_method;
    (void)decode_method;
    return runtime::Error::Ok;
  }
  ET_NODISCARD runtime::Error reset() { return reset("forward", "forward"); }

  // The inputs of the prefill method for tokens `input` at positions `start_pos`: {input, start_pos}, or
  // InvalidState when the method does not take exactly two inputs.
  virtual runtime::Result<std::vector<runtime::EValue>> prepare_prefill(const TensorPtr& input,
                                                                        const TensorPtr& start_pos,
                                                                        const std::string& prefill_method) {
    return two_inputs(input, start_pos, prefill_method, "prefill");
  }
  runtime::Result<std::vector<runtime::EValue>> prepare_prefill(const TensorPtr& input, const TensorPtr& start_pos) {
    return prepare_prefill(input, start_pos, "forward");
  }

  // The same for the decode method.
  virtual runtime::Result<std::vector<runtime::EValue>> prepare_decode(const TensorPtr& input,
                                                                       const TensorPtr& start_pos,
                                                                       const std::string& decode_method) {
    return two_inputs(input, start_pos, decode_method, "decode");
  }
  runtime::Result<std::vector<runtime::EValue>> prepare_decode(const TensorPtr& input, const TensorPtr& start_pos) {
    return prepare_decode(input, start_pos, "forward");
  }

  // Takes in the outputs of a prefill / decode call (nothing to keep here).
  ET_NODISCARD virtual runtime::Error update_prefill(const std::vector<runtime::EValue>& model_outputs,
                                                     const std::string& prefill_method) {
    (void)model_outputs;
    (void)prefill_method;
    return runtime::Error::Ok;
  }
  ET_NODISCARD runtime::Error update_prefill(const std::vector<runtime::EValue>& model_outputs) {
    return update_prefill(model_outputs, "forward");
  }
  ET_NODISCARD virtual runtime::Error update_decode(const std::vector<runtime::EValue>& model_outputs,
                                                    const std::string& decode_method) {
    (void)model_outputs;
    (void)decode_method;
    return runtime::Error::Ok;
  }
  ET_NODISCARD runtime::Error update_decode(const std::vector<runtime::EValue>& model_outputs) {
    return update_decode(model_outputs, "forward");
  }

 private:
  runtime::Result<std::vector<runtime::EValue>> two_inputs(const TensorPtr& input, const TensorPtr& start_pos,
                                                           const std::string& method, const char* phase) {
    auto meta = module_.method_meta(method);
    if (!meta.ok()) return meta.error();
    if (meta->num_inputs() != 2) {
      ET_LOG(Error,
             "Expected 2 inputs for %s method, got %zu: the program likely takes its caches or a mask as inputs, "
             "which this IOManager does not support",
             phase, meta->num_inputs());
      return runtime::Error::InvalidState;
    }
    return std::vector<runtime::EValue>{input, start_pos};
  }

  ET_MODULE_NAMESPACE::Module& module_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
