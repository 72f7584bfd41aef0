#pragma once
// A step that modifies the logits before sampling (upstream: extension/llm/sampler/logit_processor.h, the same
// interface): TextTokenGenerator::add_logit_processor() runs each registered one, in order, on every decode step's
// logits (e.g. to mask tokens a grammar does not allow).
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API LogitProcessor {
 public:
  virtual ~LogitProcessor() = default;
  // Modifies `logits` (a view of the decoder's output) in place; an error stops the generation.
  virtual ::executorch::runtime::Error process(::executorch::aten::Tensor logits) = 0;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
