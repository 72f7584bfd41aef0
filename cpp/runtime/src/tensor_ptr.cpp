// make_tensor_ptr (the core form and the raw-bytes form), clone_tensor_ptr, resize_tensor_ptr, clone_tensor_ptr_to.
#include <executorch/extension/tensor/tensor_ptr.h>

#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/platform/components.h>

#include <cstring>
#include <numeric>

namespace executorch {
namespace extension {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::etensor::Device;
using executorch::runtime::etensor::DeviceType;

namespace {

// Everything a TensorPtr points at, freed together. The TensorImpl points into the vectors, which never move
// after construction.
struct Storage final {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::function<void(void*)> deleter;
  TensorImpl impl;
  Tensor tensor;

  Storage(std::vector<SizesType>&& s, std::vector<DimOrderType>&& d, std::vector<StridesType>&& st,
          std::function<void(void*)>&& del, ScalarType type, void* data, TensorShapeDynamism dynamism, Device device)
      : sizes(std::move(s)),
        dim_order(std::move(d)),
        strides(std::move(st)),
        deleter(std::move(del)),
        impl(type, static_cast<ssize_t>(sizes.size()), sizes.data(), data, dim_order.data(), strides.data(), dynamism,
             device.type(), device.index()),
        tensor(&impl) {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // The deleter gets the tensor's data pointer as it is now (set_data may have changed it), as upstream.
  ~Storage() {
    if (deleter) deleter(impl.mutable_data());
  }
};

}  // namespace

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, void* data, std::vector<DimOrderType> dim_order,
                          std::vector<StridesType> strides, const ScalarType type, Device device,
                          const TensorShapeDynamism dynamism, std::function<void(void*)> deleter) {
  const size_t dim = sizes.size();
  ET_CHECK_MSG(dim_order.empty() || dim_order.size() == dim, "make_tensor_ptr: %zu dim order entries for %zu sizes",
               dim_order.size(), dim);
  ET_CHECK_MSG(strides.empty() || strides.size() == dim, "make_tensor_ptr: %zu strides for %zu sizes", strides.size(),
               dim);
  internal::checked_numel(sizes);
  if (dim_order.empty()) {
    // Contiguous, or the order the given strides imply (outermost = largest stride; ties keep their order).
    dim_order.resize(dim);
    std::iota(dim_order.begin(), dim_order.end(), DimOrderType{0});
    // Insertion sort: stable, and ranks are small.
    for (size_t i = 1; i < dim && !strides.empty(); ++i) {
      for (size_t j = i; j > 0 && strides[dim_order[j - 1]] < strides[dim_order[j]]; --j) {
        std::swap(dim_order[j - 1], dim_order[j]);
      }
    }
  }
  std::vector<bool> seen(dim, false);
  for (DimOrderType d : dim_order) {
    ET_CHECK_MSG(d < dim && !seen[d], "make_tensor_ptr: dim order is not a permutation of 0..%zu", dim - 1);
    seen[d] = true;
  }
  // Strides follow the dim order (a size-0 dimension counts as 1, as upstream's dim_order_to_stride).
  std::vector<StridesType> computed(dim);
  int64_t stride = 1;
  for (size_t i = dim; i-- > 0;) {
    const DimOrderType d = dim_order[i];
    ET_CHECK_MSG(stride <= INT32_MAX, "make_tensor_ptr: strides overflow");
    computed[d] = static_cast<StridesType>(stride);
    stride *= sizes[d] == 0 ? 1 : sizes[d];
  }
  for (size_t i = 0; i < strides.size(); ++i) {
    ET_CHECK_MSG(strides[i] == computed[i] || sizes[i] == 1,
                 "make_tensor_ptr: stride %d of dimension %zu (size %d) is not the %d its dim order gives",
                 static_cast<int>(strides[i]), i, static_cast<int>(sizes[i]), static_cast<int>(computed[i]));
  }
  auto storage =
      std::make_shared<Storage>(std::move(sizes), std::move(dim_order), std::move(computed), std::move(deleter), type,
                                data, dim > 0 ? dynamism : TensorShapeDynamism::STATIC, device);
  Tensor* tensor = &storage->tensor;
  return TensorPtr(std::move(storage), tensor);
}

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data, std::vector<DimOrderType> dim_order,
                          std::vector<StridesType> strides, ScalarType type, TensorShapeDynamism dynamism) {
  const size_t nbytes = internal::checked_nbytes(internal::checked_numel(sizes), type);
  ET_CHECK_MSG(data.size() == nbytes, "make_tensor_ptr: %zu bytes of data for a tensor of %zu bytes", data.size(),
               nbytes);
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(data));
  void* raw = owned->empty() ? nullptr : owned->data();
  return make_tensor_ptr(std::move(sizes), raw, std::move(dim_order), std::move(strides), type, Device(DeviceType::CPU),
                         dynamism, internal::keep_alive(std::move(owned)));
}

