// numpy.linalg on a LAPACK library, written once for any library L (a `Calls`
// struct of lapack_calls.inc): column-major work copies, workspace queries, and
// the LU / Cholesky based operators (det, slogdet, inv, solve, cholesky).
// Every routine runs in double or complex<double> (W = dec::work_t<R>) and casts
// to the result type R, as numpy.linalg's _commonType does (float32 input is
// computed by dgetrf etc. too); LinAlgError where NumPy raises it.
#pragma once

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "../../ops/decomp.hpp"

namespace ep {
namespace lapack {

using dec::real_t;

// A column-major copy of one matrix (LAPACK overwrites its operands).
template <class R>
struct ColMat {
  index_t r = 0, c = 0, ld = 1;
  std::vector<R> v;
  ColMat(index_t rows, index_t cols, index_t lead = 0)
      : r(rows), c(cols), ld(std::max<index_t>({lead, rows, 1})),
        v(static_cast<size_t>(std::max<index_t>(ld * cols, 1)), R(0)) {}
  R& operator()(index_t i, index_t j) { return v[static_cast<size_t>(i + j * ld)]; }
  const R& operator()(index_t i, index_t j) const { return v[static_cast<size_t>(i + j * ld)]; }
  R* data() { return v.data(); }
};

// the matrix at `off` of a (last two axes), converted to R, column-major (ld >= rows)
template <class R, class T, int N>
ColMat<R> load(const Array<T, N>& a, index_t off, index_t lead = 0) {
  const index_t r = a.shape[N - 2], c = a.shape[N - 1];
  const index_t sr = a.strides[N - 2], sc = a.strides[N - 1];
  ColMat<R> m(r, c, lead);
  for (index_t j = 0; j < c; ++j)
    for (index_t i = 0; i < r; ++i) m(i, j) = elem_cast<R>(a.data[off + i * sr + j * sc]);
  return m;
}

// the vector at `off` (last axis) as an (n, 1) column
template <class R, class T, int N>
ColMat<R> load_col(const Array<T, N>& a, index_t off, index_t lead = 0) {
  const index_t n = a.shape[N - 1], s = a.strides[N - 1];
  ColMat<R> m(n, 1, lead);
  for (index_t i = 0; i < n; ++i) m(i, 0) = elem_cast<R>(a.data[off + i * s]);
  return m;
}

// rows x cols of m, row-major into dst, cast to R
template <class W, class R>
void store(const ColMat<W>& m, index_t rows, index_t cols, R* dst) {
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) dst[i * cols + j] = elem_cast<R>(m(i, j));
}

// a workspace size LAPACK returned from a query (lwork = -1), at least 1
template <class W>
index_t lwork_of(const W& w) {
  double x;
  if constexpr (is_complex_v<W>) x = static_cast<double>(w.real());
  else x = static_cast<double>(w);
  return std::max<index_t>(1, static_cast<index_t>(x));
}

template <class L>
using lint = typename L::lint;

template <class R>
R conj_r(const R& x) {
  if constexpr (is_complex_v<R>) return std::conj(x);
  else return x;
}

// (sign, log|det|) of one matrix after getrf: NumPy's slogdet_single_element
template <class L, class W>
std::pair<W, double> slogdet_one(ColMat<W> m) {
  using R = W;
  using RR = double;
  const index_t n = m.r;
  std::vector<lint<L>> piv(static_cast<size_t>(std::max<index_t>(n, 1)));
  lint<L> info = 0;
  if (n > 0) L::getrf(n, n, m.data(), m.ld, piv.data(), info);
  if (info > 0) return {R(0), -std::numeric_limits<RR>::infinity()};
  if (info < 0) dec::linalg_error("getrf: illegal argument");
  bool flip = false;
  for (index_t i = 0; i < n; ++i) flip ^= piv[static_cast<size_t>(i)] != i + 1;  // Fortran pivots are 1-based
  R sign = flip ? R(-1) : R(1);
  RR logdet = 0;
  for (index_t i = 0; i < n; ++i) {
    const R d = m(i, i);
    if constexpr (is_complex_v<R>) {
      const RR ad = std::abs(d);
      sign *= d / ad;
      logdet += std::log(ad);
    } else {
      if (d < 0) sign = -sign;
      logdet += std::log(std::fabs(d));
    }
  }
  return {sign, logdet};
}

template <class L, class R, class T, int N>
auto linalg_slogdet(const Array<T, N>& a) {
  dec::check_square(a);
  std::vector<R> signs;
  std::vector<real_t<R>> logs;
  for (index_t off : dec::stack_offsets(a, 2)) {
    auto [s, l] = slogdet_one<L>(load<dec::work_t<R>>(a, off));
    signs.push_back(elem_cast<R>(s));
    logs.push_back(static_cast<real_t<R>>(l));
  }
  return std::make_tuple(dec::per_matrix_result<R, N - 2>(signs, a.shape.data()),
                         dec::per_matrix_result<real_t<R>, N - 2>(logs, a.shape.data()));
}

// det = sign * exp(logabsdet), as NumPy computes it
template <class L, class R, class T, int N>
auto linalg_det(const Array<T, N>& a) {
  dec::check_square(a);
  std::vector<R> dets;
  for (index_t off : dec::stack_offsets(a, 2)) {
    auto [s, l] = slogdet_one<L>(load<dec::work_t<R>>(a, off));
    dets.push_back(elem_cast<R>(s * std::exp(l)));
  }
  return dec::per_matrix_result<R, N - 2>(dets, a.shape.data());
}

// gesv of one system in place (b becomes x); LinAlgError on an exactly singular a
template <class L, class W>
void gesv_one(ColMat<W>& a, ColMat<W>& b) {
  const index_t n = a.r;
  if (n == 0) return;
  std::vector<lint<L>> piv(static_cast<size_t>(n));
  lint<L> info = 0;
  L::gesv(n, b.c, a.data(), a.ld, piv.data(), b.data(), b.ld, info);
  if (info > 0) dec::linalg_error("Singular matrix");
}

// np.linalg.inv: gesv against the identity, as NumPy does
template <class L, class R, class T, int N>
Array<R, N> linalg_inv(const Array<T, N>& a) {
  using W = dec::work_t<R>;
  dec::check_square(a);
  Array<R, N> out = empty<R, N>(a.shape);
  const index_t n = a.shape[N - 1];
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> m = load<W>(a, offs[t]);
    ColMat<W> e(n, n);
    for (index_t i = 0; i < n; ++i) e(i, i) = W(1);
    gesv_one<L>(m, e);
    store(e, n, n, out.data + t * n * n);
  }
  return out;
}

