// Upstream ExecuTorch's core types as its headers describe them: Error / Result and their macros, ArrayRef, Span,
// FunctionRef, FreeableBuffer, Tag, ScalarType, Half, BFloat16, complex, the quantized and bits types, Scalar,
// TensorImpl / Tensor and the executorch::aten names.
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/core/portable_type/bfloat16_math.h>
#include <executorch/runtime/core/portable_type/bits_types.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

using executorch::aten::BFloat16;
using executorch::aten::Half;
using executorch::aten::ScalarType;
using executorch::runtime::ArrayRef;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::FunctionRef;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;
using executorch::runtime::TensorShapeDynamism;
using executorch::runtime::etensor::Device;
using executorch::runtime::etensor::DeviceIndex;
using executorch::runtime::etensor::DeviceType;
using executorch::runtime::etensor::Tensor;
using executorch::runtime::etensor::TensorImpl;
using SizesType = TensorImpl::SizesType;
using DimOrderType = TensorImpl::DimOrderType;
using StridesType = TensorImpl::StridesType;

namespace {

const bool kInit = (executorch::runtime::runtime_init(), true);

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

//
// Error, Result and the macros
//

TEST(Error, CodesAndNames) {
  static_assert(std::is_same<std::underlying_type_t<Error>, executorch::runtime::error_code_t>::value);
  static_assert(std::is_same<executorch::runtime::error_code_t, uint32_t>::value);
  EXPECT_EQ(static_cast<uint32_t>(Error::Ok), 0x00u);
  EXPECT_EQ(static_cast<uint32_t>(Error::Internal), 0x01u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidState), 0x02u);
  EXPECT_EQ(static_cast<uint32_t>(Error::EndOfMethod), 0x03u);
  EXPECT_EQ(static_cast<uint32_t>(Error::AlreadyLoaded), 0x04u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotSupported), 0x10u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotImplemented), 0x11u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidArgument), 0x12u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidType), 0x13u);
  EXPECT_EQ(static_cast<uint32_t>(Error::OperatorMissing), 0x14u);
  EXPECT_EQ(static_cast<uint32_t>(Error::RegistrationExceedingMaxKernels), 0x15u);
  EXPECT_EQ(static_cast<uint32_t>(Error::RegistrationAlreadyRegistered), 0x16u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotFound), 0x20u);
  EXPECT_EQ(static_cast<uint32_t>(Error::MemoryAllocationFailed), 0x21u);
  EXPECT_EQ(static_cast<uint32_t>(Error::AccessFailed), 0x22u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidProgram), 0x23u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidExternalData), 0x24u);
  EXPECT_EQ(static_cast<uint32_t>(Error::OutOfResources), 0x25u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateInvalidCompatibility), 0x30u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateMemoryAllocationFailed), 0x31u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateInvalidHandle), 0x32u);

  // to_string is constexpr, as upstream's.
  constexpr const char* kName = executorch::runtime::to_string(Error::InvalidProgram);
  EXPECT_NE(std::string(kName).find("InvalidProgram"), std::string::npos);
  EXPECT_NE(std::string(executorch::runtime::to_string(Error::DelegateInvalidHandle)).find("DelegateInvalidHandle"),
            std::string::npos);
  EXPECT_NE(std::string(executorch::runtime::to_string(static_cast<Error>(0xff))).find("Unknown"), std::string::npos);
  // The deprecated namespace spellings.
  static_assert(std::is_same<torch::executor::Error, Error>::value);
  static_assert(std::is_same<torch::executor::error_code_t, uint32_t>::value);
}

TEST(Error, LastErrorMessage) {
  executorch::runtime::clear_last_error();
  EXPECT_STREQ(executorch::runtime::last_error_message(), "");
  EXPECT_EQ(executorch::runtime::set_last_error(Error::NotFound, "no %s named %d", "thing", 7), Error::NotFound);
  EXPECT_STREQ(executorch::runtime::last_error_message(), "no thing named 7");
  executorch::runtime::clear_last_error();
  EXPECT_STREQ(executorch::runtime::last_error_message(), "");
}

Error check_positive(int v) {
  ET_CHECK_OR_RETURN_ERROR(v > 0, InvalidArgument, "value %d is not positive", v);
  return Error::Ok;
}
int g_after = 0;
Error forward_error(Error e) {
  ET_CHECK_OK_OR_RETURN_ERROR(e);
  ++g_after;
  return Error::Ok;
}
Error forward_error_with_message(Error e) {
  ET_CHECK_OK_OR_RETURN_ERROR(e, "inner call failed with 0x%x", static_cast<unsigned>(e));
  ++g_after;
  return Error::Ok;
}
int g_evaluations = 0;
Error counted(Error e) {
  ++g_evaluations;
  return e;
}
bool is_even(int v) {
  ET_CHECK_OR_RETURN_FALSE(v % 2 == 0, "%d is odd", v);
  return true;
}

TEST(Error, Macros) {
  EXPECT_EQ(check_positive(3), Error::Ok);
  EXPECT_EQ(check_positive(-3), Error::InvalidArgument);

  g_after = 0;
  EXPECT_EQ(forward_error(Error::Ok), Error::Ok);
  EXPECT_EQ(g_after, 1);
  EXPECT_EQ(forward_error(Error::NotFound), Error::NotFound);
  EXPECT_EQ(g_after, 1);
  EXPECT_EQ(forward_error_with_message(Error::AccessFailed), Error::AccessFailed);
  EXPECT_EQ(forward_error_with_message(Error::Ok), Error::Ok);
  EXPECT_EQ(g_after, 2);

  // The expression is evaluated once.
  g_evaluations = 0;
  auto f = []() -> Error {
    ET_CHECK_OK_OR_RETURN_ERROR(counted(Error::InvalidState), "message with no arguments");
    return Error::Ok;
  };
  EXPECT_EQ(f(), Error::InvalidState);
  EXPECT_EQ(g_evaluations, 1);

  EXPECT_TRUE(is_even(4));
  EXPECT_FALSE(is_even(5));
}

Result<uint64_t> get_abs(int64_t num) {
  if (num >= 0) return static_cast<uint64_t>(num);
  return Error::InvalidArgument;
}
Result<uint64_t> double_abs_unwrap(int64_t num) {
  uint64_t value = ET_UNWRAP(get_abs(num));
  return value * 2;
}
Result<uint64_t> double_abs_unwrap_with_message(int64_t num) {
  uint64_t value = ET_UNWRAP(get_abs(num), "get_abs failed for %d", static_cast<int>(num));
  return value * 2;
}
Result<uint64_t> triple_abs_assign(int64_t num) {
  ET_ASSIGN_OR_RETURN(value, get_abs(num));
  return value * 3;
}
Result<uint64_t> triple_abs_assign_with_message(int64_t num) {
  ET_ASSIGN_OR_RETURN(value, get_abs(num), "get_abs failed for %lld", static_cast<long long>(num));
  return value * 3;
}
Error unwrap_into_error(int64_t num) {
  uint64_t v = ET_UNWRAP(get_abs(num));
  return v == 0 ? Error::NotFound : Error::Ok;
}

class Uncopiable {
 public:
  explicit Uncopiable(uint32_t value) : value_(value) {}
  Uncopiable(Uncopiable&& rhs) noexcept = default;
  Uncopiable(const Uncopiable&) = delete;
  Uncopiable& operator=(const Uncopiable&) = delete;
  Uncopiable& operator=(Uncopiable&&) = delete;
  uint32_t value() const { return value_; }

 private:
  uint32_t value_;
};

// Counts live instances, to check that Result constructs and destroys its value exactly once.
struct Counted {
  static int live;
  int v;
  explicit Counted(int x) : v(x) { ++live; }
  Counted(const Counted& o) : v(o.v) { ++live; }
  Counted(Counted&& o) noexcept : v(o.v) { ++live; }
  ~Counted() { --live; }
};
int Counted::live = 0;

