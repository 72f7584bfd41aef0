#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Owns one block of device memory, freed through its allocator when destroyed. Move-only. Applications use it to
// back the memory-planned buffers a method wants on an accelerator (MethodMeta::memory_planned_buffer_device).
class DeviceMemoryBuffer final {
 public:
  // `size` bytes on device (type, index) from the allocator registered for `type`. NotFound when there is none
  // (for CUDA: the executorch-cuda package is not installed or could not be loaded); the allocator's error when
  // the allocation fails.
  EXECUTORCH_API static Result<DeviceMemoryBuffer> create(size_t size, etensor::DeviceType type,
                                                          etensor::DeviceIndex index = 0,
                                                          size_t alignment = DeviceAllocator::kDefaultAlignment);

  DeviceMemoryBuffer() = default;
  ~DeviceMemoryBuffer() { release(); }
  DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept
      : ptr_(other.ptr_), size_(other.size_), allocator_(other.allocator_), device_index_(other.device_index_) {
    other.ptr_ = nullptr;
    other.size_ = 0;
    other.allocator_ = nullptr;
  }
  DeviceMemoryBuffer& operator=(DeviceMemoryBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = other.ptr_;
      size_ = other.size_;
      allocator_ = other.allocator_;
      device_index_ = other.device_index_;
      other.ptr_ = nullptr;
      other.size_ = 0;
      other.allocator_ = nullptr;
    }
    return *this;
  }
  DeviceMemoryBuffer(const DeviceMemoryBuffer&) = delete;
  DeviceMemoryBuffer& operator=(const DeviceMemoryBuffer&) = delete;

  void* data() const { return ptr_; }
  size_t size() const { return size_; }
  // The block as a span, for HierarchicalAllocator (not to be dereferenced on the host).
  Span<uint8_t> as_span() const { return {static_cast<uint8_t*>(ptr_), size_}; }

 private:
  DeviceMemoryBuffer(void* ptr, size_t size, DeviceAllocator* allocator, etensor::DeviceIndex device_index)
      : ptr_(ptr), size_(size), allocator_(allocator), device_index_(device_index) {}
  void release() {
    if (ptr_ != nullptr && allocator_ != nullptr) allocator_->deallocate(ptr_, device_index_);
    ptr_ = nullptr;
  }

  void* ptr_ = nullptr;
  size_t size_ = 0;
  DeviceAllocator* allocator_ = nullptr;
  etensor::DeviceIndex device_index_ = 0;
};

}  // namespace runtime
}  // namespace executorch
