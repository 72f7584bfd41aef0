#pragma once
// Tensor checks and helpers for kernel code, under upstream ExecuTorch's names:
//  - ET_CHECK_* macros that abort on mismatched tensors (for invariants, not for user input);
//  - bool predicates (tensors_have_same_shape, tensor_is_real_type, ...) that log why they fail, meant for
//    ET_KERNEL_CHECK / ET_LOG_AND_RETURN_IF_FALSE;
//  - ET_KERNEL_CHECK / ET_KERNEL_CHECK_MSG: fail the kernel call on its context and return;
//  - index arithmetic (getLeadingDims, coordinateToIndex, ...), scalar extraction, resize_tensor and dim order
//    queries.
#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/exec_aten/util/tensor_shape_to_c_string.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

#define ET_TENSOR_CHECK_PREFIX__ "Tensors do not match"
#define ET_MIN2(a, b) (std::min(a, b))
#define ET_MIN3(a, b, c) (std::min(a, std::min(b, c)))

// A possibly negative index IX into [-UPPER_BOUND, UPPER_BOUND) made non-negative.
#define ET_NORMALIZE_IX(IX, UPPER_BOUND) IX < 0 ? IX + UPPER_BOUND : IX

#define ET_CHECK_VALID_IX(IX, UPPER_BOUND)                                                         \
  ET_CHECK_MSG(IX >= -static_cast<int64_t>(UPPER_BOUND) && IX < static_cast<int64_t>(UPPER_BOUND), \
               "index %" PRId64 " must be within range [-%zd, %zd)", static_cast<int64_t>(IX),     \
               static_cast<ssize_t>(UPPER_BOUND), static_cast<ssize_t>(UPPER_BOUND))

#define ET_CHECK_VALID_DIM(DIM, UPPER_BOUND)                                                         \
  ET_CHECK_MSG(DIM >= -static_cast<int64_t>(UPPER_BOUND) && DIM < static_cast<int64_t>(UPPER_BOUND), \
               "dim %" PRId64 " must be within range [-%zd, %zd)", static_cast<int64_t>(DIM),        \
               static_cast<ssize_t>(UPPER_BOUND), static_cast<ssize_t>(UPPER_BOUND))

// Declares `udim` (DIM normalised against T's rank) and aborts when T has size 0 there.
#define ET_CHECK_NON_ZERO_DIM_SIZE(DIM, T)           \
  const size_t udim = ET_NORMALIZE_IX(DIM, T.dim()); \
  ET_CHECK_MSG(T.size(udim) != 0, "Expected dim %zu to have non-zero size.", udim);

// Same shape: same numel and rank (or both single-element), and the same size in every dimension. Aborts otherwise.
#define ET_CHECK_SAME_SHAPE2(a__, b__)                                                                          \
  do {                                                                                                          \
    const size_t a_numel__ = (a__).numel();                                                                     \
    const size_t b_numel__ = (b__).numel();                                                                     \
    const size_t a_dim__ = (a__).dim();                                                                         \
    const size_t b_dim__ = (b__).dim();                                                                         \
    ET_CHECK_MSG(a_numel__ == b_numel__ && ((a_numel__ == 1 && b_numel__ == 1) || (a_dim__ == b_dim__)),        \
                 ET_TENSOR_CHECK_PREFIX__ ": numel={%zu, %zu}, dim={%zu, %zu}", a_numel__, b_numel__, a_dim__,  \
                 b_dim__);                                                                                      \
    for (size_t dim__ = 0; dim__ < ET_MIN2(a_dim__, b_dim__); ++dim__) {                                        \
      const size_t a_size__ = (a__).size(dim__);                                                                \
      const size_t b_size__ = (b__).size(dim__);                                                                \
      ET_CHECK_MSG(a_size__ == b_size__, ET_TENSOR_CHECK_PREFIX__ " at size(%zu): {%zu, %zu}", dim__, a_size__, \
                   b_size__);                                                                                   \
    }                                                                                                           \
  } while (0)

#define ET_CHECK_SAME_SHAPE3(a__, b__, c__)                                                                         \
  do {                                                                                                              \
    const size_t a_numel__ = (a__).numel();                                                                         \
    const size_t b_numel__ = (b__).numel();                                                                         \
    const size_t c_numel__ = (c__).numel();                                                                         \
    const size_t a_dim__ = (a__).dim();                                                                             \
    const size_t b_dim__ = (b__).dim();                                                                             \
    const size_t c_dim__ = (c__).dim();                                                                             \
    ET_CHECK_MSG(                                                                                                   \
        a_numel__ == b_numel__ && b_numel__ == c_numel__ &&                                                         \
            ((a_numel__ == 1 && b_numel__ == 1 && c_numel__ == 1) || (a_dim__ == b_dim__ && b_dim__ == c_dim__)),   \
        ET_TENSOR_CHECK_PREFIX__ ": numel={%zu, %zu, %zu}, dim={%zu, %zu, %zu}", a_numel__, b_numel__, c_numel__,   \
        a_dim__, b_dim__, c_dim__);                                                                                 \
    for (size_t dim__ = 0; dim__ < ET_MIN3(a_dim__, b_dim__, c_dim__); ++dim__) {                                   \
      const size_t a_size__ = (a__).size(dim__);                                                                    \
      const size_t b_size__ = (b__).size(dim__);                                                                    \
      const size_t c_size__ = (c__).size(dim__);                                                                    \
      ET_CHECK_MSG(a_size__ == b_size__ && b_size__ == c_size__,                                                    \
                   ET_TENSOR_CHECK_PREFIX__ " at size(%zu): {%zu, %zu, %zu}", dim__, a_size__, b_size__, c_size__); \
    }                                                                                                               \
  } while (0)