TEST(Result, Basics) {
  Result<uint32_t> r(7u);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.error(), Error::Ok);
  EXPECT_EQ(r.get(), 7u);
  EXPECT_EQ(*r, 7u);

  Result<uint32_t> e(Error::NotFound);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::NotFound);

  // Ok is not an error: it becomes Internal.
  Result<uint32_t> ok_error(Error::Ok);
  EXPECT_FALSE(ok_error.ok());
  EXPECT_EQ(ok_error.error(), Error::Internal);

  Result<std::string> s(std::string("abc"));
  EXPECT_EQ(s->size(), 3u);
  const Result<std::string>& cs = s;
  EXPECT_EQ(cs->front(), 'a');
  EXPECT_EQ((*cs)[2], 'c');

  Result<const void*> null_ptr(nullptr);
  EXPECT_TRUE(null_ptr.ok());
  EXPECT_EQ(null_ptr.get(), nullptr);

  static_assert(std::is_same<Result<float>::value_type, float>::value);
  static_assert(std::is_same<torch::executor::Result<int>, Result<int>>::value);
}

TEST(Result, MoveOnlyAndLifetime) {
  Result<Uncopiable> r = Uncopiable(42);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value(), 42u);
  Result<Uncopiable> moved(std::move(r));
  EXPECT_EQ(moved.get().value(), 42u);

  Counted::live = 0;
  {
    Result<Counted> c(Counted(5));
    EXPECT_EQ(Counted::live, 1);
    Result<Counted> c2(std::move(c));
    EXPECT_EQ(Counted::live, 2);  // the moved-from value is still alive until its Result goes
    Result<Counted> err(Error::InvalidType);
    EXPECT_EQ(Counted::live, 2);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(Result, UnwrapMacros) {
  EXPECT_EQ(double_abs_unwrap(21).get(), 42u);
  EXPECT_EQ(double_abs_unwrap(-1).error(), Error::InvalidArgument);
  EXPECT_EQ(double_abs_unwrap_with_message(5).get(), 10u);
  EXPECT_EQ(double_abs_unwrap_with_message(-5).error(), Error::InvalidArgument);
  EXPECT_EQ(triple_abs_assign(2).get(), 6u);
  EXPECT_EQ(triple_abs_assign(-2).error(), Error::InvalidArgument);
  EXPECT_EQ(triple_abs_assign_with_message(3).get(), 9u);
  EXPECT_EQ(triple_abs_assign_with_message(-3).error(), Error::InvalidArgument);
  EXPECT_EQ(unwrap_into_error(0), Error::NotFound);
  EXPECT_EQ(unwrap_into_error(4), Error::Ok);
  EXPECT_EQ(unwrap_into_error(-4), Error::InvalidArgument);
}

TEST(ResultDeathTest, GetWithoutValueAborts) {
  Result<int> r(Error::NotFound);
  EXPECT_DEATH((void)r.get(), "");
}

//
// ArrayRef and Span
//

TEST(ArrayRef, Constructors) {
  ArrayRef<int64_t> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);

  const int64_t one = 5;
  ArrayRef<int64_t> single = one;
  EXPECT_EQ(single.size(), 1u);
  EXPECT_EQ(single.data(), &one);

  const int64_t arr[4] = {1, 2, 3, 4};
  ArrayRef<int64_t> from_array = arr;
  EXPECT_EQ(from_array.size(), 4u);
  ArrayRef<int64_t> from_ptr(arr, 2);
  EXPECT_EQ(from_ptr.size(), 2u);
  ArrayRef<int64_t> from_range(arr + 1, arr + 4);
  EXPECT_EQ(from_range.size(), 3u);
  EXPECT_EQ(from_range[0], 2);

  const std::array<int64_t, 3> std_arr = {7, 8, 9};
  ArrayRef<int64_t> from_std_array = std_arr;
  EXPECT_EQ(from_std_array.data(), std_arr.data());
  EXPECT_EQ(from_std_array.size(), 3u);

  const std::vector<int64_t> vec = {1, 2};
  ArrayRef<int64_t> from_vec = vec;
  EXPECT_EQ(from_vec.data(), vec.data());

  static_assert(std::is_same<ArrayRef<int>::iterator, const int*>::value);
  static_assert(std::is_same<ArrayRef<int>::const_iterator, const int*>::value);
  static_assert(std::is_same<ArrayRef<int>::size_type, size_t>::value);
  static_assert(std::is_same<ArrayRef<int>::value_type, int>::value);
  static_assert(std::is_trivially_copyable<ArrayRef<int>>::value);
  static_assert(std::is_same<executorch::runtime::IntArrayRef, ArrayRef<int64_t>>::value);
}

TEST(ArrayRef, Methods) {
  const int32_t arr[5] = {10, 20, 30, 40, 50};
  ArrayRef<int32_t> a(arr, 5);
  EXPECT_EQ(a.begin(), arr);
  EXPECT_EQ(a.end(), arr + 5);
  EXPECT_EQ(a.cbegin(), arr);
  EXPECT_EQ(a.cend(), arr + 5);
  EXPECT_EQ(a.front(), 10);
  EXPECT_EQ(a.back(), 50);
  EXPECT_EQ(a.at(3), 40);

  ArrayRef<int32_t> mid = a.slice(1, 3);
  EXPECT_EQ(mid.size(), 3u);
  EXPECT_EQ(mid.front(), 20);
  EXPECT_EQ(mid.back(), 40);
  ArrayRef<int32_t> tail = a.slice(3);
  EXPECT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0], 40);
  EXPECT_TRUE(a.slice(5).empty());

  const int32_t same[5] = {10, 20, 30, 40, 50};
  const int32_t other[5] = {10, 20, 31, 40, 50};
  EXPECT_TRUE(a.equals(ArrayRef<int32_t>(same)));
  EXPECT_FALSE(a.equals(ArrayRef<int32_t>(other)));
  EXPECT_FALSE(a.equals(mid));
  EXPECT_TRUE(a == ArrayRef<int32_t>(same));
  EXPECT_TRUE(a != ArrayRef<int32_t>(other));

  std::vector<int32_t> copy = a.vec();
  EXPECT_EQ(copy, (std::vector<int32_t>{10, 20, 30, 40, 50}));

  int32_t sum = 0;
  for (int32_t v : a) sum += v;
  EXPECT_EQ(sum, 150);
}

TEST(ArrayRef, MakeArrayRef) {
  const int64_t one = 3;
  const int64_t arr[3] = {1, 2, 3};
  const std::array<int64_t, 2> std_arr = {4, 5};
  EXPECT_EQ(executorch::runtime::makeArrayRef(one).size(), 1u);
  EXPECT_EQ(executorch::runtime::makeArrayRef(arr, 2).size(), 2u);
  EXPECT_EQ(executorch::runtime::makeArrayRef(arr, arr + 3).size(), 3u);
  EXPECT_EQ(executorch::runtime::makeArrayRef(std_arr).data(), std_arr.data());
  EXPECT_EQ(executorch::runtime::makeArrayRef(arr).size(), 3u);
  ArrayRef<int64_t> ref(arr, 3);
  ArrayRef<int64_t>& same = executorch::runtime::makeArrayRef(ref);
  EXPECT_EQ(&same, &ref);
  EXPECT_EQ(torch::executor::makeArrayRef(ref).data(), arr);
}

TEST(ArrayRefDeathTest, ChecksBounds) {
  const int arr[2] = {1, 2};
  ArrayRef<int> a(arr, 2);
  EXPECT_DEATH((void)a.at(2), "");
  EXPECT_DEATH((void)a.slice(1, 2), "");
  EXPECT_DEATH((void)a.slice(3), "");
  ArrayRef<int> empty;
  EXPECT_DEATH((void)empty.front(), "");
  EXPECT_DEATH((void)empty.back(), "");
}

TEST(Span, ConstructorsAndAccess) {
  int64_t x[3] = {1, 2, 3};
  Span<int64_t> from_range = {x, x + 3};
  Span<int64_t> from_array = x;
  Span<int64_t> from_ptr = {x, static_cast<size_t>(2)};
  EXPECT_EQ(from_range.size(), 3u);
  EXPECT_EQ(from_array.size(), 3u);
  EXPECT_EQ(from_ptr.size(), 2u);
  EXPECT_EQ(from_array.begin(), x);
  EXPECT_EQ(from_array.end(), x + 3);
  EXPECT_EQ(from_ptr.data(), x);
  from_ptr[1] = 20;
  EXPECT_EQ(x[1], 20);

  int64_t single = 42;
  Span<int64_t> one = single;
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one.data(), &single);
  one[0] = 100;
  EXPECT_EQ(single, 100);

  Span<int64_t> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(from_ptr.empty());
  static_assert(std::is_trivially_copyable<Span<int64_t>>::value);
  static_assert(std::is_same<Span<int>::size_type, size_t>::value);
  static_assert(std::is_same<Span<int>::iterator, int*>::value);
  static_assert(std::is_same<torch::executor::Span<int>, Span<int>>::value);
}

