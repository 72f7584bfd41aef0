// The owning makers of tensor_ptr_maker.h: empty_strided, full_strided and the random ones.
#include <executorch/extension/tensor/tensor_ptr_maker.h>

#include <cmath>
#include <limits>
#include <random>

namespace executorch {
namespace extension {

using executorch::aten::BFloat16;
using executorch::aten::Half;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::TensorShapeDynamism;

namespace {

// Largest finite value of each floating element type (Half / BFloat16 have no std::numeric_limits here).
template <typename T>
double max_finite() {
  if constexpr (std::is_same<T, Half>::value) {
    return 65504.0;
  } else if constexpr (std::is_same<T, BFloat16>::value) {
    return 3.3895313892515355e38;
  } else {
    return static_cast<double>(std::numeric_limits<T>::max());
  }
}

// Upstream's rules for a fill value: see full_strided in the header. False when the value does not fit.
template <typename T>
bool scalar_to(const Scalar& s, T* out) {
  if constexpr (std::is_same<T, bool>::value) {
    if (s.isIntegral(false)) {
      *out = s.to<int64_t>() != 0;
      return true;
    }
    if (s.isBoolean()) {
      *out = s.to<bool>();
      return true;
    }
    return false;
  } else if constexpr (std::is_integral<T>::value) {
    if (!s.isIntegral(false)) return false;
    const int64_t v = s.to<int64_t>();
    if constexpr (std::is_unsigned<T>::value) {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) return false;
    } else {
      if (v < std::numeric_limits<T>::lowest() || v > std::numeric_limits<T>::max()) return false;
    }
    *out = static_cast<T>(v);
    return true;
  } else {
    double v = 0;
    if (s.isFloatingPoint()) {
      v = s.to<double>();
      if (std::isfinite(v) && std::fabs(v) > max_finite<T>()) return false;
    } else if (s.isIntegral(false)) {
      v = static_cast<double>(s.to<int64_t>());
    } else {
      return false;
    }
    *out = internal::convert<T>(v);
    return true;
  }
}

// Fills a new tensor with draws of `next()` converted to the dtype.
template <typename Next>
TensorPtr random_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides, ScalarType type,
                         TensorShapeDynamism dynamism, Next&& next) {
  TensorPtr tensor = empty_strided(std::move(sizes), std::move(strides), type, dynamism);
  internal::visit_dtype(type, "random tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = tensor->mutable_data_ptr<T>();
    for (ssize_t i = 0; i < tensor->numel(); ++i) out[i] = internal::convert<T>(next());
  });
  return tensor;
}

std::default_random_engine& engine() {
  thread_local std::default_random_engine gen{std::random_device{}()};
  return gen;
}

}  // namespace

TensorPtr empty_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides, ScalarType type,
                        TensorShapeDynamism dynamism) {
  std::vector<uint8_t> data(internal::checked_nbytes(internal::checked_numel(sizes), type));
  return make_tensor_ptr(std::move(sizes), std::move(data), {}, std::move(strides), type, dynamism);
}

TensorPtr full_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides, Scalar fill_value,
                       ScalarType type, TensorShapeDynamism dynamism) {
  TensorPtr tensor = empty_strided(std::move(sizes), std::move(strides), type, dynamism);
  internal::visit_dtype(type, "full", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value{};
    ET_CHECK_MSG(scalar_to(fill_value, &value), "full: the fill value does not fit dtype %s",
                 executorch::aten::toString(type));
    T* out = tensor->mutable_data_ptr<T>();
    std::fill(out, out + tensor->numel(), value);
  });
  return tensor;
}

TensorPtr rand_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides, ScalarType type,
                       TensorShapeDynamism dynamism) {
  // Below 1 by half an epsilon of the 16-bit types, so that rounding to them never gives 1.
  float upper = 1.0f;
  if (type == ScalarType::Half) upper -= 0x1p-11f;
  if (type == ScalarType::BFloat16) upper -= 0x1p-8f;
  std::uniform_real_distribution<float> dist(0.0f, upper);
  return random_strided(std::move(sizes), std::move(strides), type, dynamism, [&] {
    float v = dist(engine());
    while (v >= upper) v = dist(engine());  // some standard libraries can return the upper bound
    return v;
  });
}

TensorPtr randn_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides, ScalarType type,
                        TensorShapeDynamism dynamism) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  return random_strided(std::move(sizes), std::move(strides), type, dynamism, [&] { return dist(engine()); });
}

TensorPtr randint_strided(int64_t low, int64_t high, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                          ScalarType type, TensorShapeDynamism dynamism) {
  ET_CHECK_MSG(low < high, "randint: empty range [%lld, %lld)", static_cast<long long>(low),
               static_cast<long long>(high));
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  return random_strided(std::move(sizes), std::move(strides), type, dynamism, [&] { return dist(engine()); });
}

}  // namespace extension
}  // namespace executorch
