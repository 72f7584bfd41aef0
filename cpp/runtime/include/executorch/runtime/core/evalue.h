#pragma once
// EValue: a tagged value (None, Tensor, String, Double, Int, Bool, or a list of bools, doubles, ints, tensors or
// optional tensors): what instructions read and write, and what methods take and return. Upstream's API: a
// constructor per kind, isX() / toX() (toX aborts on the wrong kind), tryToX() (InvalidType instead), to<T>() and
// toOptional<T>(). Copying copies the value (a Tensor handle is copied, not its data); moving leaves the source
// None.
//
// Lists are stored by value here (upstream stores pointers): the pointer constructors copy the list object, whose
// elements stay where they are. Int, Tensor and optional-Tensor lists are BoxedEvalueLists: views of other
// EValues, so values computed at run time show through.
#include <cstdint>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

struct EValue;

namespace internal {
// to<T>() on an lvalue EValue returns a reference for Tensor and a value for everything else.
template <typename T>
struct evalue_to_const_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_const_ref_overload_return<executorch::aten::Tensor> {
  using type = const executorch::aten::Tensor&;
};
template <typename T>
struct evalue_to_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_ref_overload_return<executorch::aten::Tensor> {
  using type = executorch::aten::Tensor&;
};

// Whether `p != nullptr` compiles (smart pointers); otherwise a wrapper is tested with its bool conversion.
template <typename P, typename = void>
struct compares_with_nullptr : std::false_type {};
template <typename P>
struct compares_with_nullptr<P, std::void_t<decltype(std::declval<const P&>() != nullptr)>> : std::true_type {};
}  // namespace internal

// A list whose items live in other EValues (`wrapped_vals`, `size` pointers). get() copies the items' current
// values into `unwrapped_vals` (`size` elements of storage) and returns a view of it.
template <typename T>
class BoxedEvalueList {
 public:
  BoxedEvalueList() = default;
  // Aborts if wrapped_vals or unwrapped_vals is null (for a non-empty list) or size is negative. (Upstream's
  // signature is (EValue**, T*, int); any integer size is accepted here.)
  template <typename Size, typename std::enable_if_t<std::is_integral<Size>::value, int> = 0>
  BoxedEvalueList(EValue* const* wrapped_vals, T* unwrapped_vals, Size size)
      : wrapped_vals_(check_wrapped_vals(wrapped_vals, size)),
        unwrapped_vals_(check_unwrapped_vals(unwrapped_vals, size)),
        size_(static_cast<size_t>(size)) {}

  // The items' current values; aborts if an item is missing or of the wrong kind.
  executorch::aten::ArrayRef<T> get() const;
  // As get(), but InvalidState for a missing item and InvalidType for one of the wrong kind.
  Result<executorch::aten::ArrayRef<T>> tryGet() const;

  // Ends the lifetime of the unwrapped copies (they are trivially destructible in this runtime).
  void destroy_elements() {
    for (size_t i = 0; i < size_; ++i) unwrapped_vals_[i].~T();
  }

  // Extensions of this SDK: the number of items and the item pointers (an optional-tensor list may hold nulls).
  size_t size() const { return size_; }
  EValue* const* wrapped_vals() const { return wrapped_vals_; }

 private:
  template <typename Size>
  static EValue* const* check_wrapped_vals(EValue* const* wrapped_vals, Size size) {
    ET_CHECK_MSG(wrapped_vals != nullptr || size == 0, "wrapped_vals cannot be null");
    ET_CHECK_MSG(!(size < 0), "size cannot be negative");
    return wrapped_vals;
  }
  template <typename Size>
  static T* check_unwrapped_vals(T* unwrapped_vals, Size size) {
    ET_CHECK_MSG(unwrapped_vals != nullptr || size == 0, "unwrapped_vals cannot be null");
    return unwrapped_vals;
  }

  EValue* const* wrapped_vals_ = nullptr;
  T* unwrapped_vals_ = nullptr;
  size_t size_ = 0;
};