//
// FunctionRef
//

void set_to_one(int32_t& i) { i = 1; }

int apply(FunctionRef<int(int)> f, int v) { return f(v); }

TEST(FunctionRef, Callables) {
  int32_t val = 0;
  FunctionRef<void(int32_t&)> fp(set_to_one);
  fp(val);
  EXPECT_EQ(val, 1);

  int32_t seven = 7;
  auto capturing = [&](int32_t& i) { i = seven; };
  FunctionRef<void(int32_t&)>{capturing}(val);
  EXPECT_EQ(val, 7);

  EXPECT_EQ(apply([](int v) { return v * 3; }, 5), 15);
  int offset = 10;
  EXPECT_EQ(apply([offset](int v) { return v + offset; }, 5), 15);

  // A result that converts to Ret; a void Ret ignores the result.
  FunctionRef<double(int)> widen([](int v) { return v / 2; });
  EXPECT_EQ(widen(9), 4.0);
  auto returns_int = [](int v) { return v; };
  FunctionRef<void(int)> discard(returns_int);
  discard(3);

  FunctionRef<void(int32_t&)> empty;
  EXPECT_FALSE(empty);
  FunctionRef<void(int32_t&)> null_ref(nullptr);
  EXPECT_FALSE(null_ref);
  EXPECT_TRUE(fp);

  FunctionRef<void(int32_t&)> copy = fp;
  EXPECT_TRUE(copy == fp);
  FunctionRef<void(int32_t&)> other(capturing);
  EXPECT_FALSE(other == fp);
}

//
// FreeableBuffer
//

struct FreeCall {
  size_t calls = 0;
  std::variant<const void*, uint64_t> data;
  size_t size = 0;
};
void record_free(void* context, void* data, size_t size) {
  auto* call = static_cast<FreeCall*>(context);
  call->calls++;
  call->data = static_cast<const void*>(data);
  call->size = size;
}
void record_free_u64(void* context, uint64_t data, size_t size) {
  auto* call = static_cast<FreeCall*>(context);
  call->calls++;
  call->data = data;
  call->size = size;
}

TEST(FreeableBuffer, PointerBuffer) {
  FreeableBuffer empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data_safe().error(), Error::Ok);
  EXPECT_EQ(empty.data_safe().get(), nullptr);
  EXPECT_EQ(empty.data_uint64_type().error(), Error::InvalidType);

  FreeCall call;
  int i = 0;
  {
    FreeableBuffer fb(&i, sizeof(i), record_free, &call);
    EXPECT_EQ(fb.data(), &i);
    EXPECT_EQ(fb.size(), sizeof(i));
    EXPECT_EQ(call.calls, 0u);
    fb.Free();
    EXPECT_EQ(call.calls, 1u);
    EXPECT_EQ(std::get<const void*>(call.data), &i);
    EXPECT_EQ(call.size, sizeof(i));
    EXPECT_EQ(fb.data(), nullptr);
    EXPECT_EQ(fb.size(), 0u);
    fb.Free();
  }
  EXPECT_EQ(call.calls, 1u);  // neither the second Free() nor the destructor freed again

  FreeCall by_destructor;
  {
    FreeableBuffer fb(&i, 4, record_free, &by_destructor);
  }
  EXPECT_EQ(by_destructor.calls, 1u);

  FreeableBuffer no_free_fn(&i, sizeof(i), nullptr);
  EXPECT_EQ(no_free_fn.data(), &i);
  no_free_fn.Free();
  EXPECT_EQ(no_free_fn.data(), nullptr);
}

TEST(FreeableBuffer, UInt64Buffer) {
  FreeCall call;
  {
    FreeableBuffer fb(uint64_t{0x1234}, 16, record_free_u64, &call);
    EXPECT_EQ(fb.size(), 16u);
    EXPECT_EQ(fb.data_uint64_type().get(), 0x1234u);
    EXPECT_EQ(fb.data_safe().error(), Error::InvalidType);
    fb.Free();
    EXPECT_EQ(call.calls, 1u);
    EXPECT_EQ(std::get<uint64_t>(call.data), 0x1234u);
    EXPECT_EQ(call.size, 16u);
    EXPECT_EQ(fb.data_uint64_type().get(), 0u);
  }
  EXPECT_EQ(call.calls, 1u);
}

TEST(FreeableBuffer, Move) {
  FreeCall call;
  int i = 0;
  FreeableBuffer src(&i, sizeof(i), record_free, &call);
  FreeableBuffer dst(std::move(src));
  EXPECT_EQ(src.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(src.size(), 0u);
  EXPECT_EQ(dst.data(), &i);
  src.Free();
  EXPECT_EQ(call.calls, 0u);

  // Move assignment (an extension of this SDK) frees what the target held.
  FreeCall call2;
  int j = 0;
  FreeableBuffer other(&j, sizeof(j), record_free, &call2);
  other = std::move(dst);
  EXPECT_EQ(call2.calls, 1u);
  EXPECT_EQ(other.data(), &i);
  other.Free();
  EXPECT_EQ(call.calls, 1u);

  FreeCall call3;
  FreeableBuffer u(uint64_t{9}, 8, record_free_u64, &call3);
  FreeableBuffer u2(std::move(u));
  EXPECT_EQ(u.data_uint64_type().get(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(u2.data_uint64_type().get(), 9u);
  u2.Free();
  EXPECT_EQ(call3.calls, 1u);
}

TEST(FreeableBufferDeathTest, DataOfUInt64BufferAborts) {
  FreeableBuffer fb(uint64_t{1}, 8, nullptr);
  EXPECT_DEATH((void)fb.data(), "");
}

//
// Tag
//

TEST(Tag, NumbersAndNames) {
  EXPECT_EQ(static_cast<uint32_t>(Tag::None), 0u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Tensor), 1u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::String), 2u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Double), 3u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Int), 4u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::Bool), 5u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListBool), 6u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListDouble), 7u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListInt), 8u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListTensor), 9u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListScalar), 10u);
  EXPECT_EQ(static_cast<uint32_t>(Tag::ListOptionalTensor), 11u);

  EXPECT_STREQ(executorch::runtime::tag_to_string(Tag::ListOptionalTensor), "ListOptionalTensor");
  EXPECT_STREQ(executorch::runtime::tag_to_string(Tag::None), "None");
  EXPECT_STREQ(executorch::runtime::tag_to_string(static_cast<Tag>(99)), "Unknown");

  char buf[executorch::runtime::kTagNameBufferSize];
  EXPECT_EQ(executorch::runtime::tag_to_string(Tag::ListOptionalTensor, buf, sizeof(buf)), 18u);
  EXPECT_STREQ(buf, "ListOptionalTensor");
  char small[4];
  EXPECT_EQ(executorch::runtime::tag_to_string(Tag::Tensor, small, sizeof(small)), 6u);  // snprintf's count
  EXPECT_STREQ(small, "Ten");

  // The X-macro lists every tag in order.
  std::vector<std::string> names;
#define ET_TEST_TAG_NAME(x) names.push_back(#x);
  EXECUTORCH_FORALL_TAGS(ET_TEST_TAG_NAME)
#undef ET_TEST_TAG_NAME
  ASSERT_EQ(names.size(), 12u);
  EXPECT_EQ(names[8], "ListInt");
  static_assert(std::is_same<torch::executor::Tag, Tag>::value);
}

//
// ScalarType
//

