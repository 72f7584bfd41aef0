// executorch/extension/tensor/tensor_ptr.h as upstream ExecuTorch's header and documentation (extension-tensor.md)
// describe it: every make_tensor_ptr form, views, clones with conversions, resizing, devices, and a TensorPtr fed
// through Module into a real program.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace executorch::extension;
using executorch::aten::BFloat16;
using executorch::aten::DimOrderType;
using executorch::aten::Half;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::etensor::Device;
using executorch::runtime::etensor::DeviceType;

using api_test::dim_order_of;
using api_test::sizes_of;
using api_test::strides_of;
using api_test::values_of;

namespace {

class TensorPtrTest : public api_test::RuntimeTest {};

// --- Non-owning tensors over caller's data -----------------------------------------------------------------

TEST_F(TensorPtrTest, WrapsCallerDataWithContiguousDefaults) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  auto t = make_tensor_ptr({2, 3}, data);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dim(), 2);
  EXPECT_EQ(t->numel(), 6);
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{3, 1}));
  EXPECT_EQ(dim_order_of(t), (std::vector<DimOrderType>{0, 1}));
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t->device_type(), DeviceType::CPU);
  EXPECT_EQ(t->const_data_ptr<float>(), data);
  // Not a copy: writes go both ways.
  t->mutable_data_ptr<float>()[0] = 10;
  EXPECT_EQ(data[0], 10);
  data[5] = 60;
  EXPECT_EQ(t->const_data_ptr<float>()[5], 60);
}

TEST_F(TensorPtrTest, ThreeDimensionalDefaultStrides) {
  float data[24] = {};
  auto t = make_tensor_ptr({2, 3, 4}, data);
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{12, 4, 1}));
  EXPECT_EQ(t->nbytes(), 24 * sizeof(float));
}

TEST_F(TensorPtrTest, ScalarAndEmptyShapes) {
  float x = 3.5f;
  auto s = make_tensor_ptr({}, &x);
  EXPECT_EQ(s->dim(), 0);
  EXPECT_EQ(s->numel(), 1);
  EXPECT_TRUE(s->sizes().empty() && s->strides().empty());
  EXPECT_EQ(s->const_data_ptr<float>()[0], 3.5f);
  // A rank-0 tensor cannot change shape, so it is STATIC whatever was asked.
  EXPECT_EQ(s->shape_dynamism(), TensorShapeDynamism::STATIC);

  float data[5] = {};
  auto z = make_tensor_ptr({0, 5}, data);
  EXPECT_EQ(z->dim(), 2);
  EXPECT_EQ(z->numel(), 0);
  // A size-0 dimension counts as 1 for the strides.
  EXPECT_EQ(strides_of(z), (std::vector<StridesType>{5, 1}));
}

TEST_F(TensorPtrTest, NullDataIsAllowed) {
  auto t = make_tensor_ptr({2, 2}, nullptr);
  EXPECT_EQ(t->const_data_ptr(), nullptr);
  EXPECT_EQ(t->numel(), 4);
}

TEST_F(TensorPtrTest, TypeAndDynamismArguments) {
  int32_t ints[4] = {1, 2, 3, 4};
  auto t = make_tensor_ptr({4}, ints, ScalarType::Int);
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
  EXPECT_EQ(t->const_data_ptr<int32_t>()[3], 4);
  // 1.5 order: type, device, dynamism.
  auto s = make_tensor_ptr({2, 2}, ints, ScalarType::Int, Device(DeviceType::CPU), TensorShapeDynamism::STATIC);
  EXPECT_EQ(s->shape_dynamism(), TensorShapeDynamism::STATIC);
  // 1.4 order (and the documentation's): type, dynamism.
  auto u = make_tensor_ptr({2, 2}, ints, ScalarType::Int, TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(u->shape_dynamism(), TensorShapeDynamism::DYNAMIC_UNBOUND);
  auto v = make_tensor_ptr({2, 2}, ints, {}, {}, ScalarType::Int, TensorShapeDynamism::STATIC);
  EXPECT_EQ(v->shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_EQ(v->scalar_type(), ScalarType::Int);
  // Two empty braces are the dim order and the strides, not a dtype and a dynamism.
  auto w = make_tensor_ptr({2, 2}, ints, {}, {});
  EXPECT_EQ(w->scalar_type(), ScalarType::Float);
  EXPECT_EQ(w->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
}

TEST_F(TensorPtrTest, DeviceIsRecordedNotCopied) {
  float data[4] = {};
  auto t = make_tensor_ptr({4}, data, ScalarType::Float, Device(DeviceType::CUDA, 1));
  EXPECT_EQ(t->device_type(), DeviceType::CUDA);
  EXPECT_EQ(t->device_index(), 1);
  EXPECT_EQ(t->const_data_ptr(), data);
  auto u = make_tensor_ptr({2, 2}, data, {1, 0}, {}, ScalarType::Float, Device(DeviceType::CUDA),
                           TensorShapeDynamism::STATIC);
  EXPECT_EQ(u->device_type(), DeviceType::CUDA);
  EXPECT_EQ(u->device_index(), 0);
  EXPECT_EQ(u->shape_dynamism(), TensorShapeDynamism::STATIC);
}

// --- Deleters ------------------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, DeleterRunsOnceWithTheDataWhenTheLastReferenceGoes) {
  int calls = 0;
  void* seen = nullptr;
  float* data = new float[6]();
  auto t = make_tensor_ptr({2, 3}, data, {}, {}, ScalarType::Float, Device(DeviceType::CPU),
                           TensorShapeDynamism::DYNAMIC_BOUND, [&](void* p) {
                             ++calls;
                             seen = p;
                             delete[] static_cast<float*>(p);
                           });
  TensorPtr copy = t;
  EXPECT_EQ(t.use_count(), 2);
  t.reset();
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(copy->const_data_ptr<float>()[0], 0.0f);
  copy.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, data);
}

TEST_F(TensorPtrTest, DocumentedDeleterForm) {
  int calls = 0;
  {
    auto* data = new double[6]{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
    auto tensor =
        make_tensor_ptr({2, 3}, data, ScalarType::Double, TensorShapeDynamism::DYNAMIC_BOUND, [&calls](void* ptr) {
          ++calls;
          delete[] static_cast<double*>(ptr);
        });
    EXPECT_EQ(tensor->scalar_type(), ScalarType::Double);
    EXPECT_EQ(tensor->const_data_ptr<double>()[5], 6.0);
  }
  EXPECT_EQ(calls, 1);
}

TEST_F(TensorPtrTest, DeleterReleasesWhatItCaptured) {
  auto shared = std::make_shared<std::vector<float>>(20, 1.0f);
  int calls = 0;
  auto t = make_tensor_ptr({4, 5}, shared->data(), {}, {}, ScalarType::Float, TensorShapeDynamism::DYNAMIC_BOUND,
                           [shared, &calls](void*) { ++calls; });
  EXPECT_EQ(shared.use_count(), 2);
  t.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(shared.use_count(), 1);
}

TEST_F(TensorPtrTest, NoDeleterMeansNothingIsFreed) {
  std::vector<float> data(4, 2.0f);
  {
    auto t = make_tensor_ptr({4}, data.data());
  }
  EXPECT_EQ(data[3], 2.0f);
}

// --- Owning tensors ----------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, OwnsAMovedVector) {
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  const float* buffer = values.data();
  auto t = make_tensor_ptr({2, 3}, std::move(values));
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(t->const_data_ptr<float>(), buffer);  // moved, not copied
  EXPECT_EQ(values_of<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{3, 1}));
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
}

