#pragma once
// The kind of value an EValue holds (upstream's Tag; the numbering follows EXECUTORCH_FORALL_TAGS).
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/defines.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

// X11 headers define None as a macro, which would break Tag::None.
#if defined(__linux__)
#undef None
#endif

namespace executorch {
namespace runtime {

#define EXECUTORCH_FORALL_TAGS(_) \
  _(None)                         \
  _(Tensor)                       \
  _(String)                       \
  _(Double)                       \
  _(Int)                          \
  _(Bool)                         \
  _(ListBool)                     \
  _(ListDouble)                   \
  _(ListInt)                      \
  _(ListTensor)                   \
  _(ListScalar)                   \
  _(ListOptionalTensor)

enum class Tag : uint32_t {
#define ET_INTERNAL_DEFINE_TAG(x) x,
  EXECUTORCH_FORALL_TAGS(ET_INTERNAL_DEFINE_TAG)
#undef ET_INTERNAL_DEFINE_TAG
};

#if ET_ENABLE_ENUM_STRINGS
// The tag's name ("Tensor"); "Unknown" for a value outside the enum.
inline const char* tag_to_string(Tag tag) {
  switch (tag) {
#define ET_INTERNAL_TAG_CASE(x) \
  case Tag::x: return #x;
    EXECUTORCH_FORALL_TAGS(ET_INTERNAL_TAG_CASE)
#undef ET_INTERNAL_TAG_CASE
  }
  return "Unknown";
}
#endif

// Writes the tag's name (its number when ET_ENABLE_ENUM_STRINGS is 0) into `buffer` as snprintf does, and returns
// the length snprintf returns. kTagNameBufferSize bytes hold every name.
EXECUTORCH_API size_t tag_to_string(Tag tag, char* buffer, size_t buffer_size);

constexpr size_t kTagNameBufferSize = 19;

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Tag;
}  // namespace executor
}  // namespace torch