TEST(ScalarType, EnumeratorsSizesNames) {
  EXPECT_EQ(static_cast<int>(ScalarType::Byte), 0);
  EXPECT_EQ(static_cast<int>(ScalarType::Half), 5);
  EXPECT_EQ(static_cast<int>(ScalarType::Float), 6);
  EXPECT_EQ(static_cast<int>(ScalarType::ComplexHalf), 8);
  EXPECT_EQ(static_cast<int>(ScalarType::Bool), 11);
  EXPECT_EQ(static_cast<int>(ScalarType::QInt8), 12);
  EXPECT_EQ(static_cast<int>(ScalarType::QUInt8), 13);
  EXPECT_EQ(static_cast<int>(ScalarType::QInt32), 14);
  EXPECT_EQ(static_cast<int>(ScalarType::BFloat16), 15);
  EXPECT_EQ(static_cast<int>(ScalarType::QUInt4x2), 16);
  EXPECT_EQ(static_cast<int>(ScalarType::QUInt2x4), 17);
  EXPECT_EQ(static_cast<int>(ScalarType::Bits1x8), 18);
  EXPECT_EQ(static_cast<int>(ScalarType::Bits16), 22);
  EXPECT_EQ(static_cast<int>(ScalarType::Float8_e5m2), 23);
  EXPECT_EQ(static_cast<int>(ScalarType::Float8_e4m3fnuz), 26);
  EXPECT_EQ(static_cast<int>(ScalarType::UInt16), 27);
  EXPECT_EQ(static_cast<int>(ScalarType::UInt32), 28);
  EXPECT_EQ(static_cast<int>(ScalarType::UInt64), 29);
  EXPECT_EQ(static_cast<int>(ScalarType::Undefined), 30);
  EXPECT_EQ(static_cast<int>(ScalarType::NumOptions), 31);
  static_assert(std::is_same<std::underlying_type_t<ScalarType>, int8_t>::value);

  // Every enumerator of the X-macro has its C++ type's size and its own name.
  int count = 0;
#define ET_TEST_SCALAR_TYPE(cpp, name)                                              \
  EXPECT_EQ(executorch::aten::elementSize(ScalarType::name), sizeof(cpp)) << #name; \
  EXPECT_STREQ(executorch::aten::toString(ScalarType::name), #name);                \
  EXPECT_TRUE(executorch::aten::isValid(ScalarType::name));                         \
  EXPECT_EQ(count++, static_cast<int>(ScalarType::name));
  ET_FORALL_SCALAR_TYPES(ET_TEST_SCALAR_TYPE)
#undef ET_TEST_SCALAR_TYPE
  EXPECT_EQ(count, 30);

  EXPECT_EQ(executorch::aten::elementSize(ScalarType::ComplexDouble), 16u);
  EXPECT_EQ(executorch::aten::elementSize(ScalarType::ComplexHalf), 4u);
  EXPECT_EQ(executorch::aten::elementSize(ScalarType::QInt32), 4u);
  EXPECT_STREQ(executorch::aten::toString(ScalarType::Undefined), "Undefined");
  EXPECT_STREQ(executorch::aten::toString(static_cast<ScalarType>(100)), "UNKNOWN_SCALAR");
  EXPECT_FALSE(executorch::aten::isValid(ScalarType::Undefined));
  EXPECT_FALSE(executorch::aten::isValid(ScalarType::NumOptions));
  EXPECT_FALSE(executorch::aten::isValid(static_cast<ScalarType>(-1)));
  EXPECT_FALSE(executorch::aten::isValid(static_cast<ScalarType>(127)));

  // Unqualified calls find the helpers by argument-dependent lookup.
  EXPECT_EQ(elementSize(ScalarType::Long), 8u);
  EXPECT_STREQ(toString(ScalarType::BFloat16), "BFloat16");
  static_assert(std::is_same<torch::executor::ScalarType, ScalarType>::value);
}

//
// Half
//

uint16_t half_bits(float f) { return Half(f).x; }

TEST(Half, ConversionBitPatterns) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);  // the largest finite half
  EXPECT_EQ(half_bits(1e10f), 0x7c00);     // overflow -> infinity
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(half_bits(std::nanf("")), 0x7e00);
  EXPECT_EQ(half_bits(0x1p-14f), 0x0400);  // the smallest normal
  EXPECT_EQ(half_bits(0x1p-24f), 0x0001);  // the smallest subnormal
  EXPECT_EQ(half_bits(0x1p-30f), 0x0000);  // underflow -> 0
  EXPECT_EQ(half_bits(-0x1p-30f), 0x8000);

  // Round to nearest, ties to even.
  EXPECT_EQ(half_bits(1.0f + 0x1p-11f), 0x3c00);             // halfway between 0x3c00 and 0x3c01: even is 0x3c00
  EXPECT_EQ(half_bits(1.0f + 3 * 0x1p-11f), 0x3c02);         // halfway between 0x3c01 and 0x3c02: even is 0x3c02
  EXPECT_EQ(half_bits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just above halfway rounds up
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);                    // halfway between 65504 and 65536 rounds to infinity
  EXPECT_EQ(half_bits(65519.0f), 0x7bff);
  EXPECT_EQ(half_bits(0x1p-25f), 0x0000);      // half the smallest subnormal: tie to even (0)
  EXPECT_EQ(half_bits(3 * 0x1p-25f), 0x0002);  // 1.5 subnormal steps: tie to even (2)
  EXPECT_EQ(half_bits(0x1p-25f + 0x1p-30f), 0x0001);

  // Half -> float is exact.
  EXPECT_EQ(static_cast<float>(Half(0x0001, Half::from_bits())), 0x1p-24f);
  EXPECT_EQ(static_cast<float>(Half(0x7bff, Half::from_bits())), 65504.0f);
  EXPECT_EQ(static_cast<float>(Half(0x3555, Half::from_bits())), float_of(0x3eaaa000u));
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(0xfc00, Half::from_bits()))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(0x7e00, Half::from_bits()))));
  EXPECT_EQ(bits_of(static_cast<float>(Half(0x8000, Half::from_bits()))), 0x80000000u);
  for (uint32_t b = 0; b < 0x10000; ++b) {  // every finite half survives a round trip
    const Half h(static_cast<uint16_t>(b), Half::from_bits());
    if ((b & 0x7c00u) == 0x7c00u) continue;
    ASSERT_EQ(Half(static_cast<float>(h)).x, b);
  }

  // c10::detail's helpers under etensor::internal.
  namespace internal = executorch::runtime::etensor::internal;
  EXPECT_EQ(internal::fp16_ieee_from_fp32_value(1.0f), 0x3c00);
  EXPECT_EQ(internal::fp16_ieee_to_fp32_value(0xc000), -2.0f);
  EXPECT_EQ(internal::fp16_ieee_to_fp32_bits(0x3c00), 0x3f800000u);
  EXPECT_EQ(internal::fp32_to_bits(1.0f), 0x3f800000u);
  EXPECT_EQ(internal::fp32_from_bits(0x40000000u), 2.0f);

  static_assert(sizeof(Half) == 2 && alignof(Half) == 2);
  static_assert(std::is_trivially_copyable<Half>::value);
  static_assert(std::is_trivially_default_constructible<Half>::value);
  static_assert(std::is_same<torch::executor::Half, Half>::value);
}

TEST(Half, Arithmetic) {
  const Half a(1.5f), b(2.25f);
  static_assert(std::is_same<decltype(a + b), Half>::value);
  static_assert(std::is_same<decltype(a + 1.0f), float>::value);
  static_assert(std::is_same<decltype(1.0f * a), float>::value);
  static_assert(std::is_same<decltype(a - 1.0), double>::value);
  static_assert(std::is_same<decltype(2.0 / a), double>::value);
  static_assert(std::is_same<decltype(a * 2), Half>::value);
  static_assert(std::is_same<decltype(int64_t{2} - a), Half>::value);
  static_assert(std::is_same<decltype(-a), Half>::value);
  EXPECT_EQ(static_cast<float>(a + b), 3.75f);
  EXPECT_EQ(static_cast<float>(a - b), -0.75f);
  EXPECT_EQ(static_cast<float>(a * b), 3.375f);
  EXPECT_EQ(static_cast<float>(b / a), 1.5f);
  EXPECT_EQ(static_cast<float>(-a), -1.5f);
  EXPECT_EQ(static_cast<float>(a * 4), 6.0f);
  EXPECT_EQ(static_cast<float>(3 - a), 1.5f);
  EXPECT_EQ(static_cast<float>(a + int64_t{10}), 11.5f);
  EXPECT_EQ(a + 0.25f, 1.75f);
  EXPECT_EQ(0.25 * a, 0.375);

  // A Half result is rounded once: 1 + 2^-11 is not representable and rounds to even (1.0).
  const Half one(1.0f), tiny(0x1p-11f);
  EXPECT_EQ((one + tiny).x, 0x3c00);
  EXPECT_EQ(one + static_cast<float>(tiny), 1.0f + 0x1p-11f);  // in float it is kept

  Half c(1.0f);
  c += b;
  EXPECT_EQ(static_cast<float>(c), 3.25f);
  c -= a;
  EXPECT_EQ(static_cast<float>(c), 1.75f);
  c *= Half(2.0f);
  EXPECT_EQ(static_cast<float>(c), 3.5f);
  c /= Half(7.0f);
  EXPECT_EQ(static_cast<float>(c), 0.5f);
  float f = 1.0f;
  f += a;
  EXPECT_EQ(f, 2.5f);
  f *= a;
  EXPECT_EQ(f, 3.75f);

  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a == Half(1.5f));
  std::ostringstream os;
  os << a;
  EXPECT_EQ(os.str(), "1.5");
}

