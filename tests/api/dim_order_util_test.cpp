// executorch/runtime/core/exec_aten/util/dim_order_util.h: layout tests and dim order <-> strides conversions, as
// kernels call them (with int32 sizes/strides and uint8 dim orders, and with other integer types).
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

using executorch::aten::DimOrderType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::runtime::dim_order_to_stride;
using executorch::runtime::dim_order_to_stride_nocheck;
using executorch::runtime::Error;
using executorch::runtime::is_channels_last_dim_order;
using executorch::runtime::is_contiguous_dim_order;
using executorch::runtime::kTensorDimensionLimit;
using executorch::runtime::stride_to_dim_order;

namespace {

std::vector<StridesType> strides_of(const std::vector<SizesType>& sizes, const std::vector<DimOrderType>& order) {
  std::vector<StridesType> strides(sizes.size(), -7);
  EXPECT_EQ(dim_order_to_stride(sizes.data(), order.data(), sizes.size(), strides.data()), Error::Ok);
  return strides;
}

}  // namespace

TEST(DimOrderUtil, ContiguousDimOrder) {
  for (size_t n = 0; n <= 7; ++n) {
    std::vector<DimOrderType> order(n);
    std::iota(order.begin(), order.end(), 0);
    EXPECT_TRUE(is_contiguous_dim_order(order.data(), order.size())) << n;
    if (n >= 2) {
      std::swap(order[n - 1], order[n - 2]);
      EXPECT_FALSE(is_contiguous_dim_order(order.data(), order.size())) << n;
    }
  }
  const int32_t wide[3] = {0, 1, 2};  // any integer element type
  EXPECT_TRUE(is_contiguous_dim_order(wide, 3));
  const int64_t off_by_one[3] = {1, 2, 3};
  EXPECT_FALSE(is_contiguous_dim_order(off_by_one, 3));
}

TEST(DimOrderUtil, ChannelsLastDimOrder) {
  const DimOrderType nhwc[4] = {0, 2, 3, 1};
  const DimOrderType ndhwc[5] = {0, 2, 3, 4, 1};
  EXPECT_TRUE(is_channels_last_dim_order(nhwc, 4));
  EXPECT_TRUE(is_channels_last_dim_order(ndhwc, 5));
  EXPECT_FALSE(is_contiguous_dim_order(nhwc, 4));
  EXPECT_FALSE(is_contiguous_dim_order(ndhwc, 5));

  // Only ranks 4 and 5 have a channels-last order.
  const DimOrderType three[3] = {0, 2, 1};
  const DimOrderType six[6] = {0, 2, 3, 4, 5, 1};
  EXPECT_FALSE(is_channels_last_dim_order(three, 3));
  EXPECT_FALSE(is_channels_last_dim_order(six, 6));
  EXPECT_FALSE(is_channels_last_dim_order(nhwc, 0));
  // Other permutations of 4 and 5 dimensions.
  const DimOrderType contiguous4[4] = {0, 1, 2, 3};
  const DimOrderType swapped4[4] = {0, 3, 2, 1};
  const DimOrderType batch_last4[4] = {1, 2, 3, 0};
  const DimOrderType swapped5[5] = {0, 2, 4, 3, 1};
  EXPECT_FALSE(is_channels_last_dim_order(contiguous4, 4));
  EXPECT_FALSE(is_channels_last_dim_order(swapped4, 4));
  EXPECT_FALSE(is_channels_last_dim_order(batch_last4, 4));
  EXPECT_FALSE(is_channels_last_dim_order(swapped5, 5));
}

