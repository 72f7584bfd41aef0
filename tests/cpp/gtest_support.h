#pragma once
// Shared by the GoogleTest programs: readable failure messages for the runtime's types.
#include <executorch/runtime/core/error.h>

#include <cstdint>
#include <ostream>

namespace executorch {
namespace runtime {

// gtest finds this through argument-dependent lookup: EXPECT_EQ(e, Error::Ok) then prints "InvalidProgram (0x23)"
// instead of the enum's raw bytes.
inline void PrintTo(Error e, std::ostream* os) {
  *os << to_string(e) << " (0x" << std::hex << static_cast<uint32_t>(e) << std::dec << ")";
}

}  // namespace runtime
}  // namespace executorch