TEST(Half, NumericLimitsAndMath) {
  using L = std::numeric_limits<Half>;
  static_assert(L::is_specialized && L::is_signed && !L::is_integer && L::is_iec559);
  static_assert(L::digits == 11 && L::max_exponent == 16 && L::min_exponent == -13);
  EXPECT_EQ(L::max().x, 0x7bff);
  EXPECT_EQ(L::lowest().x, 0xfbff);
  EXPECT_EQ(L::min().x, 0x0400);
  EXPECT_EQ(L::epsilon().x, 0x1400);
  EXPECT_EQ(L::infinity().x, 0x7c00);
  EXPECT_EQ(L::quiet_NaN().x, 0x7e00);
  EXPECT_EQ(L::denorm_min().x, 0x0001);
  EXPECT_EQ(static_cast<float>(L::epsilon()), 0x1p-10f);

  // bfloat16_math.h: float math rounded back to Half.
  static_assert(std::is_same<decltype(std::sqrt(Half(4.0f))), Half>::value);
  EXPECT_EQ(static_cast<float>(std::sqrt(Half(4.0f))), 2.0f);
  EXPECT_EQ(std::exp(Half(1.0f)).x, Half(std::exp(1.0f)).x);
  EXPECT_EQ(static_cast<float>(std::abs(Half(-3.0f))), 3.0f);
  EXPECT_EQ(static_cast<float>(std::rsqrt(Half(4.0f))), 0.5f);
  EXPECT_EQ(static_cast<float>(std::pow(Half(2.0f), 3.0)), 8.0f);
  EXPECT_EQ(static_cast<float>(std::fmod(Half(7.0f), Half(4.0f))), 3.0f);
  EXPECT_TRUE(std::isfinite(Half(1.0f)));
  EXPECT_FALSE(std::isfinite(L::infinity()));
  EXPECT_EQ(std::nextafter(Half(1.0f), Half(2.0f)).x, 0x3c01);
  EXPECT_EQ(std::nextafter(Half(1.0f), Half(0.0f)).x, 0x3bff);
  EXPECT_TRUE(std::is_reduced_floating_point_v<Half>);
  EXPECT_FALSE(std::is_reduced_floating_point_v<float>);
}

//
// BFloat16
//

TEST(BFloat16, ConversionBitPatterns) {
  EXPECT_EQ(BFloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(BFloat16(-2.0f).x, 0xc000);
  EXPECT_EQ(BFloat16(std::nanf("")).x, 0x7fc0);
  EXPECT_EQ(BFloat16(-std::nanf("")).x, 0x7fc0);  // every NaN becomes the canonical one
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::infinity()).x, 0x7f80);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).x, 0x7f80);  // rounds up into infinity
  // Round to nearest, ties to even (the cases of upstream's table).
  EXPECT_EQ(BFloat16(float_of(0x3f848000u)).x, 0x3f84);
  EXPECT_EQ(BFloat16(float_of(0x3f848010u)).x, 0x3f85);
  EXPECT_EQ(BFloat16(float_of(0x3f850000u)).x, 0x3f85);
  EXPECT_EQ(BFloat16(float_of(0x3f858000u)).x, 0x3f86);
  EXPECT_EQ(BFloat16(float_of(0x3fff8000u)).x, 0x4000);
  // Float subnormals round like any other value: 1 ulp of float is far below half a BFloat16 step.
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::denorm_min()).x, 0x0000);
  EXPECT_EQ(BFloat16(float_of(0x00008000u)).x, 0x0000);  // tie: to even (0)
  EXPECT_EQ(BFloat16(float_of(0x00018000u)).x, 0x0002);  // tie: to even (2)
  EXPECT_EQ(static_cast<float>(BFloat16(0x0001, BFloat16::from_bits())), float_of(0x00010000u));
  EXPECT_EQ(static_cast<float>(BFloat16(0x3f80, BFloat16::from_bits())), 1.0f);

  namespace internal = executorch::runtime::etensor::internal;
  EXPECT_EQ(internal::round_to_nearest_even(float_of(0x3f858000u)), 0x3f86);
  EXPECT_EQ(internal::f32_from_bits(0x4049), float_of(0x40490000u));

  static_assert(sizeof(BFloat16) == 2 && alignof(BFloat16) == 2);
  static_assert(std::is_trivially_copyable<BFloat16>::value);
  static_assert(std::is_same<torch::executor::BFloat16, BFloat16>::value);
}

TEST(BFloat16, ArithmeticAndLimits) {
  BFloat16 b(0x4048, BFloat16::from_bits());  // 3.125
  b = b + b;
  EXPECT_EQ(b.x, 0x40c8);                     // 6.25, exactly
  BFloat16 c(0x40f4, BFloat16::from_bits());  // 7.625
  c = c - 5;
  EXPECT_EQ(c.x, 0x4028);  // 2.625
  static_assert(std::is_same<decltype(c * 2), BFloat16>::value);
  static_assert(std::is_same<decltype(c * 2.0f), float>::value);
  static_assert(std::is_same<decltype(c * 2.0), double>::value);
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f) / BFloat16(2.0f)), 1.5f);

  // c10's in-place bitwise operators.
  BFloat16 x(0x00f0, BFloat16::from_bits());
  BFloat16 y(0x0f0f, BFloat16::from_bits());
  EXPECT_EQ((x | y).x, 0x0fff);
  EXPECT_EQ(x.x, 0x0fff);

  const BFloat16 zero(0.0f);
  const BFloat16 neg_zero = -zero;
  EXPECT_EQ(neg_zero.x, 0x8000);
  EXPECT_EQ(std::nextafter(zero, zero).x, 0x0000);
  EXPECT_EQ(std::nextafter(zero, neg_zero).x, 0x8000);
  EXPECT_EQ(std::nextafter(neg_zero, zero).x, 0x0000);
  EXPECT_EQ(std::nextafter(zero, BFloat16(1.0f)).x, 0x0001);
  EXPECT_EQ(std::nextafter(BFloat16(1.0f), BFloat16(2.0f)).x, 0x3f81);

  using L = std::numeric_limits<BFloat16>;
  static_assert(L::is_specialized && L::digits == 8 && !L::is_iec559);
  EXPECT_EQ(L::max().x, 0x7f7f);
  EXPECT_EQ(L::lowest().x, 0xff7f);
  EXPECT_EQ(L::min().x, 0x0080);
  EXPECT_EQ(L::epsilon().x, 0x3c00);
  EXPECT_EQ(L::quiet_NaN().x, 0x7fc0);
  EXPECT_EQ(static_cast<float>(std::exp(BFloat16(0.0f))), 1.0f);
}

//
// complex
//

using executorch::aten::complex;

