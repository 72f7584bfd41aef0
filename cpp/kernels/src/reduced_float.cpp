#include "reduced_float.h"

#include "kernel_utils.h"

#include <float16.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace etk {
namespace {

using ::executorch::aten::DimOrderType;
using ::executorch::aten::StridesType;
using ::executorch::aten::TensorImpl;
using ::executorch::aten::TensorShapeDynamism;
using ::executorch::runtime::BoxedEvalueList;
using ::executorch::runtime::Tag;

bool is_reduced(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

bool list_has_reduced(const EValue& v) {
  if (v.isTensorList()) {
    const auto& l = v.payload.copyable_union.as_tensor_list;
    for (size_t i = 0; i < l.size(); ++i) {
      const EValue* e = l.wrapped_vals()[i];
      if (e != nullptr && e->isTensor() && is_reduced(e->toTensor().scalar_type())) return true;
    }
  } else if (v.isListOptionalTensor()) {
    const auto& l = v.payload.copyable_union.as_list_optional_tensor;
    for (size_t i = 0; i < l.size(); ++i) {
      const EValue* e = l.wrapped_vals()[i];
      if (e != nullptr && e->isTensor() && is_reduced(e->toTensor().scalar_type())) return true;
    }
  }
  return false;
}

float load(const void* p, size_t i, ScalarType t) {
  const uint16_t b = static_cast<const uint16_t*>(p)[i];
  return t == ScalarType::Half ? half_to_float(b) : bf16_to_float(b);
}

uint16_t store(float f, ScalarType t) { return t == ScalarType::Half ? float_to_half(f) : float_to_bf16(f); }

// A float32 stand-in for one Half / BFloat16 tensor: same sizes, dim order and shape dynamism (and element bound,
// so the kernel can resize it as it could the original).
class Shadow {
 public:
  explicit Shadow(const Tensor& t) : orig_(t.unsafeGetTensorImpl()), dim_(t.dim()) {
    const ssize_t n = dim_ > 0 ? dim_ : 1;
    sizes_.assign(t.sizes().begin(), t.sizes().end());
    order_.assign(t.dim_order().begin(), t.dim_order().end());
    sizes_.resize(static_cast<size_t>(n), 1);
    order_.resize(static_cast<size_t>(n), 0);
    strides_.resize(static_cast<size_t>(n));
    const ssize_t bound = std::max(orig_->numel_bound(), orig_->numel());
    data_.resize(static_cast<size_t>(std::max<ssize_t>(bound, 1)));
    const bool dynamic = orig_->shape_dynamism() != TensorShapeDynamism::STATIC && dim_ > 0 && bound > t.numel();
    std::vector<SizesType> construct = sizes_;
    if (dynamic) {  // constructed at the bound, then resized to the current sizes
      std::fill(construct.begin(), construct.end(), 1);
      construct[0] = static_cast<SizesType>(bound);
    }
    construct_sizes_ = construct;
    impl_ = std::make_unique<TensorImpl>(ScalarType::Float, dim_, construct_sizes_.data(), data_.data(),
                                         dim_ > 0 ? order_.data() : nullptr, dim_ > 0 ? strides_.data() : nullptr,
                                         orig_->shape_dynamism());
    if (dynamic) (void)impl_->internal_resize_contiguous(ArrayRef<SizesType>(sizes_.data(), sizes_.size()));
    const ScalarType type = t.scalar_type();
    for (ssize_t i = 0; i < t.numel(); ++i) data_[i] = load(t.const_data_ptr(), static_cast<size_t>(i), type);
    before_.assign(data_.begin(), data_.begin() + t.numel());
  }

  Tensor tensor() const { return Tensor(impl_.get()); }

  // Writes the kernel's result back into the original tensor if it changed it. False after failing ctx.
  bool write_back(KernelRuntimeContext& ctx) {
    bool resized = false;
    for (ssize_t d = 0; d < dim_; ++d) resized = resized || impl_->size(d) != orig_->size(d);
    if (resized) {
      if (orig_->internal_resize_contiguous(impl_->sizes()) != Error::Ok) {
        fail(ctx, Error::InvalidArgument, "the output cannot take the shape %s", shape_string(tensor()).c_str());
        return false;
      }
    } else if (before_.empty() || std::memcmp(before_.data(), data_.data(), before_.size() * sizeof(float)) == 0) {
      return true;  // an input (possibly read-only constant data), or empty: left untouched
    }
    const ScalarType type = orig_->scalar_type();
    auto* dst = static_cast<uint16_t*>(orig_->mutable_data());
    for (ssize_t i = 0; i < impl_->numel(); ++i) dst[i] = store(data_[i], type);
    return true;
  }

 private:
  TensorImpl* orig_;
  ssize_t dim_;
  std::vector<SizesType> sizes_, construct_sizes_;
  std::vector<DimOrderType> order_;
  std::vector<StridesType> strides_;
  std::vector<float> data_, before_;
  std::unique_ptr<TensorImpl> impl_;
};

// The argument values of one call with every reduced tensor replaced by its shadow (one per TensorImpl, so aliases
// such as an out argument and the return slot stay aliases).
class FloatCall {
 public:
  // False when a tensor is malformed: the kernel then runs on the original arguments and reports it.
  bool build(Args args) {
    values_.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const EValue* v = args[i];
      if (v == nullptr) return false;
      if (v->isTensor()) {
        if (!valid_tensor(v->toTensor())) return false;
        values_.push_back(shadowed(*v));
      } else if (list_has_reduced(*v)) {
        if (!shadow_list(*v)) return false;
      } else {
        values_.push_back(*v);
      }
    }
    for (auto& v : values_) pointers_.push_back(&v);
    return true;
  }
  Args args() { return Args(pointers_.data(), pointers_.size()); }
  void write_back(KernelRuntimeContext& ctx) {
    for (auto& s : shadows_) {
      if (!s.second->write_back(ctx)) return;
    }
  }

 private:
  EValue shadowed(const EValue& v) {
    const Tensor& t = v.toTensor();
    if (!is_reduced(t.scalar_type())) return v;
    auto& s = shadows_[t.unsafeGetTensorImpl()];
    if (s == nullptr) s = std::make_unique<Shadow>(t);
    return EValue(s->tensor());
  }

  bool shadow_list(const EValue& v) {
    const bool optional = v.isListOptionalTensor();
    const size_t n = optional ? v.payload.copyable_union.as_list_optional_tensor.size()
                              : v.payload.copyable_union.as_tensor_list.size();
    EValue* const* wrapped = optional ? v.payload.copyable_union.as_list_optional_tensor.wrapped_vals()
                                      : v.payload.copyable_union.as_tensor_list.wrapped_vals();
    auto& items = list_items_.emplace_back(std::make_unique<std::vector<EValue>>());
    auto& ptrs = list_ptrs_.emplace_back(std::make_unique<std::vector<EValue*>>());
    items->reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const EValue* e = wrapped[i];
      if (e == nullptr || e->isNone()) {
        items->emplace_back();
      } else if (e->isTensor() && valid_tensor(e->toTensor())) {
        items->push_back(shadowed(*e));
      } else {
        return false;
      }
    }
    for (auto& e : *items) ptrs->push_back(optional && e.isNone() ? nullptr : &e);
    if (optional) {
      auto& unwrapped = optional_storage_.emplace_back(std::make_unique<std::vector<std::optional<Tensor>>>(n));
      values_.emplace_back(BoxedEvalueList<std::optional<Tensor>>(ptrs->data(), unwrapped->data(), n));
    } else {
      auto& unwrapped = tensor_storage_.emplace_back(std::make_unique<std::vector<Tensor>>(n));
      values_.emplace_back(BoxedEvalueList<Tensor>(ptrs->data(), unwrapped->data(), n));
    }
    return true;
  }

