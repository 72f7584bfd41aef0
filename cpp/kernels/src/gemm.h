#pragma once
#include <cstdint>

namespace etk {

// C = alpha * A * B + beta * C for fp32, with arbitrary element strides:
//   A(i, k) = A[i * rsa + k * csa]   (M x K)
//   B(k, j) = B[k * rsb + j * csb]   (K x N)
//   C(i, j) = C[i * rsc + j * csc]   (M x N)
// beta == 0 never reads C. `parallel` allows the shared thread pool.
void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t rsa, int64_t csa, const float* B,
           int64_t rsb, int64_t csb, float beta, float* C, int64_t rsc, int64_t csc, bool parallel = true);

}  // namespace etk
