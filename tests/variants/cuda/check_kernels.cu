// Runs every cuda-path kernel against a host reference on empty, 1-element, odd
// and prime sizes. Exit 0: all agree; 77: no GPU here (cudaErrorNoDevice /
// cudaErrorInsufficientDriver), nothing was run; 1: a mismatch (printed).
// Built by tests/variants/test_cuda.py with nvcc; run on a GPU machine by
// bench/cuda_check.sh.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "everypath/paths/cuda/gemm.cuh"
#include "everypath/paths/cuda/map.cuh"
#include "everypath/paths/cuda/reduce.cuh"

using ep::cuda::index_t;

static int failures = 0;

static void expect_close(const char* what, index_t n, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("FAIL %s n=%lld got=%.17g want=%.17g\n", what, static_cast<long long>(n), got, want);
    ++failures;
  }
}

template <class R>
static void check_sizes(std::mt19937_64& rng, double tol) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (index_t n : {0, 1, 7, 97, 1009, 100003}) {
    std::vector<R> x(n), y(n), out(n);
    for (index_t i = 0; i < n; ++i) x[i] = static_cast<R>(u(rng)), y[i] = static_cast<R>(u(rng));
    ep::cuda::map_contiguous<R>(out.data(), n, [] __device__(R a, R b) { return a * b + sin(a); }, x.data(), y.data());
    for (index_t i = 0; i < n; ++i) expect_close("map", n, out[i], x[i] * y[i] + std::sin(x[i]), tol);
    double want = 0;
    for (index_t i = 0; i < n; ++i) want += x[i];
    expect_close("sum", n, ep::cuda::sum_contiguous<R>(x.data(), n), want, tol * std::sqrt(double(n) + 1));
  }
  for (auto [n, k, m] : {std::tuple<index_t, index_t, index_t>{0, 3, 2}, {1, 1, 1}, {3, 0, 4}, {7, 13, 5},
                         {97, 31, 64}}) {
    std::vector<R> a(n * k), b(k * m), c(n * m);
    for (auto& v : a) v = static_cast<R>(u(rng));
    for (auto& v : b) v = static_cast<R>(u(rng));
    ep::cuda::gemm_contiguous<R>(a.data(), b.data(), c.data(), n, k, m);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j) {
        double want = 0;
        for (index_t p = 0; p < k; ++p) want += double(a[i * k + p]) * double(b[p * m + j]);
        expect_close("gemm", n, c[i * m + j], want, tol * (k + 1));
      }
  }
}

int main() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (ep::cuda::no_gpu(e) || count == 0) {
    std::printf("NO GPU (%s): cuda kernels compiled, not run\n", cudaGetErrorString(e));
    return 77;
  }
  std::mt19937_64 rng(42);
  try {
    check_sizes<double>(rng, 1e-12);
    check_sizes<float>(rng, 1e-5);
  } catch (const std::exception& ex) {
    std::printf("FAIL exception: %s\n", ex.what());
    return 1;
  }
  std::printf(failures ? "FAILED: %d mismatches\n" : "OK: every cuda kernel agrees with the host reference%.0d\n",
              failures);
  return failures ? 1 : 0;
}
