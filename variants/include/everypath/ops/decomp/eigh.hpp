// Hermitian eigenproblems by the cyclic Jacobi method: each off-diagonal pair
// (p, q) is zeroed by a phase (complex input) and a real plane rotation, until
// a sweep rotates nothing. Eigenvalues ascending, as LAPACK's heevd returns them.
#pragma once

#include "common.hpp"

namespace ep {
namespace dec {

template <class S>
struct Eigh {
  std::vector<double> w;
  Mat<S> v;  // eigenvectors in columns
};

// The Hermitian matrix whose lower (or upper) triangle is a's; LAPACK ignores
// the imaginary part of the diagonal.
template <class S>
Mat<S> hermitian_from(const Mat<S>& a, bool lower) {
  const index_t n = a.r;
  Mat<S> h(n, n);
  for (index_t i = 0; i < n; ++i) {
    h(i, i) = S(re(a(i, i)));
    for (index_t j = 0; j < i; ++j) {
      const S x = lower ? a(i, j) : conj_(a(j, i));
      h(i, j) = x;
      h(j, i) = conj_(x);
    }
  }
  return h;
}

template <class S>
Eigh<S> eigh_one(Mat<S> a, bool vectors) {
  const index_t n = a.r;
  Mat<S> v = Mat<S>::eye(vectors ? n : 0, n);
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (index_t p = 0; p < n - 1; ++p)
      for (index_t q = p + 1; q < n; ++q) {
        const double g = absv(a(p, q));
        if (g == 0.0) continue;
        const double app = re(a(p, p)), aqq = re(a(q, q));
        // negligible against both diagonal entries: drop it (relative accuracy)
        if (g <= 0.5 * eps * std::sqrt(std::fabs(app) * std::fabs(aqq))) {
          a(p, q) = a(q, p) = S(0);
          continue;
        }
        rotated = true;
        if constexpr (is_complex_v<S>) {
          // phase: column q times conj(e), row q times e, so a(p, q) becomes |a(p, q)|
          const S e = a(p, q) / g, ec = std::conj(e);
          for (index_t k = 0; k < n; ++k) a(k, q) *= ec;
          for (index_t k = 0; k < n; ++k) a(q, k) *= e;
          for (index_t k = 0; k < v.r; ++k) v(k, q) *= ec;
        }
        const double h = re(a(p, q));  // real now: |a(p, q)|, or signed for real input
        const double theta = (aqq - app) / (2.0 * h);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (index_t k = 0; k < n; ++k) {
          const S x = a(k, p), y = a(k, q);
          a(k, p) = c * x - s * y;
          a(k, q) = s * x + c * y;
        }
        for (index_t k = 0; k < n; ++k) {
          const S x = a(p, k), y = a(q, k);
          a(p, k) = c * x - s * y;
          a(q, k) = s * x + c * y;
        }
        a(p, q) = a(q, p) = S(0);
        a(p, p) = S(app - t * h);
        a(q, q) = S(aqq + t * h);
        for (index_t k = 0; k < v.r; ++k) {
          const S x = v(k, p), y = v(k, q);
          v(k, p) = c * x - s * y;
          v(k, q) = s * x + c * y;
        }
      }
    if (!rotated) break;
  }
  std::vector<index_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), index_t(0));
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return re(a(x, x)) < re(a(y, y)); });
  Eigh<S> out;
  for (index_t j : order) out.w.push_back(re(a(j, j)));
  if (vectors) {
    out.v = Mat<S>(n, n);
    for (index_t c = 0; c < n; ++c)
      for (index_t r = 0; r < n; ++r) out.v(r, c) = v(r, order[static_cast<size_t>(c)]);
  }
  return out;
}

inline bool uplo_lower(const std::string& uplo) {
  if (uplo == "L" || uplo == "l") return true;
  if (uplo == "U" || uplo == "u") return false;
  raise("ValueError", "UPLO argument must be 'L' or 'U'");
}

}  // namespace dec

// np.linalg.eigh(a, UPLO): (eigenvalues ascending, eigenvectors in columns)
template <class R, class T, int N>
std::tuple<Array<dec::real_t<R>, N - 1>, Array<R, N>> linalg_eigh(const Array<T, N>& a, const std::string& uplo) {
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  const bool lower = dec::uplo_lower(uplo);
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<RR, N - 1> w = empty<RR, N - 1>(ws);
  Array<R, N> v = empty<R, N>(a.shape);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    dec::Eigh<S> e = dec::eigh_one(dec::hermitian_from(dec::load<S>(a, offs[t]), lower), true);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = static_cast<RR>(e.w[static_cast<size_t>(q)]);
    dec::store(e.v, v.data + t * n * n);
  }
  return {w, v};
}

// np.linalg.eigvalsh(a, UPLO)
template <class R, class T, int N>
Array<dec::real_t<R>, N - 1> linalg_eigvalsh(const Array<T, N>& a, const std::string& uplo) {
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  const bool lower = dec::uplo_lower(uplo);
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<RR, N - 1> w = empty<RR, N - 1>(ws);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    dec::Eigh<S> e = dec::eigh_one(dec::hermitian_from(dec::load<S>(a, offs[t]), lower), false);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = static_cast<RR>(e.w[static_cast<size_t>(q)]);
  }
  return w;
}

}  // namespace ep
