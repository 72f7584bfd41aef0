#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

struct EValue;

// A list whose items live in other EValues (so values computed at run time show through). get() copies the
// current items into the unwrapped array and returns a view of it.
template <typename T>
class BoxedEvalueList {
 public:
  BoxedEvalueList() = default;
  BoxedEvalueList(EValue* const* wrapped_vals, T* unwrapped_vals, size_t size)
      : wrapped_vals_(wrapped_vals), unwrapped_vals_(unwrapped_vals), size_(size) {}
  ArrayRef<T> get() const;
  size_t size() const { return size_; }
  EValue* const* wrapped_vals() const { return wrapped_vals_; }

 private:
  EValue* const* wrapped_vals_ = nullptr;  // for optional tensors a null entry means None
  T* unwrapped_vals_ = nullptr;
  size_t size_ = 0;
};

template <>
ArrayRef<int64_t> BoxedEvalueList<int64_t>::get() const;
template <>
ArrayRef<executorch::aten::Tensor> BoxedEvalueList<executorch::aten::Tensor>::get() const;
template <>
ArrayRef<std::optional<executorch::aten::Tensor>> BoxedEvalueList<std::optional<executorch::aten::Tensor>>::get() const;

// A tagged value: what instructions read and write, and what methods take and return.
struct EValue {
  union Payload {
    int64_t as_int;
    double as_double;
    bool as_bool;
    executorch::aten::Tensor as_tensor;
    ArrayRef<char> as_string;
    ArrayRef<double> as_double_list;
    ArrayRef<bool> as_bool_list;
    BoxedEvalueList<int64_t> as_int_list;
    BoxedEvalueList<executorch::aten::Tensor> as_tensor_list;
    BoxedEvalueList<std::optional<executorch::aten::Tensor>> as_list_optional_tensor;
    Payload() : as_int(0) {}
  };
  Payload payload;
  Tag tag = Tag::None;

  EValue() = default;
  /* implicit */ EValue(int64_t i) : tag(Tag::Int) { payload.as_int = i; }
  /* implicit */ EValue(int i) : tag(Tag::Int) { payload.as_int = i; }
  /* implicit */ EValue(double d) : tag(Tag::Double) { payload.as_double = d; }
  /* implicit */ EValue(bool b) : tag(Tag::Bool) { payload.as_bool = b; }
  /* implicit */ EValue(executorch::aten::Tensor t) : tag(Tag::Tensor) { payload.as_tensor = t; }
  /* implicit */ EValue(ArrayRef<double> l) : tag(Tag::ListDouble) { payload.as_double_list = l; }
  /* implicit */ EValue(ArrayRef<bool> l) : tag(Tag::ListBool) { payload.as_bool_list = l; }
  /* implicit */ EValue(BoxedEvalueList<int64_t> l) : tag(Tag::ListInt) { payload.as_int_list = l; }
  /* implicit */ EValue(BoxedEvalueList<executorch::aten::Tensor> l) : tag(Tag::ListTensor) {
    payload.as_tensor_list = l;
  }
  /* implicit */ EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>> l) : tag(Tag::ListOptionalTensor) {
    payload.as_list_optional_tensor = l;
  }
  EValue(const char* s, size_t n) : tag(Tag::String) { payload.as_string = ArrayRef<char>(s, n); }
  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isBoolean()) {
      tag = Tag::Bool;
      payload.as_bool = s.to<bool>();
    } else if (s.isIntegral(false)) {
      tag = Tag::Int;
      payload.as_int = s.to<int64_t>();
    } else {
      tag = Tag::Double;
      payload.as_double = s.to<double>();
    }
  }
  // Anything that dereferences to a Tensor (TensorPtr, Tensor*) becomes a Tensor value; a null one becomes None
  // (which methods then reject as a wrong input instead of crashing).
  template <typename T, typename = std::enable_if_t<
                            !std::is_same<std::decay_t<T>, EValue>::value &&
                            std::is_convertible<decltype(*std::declval<T>()), executorch::aten::Tensor>::value>>
  /* implicit */ EValue(T&& value) {
    if (static_cast<bool>(value)) {
      tag = Tag::Tensor;
      payload.as_tensor = *value;
    }
  }

  bool isNone() const { return tag == Tag::None; }
  bool isInt() const { return tag == Tag::Int; }
  bool isDouble() const { return tag == Tag::Double; }
  bool isBool() const { return tag == Tag::Bool; }
  bool isScalar() const { return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool; }
  bool isTensor() const { return tag == Tag::Tensor; }
  bool isString() const { return tag == Tag::String; }
  bool isIntList() const { return tag == Tag::ListInt; }
  bool isDoubleList() const { return tag == Tag::ListDouble; }
  bool isBoolList() const { return tag == Tag::ListBool; }
  bool isTensorList() const { return tag == Tag::ListTensor; }
  bool isListOptionalTensor() const { return tag == Tag::ListOptionalTensor; }

  int64_t toInt() const {
    ET_CHECK_MSG(isInt(), "EValue is not an Int (tag %s)", tag_to_string(tag));
    return payload.as_int;
  }
  double toDouble() const {
    ET_CHECK_MSG(isDouble(), "EValue is not a Double (tag %s)", tag_to_string(tag));
    return payload.as_double;
  }
  bool toBool() const {
    ET_CHECK_MSG(isBool(), "EValue is not a Bool (tag %s)", tag_to_string(tag));
    return payload.as_bool;
  }
  // Int, Double or Bool as a double.
  double toScalarDouble() const {
    if (isInt()) return static_cast<double>(payload.as_int);
    if (isBool()) return payload.as_bool ? 1.0 : 0.0;
    return toDouble();
  }
  // A Scalar argument is stored as an Int, a Double or a Bool.
  executorch::aten::Scalar toScalar() const {
    if (isInt()) return executorch::aten::Scalar(payload.as_int);
    if (isBool()) return executorch::aten::Scalar(payload.as_bool);
    return executorch::aten::Scalar(toDouble());
  }
  // A ScalarType argument (dtype=...) is stored as an Int.
  executorch::aten::ScalarType toScalarType() const { return static_cast<executorch::aten::ScalarType>(toInt()); }
  executorch::aten::Tensor& toTensor() & {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %s)", tag_to_string(tag));
    return payload.as_tensor;
  }
  const executorch::aten::Tensor& toTensor() const& {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %s)", tag_to_string(tag));
    return payload.as_tensor;
  }
  std::string_view toString() const {
    ET_CHECK_MSG(isString(), "EValue is not a String (tag %s)", tag_to_string(tag));
    return std::string_view(payload.as_string.data(), payload.as_string.size());
  }
  ArrayRef<int64_t> toIntList() const {
    ET_CHECK_MSG(isIntList(), "EValue is not an IntList (tag %s)", tag_to_string(tag));
    return payload.as_int_list.get();
  }
  ArrayRef<double> toDoubleList() const {
    ET_CHECK_MSG(isDoubleList(), "EValue is not a DoubleList (tag %s)", tag_to_string(tag));
    return payload.as_double_list;
  }
  ArrayRef<bool> toBoolList() const {
    ET_CHECK_MSG(isBoolList(), "EValue is not a BoolList (tag %s)", tag_to_string(tag));
    return payload.as_bool_list;
  }
  ArrayRef<executorch::aten::Tensor> toTensorList() const {
    ET_CHECK_MSG(isTensorList(), "EValue is not a TensorList (tag %s)", tag_to_string(tag));
    return payload.as_tensor_list.get();
  }
  ArrayRef<std::optional<executorch::aten::Tensor>> toListOptionalTensor() const {
    ET_CHECK_MSG(isListOptionalTensor(), "EValue is not a ListOptionalTensor (tag %s)", tag_to_string(tag));
    return payload.as_list_optional_tensor.get();
  }
  template <typename T>
  T to() const;
  template <typename T>
  std::optional<T> toOptional() const {
    if (isNone()) return std::nullopt;
    return to<T>();
  }
};