// Defined after EValue.
template <>
inline executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>
BoxedEvalueList<std::optional<executorch::aten::Tensor>>::get() const;
template <>
inline Result<executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>>
BoxedEvalueList<std::optional<executorch::aten::Tensor>>::tryGet() const;

struct EValue {
  union Payload {
    // Everything but the Tensor: copied bit for bit.
    union TriviallyCopyablePayload {
      TriviallyCopyablePayload() : as_int(0) {}
      int64_t as_int;
      double as_double;
      bool as_bool;
      executorch::aten::ArrayRef<char> as_string;
      executorch::aten::ArrayRef<double> as_double_list;
      executorch::aten::ArrayRef<bool> as_bool_list;
      BoxedEvalueList<int64_t> as_int_list;
      BoxedEvalueList<executorch::aten::Tensor> as_tensor_list;
      BoxedEvalueList<std::optional<executorch::aten::Tensor>> as_list_optional_tensor;
    } copyable_union;

    // The Tensor, with its own lifetime (constructed and destroyed by EValue).
    executorch::aten::Tensor as_tensor;

    Payload() {}
    ~Payload() {}
  };

  Payload payload;
  Tag tag;

  // None.
  EValue() : tag(Tag::None) { payload.copyable_union.as_int = 0; }
  EValue(const EValue& rhs) : EValue(rhs.payload, rhs.tag) {}
  EValue(EValue&& rhs) noexcept : tag(rhs.tag) { move_from(std::move(rhs)); }
  EValue& operator=(EValue&& rhs) & noexcept {
    if (&rhs == this) return *this;
    destroy();
    move_from(std::move(rhs));
    return *this;
  }
  EValue& operator=(const EValue& rhs) & {
    *this = EValue(rhs);
    return *this;
  }
  ~EValue() { destroy(); }

  // ---- None
  bool isNone() const { return tag == Tag::None; }

  // ---- Int
  /* implicit */ EValue(int64_t i) : tag(Tag::Int) { payload.copyable_union.as_int = i; }
  // Extension of this SDK: an int literal is an Int (upstream's EValue(1) is ambiguous).
  /* implicit */ EValue(int i) : EValue(static_cast<int64_t>(i)) {}
  bool isInt() const { return tag == Tag::Int; }
  int64_t toInt() const {
    ET_CHECK_MSG(isInt(), "EValue is not an int (tag %s).", tag_name());
    return payload.copyable_union.as_int;
  }
  Result<int64_t> tryToInt() const {
    if (!isInt()) return Error::InvalidType;
    return payload.copyable_union.as_int;
  }

  // ---- Double
  /* implicit */ EValue(double d) : tag(Tag::Double) { payload.copyable_union.as_double = d; }
  bool isDouble() const { return tag == Tag::Double; }
  double toDouble() const {
    ET_CHECK_MSG(isDouble(), "EValue is not a Double (tag %s).", tag_name());
    return payload.copyable_union.as_double;
  }
  Result<double> tryToDouble() const {
    if (!isDouble()) return Error::InvalidType;
    return payload.copyable_union.as_double;
  }

  // ---- Bool
  /* implicit */ EValue(bool b) : tag(Tag::Bool) { payload.copyable_union.as_bool = b; }
  bool isBool() const { return tag == Tag::Bool; }
  bool toBool() const {
    ET_CHECK_MSG(isBool(), "EValue is not a Bool (tag %s).", tag_name());
    return payload.copyable_union.as_bool;
  }
  Result<bool> tryToBool() const {
    if (!isBool()) return Error::InvalidType;
    return payload.copyable_union.as_bool;
  }