#define ET_CHECK_SAME_DTYPE2(a__, b__)                                                              \
  do {                                                                                              \
    const ::executorch::aten::ScalarType a_type__ = (a__).scalar_type();                            \
    const ::executorch::aten::ScalarType b_type__ = (b__).scalar_type();                            \
    ET_CHECK_MSG(a_type__ == b_type__, ET_TENSOR_CHECK_PREFIX__ ": dtype={%" PRId8 ", %" PRId8 "}", \
                 static_cast<int8_t>(a_type__), static_cast<int8_t>(b_type__));                     \
  } while (0)

#define ET_CHECK_SAME_DTYPE3(a__, b__, c__)                                                                    \
  do {                                                                                                         \
    const ::executorch::aten::ScalarType a_type__ = (a__).scalar_type();                                       \
    const ::executorch::aten::ScalarType b_type__ = (b__).scalar_type();                                       \
    const ::executorch::aten::ScalarType c_type__ = (c__).scalar_type();                                       \
    ET_CHECK_MSG(a_type__ == b_type__ && b_type__ == c_type__,                                                 \
                 ET_TENSOR_CHECK_PREFIX__ ": dtype={%" PRId8 ", %" PRId8 ", %" PRId8 "}",                      \
                 static_cast<int8_t>(a_type__), static_cast<int8_t>(b_type__), static_cast<int8_t>(c_type__)); \
  } while (0)

#define ET_CHECK_SAME_SHAPE_AND_DTYPE2(a__, b__) \
  do {                                           \
    ET_CHECK_SAME_DTYPE2(a__, b__);              \
    ET_CHECK_SAME_SHAPE2(a__, b__);              \
  } while (0)

#define ET_CHECK_SAME_SHAPE_AND_DTYPE3(a__, b__, c__) \
  do {                                                \
    ET_CHECK_SAME_DTYPE3(a__, b__, c__);              \
    ET_CHECK_SAME_SHAPE3(a__, b__, c__);              \
  } while (0)

// Row-major strides: the last stride is 1 and each other is the next one times the next size. Aborts otherwise.
#define ET_CHECK_CONTIGUOUS(a__)                                                                                      \
  do {                                                                                                                \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> strides__ = (a__).strides();                  \
    const ::executorch::aten::ArrayRef<::executorch::aten::SizesType> sizes__ = (a__).sizes();                        \
    if (strides__.size() > 0) {                                                                                       \
      ET_CHECK_MSG(strides__[strides__.size() - 1] == 1,                                                              \
                   "The stride of the last dimension shall be 1 for contiguous tensor, not %d",                       \
                   static_cast<int>(strides__[strides__.size() - 1]));                                                \
      for (size_t i__ = strides__.size() - 1; i__ > 0; --i__) {                                                       \
        ET_CHECK_MSG(strides__[i__ - 1] == strides__[i__] * sizes__[i__],                                             \
                     "The stride of the %zu-th dimension shall equal to strides[%zu] * sizes[%zu], now is %d and %d", \
                     i__ - 1, i__, i__, static_cast<int>(strides__[i__ - 1]),                                         \
                     static_cast<int>(strides__[i__] * sizes__[i__]));                                                \
      }                                                                                                               \
    }                                                                                                                 \
  } while (0)

#define ET_CHECK_SAME_STRIDES2(a__, b__)                                                                            \
  do {                                                                                                              \
    ET_CHECK_MSG((a__).dim() == (b__).dim(), "Two tensors shall have same number of strides, but not %zu and %zu.", \
                 static_cast<size_t>((a__).dim()), static_cast<size_t>((b__).dim()));                               \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> a_strides__ = (a__).strides();              \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> b_strides__ = (b__).strides();              \
    for (size_t i__ = 0; i__ < a_strides__.size(); ++i__) {                                                         \
      ET_CHECK_MSG(a_strides__[i__] == b_strides__[i__],                                                            \
                   "a.strides()[%zu] shall equal to b.strides()[%zu], but now is %d and %d.", i__, i__,             \
                   static_cast<int32_t>(a_strides__[i__]), static_cast<int32_t>(b_strides__[i__]));                 \
    }                                                                                                               \
  } while (0)

#define ET_CHECK_SAME_STRIDES3(a__, b__, c__)                                                                     \
  do {                                                                                                            \
    ET_CHECK_MSG((a__).dim() == (b__).dim() && (b__).dim() == (c__).dim(),                                        \
                 "Three tensors shall have same number of strides, but not %zu, %zu and %zu.",                    \
                 static_cast<size_t>((a__).dim()), static_cast<size_t>((b__).dim()),                              \
                 static_cast<size_t>((c__).dim()));                                                               \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> a_strides__ = (a__).strides();            \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> b_strides__ = (b__).strides();            \
    const ::executorch::aten::ArrayRef<::executorch::aten::StridesType> c_strides__ = (c__).strides();            \
    for (size_t i__ = 0; i__ < a_strides__.size(); ++i__) {                                                       \
      ET_CHECK_MSG(a_strides__[i__] == b_strides__[i__] && b_strides__[i__] == c_strides__[i__],                  \
                   "a_strides[%zu], b_strides[%zu] and c_strides[%zu] shall share same value, but now is %d, %d " \
                   "and %d",                                                                                      \
                   i__, i__, i__, static_cast<int32_t>(a_strides__[i__]), static_cast<int32_t>(b_strides__[i__]), \
                   static_cast<int32_t>(c_strides__[i__]));                                                       \
    }                                                                                                             \
  } while (0)

