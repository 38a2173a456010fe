// Cholesky and Householder QR. The reflectors follow LAPACK's zlarfg (beta =
// -sign(re alpha) * norm, R's diagonal real), so Q and R agree with NumPy's
// (LAPACK geqrf + orgqr) up to rounding.
#pragma once

#include "common.hpp"

namespace ep {
namespace dec {

// Lower Cholesky factor from the lower triangle of a (potrf 'L').
template <class S>
Mat<S> cholesky_lower(const Mat<S>& a) {
  const index_t n = a.r;
  Mat<S> l(n, n);
  for (index_t j = 0; j < n; ++j) {
    double d = re(a(j, j));
    for (index_t k = 0; k < j; ++k) d -= abs2(l(j, k));
    if (!(d > 0.0)) linalg_error("Matrix is not positive definite");
    const double ljj = std::sqrt(d);
    l(j, j) = S(ljj);
    for (index_t i = j + 1; i < n; ++i) {
      S s = a(i, j);
      for (index_t k = 0; k < j; ++k) s -= l(i, k) * conj_(l(j, k));
      l(i, j) = s / ljj;
    }
  }
  return l;
}

// Householder QR: a is overwritten with R (upper part) and the reflectors
// (below the diagonal, v0 = 1 implied); tau holds their scales.
template <class S>
struct QR {
  Mat<S> a;
  std::vector<S> tau;
};

template <class S>
QR<S> householder(Mat<S> a) {
  const index_t m = a.r, n = a.c, k = std::min(m, n);
  std::vector<S> tau(static_cast<size_t>(k), S(0));
  for (index_t j = 0; j < k; ++j) {
    const S alpha = a(j, j);
    double xn2 = 0.0;
    for (index_t i = j + 1; i < m; ++i) xn2 += abs2(a(i, j));
    const double xnorm = std::sqrt(xn2);
    if (xnorm == 0.0 && im(alpha) == 0.0) continue;  // H = I
    const double beta = -std::copysign(std::sqrt(abs2(alpha) + xn2), re(alpha));
    S t;
    if constexpr (is_complex_v<S>) t = S((beta - re(alpha)) / beta, -im(alpha) / beta);
    else t = (beta - alpha) / beta;
    const S scale = S(1) / (alpha - S(beta));
    for (index_t i = j + 1; i < m; ++i) a(i, j) *= scale;
    a(j, j) = S(beta);
    tau[static_cast<size_t>(j)] = t;
    // apply H^H = I - conj(tau) v v^H to the trailing columns
    const S tc = conj_(t);
    for (index_t c = j + 1; c < n; ++c) {
      S w = a(j, c);
      for (index_t i = j + 1; i < m; ++i) w += conj_(a(i, j)) * a(i, c);
      w *= tc;
      a(j, c) -= w;
      for (index_t i = j + 1; i < m; ++i) a(i, c) -= a(i, j) * w;
    }
  }
  return QR<S>{std::move(a), std::move(tau)};
}

// The first `cols` columns of Q = H_0 H_1 ... H_{k-1} (orgqr).
template <class S>
Mat<S> form_q(const QR<S>& f, index_t cols) {
  const index_t m = f.a.r, k = static_cast<index_t>(f.tau.size());
  Mat<S> q = Mat<S>::eye(m, cols);
  for (index_t j = k - 1; j >= 0; --j) {
    const S t = f.tau[static_cast<size_t>(j)];
    if (t == S(0)) continue;
    for (index_t c = 0; c < cols; ++c) {
      S w = q(j, c);
      for (index_t i = j + 1; i < m; ++i) w += conj_(f.a(i, j)) * q(i, c);
      w *= t;
      q(j, c) -= w;
      for (index_t i = j + 1; i < m; ++i) q(i, c) -= f.a(i, j) * w;
    }
  }
  return q;
}

// R: the upper triangle of the first `rows` rows
template <class S>
Mat<S> form_r(const QR<S>& f, index_t rows) {
  Mat<S> r(rows, f.a.c);
  for (index_t i = 0; i < std::min(rows, f.a.r); ++i)
    for (index_t j = i; j < f.a.c; ++j) r(i, j) = f.a(i, j);
  return r;
}

// Columns of q (m x p) flagged in `have` are orthonormal; replace the others by
// an orthonormal basis of the complement (Householder QR of the kept columns).
template <class S>
void complete_basis(Mat<S>& q, const std::vector<bool>& have) {
  const index_t m = q.r, p = q.c;
  std::vector<index_t> kept;
  for (index_t j = 0; j < p; ++j)
    if (have[static_cast<size_t>(j)]) kept.push_back(j);
  if (static_cast<index_t>(kept.size()) == p) return;
  Mat<S> k(m, static_cast<index_t>(kept.size()));
  for (size_t c = 0; c < kept.size(); ++c)
    for (index_t i = 0; i < m; ++i) k(i, static_cast<index_t>(c)) = q(i, kept[c]);
  const Mat<S> full = form_q(householder(k), m);
  index_t next = static_cast<index_t>(kept.size());
  for (index_t j = 0; j < p; ++j) {
    if (have[static_cast<size_t>(j)]) continue;
    for (index_t i = 0; i < m; ++i) q(i, j) = full(i, next);
    ++next;
  }
}

}  // namespace dec

// np.linalg.cholesky(a, upper=...)
template <class R, class T, int N>
Array<R, N> linalg_cholesky(const Array<T, N>& a, bool upper) {
  using S = dec::work_t<R>;
  dec::check_square(a);
  Array<R, N> out = empty<R, N>(a.shape);
  const index_t n = a.shape[N - 1];
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    dec::Mat<S> m = dec::load<S>(a, offs[t]);
    // upper: U^H U from the upper triangle = (lower factor of conj(A)^T)^H
    dec::Mat<S> l = dec::cholesky_lower(upper ? dec::conj_transpose(m) : m);
    dec::store(upper ? dec::conj_transpose(l) : l, out.data + t * n * n);
  }
  return out;
}

// np.linalg.qr, mode 'reduced' / 'complete': (Q, R)
template <class R, class T, int N>
std::tuple<Array<R, N>, Array<R, N>> linalg_qr(const Array<T, N>& a, bool complete) {
  using S = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  const index_t mc = complete && m > n ? m : k;
  Array<R, N> q = empty<R, N>(dec::with_core<N>(a, {m, mc}));
  Array<R, N> r = empty<R, N>(dec::with_core<N>(a, {mc, n}));
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    const dec::QR<S> f = dec::householder(dec::load<S>(a, offs[t]));
    dec::store(dec::form_q(f, mc), q.data + t * m * mc);
    dec::store(dec::form_r(f, mc), r.data + t * mc * n);
  }
  return {q, r};
}

// np.linalg.qr(a, 'r'): R only
template <class R, class T, int N>
Array<R, N> linalg_qr_r(const Array<T, N>& a) {
  using S = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  Array<R, N> r = empty<R, N>(dec::with_core<N>(a, {k, n}));
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t)
    dec::store(dec::form_r(dec::householder(dec::load<S>(a, offs[t])), k), r.data + t * k * n);
  return r;
}

}  // namespace ep