TEST(Complex, Arithmetic) {
  const complex<float> a(1.0f, 2.0f), b(3.0f, 4.0f);
  EXPECT_EQ(a + b, complex<float>(4.0f, 6.0f));
  EXPECT_EQ(a - b, complex<float>(-2.0f, -2.0f));
  EXPECT_EQ(a * b, complex<float>(-5.0f, 10.0f));
  const complex<float> q = (a * b) / b;
  EXPECT_FLOAT_EQ(q.real(), 1.0f);
  EXPECT_FLOAT_EQ(q.imag(), 2.0f);
  EXPECT_EQ(a * 2.0f, complex<float>(2.0f, 4.0f));
  EXPECT_EQ(2.0f * a, complex<float>(2.0f, 4.0f));
  EXPECT_EQ(a + 1.0f, complex<float>(2.0f, 2.0f));
  EXPECT_EQ(1.0f - a, complex<float>(0.0f, -2.0f));
  EXPECT_EQ(a * 3, complex<float>(3.0f, 6.0f));  // integer operands
  EXPECT_EQ(4 - a, complex<float>(3.0f, -2.0f));
  EXPECT_EQ(-a, complex<float>(-1.0f, -2.0f));
  EXPECT_TRUE(complex<double>(2.0, 0.0) == 2.0);
  EXPECT_TRUE(2.0 != complex<double>(2.0, 1.0));

  complex<double> z(1.0, 1.0);
  z *= complex<double>(0.0, 1.0);
  EXPECT_EQ(z, complex<double>(-1.0, 1.0));
  z /= 2.0;
  EXPECT_EQ(z, complex<double>(-0.5, 0.5));
  z = 3.0;
  EXPECT_EQ(z, complex<double>(3.0, 0.0));
  z.imag(-1.0);
  EXPECT_EQ(z.imag(), -1.0);

  // Division by zero gives infinities / NaN as float division does.
  const complex<double> inf = complex<double>(1.0, 1.0) / complex<double>(0.0, 0.0);
  EXPECT_TRUE(std::isinf(inf.real()));

  // Conversions between precisions and with std::complex.
  const complex<double> widened = a;
  EXPECT_EQ(widened, complex<double>(1.0, 2.0));
  const complex<float> narrowed(complex<double>(0.5, 0.25));
  EXPECT_EQ(narrowed, complex<float>(0.5f, 0.25f));
  const std::complex<float> s = static_cast<std::complex<float>>(a);
  EXPECT_EQ(s, std::complex<float>(1.0f, 2.0f));
  EXPECT_EQ(complex<float>(std::complex<float>(5.0f, 6.0f)), complex<float>(5.0f, 6.0f));
  EXPECT_TRUE(static_cast<bool>(a));
  EXPECT_FALSE(static_cast<bool>(complex<float>()));

  using namespace executorch::runtime::etensor::complex_literals;
  EXPECT_EQ(2.5_if, complex<float>(0.0f, 2.5f));
  EXPECT_EQ(3_id, complex<double>(0.0, 3.0));

  static_assert(sizeof(complex<float>) == 8 && alignof(complex<float>) == 8);
  static_assert(sizeof(complex<double>) == 16 && alignof(complex<double>) == 16);
  static_assert(std::is_same<complex<float>::value_type, float>::value);
  static_assert(std::is_same<torch::executor::complex<float>, complex<float>>::value);
}

TEST(Complex, MathFunctions) {
  const complex<double> z(3.0, 4.0);
  EXPECT_EQ(std::abs(z), 5.0);
  EXPECT_EQ(std::norm(z), 25.0);
  EXPECT_EQ(std::real(z), 3.0);
  EXPECT_EQ(std::imag(z), 4.0);
  EXPECT_EQ(std::conj(z), complex<double>(3.0, -4.0));
  EXPECT_DOUBLE_EQ(std::arg(complex<double>(0.0, 1.0)), M_PI / 2);
  const complex<double> p = executorch::runtime::etensor::polar(2.0, M_PI / 2);
  EXPECT_NEAR(p.real(), 0.0, 1e-12);
  EXPECT_NEAR(p.imag(), 2.0, 1e-12);

  const complex<double> e = std::exp(complex<double>(0.0, M_PI));  // e^(i pi) = -1
  EXPECT_NEAR(e.real(), -1.0, 1e-12);
  EXPECT_NEAR(e.imag(), 0.0, 1e-12);
  const complex<double> r = std::sqrt(complex<double>(-4.0, 0.0));
  EXPECT_NEAR(r.real(), 0.0, 1e-12);
  EXPECT_NEAR(r.imag(), 2.0, 1e-12);
  const complex<double> l = log(complex<double>(1.0, 0.0));  // found by argument-dependent lookup
  EXPECT_EQ(l, complex<double>(0.0, 0.0));
  const complex<double> sq = std::pow(complex<double>(0.0, 1.0), 2.0);
  EXPECT_NEAR(sq.real(), -1.0, 1e-12);
  EXPECT_NEAR(std::log2(complex<double>(8.0, 0.0)).real(), 3.0, 1e-12);
  const complex<double> small(1e-20, 1e-20);
  EXPECT_NEAR(std::log1p(small).real(), 1e-20, 1e-30);
  EXPECT_NEAR(std::expm1(small).imag(), 1e-20, 1e-30);
  EXPECT_TRUE(std::isnan(complex<double>(NAN, 0.0)));
  EXPECT_FALSE(std::isnan(z));
}

TEST(Complex, HalfElements) {
  static_assert(sizeof(complex<Half>) == 4 && alignof(complex<Half>) == 4);
  const complex<Half> h(complex<float>(1.5f, -2.0f));
  EXPECT_EQ(h.real().x, 0x3e00);
  EXPECT_EQ(h.imag().x, 0xc000);
  const complex<float> back = h;
  EXPECT_EQ(back, complex<float>(1.5f, -2.0f));
  complex<Half> m(Half(1.0f), Half(1.0f));
  m *= complex<Half>(Half(2.0f), Half(3.0f));  // (1+i)(2+3i) = -1 + 5i
  EXPECT_EQ(static_cast<float>(m.real()), -1.0f);
  EXPECT_EQ(static_cast<float>(m.imag()), 5.0f);
  m += complex<Half>(Half(1.0f), Half(0.5f));
  EXPECT_EQ(static_cast<float>(m.imag()), 5.5f);
  static_assert(sizeof(complex<BFloat16>) == 4);
}

//
// Quantized and bits types, MemoryFormat, Layout
//

TEST(QIntAndBits, Storage) {
  using namespace executorch::runtime::etensor;
  static_assert(sizeof(qint8) == 1 && sizeof(quint8) == 1 && sizeof(qint32) == 4 && alignof(qint32) == 4);
  static_assert(sizeof(quint4x2) == 1 && sizeof(quint2x4) == 1);
  static_assert(std::is_same<qint8::underlying, int8_t>::value);
  static_assert(std::is_same<quint8::underlying, uint8_t>::value);
  static_assert(std::is_same<qint32::underlying, int32_t>::value);
  static_assert(!std::is_convertible<int8_t, qint8>::value);  // explicit construction only
  EXPECT_EQ(qint8(-5).val_, -5);
  EXPECT_EQ(quint8(200).val_, 200);
  EXPECT_EQ(qint32(-100000).val_, -100000);
  EXPECT_EQ(quint4x2(0xab).val_, 0xab);
  EXPECT_EQ(quint2x4(0x1b).val_, 0x1b);
  static_assert(sizeof(bits1x8) == 1 && sizeof(bits2x4) == 1 && sizeof(bits4x2) == 1 && sizeof(bits8) == 1);
  static_assert(sizeof(bits16) == 2 && alignof(bits16) == 2);
  EXPECT_EQ(bits16(0xbeef).val_, 0xbeef);
  EXPECT_EQ(bits4x2(0x12).val_, 0x12);
  // A tensor of qint8 is read through the type's storage.
  const int8_t raw[3] = {-1, 0, 7};
  const qint8* q = reinterpret_cast<const qint8*>(raw);
  EXPECT_EQ(q[2].val_, 7);

  static_assert(static_cast<int>(executorch::aten::MemoryFormat::Contiguous) == 0);
  static_assert(static_cast<int>(executorch::aten::MemoryFormat::Preserve) == 1);
  static_assert(static_cast<int>(executorch::aten::Layout::Strided) == 0);
  static_assert(std::is_same<torch::executor::qint8, qint8>::value);
  static_assert(std::is_same<torch::executor::bits16, bits16>::value);
  static_assert(std::is_same<torch::executor::MemoryFormat, executorch::aten::MemoryFormat>::value);
}

//
// Scalar
//

