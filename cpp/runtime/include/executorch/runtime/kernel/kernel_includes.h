#pragma once
// Everything a kernel library needs: values, tensors, the registry and the run-time context.
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace executorch {
namespace runtime {

// Resizes a kernel's output tensor (see TensorImpl::internal_resize_contiguous for the rules).
inline Error resize_tensor(executorch::aten::Tensor t, ArrayRef<executorch::aten::SizesType> new_sizes) {
  return t.unsafeGetTensorImpl()->internal_resize_contiguous(new_sizes);
}

}  // namespace runtime
}  // namespace executorch
