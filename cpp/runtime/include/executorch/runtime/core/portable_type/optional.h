#pragma once
// Old spellings of std::optional kept for code written against upstream's older headers; use std::optional.
#include <optional>

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
namespace etensor {
template <typename T>
using optional ET_DEPRECATED = std::optional<T>;
using nullopt_t ET_DEPRECATED = std::nullopt_t;
ET_DEPRECATED inline constexpr std::nullopt_t nullopt{std::nullopt};
}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
template <typename T>
using optional ET_DEPRECATED = std::optional<T>;
using nullopt_t ET_DEPRECATED = std::nullopt_t;
ET_DEPRECATED inline constexpr std::nullopt_t nullopt{std::nullopt};
}  // namespace executor
}  // namespace torch
