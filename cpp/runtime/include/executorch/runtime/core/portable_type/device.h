#pragma once
// Where a tensor's memory lives (upstream ExecuTorch 1.4+): the CPU, or an accelerator given by type and index.
#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
};

// Number of DeviceType values (the size of per-device tables).
constexpr size_t kNumDeviceTypes = 2;

using DeviceIndex = int8_t;

struct Device final {
  using Type = DeviceType;

  /* implicit */ Device(DeviceType type, DeviceIndex index = 0) : type_(type), index_(index) {}

  DeviceType type() const noexcept { return type_; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  DeviceIndex index() const noexcept { return index_; }
  bool operator==(const Device& other) const noexcept { return type_ == other.type_ && index_ == other.index_; }
  bool operator!=(const Device& other) const noexcept { return !(*this == other); }

 private:
  DeviceType type_;
  DeviceIndex index_ = 0;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Device;
using ::executorch::runtime::etensor::DeviceType;
}  // namespace executor
}  // namespace torch