#define ET_CHECK_DEFAULT_OR_CHANNELSLAST_DIMORDER(t__)                                                             \
  do {                                                                                                             \
    ET_CHECK_MSG(                                                                                                  \
        ::executorch::runtime::is_contiguous_dim_order((t__).dim_order().data(), (t__).dim_order().size()) ||      \
            ::executorch::runtime::is_channels_last_dim_order((t__).dim_order().data(), (t__).dim_order().size()), \
        "Tensor must have default or channels last dim order");                                                    \
  } while (0)

// In a bool function: log and return false when cond is false (the _MSG form adds a printf-style message).
#define ET_LOG_AND_RETURN_IF_FALSE(cond)           \
  do {                                             \
    if (!(cond)) {                                 \
      ET_LOG(Error, "Check failed (%s): ", #cond); \
      return false;                                \
    }                                              \
  } while (false)
#define ET_LOG_MSG_AND_RETURN_IF_FALSE ET_CHECK_OR_RETURN_FALSE

// In a kernel: when cond is false, log it, fail the call on `context` with Error::<error> (the method stops and
// returns that error, with the condition and message in its description) and `return retval` (empty for void).
#ifndef ET_KERNEL_CHECK
#define ET_KERNEL_CHECK(context, cond, error, retval)                                                                 \
  do {                                                                                                                \
    if (!(cond)) {                                                                                                    \
      ::executorch::runtime::internal::fail_kernel(context, ::executorch::runtime::Error::error, "Check failed (%s)", \
                                                   #cond);                                                            \
      return retval;                                                                                                  \
    }                                                                                                                 \
  } while (false)
#endif

#ifndef ET_KERNEL_CHECK_MSG
#define ET_KERNEL_CHECK_MSG(context, cond, error, retval, message, ...)                                  \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      if (false) ::executorch::runtime::internal::check_format(message, ##__VA_ARGS__);                  \
      ::executorch::runtime::internal::fail_kernel(context, ::executorch::runtime::Error::error,         \
                                                   "Check failed (%s): " message, #cond, ##__VA_ARGS__); \
      return retval;                                                                                     \
    }                                                                                                    \
  } while (false)
#endif

// Aborts unless extract_scalar_tensor(scalar_tensor, &out_val) succeeds.
#define ET_EXTRACT_SCALAR_TENSOR(scalar_tensor, out_val)                                           \
  ET_CHECK_MSG(::executorch::ET_RUNTIME_NAMESPACE::extract_scalar_tensor(scalar_tensor, &out_val), \
               #scalar_tensor " could not be extracted: wrong type or out of range");

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

namespace internal {
// "(2, 3)" for log messages about sizes or strides.
template <typename T>
std::array<char, kTensorShapeStringSizeLimit> shape_string(executorch::aten::ArrayRef<T> values) {
  return ::executorch::runtime::tensor_shape_to_c_string(
      ::executorch::runtime::Span<const T>(values.data(), values.size()));
}
}  // namespace internal

//
// Predicates. Each returns false (after logging why) instead of aborting.
//

// dim is a valid index into upper_bound dimensions: -upper_bound <= dim < upper_bound.
inline bool dim_is_valid(int64_t dim, int64_t upper_bound) {
  ET_CHECK_OR_RETURN_FALSE(dim >= -upper_bound && dim < upper_bound,
                           "Dimension %" PRId64 " is out of range. Dimension should be between %" PRId64 " and %" PRId64
                           ", inclusive.",
                           dim, -upper_bound, upper_bound - 1);
  return true;
}

// The rank, counting a 0-d tensor as 1-d (as reductions over "dim 0" of a scalar do).
inline ssize_t nonzero_dim(const executorch::aten::Tensor& tensor) { return tensor.dim() == 0 ? 1 : tensor.dim(); }

// size(dim), or 1 for a 0-d tensor.
inline ssize_t nonempty_size(const executorch::aten::Tensor& tensor, ssize_t dim) {
  return tensor.dim() == 0 ? 1 : tensor.size(dim);
}

inline bool tensor_can_cast_to(executorch::aten::Tensor a, executorch::aten::ScalarType dtype) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::canCast(a.scalar_type(), dtype),
                           "Tensor of dtype %s cannot cast to dtype %s",
                           ::executorch::runtime::toString(a.scalar_type()), ::executorch::runtime::toString(dtype));
  return true;
}

