// Least squares (gelsd), pseudo-inverse and rank (gesdd) on a LAPACK library L,
// in double / complex<double>, following numpy.linalg's Python code: its rcond
// defaults, residuals only for full-rank tall systems, singular values rounded to
// the result precision before pinv's and matrix_rank's cutoffs.
#pragma once

#include "lapack_factor.hpp"

namespace ep {
namespace lapack {

// np.linalg.lstsq(a, b, rcond) for 2-d a: (x, residuals, rank, s)
template <class L, class R, class TA, class TB, int NB>
auto linalg_lstsq(const Array<TA, 2>& a, const Array<TB, NB>& b, double rcond, bool is_default) {
  static_assert(NB == 1 || NB == 2, "lstsq: b must be 1-d or 2-d");
  using W = dec::work_t<R>;
  using RR = real_t<R>;
  const index_t m = a.shape[0], n = a.shape[1], k = std::min(m, n);
  if (b.shape[0] != m) dec::linalg_error("Incompatible dimensions");
  const index_t nrhs = NB == 1 ? 1 : b.shape[1];
  // NumPy: finfo(t).eps * max(M, N), t being the computation type (double)
  if (is_default) rcond = std::numeric_limits<double>::epsilon() * static_cast<double>(std::max(m, n));
  ColMat<W> am = load<W>(a, 0);
  // b padded to max(m, n) rows (gelsd returns x in its first n); LAPACK wants nrhs >= 1
  ColMat<W> bm(std::max(m, n), std::max<index_t>(nrhs, 1));
  if (nrhs > 0) {
    const ColMat<W> bl = NB == 1 ? load_col<W>(b, 0) : load<W>(b, 0);
    for (index_t j = 0; j < nrhs; ++j)
      for (index_t i = 0; i < m; ++i) bm(i, j) = bl(i, j);
  }
  std::vector<double> s(static_cast<size_t>(std::max<index_t>(k, 1)));
  lint<L> rank = 0, info = 0;
  if (k > 0) {
    W q(0);
    double rq(1);
    lint<L> iq = 1;
    L::gelsd(m, n, bm.c, am.data(), am.ld, bm.data(), bm.ld, s.data(), rcond, rank, &q, -1, &rq, &iq, info);
    std::vector<W> work(static_cast<size_t>(lwork_of(q)));
    std::vector<double> rwork(static_cast<size_t>(lwork_of(rq)));
    std::vector<lint<L>> iwork(static_cast<size_t>(std::max<lint<L>>(iq, 1)));
    L::gelsd(m, n, bm.c, am.data(), am.ld, bm.data(), bm.ld, s.data(), rcond, rank, work.data(),
             static_cast<index_t>(work.size()), rwork.data(), iwork.data(), info);
    if (info != 0) dec::linalg_error("SVD did not converge in Linear Least Squares");
  }  // else no equations or no unknowns: x is the zero-filled rows of bm, as NumPy's
  std::array<index_t, NB> xs{};
  xs[0] = n;
  if constexpr (NB == 2) xs[1] = nrhs;
  Array<R, NB> xo = empty<R, NB>(xs);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < nrhs; ++j) xo.data[i * nrhs + j] = elem_cast<R>(bm(i, j));
  // NumPy: sum(|b[n:]|^2) per column when rank == n < m, else no residuals
  const bool resid = rank == n && m > n;
  Array<RR, 1> res = empty<RR, 1>({resid ? nrhs : 0});
  if (resid)
    for (index_t j = 0; j < nrhs; ++j) {
      double acc = 0;
      for (index_t i = n; i < m; ++i) acc += dec::abs2(bm(i, j));
      res.data[j] = static_cast<RR>(acc);
    }
  Array<RR, 1> so = empty<RR, 1>({k});
  for (index_t q = 0; q < k; ++q) so.data[q] = static_cast<RR>(s[static_cast<size_t>(q)]);
  return std::make_tuple(xo, res, static_cast<int32_t>(rank), so);
}

// np.linalg.pinv(a, rcond): V diag(1/s) U^H over singular values > rcond * max(s);
// per_dim > 0 (rtol=None): rcond = per_dim * max(M, N)
template <class L, class R, class T, int N>
Array<R, N> linalg_pinv(const Array<T, N>& a, double rcond, double per_dim) {
  using W = dec::work_t<R>;
  using RR = real_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1], k = std::min(m, n);
  if (per_dim > 0) rcond = per_dim * static_cast<double>(std::max(m, n));
  Array<R, N> out = empty<R, N>(dec::with_core<N>(a, {n, m}));
  if (m == 0 || n == 0) return out;
  const auto offs = dec::stack_offsets(a, 2);
  std::vector<W> vs(static_cast<size_t>(n * k)), uh(static_cast<size_t>(k * m)), acc(static_cast<size_t>(n * m));
  for (size_t t = 0; t < offs.size(); ++t) {
    const SVD<W> d = svd_one<L>(load<W>(a, offs[t]), 'S');
    // NumPy cuts the singular values svd returned, i.e. rounded to RR
    double smax = 0;
    for (double v : d.s) smax = std::max(smax, static_cast<double>(static_cast<RR>(v)));
    const double cutoff = rcond * smax;
    // pinv = (V diag(1/s)) @ U^H: V diag(1/s) is n x k, U^H is k x m (row-major for the GEMM)
    for (index_t q = 0; q < k; ++q) {
      const double sq = d.s[static_cast<size_t>(q)];
      const double inv = static_cast<double>(static_cast<RR>(sq)) > cutoff ? 1.0 / sq : 0.0;
      for (index_t i = 0; i < n; ++i) vs[static_cast<size_t>(i * k + q)] = conj_r(d.vt(q, i)) * inv;
      for (index_t j = 0; j < m; ++j) uh[static_cast<size_t>(q * m + j)] = conj_r(d.u(j, q));
    }
    std::fill(acc.begin(), acc.end(), W(0));
    la::Gemm<W, path::loops>::run(vs.data(), uh.data(), acc.data(), n, k, m);  // the cache-blocked loops GEMM
    R* o = out.data + t * n * m;
    for (index_t e = 0; e < n * m; ++e) o[e] = elem_cast<R>(acc[static_cast<size_t>(e)]);
  }
  return out;
}

