// executorch/extension/tensor/tensor_accessor.h as upstream ExecuTorch's header describes it: a[i][j]... access
// into a tensor through its strides, and make_tensor_accessor's checks.
#include <executorch/extension/tensor/tensor_accessor.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "test_util.h"

using executorch::aten::ScalarType;
using executorch::extension::make_tensor_accessor;
using executorch::extension::make_tensor_ptr;
using executorch::extension::TensorAccessor;
using executorch::runtime::Error;

namespace {

class TensorAccessorTest : public api_test::RuntimeTest {};

int32_t encode(int32_t n, int32_t c, int32_t h, int32_t w) { return (n << 24) | (c << 16) | (h << 8) | w; }

TEST_F(TensorAccessorTest, OneDimension) {
  std::vector<uint8_t> data(16);
  for (int i = 0; i < 16; ++i) data[i] = static_cast<uint8_t>(i * 3);
  auto tensor = make_tensor_ptr({16}, data.data(), ScalarType::Byte);
  auto acc = make_tensor_accessor<uint8_t, 1>(*tensor);
  ASSERT_TRUE(acc.ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(acc.get()[i], i * 3);
  EXPECT_EQ(acc->size(0), 16);
  EXPECT_EQ(acc->stride(0), 1);
  // Writes go to the tensor's data.
  acc.get()[5] = 200;
  EXPECT_EQ(data[5], 200);
}

TEST_F(TensorAccessorTest, FourDimensions) {
  constexpr int32_t N = 2, C = 8, H = 4, W = 6;
  std::vector<int32_t> data;
  for (int32_t n = 0; n < N; ++n)
    for (int32_t c = 0; c < C; ++c)
      for (int32_t h = 0; h < H; ++h)
        for (int32_t w = 0; w < W; ++w) data.push_back(encode(n, c, h, w));
  auto tensor = make_tensor_ptr({N, C, H, W}, data.data(), ScalarType::Int);
  auto acc = make_tensor_accessor<int32_t, 4>(*tensor);
  ASSERT_TRUE(acc.ok());
  TensorAccessor<int32_t, 4> a = acc.get();
  for (int32_t n = 0; n < N; ++n)
    for (int32_t c = 0; c < C; ++c)
      for (int32_t h = 0; h < H; ++h)
        for (int32_t w = 0; w < W; ++w) ASSERT_EQ(a[n][c][h][w], encode(n, c, h, w));
  EXPECT_EQ(a.size(0), N);
  EXPECT_EQ(a.size(3), W);
  EXPECT_EQ(a.stride(0), C * H * W);
  EXPECT_EQ(a.stride(2), W);
  // Sub-accessors see the remaining dimensions.
  auto plane = a[1][2];
  EXPECT_EQ(plane.size(0), H);
  EXPECT_EQ(plane.stride(0), W);
  EXPECT_EQ(plane[3][5], encode(1, 2, 3, 5));
  a[1][7][3][5] = -1;
  EXPECT_EQ(data.back(), -1);
}

TEST_F(TensorAccessorTest, ConstElementsFromConstData) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6};
  auto tensor = make_tensor_ptr({2, 3}, const_cast<float*>(data.data()));
  auto acc = make_tensor_accessor<const float, 2>(*tensor);
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc.get()[1][2], 6.0f);
  EXPECT_EQ(acc.get()[0][1], 2.0f);
}

TEST_F(TensorAccessorTest, Checks) {
  std::vector<float> data(16);
  auto tensor = make_tensor_ptr({16}, data.data());
  auto rank = make_tensor_accessor<float, 2>(*tensor);
  EXPECT_FALSE(rank.ok());
  EXPECT_EQ(rank.error(), Error::InvalidArgument);
  auto element = make_tensor_accessor<uint8_t, 1>(*tensor);
  EXPECT_FALSE(element.ok());
  EXPECT_EQ(element.error(), Error::InvalidArgument);
  // Same element size, another type: allowed (only the size is checked).
  EXPECT_TRUE((make_tensor_accessor<int32_t, 1>(*tensor).ok()));
  // A non-default dim order is not supported.
  std::vector<float> m(8 * 16);
  auto cl = make_tensor_ptr({8, 16}, m.data(), {1, 0}, {1, 8});
  auto order = make_tensor_accessor<float, 2>(*cl);
  EXPECT_FALSE(order.ok());
  EXPECT_EQ(order.error(), Error::NotSupported);
  // size() / stride() outside the rank abort.
  auto ok = make_tensor_accessor<float, 1>(*tensor);
  ASSERT_TRUE(ok.ok());
  EXPECT_DEATH((void)ok->size(1), "");
  EXPECT_DEATH((void)ok->stride(-1), "");
}

}  // namespace