inline bool tensor_is_bool_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(t.scalar_type() == executorch::aten::ScalarType::Bool,
                           "Expected to find bool type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_type(executorch::aten::Tensor t, executorch::aten::ScalarType dtype) {
  ET_CHECK_OR_RETURN_FALSE(t.scalar_type() == dtype, "Expected to find %s type, but tensor has type %s",
                           ::executorch::runtime::toString(dtype), ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_type(executorch::aten::Tensor t, executorch::aten::ScalarType dtype,
                           executorch::aten::ScalarType dtype2) {
  ET_CHECK_OR_RETURN_FALSE(t.scalar_type() == dtype || t.scalar_type() == dtype2,
                           "Expected to find %s or %s type, but tensor has type %s",
                           ::executorch::runtime::toString(dtype), ::executorch::runtime::toString(dtype2),
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_type(executorch::aten::Tensor t, executorch::aten::ScalarType dtype,
                           executorch::aten::ScalarType dtype2, executorch::aten::ScalarType dtype3) {
  ET_CHECK_OR_RETURN_FALSE(t.scalar_type() == dtype || t.scalar_type() == dtype2 || t.scalar_type() == dtype3,
                           "Expected to find %s, %s, or %s type, but tensor has type %s",
                           ::executorch::runtime::toString(dtype), ::executorch::runtime::toString(dtype2),
                           ::executorch::runtime::toString(dtype3), ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_integral_type(executorch::aten::Tensor t, bool includeBool = false) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isIntegralType(t.scalar_type(), includeBool),
                           "Expected to find a integral type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_floating_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isFloatingType(t.scalar_type()),
                           "Expected to find a floating type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_real_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isRealType(t.scalar_type()),
                           "Expected to find a real type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_realh_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isRealHType(t.scalar_type()),
                           "Expected to find a real type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_realhbf16_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isRealHBF16Type(t.scalar_type()),
                           "Expected to find a real type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_realhb_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isRealHBType(t.scalar_type()),
                           "Expected to find a real type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_realhbbf16_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isRealHBBF16Type(t.scalar_type()),
                           "Expected to find a real type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_complex_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isComplexType(t.scalar_type()),
                           "Expected to find a complex type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_bits_type(executorch::aten::Tensor t) {
  ET_CHECK_OR_RETURN_FALSE(::executorch::runtime::isBitsType(t.scalar_type()),
                           "Expected to find a bits type, but tensor has type %s",
                           ::executorch::runtime::toString(t.scalar_type()));
  return true;
}

inline bool tensors_have_same_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  ET_CHECK_OR_RETURN_FALSE(a.scalar_type() == b.scalar_type(), ET_TENSOR_CHECK_PREFIX__ ": dtype={%s, %s}",
                           ::executorch::runtime::toString(a.scalar_type()),
                           ::executorch::runtime::toString(b.scalar_type()));
  return true;
}

inline bool tensors_have_same_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                    executorch::aten::Tensor c) {
  ET_CHECK_OR_RETURN_FALSE(
      a.scalar_type() == b.scalar_type() && b.scalar_type() == c.scalar_type(),
      ET_TENSOR_CHECK_PREFIX__ ": dtype={%s, %s, %s}", ::executorch::runtime::toString(a.scalar_type()),
      ::executorch::runtime::toString(b.scalar_type()), ::executorch::runtime::toString(c.scalar_type()));
  return true;
}

inline bool tensor_is_rank(executorch::aten::Tensor t, size_t rank) {
  ET_CHECK_OR_RETURN_FALSE(static_cast<size_t>(t.dim()) == rank, "Expected tensor.dim() to be %zu, but got %zu", rank,
                           static_cast<size_t>(t.dim()));
  return true;
}

inline bool tensor_has_rank_greater_or_equal_to(executorch::aten::Tensor t, size_t rank) {
  ET_CHECK_OR_RETURN_FALSE(static_cast<size_t>(t.dim()) >= rank, "Expected tensor.dim() to be >= %zu, but got %zu",
                           rank, static_cast<size_t>(t.dim()));
  return true;
}

inline bool tensor_has_rank_smaller_or_equal_to(executorch::aten::Tensor t, size_t rank) {
  ET_CHECK_OR_RETURN_FALSE(static_cast<size_t>(t.dim()) <= rank, "Expected tensor.dim() to be <= %zu, but got %zu",
                           rank, static_cast<size_t>(t.dim()));
  return true;
}

// d names a dimension of t (negative d counts from the end); a 0-d tensor accepts 0 and -1.
inline bool tensor_has_dim(executorch::aten::Tensor t, int64_t d) {
  if (t.dim() == 0) {
    ET_CHECK_OR_RETURN_FALSE(d == 0 || d == -1, "dim must be 0 or -1 for 0-dim tensor, got %" PRId64, d);
  } else {
    ET_CHECK_OR_RETURN_FALSE(d > 0 ? d < t.dim() : t.dim() + d >= 0,
                             "%zu-dim tensor does not have dim at index %" PRId64, static_cast<size_t>(t.dim()), d);
  }
  return true;
}

// tensor_has_dim(t, d), and size d is not 0.
inline bool tensor_has_non_empty_dim(executorch::aten::Tensor t, int64_t d) {
  ET_LOG_AND_RETURN_IF_FALSE(tensor_has_dim(t, d));
  const size_t udim = ET_NORMALIZE_IX(d, t.dim());
  ET_LOG_AND_RETURN_IF_FALSE(t.dim() == 0 || t.size(udim) != 0);
  return true;
}

// ix is a valid (possibly negative) index along dimension d. Aborts (ET_CHECK) for a 0-d tensor or a bad d.
inline bool tensor_dim_has_index(executorch::aten::Tensor t, int64_t d, int64_t ix) {
  ET_CHECK(t.dim() != 0);
  if (d < 0) d += t.dim();
  ET_CHECK(d >= 0 && d < t.dim());
  ET_CHECK_OR_RETURN_FALSE(ix >= -t.size(d) && ix < t.size(d),
                           "index %" PRId64 " out of range [-%zu,%zu) at dimension %" PRId64 ")", ix,
                           static_cast<size_t>(t.size(d)), static_cast<size_t>(t.size(d)), d);
  return true;
}

inline bool tensors_have_same_size_at_dims(executorch::aten::Tensor a, size_t dim_a, executorch::aten::Tensor b,
                                           size_t dim_b) {
  ET_CHECK_OR_RETURN_FALSE(dim_a < static_cast<size_t>(a.dim()), "Cannot retrieve dim %zu from tensor with dim %zu",
                           dim_a, static_cast<size_t>(a.dim()));
  ET_CHECK_OR_RETURN_FALSE(dim_b < static_cast<size_t>(b.dim()), "Cannot retrieve dim %zu from tensor with dim %zu",
                           dim_b, static_cast<size_t>(b.dim()));
  ET_CHECK_OR_RETURN_FALSE(a.size(dim_a) == b.size(dim_b),
                           ET_TENSOR_CHECK_PREFIX__ ": a.size(%zu) = %zu does not match b.size(%zu) = %zu", dim_a,
                           static_cast<size_t>(a.size(dim_a)), dim_b, static_cast<size_t>(b.size(dim_b)));
  return true;
}

// Same sizes; any two single-element tensors count as the same shape ([1] and [1, 1] and a 0-d tensor).
inline bool tensors_have_same_shape(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  if (a.numel() == 1 && b.numel() == 1) return true;
  if (a.sizes() == b.sizes() && a.numel() == b.numel()) return true;
  ET_LOG(Error, ET_TENSOR_CHECK_PREFIX__ ": shapes %s and %s", internal::shape_string(a.sizes()).data(),
         internal::shape_string(b.sizes()).data());
  return false;
}

inline bool tensors_have_same_shape(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                    executorch::aten::Tensor c) {
  if (a.numel() == 1 && b.numel() == 1 && c.numel() == 1) return true;
  if (a.sizes() == b.sizes() && b.sizes() == c.sizes() && a.numel() == b.numel() && b.numel() == c.numel()) {
    return true;
  }
  ET_LOG(Error, ET_TENSOR_CHECK_PREFIX__ ": shapes %s, %s and %s", internal::shape_string(a.sizes()).data(),
         internal::shape_string(b.sizes()).data(), internal::shape_string(c.sizes()).data());
  return false;
}

inline bool tensors_have_same_shape_and_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  return tensors_have_same_shape(a, b) && tensors_have_same_dtype(a, b);
}

inline bool tensors_have_same_shape_and_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                              executorch::aten::Tensor c) {
  return tensors_have_same_shape(a, b, c) && tensors_have_same_dtype(a, b, c);
}

// a.sizes() equals expected_sizes exactly (rank included).
inline bool tensor_has_expected_size(executorch::aten::Tensor a,
                                     executorch::aten::ArrayRef<executorch::aten::SizesType> expected_sizes) {
  if (a.sizes() == expected_sizes) return true;
  ET_LOG(Error, ET_TENSOR_CHECK_PREFIX__ ": shape %s, expected %s", internal::shape_string(a.sizes()).data(),
         internal::shape_string(expected_sizes).data());
  return false;
}

inline bool tensors_have_same_strides(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  if (a.strides() == b.strides()) return true;
  ET_LOG(Error, ET_TENSOR_CHECK_PREFIX__ ": strides %s and %s", internal::shape_string(a.strides()).data(),
         internal::shape_string(b.strides()).data());
  return false;
}

inline bool tensors_have_same_strides(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                      executorch::aten::Tensor c) {
  if (a.strides() == b.strides() && b.strides() == c.strides()) return true;
  ET_LOG(Error, ET_TENSOR_CHECK_PREFIX__ ": strides %s, %s and %s", internal::shape_string(a.strides()).data(),
         internal::shape_string(b.strides()).data(), internal::shape_string(c.strides()).data());
  return false;
}

// Row-major strides (what ET_CHECK_CONTIGUOUS checks). Note that a size-0 dimension makes the strides outside it
// fail this test, as upstream's does.
inline bool tensor_is_contiguous(executorch::aten::Tensor t) {
  const auto strides = t.strides();
  const auto sizes = t.sizes();
  if (strides.size() == 0) return true;
  ET_CHECK_OR_RETURN_FALSE(strides[strides.size() - 1] == 1,
                           "Tensor is not contiguous; the stride of the last dimension must be 1, but got %zu",
                           static_cast<size_t>(strides[strides.size() - 1]));
  for (size_t i = strides.size() - 1; i > 0; --i) {
    ET_CHECK_OR_RETURN_FALSE(strides[i - 1] == strides[i] * sizes[i],
                             "Tensor is not contiguous; the stride of dim %zu should be equal to strides[%zu] * "
                             "sizes[%zu] = %zu, but found %zu",
                             i - 1, i, i, static_cast<size_t>(strides[i] * sizes[i]),
                             static_cast<size_t>(strides[i - 1]));
  }
  return true;
}

inline bool tensors_have_same_rank(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  ET_CHECK_OR_RETURN_FALSE(a.dim() == b.dim(), ET_TENSOR_CHECK_PREFIX__ ": rank={%zd, %zd}",
                           static_cast<ssize_t>(a.dim()), static_cast<ssize_t>(b.dim()));
  return true;
}

// A 0-d tensor (one element).
inline bool tensor_is_scalar(executorch::aten::Tensor t) { return t.dim() == 0 && t.numel() == 1; }

//
// Index arithmetic over contiguous tensors. Out-of-range arguments abort (ET_CHECK): they are kernel bugs.
//

// Product of the sizes of dimensions [0, dim); dim may be 0 .. t.dim().
inline size_t getLeadingDims(const executorch::aten::Tensor& tensor, int64_t dim) {
  ET_CHECK_MSG(dim >= 0 && dim <= tensor.dim(),
               "Ending dimension %" PRId64 " should be in the range [0, tensor.dim() %zd].", dim,
               static_cast<ssize_t>(tensor.dim()));
  size_t dims = 1;
  for (int64_t i = 0; i < dim; ++i) {
    size_t next = 0;
    ET_CHECK_MSG(!__builtin_mul_overflow(dims, static_cast<size_t>(tensor.size(i)), &next),
                 "Overflow computing leading dims at dimension %zd", static_cast<ssize_t>(i));
    dims = next;
  }
  return dims;
}

// Product of the sizes of dimensions (dim, t.dim()); dim may be -1 .. t.dim()-1.
inline size_t getTrailingDims(const executorch::aten::Tensor& tensor, int64_t dim) {
  ET_CHECK_MSG(dim >= -1 && dim < tensor.dim(),
               "Starting dimension %" PRId64 " should be in the range [-1, tensor.dim() -1 %zd).", dim,
               static_cast<ssize_t>(tensor.dim()));
  size_t dims = 1;
  for (int64_t i = dim + 1; i < static_cast<int64_t>(tensor.dim()); ++i) {
    size_t next = 0;
    ET_CHECK_MSG(!__builtin_mul_overflow(dims, static_cast<size_t>(tensor.size(i)), &next),
                 "Overflow computing trailing dims at dimension %zu", static_cast<size_t>(i));
    dims = next;
  }
  return dims;
}

// Row-major linear index of coordinate[0 .. t.dim()).
inline size_t coordinateToIndex(const executorch::aten::Tensor& tensor, const size_t* const coordinate) {
  size_t index = 0;
  for (ssize_t d = 0; d < tensor.dim(); ++d) index += coordinate[d] * getTrailingDims(tensor, d);
  return index;
}

// trailing_dims_memo[d] = getTrailingDims(tensor, d) for every dimension, for coordinateToIndexWithTrailingDimsMemo.
inline void memoizeTrailingDims(const executorch::aten::Tensor& tensor,
                                size_t trailing_dims_memo[kTensorDimensionLimit]) {
  size_t dims = 1;
  for (ssize_t d = tensor.dim() - 1; d >= 0; --d) {
    trailing_dims_memo[d] = dims;
    dims *= static_cast<size_t>(tensor.size(d));
  }
}

inline size_t coordinateToIndexWithTrailingDimsMemo(const executorch::aten::Tensor& tensor,
                                                    const size_t* const coordinate,
                                                    const size_t trailing_dims_memo[kTensorDimensionLimit]) {
  size_t index = 0;
  for (ssize_t d = 0; d < tensor.dim(); ++d) index += coordinate[d] * trailing_dims_memo[d];
  return index;
}

// The coordinate of row-major linear index `index` (< numel) into coordinate[0 .. t.dim()).
inline void indexToCoordinate(const executorch::aten::Tensor& tensor, size_t index, size_t* coordinate) {
  ET_CHECK(index < static_cast<size_t>(tensor.numel()));
  for (ssize_t d = tensor.dim() - 1; d >= 0; --d) {
    const size_t size = static_cast<size_t>(tensor.size(d));
    coordinate[d] = index % size;
    index /= size;
  }
}

//
// extract_scalar_tensor: the value of a one-element tensor as a C++ scalar. False when the tensor has more or fewer
// elements, a dtype of another kind (integer out: integer tensors; floating out: integer and floating tensors; bool
// out: Bool tensors), or a value out of the output type's range (infinities and NaN pass for floating outputs).
//
namespace internal {
template <typename To, typename From>
bool integer_fits(From v) {
  if constexpr (std::is_signed_v<From>) {
    if constexpr (std::is_signed_v<To>) {
      return static_cast<int64_t>(v) >= static_cast<int64_t>(std::numeric_limits<To>::lowest()) &&
             static_cast<int64_t>(v) <= static_cast<int64_t>(std::numeric_limits<To>::max());
    } else {
      return v >= 0 && static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
    }
  } else {
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
  }
}

// Largest finite value of a floating output type (Half and BFloat16 included).
template <typename T>
constexpr double floating_max() {
  if constexpr (std::is_same_v<T, ::executorch::runtime::etensor::Half>) {
    return 65504.0;
  } else if constexpr (std::is_same_v<T, ::executorch::runtime::etensor::BFloat16>) {
    return 3.3895313892515355e38;
  } else {
    return static_cast<double>(std::numeric_limits<T>::max());
  }
}
}  // namespace internal

template <typename INT_T, typename std::enable_if<std::is_integral<INT_T>::value && !std::is_same<INT_T, bool>::value,
                                                  bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, INT_T* out_val) {
  if (tensor.numel() != 1) return false;
#define ET_INTERNAL_EXTRACT_INT_CASE(TENSOR_CTYPE, TENSOR_DTYPE)       \
  case ::executorch::aten::ScalarType::TENSOR_DTYPE: {                 \
    const TENSOR_CTYPE val = tensor.const_data_ptr<TENSOR_CTYPE>()[0]; \
    if (!internal::integer_fits<INT_T>(val)) return false;             \
    *out_val = static_cast<INT_T>(val);                                \
    return true;                                                       \
  }
  switch (tensor.scalar_type()) {
    ET_FORALL_INT_TYPES(ET_INTERNAL_EXTRACT_INT_CASE)
    default: return false;
  }
#undef ET_INTERNAL_EXTRACT_INT_CASE
}

