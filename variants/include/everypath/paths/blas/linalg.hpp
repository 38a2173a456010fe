// The blas path of matmul / dot / inner: OpenBLAS (PyPI scipy-openblas64, ILP64,
// symbols prefixed scipy_ and suffixed 64_) for float32/float64/complex64/complex128.
// Integer and bool products have no BLAS routine: the lowering does not offer this
// path for them (lowering.dispatch drops it), so nothing silently falls back here.
#pragma once

#include <complex>

#include "../../ops/linalg.hpp"

#if defined(EP_HAVE_BLAS)
#include <cblas.h>

namespace ep::la {

template <>
struct Gemm<float, path::blas> {
  static void run(const float* A, const float* B, float* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    scipy_cblas_sgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0f, A, k, B, m, 0.0f, C, m);
  }
};

template <>
struct Gemm<double, path::blas> {
  static void run(const double* A, const double* B, double* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    scipy_cblas_dgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0, A, k, B, m, 0.0, C, m);
  }
};

template <>
struct Gemm<std::complex<float>, path::blas> {
  using C64 = std::complex<float>;
  static void run(const C64* A, const C64* B, C64* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    const C64 one(1), zero(0);
    scipy_cblas_cgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, &one, A, k, B, m, &zero, C, m);
  }
};

template <>
struct Gemm<std::complex<double>, path::blas> {
  using C128 = std::complex<double>;
  static void run(const C128* A, const C128* B, C128* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    const C128 one(1), zero(0);
    scipy_cblas_zgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, &one, A, k, B, m, &zero, C, m);
  }
};

}  // namespace ep::la
#endif
