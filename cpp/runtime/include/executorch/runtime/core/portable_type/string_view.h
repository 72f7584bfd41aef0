#pragma once
// Old spelling of std::string_view kept for code written against upstream's older headers; use std::string_view.
#include <string_view>

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
namespace etensor {
using string_view ET_DEPRECATED = std::string_view;
}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using string_view ET_DEPRECATED = std::string_view;
}  // namespace executor
}  // namespace torch
