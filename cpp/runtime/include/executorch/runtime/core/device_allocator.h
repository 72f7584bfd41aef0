#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Memory of one kind of accelerator. A backend library that plans buffers in device memory (the CUDA delegate)
// registers one, so that applications can back those buffers (DeviceMemoryBuffer) without knowing the device API.
class DeviceAllocator {
 public:
  static constexpr size_t kDefaultAlignment = MemoryAllocator::kDefaultAlignment;

  virtual ~DeviceAllocator() = default;
  virtual Result<void*> allocate(size_t nbytes, etensor::DeviceIndex index, size_t alignment = kDefaultAlignment) = 0;
  virtual void deallocate(void* ptr, etensor::DeviceIndex index) = 0;
  virtual Error copy_host_to_device(void* dst, const void* src, size_t nbytes, etensor::DeviceIndex index) = 0;
  virtual Error copy_device_to_host(void* dst, const void* src, size_t nbytes, etensor::DeviceIndex index) = 0;
  virtual etensor::DeviceType device_type() const = 0;
};

// One allocator per device type, process-wide (it lives in libexecutorch).
class EXECUTORCH_API DeviceAllocatorRegistry {
 public:
  static DeviceAllocatorRegistry& instance();
  // Aborts on a null allocator, an unknown device type, or a second allocator for the same type.
  void register_allocator(DeviceAllocator* alloc);
  // Null when none is registered for `type`.
  DeviceAllocator* get_allocator(etensor::DeviceType type);

 private:
  DeviceAllocatorRegistry() = default;
  DeviceAllocatorRegistry(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry& operator=(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry(DeviceAllocatorRegistry&&) = delete;
  DeviceAllocatorRegistry& operator=(DeviceAllocatorRegistry&&) = delete;

  DeviceAllocator* allocators_[etensor::kNumDeviceTypes] = {};
};

EXECUTORCH_API void register_device_allocator(DeviceAllocator* alloc);
EXECUTORCH_API DeviceAllocator* get_device_allocator(etensor::DeviceType type);

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DeviceAllocator;
using ::executorch::runtime::DeviceAllocatorRegistry;
using ::executorch::runtime::get_device_allocator;
using ::executorch::runtime::register_device_allocator;
}  // namespace executor
}  // namespace torch
