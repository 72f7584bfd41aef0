// Matrix products: mm, bmm, addmm, linear. fp32 goes through the blocked GEMM; other real types use a plain
// loop.
#include "gemm.h"
#include "kernel_utils.h"

#include <algorithm>

namespace etk {
namespace {

// Reference product for non-float types: C = alpha * A B + beta * C (C indexed with strides).
template <typename T>
void naive_mm(int64_t M, int64_t N, int64_t K, double alpha, const T* A, int64_t rsa, int64_t csa, const T* B,
              int64_t rsb, int64_t csb, double beta, T* C, int64_t rsc, int64_t csc) {
  using Acc = typename std::conditional<std::is_floating_point<T>::value, double, int64_t>::type;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      Acc acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        if constexpr (std::is_integral<Acc>::value) {
          acc = static_cast<Acc>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(A[i * rsa + k * csa]) *
                                                                  static_cast<uint64_t>(B[k * rsb + j * csb]));
        } else {
          acc += static_cast<Acc>(A[i * rsa + k * csa]) * static_cast<Acc>(B[k * rsb + j * csb]);
        }
      }
      T* cp = C + i * rsc + j * csc;
      double v = alpha * static_cast<double>(acc);
      if (beta != 0.0) v += beta * static_cast<double>(*cp);
      if constexpr (std::is_integral<T>::value) {
        if (alpha == 1.0 && beta == 0.0) {
          *cp = static_cast<T>(acc);
          continue;
        }
        *cp = sat_cast<T>(v);
      } else {
        *cp = static_cast<T>(v);
      }
    }
}

// One matrix product with tensors' own strides. A, B, C are rank-2 views given by (ptr, rs, cs).
bool matmul_2d(ScalarType t, int64_t M, int64_t N, int64_t K, double alpha, const char* A, int64_t rsa, int64_t csa,
               const char* B, int64_t rsb, int64_t csb, double beta, char* C, int64_t rsc, int64_t csc, bool parallel) {
  if (t == ScalarType::Float) {
    sgemm(M, N, K, static_cast<float>(alpha), reinterpret_cast<const float*>(A), rsa, csa,
          reinterpret_cast<const float*>(B), rsb, csb, static_cast<float>(beta), reinterpret_cast<float*>(C), rsc, csc,
          parallel);
    return true;
  }
  return dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    naive_mm<T>(M, N, K, alpha, reinterpret_cast<const T*>(A), rsa, csa, reinterpret_cast<const T*>(B), rsb, csb, beta,
                reinterpret_cast<T*>(C), rsc, csc);
  });
}

inline int64_t st(const Tensor& t, int d) { return t.strides()[d]; }

// mm / bmm: (Tensor self, Tensor mat2, *, Tensor(a!) out), all of one numeric dtype.
bool product_args(KernelRuntimeContext& ctx, Args args, const Tensor** a, const Tensor** b, const Tensor** out) {
  if (!check_nargs(ctx, args, 3)) return false;
  *a = arg_tensor(ctx, args, 0);
  *b = *a ? arg_tensor(ctx, args, 1) : nullptr;
  *out = *b ? arg_tensor(ctx, args, 2) : nullptr;
  if (!*out) return false;
  const ScalarType t = (*a)->scalar_type();
  if ((*b)->scalar_type() != t || (*out)->scalar_type() != t || !is_supported_dtype(t) || t == ScalarType::Bool) {
    fail(ctx, Error::InvalidType,
         "self, mat2, out (arguments 0, 1, 2) have dtypes %s, %s, %s; expected the same numeric dtype", dtype_name(t),
         dtype_name((*b)->scalar_type()), dtype_name((*out)->scalar_type()));
    return false;
  }
  return true;
}

}  // namespace