template <typename FLOAT_T, typename std::enable_if<std::is_floating_point_v<FLOAT_T> ||
                                                        std::is_same_v<FLOAT_T, executorch::aten::BFloat16> ||
                                                        std::is_same_v<FLOAT_T, executorch::aten::Half>,
                                                    bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, FLOAT_T* out_val) {
  if (tensor.numel() != 1) return false;
#define ET_INTERNAL_EXTRACT_REAL_CASE(TENSOR_CTYPE, TENSOR_DTYPE)                                                      \
  case ::executorch::aten::ScalarType::TENSOR_DTYPE: {                                                                 \
    const double val = static_cast<double>(tensor.const_data_ptr<TENSOR_CTYPE>()[0]);                                  \
    if (std::isfinite(val) && (val < -internal::floating_max<FLOAT_T>() || val > internal::floating_max<FLOAT_T>())) { \
      return false;                                                                                                    \
    }                                                                                                                  \
    *out_val = static_cast<FLOAT_T>(val);                                                                              \
    return true;                                                                                                       \
  }
  switch (tensor.scalar_type()) {
    ET_FORALL_REALHBF16_TYPES(ET_INTERNAL_EXTRACT_REAL_CASE)
    default: return false;
  }
#undef ET_INTERNAL_EXTRACT_REAL_CASE
}

