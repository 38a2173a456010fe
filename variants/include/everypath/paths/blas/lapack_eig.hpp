// General eigenproblems (np.linalg.eig / eigvals) through geev: real input runs
// sgeev/dgeev (conjugate pairs unpacked into complex vectors, as NumPy does),
// complex input cgeev/zgeev. Results are always complex (docs/semantics.md).
#pragma once

#include "lapack_core.hpp"

namespace ep {
namespace lapack {

// eigenvalues (and, when vectors, eigenvectors in columns) of one matrix as C
template <class L, class C, class W>
void geev_one(ColMat<W> a, bool vectors, C* w_out, C* v_out) {
  const index_t n = a.r;
  if (n == 0) return;
  const char jobvr = vectors ? 'V' : 'N';
  ColMat<W> vr(vectors ? n : 1, vectors ? n : 1);
  lint<L> info = 0;
  W q(0);
  if constexpr (is_complex_v<W>) {
    std::vector<W> w(static_cast<size_t>(n));
    std::vector<real_t<W>> rwork(static_cast<size_t>(2 * n));
    L::geev_cplx(jobvr, n, a.data(), a.ld, w.data(), vr.data(), vr.ld, &q, -1, rwork.data(), info);
    std::vector<W> work(static_cast<size_t>(lwork_of(q)));
    L::geev_cplx(jobvr, n, a.data(), a.ld, w.data(), vr.data(), vr.ld, work.data(),
                 static_cast<index_t>(work.size()), rwork.data(), info);
    if (info != 0) dec::linalg_error("Eigenvalues did not converge");
    for (index_t j = 0; j < n; ++j) w_out[j] = elem_cast<C>(w[static_cast<size_t>(j)]);
    if (vectors)
      for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < n; ++j) v_out[i * n + j] = elem_cast<C>(vr(i, j));
  } else {
    std::vector<W> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    L::geev_real(jobvr, n, a.data(), a.ld, wr.data(), wi.data(), vr.data(), vr.ld, &q, -1, info);
    std::vector<W> work(static_cast<size_t>(lwork_of(q)));
    L::geev_real(jobvr, n, a.data(), a.ld, wr.data(), wi.data(), vr.data(), vr.ld, work.data(),
                 static_cast<index_t>(work.size()), info);
    if (info != 0) dec::linalg_error("Eigenvalues did not converge");
    for (index_t j = 0; j < n; ++j) w_out[j] = C(wr[static_cast<size_t>(j)], wi[static_cast<size_t>(j)]);
    if (!vectors) return;
    // a complex pair (wi[j] > 0) stores re in column j and im in column j + 1
    for (index_t j = 0; j < n; ++j) {
      const bool pair = wi[static_cast<size_t>(j)] != W(0) && j + 1 < n;
      for (index_t i = 0; i < n; ++i) {
        if (!pair) {
          v_out[i * n + j] = C(vr(i, j), 0);
        } else {
          v_out[i * n + j] = C(vr(i, j), vr(i, j + 1));
          v_out[i * n + j + 1] = C(vr(i, j), -vr(i, j + 1));
        }
      }
      if (pair) ++j;
    }
  }
}

// the LAPACK type eig runs in (NumPy: dgeev for real or integer input, zgeev for complex)
template <class T>
using eig_work_t = std::conditional_t<is_complex_v<T>, dec::cd, double>;

// np.linalg.eig: (eigenvalues, eigenvectors in columns), complex C
template <class L, class C, class T, int N>
std::tuple<Array<C, N - 1>, Array<C, N>> linalg_eig(const Array<T, N>& a) {
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<C, N - 1> w = empty<C, N - 1>(ws);
  Array<C, N> v = empty<C, N>(a.shape);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t)
    geev_one<L, C>(load<eig_work_t<T>>(a, offs[t]), true, w.data + t * n, v.data + t * n * n);
  return {w, v};
}

// np.linalg.eigvals
template <class L, class C, class T, int N>
Array<C, N - 1> linalg_eigvals(const Array<T, N>& a) {
  dec::check_square(a);
  const index_t n = a.shape[N - 1];
  std::array<index_t, N - 1> ws{};
  for (int q = 0; q < N - 1; ++q) ws[q] = a.shape[q];
  Array<C, N - 1> w = empty<C, N - 1>(ws);
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t)
    geev_one<L, C>(load<eig_work_t<T>>(a, offs[t]), false, w.data + t * n, nullptr);
  return w;
}

}  // namespace lapack
}  // namespace ep