template <>
inline int64_t EValue::to<int64_t>() const {
  return toInt();
}
template <>
inline double EValue::to<double>() const {
  return toDouble();
}
template <>
inline bool EValue::to<bool>() const {
  return toBool();
}
template <>
inline executorch::aten::Tensor EValue::to<executorch::aten::Tensor>() const {
  return toTensor();
}
template <>
inline ArrayRef<int64_t> EValue::to<ArrayRef<int64_t>>() const {
  return toIntList();
}
template <>
inline ArrayRef<double> EValue::to<ArrayRef<double>>() const {
  return toDoubleList();
}
template <>
inline ArrayRef<bool> EValue::to<ArrayRef<bool>>() const {
  return toBoolList();
}
template <>
inline std::string_view EValue::to<std::string_view>() const {
  return toString();
}

template <>
inline executorch::aten::Scalar EValue::to<executorch::aten::Scalar>() const {
  return toScalar();
}
template <>
inline executorch::aten::ScalarType EValue::to<executorch::aten::ScalarType>() const {
  return toScalarType();
}
template <>
inline ArrayRef<executorch::aten::Tensor> EValue::to<ArrayRef<executorch::aten::Tensor>>() const {
  return toTensorList();
}
template <>
inline ArrayRef<std::optional<executorch::aten::Tensor>> EValue::to<ArrayRef<std::optional<executorch::aten::Tensor>>>()
    const {
  return toListOptionalTensor();
}

template <>
inline ArrayRef<int64_t> BoxedEvalueList<int64_t>::get() const {
  for (size_t i = 0; i < size_; ++i) unwrapped_vals_[i] = wrapped_vals_[i]->toInt();
  return ArrayRef<int64_t>(unwrapped_vals_, size_);
}
template <>
inline ArrayRef<executorch::aten::Tensor> BoxedEvalueList<executorch::aten::Tensor>::get() const {
  for (size_t i = 0; i < size_; ++i) unwrapped_vals_[i] = wrapped_vals_[i]->toTensor();
  return ArrayRef<executorch::aten::Tensor>(unwrapped_vals_, size_);
}
template <>
inline ArrayRef<std::optional<executorch::aten::Tensor>> BoxedEvalueList<std::optional<executorch::aten::Tensor>>::get()
    const {
  for (size_t i = 0; i < size_; ++i) {
    const EValue* v = wrapped_vals_[i];
    if (v == nullptr || v->isNone()) {
      unwrapped_vals_[i] = std::nullopt;
    } else {
      unwrapped_vals_[i] = v->toTensor();
    }
  }
  return ArrayRef<std::optional<executorch::aten::Tensor>>(unwrapped_vals_, size_);
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::EValue;
}  // namespace executor
}  // namespace torch