  // ---- Scalar: stored as an Int, a Double or a Bool.
  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isIntegral(false)) {
      tag = Tag::Int;
      payload.copyable_union.as_int = s.to<int64_t>();
    } else if (s.isFloatingPoint()) {
      tag = Tag::Double;
      payload.copyable_union.as_double = s.to<double>();
    } else {
      tag = Tag::Bool;
      payload.copyable_union.as_bool = s.to<bool>();
    }
  }
  bool isScalar() const { return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool; }
  executorch::aten::Scalar toScalar() const {
    if (isDouble()) return toDouble();
    if (isInt()) return toInt();
    ET_CHECK_MSG(isBool(), "EValue is not a Scalar (tag %s).", tag_name());
    return toBool();
  }
  Result<executorch::aten::Scalar> tryToScalar() const {
    if (isDouble()) return executorch::aten::Scalar(payload.copyable_union.as_double);
    if (isInt()) return executorch::aten::Scalar(payload.copyable_union.as_int);
    if (isBool()) return executorch::aten::Scalar(payload.copyable_union.as_bool);
    return Error::InvalidType;
  }
  // Extension of this SDK: an Int, Double or Bool as a double.
  double toScalarDouble() const {
    if (isInt()) return static_cast<double>(payload.copyable_union.as_int);
    if (isBool()) return payload.copyable_union.as_bool ? 1.0 : 0.0;
    return toDouble();
  }

  // ---- Tensor
  /* implicit */ EValue(executorch::aten::Tensor t) : tag(Tag::Tensor) {
    new (&payload.as_tensor) executorch::aten::Tensor(t);
  }
  // Anything that dereferences to something an EValue can be made of (a TensorPtr, std::unique_ptr<Tensor>, ...):
  // the EValue of `*value`. A null one gives None here (upstream aborts), which methods then reject as a wrong
  // input instead of crashing. Raw pointers are not accepted.
  template <typename T, typename = std::enable_if_t<!std::is_same<std::decay_t<T>, EValue>::value &&
                                                    !std::is_pointer<std::decay_t<T>>::value &&
                                                    std::is_convertible<decltype(*std::declval<T>()), EValue>::value>>
  /* implicit */ EValue(T&& value) : tag(Tag::None) {
    payload.copyable_union.as_int = 0;
    if (is_null(value)) return;
    move_from(EValue(*std::forward<T>(value)));
  }
  template <typename T>
  explicit EValue(T* value) = delete;
  bool isTensor() const { return tag == Tag::Tensor; }
  // On an rvalue: the Tensor, leaving this EValue None.
  executorch::aten::Tensor toTensor() && {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %s).", tag_name());
    executorch::aten::Tensor res = std::move(payload.as_tensor);
    clear_to_none();
    return res;
  }
  executorch::aten::Tensor& toTensor() & {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %s).", tag_name());
    return payload.as_tensor;
  }
  const executorch::aten::Tensor& toTensor() const& {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %s).", tag_name());
    return payload.as_tensor;
  }
  Result<executorch::aten::Tensor> tryToTensor() const {
    if (!isTensor()) return Error::InvalidType;
    return payload.as_tensor;
  }

  // ---- String (chars, not NUL-terminated)
  /* implicit */ EValue(executorch::aten::ArrayRef<char>* s) : tag(Tag::String) {
    ET_CHECK_MSG(s != nullptr, "ArrayRef<char> pointer cannot be null");
    new (&payload.copyable_union.as_string) executorch::aten::ArrayRef<char>(*s);
  }
  // Extension of this SDK: the `n` chars at `s` (not copied).
  EValue(const char* s, size_t n) : tag(Tag::String) {
    new (&payload.copyable_union.as_string) executorch::aten::ArrayRef<char>(s, n);
  }
  bool isString() const { return tag == Tag::String; }
  std::string_view toString() const {
    ET_CHECK_MSG(isString(), "EValue is not a String (tag %s).", tag_name());
    return std::string_view(payload.copyable_union.as_string.data(), payload.copyable_union.as_string.size());
  }
  Result<std::string_view> tryToString() const {
    if (!isString()) return Error::InvalidType;
    return std::string_view(payload.copyable_union.as_string.data(), payload.copyable_union.as_string.size());
  }

  // ---- Int list
  /* implicit */ EValue(BoxedEvalueList<int64_t>* i) : tag(Tag::ListInt) {
    ET_CHECK_MSG(i != nullptr, "BoxedEvalueList<int64_t> pointer cannot be null");
    new (&payload.copyable_union.as_int_list) BoxedEvalueList<int64_t>(*i);
  }
  /* implicit */ EValue(BoxedEvalueList<int64_t> i) : tag(Tag::ListInt) {
    new (&payload.copyable_union.as_int_list) BoxedEvalueList<int64_t>(i);
  }
  bool isIntList() const { return tag == Tag::ListInt; }
  executorch::aten::ArrayRef<int64_t> toIntList() const {
    ET_CHECK_MSG(isIntList(), "EValue is not an Int List (tag %s).", tag_name());
    return payload.copyable_union.as_int_list.get();
  }
  Result<executorch::aten::ArrayRef<int64_t>> tryToIntList() const {
    if (!isIntList()) return Error::InvalidType;
    return payload.copyable_union.as_int_list.tryGet();
  }

  // ---- Bool list
  /* implicit */ EValue(executorch::aten::ArrayRef<bool>* b) : tag(Tag::ListBool) {
    ET_CHECK_MSG(b != nullptr, "ArrayRef<bool> pointer cannot be null");
    new (&payload.copyable_union.as_bool_list) executorch::aten::ArrayRef<bool>(*b);
  }
  /* implicit */ EValue(executorch::aten::ArrayRef<bool> b) : tag(Tag::ListBool) {
    new (&payload.copyable_union.as_bool_list) executorch::aten::ArrayRef<bool>(b);
  }
  bool isBoolList() const { return tag == Tag::ListBool; }
  executorch::aten::ArrayRef<bool> toBoolList() const {
    ET_CHECK_MSG(isBoolList(), "EValue is not a Bool List (tag %s).", tag_name());
    return payload.copyable_union.as_bool_list;
  }
  Result<executorch::aten::ArrayRef<bool>> tryToBoolList() const {
    if (!isBoolList()) return Error::InvalidType;
    return payload.copyable_union.as_bool_list;
  }

  // ---- Double list
  /* implicit */ EValue(executorch::aten::ArrayRef<double>* d) : tag(Tag::ListDouble) {
    ET_CHECK_MSG(d != nullptr, "ArrayRef<double> pointer cannot be null");
    new (&payload.copyable_union.as_double_list) executorch::aten::ArrayRef<double>(*d);
  }
  /* implicit */ EValue(executorch::aten::ArrayRef<double> d) : tag(Tag::ListDouble) {
    new (&payload.copyable_union.as_double_list) executorch::aten::ArrayRef<double>(d);
  }
  bool isDoubleList() const { return tag == Tag::ListDouble; }
  executorch::aten::ArrayRef<double> toDoubleList() const {
    ET_CHECK_MSG(isDoubleList(), "EValue is not a Double List (tag %s).", tag_name());
    return payload.copyable_union.as_double_list;
  }
  Result<executorch::aten::ArrayRef<double>> tryToDoubleList() const {
    if (!isDoubleList()) return Error::InvalidType;
    return payload.copyable_union.as_double_list;
  }

  // ---- Tensor list
  /* implicit */ EValue(BoxedEvalueList<executorch::aten::Tensor>* t) : tag(Tag::ListTensor) {
    ET_CHECK_MSG(t != nullptr, "BoxedEvalueList<Tensor> pointer cannot be null");
    new (&payload.copyable_union.as_tensor_list) BoxedEvalueList<executorch::aten::Tensor>(*t);
  }
  /* implicit */ EValue(BoxedEvalueList<executorch::aten::Tensor> t) : tag(Tag::ListTensor) {
    new (&payload.copyable_union.as_tensor_list) BoxedEvalueList<executorch::aten::Tensor>(t);
  }
  bool isTensorList() const { return tag == Tag::ListTensor; }
  executorch::aten::ArrayRef<executorch::aten::Tensor> toTensorList() const {
    ET_CHECK_MSG(isTensorList(), "EValue is not a Tensor List (tag %s).", tag_name());
    return payload.copyable_union.as_tensor_list.get();
  }
  Result<executorch::aten::ArrayRef<executorch::aten::Tensor>> tryToTensorList() const {
    if (!isTensorList()) return Error::InvalidType;
    return payload.copyable_union.as_tensor_list.tryGet();
  }

  // ---- Optional-tensor list (a None or missing item is nullopt)
  /* implicit */ EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>>* t) : tag(Tag::ListOptionalTensor) {
    ET_CHECK_MSG(t != nullptr, "BoxedEvalueList<optional<Tensor>> pointer cannot be null");
    new (&payload.copyable_union.as_list_optional_tensor) BoxedEvalueList<std::optional<executorch::aten::Tensor>>(*t);
  }
  /* implicit */ EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>> t) : tag(Tag::ListOptionalTensor) {
    new (&payload.copyable_union.as_list_optional_tensor) BoxedEvalueList<std::optional<executorch::aten::Tensor>>(t);
  }
  bool isListOptionalTensor() const { return tag == Tag::ListOptionalTensor; }
  executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>> toListOptionalTensor() const {
    ET_CHECK_MSG(isListOptionalTensor(), "EValue is not a List Optional Tensor (tag %s).", tag_name());
    return payload.copyable_union.as_list_optional_tensor.get();
  }
  Result<executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>> tryToListOptionalTensor() const {
    if (!isListOptionalTensor()) return Error::InvalidType;
    return payload.copyable_union.as_list_optional_tensor.tryGet();
  }

  // ---- Enum arguments, stored as an Int.
  executorch::aten::ScalarType toScalarType() const {
    ET_CHECK_MSG(isInt(), "EValue is not a ScalarType (tag %s).", tag_name());
    return static_cast<executorch::aten::ScalarType>(payload.copyable_union.as_int);
  }
  Result<executorch::aten::ScalarType> tryToScalarType() const {
    if (!isInt()) return Error::InvalidType;
    return static_cast<executorch::aten::ScalarType>(payload.copyable_union.as_int);
  }
  executorch::aten::MemoryFormat toMemoryFormat() const {
    ET_CHECK_MSG(isInt(), "EValue is not a MemoryFormat (tag %s).", tag_name());
    return static_cast<executorch::aten::MemoryFormat>(payload.copyable_union.as_int);
  }
  Result<executorch::aten::MemoryFormat> tryToMemoryFormat() const {
    if (!isInt()) return Error::InvalidType;
    return static_cast<executorch::aten::MemoryFormat>(payload.copyable_union.as_int);
  }
  executorch::aten::Layout toLayout() const {
    ET_CHECK_MSG(isInt(), "EValue is not a Layout (tag %s).", tag_name());
    return static_cast<executorch::aten::Layout>(payload.copyable_union.as_int);
  }
  Result<executorch::aten::Layout> tryToLayout() const {
    if (!isInt()) return Error::InvalidType;
    return static_cast<executorch::aten::Layout>(payload.copyable_union.as_int);
  }
  // The Int is the device type; the index is -1 (unspecified), as upstream.
  executorch::aten::Device toDevice() const {
    ET_CHECK_MSG(isInt(), "EValue is not a Device (tag %s).", tag_name());
    return executorch::aten::Device(static_cast<executorch::aten::DeviceType>(payload.copyable_union.as_int), -1);
  }
  Result<executorch::aten::Device> tryToDevice() const {
    if (!isInt()) return Error::InvalidType;
    return executorch::aten::Device(static_cast<executorch::aten::DeviceType>(payload.copyable_union.as_int), -1);
  }

  // ---- Generic access: T is int64_t, double, bool, std::string_view, Scalar, ScalarType, MemoryFormat, Layout,
  // Device, Tensor, std::optional<Tensor>, ArrayRef<int64_t / double / bool / Tensor / optional<Tensor>> or
  // std::optional of one of those lists.
  template <typename T>
  T to() &&;
  template <typename T>
  typename internal::evalue_to_const_ref_overload_return<T>::type to() const&;
  template <typename T>
  typename internal::evalue_to_ref_overload_return<T>::type to() &;
  template <typename T>
  Result<T> tryTo() const;

  // nullopt for None, otherwise to<T>().
  template <typename T>
  inline std::optional<T> toOptional() const {
    if (this->isNone()) return std::nullopt;
    return this->to<T>();
  }
  template <typename T>
  inline Result<std::optional<T>> tryToOptional() const {
    if (this->isNone()) return std::optional<T>(std::nullopt);
    auto r = this->tryTo<T>();
    if (!r.ok()) return r.error();
    return std::optional<T>(std::move(r.get()));
  }

 private:
  const char* tag_name() const {
#if ET_ENABLE_ENUM_STRINGS
    return tag_to_string(tag);
#else
    return "?";
#endif
  }
  template <typename P>
  static bool is_null(const P& p) {
    if constexpr (internal::compares_with_nullptr<P>::value) {
      return p == nullptr;
    } else {
      return !static_cast<bool>(p);
    }
  }
  void clear_to_none() noexcept {
    payload.copyable_union.as_int = 0;
    tag = Tag::None;
  }
  void move_from(EValue&& rhs) noexcept {
    if (rhs.isTensor()) {
      new (&payload.as_tensor) executorch::aten::Tensor(std::move(rhs.payload.as_tensor));
      rhs.payload.as_tensor.~Tensor();
    } else {
      payload.copyable_union = rhs.payload.copyable_union;
    }
    tag = rhs.tag;
    rhs.clear_to_none();
  }
  void destroy() {
    // Lists only view other EValues' items, so nothing else is owned.
    if (isTensor()) payload.as_tensor.~Tensor();
  }
  EValue(const Payload& p, Tag t) : tag(t) {
    if (isTensor()) {
      new (&payload.as_tensor) executorch::aten::Tensor(p.as_tensor);
    } else {
      payload.copyable_union = p.copyable_union;
    }
  }
};

