// executorch/extension/tensor/tensor_ptr_maker.h as upstream ExecuTorch's header and documentation describe it:
// for_blob / from_blob over caller's memory, and the owning empty / full / zeros / ones / scalar_tensor / rand /
// randn / randint makers with their *_like and *_strided forms.
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "test_util.h"

using namespace executorch::extension;
using executorch::aten::BFloat16;
using executorch::aten::DimOrderType;
using executorch::aten::Half;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::etensor::Device;
using executorch::runtime::etensor::DeviceType;

using api_test::dim_order_of;
using api_test::sizes_of;
using api_test::strides_of;
using api_test::values_of;

namespace {

class TensorPtrMakerTest : public api_test::RuntimeTest {};

// --- for_blob / from_blob ----------------------------------------------------------------------------------

TEST_F(TensorPtrMakerTest, ForBlobBuilder) {
  float data[20] = {2};
  auto t =
      for_blob(data, {4, 5}).dim_order({0, 1}).strides({5, 1}).dynamism(TensorShapeDynamism::STATIC).make_tensor_ptr();
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{4, 5}));
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{5, 1}));
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(t->const_data_ptr<float>(), data);

  // The documentation's form, with a dtype.
  double d[6] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  auto td =
      for_blob(d, {2, 3}, ScalarType::Double).strides({3, 1}).dynamism(TensorShapeDynamism::STATIC).make_tensor_ptr();
  EXPECT_EQ(td->scalar_type(), ScalarType::Double);
  EXPECT_EQ(values_of<double>(td), (std::vector<double>{1, 2, 3, 4, 5, 6}));

  // .type(), .dim_order() alone, .device(), and conversion to TensorPtr without make_tensor_ptr().
  int32_t ints[6] = {};
  TensorPtr ti = for_blob(ints, {2, 3}).type(ScalarType::Int).dim_order({1, 0}).device(Device(DeviceType::CUDA, 2));
  EXPECT_EQ(ti->scalar_type(), ScalarType::Int);
  EXPECT_EQ(strides_of(ti), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(ti->device_type(), DeviceType::CUDA);
  EXPECT_EQ(ti->device_index(), 2);
  EXPECT_EQ(ti->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
}

TEST_F(TensorPtrMakerTest, ForBlobTakesLvaluesAndMovesRvalues) {
  float data[20] = {};
  std::vector<SizesType> sizes = {4, 5};
  std::vector<DimOrderType> order = {0, 1};
  std::vector<StridesType> strides = {5, 1};
  auto a = for_blob(data, sizes).dim_order(order).strides(strides).make_tensor_ptr();
  EXPECT_EQ(sizes.size(), 2u);
  EXPECT_EQ(strides_of(a), (std::vector<StridesType>{5, 1}));
  auto b = for_blob(data, std::move(sizes)).dim_order(std::move(order)).strides(std::move(strides)).make_tensor_ptr();
  EXPECT_EQ(sizes_of(b), (std::vector<SizesType>{4, 5}));
}

TEST_F(TensorPtrMakerTest, ForBlobDeleterRunsOnce) {
  int calls = 0;
  void* seen = nullptr;
  float* data = new float[20]();
  auto t = for_blob(data, {4, 5})
               .deleter([&](void* p) {
                 ++calls;
                 seen = p;
                 delete[] static_cast<float*>(p);
               })
               .make_tensor_ptr();
  auto copy = t;
  t.reset();
  EXPECT_EQ(calls, 0);
  copy.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, data);
}

