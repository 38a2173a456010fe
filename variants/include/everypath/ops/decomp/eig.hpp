// General eigenproblems (np.linalg.eig / eigvals) in complex arithmetic:
// Householder reduction to Hessenberg form, implicit single-shift QR with
// Wilkinson shifts to the Schur form T = Z^H A Z, eigenvectors by back
// substitution in T, normalised like LAPACK's geev (unit norm, largest
// component real). Eigenvalues come in Schur order (NumPy does not sort them).
#pragma once

#include "common.hpp"

namespace ep {
namespace dec {

struct Schur {
  Mat<cd> t, z;
};

inline Schur schur(Mat<cd> h, bool want_z) {
  const index_t n = h.r;
  Mat<cd> z = Mat<cd>::eye(want_z ? n : 0, n);
  // Hessenberg: P = I - 2 v v^H / (v^H v), Hermitian and unitary; H <- P H P
  for (index_t k = 0; k + 2 < n; ++k) {
    double xn = 0.0;
    for (index_t i = k + 1; i < n; ++i) xn += abs2(h(i, k));
    xn = std::sqrt(xn);
    if (xn == 0.0) continue;
    std::vector<cd> v(static_cast<size_t>(n), cd(0));
    const cd x0 = h(k + 1, k);
    const cd ph = std::abs(x0) > 0 ? x0 / std::abs(x0) : cd(1);
    for (index_t i = k + 1; i < n; ++i) v[i] = h(i, k);
    v[k + 1] += ph * xn;
    double vn = 0.0;
    for (index_t i = k + 1; i < n; ++i) vn += abs2(v[i]);
    if (vn == 0.0) continue;
    for (index_t j = 0; j < n; ++j) {  // rows: H <- P H
      cd w(0);
      for (index_t i = k + 1; i < n; ++i) w += std::conj(v[i]) * h(i, j);
      w *= 2.0 / vn;
      for (index_t i = k + 1; i < n; ++i) h(i, j) -= v[i] * w;
    }
    auto right = [&](Mat<cd>& m) {  // columns: M <- M P
      for (index_t i = 0; i < m.r; ++i) {
        cd w(0);
        for (index_t j = k + 1; j < n; ++j) w += m(i, j) * v[j];
        w *= 2.0 / vn;
        for (index_t j = k + 1; j < n; ++j) m(i, j) -= w * std::conj(v[j]);
      }
    };
    right(h);
    right(z);
    for (index_t i = k + 2; i < n; ++i) h(i, k) = cd(0);
  }
  const double eps = std::numeric_limits<double>::epsilon();
  index_t hi = n - 1, iter = 0;
  while (hi > 0) {
    index_t l = hi;
    for (; l > 0; --l) {
      const double s = std::abs(h(l - 1, l - 1)) + std::abs(h(l, l));
      if (std::abs(h(l, l - 1)) <= eps * (s == 0.0 ? 1.0 : s)) {
        h(l, l - 1) = cd(0);
        break;
      }
    }
    if (l == hi) {
      --hi;
      iter = 0;
      continue;
    }
    if (++iter > 60 * std::max<index_t>(n, 1)) linalg_error("Eigenvalues did not converge");
    cd mu;
    if (iter % 11 == 0) {  // exceptional shift against cycling
      mu = h(hi, hi) + cd(std::abs(h(hi, hi - 1).real()) + std::abs(hi >= 2 ? h(hi - 1, hi - 2).real() : 0.0), 0);
    } else {  // Wilkinson: the eigenvalue of the trailing 2x2 closer to its last entry
      const cd a = h(hi - 1, hi - 1), b = h(hi - 1, hi), c = h(hi, hi - 1), d = h(hi, hi);
      const cd half = (a - d) * 0.5;
      const cd disc = std::sqrt(half * half + b * c);
      const cd m1 = d - b * c / (half + disc), m2 = d - b * c / (half - disc);
      const bool ok1 = std::isfinite(m1.real()) && std::isfinite(m1.imag());
      const bool ok2 = std::isfinite(m2.real()) && std::isfinite(m2.imag());
      mu = !ok1 ? (ok2 ? m2 : d) : !ok2 ? m1 : (std::abs(m1 - d) <= std::abs(m2 - d) ? m1 : m2);
    }
    cd x = h(l, l) - mu, y = h(l + 1, l);
    for (index_t k = l; k < hi; ++k) {
      if (k > l) x = h(k, k - 1), y = h(k + 1, k - 1);
      const double ax = std::abs(x), r = std::hypot(ax, std::abs(y));
      double c;
      cd s;
      if (r == 0.0) c = 1.0, s = cd(0);
      else if (ax == 0.0) c = 0.0, s = cd(1);
      else c = ax / r, s = std::conj(y) * x / (ax * r);
      for (index_t j = (k > l ? k - 1 : l); j < n; ++j) {  // rows k, k+1 <- G
        const cd p = h(k, j), q = h(k + 1, j);
        h(k, j) = c * p + s * q;
        h(k + 1, j) = -std::conj(s) * p + c * q;
      }
      if (k > l) h(k + 1, k - 1) = cd(0);
      const index_t rows = std::min(k + 2, hi);
      auto cols = [&](Mat<cd>& m, index_t upto) {  // columns k, k+1 <- M G^H
        for (index_t i = 0; i <= upto; ++i) {
          const cd p = m(i, k), q = m(i, k + 1);
          m(i, k) = c * p + std::conj(s) * q;
          m(i, k + 1) = -s * p + c * q;
        }
      };
      cols(h, rows);
      if (want_z) cols(z, n - 1);
    }
  }
  return Schur{std::move(h), std::move(z)};
}

// eigenvectors of the triangular T mapped back through Z, LAPACK's normalisation
inline Mat<cd> schur_vectors(const Schur& s) {
  const index_t n = s.t.r;
  double tnorm = 0.0;
  for (const cd& v : s.t.v) tnorm = std::max(tnorm, std::abs(v));
  const double small = std::numeric_limits<double>::epsilon() * std::max(tnorm, 1e-300);
  Mat<cd> out(n, n);
  std::vector<cd> y(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    const cd lam = s.t(k, k);
    std::fill(y.begin(), y.end(), cd(0));
    y[k] = cd(1);
    for (index_t i = k - 1; i >= 0; --i) {
      cd acc(0);
      for (index_t j = i + 1; j <= k; ++j) acc += s.t(i, j) * y[j];
      cd den = s.t(i, i) - lam;
      if (std::abs(den) < small) den = cd(small, 0);
      y[i] = -acc / den;
    }
    std::vector<cd> v(static_cast<size_t>(n), cd(0));
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j <= k; ++j) v[i] += s.z(i, j) * y[j];
    double nrm = 0.0;
    index_t big = 0;
    for (index_t i = 0; i < n; ++i) {
      nrm += abs2(v[i]);
      if (std::abs(v[i]) > std::abs(v[big])) big = i;
    }
    nrm = std::sqrt(nrm);
    const cd ph = std::abs(v[big]) > 0 ? std::conj(v[big]) / std::abs(v[big]) : cd(1);
    for (index_t i = 0; i < n; ++i) out(i, k) = v[i] * ph / nrm;
    out(big, k) = cd(out(big, k).real(), 0.0);
  }
  return out;
}

}  // namespace dec

// np.linalg.eig: (eigenvalues, eigenvectors in columns), complex results C
template <class C, class T, int N>
std::tuple<Array<C, N - 1>, Array<C, N>> linalg_eig(const Array<T, N>& a) {
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<C, N - 1> w = empty<C, N - 1>(ws);
  Array<C, N> v = empty<C, N>(a.shape);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    const dec::Schur s = dec::schur(dec::load<dec::cd>(a, offs[t]), true);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = elem_cast<C>(s.t(q, q));
    dec::store(dec::schur_vectors(s), v.data + t * n * n);
  }
  return {w, v};
}

// np.linalg.eigvals
template <class C, class T, int N>
Array<C, N - 1> linalg_eigvals(const Array<T, N>& a) {
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<C, N - 1> w = empty<C, N - 1>(ws);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    const dec::Schur s = dec::schur(dec::load<dec::cd>(a, offs[t]), false);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = elem_cast<C>(s.t(q, q));
  }
  return w;
}

}  // namespace ep