#define ET_INTERNAL_EVALUE_DEFINE_TO(T, method_name)                                                            \
  template <>                                                                                                   \
  inline T EValue::to<T>()&& {                                                                                  \
    return static_cast<T>(std::move(*this).method_name());                                                      \
  }                                                                                                             \
  template <>                                                                                                   \
  inline ::executorch::runtime::internal::evalue_to_const_ref_overload_return<T>::type EValue::to<T>() const& { \
    using return_type = ::executorch::runtime::internal::evalue_to_const_ref_overload_return<T>::type;          \
    return static_cast<return_type>(this->method_name());                                                       \
  }                                                                                                             \
  template <>                                                                                                   \
  inline ::executorch::runtime::internal::evalue_to_ref_overload_return<T>::type EValue::to<T>()& {             \
    using return_type = ::executorch::runtime::internal::evalue_to_ref_overload_return<T>::type;                \
    return static_cast<return_type>(this->method_name());                                                       \
  }

ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Scalar, toScalar)
ET_INTERNAL_EVALUE_DEFINE_TO(int64_t, toInt)
ET_INTERNAL_EVALUE_DEFINE_TO(bool, toBool)
ET_INTERNAL_EVALUE_DEFINE_TO(double, toDouble)
ET_INTERNAL_EVALUE_DEFINE_TO(std::string_view, toString)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ScalarType, toScalarType)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::MemoryFormat, toMemoryFormat)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Layout, toLayout)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Device, toDevice)
ET_INTERNAL_EVALUE_DEFINE_TO(std::optional<executorch::aten::Tensor>, toOptional<executorch::aten::Tensor>)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Tensor, toTensor)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ArrayRef<int64_t>, toIntList)
ET_INTERNAL_EVALUE_DEFINE_TO(std::optional<executorch::aten::ArrayRef<int64_t>>,
                             toOptional<executorch::aten::ArrayRef<int64_t>>)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ArrayRef<double>, toDoubleList)