template <typename BOOL_T, typename std::enable_if<std::is_same<BOOL_T, bool>::value, bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, BOOL_T* out_val) {
  if (tensor.scalar_type() != executorch::aten::ScalarType::Bool || tensor.numel() != 1) return false;
  *out_val = tensor.const_data_ptr<bool>()[0];
  return true;
}

//
// Data pointers and resizing (defined in libexecutorch).
//
namespace internal {
// Points t_dst at t_src's data (null when t_src is empty). InvalidArgument when the byte sizes differ or t_src has
// no data.
ET_NODISCARD EXECUTORCH_API Error share_tensor_data(const executorch::aten::Tensor& t_dst,
                                                    const executorch::aten::Tensor& t_src);
// Copies t_src's bytes into t_dst's buffer. InvalidArgument when t_dst has no buffer or the byte sizes differ;
// nothing is copied from an empty source.
ET_NODISCARD EXECUTORCH_API Error copy_tensor_data(const executorch::aten::Tensor& t_dst,
                                                   const executorch::aten::Tensor& t_src);
// Points t at `buffer`. InvalidArgument when buffer_size is below t.nbytes().
ET_NODISCARD EXECUTORCH_API Error set_tensor_data(const executorch::aten::Tensor& t, void* buffer, size_t buffer_size);
// Sets t's data pointer to null (the memory is not freed).
EXECUTORCH_API void reset_data_ptr(const executorch::aten::Tensor& tensor);
// The resize behind resize_tensor: same rank; a STATIC tensor keeps its shape, a DYNAMIC_BOUND one stays within the
// element count it was planned for. InvalidArgument / NotSupported otherwise.
ET_NODISCARD EXECUTORCH_API Error resize_tensor_impl(executorch::aten::TensorImpl* impl,
                                                     executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes);
}  // namespace internal

