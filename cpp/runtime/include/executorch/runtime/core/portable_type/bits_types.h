#pragma once
// Element types that are raw bits with no arithmetic meaning (for bit-packed data that operators interpret).
#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

// Eight 1-bit values in one byte.
struct alignas(1) bits1x8 {
  using underlying = uint8_t;
  uint8_t val_;
  bits1x8() = default;
  explicit bits1x8(uint8_t val) : val_(val) {}
};

// Four 2-bit values in one byte.
struct alignas(1) bits2x4 {
  using underlying = uint8_t;
  uint8_t val_;
  bits2x4() = default;
  explicit bits2x4(uint8_t val) : val_(val) {}
};

// Two 4-bit values in one byte.
struct alignas(1) bits4x2 {
  using underlying = uint8_t;
  uint8_t val_;
  bits4x2() = default;
  explicit bits4x2(uint8_t val) : val_(val) {}
};

struct alignas(1) bits8 {
  uint8_t val_;
  bits8() = default;
  explicit bits8(uint8_t val) : val_(val) {}
};

struct alignas(2) bits16 {
  uint16_t val_;
  bits16() = default;
  explicit bits16(uint16_t val) : val_(val) {}
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::bits16;
using ::executorch::runtime::etensor::bits1x8;
using ::executorch::runtime::etensor::bits2x4;
using ::executorch::runtime::etensor::bits4x2;
using ::executorch::runtime::etensor::bits8;
}  // namespace executor
}  // namespace torch
