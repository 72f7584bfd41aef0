#include "qutils.h"

#include <cstdarg>
#include <cstdio>

namespace etq {

bool same_shape(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (ssize_t d = 0; d < a.dim(); ++d)
    if (a.size(d) != b.size(d)) return false;
  return true;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  if (!same_shape(a, b)) return false;
  for (ssize_t d = 0; d < a.dim(); ++d)
    if (a.size(d) != 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

bool resize_out(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const SizesType* sizes, int ndim,
                const char* name) {
  if (out.dim() != ndim) {
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) has rank %zd, the result has rank %d", out_index, name,
         out.dim(), ndim);
    return false;
  }
  const Error e = rt::resize_tensor(out, rt::ArrayRef<SizesType>(sizes, static_cast<size_t>(ndim > 0 ? ndim : 0)));
  if (e != Error::Ok) {
    std::string want = "[";
    for (int d = 0; d < ndim; ++d) want += (d ? ", " : "") + std::to_string(sizes[d]);
    want += "]";
    fail(ctx, e, "argument %zu (%s) has shape %s and cannot be resized to the result's shape %s", out_index, name,
         shape_string(out).c_str(), want.c_str());
    return false;
  }
  return true;
}

bool resize_like(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const Tensor& like) {
  SizesType sizes[kMaxDim];
  for (ssize_t d = 0; d < like.dim(); ++d) sizes[d] = like.size(d);
  return resize_out(ctx, out, out_index, sizes, static_cast<int>(like.dim()));
}

int64_t logical_offset(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (ssize_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t sz = t.size(d);
    off += (i % sz) * t.strides()[d];
    i /= sz;
  }
  return off;
}

Walker::Walker(const Tensor& t, int64_t begin) {
  nd = static_cast<int>(t.dim());
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    sizes[d] = t.size(d);
    strides[d] = t.strides()[d];
    idx[d] = sizes[d] > 0 ? rem % sizes[d] : 0;
    rem = sizes[d] > 0 ? rem / sizes[d] : 0;
    off += idx[d] * strides[d];
  }
}

bool quant_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0, *hi = 255; return true;
    case ScalarType::Char: *lo = -128, *hi = 127; return true;
    case ScalarType::Short: *lo = -32768, *hi = 32767; return true;
    case ScalarType::Int:
      *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max();
      return true;
    case ScalarType::UInt16:
    case ScalarType::Bits16: *lo = 0, *hi = 65535; return true;
    default: return false;
  }
}

}  // namespace etq
