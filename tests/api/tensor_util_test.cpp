// executorch/runtime/core/exec_aten/util/tensor_util.h (and tensor_shape_to_c_string.h): the ET_CHECK_* / ET_LOG_*
// / ET_KERNEL_CHECK* macros, every predicate and helper, resize_tensor, the dim order queries and data pointer
// helpers, on real tensors (TensorImpl over local arrays) as kernels see them; plus a custom out-variant kernel
// written the way upstream's documentation shows.
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/exec_aten/util/tensor_shape_to_c_string.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace et = ::executorch::ET_RUNTIME_NAMESPACE;

namespace {

// A tensor over arrays owned here: sizes, dim order (default: contiguous), strides from the dim order, and a zeroed
// data buffer of sizes' element count (or `capacity` elements when larger, for resizing dynamic tensors). The
// metadata arrays have room for kTensorDimensionLimit entries, so that tensors with invalid dim orders (entries
// >= rank) can be built too.
class TestTensor {
 public:
  TestTensor(ScalarType dtype, std::vector<SizesType> sizes, std::vector<DimOrderType> dim_order = {},
             TensorShapeDynamism dynamism = TensorShapeDynamism::STATIC, size_t capacity = 0)
      : ndim_(sizes.size()), sizes_(kRoom, 1), dim_order_(kRoom, 0), strides_(kRoom, 0) {
    std::copy(sizes.begin(), sizes.end(), sizes_.begin());
    if (dim_order.empty()) {
      std::iota(dim_order_.begin(), dim_order_.begin() + ndim_, 0);
    } else {
      std::copy(dim_order.begin(), dim_order.end(), dim_order_.begin());
    }
    executorch::runtime::dim_order_to_stride_nocheck(sizes_.data(), dim_order_.data(), ndim_, strides_.data());
    size_t numel = 1;
    for (size_t i = 0; i < ndim_; ++i) numel *= static_cast<size_t>(sizes_[i]);
    const size_t bytes = std::max(numel, capacity) * executorch::runtime::elementSize(dtype);
    data_.assign(bytes / sizeof(double) + 1, 0.0);
    impl_ = std::make_unique<TensorImpl>(dtype, static_cast<ssize_t>(ndim_), sizes_.data(), data_.data(),
                                         dim_order_.data(), strides_.data(), dynamism);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor t() const { return Tensor(impl_.get()); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(data_.data());
  }
  template <typename T>
  TestTensor& fill(std::initializer_list<T> values) {
    std::copy(values.begin(), values.end(), data<T>());
    return *this;
  }

 private:
  static constexpr size_t kRoom = executorch::runtime::kTensorDimensionLimit + 1;
  size_t ndim_;
  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  std::vector<double> data_;
  std::unique_ptr<TensorImpl> impl_;
};

std::vector<SizesType> sizes_of(const Tensor& t) { return std::vector<SizesType>(t.sizes().begin(), t.sizes().end()); }

}  // namespace

//
// Aborting checks.
//

TEST(TensorUtilChecks, IdentityAndMatchingTensorsPass) {
  TestTensor byte(ScalarType::Byte, {2, 2});
  const Tensor t = byte.t();
  ET_CHECK_SAME_SHAPE2(t, t);
  ET_CHECK_SAME_SHAPE3(t, t, t);
  ET_CHECK_SAME_DTYPE2(t, t);
  ET_CHECK_SAME_DTYPE3(t, t, t);
  ET_CHECK_SAME_SHAPE_AND_DTYPE2(t, t);
  ET_CHECK_SAME_SHAPE_AND_DTYPE3(t, t, t);
  ET_CHECK_CONTIGUOUS(t);
  ET_CHECK_SAME_STRIDES2(t, t);
  ET_CHECK_SAME_STRIDES3(t, t, t);
  ET_CHECK_DEFAULT_OR_CHANNELSLAST_DIMORDER(t);

  // Same shapes, different dtypes; single-element tensors of any rank count as the same shape.
  TestTensor i(ScalarType::Int, {2, 2}), f(ScalarType::Float, {2, 2});
  ET_CHECK_SAME_SHAPE2(i.t(), f.t());
  ET_CHECK_SAME_SHAPE3(i.t(), f.t(), t);
  TestTensor scalar(ScalarType::Int, {}), one(ScalarType::Int, {1}), one_one(ScalarType::Int, {1, 1});
  ET_CHECK_SAME_SHAPE3(scalar.t(), one.t(), one_one.t());
  ET_CHECK_SAME_SHAPE_AND_DTYPE3(scalar.t(), one.t(), one_one.t());
  TestTensor empty(ScalarType::Int, {0});
  ET_CHECK_SAME_SHAPE_AND_DTYPE2(empty.t(), empty.t());

  // Channels-last tensors of the same sizes share strides; the dim order check accepts them.
  TestTensor cl1(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1}), cl2(ScalarType::Int, {2, 3, 4, 5}, {0, 2, 3, 1});
  ET_CHECK_SAME_STRIDES2(cl1.t(), cl2.t());
  ET_CHECK_SAME_STRIDES3(cl1.t(), cl2.t(), cl1.t());
  ET_CHECK_DEFAULT_OR_CHANNELSLAST_DIMORDER(cl1.t());
}

