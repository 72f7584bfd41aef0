// Out-of-line parts of the EValue family (executorch/runtime/core/evalue.h and tag.h).
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/tag.h>

#include <cstdio>

namespace executorch {
namespace runtime {

size_t tag_to_string(Tag tag, char* buffer, size_t buffer_size) {
#if ET_ENABLE_ENUM_STRINGS
  const int n = std::snprintf(buffer, buffer_size, "%s", tag_to_string(tag));
#else
  const int n = std::snprintf(buffer, buffer_size, "%d", static_cast<int>(tag));
#endif
  return n < 0 ? 0 : static_cast<size_t>(n);
}

}  // namespace runtime
}  // namespace executorch
