// The out-of-line parts of exec_aten/util/tensor_util.h (data pointers, resizing, dim order queries) and
// tensor_shape_to_c_string.h.
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/tensor_shape_to_c_string.h>

namespace executorch {
namespace runtime {

namespace {
// Logs "<what>" followed by the tensor's dim order, for the dim order predicates.
void log_dim_order(const char* what, const executorch::aten::Tensor& t) {
  int64_t order[kTensorDimensionLimit];
  const size_t n = std::min(t.dim_order().size(), kTensorDimensionLimit);
  for (size_t i = 0; i < n; ++i) order[i] = t.dim_order()[i];
  ET_LOG(Error, "%s %s", what, tensor_shape_to_c_string(Span<const int64_t>(order, n)).data());
}
}  // namespace

Error get_dim_order(const executorch::aten::Tensor& tensor, executorch::aten::DimOrderType* out_dim_order,
                    size_t out_dim_order_size) {
  const auto order = tensor.dim_order();
  ET_CHECK_OR_RETURN_ERROR(
      out_dim_order_size == order.size(), InvalidArgument,
      "Size needs to be equal to the number of dimensions of the tensor size %zu, tensor.dim() %zu", out_dim_order_size,
      order.size());
  if (!order.empty()) std::memcpy(out_dim_order, order.data(), order.size() * sizeof(executorch::aten::DimOrderType));
  return Error::Ok;
}

bool tensor_has_valid_dim_order(executorch::aten::Tensor t) {
  if (internal::validate_dim_order(t.dim_order().data(), t.dim_order().size())) return true;
  log_dim_order("Tensor dim order is not valid:", t);
  return false;
}

bool tensor_is_default_or_channels_last_dim_order(executorch::aten::Tensor t) {
  const auto order = t.dim_order();
  if (is_contiguous_dim_order(order.data(), order.size()) || is_channels_last_dim_order(order.data(), order.size())) {
    return true;
  }
  log_dim_order("Expected tensor to have default or channels last dim order, but got", t);
  return false;
}

bool tensor_is_default_dim_order(executorch::aten::Tensor t) {
  if (is_contiguous_dim_order(t.dim_order().data(), t.dim_order().size())) return true;
  log_dim_order("Expected tensor to have default dim order, but got", t);
  return false;
}

bool tensor_is_channels_last_dim_order(executorch::aten::Tensor t) {
  if (is_channels_last_dim_order(t.dim_order().data(), t.dim_order().size())) return true;
  log_dim_order("Expected tensor to have channels last dim order, but got", t);
  return false;
}

bool tensors_have_same_dim_order(const executorch::aten::ArrayRef<executorch::aten::Tensor> tensor_list) {
  if (tensor_list.size() < 2) return true;
  bool all_contiguous = true;
  bool all_channels_last = true;
  for (const auto& t : tensor_list) {
    const auto order = t.dim_order();
    all_contiguous = all_contiguous && is_contiguous_dim_order(order.data(), order.size());
    all_channels_last = all_channels_last && is_channels_last_dim_order(order.data(), order.size());
  }
  ET_CHECK_OR_RETURN_FALSE(all_contiguous || all_channels_last, "%zu input tensors have different dim orders",
                           tensor_list.size());
  return true;
}

namespace internal {

Error share_tensor_data(const executorch::aten::Tensor& t_dst, const executorch::aten::Tensor& t_src) {
  ET_CHECK_OR_RETURN_ERROR(t_dst.nbytes() == t_src.nbytes(), InvalidArgument,
                           "t_dst.nbytes() %zu != t_src.nbytes(). %zu", t_dst.nbytes(), t_src.nbytes());
  ET_CHECK_OR_RETURN_ERROR(t_src.mutable_data_ptr() != nullptr || t_src.nbytes() == 0, InvalidArgument,
                           "Source tensor should have data_ptr not being nullptr.");
  // An empty source shares "no data" explicitly rather than a stale pointer.
  t_dst.unsafeGetTensorImpl()->set_data(t_src.numel() == 0 ? nullptr : t_src.mutable_data_ptr());
  return Error::Ok;
}

Error copy_tensor_data(const executorch::aten::Tensor& t_dst, const executorch::aten::Tensor& t_src) {
  ET_CHECK_OR_RETURN_ERROR(t_dst.const_data_ptr() != nullptr || (t_dst.nbytes() == 0 && t_src.nbytes() == 0),
                           InvalidArgument, "ExecutionPlan input supposed to preallocated but has nullptr for data");
  // A source with a size-0 dimension may have no data at all; there is nothing to copy then.
  if (t_src.const_data_ptr() != nullptr) {
    ET_CHECK_OR_RETURN_ERROR(t_dst.nbytes() == t_src.nbytes(), InvalidArgument,
                             "t_dst.nbytes() %zu != t_src.nbytes(). %zu", t_dst.nbytes(), t_src.nbytes());
    if (t_src.nbytes() > 0) std::memcpy(t_dst.mutable_data_ptr(), t_src.const_data_ptr(), t_src.nbytes());
  }
  return Error::Ok;
}

Error set_tensor_data(const executorch::aten::Tensor& t, void* buffer, size_t buffer_size) {
  ET_CHECK_OR_RETURN_ERROR(buffer_size >= t.nbytes(), InvalidArgument,
                           "buffer_size %zu is smaller than tensor nbytes %zu", buffer_size, t.nbytes());
  t.unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

void reset_data_ptr(const executorch::aten::Tensor& tensor) { tensor.unsafeGetTensorImpl()->set_data(nullptr); }

// TensorImpl befriends this class (as upstream's does) so that its resize may stay private to kernels.
class TensorResizerFriend final {
 public:
  ET_NODISCARD static Error resize_tensor_impl(executorch::aten::TensorImpl* impl,
                                               executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
    return impl->internal_resize_contiguous(new_sizes);
  }
};

Error resize_tensor_impl(executorch::aten::TensorImpl* impl,
                         executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(impl != nullptr, InvalidArgument, "resize_tensor: the tensor has no TensorImpl");
  return TensorResizerFriend::resize_tensor_impl(impl, new_sizes);
}

}  // namespace internal

namespace {
template <typename SizesType>
std::array<char, kTensorShapeStringSizeLimit> shape_to_c_string(Span<const SizesType> shape) {
  std::array<char, kTensorShapeStringSizeLimit> out{};
  if (shape.size() > kTensorDimensionLimit) {
    static constexpr char kTooMany[] = "(ERR: tensor ndim exceeds limit)";
    static_assert(sizeof(kTooMany) <= kTensorShapeStringSizeLimit);
    std::memcpy(out.data(), kTooMany, sizeof(kTooMany));
    return out;
  }
  // Every element takes at most 10 digits + ", ", which the buffer size accounts for.
  size_t n = 0;
  out[n++] = '(';
  for (size_t i = 0; i < shape.size(); ++i) {
    const auto v = shape[i];
    const char* sep = i + 1 < shape.size() ? ", " : "";
    if (v < 0 || static_cast<uint64_t>(v) > internal::kMaximumPrintableTensorShapeElement) {
      n += static_cast<size_t>(std::snprintf(out.data() + n, out.size() - n, "ERR%s", sep));
    } else {
      n += static_cast<size_t>(
          std::snprintf(out.data() + n, out.size() - n, "%" PRIu32 "%s", static_cast<uint32_t>(v), sep));
    }
  }
  out[n++] = ')';
  out[n] = '\0';
  return out;
}
}  // namespace

std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(Span<const std::int32_t> shape) {
  return shape_to_c_string(shape);
}

std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(Span<const std::int64_t> shape) {
  return shape_to_c_string(shape);
}

}  // namespace runtime
}  // namespace executorch
