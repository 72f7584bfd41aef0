#pragma once
// Internal helpers of libexecutorch_kernels' kernels (src/ops/): strided operands, a broadcasting loop driver, dtype
// load / store and dispatch, copies and fills. Arguments, failing and registration come from the kernel-authoring
// base (cpp/kernel_base/include/kernel_base.h). Nothing here is exported from the library.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <kernel_base.h>

#include "reduced_float.h"

namespace etk {

// The kernel-authoring base: types, constants (kMaxDim, kMaxSize, kParallelGrain), fail(), the arg_* readers,
// ET_KERNEL_OP. This library's call policy (KernelPolicy) runs Half / BFloat16 calls on float32 copies.
using namespace ::etkb;  // NOLINT
using etkb::shape_string;
using ::executorch::runtime::ArrayRef;

// For %lld in messages.
inline long long ll(int64_t v) { return static_cast<long long>(v); }
// Fails ctx: dim `dim` (schema argument `argi`) is out of range for an `nd`-d tensor.
void fail_dim(KernelRuntimeContext& ctx, int64_t dim, int argi, int64_t nd);

// ---------------------------------------------------------------------------------------------------------
// Dtypes.
inline bool is_floating(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }
inline bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long: return true;
    case ScalarType::Bool: return include_bool;
    default: return false;
  }
}
// Types the generic paths can load and store.
inline bool is_supported_dtype(ScalarType t) { return is_floating(t) || is_integral(t, true); }

template <typename C>
inline C load_as(const char* p, ScalarType t) {
  switch (t) {
    case ScalarType::Float: return static_cast<C>(*reinterpret_cast<const float*>(p));
    case ScalarType::Double: return static_cast<C>(*reinterpret_cast<const double*>(p));
    case ScalarType::Long: return static_cast<C>(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Int: return static_cast<C>(*reinterpret_cast<const int32_t*>(p));
    case ScalarType::Short: return static_cast<C>(*reinterpret_cast<const int16_t*>(p));
    case ScalarType::Char: return static_cast<C>(*reinterpret_cast<const int8_t*>(p));
    case ScalarType::Byte: return static_cast<C>(*reinterpret_cast<const uint8_t*>(p));
    case ScalarType::Bool: return static_cast<C>(*reinterpret_cast<const uint8_t*>(p) != 0);
    default: return C(0);
  }
}

// Float -> integer conversion that never hits UB (NaN -> 0, saturating).
template <typename I>
inline I sat_cast(double v) {
  if (!(v == v)) return I(0);
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}
template <typename I, typename V>
inline I to_int_type(V v) {
  if constexpr (std::is_floating_point<V>::value) {
    return sat_cast<I>(static_cast<double>(v));
  } else {
    return static_cast<I>(v);
  }
}

template <typename V>
inline void store_as(char* p, ScalarType t, V v) {
  switch (t) {
    case ScalarType::Float: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    case ScalarType::Double: *reinterpret_cast<double*>(p) = static_cast<double>(v); break;
    case ScalarType::Long: *reinterpret_cast<int64_t*>(p) = to_int_type<int64_t>(v); break;
    case ScalarType::Int: *reinterpret_cast<int32_t*>(p) = to_int_type<int32_t>(v); break;
    case ScalarType::Short: *reinterpret_cast<int16_t*>(p) = to_int_type<int16_t>(v); break;
    case ScalarType::Char: *reinterpret_cast<int8_t*>(p) = to_int_type<int8_t>(v); break;
    case ScalarType::Byte: *reinterpret_cast<uint8_t*>(p) = to_int_type<uint8_t>(v); break;
    case ScalarType::Bool: *reinterpret_cast<uint8_t*>(p) = (v != V(0)) ? 1 : 0; break;
    default: break;
  }
}

// Calls f(T{}) with T the C++ type of `t` for the numeric types (Bool excluded). Returns false otherwise.
template <typename F>
inline bool dispatch_numeric(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Double: f(double{}); return true;
    case ScalarType::Long: f(int64_t{}); return true;
    case ScalarType::Int: f(int32_t{}); return true;
    case ScalarType::Short: f(int16_t{}); return true;
    case ScalarType::Char: f(int8_t{}); return true;
    case ScalarType::Byte: f(uint8_t{}); return true;
    default: return false;
  }
}
template <typename F>
inline bool dispatch_float(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Double: f(double{}); return true;
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Strided operands: a data pointer with logical sizes and element strides (which may be 0 for broadcasting).
struct Operand {
  char* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  int64_t esize = 4;
  int ndim = 0;
  int64_t sizes[kMaxDim] = {};
  int64_t strides[kMaxDim] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= sizes[i];
    return n;
  }
};
Operand operand_of(const Tensor& t);
// A 0-dim operand for a scalar, held in *storage (8 bytes), typed as `as`.
Operand scalar_operand(const Scalar& s, ScalarType as, void* storage);
// The dtype a scalar takes next to a tensor of type t (PyTorch's rule: the tensor's category wins).
ScalarType scalar_dtype_next_to(ScalarType t, const Scalar& s);

