// The device allocator registry and DeviceMemoryBuffer.
#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

DeviceAllocatorRegistry& DeviceAllocatorRegistry::instance() {
  static DeviceAllocatorRegistry registry;
  return registry;
}

void DeviceAllocatorRegistry::register_allocator(DeviceAllocator* alloc) {
  ET_CHECK_MSG(alloc != nullptr, "register_device_allocator: null allocator");
  const size_t index = static_cast<size_t>(alloc->device_type());
  ET_CHECK_MSG(index < etensor::kNumDeviceTypes, "register_device_allocator: unknown device type %d",
               static_cast<int>(alloc->device_type()));
  ET_CHECK_MSG(allocators_[index] == nullptr, "register_device_allocator: device type %d has an allocator already",
               static_cast<int>(alloc->device_type()));
  allocators_[index] = alloc;
}

DeviceAllocator* DeviceAllocatorRegistry::get_allocator(etensor::DeviceType type) {
  const size_t index = static_cast<size_t>(type);
  return index < etensor::kNumDeviceTypes ? allocators_[index] : nullptr;
}

void register_device_allocator(DeviceAllocator* alloc) {
  DeviceAllocatorRegistry::instance().register_allocator(alloc);
}

DeviceAllocator* get_device_allocator(etensor::DeviceType type) {
  return DeviceAllocatorRegistry::instance().get_allocator(type);
}

Result<DeviceMemoryBuffer> DeviceMemoryBuffer::create(size_t size, etensor::DeviceType type, etensor::DeviceIndex index,
                                                      size_t alignment) {
  DeviceAllocator* allocator = get_device_allocator(type);
  if (allocator == nullptr && type == etensor::DeviceType::CUDA) {
    load_component("cuda");  // the CUDA delegate registers the CUDA allocator when it loads
    allocator = get_device_allocator(type);
  }
  if (allocator == nullptr) {
    return set_last_error(Error::NotFound, "no allocator for device type %d is registered%s", static_cast<int>(type),
                          type == etensor::DeviceType::CUDA ? ": install the executorch-cuda package" : "");
  }
  Result<void*> ptr = allocator->allocate(size, index, alignment);
  if (!ptr.ok()) return ptr.error();
  return DeviceMemoryBuffer(*ptr, size, allocator, index);
}

}  // namespace runtime
}  // namespace executorch
