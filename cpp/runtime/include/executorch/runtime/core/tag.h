#pragma once
#include <cstdint>

namespace executorch {
namespace runtime {

// Kind of value held by an EValue.
enum class Tag : uint32_t {
  None = 0,
  Tensor = 1,
  String = 2,
  Double = 3,
  Int = 4,
  Bool = 5,
  ListBool = 6,
  ListDouble = 7,
  ListInt = 8,
  ListTensor = 9,
  ListScalar = 10,
  ListOptionalTensor = 11,
};

const char* tag_to_string(Tag tag);

inline const char* tag_to_string(Tag tag) {
  switch (tag) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::String: return "String";
    case Tag::Double: return "Double";
    case Tag::Int: return "Int";
    case Tag::Bool: return "Bool";
    case Tag::ListBool: return "ListBool";
    case Tag::ListDouble: return "ListDouble";
    case Tag::ListInt: return "ListInt";
    case Tag::ListTensor: return "ListTensor";
    case Tag::ListScalar: return "ListScalar";
    case Tag::ListOptionalTensor: return "ListOptionalTensor";
  }
  return "Unknown";
}

}  // namespace runtime
}  // namespace executorch