// Shapes.
struct Shape {
  int ndim = 0;
  int64_t d[kMaxDim] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= d[i];
    return n;
  }
};
Shape shape_of(const Tensor& t);
// Broadcast shapes of n operands; false if incompatible.
bool broadcast_shape(const Operand* const* ops, int n, Shape* out);
// Resizes `out` to `shape` (same rank), failing ctx on any problem; re-validates the tensor.
bool resize_out(KernelRuntimeContext& ctx, const Tensor& out, const Shape& shape);
// Normalizes dim into [0, ndim) (ndim 0 accepts -1 and 0 as dim 0 of a 1-element view when allow_scalar).
bool norm_dim(int64_t dim, int64_t ndim, int64_t* out);
// True when strides are the row-major contiguous strides (ignoring size-1 dims); the Tensor form is the base's.
using etkb::is_contiguous;
bool is_contiguous(const Operand& o);
// `o` with row-major contiguous strides over `data` (same sizes, dtype and element size).
Operand contiguous_like(const Operand& o, char* data);
// Removes dim d from a view (selecting index 0 of it; the caller offsets the data).
void drop_dim(Operand* o, int d);

// ---------------------------------------------------------------------------------------------------------
// A loop over a shape driving N operands (operand 0 is normally the output). Operands are right-aligned and
// broadcast against the shape. Dims are coalesced, and (optionally) reordered to follow operand 0's memory
// order. The callback receives (count, element offsets[N], inner element strides[N]).
template <int N>
struct Loop {
  int ndim = 0;
  int64_t sizes[kMaxDim] = {};
  int64_t strides[N][kMaxDim] = {};
  int64_t numel = 1;

