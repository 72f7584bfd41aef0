#include <executorch/extension/runner_util/inputs.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/log.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace executorch {
namespace extension {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::Tag;

namespace internal {
namespace {

Error fill_ones(Tensor& t) {
  switch (t.scalar_type()) {
#define ET_INTERNAL_FILL_ONES(ctype, dtype)                                                                    \
  case ScalarType::dtype:                                                                                      \
    std::fill(t.mutable_data_ptr<ctype>(), t.mutable_data_ptr<ctype>() + t.numel(), static_cast<ctype>(1.0f)); \
    return Error::Ok;
    ET_FORALL_REALHBBF16_TYPES(ET_INTERNAL_FILL_ONES)
#undef ET_INTERNAL_FILL_ONES
    default:
      return set_last_error(Error::InvalidArgument, "cannot fill an input of dtype %s with ones",
                            executorch::runtime::toString(t.scalar_type()));
  }
}

}  // namespace

Error fill_and_set_input(Method& method, TensorInfo& tensor_meta, size_t input_index, void* data_ptr,
                         bool fill_tensor) {
  // A short-lived view of the caller's memory with the planned shape; set_input copies what it needs from it.
  TensorImpl impl(tensor_meta.scalar_type(), static_cast<ssize_t>(tensor_meta.sizes().size()),
                  const_cast<TensorImpl::SizesType*>(tensor_meta.sizes().data()), data_ptr,
                  const_cast<TensorImpl::DimOrderType*>(tensor_meta.dim_order().data()));
  Tensor t(&impl);
  if (fill_tensor) ET_CHECK_OK_OR_RETURN_ERROR(fill_ones(t));
  return method.set_input(t, input_index);
}

}  // namespace internal

namespace {

// A scalar input from its buffer, which must hold exactly one value of the input's type.
Error set_scalar_input(Method& method, Tag tag, size_t i, const std::pair<char*, size_t>& buffer) {
  const char* data = buffer.first;
  const size_t size = buffer.second;
  auto wrong_size = [&](const char* type, size_t want) {
    return set_last_error(Error::InvalidArgument, "input %zu is %s: its buffer must be %zu bytes, got %zu", i, type,
                          want, size);
  };
  switch (tag) {
    case Tag::Int: {
      if (size != sizeof(int64_t)) return wrong_size("an Int", sizeof(int64_t));
      int64_t v = 0;
      std::memcpy(&v, data, sizeof(v));
      return method.set_input(EValue(v), i);
    }
    case Tag::Double: {
      if (size != sizeof(double)) return wrong_size("a Double", sizeof(double));
      double v = 0;
      std::memcpy(&v, data, sizeof(v));
      return method.set_input(EValue(v), i);
    }
    case Tag::Bool: {
      if (size != sizeof(bool)) return wrong_size("a Bool", sizeof(bool));
      bool v = false;
      std::memcpy(&v, data, sizeof(v));
      return method.set_input(EValue(v), i);
    }
    default:
      return set_last_error(Error::InvalidArgument, "input %zu has tag %d, which cannot be set from a buffer", i,
                            static_cast<int>(tag));
  }
}

}  // namespace

Result<BufferCleanup> prepare_input_tensors(Method& method, PrepareInputTensorsOptions options,
                                            const std::vector<std::pair<char*, size_t>>& input_buffers) {
  const MethodMeta meta = method.method_meta();
  const size_t num_inputs = meta.num_inputs();
  const bool fill_with_ones = input_buffers.empty();
  if (!fill_with_ones && input_buffers.size() != num_inputs) {
    return set_last_error(Error::InvalidArgument, "method %s has %zu inputs, got %zu input buffers", meta.name(),
                          num_inputs, input_buffers.size());
  }
  // Many small allocations can exhaust the heap too, whatever their total size.
  if (num_inputs > options.max_inputs) {
    return set_last_error(Error::InvalidProgram, "method %s has %zu inputs, more than max_inputs %zu", meta.name(),
                          num_inputs, options.max_inputs);
  }
  // The list BufferCleanup frees (malloc'ed, as it frees it with free()).
  void** buffers = static_cast<void**>(std::malloc(std::max<size_t>(num_inputs, 1) * sizeof(void*)));
  if (buffers == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate the input list");
  size_t num_allocated = 0;
  auto fail = [&](Error e) -> Result<BufferCleanup> {
    BufferCleanup cleanup({buffers, num_allocated});
    return e;
  };
  size_t total_size = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    Result<Tag> tag = meta.input_tag(i);
    if (!tag.ok()) return fail(tag.error());
    if (*tag == Tag::None) {
      const Error e = method.set_input(EValue(), i);
      if (e != Error::Ok) return fail(e);
      continue;
    }
    if (*tag != Tag::Tensor) {
      if (fill_with_ones) {
        ET_LOG(Debug, "prepare_input_tensors: leaving non-tensor input %zu unset", i);
        continue;
      }
      const Error e = set_scalar_input(method, *tag, i, input_buffers[i]);
      if (e != Error::Ok) return fail(e);
      continue;
    }
    Result<TensorInfo> info = meta.input_tensor_meta(i);
    if (!info.ok()) return fail(info.error());
    const size_t nbytes = info->nbytes();
    total_size += nbytes;
    if (total_size > options.max_total_allocation_size) {
      set_last_error(Error::InvalidProgram,
                     "allocating %zu bytes for input %zu would exceed max_total_allocation_size %zu", nbytes, i,
                     options.max_total_allocation_size);
      return fail(Error::InvalidProgram);
    }
    void* data = std::malloc(nbytes == 0 ? 1 : nbytes);
    if (data == nullptr) {
      set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes for input %zu", nbytes, i);
      return fail(Error::MemoryAllocationFailed);
    }
    buffers[num_allocated++] = data;
    if (!fill_with_ones) {
      const auto [bytes, size] = input_buffers[i];
      if (size != nbytes) {
        set_last_error(Error::InvalidArgument, "input %zu is %zu bytes, its buffer is %zu bytes", i, nbytes, size);
        return fail(Error::InvalidArgument);
      }
      if (nbytes > 0) std::memcpy(data, bytes, nbytes);
    }
    const Error e = internal::fill_and_set_input(method, info.get(), i, data, fill_with_ones);
    if (e != Error::Ok) {
      ET_LOG(Error, "prepare_input_tensors: input %zu: %s (0x%x)", i, executorch::runtime::last_error_message(),
             static_cast<unsigned>(e));
      return fail(e);
    }
  }
  return BufferCleanup({buffers, num_allocated});
}

}  // namespace extension
}  // namespace executorch
