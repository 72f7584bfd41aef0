#include <executorch/runtime/executor/method_meta.h>

#include "internal.h"
#include "program_state.h"

namespace executorch {
namespace runtime {

namespace {

Tag tag_of_value(const et_pte::EValue* v) {
  switch (v->val_type()) {
    case et_pte::KernelTypes::Int: return Tag::Int;
    case et_pte::KernelTypes::Bool: return Tag::Bool;
    case et_pte::KernelTypes::Double: return Tag::Double;
    case et_pte::KernelTypes::Tensor: return Tag::Tensor;
    case et_pte::KernelTypes::String: return Tag::String;
    case et_pte::KernelTypes::IntList: return Tag::ListInt;
    case et_pte::KernelTypes::DoubleList: return Tag::ListDouble;
    case et_pte::KernelTypes::BoolList: return Tag::ListBool;
    case et_pte::KernelTypes::TensorList: return Tag::ListTensor;
    case et_pte::KernelTypes::OptionalTensorList: return Tag::ListOptionalTensor;
    default: return Tag::None;
  }
}

const et_pte::EValue* io_value(const et_pte::ExecutionPlan* plan, const flatbuffers::Vector<int32_t>* list,
                               size_t index) {
  if (list == nullptr || index >= list->size()) return nullptr;
  return (*plan->values())[static_cast<uint32_t>(list->Get(static_cast<uint32_t>(index)))];
}

executorch::aten::TensorShapeDynamism dynamism_of(const et_pte::Tensor* t) {
  return t->shape_dynamism() == et_pte::TensorShapeDynamism::DYNAMIC_BOUND
             ? executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND
             : executorch::aten::TensorShapeDynamism::STATIC;
}

template <typename T>
Span<const T> span_of(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? Span<const T>() : Span<const T>(v->data(), v->size());
}

const char* fqn_of(const et_pte::Tensor* t) {
  const auto* info = t->extra_tensor_info();
  return info != nullptr && info->fully_qualified_name() != nullptr ? info->fully_qualified_name()->c_str() : nullptr;
}

}  // namespace

Result<TensorInfo> TensorInfo::create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                      executorch::aten::ScalarType scalar_type, bool is_memory_planned,
                                      std::string_view name, executorch::aten::TensorShapeDynamism dynamism) {
  size_t nbytes = executorch::aten::elementSize(scalar_type);
  for (int32_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(s), &nbytes)) {
      return set_last_error(Error::InvalidArgument, "tensor size overflows");
    }
  }
  return TensorInfo(sizes, dim_order, scalar_type, is_memory_planned, name, nbytes, dynamism);
}

namespace internal {
struct TensorInfoAccess {
  template <typename... Args>
  static Result<TensorInfo> create(Args&&... args) {
    return TensorInfo::create(std::forward<Args>(args)...);
  }
};
}  // namespace internal

namespace {

// Inputs and outputs: memory planned when planned or constant, as upstream counts them.
Result<TensorInfo> tensor_info(const et_pte::EValue* v, const char* what, size_t index) {
  if (v == nullptr) return set_last_error(Error::InvalidArgument, "there is no %s %zu", what, index);
  if (v->val_type() != et_pte::KernelTypes::Tensor) {
    return set_last_error(Error::InvalidArgument, "%s %zu is not a tensor", what, index);
  }
  const auto* t = v->val_as_Tensor();
  return internal::TensorInfoAccess::create(
      span_of(t->sizes()), span_of(t->dim_order()), static_cast<executorch::aten::ScalarType>(t->scalar_type()),
      t->allocation_info() != nullptr || t->data_buffer_idx() != 0, std::string_view(), dynamism_of(t));
}

}  // namespace

const char* MethodMeta::name() const { return plan_->plan->name()->c_str(); }
size_t MethodMeta::num_inputs() const { return plan_->plan->inputs() ? plan_->plan->inputs()->size() : 0; }
size_t MethodMeta::num_outputs() const { return plan_->plan->outputs() ? plan_->plan->outputs()->size() : 0; }