ET_KERNEL_OP("aten::mm.out", mm_out, "(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)")
void mm_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *a, *b, *out;
  if (!product_args(ctx, args, &a, &b, &out)) return;
  const ScalarType t = a->scalar_type();
  if (a->dim() != 2 || b->dim() != 2 || a->size(1) != b->size(0))
    return fail(ctx, Error::InvalidArgument, "arguments 0 and 1 have shapes %s and %s, expected [M, K] and [K, N]",
                shape_string(*a).c_str(), shape_string(*b).c_str());
  Shape s;
  s.ndim = 2;
  s.d[0] = a->size(0);
  s.d[1] = b->size(1);
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const int64_t M = a->size(0), K = a->size(1), N = b->size(1);
  matmul_2d(t, M, N, K, 1.0, static_cast<const char*>(a->const_data_ptr()), st(*a, 0), st(*a, 1),
            static_cast<const char*>(b->const_data_ptr()), st(*b, 0), st(*b, 1), 0.0,
            static_cast<char*>(out->mutable_data_ptr()), st(*out, 0), st(*out, 1), true);
}

ET_KERNEL_OP("aten::bmm.out", bmm_out, "(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)")
void bmm_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *a, *b, *out;
  if (!product_args(ctx, args, &a, &b, &out)) return;
  const ScalarType t = a->scalar_type();
  if (a->dim() != 3 || b->dim() != 3 || a->size(0) != b->size(0) || a->size(2) != b->size(1))
    return fail(ctx, Error::InvalidArgument,
                "arguments 0 and 1 have shapes %s and %s, expected [B, M, K] and [B, K, N]", shape_string(*a).c_str(),
                shape_string(*b).c_str());
  Shape s;
  s.ndim = 3;
  s.d[0] = a->size(0);
  s.d[1] = a->size(1);
  s.d[2] = b->size(2);
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const int64_t Bn = a->size(0), M = a->size(1), K = a->size(2), N = b->size(2);
  const char* ap = static_cast<const char*>(a->const_data_ptr());
  const char* bp = static_cast<const char*>(b->const_data_ptr());
  char* op = static_cast<char*>(out->mutable_data_ptr());
  const int64_t es = a->element_size();
  auto one = [&](int64_t i, bool par) {
    matmul_2d(t, M, N, K, 1.0, ap + i * st(*a, 0) * es, st(*a, 1), st(*a, 2), bp + i * st(*b, 0) * es, st(*b, 1),
              st(*b, 2), 0.0, op + i * st(*out, 0) * es, st(*out, 1), st(*out, 2), par);
  };
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  if (work < 1e6 && Bn > 1) {
    ::executorch::extension::parallel_for(0, Bn, std::max<int64_t>(1, static_cast<int64_t>(2e5 / (work + 1))),
                                          [&](int64_t b0, int64_t b1) {
                                            for (int64_t i = b0; i < b1; ++i) one(i, false);
                                          });
  } else {
    for (int64_t i = 0; i < Bn; ++i) one(i, true);
  }
}