TEST(DimOrderUtil, DimOrderToStride) {
  EXPECT_EQ(strides_of({5}, {0}), (std::vector<StridesType>{1}));
  EXPECT_EQ(strides_of({2, 5}, {0, 1}), (std::vector<StridesType>{5, 1}));
  EXPECT_EQ(strides_of({2, 5}, {1, 0}), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(strides_of({2, 5, 7}, {0, 1, 2}), (std::vector<StridesType>{35, 7, 1}));
  EXPECT_EQ(strides_of({2, 5, 7}, {2, 0, 1}), (std::vector<StridesType>{5, 1, 10}));
  // NCHW sizes stored channels-last: C is innermost.
  EXPECT_EQ(strides_of({2, 3, 4, 5}, {0, 2, 3, 1}), (std::vector<StridesType>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of({2, 5, 7, 8, 9}, {0, 2, 3, 4, 1}), (std::vector<StridesType>{2520, 1, 360, 45, 5}));
  // A size-0 dimension counts as 1 for the dimensions outside it.
  EXPECT_EQ(strides_of({2, 5, 0}, {0, 1, 2}), (std::vector<StridesType>{5, 1, 1}));
  EXPECT_EQ(strides_of({2, 0, 5}, {0, 1, 2}), (std::vector<StridesType>{5, 5, 1}));

  // Rank 0: nothing to write, Ok.
  StridesType untouched = 42;
  EXPECT_EQ(dim_order_to_stride(static_cast<const SizesType*>(nullptr), static_cast<const DimOrderType*>(nullptr), 0,
                                &untouched),
            Error::Ok);
  EXPECT_EQ(untouched, 42);

  // Other element types (int64 sizes and strides, int32 dim order) work the same.
  const int64_t sizes64[3] = {4, 3, 2};
  const int32_t order32[3] = {1, 2, 0};
  int64_t strides64[3] = {};
  ASSERT_EQ(dim_order_to_stride(sizes64, order32, 3, strides64), Error::Ok);
  EXPECT_EQ(strides64[1], 8);
  EXPECT_EQ(strides64[2], 4);
  EXPECT_EQ(strides64[0], 1);

  // The unchecked form computes the same.
  StridesType s[4];
  const SizesType sizes[4] = {2, 3, 4, 5};
  const DimOrderType nhwc[4] = {0, 2, 3, 1};
  dim_order_to_stride_nocheck(sizes, nhwc, 4, s);
  EXPECT_EQ(std::vector<StridesType>(s, s + 4), (std::vector<StridesType>{60, 1, 15, 3}));
}

TEST(DimOrderUtil, DimOrderToStrideRejectsInvalidDimOrders) {
  const SizesType sizes[3] = {2, 3, 4};
  StridesType strides[3] = {0, 0, 0};
  const DimOrderType all_same[3] = {0, 0, 0};
  const DimOrderType duplicate[3] = {0, 1, 1};
  const DimOrderType missing[3] = {1, 2, 2};
  const DimOrderType out_of_range[3] = {0, 1, 3};
  EXPECT_EQ(dim_order_to_stride(sizes, all_same, 3, strides), Error::InvalidArgument);
  EXPECT_EQ(dim_order_to_stride(sizes, duplicate, 3, strides), Error::InvalidArgument);
  EXPECT_EQ(dim_order_to_stride(sizes, missing, 3, strides), Error::InvalidArgument);
  EXPECT_EQ(dim_order_to_stride(sizes, out_of_range, 3, strides), Error::InvalidArgument);
  const int32_t negative[3] = {0, -1, 2};
  EXPECT_EQ(dim_order_to_stride(sizes, negative, 3, strides), Error::InvalidArgument);
  // Nothing is written on failure.
  EXPECT_EQ(strides[0], 0);
  EXPECT_EQ(strides[2], 0);

  // More dimensions than kTensorDimensionLimit: invalid even when a permutation.
  std::vector<SizesType> big_sizes(kTensorDimensionLimit + 1, 1);
  std::vector<DimOrderType> big_order(kTensorDimensionLimit + 1);
  std::iota(big_order.begin(), big_order.end(), 0);
  std::vector<StridesType> big_strides(big_sizes.size());
  EXPECT_EQ(dim_order_to_stride(big_sizes.data(), big_order.data(), big_sizes.size(), big_strides.data()),
            Error::InvalidArgument);
  // Exactly at the limit is fine.
  EXPECT_EQ(dim_order_to_stride(big_sizes.data(), big_order.data(), kTensorDimensionLimit, big_strides.data()),
            Error::Ok);
}

TEST(DimOrderUtil, StrideToDimOrder) {
  const StridesType strides[3] = {5, 1, 15};
  DimOrderType order[3] = {9, 9, 9};
  ASSERT_EQ(stride_to_dim_order(strides, 3, order), Error::Ok);
  EXPECT_EQ(std::vector<DimOrderType>(order, order + 3), (std::vector<DimOrderType>{2, 0, 1}));

  // Equal strides (size-1 dimensions): the order upstream's sort gives.
  const StridesType same[4] = {4, 3, 1, 1};
  DimOrderType same_order[4];
  ASSERT_EQ(stride_to_dim_order(same, 4, same_order), Error::Ok);
  EXPECT_EQ(std::vector<DimOrderType>(same_order, same_order + 4), (std::vector<DimOrderType>{0, 1, 2, 3}));
  // NHWC with one channel: strides {16, 1, 4, 1}.
  const StridesType one_channel[4] = {16, 1, 4, 1};
  DimOrderType one_channel_order[4];
  ASSERT_EQ(stride_to_dim_order(one_channel, 4, one_channel_order), Error::Ok);
  EXPECT_EQ(std::vector<DimOrderType>(one_channel_order, one_channel_order + 4),
            (std::vector<DimOrderType>{0, 2, 1, 3}));

  // Rank 0 and 1.
  DimOrderType single[1] = {7};
  const StridesType one[1] = {1};
  EXPECT_EQ(stride_to_dim_order(one, 1, single), Error::Ok);
  EXPECT_EQ(single[0], 0);
  EXPECT_EQ(stride_to_dim_order(one, 0, single), Error::Ok);

  // Errors.
  EXPECT_EQ(stride_to_dim_order(strides, 3, static_cast<DimOrderType*>(nullptr)), Error::MemoryAllocationFailed);
  std::vector<StridesType> many(17, 1);
  std::vector<DimOrderType> many_order(17);
  EXPECT_EQ(stride_to_dim_order(many.data(), many.size(), many_order.data()), Error::NotSupported);
}

TEST(DimOrderUtil, StridesAndDimOrdersRoundTripForEveryPermutation) {
  // Distinct sizes > 1 make the strides unique, so every dim order survives the round trip.
  const std::vector<SizesType> sizes = {2, 3, 4, 5};
  std::vector<DimOrderType> order = {0, 1, 2, 3};
  int permutations = 0;
  do {
    const std::vector<StridesType> strides = strides_of(sizes, order);
    std::array<DimOrderType, 4> back{};
    ASSERT_EQ(stride_to_dim_order(strides.data(), strides.size(), back.data()), Error::Ok);
    EXPECT_TRUE(std::equal(back.begin(), back.end(), order.begin()));
    // The innermost dimension has stride 1 and the outermost the product of the others.
    EXPECT_EQ(strides[order[3]], 1);
    EXPECT_EQ(strides[order[0]], 120 / sizes[order[0]]);
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(permutations, 24);
}

TEST(DimOrderUtil, TorchExecutorAliases) {
  const DimOrderType order[2] = {0, 1};
  EXPECT_TRUE(torch::executor::is_contiguous_dim_order(order, 2));
  EXPECT_FALSE(torch::executor::is_channels_last_dim_order(order, 2));
  const SizesType sizes[2] = {3, 4};
  StridesType strides[2];
  EXPECT_EQ(torch::executor::dim_order_to_stride(sizes, order, 2, strides), Error::Ok);
  EXPECT_EQ(strides[0], 4);
  torch::executor::dim_order_to_stride_nocheck(sizes, order, 2, strides);
  DimOrderType back[2];
  EXPECT_EQ(torch::executor::stride_to_dim_order(strides, 2, back), Error::Ok);
  EXPECT_EQ(back[1], 1);
}