// np.linalg.matrix_rank(A, tol): singular values (in RR) above tol, by default
// S.max() * max(M, N) * eps(RR); vectors and scalars keep the loops rule
template <class L, class RR, class T, int N>
auto linalg_matrix_rank(const Array<T, N>& a, double tol, bool default_tol) {
  if constexpr (N < 2) {
    return ep::linalg_matrix_rank<RR>(a, tol, default_tol);
  } else {
    using W = std::conditional_t<is_complex_v<T>, dec::cd, double>;
    const index_t m = a.shape[N - 2], n = a.shape[N - 1];
    std::vector<int64_t> ranks;
    for (index_t off : dec::stack_offsets(a, 2)) {
      const SVD<W> d = svd_one<L>(load<W>(a, off), 'N');
      RR smax = 0;  // NumPy compares the singular values svd returned, rounded to RR
      for (double v : d.s) smax = std::max(smax, static_cast<RR>(v));
      const double cut = default_tol
                             ? static_cast<double>(static_cast<RR>(smax * static_cast<RR>(std::max(m, n)) *
                                                                   std::numeric_limits<RR>::epsilon()))
                             : tol;
      int64_t r = 0;
      for (double v : d.s) r += static_cast<double>(static_cast<RR>(v)) > cut;
      ranks.push_back(r);
    }
    return dec::per_matrix_result<int64_t, N - 2>(ranks, a.shape.data());
  }
}

}  // namespace lapack
}  // namespace ep