ET_KERNEL_OP("aten::addmm.out", addmm_out,
             "(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
void addmm_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* a = self ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* b = a ? arg_tensor(ctx, args, 2) : nullptr;
  if (!b) return;
  Scalar beta_s, alpha_s;
  if (!arg_scalar(ctx, args, 3, &beta_s) || !arg_scalar(ctx, args, 4, &alpha_s)) return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  const ScalarType t = a->scalar_type();
  if (b->scalar_type() != t || out->scalar_type() != t || !is_supported_dtype(t) || t == ScalarType::Bool ||
      !is_supported_dtype(self->scalar_type()))
    return fail(
        ctx, Error::InvalidType,
        "self, mat1, mat2, out (arguments 0, 1, 2, 5) have dtypes %s, %s, %s, %s; expected mat1's numeric dtype",
        dtype_name(self->scalar_type()), dtype_name(t), dtype_name(b->scalar_type()), dtype_name(out->scalar_type()));
  if (a->dim() != 2 || b->dim() != 2 || a->size(1) != b->size(0) || self->dim() > 2)
    return fail(ctx, Error::InvalidArgument,
                "arguments 1 and 2 have shapes %s and %s, expected [M, K] and [K, N]; argument 0 %s, at most 2-d",
                shape_string(*a).c_str(), shape_string(*b).c_str(), shape_string(*self).c_str());
  Shape s;
  s.ndim = 2;
  s.d[0] = a->size(0);
  s.d[1] = b->size(1);
  // self must broadcast to [M, N].
  Operand os = operand_of(*self);
  {
    Loop<1> chk;
    const Operand* ops[1] = {&os};
    if (!chk.init(s, ops))
      return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) does not broadcast to [%lld, %lld]",
                  shape_string(*self).c_str(), static_cast<long long>(s.d[0]), static_cast<long long>(s.d[1]));
  }
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const double beta = beta_s.to_double(), alpha = alpha_s.to_double();
  if (beta != 0.0) copy_operand(operand_of(*out), os, s);
  const int64_t M = a->size(0), K = a->size(1), N = b->size(1);
  matmul_2d(t, M, N, K, alpha, static_cast<const char*>(a->const_data_ptr()), st(*a, 0), st(*a, 1),
            static_cast<const char*>(b->const_data_ptr()), st(*b, 0), st(*b, 1), beta,
            static_cast<char*>(out->mutable_data_ptr()), st(*out, 0), st(*out, 1), true);
}

ET_KERNEL_OP("aten::linear.out", linear_out,
             "(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)")
void linear_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor* w = x ? arg_tensor(ctx, args, 1) : nullptr;
  if (!w) return;
  const Tensor* bias = nullptr;
  if (!arg_opt_tensor(ctx, args, 2, &bias)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (x->scalar_type() != ScalarType::Float || w->scalar_type() != ScalarType::Float ||
      out->scalar_type() != ScalarType::Float || (bias && bias->scalar_type() != ScalarType::Float))
    return fail(ctx, Error::InvalidType,
                "input, weight, bias, out (arguments 0, 1, 2, 3) have dtypes %s, %s, %s, %s; expected Float",
                dtype_name(x->scalar_type()), dtype_name(w->scalar_type()),
                bias ? dtype_name(bias->scalar_type()) : "None", dtype_name(out->scalar_type()));
  if (x->dim() < 1 || w->dim() != 2 || x->size(x->dim() - 1) != w->size(1))
    return fail(ctx, Error::InvalidArgument,
                "argument 0 (input) has shape %s, argument 1 (weight) %s: expected [..., K] and [N, K]",
                shape_string(*x).c_str(), shape_string(*w).c_str());
  const int64_t K = w->size(1), N = w->size(0);
  if (bias && !(bias->numel() == N || bias->numel() == 1))
    return fail(ctx, Error::InvalidArgument, "argument 2 (bias) has %lld elements, expected %lld (or 1)",
                static_cast<long long>(bias->numel()), static_cast<long long>(N));
  if (bias && bias->dim() > 1)
    return fail(ctx, Error::InvalidArgument, "argument 2 (bias) has shape %s, expected 0-d or 1-d",
                shape_string(*bias).c_str());
  Shape s = shape_of(*x);
  s.d[s.ndim - 1] = N;
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const int64_t M = out->numel() / N;
  std::vector<float> xs;
  const float* xp = contiguous_float(*x, &xs);
  ContigOut co(*out);
  float beta = 0.f;
  if (bias) {
    const float* bp = bias->const_data_ptr<float>();
    const int64_t bs = bias->numel() == 1 ? 0 : (bias->dim() == 1 ? bias->strides()[0] : 0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) co.ptr[i * N + j] = bp[j * bs];
    beta = 1.f;
  }
  sgemm(M, N, K, 1.f, xp, K, 1, w->const_data_ptr<float>(), st(*w, 1), st(*w, 0), beta, co.ptr, N, 1, true);
  co.finish();
}

}  // namespace etk