  std::map<const TensorImpl*, std::unique_ptr<Shadow>> shadows_;
  std::vector<EValue> values_;
  std::vector<EValue*> pointers_;
  std::vector<std::unique_ptr<std::vector<EValue>>> list_items_;
  std::vector<std::unique_ptr<std::vector<EValue*>>> list_ptrs_;
  std::vector<std::unique_ptr<std::vector<Tensor>>> tensor_storage_;
  std::vector<std::unique_ptr<std::vector<std::optional<Tensor>>>> optional_storage_;
};

}  // namespace

bool has_reduced_float(Args args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const EValue* v = args[i];
    if (v == nullptr) continue;
    if (v->isTensor() ? is_reduced(v->toTensor().scalar_type()) : list_has_reduced(*v)) return true;
  }
  return false;
}

void run_in_float(KernelRuntimeContext& ctx, Args args, rt::OpFunction kernel) {
  FloatCall call;
  if (!call.build(args)) return kernel(ctx, args);
  {
    struct Flag {  // reset even when the kernel throws (run_op catches above this)
      Flag() { call_state().reduced_as_float = true; }
      ~Flag() { call_state().reduced_as_float = false; }
    } flag;
    kernel(ctx, call.args());
  }
  if (!failed(ctx)) call.write_back(ctx);
}

}  // namespace etk