  // False when an operand does not broadcast to shape.
  bool init(const Shape& shape, const Operand* const* ops, bool reorder = true) {
    int nd = shape.ndim;
    int64_t s[kMaxDim];
    int64_t st[N][kMaxDim];
    numel = 1;
    for (int d = 0; d < nd; ++d) {
      s[d] = shape.d[d];
      numel *= s[d];
    }
    for (int k = 0; k < N; ++k) {
      const Operand& o = *ops[k];
      if (o.ndim > nd) {
        for (int d = 0; d < o.ndim - nd; ++d)
          if (o.sizes[d] != 1) return false;
      }
      for (int d = 0; d < nd; ++d) {
        int od = d - (nd - o.ndim);
        if (od < 0) {
          st[k][d] = 0;
        } else if (o.sizes[od] == s[d]) {
          st[k][d] = s[d] == 1 ? 0 : o.strides[od];
        } else if (o.sizes[od] == 1) {
          st[k][d] = 0;
        } else {
          return false;
        }
      }
    }
    // Drop size-1 dims.
    int keep[kMaxDim];
    int nk = 0;
    for (int d = 0; d < nd; ++d)
      if (s[d] != 1) keep[nk++] = d;
    if (reorder && nk > 1) {
      // Stable insertion sort by operand 0's stride, descending (outermost first).
      for (int i = 1; i < nk; ++i) {
        int v = keep[i];
        int j = i - 1;
        while (j >= 0 && st[0][keep[j]] < st[0][v]) {
          keep[j + 1] = keep[j];
          --j;
        }
        keep[j + 1] = v;
      }
    }
    ndim = 0;
    for (int i = 0; i < nk; ++i) {
      int d = keep[i];
      if (ndim > 0) {
        bool merge = true;
        for (int k = 0; k < N; ++k)
          if (strides[k][ndim - 1] != st[k][d] * s[d]) merge = false;
        if (merge) {
          sizes[ndim - 1] *= s[d];
          for (int k = 0; k < N; ++k) strides[k][ndim - 1] = st[k][d];
          continue;
        }
      }
      sizes[ndim] = s[d];
      for (int k = 0; k < N; ++k) strides[k][ndim] = st[k][d];
      ++ndim;
    }
    if (ndim == 0) {
      ndim = 1;
      sizes[0] = numel;  // 1 or 0
      for (int k = 0; k < N; ++k) strides[k][0] = 0;
    }
    return true;
  }

  // Out of line, so that run() holds one copy of the loop body for both its serial and parallel paths.
  template <typename F>
  __attribute__((noinline)) void run_range(int64_t begin, int64_t end, F& f) const {
    if (begin >= end) return;
    int64_t idx[kMaxDim];
    int64_t rem = begin;
    for (int d = ndim - 1; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    int64_t inner[N];
    for (int k = 0; k < N; ++k) inner[k] = strides[k][ndim - 1];
    int64_t pos = begin;
    while (pos < end) {
      int64_t off[N];
      for (int k = 0; k < N; ++k) {
        int64_t o = 0;
        for (int d = 0; d < ndim; ++d) o += idx[d] * strides[k][d];
        off[k] = o;
      }
      int64_t n = sizes[ndim - 1] - idx[ndim - 1];
      if (n > end - pos) n = end - pos;
      f(n, static_cast<const int64_t*>(off), static_cast<const int64_t*>(inner));
      pos += n;
      idx[ndim - 1] += n;
      for (int d = ndim - 1; d > 0 && idx[d] >= sizes[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
      }
    }
  }

  template <typename F>
  void run(F f, int64_t grain = kParallelGrain) const {
    if (numel <= grain) {
      run_range(0, numel, f);
      return;
    }
    ::executorch::extension::parallel_for(0, numel, grain, [&](int64_t b, int64_t e) {
      F local = f;
      run_range(b, e, local);
    });
  }
};

// Copies (with dtype conversion) `src` into `dst`, both viewed with the same logical shape `shape`
// (src may broadcast). Both dtypes must be supported (checked by the caller).
void copy_operand(const Operand& dst, const Operand& src, const Shape& shape);
// Fills an operand with a value.
void fill_operand(const Operand& dst, double v, int64_t iv, bool use_int);
// Fills a tensor with a scalar (a float scalar as a double, others as an int); nothing for an empty tensor.
void fill_scalar(const Tensor& out, const Scalar& v);

// Contiguous float copies of inputs / staged outputs for heavy kernels.
// Gives a contiguous float view of a Float tensor (the tensor itself if already contiguous).
const float* contiguous_float(const Tensor& t, std::vector<float>* storage);
// For writing a Float output: returns a pointer to write contiguous data into; call finish() after.
struct ContigOut {
  const Tensor* t = nullptr;
  std::vector<float> storage;
  float* ptr = nullptr;
  explicit ContigOut(const Tensor& out);
  void finish();
};

// Checked product of non-negative sizes (false on overflow past kMaxSize**2).
bool checked_mul(int64_t a, int64_t b, int64_t* r);

}  // namespace etk