TensorPtr clone_tensor_ptr(const Tensor& tensor, ScalarType type) {
  ET_CHECK_MSG(tensor.device_type() == DeviceType::CPU,
               "clone_tensor_ptr: the tensor is not on the CPU; copy it with clone_tensor_ptr_to first");
  std::vector<SizesType> sizes(tensor.sizes().begin(), tensor.sizes().end());
  std::vector<DimOrderType> dim_order(tensor.dim_order().begin(), tensor.dim_order().end());
  std::vector<StridesType> strides(tensor.strides().begin(), tensor.strides().end());
  const TensorShapeDynamism dynamism = tensor.shape_dynamism();
  const void* src = tensor.const_data_ptr();
  if (src == nullptr) {
    return make_tensor_ptr(std::move(sizes), nullptr, std::move(dim_order), std::move(strides), type,
                           Device(DeviceType::CPU), dynamism);
  }
  const ScalarType from = tensor.scalar_type();
  const size_t numel = static_cast<size_t>(tensor.numel());
  if (from == type) {
    const uint8_t* bytes = static_cast<const uint8_t*>(src);
    return make_tensor_ptr(std::move(sizes), std::vector<uint8_t>(bytes, bytes + tensor.nbytes()), std::move(dim_order),
                           std::move(strides), type, dynamism);
  }
  ET_CHECK_MSG(internal::can_cast(from, type), "clone_tensor_ptr: cannot convert %s values to %s",
               executorch::aten::toString(from), executorch::aten::toString(type));
  std::vector<uint8_t> data(internal::checked_nbytes(numel, type));
  internal::visit_dtype(from, "clone_tensor_ptr", [&](auto tag) {
    using From = typename decltype(tag)::type;
    internal::convert_into(static_cast<const From*>(src), numel, type, data.data());
  });
  return make_tensor_ptr(std::move(sizes), std::move(data), std::move(dim_order), std::move(strides), type, dynamism);
}

Error resize_tensor_ptr(TensorPtr& tensor, const std::vector<SizesType>& sizes) {
  if (tensor == nullptr) return Error::InvalidArgument;
  return tensor->unsafeGetTensorImpl()->internal_resize_contiguous(
      executorch::aten::ArrayRef<SizesType>(sizes.data(), sizes.size()));
}

TensorPtr clone_tensor_ptr_to(const TensorPtr& tensor, Device target) {
  const Device source = tensor->device();
  ET_CHECK_MSG(!(source.is_cpu() && target.is_cpu()), "clone_tensor_ptr_to: CPU to CPU; use clone_tensor_ptr");
  ET_CHECK_MSG(source.is_cpu() || target.is_cpu(), "clone_tensor_ptr_to: device to device is not supported");
  const void* src = tensor->const_data_ptr();
  ET_CHECK_MSG(src != nullptr, "clone_tensor_ptr_to: the tensor has no data");
  const Device device = target.is_cpu() ? source : target;
  executorch::runtime::DeviceAllocator* allocator = executorch::runtime::get_device_allocator(device.type());
  if (allocator == nullptr && device.type() == DeviceType::CUDA) {
    // The CUDA delegate registers the CUDA allocator when it loads.
    (void)executorch::runtime::load_component("cuda");
    allocator = executorch::runtime::get_device_allocator(device.type());
  }
  ET_CHECK_MSG(allocator != nullptr, "clone_tensor_ptr_to: no device allocator is registered for device type %d",
               static_cast<int>(device.type()));
  const size_t nbytes = tensor->nbytes();
  std::vector<SizesType> sizes(tensor->sizes().begin(), tensor->sizes().end());
  std::vector<DimOrderType> dim_order(tensor->dim_order().begin(), tensor->dim_order().end());
  std::vector<StridesType> strides(tensor->strides().begin(), tensor->strides().end());
  if (target.is_cpu()) {
    std::vector<uint8_t> host(nbytes);
    const Error err = allocator->copy_device_to_host(host.data(), src, nbytes, source.index());
    ET_CHECK_MSG(err == Error::Ok, "clone_tensor_ptr_to: device to host copy failed (error %d)", static_cast<int>(err));
    return make_tensor_ptr(std::move(sizes), std::move(host), std::move(dim_order), std::move(strides),
                           tensor->scalar_type(), tensor->shape_dynamism());
  }
  executorch::runtime::Result<void*> mem = allocator->allocate(nbytes, target.index());
  ET_CHECK_MSG(mem.ok(), "clone_tensor_ptr_to: allocating %zu bytes of device memory failed (error %d)", nbytes,
               static_cast<int>(mem.error()));
  void* dst = mem.get();
  const Error err = allocator->copy_host_to_device(dst, src, nbytes, target.index());
  if (err != Error::Ok) allocator->deallocate(dst, target.index());
  ET_CHECK_MSG(err == Error::Ok, "clone_tensor_ptr_to: host to device copy failed (error %d)", static_cast<int>(err));
  return make_tensor_ptr(std::move(sizes), dst, std::move(dim_order), std::move(strides), tensor->scalar_type(), target,
                         tensor->shape_dynamism(),
                         [allocator, target](void* ptr) { allocator->deallocate(ptr, target.index()); });
}

}  // namespace extension
}  // namespace executorch