// Resizes a kernel's output tensor in place (contiguous strides are recomputed). Ok, or the error of
// internal::resize_tensor_impl.
ET_NODISCARD inline Error resize_tensor(executorch::aten::Tensor t,
                                        executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  return internal::resize_tensor_impl(t.unsafeGetTensorImpl(), new_sizes);
}

// The same from sizes of another integer type (e.g. int64_t sizes computed by the kernel). InvalidArgument above
// kTensorDimensionLimit dimensions or for a size that SizesType cannot hold.
template <typename T, typename std::enable_if<!std::is_same<executorch::aten::SizesType, T>::value, int>::type = 0>
ET_NODISCARD inline Error resize_tensor(executorch::aten::Tensor t, executorch::aten::ArrayRef<T> new_sizes) {
  std::array<executorch::aten::SizesType, kTensorDimensionLimit> sizes{};
  const size_t ndim = new_sizes.size();
  ET_CHECK_OR_RETURN_ERROR(ndim <= kTensorDimensionLimit, InvalidArgument,
                           "new_sizes_ndim %zu is greater than kTensorDimensionLimit %zu", ndim, kTensorDimensionLimit);
  for (size_t i = 0; i < ndim; ++i) {
    if constexpr (std::is_integral_v<T>) {
      ET_CHECK_OR_RETURN_ERROR(internal::integer_fits<executorch::aten::SizesType>(new_sizes[i]), InvalidArgument,
                               "size %" PRId64 " of dimension %zu is out of range", static_cast<int64_t>(new_sizes[i]),
                               i);
    }
    sizes[i] = static_cast<executorch::aten::SizesType>(new_sizes[i]);
  }
  return internal::resize_tensor_impl(t.unsafeGetTensorImpl(), {sizes.data(), ndim});
}