TEST(TensorUtilChecksDeathTest, MismatchesAbort) {
  TestTensor a(ScalarType::Byte, {2, 2}), b(ScalarType::Int, {2, 2}), c(ScalarType::Int, {1, 4}),
      d(ScalarType::Int, {4});
  EXPECT_DEATH(ET_CHECK_SAME_DTYPE2(a.t(), b.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_DTYPE3(b.t(), b.t(), a.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE2(b.t(), c.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE2(c.t(), d.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE3(b.t(), b.t(), c.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE_AND_DTYPE2(a.t(), b.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE_AND_DTYPE2(b.t(), c.t()), "Tensors do not match");
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE_AND_DTYPE3(b.t(), c.t(), b.t()), "Tensors do not match");

  TestTensor cl(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1}), nchw(ScalarType::Float, {2, 3, 4, 5});
  EXPECT_DEATH(ET_CHECK_CONTIGUOUS(cl.t()), "stride of the");
  EXPECT_DEATH(ET_CHECK_SAME_STRIDES2(cl.t(), nchw.t()), "strides");
  EXPECT_DEATH(ET_CHECK_SAME_STRIDES2(cl.t(), b.t()), "same number of strides");
  EXPECT_DEATH(ET_CHECK_SAME_STRIDES3(nchw.t(), nchw.t(), cl.t()), "shall share same value");
  TestTensor odd(ScalarType::Float, {2, 3, 4}, {1, 0, 2});
  EXPECT_DEATH(ET_CHECK_DEFAULT_OR_CHANNELSLAST_DIMORDER(odd.t()), "default or channels last");
}

TEST(TensorUtilChecksDeathTest, IndexChecks) {
  const int64_t last = -1;
  EXPECT_EQ((ET_NORMALIZE_IX(last, 4)), 3);
  EXPECT_EQ((ET_NORMALIZE_IX(int64_t{2}, 4)), 2);
  ET_CHECK_VALID_IX(last, 4);
  ET_CHECK_VALID_DIM(int64_t{-4}, 4);
  EXPECT_DEATH(ET_CHECK_VALID_IX(int64_t{4}, 4), "index 4 must be within range");
  EXPECT_DEATH(ET_CHECK_VALID_DIM(int64_t{-5}, 4), "dim -5 must be within range");

  TestTensor zero_mid(ScalarType::Float, {2, 0, 3});
  const Tensor t = zero_mid.t();
  auto check_last = [&]() {
    ET_CHECK_NON_ZERO_DIM_SIZE(-1, t);
    return udim;
  };
  EXPECT_EQ(check_last(), 2u);
  auto check_middle = [&]() { ET_CHECK_NON_ZERO_DIM_SIZE(1, t); };
  EXPECT_DEATH(check_middle(), "non-zero size");
}

//
// Returning checks.
//

namespace {
bool both_positive(int a, int b) {
  ET_LOG_AND_RETURN_IF_FALSE(a > 0);
  ET_LOG_MSG_AND_RETURN_IF_FALSE(b > 0, "b is %d", b);
  return true;
}

// Kernels in upstream's style: ET_KERNEL_CHECK returns `retval` after failing the context.
int checked_kernel(KernelRuntimeContext& ctx, int value) {
  ET_KERNEL_CHECK(ctx, value >= 0, InvalidArgument, -1);
  ET_KERNEL_CHECK_MSG(ctx, value < 100, NotSupported, -2, "value %d is too large (limit %d)", value, 100);
  ET_KERNEL_CHECK_MSG(ctx, value != 42, InvalidType, -3, "no 42");
  return value * 2;
}

void void_kernel(KernelRuntimeContext& ctx, bool ok, int* runs) {
  ET_KERNEL_CHECK(ctx, ok, InvalidState, );
  ++*runs;
}
}  // namespace

TEST(TensorUtilChecks, LogAndReturnAndKernelChecks) {
  EXPECT_TRUE(both_positive(1, 2));
  EXPECT_FALSE(both_positive(0, 2));
  EXPECT_FALSE(both_positive(1, -2));

  KernelRuntimeContext ok;
  EXPECT_EQ(checked_kernel(ok, 5), 10);
  EXPECT_EQ(ok.failure_state(), Error::Ok);
  KernelRuntimeContext negative;
  EXPECT_EQ(checked_kernel(negative, -5), -1);
  EXPECT_EQ(negative.failure_state(), Error::InvalidArgument);
  KernelRuntimeContext large;
  EXPECT_EQ(checked_kernel(large, 500), -2);
  EXPECT_EQ(large.failure_state(), Error::NotSupported);
  KernelRuntimeContext forty_two;
  EXPECT_EQ(checked_kernel(forty_two, 42), -3);
  EXPECT_EQ(forty_two.failure_state(), Error::InvalidType);

  int runs = 0;
  KernelRuntimeContext v_ok, v_bad;
  void_kernel(v_ok, true, &runs);
  void_kernel(v_bad, false, &runs);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(v_ok.failure_state(), Error::Ok);
  EXPECT_EQ(v_bad.failure_state(), Error::InvalidState);
}

//
// Predicates.
//

TEST(TensorUtilPredicates, DimsAndRanks) {
  EXPECT_TRUE(et::dim_is_valid(0, 3));
  EXPECT_TRUE(et::dim_is_valid(-3, 3));
  EXPECT_TRUE(et::dim_is_valid(2, 3));
  EXPECT_FALSE(et::dim_is_valid(3, 3));
  EXPECT_FALSE(et::dim_is_valid(-4, 3));

  TestTensor t3(ScalarType::Float, {2, 3, 5}), t0(ScalarType::Float, {});
  EXPECT_EQ(et::nonzero_dim(t3.t()), 3);
  EXPECT_EQ(et::nonzero_dim(t0.t()), 1);
  EXPECT_EQ(et::nonempty_size(t3.t(), 1), 3);
  EXPECT_EQ(et::nonempty_size(t0.t(), 0), 1);

  EXPECT_TRUE(et::tensor_is_rank(t3.t(), 3));
  EXPECT_FALSE(et::tensor_is_rank(t3.t(), 0));
  EXPECT_FALSE(et::tensor_is_rank(t3.t(), 5));
  EXPECT_TRUE(et::tensor_is_rank(t0.t(), 0));
  EXPECT_TRUE(et::tensor_has_rank_greater_or_equal_to(t3.t(), 3));
  EXPECT_TRUE(et::tensor_has_rank_greater_or_equal_to(t3.t(), 0));
  EXPECT_FALSE(et::tensor_has_rank_greater_or_equal_to(t3.t(), 4));
  EXPECT_TRUE(et::tensor_has_rank_smaller_or_equal_to(t3.t(), 3));
  EXPECT_FALSE(et::tensor_has_rank_smaller_or_equal_to(t3.t(), 2));

  for (int64_t d : {-3, -2, -1, 0, 1, 2}) EXPECT_TRUE(et::tensor_has_dim(t3.t(), d)) << d;
  EXPECT_FALSE(et::tensor_has_dim(t3.t(), 3));
  EXPECT_FALSE(et::tensor_has_dim(t3.t(), -4));
  EXPECT_TRUE(et::tensor_has_dim(t0.t(), 0));
  EXPECT_TRUE(et::tensor_has_dim(t0.t(), -1));
  EXPECT_FALSE(et::tensor_has_dim(t0.t(), 1));

  TestTensor with_zero(ScalarType::Float, {2, 0, 5});
  EXPECT_TRUE(et::tensor_has_non_empty_dim(with_zero.t(), 0));
  EXPECT_TRUE(et::tensor_has_non_empty_dim(with_zero.t(), -1));
  EXPECT_FALSE(et::tensor_has_non_empty_dim(with_zero.t(), 1));
  EXPECT_FALSE(et::tensor_has_non_empty_dim(with_zero.t(), -2));
  EXPECT_FALSE(et::tensor_has_non_empty_dim(with_zero.t(), 3));

  EXPECT_TRUE(et::tensor_dim_has_index(t3.t(), 1, 2));
  EXPECT_TRUE(et::tensor_dim_has_index(t3.t(), -1, -5));
  EXPECT_TRUE(et::tensor_dim_has_index(t3.t(), 2, 4));
  EXPECT_FALSE(et::tensor_dim_has_index(t3.t(), 1, 3));
  EXPECT_FALSE(et::tensor_dim_has_index(t3.t(), 0, -3));

  TestTensor other(ScalarType::Int, {5, 7});
  EXPECT_TRUE(et::tensors_have_same_size_at_dims(t3.t(), 2, other.t(), 0));
  EXPECT_FALSE(et::tensors_have_same_size_at_dims(t3.t(), 1, other.t(), 1));
  EXPECT_FALSE(et::tensors_have_same_size_at_dims(t3.t(), 3, other.t(), 0));
  EXPECT_FALSE(et::tensors_have_same_size_at_dims(t3.t(), 0, other.t(), 2));

  EXPECT_TRUE(et::tensors_have_same_rank(t3.t(), t3.t()));
  EXPECT_FALSE(et::tensors_have_same_rank(t3.t(), other.t()));
  EXPECT_TRUE(et::tensor_is_scalar(t0.t()));
  TestTensor one(ScalarType::Float, {1});
  EXPECT_FALSE(et::tensor_is_scalar(one.t()));
}

TEST(TensorUtilPredicatesDeathTest, DimHasIndexAbortsOnBadDims) {
  TestTensor t0(ScalarType::Float, {}), t2(ScalarType::Float, {2, 3});
  EXPECT_DEATH(et::tensor_dim_has_index(t0.t(), 0, 0), "");
  EXPECT_DEATH(et::tensor_dim_has_index(t2.t(), 2, 0), "");
}

TEST(TensorUtilPredicates, Dtypes) {
  const struct {
    ScalarType type;
    bool integral, integral_b, floating, real, realh, realhbf16, realhb, realhbbf16, complex, bits, boolean;
  } cases[] = {
      {ScalarType::Byte, true, true, false, true, true, true, true, true, false, false, false},
      {ScalarType::Long, true, true, false, true, true, true, true, true, false, false, false},
      {ScalarType::Bool, false, true, false, false, false, false, true, true, false, false, true},
      {ScalarType::Float, false, false, true, true, true, true, true, true, false, false, false},
      {ScalarType::Half, false, false, true, false, true, true, true, true, false, false, false},
      {ScalarType::BFloat16, false, false, true, false, false, true, false, true, false, false, false},
      {ScalarType::ComplexFloat, false, false, false, false, false, false, false, false, true, false, false},
      {ScalarType::Bits16, false, false, false, false, false, false, false, false, false, true, false},
      {ScalarType::QInt8, false, false, false, false, false, false, false, false, false, false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(executorch::runtime::toString(c.type));
    TestTensor h(c.type, {2});
    const Tensor t = h.t();
    EXPECT_EQ(et::tensor_is_integral_type(t), c.integral);
    EXPECT_EQ(et::tensor_is_integral_type(t, /*includeBool=*/true), c.integral_b);
    EXPECT_EQ(et::tensor_is_floating_type(t), c.floating);
    EXPECT_EQ(et::tensor_is_real_type(t), c.real);
    EXPECT_EQ(et::tensor_is_realh_type(t), c.realh);
    EXPECT_EQ(et::tensor_is_realhbf16_type(t), c.realhbf16);
    EXPECT_EQ(et::tensor_is_realhb_type(t), c.realhb);
    EXPECT_EQ(et::tensor_is_realhbbf16_type(t), c.realhbbf16);
    EXPECT_EQ(et::tensor_is_complex_type(t), c.complex);
    EXPECT_EQ(et::tensor_is_bits_type(t), c.bits);
    EXPECT_EQ(et::tensor_is_bool_type(t), c.boolean);
    EXPECT_TRUE(et::tensor_is_type(t, c.type));
    EXPECT_EQ(et::tensor_is_type(t, ScalarType::Double), c.type == ScalarType::Double);
    EXPECT_TRUE(et::tensor_is_type(t, ScalarType::Double, c.type));
    EXPECT_TRUE(et::tensor_is_type(t, ScalarType::Double, ScalarType::Char, c.type));
    EXPECT_FALSE(et::tensor_is_type(t, ScalarType::Double, ScalarType::Char, ScalarType::UInt16));
  }
  TestTensor i(ScalarType::Int, {1}), f(ScalarType::Float, {1}), b(ScalarType::Bool, {1});
  EXPECT_TRUE(et::tensor_can_cast_to(i.t(), ScalarType::Float));
  EXPECT_FALSE(et::tensor_can_cast_to(f.t(), ScalarType::Int));
  EXPECT_FALSE(et::tensor_can_cast_to(i.t(), ScalarType::Bool));
  EXPECT_TRUE(et::tensor_can_cast_to(b.t(), ScalarType::Int));
}

TEST(TensorUtilPredicates, SameDtypeShapeStrides) {
  TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {2, 3}), c(ScalarType::Float, {3, 3}),
      d(ScalarType::Int, {4, 3}), e(ScalarType::Int, {2, 3}), f(ScalarType::Float, {3, 2}), g(ScalarType::Float, {6});
  EXPECT_TRUE(et::tensors_have_same_dtype(a.t(), b.t()));
  EXPECT_FALSE(et::tensors_have_same_dtype(a.t(), d.t()));
  EXPECT_TRUE(et::tensors_have_same_dtype(a.t(), b.t(), c.t()));
  EXPECT_FALSE(et::tensors_have_same_dtype(a.t(), b.t(), d.t()));
  EXPECT_FALSE(et::tensors_have_same_dtype(d.t(), b.t(), a.t()));

  EXPECT_TRUE(et::tensors_have_same_shape(a.t(), b.t()));
  EXPECT_TRUE(et::tensors_have_same_shape(a.t(), e.t()));  // dtype does not matter
  EXPECT_FALSE(et::tensors_have_same_shape(a.t(), c.t()));
  EXPECT_FALSE(et::tensors_have_same_shape(a.t(), f.t()));  // same numel, other sizes
  EXPECT_FALSE(et::tensors_have_same_shape(a.t(), g.t()));  // same numel, other rank
  EXPECT_TRUE(et::tensors_have_same_shape(a.t(), b.t(), e.t()));
  EXPECT_FALSE(et::tensors_have_same_shape(a.t(), b.t(), c.t()));
  EXPECT_FALSE(et::tensors_have_same_shape(c.t(), b.t(), a.t()));
  TestTensor s0(ScalarType::Float, {}), s1(ScalarType::Int, {1}), s11(ScalarType::Float, {1, 1});
  EXPECT_TRUE(et::tensors_have_same_shape(s0.t(), s1.t()));
  EXPECT_TRUE(et::tensors_have_same_shape(s0.t(), s1.t(), s11.t()));
  TestTensor z1(ScalarType::Float, {0, 3}), z2(ScalarType::Float, {3, 0});
  EXPECT_FALSE(et::tensors_have_same_shape(z1.t(), z2.t()));

  EXPECT_TRUE(et::tensors_have_same_shape_and_dtype(a.t(), b.t()));
  EXPECT_FALSE(et::tensors_have_same_shape_and_dtype(a.t(), e.t()));
  EXPECT_FALSE(et::tensors_have_same_shape_and_dtype(a.t(), c.t()));
  EXPECT_TRUE(et::tensors_have_same_shape_and_dtype(a.t(), b.t(), b.t()));
  EXPECT_FALSE(et::tensors_have_same_shape_and_dtype(a.t(), b.t(), e.t()));

  const SizesType two_three[2] = {2, 3};
  const SizesType three_two[2] = {3, 2};
  EXPECT_TRUE(et::tensor_has_expected_size(a.t(), executorch::aten::ArrayRef<SizesType>(two_three, 2)));
  EXPECT_FALSE(et::tensor_has_expected_size(a.t(), executorch::aten::ArrayRef<SizesType>(three_two, 2)));
  EXPECT_FALSE(et::tensor_has_expected_size(a.t(), executorch::aten::ArrayRef<SizesType>(two_three, 1)));

  TestTensor cl(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1}), cl2(ScalarType::Half, {2, 3, 4, 5}, {0, 2, 3, 1}),
      nchw(ScalarType::Float, {2, 3, 4, 5});
  EXPECT_TRUE(et::tensors_have_same_strides(cl.t(), cl2.t()));
  EXPECT_FALSE(et::tensors_have_same_strides(cl.t(), nchw.t()));
  EXPECT_TRUE(et::tensors_have_same_strides(cl.t(), cl2.t(), cl.t()));
  EXPECT_FALSE(et::tensors_have_same_strides(cl.t(), cl2.t(), nchw.t()));
  EXPECT_FALSE(et::tensors_have_same_strides(a.t(), nchw.t()));
}

TEST(TensorUtilPredicates, ContiguityAndDimOrders) {
  TestTensor nchw(ScalarType::Float, {2, 3, 4, 5}), nhwc(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1}),
      ndhwc(ScalarType::Float, {1, 2, 3, 4, 5}, {0, 2, 3, 4, 1}), odd(ScalarType::Float, {2, 3, 4}, {2, 0, 1}),
      scalar(ScalarType::Float, {}), vec(ScalarType::Float, {7});
  EXPECT_TRUE(et::tensor_is_contiguous(nchw.t()));
  EXPECT_FALSE(et::tensor_is_contiguous(nhwc.t()));
  EXPECT_FALSE(et::tensor_is_contiguous(odd.t()));
  EXPECT_TRUE(et::tensor_is_contiguous(scalar.t()));
  EXPECT_TRUE(et::tensor_is_contiguous(vec.t()));

  EXPECT_TRUE(et::tensor_is_default_dim_order(nchw.t()));
  EXPECT_FALSE(et::tensor_is_default_dim_order(nhwc.t()));
  EXPECT_TRUE(et::tensor_is_default_dim_order(scalar.t()));
  EXPECT_TRUE(et::tensor_is_channels_last_dim_order(nhwc.t()));
  EXPECT_TRUE(et::tensor_is_channels_last_dim_order(ndhwc.t()));
  EXPECT_FALSE(et::tensor_is_channels_last_dim_order(nchw.t()));
  EXPECT_FALSE(et::tensor_is_channels_last_dim_order(odd.t()));
  EXPECT_TRUE(et::tensor_is_default_or_channels_last_dim_order(nchw.t()));
  EXPECT_TRUE(et::tensor_is_default_or_channels_last_dim_order(nhwc.t()));
  EXPECT_FALSE(et::tensor_is_default_or_channels_last_dim_order(odd.t()));

  EXPECT_TRUE(et::tensor_has_valid_dim_order(odd.t()));
  EXPECT_TRUE(et::tensor_has_valid_dim_order(scalar.t()));
  TestTensor duplicate(ScalarType::Float, {2, 3, 4}, {0, 1, 1}), out_of_range(ScalarType::Float, {2, 3}, {0, 2});
  EXPECT_FALSE(et::tensor_has_valid_dim_order(duplicate.t()));
  EXPECT_FALSE(et::tensor_has_valid_dim_order(out_of_range.t()));

  // Same dim order: all default or all channels-last (the rank may differ).
  TestTensor nhwc2(ScalarType::Int, {1, 8, 2, 2}, {0, 2, 3, 1}), mat(ScalarType::Float, {3, 3});
  EXPECT_TRUE(et::tensors_have_same_dim_order(nchw.t(), mat.t()));
  EXPECT_TRUE(et::tensors_have_same_dim_order(nhwc.t(), nhwc2.t()));
  EXPECT_TRUE(et::tensors_have_same_dim_order(nhwc.t(), nhwc2.t(), ndhwc.t()));
  EXPECT_FALSE(et::tensors_have_same_dim_order(nchw.t(), nhwc.t()));
  EXPECT_FALSE(et::tensors_have_same_dim_order(nchw.t(), mat.t(), nhwc.t()));
  EXPECT_TRUE(et::tensors_have_same_dim_order(nchw.t(), mat.t(), vec.t(), scalar.t()));
  EXPECT_FALSE(et::tensors_have_same_dim_order(nchw.t(), mat.t(), vec.t(), odd.t()));
  // Two identical non-default, non-channels-last orders do not count as the same.
  EXPECT_FALSE(et::tensors_have_same_dim_order(odd.t(), odd.t()));
  const Tensor list[] = {nhwc.t(), nhwc2.t(), nhwc.t()};
  EXPECT_TRUE(et::tensors_have_same_dim_order(executorch::aten::ArrayRef<Tensor>(list, 3)));
  EXPECT_TRUE(et::tensors_have_same_dim_order(executorch::aten::ArrayRef<Tensor>(list, 1)));
  EXPECT_TRUE(et::tensors_have_same_dim_order(executorch::aten::ArrayRef<Tensor>()));

  DimOrderType order[4] = {};
  ASSERT_EQ(et::get_dim_order(nhwc.t(), order, 4), Error::Ok);
  EXPECT_EQ(std::vector<DimOrderType>(order, order + 4), (std::vector<DimOrderType>{0, 2, 3, 1}));
  EXPECT_EQ(et::get_dim_order(nhwc.t(), order, 3), Error::InvalidArgument);
  EXPECT_EQ(et::get_dim_order(scalar.t(), order, 0), Error::Ok);
}

//
// Index arithmetic.
//

TEST(TensorUtilIndex, LeadingAndTrailingDims) {
  TestTensor t(ScalarType::Int, {2, 3, 4});
  EXPECT_EQ(et::getLeadingDims(t.t(), 0), 1u);
  EXPECT_EQ(et::getLeadingDims(t.t(), 1), 2u);
  EXPECT_EQ(et::getLeadingDims(t.t(), 2), 6u);
  EXPECT_EQ(et::getLeadingDims(t.t(), 3), 24u);
  EXPECT_EQ(et::getTrailingDims(t.t(), -1), 24u);
  EXPECT_EQ(et::getTrailingDims(t.t(), 0), 12u);
  EXPECT_EQ(et::getTrailingDims(t.t(), 1), 4u);
  EXPECT_EQ(et::getTrailingDims(t.t(), 2), 1u);
}

TEST(TensorUtilIndexDeathTest, OutOfRangeDimsAbort) {
  TestTensor t(ScalarType::Int, {2, 3, 4});
  EXPECT_DEATH(et::getLeadingDims(t.t(), -1), "Ending dimension.*should be in the range");
  EXPECT_DEATH(et::getLeadingDims(t.t(), 4), "Ending dimension.*should be in the range");
  EXPECT_DEATH(et::getTrailingDims(t.t(), -2), "Starting dimension.*should be in the range");
  EXPECT_DEATH(et::getTrailingDims(t.t(), 3), "Starting dimension.*should be in the range");
  size_t coordinate[3];
  EXPECT_DEATH(et::indexToCoordinate(t.t(), 24, coordinate), "");
}

TEST(TensorUtilIndex, CoordinatesAndIndicesRoundTrip) {
  TestTensor t(ScalarType::Float, {2, 3, 4});
  size_t memo[executorch::runtime::kTensorDimensionLimit];
  et::memoizeTrailingDims(t.t(), memo);
  EXPECT_EQ(memo[0], 12u);
  EXPECT_EQ(memo[1], 4u);
  EXPECT_EQ(memo[2], 1u);
  for (size_t index = 0; index < 24; ++index) {
    size_t c[3] = {99, 99, 99};
    et::indexToCoordinate(t.t(), index, c);
    EXPECT_EQ(c[0], index / 12);
    EXPECT_EQ(c[1], (index / 4) % 3);
    EXPECT_EQ(c[2], index % 4);
    EXPECT_EQ(et::coordinateToIndex(t.t(), c), index);
    EXPECT_EQ(et::coordinateToIndexWithTrailingDimsMemo(t.t(), c, memo), index);
  }
  // Strided offsets: channels-last strides {60, 1, 15, 3} for sizes {2, 3, 4, 5}.
  TestTensor cl(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1});
  const SizesType coord[4] = {1, 2, 3, 4};
  EXPECT_EQ(et::calculate_linear_index(coord, cl.t().strides().data(), 4), 60u + 2u + 45u + 12u);
  EXPECT_EQ(torch::executor::calculate_linear_index(coord, cl.t().strides().data(), 0), 0u);
  // A 0-d tensor: index 0 is the empty coordinate.
  TestTensor s(ScalarType::Float, {});
  et::indexToCoordinate(s.t(), 0, nullptr);
  EXPECT_EQ(et::coordinateToIndex(s.t(), nullptr), 0u);
}

//
// Scalar extraction.
//

TEST(TensorUtilExtract, IntegerOutputs) {
  TestTensor i(ScalarType::Int, {1});
  i.fill<int32_t>({1});
  bool ok = false;
#define EXTRACT_ONE(ctype, name)                 \
  {                                              \
    ctype out = 0;                               \
    ok = et::extract_scalar_tensor(i.t(), &out); \
    EXPECT_TRUE(ok) << #name;                    \
    EXPECT_EQ(out, 1) << #name;                  \
  }
  ET_FORALL_INT_TYPES(EXTRACT_ONE)
#undef EXTRACT_ONE
  uint64_t u64 = 0;
  EXPECT_TRUE(et::extract_scalar_tensor(i.t(), &u64));
  EXPECT_EQ(u64, 1u);

  TestTensor big(ScalarType::Int, {1});
  big.fill<int32_t>({256});
  int8_t i8 = 7;
  EXPECT_FALSE(et::extract_scalar_tensor(big.t(), &i8));
  EXPECT_EQ(i8, 7);  // untouched on failure
  int16_t i16 = 0;
  EXPECT_TRUE(et::extract_scalar_tensor(big.t(), &i16));
  EXPECT_EQ(i16, 256);
  TestTensor neg(ScalarType::Char, {1});
  neg.fill<int8_t>({-1});
  uint8_t u8 = 0;
  EXPECT_FALSE(et::extract_scalar_tensor(neg.t(), &u8));
  EXPECT_FALSE(et::extract_scalar_tensor(neg.t(), &u64));
  int64_t i64 = 0;
  EXPECT_TRUE(et::extract_scalar_tensor(neg.t(), &i64));
  EXPECT_EQ(i64, -1);
  TestTensor huge(ScalarType::Long, {1});
  huge.fill<int64_t>({int64_t{1} << 40});
  int32_t i32 = 0;
  EXPECT_FALSE(et::extract_scalar_tensor(huge.t(), &i32));
  EXPECT_TRUE(et::extract_scalar_tensor(huge.t(), &u64));
  EXPECT_EQ(u64, uint64_t{1} << 40);

  // Not an integer dtype, or not one element.
  TestTensor f(ScalarType::Float, {1}), b(ScalarType::Bool, {1}), two(ScalarType::Int, {2}),
      empty(ScalarType::Int, {0});
  EXPECT_FALSE(et::extract_scalar_tensor(f.t(), &i64));
  EXPECT_FALSE(et::extract_scalar_tensor(b.t(), &i64));
  EXPECT_FALSE(et::extract_scalar_tensor(two.t(), &i64));
  EXPECT_FALSE(et::extract_scalar_tensor(empty.t(), &i64));
  // A 0-d tensor has one element.
  TestTensor zero_d(ScalarType::Short, {});
  zero_d.fill<int16_t>({-300});
  EXPECT_TRUE(et::extract_scalar_tensor(zero_d.t(), &i64));
  EXPECT_EQ(i64, -300);
}

TEST(TensorUtilExtract, FloatingOutputs) {
  TestTensor f(ScalarType::Float, {1}), i(ScalarType::Int, {1}), d(ScalarType::Double, {1}), h(ScalarType::Half, {1}),
      bf(ScalarType::BFloat16, {1});
  f.fill<float>({1.5f});
  i.fill<int32_t>({-3});
  h.data<executorch::aten::Half>()[0] = executorch::aten::Half(0.25f);
  bf.data<executorch::aten::BFloat16>()[0] = executorch::aten::BFloat16(-2.0f);
  double out_d = 0;
  float out_f = 0;
  EXPECT_TRUE(et::extract_scalar_tensor(f.t(), &out_d));
  EXPECT_EQ(out_d, 1.5);
  EXPECT_TRUE(et::extract_scalar_tensor(i.t(), &out_f));
  EXPECT_EQ(out_f, -3.0f);
  EXPECT_TRUE(et::extract_scalar_tensor(h.t(), &out_f));
  EXPECT_EQ(out_f, 0.25f);
  EXPECT_TRUE(et::extract_scalar_tensor(bf.t(), &out_d));
  EXPECT_EQ(out_d, -2.0);
  executorch::aten::Half out_h;
  executorch::aten::BFloat16 out_bf;
  EXPECT_TRUE(et::extract_scalar_tensor(f.t(), &out_h));
  EXPECT_EQ(static_cast<float>(out_h), 1.5f);
  EXPECT_TRUE(et::extract_scalar_tensor(i.t(), &out_bf));
  EXPECT_EQ(static_cast<float>(out_bf), -3.0f);

  // Out of the output type's range (finite values only).
  d.fill<double>({std::numeric_limits<double>::max()});
  EXPECT_FALSE(et::extract_scalar_tensor(d.t(), &out_f));
  d.fill<double>({std::numeric_limits<double>::lowest()});
  EXPECT_FALSE(et::extract_scalar_tensor(d.t(), &out_f));
  d.fill<double>({1e5});
  EXPECT_FALSE(et::extract_scalar_tensor(d.t(), &out_h));
  EXPECT_TRUE(et::extract_scalar_tensor(d.t(), &out_bf));
  d.fill<double>({1e39});
  EXPECT_FALSE(et::extract_scalar_tensor(d.t(), &out_bf));
  EXPECT_TRUE(et::extract_scalar_tensor(d.t(), &out_d));
  // Infinities and NaN pass through.
  d.fill<double>({INFINITY});
  EXPECT_TRUE(et::extract_scalar_tensor(d.t(), &out_f));
  EXPECT_TRUE(std::isinf(out_f) && out_f > 0);
  d.fill<double>({-INFINITY});
  EXPECT_TRUE(et::extract_scalar_tensor(d.t(), &out_f));
  EXPECT_TRUE(std::isinf(out_f) && out_f < 0);
  d.fill<double>({NAN});
  EXPECT_TRUE(et::extract_scalar_tensor(d.t(), &out_f));
  EXPECT_TRUE(std::isnan(out_f));

  TestTensor b(ScalarType::Bool, {1}), two(ScalarType::Float, {2}), cplx(ScalarType::ComplexFloat, {1});
  EXPECT_FALSE(et::extract_scalar_tensor(b.t(), &out_d));
  EXPECT_FALSE(et::extract_scalar_tensor(two.t(), &out_d));
  EXPECT_FALSE(et::extract_scalar_tensor(cplx.t(), &out_d));
}

TEST(TensorUtilExtract, BoolOutputs) {
  TestTensor b(ScalarType::Bool, {1}), byte(ScalarType::Byte, {1}), two(ScalarType::Bool, {2, 3});
  b.data<bool>()[0] = true;
  bool out = false;
  EXPECT_TRUE(et::extract_scalar_tensor(b.t(), &out));
  EXPECT_TRUE(out);
  EXPECT_FALSE(et::extract_scalar_tensor(byte.t(), &out));
  EXPECT_FALSE(et::extract_scalar_tensor(two.t(), &out));
}

TEST(TensorUtilExtractDeathTest, MacroAbortsOnFailure) {
  TestTensor i(ScalarType::Long, {1});
  i.fill<int64_t>({9});
  int64_t v = 0;
  ET_EXTRACT_SCALAR_TENSOR(i.t(), v);
  EXPECT_EQ(v, 9);
  double d = 0;
  ET_EXTRACT_SCALAR_TENSOR(i.t(), d);
  EXPECT_EQ(d, 9.0);
  bool flag = false;
  EXPECT_DEATH(ET_EXTRACT_SCALAR_TENSOR(i.t(), flag), "could not be extracted");
}

//
// Resizing and data pointers.
//

TEST(TensorUtilResize, StaticAndDynamicTensors) {
  TestTensor fixed(ScalarType::Float, {2, 3});
  const SizesType same[2] = {2, 3};
  const SizesType other[2] = {3, 2};
  EXPECT_EQ(et::resize_tensor(fixed.t(), executorch::aten::ArrayRef<SizesType>(same, 2)), Error::Ok);
  EXPECT_NE(et::resize_tensor(fixed.t(), executorch::aten::ArrayRef<SizesType>(other, 2)), Error::Ok);
  EXPECT_EQ(sizes_of(fixed.t()), (std::vector<SizesType>{2, 3}));

  TestTensor dyn(ScalarType::Float, {4, 4}, {}, TensorShapeDynamism::DYNAMIC_BOUND);
  const SizesType smaller[2] = {2, 5};
  ASSERT_EQ(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<SizesType>(smaller, 2)), Error::Ok);
  EXPECT_EQ(sizes_of(dyn.t()), (std::vector<SizesType>{2, 5}));
  EXPECT_EQ(dyn.t().numel(), 10);
  EXPECT_EQ(dyn.t().strides()[0], 5);
  EXPECT_EQ(dyn.t().strides()[1], 1);
  // int64_t sizes (what kernels usually compute).
  const int64_t wide[2] = {1, 16};
  ASSERT_EQ(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(wide, 2)), Error::Ok);
  EXPECT_EQ(sizes_of(dyn.t()), (std::vector<SizesType>{1, 16}));
  // Above the planned element count, a different rank, a negative or too large size: errors, shape kept.
  const int64_t too_many[2] = {5, 4};
  const int64_t negative[2] = {-1, 4};
  const int64_t overflow[2] = {int64_t{1} << 33, 1};
  const int64_t rank3[3] = {1, 2, 2};
  EXPECT_NE(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(too_many, 2)), Error::Ok);
  EXPECT_NE(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(negative, 2)), Error::Ok);
  EXPECT_EQ(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(overflow, 2)), Error::InvalidArgument);
  EXPECT_NE(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(rank3, 3)), Error::Ok);
  std::vector<int64_t> seventeen(executorch::runtime::kTensorDimensionLimit + 1, 1);
  EXPECT_EQ(et::resize_tensor(dyn.t(), executorch::aten::ArrayRef<int64_t>(seventeen)), Error::InvalidArgument);
  EXPECT_EQ(sizes_of(dyn.t()), (std::vector<SizesType>{1, 16}));
  // Another tensor's sizes, and the internal entry point.
  TestTensor src(ScalarType::Int, {3, 3});
  EXPECT_EQ(et::resize_tensor(dyn.t(), src.t().sizes()), Error::Ok);
  EXPECT_EQ(sizes_of(dyn.t()), (std::vector<SizesType>{3, 3}));
  EXPECT_EQ(et::internal::resize_tensor_impl(dyn.t().unsafeGetTensorImpl(),
                                             executorch::aten::ArrayRef<SizesType>(smaller, 2)),
            Error::Ok);
  EXPECT_EQ(torch::executor::resize_tensor(dyn.t(), src.t().sizes()), Error::Ok);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  et::resize(dyn.t(), executorch::aten::ArrayRef<SizesType>(smaller, 2));
  EXPECT_EQ(sizes_of(dyn.t()), (std::vector<SizesType>{2, 5}));
  EXPECT_DEATH(et::resize(fixed.t(), executorch::aten::ArrayRef<SizesType>(other, 2)), "Could not resize");