TEST(Scalar, KindsAndConversions) {
  using executorch::aten::Scalar;
  const Scalar d(3.141);
  EXPECT_TRUE(d.isFloatingPoint());
  EXPECT_FALSE(d.isIntegral(true));
  EXPECT_EQ(d.to<double>(), 3.141);

  const Scalar i(int64_t{3});
  EXPECT_TRUE(i.isIntegral(false));
  EXPECT_FALSE(i.isFloatingPoint());
  EXPECT_EQ(i.to<int64_t>(), 3);
  const Scalar small_int(7);
  const Scalar from_int8(int8_t{-2});
  EXPECT_EQ(small_int.to<int64_t>(), 7);
  EXPECT_EQ(from_int8.to<int64_t>(), -2);

  const Scalar t(true), f(false);
  EXPECT_TRUE(t.isBoolean());
  EXPECT_FALSE(t.isIntegral(false));
  EXPECT_TRUE(t.isIntegral(true));
  EXPECT_EQ(t.to<bool>(), true);
  EXPECT_EQ(t.to<int64_t>(), 1);
  EXPECT_EQ(f.to<int64_t>(), 0);

  const Scalar h(Half(0.5f));
  EXPECT_TRUE(h.isFloatingPoint());
  EXPECT_EQ(h.to<double>(), 0.5);
  const Scalar b(BFloat16(2.0f));
  EXPECT_EQ(b.to<double>(), 2.0);
  const Scalar fl(1.25f);
  EXPECT_TRUE(fl.isFloatingPoint());

  const Scalar zero;
  EXPECT_TRUE(zero.isIntegral(false));
  EXPECT_EQ(zero.to<int64_t>(), 0);
  static_assert(std::is_same<torch::executor::Scalar, Scalar>::value);
}

//
// TensorImpl and Tensor
//

TEST(TensorImpl, ConstructorAndGetters) {
  SizesType sizes[2] = {3, 2};
  DimOrderType dim_order[2] = {0, 1};
  StridesType strides[2] = {0, 0};
  float data[6] = {1, 2, 3, 4, 5, 6};
  TensorImpl t(ScalarType::Float, 2, sizes, data, dim_order, strides);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.size(0), 3);
  EXPECT_EQ(t.size(1), 2);
  EXPECT_EQ(t.scalar_type(), ScalarType::Float);
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  EXPECT_EQ(t.element_size(), 4);
  EXPECT_EQ(t.data(), data);
  EXPECT_EQ(t.mutable_data(), data);
  EXPECT_EQ(t.data<float>()[5], 6.0f);
  t.mutable_data<float>()[0] = 10.0f;
  EXPECT_EQ(data[0], 10.0f);
  EXPECT_EQ(t.sizes().data(), sizes);
  EXPECT_EQ(t.dim_order().data(), dim_order);
  EXPECT_EQ(t.strides().data(), strides);
  EXPECT_EQ(t.strides()[0], 2);  // computed from the sizes in the dim order
  EXPECT_EQ(t.strides()[1], 1);
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_EQ(t.device_type(), DeviceType::CPU);
  EXPECT_EQ(t.device_index(), 0);
  EXPECT_EQ(t.device(), Device(DeviceType::CPU, 0));

  float other[6] = {};
  t.set_data(other);
  EXPECT_EQ(t.data(), other);

  TensorImpl cuda(ScalarType::Half, 2, sizes, nullptr, dim_order, strides, TensorShapeDynamism::STATIC,
                  DeviceType::CUDA, 1);
  EXPECT_EQ(cuda.device_type(), DeviceType::CUDA);
  EXPECT_EQ(cuda.device_index(), 1);
  EXPECT_EQ(cuda.device(), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(cuda.nbytes(), 12u);

  // Rank 0: one element, no sizes needed.
  TensorImpl scalar(ScalarType::Long, 0, nullptr);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.nbytes(), 8u);
  EXPECT_TRUE(scalar.sizes().empty());

  SizesType empty_sizes[2] = {4, 0};
  TensorImpl empty(ScalarType::Float, 2, empty_sizes);
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(empty.nbytes(), 0u);
  EXPECT_EQ(empty.data(), nullptr);

  static_assert(std::is_same<SizesType, int32_t>::value && std::is_same<DimOrderType, uint8_t>::value &&
                std::is_same<StridesType, int32_t>::value);
  static_assert(sizeof(TensorImpl) == 8 * sizeof(void*));  // upstream's layout: 64 bytes on 64-bit targets
}

TEST(TensorImpl, StridesFollowDimOrder) {
  // NCHW sizes in channels-last dim order (0, 2, 3, 1).
  SizesType sizes[4] = {2, 3, 4, 5};
  DimOrderType dim_order[4] = {0, 2, 3, 1};
  StridesType strides[4] = {};
  TensorImpl t(ScalarType::Float, 4, sizes, nullptr, dim_order, strides);
  EXPECT_EQ(t.strides()[1], 1);
  EXPECT_EQ(t.strides()[3], 3);
  EXPECT_EQ(t.strides()[2], 15);
  EXPECT_EQ(t.strides()[0], 60);

  // A size-0 dimension counts as 1 for the strides of the others, as in ATen.
  SizesType zsizes[3] = {2, 0, 3};
  DimOrderType zorder[3] = {0, 1, 2};
  StridesType zstrides[3] = {};
  TensorImpl z(ScalarType::Float, 3, zsizes, nullptr, zorder, zstrides);
  EXPECT_EQ(z.strides()[0], 3);
  EXPECT_EQ(z.strides()[1], 3);
  EXPECT_EQ(z.strides()[2], 1);
}

