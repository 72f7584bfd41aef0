#pragma once
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// Passed to BackendInterface::set_option / get_option (empty for now, as upstream's).
class BackendOptionContext final {
 public:
  explicit BackendOptionContext() {}
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::BackendOptionContext;
}  // namespace executor
}  // namespace torch