ET_INTERNAL_EVALUE_DEFINE_TO(std::optional<executorch::aten::ArrayRef<double>>,
                             toOptional<executorch::aten::ArrayRef<double>>)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ArrayRef<bool>, toBoolList)
ET_INTERNAL_EVALUE_DEFINE_TO(std::optional<executorch::aten::ArrayRef<bool>>,
                             toOptional<executorch::aten::ArrayRef<bool>>)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ArrayRef<executorch::aten::Tensor>, toTensorList)
ET_INTERNAL_EVALUE_DEFINE_TO(std::optional<executorch::aten::ArrayRef<executorch::aten::Tensor>>,
                             toOptional<executorch::aten::ArrayRef<executorch::aten::Tensor>>)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>, toListOptionalTensor)
#undef ET_INTERNAL_EVALUE_DEFINE_TO

#define ET_INTERNAL_EVALUE_DEFINE_TRY_TO(T, method_name) \
  template <>                                            \
  inline Result<T> EValue::tryTo<T>() const {            \
    return this->method_name();                          \
  }

ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::Scalar, tryToScalar)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(int64_t, tryToInt)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(bool, tryToBool)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(double, tryToDouble)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::string_view, tryToString)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ScalarType, tryToScalarType)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::MemoryFormat, tryToMemoryFormat)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::Layout, tryToLayout)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::Device, tryToDevice)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::Tensor, tryToTensor)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::optional<executorch::aten::Tensor>, tryToOptional<executorch::aten::Tensor>)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ArrayRef<int64_t>, tryToIntList)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::optional<executorch::aten::ArrayRef<int64_t>>,
                                 tryToOptional<executorch::aten::ArrayRef<int64_t>>)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ArrayRef<double>, tryToDoubleList)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::optional<executorch::aten::ArrayRef<double>>,
                                 tryToOptional<executorch::aten::ArrayRef<double>>)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ArrayRef<bool>, tryToBoolList)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::optional<executorch::aten::ArrayRef<bool>>,
                                 tryToOptional<executorch::aten::ArrayRef<bool>>)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ArrayRef<executorch::aten::Tensor>, tryToTensorList)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(std::optional<executorch::aten::ArrayRef<executorch::aten::Tensor>>,
                                 tryToOptional<executorch::aten::ArrayRef<executorch::aten::Tensor>>)