TEST_F(TensorPtrTest, CopiesAnLvalueVector) {
  std::vector<int32_t> values = {1, 2, 3, 4};
  auto t = make_tensor_ptr({2, 2}, values);
  EXPECT_NE(t->const_data_ptr<int32_t>(), values.data());
  values[0] = 100;
  EXPECT_EQ(t->const_data_ptr<int32_t>()[0], 1);
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
}

TEST_F(TensorPtrTest, DeducesEveryDtype) {
  EXPECT_EQ(make_tensor_ptr(std::vector<uint8_t>{1, 2})->scalar_type(), ScalarType::Byte);
  EXPECT_EQ(make_tensor_ptr(std::vector<int8_t>{1, 2})->scalar_type(), ScalarType::Char);
  EXPECT_EQ(make_tensor_ptr(std::vector<int16_t>{1, 2})->scalar_type(), ScalarType::Short);
  EXPECT_EQ(make_tensor_ptr(std::vector<int32_t>{1, 2})->scalar_type(), ScalarType::Int);
  EXPECT_EQ(make_tensor_ptr(std::vector<int64_t>{1, 2})->scalar_type(), ScalarType::Long);
  EXPECT_EQ(make_tensor_ptr(std::vector<float>{1, 2})->scalar_type(), ScalarType::Float);
  EXPECT_EQ(make_tensor_ptr(std::vector<double>{1, 2})->scalar_type(), ScalarType::Double);
  EXPECT_EQ(make_tensor_ptr(std::vector<uint16_t>{1, 2})->scalar_type(), ScalarType::UInt16);
  EXPECT_EQ(make_tensor_ptr(std::vector<uint32_t>{1, 2})->scalar_type(), ScalarType::UInt32);
  EXPECT_EQ(make_tensor_ptr(std::vector<uint64_t>{1, 2})->scalar_type(), ScalarType::UInt64);
  auto h = make_tensor_ptr(std::vector<Half>{Half(1.5f), Half(-2.0f)});
  EXPECT_EQ(h->scalar_type(), ScalarType::Half);
  EXPECT_EQ(static_cast<float>(h->const_data_ptr<Half>()[1]), -2.0f);
  auto b = make_tensor_ptr(std::vector<BFloat16>{BFloat16(0.5f)});
  EXPECT_EQ(b->scalar_type(), ScalarType::BFloat16);
  EXPECT_EQ(static_cast<float>(b->const_data_ptr<BFloat16>()[0]), 0.5f);
  // std::vector<bool> is packed; the tensor still gets one bool per byte.
  auto flags = make_tensor_ptr({3}, std::vector<bool>{true, false, true});
  EXPECT_EQ(flags->scalar_type(), ScalarType::Bool);
  EXPECT_EQ(values_of<bool>(flags), (std::vector<bool>{true, false, true}));
}

TEST_F(TensorPtrTest, OneDimensionalFormsHaveUnitStride) {
  auto t = make_tensor_ptr(std::vector<int64_t>{100, 200, 300, 400});
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{4}));
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{1}));
  EXPECT_EQ(t->scalar_type(), ScalarType::Long);
  EXPECT_EQ(values_of<int64_t>(t), (std::vector<int64_t>{100, 200, 300, 400}));
  auto l = make_tensor_ptr({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(sizes_of(l), (std::vector<SizesType>{3}));
  EXPECT_EQ(values_of<float>(l), (std::vector<float>{1, 2, 3}));
}

TEST_F(TensorPtrTest, EmptyOwnedData) {
  auto t = make_tensor_ptr({0, 5}, std::vector<float>());
  EXPECT_EQ(t->numel(), 0);
  EXPECT_EQ(t->const_data_ptr(), nullptr);
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{5, 1}));
}

