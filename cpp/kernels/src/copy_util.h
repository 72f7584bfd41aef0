#pragma once
// Shared by the shape / copy / indexing kernels (src/ops/): dtype checks of copies, copies that keep the logical
// element order, the dim-order argument of the dim_order_ops, and the argument rules that select / slice views
// share with their scatter forms.
#include "kernel_utils.h"

namespace etk {

// A copy converts between any two supported dtypes (or copies a dtype to itself).
bool dtypes_copyable(ScalarType a, ScalarType b);
// Fails ctx: `what` has dtype a, the output b, and no conversion exists.
void fail_dtypes(KernelRuntimeContext& ctx, const char* what, ScalarType a, ScalarType b);
// argument 0's dtype a and the output's b must be the same supported dtype; false after failing ctx.
bool same_or_fail(KernelRuntimeContext& ctx, ScalarType a, ScalarType b);

// Copies `in` into `out` (resized to `shape`, of the same element count) in the logical (row-major) element order.
void reshape_copy(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const Shape& shape);
// Plain copy with the same shape (dtype and dim order may change).
void same_shape_copy(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out);
// The optional dim_order argument i of the dim_order_ops: None, or the output's dim order.
bool check_dim_order_arg(KernelRuntimeContext& ctx, Args args, size_t i, const Tensor& out);

// The scatter forms (select_scatter, slice_scatter): self and out of the same supported dtype, src (argument 1)
// of a supported one; false after failing ctx.
bool scatter_dtypes(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, const Tensor& out);
// out = a copy of self, then src copied into out's view along dim d: `len` indices from `start` by `step`, or the one
// index `start` with the dim dropped.
void scatter_view(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, const Tensor& out, int64_t d,
                  int64_t start, int64_t len, int64_t step, bool drop_dim);

// select (select_copy, select_scatter): `dim` (schema argument dim_arg) of a non-0-d `self` and `index` (argument
// index_arg) within it, normalized into *d and *index; `verb` says what the 0-d case cannot do ("select from").
bool select_dim_index(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int dim_arg, int64_t* index,
                      int index_arg, const char* verb, int64_t* d);
// slice (slice_copy, slice_scatter): start / end (None: the ends) clamped into [0, len] as Python slices are, for
// a positive step; returns the element count and sets *start.
int64_t slice_count(int64_t len, bool has_start, int64_t* start, bool has_end, int64_t end, int64_t step);

}  // namespace etk
