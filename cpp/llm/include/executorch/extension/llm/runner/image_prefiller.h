#pragma once
// The interface of an image prefiller (upstream: extension/llm/runner/image_prefiller.h): runs an image through a
// module's encoder into the KV cache at start_pos (advancing it). Abstract, as upstream's.
#include <cstdint>

#include <executorch/extension/llm/runner/image.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {
namespace llm {

class ImagePrefiller {
 public:
  explicit ImagePrefiller(::executorch::extension::Module* module) : module_(module) {}
  virtual ::executorch::runtime::Result<executorch::aten::Tensor> prefill(Image& image, int64_t& start_pos) = 0;
  virtual ::executorch::runtime::Error load() = 0;
  virtual bool is_method_loaded() = 0;
  virtual ~ImagePrefiller() = default;

 protected:
  Module* module_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::ImagePrefiller;
}  // namespace executor
}  // namespace torch
