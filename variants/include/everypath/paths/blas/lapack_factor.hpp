// QR (geqrf + orgqr/ungqr), SVD (gesdd), Hermitian (syevd/heevd) and general
// (geev) eigenproblems on a LAPACK library L, in double / complex<double> like
// NumPy, with its shapes for empty matrices and its LinAlgError on any failure.
#pragma once

#include "lapack_core.hpp"

namespace ep {
namespace lapack {

// geqrf in place; tau gets min(m, n) reflector scales
template <class L, class R>
void geqrf_one(ColMat<R>& a, std::vector<R>& tau) {
  const index_t m = a.r, n = a.c, k = std::min(m, n);
  tau.assign(static_cast<size_t>(std::max<index_t>(k, 1)), R(0));
  if (k == 0) return;
  lint<L> info = 0;
  R q(0);
  L::geqrf(m, n, a.data(), a.ld, tau.data(), &q, -1, info);
  std::vector<R> work(static_cast<size_t>(lwork_of(q)));
  L::geqrf(m, n, a.data(), a.ld, tau.data(), work.data(), static_cast<index_t>(work.size()), info);
}

// the first `cols` columns of Q from geqrf's reflectors
template <class L, class R>
ColMat<R> form_q(const ColMat<R>& f, const std::vector<R>& tau, index_t cols) {
  const index_t m = f.r, k = std::min(f.r, f.c);
  ColMat<R> q(m, cols);
  for (index_t j = 0; j < std::min(cols, f.c); ++j)
    for (index_t i = 0; i < m; ++i) q(i, j) = f(i, j);
  if (m == 0 || cols == 0) return q;
  lint<L> info = 0;
  R w(0);
  L::orgqr(m, cols, k, q.data(), q.ld, tau.data(), &w, -1, info);
  std::vector<R> work(static_cast<size_t>(lwork_of(w)));
  L::orgqr(m, cols, k, q.data(), q.ld, tau.data(), work.data(), static_cast<index_t>(work.size()), info);
  return q;
}

// R: the upper triangle of the first `rows` rows, row-major into dst
template <class W, class R>
void store_r(const ColMat<W>& f, index_t rows, R* dst) {
  const index_t n = f.c;
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < n; ++j) dst[i * n + j] = j >= i ? elem_cast<R>(f(i, j)) : R(0);
}

// np.linalg.qr, mode 'reduced' / 'complete': (Q, R)
template <class L, class R, class T, int N>
std::tuple<Array<R, N>, Array<R, N>> linalg_qr(const Array<T, N>& a, bool complete) {
  using W = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  const index_t mc = complete && m > n ? m : k;
  Array<R, N> q = empty<R, N>(dec::with_core<N>(a, {m, mc}));
  Array<R, N> r = empty<R, N>(dec::with_core<N>(a, {mc, n}));
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> f = load<W>(a, offs[t]);
    std::vector<W> tau;
    geqrf_one<L>(f, tau);
    store_r(f, mc, r.data + t * mc * n);
    store(form_q<L>(f, tau, mc), m, mc, q.data + t * m * mc);
  }
  return {q, r};
}

// np.linalg.qr(a, 'r')
template <class L, class R, class T, int N>
Array<R, N> linalg_qr_r(const Array<T, N>& a) {
  using W = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  Array<R, N> r = empty<R, N>(dec::with_core<N>(a, {k, n}));
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> f = load<W>(a, offs[t]);
    std::vector<W> tau;
    geqrf_one<L>(f, tau);
    store_r(f, k, r.data + t * k * n);
  }
  return r;
}

// gesdd of one matrix: jobz 'A' (full), 'S' (reduced) or 'N' (values only)
template <class R>
struct SVD {
  ColMat<R> u, vt;
  std::vector<real_t<R>> s;
};

template <class L, class R>
SVD<R> svd_one(ColMat<R> a, char jobz) {
  using RR = real_t<R>;
  const index_t m = a.r, n = a.c, k = std::min(m, n), mx = std::max(m, n);
  const index_t uc = jobz == 'A' ? m : jobz == 'S' ? k : 0, vr = jobz == 'A' ? n : jobz == 'S' ? k : 0;
  SVD<R> out{ColMat<R>(m, uc), ColMat<R>(vr, n), std::vector<RR>()};
  if (k == 0) {  // nothing to decompose: the full bases are identities (NumPy)
    for (index_t i = 0; i < std::min(m, uc); ++i) out.u(i, i) = R(1);
    for (index_t i = 0; i < std::min(n, vr); ++i) out.vt(i, i) = R(1);
    return out;
  }
  std::vector<RR> s(static_cast<size_t>(k));
  std::vector<lint<L>> iwork(static_cast<size_t>(8 * k));
  const index_t lrw = jobz == 'N' ? 7 * k : std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k);
  std::vector<RR> rwork(static_cast<size_t>(is_complex_v<R> ? lrw : 1));
  lint<L> info = 0;
  R q(0);
  L::gesdd(jobz, m, n, a.data(), a.ld, s.data(), out.u.data(), out.u.ld, out.vt.data(), out.vt.ld, &q, -1,
           rwork.data(), iwork.data(), info);
  std::vector<R> work(static_cast<size_t>(lwork_of(q)));
  L::gesdd(jobz, m, n, a.data(), a.ld, s.data(), out.u.data(), out.u.ld, out.vt.data(), out.vt.ld, work.data(),
           static_cast<index_t>(work.size()), rwork.data(), iwork.data(), info);
  if (info != 0) dec::linalg_error("SVD did not converge");
  out.s = std::move(s);
  return out;
}