TEST_F(TensorPtrTest, InitializerListsWithSizesDimOrderAndStrides) {
  auto t = make_tensor_ptr({2, 3}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(values_of<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto cl = make_tensor_ptr({2, 5}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f}, {1, 0}, {1, 2});
  EXPECT_EQ(dim_order_of(cl), (std::vector<DimOrderType>{1, 0}));
  EXPECT_EQ(strides_of(cl), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(cl->const_data_ptr<float>()[9], 10.0f);
  auto s = make_tensor_ptr({}, {3.25f});
  EXPECT_EQ(s->dim(), 0);
  EXPECT_EQ(s->const_data_ptr<float>()[0], 3.25f);
}

TEST_F(TensorPtrTest, SingleValues) {
  auto f = make_tensor_ptr(3.14f);
  EXPECT_EQ(f->dim(), 0);
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(f->const_data_ptr<float>()[0], 3.14f);
  auto d = make_tensor_ptr(3.14);
  EXPECT_EQ(d->scalar_type(), ScalarType::Double);
  EXPECT_EQ(d->const_data_ptr<double>()[0], 3.14);
  auto i = make_tensor_ptr(42);
  EXPECT_EQ(i->scalar_type(), ScalarType::Int);
  EXPECT_EQ(i->const_data_ptr<int32_t>()[0], 42);
  auto l = make_tensor_ptr(static_cast<int64_t>(10000000000));
  EXPECT_EQ(l->scalar_type(), ScalarType::Long);
  EXPECT_EQ(l->const_data_ptr<int64_t>()[0], 10000000000);
  auto b = make_tensor_ptr(true);
  EXPECT_EQ(b->scalar_type(), ScalarType::Bool);
  EXPECT_TRUE(b->const_data_ptr<bool>()[0]);
  // The documentation's make_tensor_ptr(42, ScalarType::Float).
  auto c = make_tensor_ptr(42, ScalarType::Float);
  EXPECT_EQ(c->dim(), 0);
  EXPECT_EQ(c->scalar_type(), ScalarType::Float);
  EXPECT_EQ(c->const_data_ptr<float>()[0], 42.0f);
}

// --- Conversions -------------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, ConvertsToTheRequestedDtype) {
  auto f = make_tensor_ptr({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {}, {}, ScalarType::Float);
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(f->nbytes(), 6 * sizeof(float));
  EXPECT_EQ(values_of<float>(f), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  auto d = make_tensor_ptr({1, 2, 3, 4, 5, 6}, ScalarType::Double);  // the documentation's example
  EXPECT_EQ(d->scalar_type(), ScalarType::Double);
  EXPECT_EQ(sizes_of(d), (std::vector<SizesType>{6}));
  EXPECT_EQ(values_of<double>(d), (std::vector<double>{1, 2, 3, 4, 5, 6}));

  auto fd = make_tensor_ptr(std::vector<double>{1.1, 2.2, -3.3}, ScalarType::Float);
  EXPECT_EQ(values_of<float>(fd), (std::vector<float>{1.1f, 2.2f, -3.3f}));

  auto narrowed = make_tensor_ptr(std::vector<int64_t>{10000000000, -1, 7}, ScalarType::Int);
  EXPECT_EQ(values_of<int32_t>(narrowed),
            (std::vector<int32_t>{static_cast<int32_t>(10000000000LL), -1, 7}));  // wraps as static_cast

  auto wide = make_tensor_ptr<int8_t>({1, -2, 3, -4}, ScalarType::Long);
  EXPECT_EQ(values_of<int64_t>(wide), (std::vector<int64_t>{1, -2, 3, -4}));

  auto u16 = make_tensor_ptr(std::vector<int32_t>{-1, 65535, 65536}, ScalarType::UInt16);
  EXPECT_EQ(values_of<uint16_t>(u16), (std::vector<uint16_t>{65535, 65535, 0}));

  // Floating -> unsigned is allowed (upstream's canCast only refuses the signed integral types).
  auto u32 = make_tensor_ptr(std::vector<float>{1.0f, 2.0f, 4e9f}, ScalarType::UInt32);
  EXPECT_EQ(values_of<uint32_t>(u32), (std::vector<uint32_t>{1, 2, 4000000000u}));

  auto fromu32 = make_tensor_ptr(std::vector<uint32_t>{0, 123, 4000000000u}, ScalarType::Float);
  EXPECT_EQ(values_of<float>(fromu32), (std::vector<float>{0.0f, 123.0f, 4e9f}));

  auto fromb = make_tensor_ptr(std::vector<bool>{true, false}, ScalarType::Float);
  EXPECT_EQ(values_of<float>(fromb), (std::vector<float>{1.0f, 0.0f}));
}

TEST_F(TensorPtrTest, HalfAndBFloat16ConversionsAreExactForRepresentableValues) {
  auto h = make_tensor_ptr(std::vector<float>{1.0f, -2.5f, 0.099975586f, 65504.0f, 0.0f}, ScalarType::Half);
  ASSERT_EQ(h->scalar_type(), ScalarType::Half);
  EXPECT_EQ(h->nbytes(), 10u);
  const Half* hp = h->const_data_ptr<Half>();
  EXPECT_EQ(static_cast<float>(hp[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(hp[1]), -2.5f);
  EXPECT_EQ(static_cast<float>(hp[2]), 0.099975586f);  // 0x2E66
  EXPECT_EQ(static_cast<float>(hp[3]), 65504.0f);
  EXPECT_EQ(hp[0].x, 0x3C00);
  EXPECT_EQ(hp[1].x, 0xC100);

  auto hd = make_tensor_ptr<double>({1.5, 2.75, -0.5}, ScalarType::Half);
  EXPECT_EQ(static_cast<float>(hd->const_data_ptr<Half>()[1]), 2.75f);

  auto b = make_tensor_ptr(std::vector<float>{1.0f, 2.0f, 3.0f, -0.15625f}, ScalarType::BFloat16);
  const BFloat16* bp = b->const_data_ptr<BFloat16>();
  EXPECT_EQ(bp[0].x, 0x3F80);
  EXPECT_EQ(static_cast<float>(bp[2]), 3.0f);
  EXPECT_EQ(static_cast<float>(bp[3]), -0.15625f);

  // From Half to wider types.
  auto back = make_tensor_ptr(std::vector<Half>{Half(0.5f), Half(-8.0f)}, ScalarType::Double);
  EXPECT_EQ(values_of<double>(back), (std::vector<double>{0.5, -8.0}));
  auto hb = make_tensor_ptr(std::vector<Half>{Half(0.75f)}, ScalarType::BFloat16);
  EXPECT_EQ(static_cast<float>(hb->const_data_ptr<BFloat16>()[0]), 0.75f);
}

TEST_F(TensorPtrTest, DisallowedConversionsAbort) {
  EXPECT_DEATH((void)make_tensor_ptr(std::vector<float>{1.0f, 2.0f}, ScalarType::Int), "cannot convert");
  EXPECT_DEATH((void)make_tensor_ptr(std::vector<double>{1.0}, ScalarType::Long), "");
  EXPECT_DEATH((void)make_tensor_ptr(std::vector<int32_t>{1, 0}, ScalarType::Bool), "cannot convert");
  EXPECT_DEATH((void)make_tensor_ptr(std::vector<Half>{Half(1.0f)}, ScalarType::Char), "");
}

// --- Raw bytes ---------------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, RawBytesAreReadAsTheDtype) {
  std::vector<int32_t> ints = {-1, 2, -3, 4, 5, 6};
  std::vector<uint8_t> bytes(ints.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), ints.data(), bytes.size());
  auto t = make_tensor_ptr({2, 3}, std::move(bytes), ScalarType::Int);
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
  EXPECT_EQ(values_of<int32_t>(t), ints);

  // Without a dtype the bytes are floats (a std::vector<uint8_t> with sizes is raw data, not Byte values).
  std::vector<float> floats = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<uint8_t> fbytes(16);
  std::memcpy(fbytes.data(), floats.data(), 16);
  auto f = make_tensor_ptr({2, 2}, std::move(fbytes));
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(values_of<float>(f), floats);

  std::vector<uint8_t> cl(6 * 2);
  auto c = make_tensor_ptr({2, 3}, std::move(cl), {1, 0}, {}, ScalarType::Short, TensorShapeDynamism::STATIC);
  EXPECT_EQ(strides_of(c), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(c->shape_dynamism(), TensorShapeDynamism::STATIC);

  // Without sizes, a std::vector<uint8_t> is a 1-D Byte tensor.
  auto b = make_tensor_ptr(std::vector<uint8_t>{10, 20, 30});
  EXPECT_EQ(b->scalar_type(), ScalarType::Byte);
  EXPECT_EQ(values_of<uint8_t>(b), (std::vector<uint8_t>{10, 20, 30}));
}

TEST_F(TensorPtrTest, BracedValuesWithSizesAndDtype) {
  // The documentation's resize example makes its tensor this way.
  auto t = make_tensor_ptr({2, 3}, {1, 2, 3, 4, 5, 6}, ScalarType::Int, TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
  EXPECT_EQ(values_of<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  auto d = make_tensor_ptr({2}, {1, 2}, ScalarType::Double);
  EXPECT_EQ(values_of<double>(d), (std::vector<double>{1.0, 2.0}));
  auto h = make_tensor_ptr({2}, {0.5f, 1.5f}, ScalarType::Half);
  EXPECT_EQ(static_cast<float>(h->const_data_ptr<Half>()[1]), 1.5f);
  // A braced list with exactly the tensor's byte count stays raw bytes, as upstream reads it.
  auto raw = make_tensor_ptr({1}, {0x00, 0x00, 0x80, 0x3f}, ScalarType::Float);
  EXPECT_EQ(raw->const_data_ptr<float>()[0], 1.0f);
}

TEST_F(TensorPtrTest, SizeMismatchesAbort) {
  EXPECT_DEATH((void)make_tensor_ptr({2, 5}, std::vector<float>(9, 1.0f)), "9 values for a tensor of 10");
  EXPECT_DEATH((void)make_tensor_ptr({2, 5}, std::vector<float>(11, 1.0f)), "");
  EXPECT_DEATH((void)make_tensor_ptr({2, 5}, std::vector<int32_t>(9, 1), {}, {}, ScalarType::Float), "");
  EXPECT_DEATH((void)make_tensor_ptr({2, 2}, std::vector<uint8_t>(15)), "15 bytes of data for a tensor of 16");
  EXPECT_DEATH((void)make_tensor_ptr({2, 2}, std::vector<uint8_t>(17)), "");
  EXPECT_DEATH((void)make_tensor_ptr({3}, std::vector<uint8_t>(11), ScalarType::UInt32), "");
  float data[4] = {};
  EXPECT_DEATH((void)make_tensor_ptr({-1, 4}, data), "negative size");
}

// --- Dim order and strides ---------------------------------------------------------------------------------

TEST_F(TensorPtrTest, DimOrderAndStrides) {
  float data[12] = {};
  auto given = make_tensor_ptr({4, 3}, data, {0, 1}, {3, 1});
  EXPECT_EQ(strides_of(given), (std::vector<StridesType>{3, 1}));
  auto cl = make_tensor_ptr({3, 4}, data, {1, 0}, {1, 3});
  EXPECT_EQ(dim_order_of(cl), (std::vector<DimOrderType>{1, 0}));
  EXPECT_EQ(strides_of(cl), (std::vector<StridesType>{1, 3}));
  // Strides alone imply the dim order.
  auto inferred = make_tensor_ptr({3, 4}, data, {}, {1, 3});
  EXPECT_EQ(dim_order_of(inferred), (std::vector<DimOrderType>{1, 0}));
  EXPECT_EQ(strides_of(inferred), (std::vector<StridesType>{1, 3}));
  // A dim order alone gives its strides: channels-last NCHW.
  auto nhwc = make_tensor_ptr({2, 3, 4, 5}, nullptr, {0, 2, 3, 1}, {});
  EXPECT_EQ(strides_of(nhwc), (std::vector<StridesType>{60, 1, 15, 3}));
  // A size-1 dimension may carry any stride; the stored one is the computed one.
  auto ones = make_tensor_ptr({1, 2, 2}, data, {}, {10, 2, 1});
  EXPECT_EQ(strides_of(ones), (std::vector<StridesType>{4, 2, 1}));
}

TEST_F(TensorPtrTest, BadDimOrderOrStridesAbort) {
  float data[20] = {};
  EXPECT_DEATH((void)make_tensor_ptr({3, 4}, data, {1, 0}, {1, 4}),
               "stride 4 of dimension 1");                                             // strides do not match the order
  EXPECT_DEATH((void)make_tensor_ptr({4, 5}, data, {2, 1}, {}), "not a permutation");  // not a permutation
  EXPECT_DEATH((void)make_tensor_ptr({4, 5}, data, {0, 0}, {}), "");
  EXPECT_DEATH((void)make_tensor_ptr({3, 4}, data, {}, {1}), "1 strides for 2 sizes");                // wrong count
  EXPECT_DEATH((void)make_tensor_ptr({3, 4}, data, {0}, {4, 1}), "1 dim order entries for 2 sizes");  // wrong count
  EXPECT_DEATH((void)make_tensor_ptr({2, 2}, data, {}, {1, 1}), "");  // overlapping, not dense
}

// --- Sharing and views -------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, CopiesShareOneTensor) {
  auto a = make_tensor_ptr({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  auto b = a;
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a->unsafeGetTensorImpl(), b->unsafeGetTensorImpl());
  a->mutable_data_ptr<float>()[0] = 10;
  EXPECT_EQ(b->const_data_ptr<float>()[0], 10);
  ASSERT_EQ(resize_tensor_ptr(a, {3, 2}), Error::Ok);
  EXPECT_EQ(sizes_of(b), (std::vector<SizesType>{3, 2}));
}

TEST_F(TensorPtrTest, ViewOfATensorSharesDataButNotMetadata) {
  auto source = make_tensor_ptr({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor original = *source;
  auto view = make_tensor_ptr(original);
  EXPECT_NE(view->unsafeGetTensorImpl(), source->unsafeGetTensorImpl());
  EXPECT_EQ(view->const_data_ptr(), source->const_data_ptr());
  EXPECT_EQ(sizes_of(view), sizes_of(source));
  EXPECT_EQ(strides_of(view), strides_of(source));
  EXPECT_EQ(view->scalar_type(), ScalarType::Float);
  EXPECT_EQ(view->shape_dynamism(), source->shape_dynamism());
  view->mutable_data_ptr<float>()[1] = 20;
  EXPECT_EQ(source->const_data_ptr<float>()[1], 20);
  // Its own metadata: resizing the view leaves the source alone.
  ASSERT_EQ(resize_tensor_ptr(view, {3, 2}), Error::Ok);
  EXPECT_EQ(sizes_of(source), (std::vector<SizesType>{2, 3}));
}

TEST_F(TensorPtrTest, ViewOverrides) {
  float data[24] = {};
  auto t = make_tensor_ptr({2, 3}, data);
  auto up = make_tensor_ptr(t, {1, 2, 3});
  EXPECT_EQ(sizes_of(up), (std::vector<SizesType>{1, 2, 3}));
  EXPECT_EQ(strides_of(up), (std::vector<StridesType>{6, 3, 1}));
  EXPECT_EQ(up->const_data_ptr(), data);
  auto flat = make_tensor_ptr(t, {6});
  EXPECT_EQ(strides_of(flat), (std::vector<StridesType>{1}));
  auto fewer = make_tensor_ptr(t, {2, 2});  // fewer elements than the source is fine
  EXPECT_EQ(fewer->numel(), 4);
  auto transposed_order = make_tensor_ptr(t, {}, {1, 0}, {});
  EXPECT_EQ(sizes_of(transposed_order), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(strides_of(transposed_order), (std::vector<StridesType>{1, 2}));
  auto by_strides = make_tensor_ptr(t, {}, {}, {1, 2});
  EXPECT_EQ(dim_order_of(by_strides), (std::vector<DimOrderType>{1, 0}));
  auto both = make_tensor_ptr(t, {3, 2}, {1, 0}, {1, 3});
  EXPECT_EQ(strides_of(both), (std::vector<StridesType>{1, 3}));
  // Same rank, new shape: the source's dim order is kept.
  auto src3 = make_tensor_ptr({2, 3, 4}, data, {2, 0, 1}, {3, 1, 6});
  auto reshaped = make_tensor_ptr(src3, {4, 2, 3});
  EXPECT_EQ(dim_order_of(reshaped), (std::vector<DimOrderType>{2, 0, 1}));
  EXPECT_EQ(strides_of(reshaped), (std::vector<StridesType>{2, 1, 8}));
  // The source's dim order and strides are reused when the shape is the same.
  auto same = make_tensor_ptr(src3, {2, 3, 4});
  EXPECT_EQ(strides_of(same), (std::vector<StridesType>{3, 1, 6}));
}

TEST_F(TensorPtrTest, BadViewsAbort) {
  float data[12] = {};
  auto t = make_tensor_ptr({3, 4}, data);
  EXPECT_DEATH((void)make_tensor_ptr(t, {4, 4}),
               "a view of 16 elements over a tensor of 12");           // more elements than the source
  EXPECT_DEATH((void)make_tensor_ptr(t, {2, 6}, {}, {4, 1}), "");      // old strides for a new shape
  EXPECT_DEATH((void)make_tensor_ptr(t, {3, 4}, {2, 1}, {1, 4}), "");  // invalid dim order
  float x = 1.0f;
  auto s = make_tensor_ptr({}, &x);
  EXPECT_DEATH((void)make_tensor_ptr(s, {}, {0}, {}), "");
  auto one = make_tensor_ptr(s, {1});
  EXPECT_EQ(sizes_of(one), (std::vector<SizesType>{1}));
}

TEST_F(TensorPtrTest, ViewLifetimes) {
  int freed = 0;
  auto make_source = [&] {
    return make_tensor_ptr({3}, new float[3]{1, 2, 3}, {}, {}, ScalarType::Float, Device(DeviceType::CPU),
                           TensorShapeDynamism::DYNAMIC_BOUND, [&freed](void* p) {
                             ++freed;
                             delete[] static_cast<float*>(p);
                           });
  };
  // A view of a TensorPtr keeps it alive.
  auto source = make_source();
  auto view = make_tensor_ptr(source);
  source.reset();
  EXPECT_EQ(freed, 0);
  EXPECT_EQ(view->const_data_ptr<float>()[2], 3.0f);
  view.reset();
  EXPECT_EQ(freed, 1);
  // A view of a plain Tensor does not...
  source = make_source();
  auto weak = make_tensor_ptr(*source);
  source.reset();
  EXPECT_EQ(freed, 2);
  weak.reset();
  EXPECT_EQ(freed, 2);
  // ...unless its deleter holds the source.
  source = make_source();
  auto held = make_tensor_ptr(*source, {}, {}, {}, [source](void*) {});
  source.reset();
  EXPECT_EQ(freed, 2);
  EXPECT_EQ(held->const_data_ptr<float>()[0], 1.0f);
  held.reset();
  EXPECT_EQ(freed, 3);
}

// --- Clones ------------------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, CloneCopiesTheData) {
  auto t =
      make_tensor_ptr({2, 2}, std::vector<int32_t>{1, 2, 3, 4}, {}, {}, ScalarType::Int, TensorShapeDynamism::STATIC);
  auto c = clone_tensor_ptr(t);
  EXPECT_NE(c->const_data_ptr(), t->const_data_ptr());
  EXPECT_EQ(values_of<int32_t>(c), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(c->scalar_type(), ScalarType::Int);
  EXPECT_EQ(c->shape_dynamism(), TensorShapeDynamism::STATIC);
  t->mutable_data_ptr<int32_t>()[0] = 100;
  EXPECT_EQ(c->const_data_ptr<int32_t>()[0], 1);
  // From a plain Tensor too, and from non-owned data (the clone owns its copy).
  float data[4] = {1, 2, 3, 4};
  TensorPtr keep;
  {
    auto p = make_tensor_ptr({4}, data);
    keep = clone_tensor_ptr(*p);
  }
  data[0] = -1;
  EXPECT_EQ(keep->const_data_ptr<float>()[0], 1.0f);
}

TEST_F(TensorPtrTest, CloneKeepsDimOrder) {
  auto t = make_tensor_ptr({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {1, 0}, {});
  auto c = clone_tensor_ptr(t);
  EXPECT_EQ(dim_order_of(c), (std::vector<DimOrderType>{1, 0}));
  EXPECT_EQ(strides_of(c), (std::vector<StridesType>{1, 2}));
  EXPECT_EQ(values_of<float>(c), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(TensorPtrTest, CloneWithConversion) {
  auto t = make_tensor_ptr({2, 2}, std::vector<int32_t>{1, -2, 3, 4});
  auto f = clone_tensor_ptr(*t, ScalarType::Float);
  EXPECT_EQ(f->scalar_type(), ScalarType::Float);
  EXPECT_EQ(values_of<float>(f), (std::vector<float>{1, -2, 3, 4}));
  EXPECT_EQ(sizes_of(f), (std::vector<SizesType>{2, 2}));
  EXPECT_EQ(strides_of(f), (std::vector<StridesType>{2, 1}));
  auto b = clone_tensor_ptr(make_tensor_ptr({3}, std::vector<float>{1.0f, 2.0f, 3.5f}), ScalarType::BFloat16);
  EXPECT_EQ(b->scalar_type(), ScalarType::BFloat16);
  EXPECT_EQ(static_cast<float>(b->const_data_ptr<BFloat16>()[2]), 3.5f);
  auto h = clone_tensor_ptr(b, ScalarType::Half);
  EXPECT_EQ(static_cast<float>(h->const_data_ptr<Half>()[1]), 2.0f);
  auto l = clone_tensor_ptr(t, ScalarType::Long);
  EXPECT_EQ(values_of<int64_t>(l), (std::vector<int64_t>{1, -2, 3, 4}));
  auto fromb = clone_tensor_ptr(make_tensor_ptr(std::vector<bool>{true, false}), ScalarType::Int);
  EXPECT_EQ(values_of<int32_t>(fromb), (std::vector<int32_t>{1, 0}));
  EXPECT_DEATH((void)clone_tensor_ptr(*f, ScalarType::Int), "cannot convert Float values to Int");
  EXPECT_DEATH((void)clone_tensor_ptr(*t, ScalarType::Bool), "");
}

TEST_F(TensorPtrTest, CloneOfNoDataHasNoData) {
  auto t = make_tensor_ptr({2, 2}, nullptr);
  auto c = clone_tensor_ptr(t);
  EXPECT_EQ(c->const_data_ptr(), nullptr);
  EXPECT_EQ(sizes_of(c), (std::vector<SizesType>{2, 2}));
  auto i = clone_tensor_ptr(*t, ScalarType::Int);
  EXPECT_EQ(i->const_data_ptr(), nullptr);
  EXPECT_EQ(i->scalar_type(), ScalarType::Int);
}

// --- Resizing ----------------------------------------------------------------------------------------------

TEST_F(TensorPtrTest, ResizeFollowsTheDynamism) {
  auto t = make_tensor_ptr({2, 3}, {1, 2, 3, 4, 5, 6}, ScalarType::Int, TensorShapeDynamism::DYNAMIC_BOUND);
  // The documentation's sequence.
  ASSERT_EQ(resize_tensor_ptr(t, {2, 2}), Error::Ok);
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{2, 2}));
  EXPECT_EQ(t->numel(), 4);
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{2, 1}));
  ASSERT_EQ(resize_tensor_ptr(t, {1, 3}), Error::Ok);
  EXPECT_EQ(strides_of(t), (std::vector<StridesType>{3, 1}));
  ASSERT_EQ(resize_tensor_ptr(t, {3, 2}), Error::Ok);
  ASSERT_EQ(resize_tensor_ptr(t, {6, 1}), Error::Ok);
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{6, 1}));
  EXPECT_EQ(t->numel(), 6);
  // More elements than it was made with: refused, the tensor unchanged.
  EXPECT_EQ(resize_tensor_ptr(t, {4, 2}), Error::NotSupported);
  EXPECT_EQ(sizes_of(t), (std::vector<SizesType>{6, 1}));
  // The rank is fixed.
  EXPECT_EQ(resize_tensor_ptr(t, {6}), Error::NotSupported);
  EXPECT_EQ(resize_tensor_ptr(t, {1, 2, 3}), Error::NotSupported);

  auto s = make_tensor_ptr({2, 3}, std::vector<float>(6), {}, {}, ScalarType::Float, TensorShapeDynamism::STATIC);
  EXPECT_EQ(resize_tensor_ptr(s, {2, 3}), Error::Ok);
  EXPECT_EQ(resize_tensor_ptr(s, {3, 2}), Error::NotSupported);
  EXPECT_EQ(resize_tensor_ptr(s, {1, 3}), Error::NotSupported);
  EXPECT_EQ(sizes_of(s), (std::vector<SizesType>{2, 3}));

  // DYNAMIC_UNBOUND is bounded like DYNAMIC_BOUND.
  float data[20] = {};
  auto u = make_tensor_ptr({4, 5}, data, {}, {}, ScalarType::Float, TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(resize_tensor_ptr(u, {5, 4}), Error::Ok);
  EXPECT_EQ(resize_tensor_ptr(u, {5, 5}), Error::NotSupported);

  // Channels-last strides follow the new sizes.
  auto cl = make_tensor_ptr({2, 3}, std::vector<float>(6), {1, 0}, {});
  ASSERT_EQ(resize_tensor_ptr(cl, {3, 2}), Error::Ok);
  EXPECT_EQ(strides_of(cl), (std::vector<StridesType>{1, 3}));
}

// --- Devices -----------------------------------------------------------------------------------------------

// A pretend CUDA allocator over host memory, counting what it does.
class FakeCudaAllocator final : public executorch::runtime::DeviceAllocator {
 public:
  executorch::runtime::Result<void*> allocate(size_t nbytes, executorch::runtime::etensor::DeviceIndex index,
                                              size_t) override {
    ++allocations;
    last_index = index;
    return std::malloc(nbytes == 0 ? 1 : nbytes);
  }
  void deallocate(void* ptr, executorch::runtime::etensor::DeviceIndex) override {
    ++deallocations;
    std::free(ptr);
  }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                            executorch::runtime::etensor::DeviceIndex) override {
    ++to_device;
    std::memcpy(dst, src, nbytes);
    return Error::Ok;
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                            executorch::runtime::etensor::DeviceIndex) override {
    ++to_host;
    std::memcpy(dst, src, nbytes);
    return Error::Ok;
  }
  DeviceType device_type() const override { return DeviceType::CUDA; }

  int allocations = 0, deallocations = 0, to_device = 0, to_host = 0;
  int last_index = -1;
};

TEST_F(TensorPtrTest, CloneToAndFromADevice) {
  static FakeCudaAllocator fake;
  executorch::runtime::register_device_allocator(&fake);

  auto cpu_tensor = make_tensor_ptr({2, 3}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  // The documentation's calls.
  auto device_tensor = clone_tensor_ptr_to(cpu_tensor, DeviceType::CUDA);
  EXPECT_EQ(device_tensor->device_type(), DeviceType::CUDA);
  EXPECT_EQ(device_tensor->device_index(), 0);
  EXPECT_NE(device_tensor->const_data_ptr(), cpu_tensor->const_data_ptr());
  EXPECT_EQ(sizes_of(device_tensor), (std::vector<SizesType>{2, 3}));
  EXPECT_EQ(fake.allocations, 1);
  EXPECT_EQ(fake.to_device, 1);
  auto host_tensor = clone_tensor_ptr_to(device_tensor, DeviceType::CPU);
  EXPECT_EQ(host_tensor->device_type(), DeviceType::CPU);
  EXPECT_EQ(fake.to_host, 1);
  EXPECT_EQ(values_of<float>(host_tensor), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // The device copy frees its memory through the allocator, once.
  device_tensor.reset();
  EXPECT_EQ(fake.deallocations, 1);
  // A device index reaches the allocator.
  auto second = clone_tensor_ptr_to(cpu_tensor, Device(DeviceType::CUDA, 1));
  EXPECT_EQ(second->device_index(), 1);
  EXPECT_EQ(fake.last_index, 1);
  second.reset();
  EXPECT_EQ(fake.deallocations, 2);
  // CPU to CPU and device to device are refused; clone_tensor_ptr only clones CPU tensors.
  EXPECT_DEATH((void)clone_tensor_ptr_to(cpu_tensor, DeviceType::CPU), "CPU to CPU");
  auto on_device = clone_tensor_ptr_to(cpu_tensor, DeviceType::CUDA);
  EXPECT_DEATH((void)clone_tensor_ptr_to(on_device, DeviceType::CUDA), "device to device");
  EXPECT_DEATH((void)clone_tensor_ptr(on_device), "not on the CPU");
}

// --- Through EValue and Module -----------------------------------------------------------------------------

TEST_F(TensorPtrTest, EValueHoldsTheTensor) {
  auto t = make_tensor_ptr({3}, std::vector<int64_t>{7, 8, 9});
  EValue v(t);
  ASSERT_TRUE(v.isTensor());
  EXPECT_EQ(v.toTensor().numel(), 3);
  EXPECT_EQ(v.toTensor().const_data_ptr<int64_t>()[2], 9);
  EXPECT_EQ(v.toTensor().unsafeGetTensorImpl(), t->unsafeGetTensorImpl());
}

// A float32 .npy array's elements (all the fixtures' inputs and outputs here are float32).
std::vector<float> floats_of(const api_test::Npy& npy) {
  if (npy.descr != "<f4" || npy.data.size() != npy.numel() * sizeof(float)) {
    ADD_FAILURE() << "not a whole float32 array: " << npy.descr;
    return {};
  }
  return npy.values<float>();
}

::testing::AssertionResult matches(const executorch::runtime::Result<std::vector<EValue>>& result,
                                   const api_test::Npy& want) {
  if (!result.ok())
    return ::testing::AssertionFailure() << "forward failed: error " << static_cast<int>(result.error());
  if (result->size() != 1 || !result->at(0).isTensor()) return ::testing::AssertionFailure() << "not one tensor";
  const Tensor out = result->at(0).toTensor();
  if (std::vector<SizesType>(out.sizes().begin(), out.sizes().end()) != want.shape) {
    return ::testing::AssertionFailure() << "output shape differs";
  }
  const std::vector<float> values = floats_of(want);
  for (size_t i = 0; i < values.size(); ++i) {
    const float got = out.const_data_ptr<float>()[i];
    if (std::fabs(got - values[i]) > 1e-5f) {
      return ::testing::AssertionFailure() << "output " << i << ": " << got << " != " << values[i];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(TensorPtrTest, RunsAProgramThroughModule) {
  const api_test::Npy in_npy = api_test::load_npy(api_test::fixture("add_mul/forward_case0_in0.npy"));
  const api_test::Npy want = api_test::load_npy(api_test::fixture("add_mul/forward_case0_out0.npy"));
  ASSERT_EQ(in_npy.shape, (std::vector<SizesType>{2, 4}));
  ASSERT_EQ(want.shape, (std::vector<SizesType>{2, 3}));
  const std::vector<float> in = floats_of(in_npy);
  Module module(api_test::fixture("add_mul/portable.pte"));

  // Owning, from a vector.
  auto owned = make_tensor_ptr(in_npy.shape, std::vector<float>(in));
  EXPECT_TRUE(matches(module.forward(owned), want));
  // Over caller's memory.
  std::vector<float> buffer = in;
  EXPECT_TRUE(matches(module.forward(from_blob(buffer.data(), {2, 4})), want));
  EXPECT_TRUE(matches(module.forward(make_tensor_ptr({2, 4}, buffer.data())), want));
  // Converted from double values.
  auto from_double = make_tensor_ptr({2, 4}, std::vector<double>(in.begin(), in.end()), {}, {}, ScalarType::Float);
  EXPECT_TRUE(matches(module.forward(from_double), want));
  // A clone, and a [2, 4] view of a flat [8] tensor.
  EXPECT_TRUE(matches(module.forward(clone_tensor_ptr(owned)), want));
  auto flat = make_tensor_ptr(std::vector<float>(in));
  EXPECT_TRUE(matches(module.forward(make_tensor_ptr(flat, {2, 4})), want));
  // A vector of EValues, and the documentation's hand-made Tensor over a TensorImpl: the same result.
  EXPECT_TRUE(matches(module.forward(std::vector<EValue>{owned}), want));
  SizesType sizes[] = {2, 4};
  DimOrderType dim_order[] = {0, 1};
  StridesType strides[] = {4, 1};
  TensorImpl impl(ScalarType::Float, 2, sizes, buffer.data(), dim_order, strides);
  EXPECT_TRUE(matches(module.forward(Tensor(&impl)), want));
  // The other committed case through the same tensor, refilled in place.
  const std::vector<float> in1 = floats_of(api_test::load_npy(api_test::fixture("add_mul/forward_case1_in0.npy")));
  const api_test::Npy want1 = api_test::load_npy(api_test::fixture("add_mul/forward_case1_out0.npy"));
  ASSERT_EQ(in1.size(), 8u);
  std::copy(in1.begin(), in1.end(), owned->mutable_data_ptr<float>());
  EXPECT_TRUE(matches(module.forward(owned), want1));
}

}  // namespace
