#include <executorch/runtime/core/portable_type/scalar_type.h>

namespace executorch {
namespace runtime {
namespace etensor {

size_t elementSize(ScalarType t) {
  switch (t) {
#define ET_INTERNAL_SIZE_CASE(cpp, name) \
  case ScalarType::name: return sizeof(cpp);
    ET_FORALL_SCALAR_TYPES(ET_INTERNAL_SIZE_CASE)
#undef ET_INTERNAL_SIZE_CASE
    default: return 0;
  }
}

const char* toString(ScalarType t) {
  switch (t) {
#define ET_INTERNAL_NAME_CASE(cpp, name) \
  case ScalarType::name: return #name;
    ET_FORALL_SCALAR_TYPES(ET_INTERNAL_NAME_CASE)
#undef ET_INTERNAL_NAME_CASE
    case ScalarType::Undefined: return "Undefined";
    default: return "UNKNOWN_SCALAR";
  }
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