// np.linalg.svd(a, full_matrices): (U, S, Vh)
template <class L, class R, class T, int N>
std::tuple<Array<R, N>, Array<real_t<R>, N - 1>, Array<R, N>> linalg_svd(const Array<T, N>& a, bool full) {
  using RR = real_t<R>;
  using W = dec::work_t<R>;
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
    SVD<W> d = svd_one<L>(load<W>(a, offs[t]), full ? 'A' : 'S');
    store(d.u, m, uc, u.data + t * m * uc);
    for (index_t q = 0; q < k; ++q) s.data[t * k + q] = static_cast<RR>(d.s[static_cast<size_t>(q)]);
    store(d.vt, vr, n, vh.data + t * vr * n);
  }
  return {u, s, vh};
}

// np.linalg.svd(a, compute_uv=False)
template <class L, class R, class T, int N>
Array<real_t<R>, N - 1> linalg_svdvals(const Array<T, N>& a) {
  using RR = real_t<R>;
  using W = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  std::array<index_t, N - 1> ss{};
  for (int q = 0; q < N - 2; ++q) ss[q] = a.shape[q];
  ss[N - 2] = k;
  Array<RR, N - 1> s = empty<RR, N - 1>(ss);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    const SVD<W> d = svd_one<L>(load<W>(a, offs[t]), 'N');
    for (index_t q = 0; q < k; ++q) s.data[t * k + q] = static_cast<RR>(d.s[static_cast<size_t>(q)]);
  }
  return s;
}

// syevd / heevd of one matrix in place (eigenvectors overwrite a when jobz == 'V')
template <class L, class R>
std::vector<real_t<R>> heevd_one(ColMat<R>& a, char jobz, char uplo) {
  using RR = real_t<R>;
  const index_t n = a.r;
  std::vector<RR> w(static_cast<size_t>(n));
  if (n == 0) return w;
  lint<L> info = 0, iq = 1;
  R q(0);
  RR rq(1);
  L::heevd(jobz, uplo, n, a.data(), a.ld, w.data(), &q, -1, &rq, -1, &iq, -1, info);
  std::vector<R> work(static_cast<size_t>(lwork_of(q)));
  std::vector<RR> rwork(static_cast<size_t>(lwork_of(rq)));
  std::vector<lint<L>> iwork(static_cast<size_t>(std::max<lint<L>>(iq, 1)));
  L::heevd(jobz, uplo, n, a.data(), a.ld, w.data(), work.data(), static_cast<index_t>(work.size()), rwork.data(),
           static_cast<index_t>(rwork.size()), iwork.data(), static_cast<index_t>(iwork.size()), info);
  if (info != 0) dec::linalg_error("Eigenvalues did not converge");
  return w;
}

// np.linalg.eigh(a, UPLO): (eigenvalues ascending, eigenvectors in columns)
template <class L, class R, class T, int N>
std::tuple<Array<real_t<R>, N - 1>, Array<R, N>> linalg_eigh(const Array<T, N>& a, const std::string& uplo) {
  using W = dec::work_t<R>;
  const char ul = dec::uplo_lower(uplo) ? 'L' : 'U';
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<real_t<R>, N - 1> w = empty<real_t<R>, N - 1>(ws);
  Array<R, N> v = empty<R, N>(a.shape);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> m = load<W>(a, offs[t]);
    const auto e = heevd_one<L>(m, 'V', ul);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = static_cast<real_t<R>>(e[static_cast<size_t>(q)]);
    store(m, n, n, v.data + t * n * n);
  }
  return {w, v};
}

// np.linalg.eigvalsh(a, UPLO)
template <class L, class R, class T, int N>
Array<real_t<R>, N - 1> linalg_eigvalsh(const Array<T, N>& a, const std::string& uplo) {
  using W = dec::work_t<R>;
  const char ul = dec::uplo_lower(uplo) ? 'L' : 'U';
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<real_t<R>, N - 1> w = empty<real_t<R>, N - 1>(ws);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> m = load<W>(a, offs[t]);
    const auto e = heevd_one<L>(m, 'N', ul);
    for (index_t q = 0; q < n; ++q) w.data[t * n + q] = static_cast<real_t<R>>(e[static_cast<size_t>(q)]);
  }
  return w;
}

}  // namespace lapack
}  // namespace ep