Result<Tag> MethodMeta::input_tag(size_t index) const {
  const auto* v = io_value(plan_->plan, plan_->plan->inputs(), index);
  if (v == nullptr) return set_last_error(Error::InvalidArgument, "there is no input %zu", index);
  return tag_of_value(v);
}
Result<Tag> MethodMeta::output_tag(size_t index) const {
  const auto* v = io_value(plan_->plan, plan_->plan->outputs(), index);
  if (v == nullptr) return set_last_error(Error::InvalidArgument, "there is no output %zu", index);
  return tag_of_value(v);
}
Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  return tensor_info(io_value(plan_->plan, plan_->plan->inputs(), index), "input", index);
}
Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  return tensor_info(io_value(plan_->plan, plan_->plan->outputs(), index), "output", index);
}

size_t MethodMeta::num_attributes() const {
  size_t n = 0;
  for (const auto* v : *plan_->plan->values()) {
    if (v->val_type() == et_pte::KernelTypes::Tensor && fqn_of(v->val_as_Tensor()) != nullptr) ++n;
  }
  return n;
}

Result<TensorInfo> MethodMeta::attribute_tensor_meta(size_t index) const {
  size_t n = 0;
  for (const auto* v : *plan_->plan->values()) {
    if (v->val_type() != et_pte::KernelTypes::Tensor) continue;
    const auto* t = v->val_as_Tensor();
    const char* name = fqn_of(t);
    if (name == nullptr || n++ != index) continue;
    return TensorInfo::create(span_of(t->sizes()), span_of(t->dim_order()),
                              static_cast<executorch::aten::ScalarType>(t->scalar_type()),
                              t->allocation_info() != nullptr || t->data_buffer_idx() != 0, name, dynamism_of(t));
  }
  return set_last_error(Error::InvalidArgument, "attribute %zu out of range (%zu attributes)", index, n);
}

size_t MethodMeta::num_memory_planned_buffers() const {
  const auto* s = plan_->plan->non_const_buffer_sizes();
  return s == nullptr || s->size() == 0 ? 0 : s->size() - 1;
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  if (index >= num_memory_planned_buffers())
    return set_last_error(Error::InvalidArgument, "no planned buffer %zu", index);
  return plan_->plan->non_const_buffer_sizes()->Get(static_cast<uint32_t>(index + 1));
}

Result<etensor::Device> MethodMeta::memory_planned_buffer_device(size_t index) const {
  if (index >= num_memory_planned_buffers())
    return set_last_error(Error::InvalidArgument, "no planned buffer %zu", index);
  const auto* devices = plan_->plan->non_const_buffer_device();
  if (devices != nullptr) {
    // Entries only for buffers off the CPU, indexed as non_const_buffer_sizes (1-based).
    for (const auto* d : *devices) {
      if (d->buffer_idx() == static_cast<int32_t>(index + 1)) {
        return etensor::Device(static_cast<etensor::DeviceType>(d->device_type()),
                               static_cast<etensor::DeviceIndex>(d->device_index()));
      }
    }
  }
  return etensor::Device(etensor::DeviceType::CPU, 0);
}

size_t MethodMeta::num_backends() const { return plan_->plan->delegates() ? plan_->plan->delegates()->size() : 0; }

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  if (index >= num_backends()) return Error::InvalidArgument;
  return (*plan_->plan->delegates())[static_cast<uint32_t>(index)]->id()->c_str();
}

bool MethodMeta::uses_backend(const char* backend_name) const {
  for (size_t i = 0; i < num_backends(); ++i) {
    if (std::string(*get_backend_name(i)) == backend_name) return true;
  }
  return false;
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  if (plan_->plan->chains() != nullptr) {
    for (const auto* c : *plan_->plan->chains()) n += c->instructions() ? c->instructions()->size() : 0;
  }
  return n;
}

}  // namespace runtime
}  // namespace executorch