TEST_F(TensorPtrMakerTest, FromBlob) {
  float data[3] = {1.0f, 2.0f, 3.0f};
  auto t = from_blob(data, {3}, ScalarType::Float);  // the documentation's call
  EXPECT_EQ(t->const_data_ptr<float>(), data);
  EXPECT_EQ(values_of<float>(t), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t->device_type(), DeviceType::CPU);

  auto z = from_blob(data, {});
  EXPECT_EQ(z->dim(), 0);
  EXPECT_EQ(z->numel(), 1);

  float cube[8] = {3};
  auto s = from_blob(cube, {2, 2, 2}, {4, 2, 1});
  EXPECT_EQ(strides_of(s), (std::vector<StridesType>{4, 2, 1}));
  auto cl = from_blob(cube, {2, 4}, {1, 2});
  EXPECT_EQ(dim_order_of(cl), (std::vector<DimOrderType>{1, 0}));
  // A stride on a size-1 dimension does not matter.
  auto legal = from_blob(cube, {1, 2, 2}, {10, 2, 1});
  EXPECT_EQ(strides_of(legal), (std::vector<StridesType>{4, 2, 1}));
  EXPECT_DEATH((void)from_blob(cube, {2, 2, 2}, {10, 2, 1}), "stride 10 of dimension 0");

  // Dtype, device and dynamism (1.5 order), and the 1.4 order without a device.
  int64_t longs[4] = {};
  auto d = from_blob(longs, {4}, ScalarType::Long, Device(DeviceType::CUDA), TensorShapeDynamism::STATIC);
  EXPECT_EQ(d->scalar_type(), ScalarType::Long);
  EXPECT_EQ(d->device_type(), DeviceType::CUDA);
  EXPECT_EQ(d->shape_dynamism(), TensorShapeDynamism::STATIC);
  auto st = from_blob(longs, {2, 2}, ScalarType::Long, TensorShapeDynamism::STATIC);
  EXPECT_EQ(st->shape_dynamism(), TensorShapeDynamism::STATIC);
  auto sst = from_blob(longs, {2, 2}, {1, 2}, ScalarType::Long, TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(sst->shape_dynamism(), TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(strides_of(sst), (std::vector<StridesType>{1, 2}));
}

TEST_F(TensorPtrMakerTest, FromBlobWithDeleter) {
  int calls = 0;
  {
    int* data = new int[3]{1, 2, 3};
    auto t = from_blob(data, {3}, ScalarType::Int, [&calls](void* ptr) {  // the documentation's call
      ++calls;
      delete[] static_cast<int*>(ptr);
    });
    EXPECT_EQ(values_of<int32_t>(t), (std::vector<int32_t>{1, 2, 3}));
  }
  EXPECT_EQ(calls, 1);
  {
    float* data = new float[4]();
    auto t = from_blob(
        data, {2, 2}, ScalarType::Float, Device(DeviceType::CPU),
        [&calls](void* p) {
          ++calls;
          delete[] static_cast<float*>(p);
        },
        TensorShapeDynamism::STATIC);
    EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::STATIC);
  }
  EXPECT_EQ(calls, 2);
  {
    float* data = new float[4]();
    auto t = from_blob(data, {2, 2}, {1, 2}, ScalarType::Float, Device(DeviceType::CPU), [&calls](void* p) {
      ++calls;
      delete[] static_cast<float*>(p);
    });
    EXPECT_EQ(strides_of(t), (std::vector<StridesType>{1, 2}));
  }
  EXPECT_EQ(calls, 3);
  {
    float* data = new float[4]();
    auto t = from_blob(data, {2, 2}, {2, 1}, ScalarType::Float, [&calls](void* p) {
      ++calls;
      delete[] static_cast<float*>(p);
    });
    EXPECT_EQ(strides_of(t), (std::vector<StridesType>{2, 1}));
  }
  EXPECT_EQ(calls, 4);
}

// --- empty -------------------------------------------------------------------------------------------------

TEST_F(TensorPtrMakerTest, Empty) {
  auto t = empty({2, 3});
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_NE(t->const_data_ptr(), nullptr);
  EXPECT_EQ(t->nbytes(), 24u);
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
  auto l = empty({4, 5}, ScalarType::Long, TensorShapeDynamism::STATIC);
  EXPECT_EQ(l->scalar_type(), ScalarType::Long);
  EXPECT_EQ(l->nbytes(), 160u);
  EXPECT_EQ(l->shape_dynamism(), TensorShapeDynamism::STATIC);
  // The data is owned and writable.
  l->mutable_data_ptr<int64_t>()[19] = 7;
  EXPECT_EQ(l->const_data_ptr<int64_t>()[19], 7);

  auto s = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(dim_order_of(s), (std::vector<DimOrderType>{1, 0}));
  EXPECT_EQ(strides_of(s), (std::vector<StridesType>{1, 2}));
  auto doc = empty_strided({2, 3}, {3, 1});
  EXPECT_EQ(strides_of(doc), (std::vector<StridesType>{3, 1}));

  auto like = empty_like(s);
  EXPECT_EQ(sizes_of(like), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(strides_of(like), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(like->scalar_type(), ScalarType::Float);
  EXPECT_NE(like->const_data_ptr(), s->const_data_ptr());
  auto like_int = empty_like(s, ScalarType::Int);
  EXPECT_EQ(like_int->scalar_type(), ScalarType::Int);
}

// --- full / zeros / ones / scalar_tensor -------------------------------------------------------------------

TEST_F(TensorPtrMakerTest, FullInEveryDtype) {
  auto f = full({2, 3}, 42.0f);  // the documentation's call
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(values_of<float>(f), std::vector<float>(6, 42.0f));
  EXPECT_EQ(values_of<float>(full({4, 5}, 7)), std::vector<float>(20, 7.0f));
  EXPECT_EQ(values_of<int32_t>(full({4}, 3, ScalarType::Int)), std::vector<int32_t>(4, 3));
  EXPECT_EQ(values_of<int64_t>(full({4}, int64_t{1} << 40, ScalarType::Long)),
            std::vector<int64_t>(4, int64_t{1} << 40));
  EXPECT_EQ(values_of<double>(full({4}, 11, ScalarType::Double)), std::vector<double>(4, 11.0));
  EXPECT_EQ(values_of<double>(full({2}, 0.1, ScalarType::Double)), std::vector<double>(2, 0.1));
  EXPECT_EQ(values_of<int8_t>(full({3}, -128, ScalarType::Char)), std::vector<int8_t>(3, -128));
  EXPECT_EQ(values_of<uint8_t>(full({3}, 255, ScalarType::Byte)), std::vector<uint8_t>(3, 255));
  EXPECT_EQ(values_of<int16_t>(full({3}, -300, ScalarType::Short)), std::vector<int16_t>(3, -300));
  EXPECT_EQ(values_of<uint16_t>(full({3}, 65535, ScalarType::UInt16)), std::vector<uint16_t>(3, 65535));
  EXPECT_EQ(values_of<uint32_t>(full({3}, 4000000000LL, ScalarType::UInt32)), std::vector<uint32_t>(3, 4000000000u));
  EXPECT_EQ(values_of<uint64_t>(full({1}, int64_t{1} << 62, ScalarType::UInt64)),
            std::vector<uint64_t>(1, uint64_t{1} << 62));
  auto h = full({4, 5}, 13, ScalarType::Half);
  EXPECT_EQ(h->scalar_type(), ScalarType::Half);
  EXPECT_EQ(h->nbytes(), 40u);
  EXPECT_EQ(static_cast<float>(h->const_data_ptr<Half>()[19]), 13.0f);
  EXPECT_EQ(static_cast<float>(full({1}, 2.5, ScalarType::Half)->const_data_ptr<Half>()[0]), 2.5f);
  auto b = full({4, 5}, 15, ScalarType::BFloat16);
  EXPECT_EQ(static_cast<float>(b->const_data_ptr<BFloat16>()[0]), 15.0f);
  auto yes = full({2}, true, ScalarType::Bool);
  EXPECT_EQ(values_of<bool>(yes), (std::vector<bool>{true, true}));
  auto from_int = full({2}, 0, ScalarType::Bool);
  EXPECT_EQ(values_of<bool>(from_int), (std::vector<bool>{false, false}));
  // Infinity and NaN are accepted for floating dtypes.
  EXPECT_TRUE(std::isinf(full({1}, std::numeric_limits<double>::infinity())->const_data_ptr<float>()[0]));
  EXPECT_TRUE(std::isnan(static_cast<float>(full({1}, std::nan(""), ScalarType::Half)->const_data_ptr<Half>()[0])));
  // Dynamism and strides.
  EXPECT_EQ(full({2}, 1, ScalarType::Float, TensorShapeDynamism::STATIC)->shape_dynamism(),
            TensorShapeDynamism::STATIC);
  auto fs = full_strided({2, 3}, {1, 2}, 5, ScalarType::Int);
  EXPECT_EQ(strides_of(fs), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(values_of<int32_t>(fs), std::vector<int32_t>(6, 5));
}

TEST_F(TensorPtrMakerTest, FullRejectsValuesThatDoNotFit) {
  EXPECT_DEATH((void)full({2}, 1.5, ScalarType::Int),
               "fill value does not fit dtype Int");             // floating value, integer dtype
  EXPECT_DEATH((void)full({2}, true, ScalarType::Long), "");     // bool value, integer dtype
  EXPECT_DEATH((void)full({2}, 300, ScalarType::Byte), "");      // out of range
  EXPECT_DEATH((void)full({2}, -1, ScalarType::UInt16), "");     // out of range
  EXPECT_DEATH((void)full({2}, 70000.0, ScalarType::Half), "");  // beyond Half's range
  EXPECT_DEATH((void)full({2}, 1e39, ScalarType::Float), "");    // beyond float's range
  EXPECT_DEATH((void)full({2}, true, ScalarType::Float), "");    // bool value, floating dtype
  EXPECT_DEATH((void)full({2}, 0.5, ScalarType::Bool), "");      // floating value, Bool
}

TEST_F(TensorPtrMakerTest, FullLike) {
  auto src = make_tensor_ptr({2, 3}, std::vector<int64_t>(6, 0), {1, 0}, {});
  auto f = full_like(src, 9);
  EXPECT_EQ(f->scalar_type(), ScalarType::Long);
  EXPECT_EQ(sizes_of(f), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(strides_of(f), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(values_of<int64_t>(f), std::vector<int64_t>(6, 9));
  auto g = full_like(src, 0.25, ScalarType::Double, TensorShapeDynamism::STATIC);
  EXPECT_EQ(values_of<double>(g), std::vector<double>(6, 0.25));
  EXPECT_EQ(g->shape_dynamism(), TensorShapeDynamism::STATIC);
}

TEST_F(TensorPtrMakerTest, ZerosAndOnes) {
  EXPECT_EQ(values_of<float>(zeros({2, 3})), std::vector<float>(6, 0.0f));
  EXPECT_EQ(values_of<float>(ones({3, 4})), std::vector<float>(12, 1.0f));
  EXPECT_EQ(values_of<int32_t>(ones({4}, ScalarType::Int)), std::vector<int32_t>(4, 1));
  EXPECT_EQ(values_of<int64_t>(zeros({4}, ScalarType::Long)), std::vector<int64_t>(4, 0));
  EXPECT_EQ(values_of<bool>(ones({2}, ScalarType::Bool)), (std::vector<bool>{true, true}));
  EXPECT_EQ(static_cast<float>(ones({1}, ScalarType::BFloat16)->const_data_ptr<BFloat16>()[0]), 1.0f);
  EXPECT_EQ(ones({2, 2}, ScalarType::Float, TensorShapeDynamism::STATIC)->shape_dynamism(),
            TensorShapeDynamism::STATIC);
  auto src = make_tensor_ptr({2, 2}, std::vector<double>{5, 6, 7, 8});
  auto o = ones_like(src);
  EXPECT_EQ(o->scalar_type(), ScalarType::Double);
  EXPECT_EQ(values_of<double>(o), std::vector<double>(4, 1.0));
  auto z = zeros_like(src, ScalarType::Int);
  EXPECT_EQ(z->scalar_type(), ScalarType::Int);
  EXPECT_EQ(values_of<int32_t>(z), std::vector<int32_t>(4, 0));
  // The documentation's table also names the strided forms.
  auto zs = zeros_strided({2, 3}, {1, 2});
  EXPECT_EQ(strides_of(zs), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(values_of<float>(zs), std::vector<float>(6, 0.0f));
  auto os = ones_strided({2, 3}, {3, 1}, ScalarType::Short);
  EXPECT_EQ(values_of<int16_t>(os), std::vector<int16_t>(6, 1));
}

TEST_F(TensorPtrMakerTest, ScalarTensor) {
  auto f = scalar_tensor(3.14f);  // the documentation's call
  EXPECT_EQ(f->dim(), 0);
  EXPECT_EQ(f->numel(), 1);
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(f->const_data_ptr<float>()[0], 3.14f);
  auto i = scalar_tensor(5, ScalarType::Int);
  EXPECT_EQ(i->const_data_ptr<int32_t>()[0], 5);
  auto d = scalar_tensor(7.0, ScalarType::Double);
  EXPECT_EQ(d->const_data_ptr<double>()[0], 7.0);
  auto b = scalar_tensor(true, ScalarType::Bool);
  EXPECT_TRUE(b->const_data_ptr<bool>()[0]);
}

// --- Random makers -----------------------------------------------------------------------------------------

TEST_F(TensorPtrMakerTest, RandIsUniformInZeroOne) {
  auto t = rand({100, 100});
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{100, 100}));
  double sum = 0;
  std::set<float> distinct;
  for (float v : values_of<float>(t)) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
    distinct.insert(v);
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);  // mean 0.5, standard error ~0.003
  EXPECT_GT(distinct.size(), 9000u);
  // Two draws differ.
  EXPECT_NE(values_of<float>(rand({16})), values_of<float>(rand({16})));

  for (double v : values_of<double>(rand({1000}, ScalarType::Double))) {
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
  for (const Half& v : values_of<Half>(rand({4000}, ScalarType::Half))) {
    ASSERT_GE(static_cast<float>(v), 0.0f);
    ASSERT_LT(static_cast<float>(v), 1.0f);
  }
  for (const BFloat16& v : values_of<BFloat16>(rand({4000}, ScalarType::BFloat16))) {
    ASSERT_GE(static_cast<float>(v), 0.0f);
    ASSERT_LT(static_cast<float>(v), 1.0f);
  }
  // Converted to an integer dtype, [0, 1) is 0.
  EXPECT_EQ(values_of<int32_t>(rand({20}, ScalarType::Int)), std::vector<int32_t>(20, 0));

  auto src = make_tensor_ptr({2, 3}, std::vector<double>(6, 0.0), {1, 0}, {});
  auto like = rand_like(src);
  EXPECT_EQ(like->scalar_type(), ScalarType::Double);
  EXPECT_EQ(strides_of(like), (std::vector<StridesType>{1, 2}));
  auto strided = rand_strided({2, 3}, {1, 2}, ScalarType::Float, TensorShapeDynamism::STATIC);
  EXPECT_EQ(strides_of(strided), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(strided->shape_dynamism(), TensorShapeDynamism::STATIC);
}

TEST_F(TensorPtrMakerTest, RandnIsStandardNormal) {
  auto t = randn({100, 100});
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  double sum = 0, sq = 0;
  size_t beyond_one = 0;
  for (float v : values_of<float>(t)) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += static_cast<double>(v) * v;
    beyond_one += std::fabs(v) > 1.0f;
  }
  const double mean = sum / 10000, var = sq / 10000 - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.08);
  EXPECT_NEAR(beyond_one / 10000.0, 0.3173, 0.03);  // P(|Z| > 1)

  auto d = randn({1000}, ScalarType::Double);
  EXPECT_EQ(d->scalar_type(), ScalarType::Double);
  auto like = randn_like(d, ScalarType::Half);
  EXPECT_EQ(like->scalar_type(), ScalarType::Half);
  EXPECT_EQ(sizes_of(like), (std::vector<SizesType>{1000}));
  auto strided = randn_strided({3, 2}, {1, 3});
  EXPECT_EQ(strides_of(strided), (std::vector<StridesType>{1, 3}));
}

TEST_F(TensorPtrMakerTest, RandintIsInTheHalfOpenRange) {
  auto t = randint(0, 10, {2, 3});  // the documentation's call
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
  for (int32_t v : values_of<int32_t>(t)) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10);
  }
  auto big = randint(10, 20, {5000}, ScalarType::Long);
  EXPECT_EQ(big->scalar_type(), ScalarType::Long);
  std::set<int64_t> seen;
  for (int64_t v : values_of<int64_t>(big)) {
    ASSERT_GE(v, 10);
    ASSERT_LT(v, 20);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);  // every value of [10, 20) turns up in 5000 draws
  auto neg = randint(-3, -1, {200}, ScalarType::Char);
  for (int8_t v : values_of<int8_t>(neg)) {
    ASSERT_TRUE(v == -3 || v == -2);
  }
  auto f = randint(0, 4, {100}, ScalarType::Float);
  for (float v : values_of<float>(f)) ASSERT_EQ(v, std::floor(v));
  auto src = make_tensor_ptr({2, 2}, std::vector<int64_t>(4, 0));
  auto like = randint_like(src, 5, 6);
  EXPECT_EQ(like->scalar_type(), ScalarType::Long);
  EXPECT_EQ(values_of<int64_t>(like), std::vector<int64_t>(4, 5));
  auto strided = randint_strided(1, 2, {2, 3}, {1, 2}, ScalarType::Short);
  EXPECT_EQ(strides_of(strided), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(values_of<int16_t>(strided), std::vector<int16_t>(6, 1));
}

}  // namespace
