#pragma once
#include <cstddef>
#include <cstdlib>
#include <utility>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

using ::executorch::ET_RUNTIME_NAMESPACE::Method;
using ::executorch::ET_RUNTIME_NAMESPACE::TensorInfo;

// Owns malloc'ed buffers (the input tensors prepare_input_tensors() made) and the malloc'ed array listing them;
// frees all of them when destroyed. Keep it alive while the method may read its inputs.
class BufferCleanup final {
 public:
  explicit BufferCleanup(executorch::runtime::Span<void*> buffers) : buffers_(buffers) {}
  BufferCleanup(BufferCleanup&& rhs) noexcept : buffers_(rhs.buffers_) {
    rhs.buffers_ = executorch::runtime::Span<void*>();
  }
  ~BufferCleanup() {
    for (void* buffer : buffers_) std::free(buffer);
    std::free(buffers_.data());
  }

 private:
  BufferCleanup(const BufferCleanup&) = delete;
  BufferCleanup& operator=(const BufferCleanup&) = delete;
  BufferCleanup& operator=(BufferCleanup&&) noexcept = delete;

  executorch::runtime::Span<void*> buffers_;
};

// Limits that keep a malformed program from making prepare_input_tensors() allocate without bound.
struct PrepareInputTensorsOptions {
  // Largest total size of the input tensors, in bytes (InvalidProgram beyond it).
  size_t max_total_allocation_size = 1024 * 1024 * 1024;
  // Largest number of inputs (InvalidProgram beyond it).
  size_t max_inputs = 1024;
};

// Allocates every tensor input of `method` with its planned dtype and shape and sets it: filled with ones when
// `input_buffers` is empty, else with the bytes of input_buffers[i] (exactly the tensor's nbytes, else
// InvalidArgument; one buffer per input, else InvalidArgument). None inputs are set to None. Int, Double and Bool
// inputs are set from their buffer (8, 8 and 1 bytes) when buffers are given and left unset otherwise. The returned
// BufferCleanup owns the tensor memory.
EXECUTORCH_API executorch::runtime::Result<BufferCleanup> prepare_input_tensors(
    Method& method, PrepareInputTensorsOptions options = {},
    const std::vector<std::pair<char*, size_t>>& input_buffers = {});

namespace internal {
// Sets input `input_index` to a tensor of `tensor_meta`'s dtype and shape over `data_ptr` (filled with ones first
// when `fill_tensor`; InvalidArgument for a dtype that cannot hold 1).
EXECUTORCH_API executorch::runtime::Error fill_and_set_input(Method& method, TensorInfo& tensor_meta,
                                                             size_t input_index, void* data_ptr,
                                                             bool fill_tensor = true);
}  // namespace internal

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferCleanup;
using ::executorch::extension::prepare_input_tensors;
}  // namespace util
}  // namespace executor
}  // namespace torch