// resize_tensor that aborts on failure.
ET_DEPRECATED inline void resize(executorch::aten::Tensor t,
                                 executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  const Error err = resize_tensor(t, new_sizes);
  ET_CHECK_MSG(err == Error::Ok, "Could not resize Tensor; see logs for details");
}

//
// Dim order queries (defined in libexecutorch).
//

// Copies t's dim order into out_dim_order. InvalidArgument unless out_dim_order_size == t.dim().
ET_NODISCARD EXECUTORCH_API Error get_dim_order(const executorch::aten::Tensor& tensor,
                                                executorch::aten::DimOrderType* out_dim_order,
                                                size_t out_dim_order_size);

// The dim order is a permutation of 0 .. t.dim()-1.
EXECUTORCH_API bool tensor_has_valid_dim_order(executorch::aten::Tensor t);

// The dim order is the default (contiguous) one or channels-last.
EXECUTORCH_API bool tensor_is_default_or_channels_last_dim_order(executorch::aten::Tensor t);

// The dim order is 0, 1, ..., t.dim()-1.
EXECUTORCH_API bool tensor_is_default_dim_order(executorch::aten::Tensor t);

// The dim order is channels-last (4-d or 5-d only).
EXECUTORCH_API bool tensor_is_channels_last_dim_order(executorch::aten::Tensor t);

// All the tensors have the default dim order, or all have the channels-last one (fewer than two tensors: true).
EXECUTORCH_API bool tensors_have_same_dim_order(const executorch::aten::ArrayRef<executorch::aten::Tensor> tensor_list);

inline bool tensors_have_same_dim_order(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  const executorch::aten::Tensor tensor_list[2] = {a, b};
  return tensors_have_same_dim_order(tensor_list);
}

inline bool tensors_have_same_dim_order(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b,
                                        const executorch::aten::Tensor& c) {
  const executorch::aten::Tensor tensor_list[3] = {a, b, c};
  return tensors_have_same_dim_order(tensor_list);
}

inline bool tensors_have_same_dim_order(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b,
                                        const executorch::aten::Tensor& c, const executorch::aten::Tensor& d) {
  const executorch::aten::Tensor tensor_list[4] = {a, b, c, d};
  return tensors_have_same_dim_order(tensor_list);
}

// sum(coordinate[i] * strides[i]): the element offset of a coordinate in a strided tensor.
inline size_t calculate_linear_index(const executorch::aten::SizesType* coordinate,
                                     const executorch::aten::StridesType* strides, const size_t ndim) {
  size_t index = 0;
  for (size_t i = 0; i < ndim; ++i) index += coordinate[i] * strides[i];
  return index;
}

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::calculate_linear_index;
using ::executorch::ET_RUNTIME_NAMESPACE::coordinateToIndex;
using ::executorch::ET_RUNTIME_NAMESPACE::dim_is_valid;
using ::executorch::ET_RUNTIME_NAMESPACE::extract_scalar_tensor;
using ::executorch::ET_RUNTIME_NAMESPACE::get_dim_order;
using ::executorch::ET_RUNTIME_NAMESPACE::getLeadingDims;
using ::executorch::ET_RUNTIME_NAMESPACE::getTrailingDims;
using ::executorch::ET_RUNTIME_NAMESPACE::indexToCoordinate;
using ::executorch::ET_RUNTIME_NAMESPACE::nonempty_size;
using ::executorch::ET_RUNTIME_NAMESPACE::nonzero_dim;
using ::executorch::ET_RUNTIME_NAMESPACE::resize;
using ::executorch::ET_RUNTIME_NAMESPACE::resize_tensor;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_can_cast_to;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_dim_has_index;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_dim;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_expected_size;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_non_empty_dim;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_rank_greater_or_equal_to;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_rank_smaller_or_equal_to;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_has_valid_dim_order;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_bits_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_bool_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_complex_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_contiguous;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_default_dim_order;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_default_or_channels_last_dim_order;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_floating_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_integral_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_rank;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_real_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_realh_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_realhb_type;
using ::executorch::ET_RUNTIME_NAMESPACE::tensor_is_scalar;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_dim_order;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_dtype;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_rank;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_shape;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_shape_and_dtype;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_size_at_dims;
using ::executorch::ET_RUNTIME_NAMESPACE::tensors_have_same_strides;
using ::executorch::runtime::kTensorDimensionLimit;
namespace internal {
using ::executorch::ET_RUNTIME_NAMESPACE::internal::copy_tensor_data;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::reset_data_ptr;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::resize_tensor_impl;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::set_tensor_data;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::share_tensor_data;
}  // namespace internal
}  // namespace executor
}  // namespace torch
