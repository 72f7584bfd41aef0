#pragma once
// The whole extension/tensor API: TensorPtr and make_tensor_ptr, the ATen-style makers, TensorAccessor.
#include <executorch/extension/tensor/tensor_accessor.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/extension/tensor/tensor_ptr_maker.h>