ET_INTERNAL_EVALUE_DEFINE_TRY_TO(executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>,
                                 tryToListOptionalTensor)
#undef ET_INTERNAL_EVALUE_DEFINE_TRY_TO

template <typename T>
executorch::aten::ArrayRef<T> BoxedEvalueList<T>::get() const {
  for (size_t i = 0; i < size_; ++i) {
    ET_CHECK(wrapped_vals_[i] != nullptr);
    unwrapped_vals_[i] = wrapped_vals_[i]->template to<T>();
  }
  return executorch::aten::ArrayRef<T>{unwrapped_vals_, size_};
}

template <typename T>
Result<executorch::aten::ArrayRef<T>> BoxedEvalueList<T>::tryGet() const {
  for (size_t i = 0; i < size_; ++i) {
    if (wrapped_vals_[i] == nullptr) return Error::InvalidState;
    auto r = wrapped_vals_[i]->template tryTo<T>();
    if (!r.ok()) return r.error();
    unwrapped_vals_[i] = std::move(r.get());
  }
  return executorch::aten::ArrayRef<T>{unwrapped_vals_, size_};
}

// Optional tensors: a null item pointer is None too.
template <>
inline executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>
BoxedEvalueList<std::optional<executorch::aten::Tensor>>::get() const {
  for (size_t i = 0; i < size_; ++i) {
    unwrapped_vals_[i] =
        wrapped_vals_[i] == nullptr ? std::nullopt : wrapped_vals_[i]->to<std::optional<executorch::aten::Tensor>>();
  }
  return executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>{unwrapped_vals_, size_};
}

template <>
inline Result<executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>>
BoxedEvalueList<std::optional<executorch::aten::Tensor>>::tryGet() const {
  for (size_t i = 0; i < size_; ++i) {
    if (wrapped_vals_[i] == nullptr) {
      unwrapped_vals_[i] = std::nullopt;
      continue;
    }
    auto r = wrapped_vals_[i]->tryToOptional<executorch::aten::Tensor>();
    if (!r.ok()) return r.error();
    unwrapped_vals_[i] = std::move(r.get());
  }
  return executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>{unwrapped_vals_, size_};
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BoxedEvalueList;
using ::executorch::runtime::EValue;
}  // namespace executor
}  // namespace torch
