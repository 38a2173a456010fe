// Singular value decomposition by one-sided (Hestenes) Jacobi: columns of the
// matrix are rotated pairwise until all are orthogonal; their norms are the
// singular values. Accurate to a few ulps of the largest singular value, and
// the left vectors of zero singular values are completed by Householder QR.
#pragma once

#include "factor.hpp"

namespace ep {
namespace dec {

template <class S>
struct SVD {
  Mat<S> u;                // m x (k or m)
  std::vector<double> s;   // k, descending
  Mat<S> vh;               // (k or n) x n
};

// One-sided Jacobi on the columns of w (m x n, m >= n): w <- w V, V unitary.
template <class S>
void jacobi_columns(Mat<S>& w, Mat<S>& v) {
  const index_t m = w.r, n = w.c;
  const double tol = std::numeric_limits<double>::epsilon() * std::sqrt(static_cast<double>(std::max<index_t>(m, 1)));
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (index_t i = 0; i < n - 1; ++i)
      for (index_t j = i + 1; j < n; ++j) {
        double alpha = 0.0, beta = 0.0;
        S gamma = S(0);
        for (index_t r = 0; r < m; ++r) {
          const S x = w(r, i), y = w(r, j);
          alpha += abs2(x);
          beta += abs2(y);
          gamma += conj_(x) * y;
        }
        const double g = absv(gamma);
        if (g == 0.0 || g <= tol * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const S ph = gamma / g;  // e^{i phi}; column j is turned by conj(ph) first
        const double zeta = (beta - alpha) / (2.0 * g);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        const S pc = conj_(ph);
        for (index_t r = 0; r < m; ++r) {
          const S x = w(r, i), y = w(r, j) * pc;
          w(r, i) = c * x - s * y;
          w(r, j) = s * x + c * y;
        }
        for (index_t r = 0; r < v.r; ++r) {
          const S x = v(r, i), y = v(r, j) * pc;
          v(r, i) = c * x - s * y;
          v(r, j) = s * x + c * y;
        }
      }
    if (!rotated) break;
  }
}

// SVD of a tall (m >= n) matrix; full: u is m x m.
template <class S>
SVD<S> svd_tall(const Mat<S>& a, bool uv, bool full) {
  const index_t m = a.r, n = a.c;
  Mat<S> w = a;
  Mat<S> v = Mat<S>::eye(uv ? n : 0, n);
  jacobi_columns(w, v);
  std::vector<double> norms(static_cast<size_t>(n));
  for (index_t j = 0; j < n; ++j) {
    double acc = 0.0;
    for (index_t r = 0; r < m; ++r) acc += abs2(w(r, j));
    norms[static_cast<size_t>(j)] = std::sqrt(acc);
  }
  std::vector<index_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), index_t(0));
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return norms[x] > norms[y]; });
  SVD<S> out;
  for (index_t j : order) out.s.push_back(norms[static_cast<size_t>(j)]);
  if (!uv) return out;
  const index_t uc = full ? m : n;
  out.u = Mat<S>(m, uc);
  std::vector<bool> have(static_cast<size_t>(uc), false);
  for (index_t q = 0; q < n; ++q) {
    const index_t j = order[static_cast<size_t>(q)];
    const double sj = norms[static_cast<size_t>(j)];
    if (sj == 0.0) continue;
    for (index_t r = 0; r < m; ++r) out.u(r, q) = w(r, j) / sj;
    have[static_cast<size_t>(q)] = true;
  }
  complete_basis(out.u, have);
  out.vh = Mat<S>(n, n);
  for (index_t q = 0; q < n; ++q)
    for (index_t c = 0; c < n; ++c) out.vh(q, c) = conj_(v(c, order[static_cast<size_t>(q)]));
  return out;
}

// any shape: a wide matrix is decomposed through its conjugate transpose
template <class S>
SVD<S> svd_one(const Mat<S>& a, bool uv, bool full) {
  if (a.r >= a.c) return svd_tall(a, uv, full);
  SVD<S> t = svd_tall(conj_transpose(a), uv, full);
  if (!uv) return t;
  // a^H = U S V^H  =>  a = V S U^H
  SVD<S> out;
  out.s = std::move(t.s);
  out.u = conj_transpose(t.vh);
  out.vh = conj_transpose(t.u);
  return out;
}

}  // namespace dec

// np.linalg.svd(a, full_matrices, compute_uv=True): (U, S, Vh)
template <class R, class T, int N>
std::tuple<Array<R, N>, Array<dec::real_t<R>, N - 1>, Array<R, N>> linalg_svd(const Array<T, N>& a, bool full) {
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  const index_t uc = full ? m : k, vr = full ? n : k;
  Array<R, N> u = empty<R, N>(dec::with_core<N>(a, {m, uc}));
  Array<R, N> vh = empty<R, N>(dec::with_core<N>(a, {vr, n}));
  std::array<index_t, N - 1> ss{};
  for (int q = 0; q < N - 2; ++q) ss[q] = a.shape[q];
  ss[N - 2] = k;
  Array<RR, N - 1> s = empty<RR, N - 1>(ss);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    dec::SVD<S> d = dec::svd_one(dec::load<S>(a, offs[t]), true, full);
    dec::store(d.u, u.data + t * m * uc);
    for (index_t q = 0; q < k; ++q) s.data[t * k + q] = static_cast<RR>(d.s[static_cast<size_t>(q)]);
    // full_matrices=False keeps the first k rows of Vh (k == n unless wide)
    for (index_t q = 0; q < vr; ++q)
      for (index_t c = 0; c < n; ++c) vh.data[t * vr * n + q * n + c] = elem_cast<R>(d.vh(q, c));
  }
  return {u, s, vh};
}

// np.linalg.svd(a, compute_uv=False): the singular values
template <class R, class T, int N>
Array<dec::real_t<R>, N - 1> linalg_svdvals(const Array<T, N>& a) {
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  std::array<index_t, N - 1> ss{};
  for (int q = 0; q < N - 2; ++q) ss[q] = a.shape[q];
  ss[N - 2] = k;
  Array<RR, N - 1> s = empty<RR, N - 1>(ss);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    dec::SVD<S> d = dec::svd_one(dec::load<S>(a, offs[t]), false, false);
    for (index_t q = 0; q < k; ++q) s.data[t * k + q] = static_cast<RR>(d.s[static_cast<size_t>(q)]);
  }
  return s;
}

}  // namespace ep