#pragma GCC diagnostic pop
}

TEST(TensorUtilData, ShareCopySetReset) {
  TestTensor src(ScalarType::Int, {2, 2}), dst(ScalarType::Int, {2, 2}), bigger(ScalarType::Int, {3, 2}),
      floats(ScalarType::Float, {2, 2});
  src.fill<int32_t>({1, 2, 3, 4});
  using namespace executorch::ET_RUNTIME_NAMESPACE::internal;

  ASSERT_EQ(copy_tensor_data(dst.t(), src.t()), Error::Ok);
  EXPECT_EQ(std::vector<int32_t>(dst.data<int32_t>(), dst.data<int32_t>() + 4), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_NE(dst.t().const_data_ptr(), src.t().const_data_ptr());
  EXPECT_EQ(copy_tensor_data(bigger.t(), src.t()), Error::InvalidArgument);
  // Same byte count, other dtype: copied as bytes.
  EXPECT_EQ(copy_tensor_data(floats.t(), src.t()), Error::Ok);

  ASSERT_EQ(share_tensor_data(dst.t(), src.t()), Error::Ok);
  EXPECT_EQ(dst.t().const_data_ptr(), src.t().const_data_ptr());
  EXPECT_EQ(share_tensor_data(bigger.t(), src.t()), Error::InvalidArgument);

  reset_data_ptr(dst.t());
  EXPECT_EQ(dst.t().const_data_ptr(), nullptr);
  // A destination without data cannot receive a copy; a source without data cannot be shared.
  EXPECT_EQ(copy_tensor_data(dst.t(), src.t()), Error::InvalidArgument);
  EXPECT_EQ(share_tensor_data(src.t(), dst.t()), Error::InvalidArgument);

  int32_t buffer[4] = {9, 8, 7, 6};
  EXPECT_EQ(set_tensor_data(dst.t(), buffer, sizeof(buffer)), Error::Ok);
  EXPECT_EQ(dst.t().const_data_ptr<int32_t>()[3], 6);
  EXPECT_EQ(set_tensor_data(dst.t(), buffer, sizeof(buffer) - 1), Error::InvalidArgument);
  EXPECT_EQ(dst.t().const_data_ptr(), buffer);

  // Empty tensors: sharing gives a null pointer, copying is a no-op.
  TestTensor e1(ScalarType::Float, {0, 3}), e2(ScalarType::Float, {0, 3});
  EXPECT_EQ(share_tensor_data(e1.t(), e2.t()), Error::Ok);
  EXPECT_EQ(e1.t().const_data_ptr(), nullptr);
  EXPECT_EQ(copy_tensor_data(e2.t(), e1.t()), Error::Ok);
  EXPECT_EQ(torch::executor::internal::copy_tensor_data(e1.t(), e2.t()), Error::Ok);
}

TEST(TensorShapeToCString, Formats) {
  using executorch::runtime::tensor_shape_to_c_string;
  const int32_t sizes[3] = {123, 456, 789};
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int32_t>(sizes, 3)).data(), "(123, 456, 789)");
  const int64_t one[1] = {1234567890};
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int64_t>(one, 1)).data(), "(1234567890)");
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int32_t>(sizes, size_t{0})).data(), "()");
  const int32_t negative[4] = {-1, -3, -2, 4};
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int32_t>(negative, 4)).data(), "(ERR, ERR, ERR, 4)");
  const int64_t too_big[2] = {int64_t{1} << 31, 5};
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int64_t>(too_big, 2)).data(), "(ERR, 5)");

  // The longest printable shape fits exactly.
  std::vector<int32_t> longest(executorch::runtime::kTensorDimensionLimit, std::numeric_limits<int32_t>::max());
  std::ostringstream expected;
  expected << '(';
  for (size_t i = 0; i < longest.size(); ++i) expected << (i ? ", " : "") << std::numeric_limits<int32_t>::max();
  expected << ')';
  const auto text = tensor_shape_to_c_string(Span<const int32_t>(longest.data(), longest.size()));
  EXPECT_EQ(std::string(text.data()), expected.str());
  EXPECT_EQ(text.size(), executorch::runtime::kTensorShapeStringSizeLimit);
  EXPECT_LE(expected.str().size() + 1, executorch::runtime::kTensorShapeStringSizeLimit);

  longest.push_back(1);
  EXPECT_STREQ(tensor_shape_to_c_string(Span<const int32_t>(longest.data(), longest.size())).data(),
               "(ERR: tensor ndim exceeds limit)");
  static_assert(executorch::runtime::kTensorDimensionLimit == 16);
  static_assert(executorch::runtime::internal::kMaximumPrintableTensorShapeElement == 2147483647u);
}