TEST(TensorImpl, ResizeRules) {
  DimOrderType order[2] = {0, 1};

  // STATIC: only the current sizes.
  SizesType s_sizes[2] = {3, 2};
  StridesType s_strides[2] = {};
  TensorImpl s(ScalarType::Float, 2, s_sizes, nullptr, order, s_strides);
  const SizesType same[2] = {3, 2};
  const SizesType smaller[2] = {2, 2};
  const SizesType rank1[1] = {6};
  EXPECT_EQ(s.internal_resize_contiguous({same, 2}), Error::Ok);
  EXPECT_EQ(s.internal_resize_contiguous({smaller, 2}), Error::NotSupported);
  EXPECT_EQ(s.size(0), 3);
  EXPECT_EQ(s.internal_resize_contiguous({rank1, 1}), Error::NotSupported);

  // DYNAMIC_BOUND: any sizes within the element count given at construction.
  SizesType b_sizes[2] = {3, 2};
  StridesType b_strides[2] = {};
  TensorImpl b(ScalarType::Float, 2, b_sizes, nullptr, order, b_strides, TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(b.numel_bound(), 6);
  const SizesType one_by_one[2] = {1, 1};
  EXPECT_EQ(b.internal_resize_contiguous({one_by_one, 2}), Error::Ok);
  EXPECT_EQ(b.numel(), 1);
  EXPECT_EQ(b.strides()[0], 1);
  EXPECT_EQ(b.strides()[1], 1);
  const SizesType two_by_three[2] = {2, 3};
  EXPECT_EQ(b.internal_resize_contiguous({two_by_three, 2}), Error::Ok);
  EXPECT_EQ(b.size(1), 3);
  EXPECT_EQ(b.strides()[0], 3);
  EXPECT_EQ(b_sizes[1], 3);  // the sizes array itself changes
  const SizesType too_big[2] = {4, 2};
  EXPECT_EQ(b.internal_resize_contiguous({too_big, 2}), Error::NotSupported);
  EXPECT_EQ(b.numel(), 6);
  const SizesType negative[2] = {-1, 2};
  EXPECT_EQ(b.internal_resize_contiguous({negative, 2}), Error::InvalidArgument);
  const SizesType zero[2] = {0, 5};
  EXPECT_EQ(b.internal_resize_contiguous({zero, 2}), Error::Ok);
  EXPECT_EQ(b.numel(), 0);
  EXPECT_EQ(b.internal_resize_contiguous({rank1, 1}), Error::NotSupported);

  // DYNAMIC_UNBOUND: the memory behind it is not reallocated here, so it keeps the same bound.
  SizesType u_sizes[2] = {2, 2};
  StridesType u_strides[2] = {};
  TensorImpl u(ScalarType::Float, 2, u_sizes, nullptr, order, u_strides, TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(u.internal_resize_contiguous({one_by_one, 2}), Error::Ok);
  EXPECT_EQ(u.numel(), 1);
  const SizesType four[2] = {4, 1};
  EXPECT_EQ(u.internal_resize_contiguous({four, 2}), Error::Ok);
  EXPECT_EQ(u.internal_resize_contiguous({two_by_three, 2}), Error::NotSupported);

  // Rank 0 always resizes to no sizes.
  TensorImpl r0(ScalarType::Float, 0, nullptr);
  EXPECT_EQ(r0.internal_resize_contiguous({}), Error::Ok);

  // The deprecated aborting form.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  b.set_sizes_contiguous({one_by_one, 2});
#pragma GCC diagnostic pop
  EXPECT_EQ(b.numel(), 1);
}

TEST(TensorImpl, NumelHelpers) {
  const SizesType sizes[3] = {2, 3, 4};
  EXPECT_EQ(executorch::runtime::etensor::compute_numel(sizes, 3), 24);
  EXPECT_EQ(executorch::runtime::etensor::compute_numel(nullptr, 0), 1);
  EXPECT_EQ(executorch::aten::compute_numel(sizes, 2), 6);
  Result<ssize_t> n = executorch::aten::safe_numel(sizes, 3);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 24);
  const SizesType negative[2] = {2, -3};
  EXPECT_EQ(executorch::aten::safe_numel(negative, 2).error(), Error::InvalidArgument);
  EXPECT_EQ(executorch::aten::safe_numel(nullptr, 2).error(), Error::InvalidArgument);
  const SizesType huge[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
  EXPECT_EQ(executorch::aten::safe_numel(huge, 3).error(), Error::InvalidArgument);
  EXPECT_EQ(torch::executor::safe_numel(sizes, 1).get(), 2);

  char buf[64];
  std::snprintf(buf, sizeof(buf),
                "%" ET_PRI_TENSOR_SIZE " %" ET_PRI_TENSOR_DIM " %" ET_PRI_TENSOR_NUMEL " %" ET_PRI_SIZES_AND_STRIDES,
                static_cast<ssize_t>(5), static_cast<ssize_t>(2), static_cast<ssize_t>(10), sizes[1]);
  EXPECT_STREQ(buf, "5 2 10 3");
}

TEST(TensorImplDeathTest, InvalidArgumentsAbort) {
  SizesType sizes[2] = {2, 2};
  EXPECT_DEATH(TensorImpl(static_cast<ScalarType>(-1), 2, sizes), "");
  EXPECT_DEATH(TensorImpl(ScalarType::Undefined, 2, sizes), "");
  EXPECT_DEATH(TensorImpl(ScalarType::NumOptions, 2, sizes), "");
  EXPECT_DEATH(TensorImpl(ScalarType::Float, -1, sizes), "");
  EXPECT_DEATH(TensorImpl(ScalarType::Float, 2, nullptr), "");
  SizesType negative[2] = {2, -1};
  EXPECT_DEATH(TensorImpl(ScalarType::Float, 2, negative), "");
  TensorImpl t(ScalarType::Float, 2, sizes);
  EXPECT_DEATH((void)t.size(2), "Dimension out of range");
  EXPECT_DEATH((void)t.size(-1), "Dimension out of range");
}

TEST(Tensor, Accessors) {
  SizesType sizes[2] = {2, 3};
  DimOrderType dim_order[2] = {0, 1};
  StridesType strides[2] = {};
  int32_t data[6] = {0, 1, 2, 3, 4, 5};
  TensorImpl impl(ScalarType::Int, 2, sizes, data, dim_order, strides, TensorShapeDynamism::DYNAMIC_BOUND,
                  DeviceType::CUDA, 3);
  const Tensor t(&impl);
  EXPECT_EQ(t.unsafeGetTensorImpl(), &impl);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(t.size(1), 3);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.scalar_type(), ScalarType::Int);
  EXPECT_EQ(t.dtype(), ScalarType::Int);
  EXPECT_EQ(t.element_size(), 4);
  EXPECT_EQ(t.sizes()[0], 2);
  EXPECT_EQ(t.dim_order()[1], 1);
  EXPECT_EQ(t.strides()[0], 3);
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t.device(), Device(DeviceType::CUDA, 3));
  EXPECT_EQ(t.device_type(), DeviceType::CUDA);
  EXPECT_EQ(t.device_index(), DeviceIndex(3));
  EXPECT_EQ(t.const_data_ptr<int32_t>()[4], 4);
  EXPECT_EQ(t.const_data_ptr(), data);
  t.mutable_data_ptr<int32_t>()[0] = 9;  // writable through a const handle
  EXPECT_EQ(data[0], 9);
  EXPECT_EQ(t.mutable_data_ptr(), data);
  // Element (1, 2) through the strides.
  EXPECT_EQ(t.const_data_ptr<int32_t>()[1 * t.strides()[0] + 2 * t.strides()[1]], 5);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(t.data_ptr<int32_t>(), data);
  EXPECT_EQ(t.data_ptr(), data);
  t.set_data(nullptr);
#pragma GCC diagnostic pop
  EXPECT_EQ(t.const_data_ptr(), nullptr);

  Tensor copy = t;  // a handle: both see the same TensorImpl
  EXPECT_EQ(copy.unsafeGetTensorImpl(), &impl);
  static_assert(std::is_trivially_copyable<Tensor>::value);
  static_assert(std::is_same<Tensor::SizesType, SizesType>::value);
  static_assert(std::is_same<torch::executor::Tensor, Tensor>::value);
  static_assert(std::is_same<torch::executor::TensorImpl, TensorImpl>::value);
}

//
// executorch::aten names
//

TEST(ExecAten, Aliases) {
  namespace et = ::executorch::runtime::etensor;
  static_assert(std::is_same<executorch::aten::Tensor, et::Tensor>::value);
  static_assert(std::is_same<executorch::aten::TensorImpl, et::TensorImpl>::value);
  static_assert(std::is_same<executorch::aten::ScalarType, et::ScalarType>::value);
  static_assert(std::is_same<executorch::aten::Scalar, et::Scalar>::value);
  static_assert(std::is_same<executorch::aten::TensorShapeDynamism, TensorShapeDynamism>::value);
  static_assert(std::is_same<executorch::aten::SizesType, int32_t>::value);
  static_assert(std::is_same<executorch::aten::DimOrderType, uint8_t>::value);
  static_assert(std::is_same<executorch::aten::StridesType, int32_t>::value);
  static_assert(std::is_same<executorch::aten::Half, et::Half>::value);
  static_assert(std::is_same<executorch::aten::BFloat16, et::BFloat16>::value);
  static_assert(std::is_same<executorch::aten::complex<double>, et::complex<double>>::value);
  static_assert(std::is_same<executorch::aten::qint8, et::qint8>::value);
  static_assert(std::is_same<executorch::aten::quint8, et::quint8>::value);
  static_assert(std::is_same<executorch::aten::qint32, et::qint32>::value);
  static_assert(std::is_same<executorch::aten::quint4x2, et::quint4x2>::value);
  static_assert(std::is_same<executorch::aten::quint2x4, et::quint2x4>::value);
  static_assert(std::is_same<executorch::aten::MemoryFormat, et::MemoryFormat>::value);
  static_assert(std::is_same<executorch::aten::Layout, et::Layout>::value);
  static_assert(std::is_same<executorch::aten::Device, et::Device>::value);
  static_assert(std::is_same<executorch::aten::DeviceType, et::DeviceType>::value);
  static_assert(std::is_same<executorch::aten::ArrayRef<float>, ArrayRef<float>>::value);
  static_assert(std::is_same<executorch::aten::IntArrayRef, ArrayRef<int64_t>>::value);
  static_assert(std::is_same<executorch::aten::TensorList, ArrayRef<et::Tensor>>::value);
  static_assert(std::is_same<torch::executor::TensorList, ArrayRef<et::Tensor>>::value);
  static_assert(std::is_same<executorch::aten::OptionalArrayRef<float>, std::optional<ArrayRef<float>>>::value);
  static_assert(std::is_same<executorch::aten::OptionalIntArrayRef, std::optional<ArrayRef<int64_t>>>::value);
  static_assert(std::is_same<executorch::aten::optional<int>, std::optional<int>>::value);
  static_assert(std::is_same<executorch::aten::nullopt_t, std::nullopt_t>::value);
  static_assert(std::is_same<executorch::aten::string_view, std::string_view>::value);
  static_assert(std::is_same<exec_aten::Tensor, et::Tensor>::value);  // the old namespace name
  const executorch::aten::optional<int> none = executorch::aten::nullopt;
  EXPECT_FALSE(none.has_value());

  // The runtime namespace macro (upstream's ATen mode would make it runtime::aten).
  static_assert(std::is_same<executorch::ET_RUNTIME_NAMESPACE::Error, Error>::value);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  // The deprecated portable spellings of std::optional / std::string_view.
  static_assert(std::is_same<et::optional<int>, std::optional<int>>::value);
  static_assert(std::is_same<torch::executor::string_view, std::string_view>::value);
  static_assert(std::is_same<et::string_view, std::string_view>::value);
#pragma GCC diagnostic pop
}

}  // namespace
