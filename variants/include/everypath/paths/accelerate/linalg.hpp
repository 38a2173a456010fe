// The accelerate path of matmul / dot / inner on Apple targets: Accelerate's
// CBLAS (AMX-backed on Apple silicon). Emitted only for Apple builds; on other
// hosts variants.paths reports the path as not buildable and nothing here compiles.
#pragma once

#include <complex>

#include "../../ops/linalg.hpp"

#if defined(__APPLE__) && defined(EP_HAVE_ACCELERATE)
#include <Accelerate/Accelerate.h>

namespace ep::la {

template <>
struct Gemm<float, path::accelerate> {
  static void run(const float* A, const float* B, float* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(m),
                static_cast<int>(k), 1.0f, A, static_cast<int>(k), B, static_cast<int>(m), 0.0f, C, static_cast<int>(m));
  }
};

template <>
struct Gemm<double, path::accelerate> {
  static void run(const double* A, const double* B, double* C, index_t n, index_t k, index_t m) {
    if (n == 0 || m == 0 || k == 0) return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(m),
                static_cast<int>(k), 1.0, A, static_cast<int>(k), B, static_cast<int>(m), 0.0, C, static_cast<int>(m));
  }
};

}  // namespace ep::la
#endif