//
// A custom out-variant kernel as upstream's documentation shows one: check the arguments with ET_KERNEL_CHECK,
// resize the output, dispatch on the dtype with ET_SWITCH_*. out = a + alpha * b.
//
namespace torch {
namespace executor {
namespace native {

Tensor& my_scaled_add_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, double alpha, Tensor& out) {
  ET_KERNEL_CHECK(ctx, tensors_have_same_dtype(a, b, out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, tensors_have_same_shape(a, b), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, tensor_is_default_dim_order(a) && tensors_have_same_dim_order(a, b, out), InvalidArgument,
                      out, "inputs of rank %zd must be contiguous", static_cast<ssize_t>(a.dim()));
  ET_KERNEL_CHECK(ctx, resize_tensor(out, a.sizes()) == Error::Ok, InvalidArgument, out);

  static constexpr const char op_name[] = "my_ops::scaled_add.out";
  ET_SWITCH_REALHBF16_TYPES(out.scalar_type(), ctx, op_name, CTYPE, [&]() {
    const CTYPE* pa = a.const_data_ptr<CTYPE>();
    const CTYPE* pb = b.const_data_ptr<CTYPE>();
    CTYPE* po = out.mutable_data_ptr<CTYPE>();
    for (ssize_t i = 0; i < out.numel(); ++i) {
      po[i] = static_cast<CTYPE>(static_cast<double>(pa[i]) + alpha * static_cast<double>(pb[i]));
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch

TEST(CustomKernel, RunsForEachDtypeAndFailsCleanly) {
  using torch::executor::native::my_scaled_add_out;
  {
    TestTensor a(ScalarType::Float, {2, 2}), b(ScalarType::Float, {2, 2}),
        out(ScalarType::Float, {4, 4}, {}, TensorShapeDynamism::DYNAMIC_BOUND);
    a.fill<float>({1, 2, 3, 4});
    b.fill<float>({10, 20, 30, 40});
    KernelRuntimeContext ctx;
    Tensor o = out.t();
    Tensor& r = my_scaled_add_out(ctx, a.t(), b.t(), 0.5, o);
    EXPECT_EQ(&r, &o);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(sizes_of(o), (std::vector<SizesType>{2, 2}));
    EXPECT_EQ(std::vector<float>(out.data<float>(), out.data<float>() + 4), (std::vector<float>{6, 12, 18, 24}));
  }
  {
    TestTensor a(ScalarType::Half, {3}), b(ScalarType::Half, {3}), out(ScalarType::Half, {3});
    for (int i = 0; i < 3; ++i) {
      a.data<executorch::aten::Half>()[i] = executorch::aten::Half(static_cast<float>(i));
      b.data<executorch::aten::Half>()[i] = executorch::aten::Half(1.0f);
    }
    KernelRuntimeContext ctx;
    Tensor o = out.t();
    my_scaled_add_out(ctx, a.t(), b.t(), -2.0, o);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(static_cast<float>(out.data<executorch::aten::Half>()[2]), 0.0f);
    EXPECT_EQ(static_cast<float>(out.data<executorch::aten::Half>()[0]), -2.0f);
  }
  {
    TestTensor a(ScalarType::BFloat16, {1}), b(ScalarType::BFloat16, {1}), out(ScalarType::BFloat16, {1});
    a.data<executorch::aten::BFloat16>()[0] = executorch::aten::BFloat16(1.0f);
    b.data<executorch::aten::BFloat16>()[0] = executorch::aten::BFloat16(3.0f);
    KernelRuntimeContext ctx;
    Tensor o = out.t();
    my_scaled_add_out(ctx, a.t(), b.t(), 1.0, o);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(static_cast<float>(out.data<executorch::aten::BFloat16>()[0]), 4.0f);
  }
  {
    TestTensor a(ScalarType::Long, {2}), b(ScalarType::Long, {2}), out(ScalarType::Long, {2});
    a.fill<int64_t>({1, -1});
    b.fill<int64_t>({4, 4});
    KernelRuntimeContext ctx;
    Tensor o = out.t();
    my_scaled_add_out(ctx, a.t(), b.t(), 3.0, o);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(out.data<int64_t>()[0], 13);
    EXPECT_EQ(out.data<int64_t>()[1], 11);
  }
  // Each failure leaves the output untouched and fails the context with InvalidArgument.
  auto fails = [](const Tensor& a, const Tensor& b, TestTensor& out) {
    KernelRuntimeContext ctx;
    out.data<uint8_t>()[0] = 0x5a;
    Tensor o = out.t();
    my_scaled_add_out(ctx, a, b, 1.0, o);
    EXPECT_EQ(out.data<uint8_t>()[0], 0x5a);
    return ctx.failure_state();
  };
  TestTensor f(ScalarType::Float, {2}), i(ScalarType::Int, {2}), f3(ScalarType::Float, {3});
  TestTensor out_f(ScalarType::Float, {2}), out_i(ScalarType::Int, {2});
  EXPECT_EQ(fails(f.t(), i.t(), out_f), Error::InvalidArgument);   // dtypes differ
  EXPECT_EQ(fails(f.t(), f3.t(), out_f), Error::InvalidArgument);  // shapes differ
  TestTensor small_out(ScalarType::Float, {1});                    // static output of another shape
  EXPECT_EQ(fails(f.t(), f.t(), small_out), Error::InvalidArgument);
  TestTensor bools(ScalarType::Bool, {2}), out_b(ScalarType::Bool, {2});  // dtype outside the switch
  EXPECT_EQ(fails(bools.t(), bools.t(), out_b), Error::InvalidArgument);
  TestTensor cl(ScalarType::Float, {1, 2, 2, 2}, {0, 2, 3, 1}), out_cl(ScalarType::Float, {1, 2, 2, 2});
  EXPECT_EQ(fails(cl.t(), cl.t(), out_cl), Error::InvalidArgument);  // not contiguous
}

TEST(TensorUtil, TorchExecutorAliases) {
  TestTensor a(ScalarType::Float, {2, 3});
  const Tensor t = a.t();
  EXPECT_TRUE(torch::executor::tensor_is_rank(t, 2));
  EXPECT_TRUE(torch::executor::tensors_have_same_shape_and_dtype(t, t));
  EXPECT_TRUE(torch::executor::tensor_is_contiguous(t));
  EXPECT_TRUE(torch::executor::tensor_is_default_or_channels_last_dim_order(t));
  EXPECT_TRUE(torch::executor::tensor_is_floating_type(t));
  EXPECT_EQ(torch::executor::getLeadingDims(t, 1), 2u);
  EXPECT_EQ(torch::executor::getTrailingDims(t, 0), 3u);
  EXPECT_TRUE(torch::executor::dim_is_valid(-2, 2));
  EXPECT_EQ(torch::executor::nonzero_dim(t), 2);
  EXPECT_EQ(torch::executor::kTensorDimensionLimit, 16u);
  DimOrderType order[2];
  EXPECT_EQ(torch::executor::get_dim_order(t, order, 2), Error::Ok);
}
