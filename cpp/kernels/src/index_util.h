#pragma once
// Shared by the indexing kernels (src/ops/: index, gather, flip, roll, tri, cumsum, topk): index tensors read in
// logical order, and element offsets of every logical element of a tensor.
#include "kernel_utils.h"

namespace etk {

// Reads an integer index tensor (Long / Int) in logical order into *v; `what` names it for messages.
bool read_indices(KernelRuntimeContext& ctx, const Tensor& t, std::vector<int64_t>* v, const char* what);
// Element offsets (in elements) of every logical element of an nd-d view, in row-major order.
void logical_offsets(const int64_t* sizes, const int64_t* strides, int nd, int64_t n, std::vector<int64_t>* offs);
// The same for a tensor.
void tensor_offsets(const Tensor& t, std::vector<int64_t>* offs);

// Copies element src_off of `in` to element dst_off of `out` (same dtype).
inline void copy_elem(char* ob, int64_t dst_off, const char* ib, int64_t src_off, size_t es) {
  std::memcpy(ob + dst_off * static_cast<int64_t>(es), ib + src_off * static_cast<int64_t>(es), es);
}

}  // namespace etk