// np.linalg.solve: a (..., M, M); b (M,) when 1-d, else (..., M, K); batch axes broadcast
template <class L, class R, class TA, int NA, class TB, int NB>
auto linalg_solve(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  using W = dec::work_t<R>;
  dec::check_square(a);
  const auto p = dec::plan_solve(a, b);  // shapes and NumPy's errors, as the loops path
  using P = std::remove_cvref_t<decltype(p)>;
  constexpr bool vec = P::vec;
  const index_t m = p.m, k = p.k;
  Array<R, P::NO> out = empty<R, P::NO>(p.os);
  const auto oa = dec::batch_offsets<P::NBAT>(p.bs, a.shape.data(), a.strides.data(), P::BA);
  const auto ob = dec::batch_offsets<P::NBAT>(p.bs, b.shape.data(), b.strides.data(), P::BB);
  for (size_t t = 0; t < oa.size(); ++t) {
    ColMat<W> lu = load<W>(a, oa[t]);
    ColMat<W> x = vec ? load_col<W>(b, ob[t]) : load<W>(b, ob[t]);
    gesv_one<L>(lu, x);  // with k == 0 too: NumPy still factors a and raises if it is singular
    store(x, m, k, out.data + t * m * k);
  }
  return out;
}

// np.linalg.cholesky(a, upper): potrf on the lower (upper) triangle, the other one zeroed
template <class L, class R, class T, int N>
Array<R, N> linalg_cholesky(const Array<T, N>& a, bool upper) {
  using W = dec::work_t<R>;
  dec::check_square(a);
  Array<R, N> out = empty<R, N>(a.shape);
  const index_t n = a.shape[N - 1];
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    ColMat<W> m = load<W>(a, offs[t]);
    lint<L> info = 0;
    if (n > 0) L::potrf(upper ? 'U' : 'L', n, m.data(), m.ld, info);
    if (info > 0) dec::linalg_error("Matrix is not positive definite");
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i)
        if (upper ? i > j : i < j) m(i, j) = W(0);
    store(m, n, n, out.data + t * n * n);
  }
  return out;
}

}  // namespace lapack
}  // namespace ep
