// Building arrays from others: np.tri / tril / triu, diag / diagonal (a view) /
// diagflat, vander, indices, meshgrid, logspace and geomspace.
#pragma once

#include <cmath>
#include <complex>
#include <string>
#include <tuple>

#include "../array.hpp"
#include "../scalar.hpp"
#include "arrange.hpp"
#include "creation.hpp"
#include "shape.hpp"

namespace ep {

// ---- tri / tril / triu ------------------------------------------------------------
// np.tri: ones where j <= i + k (negative sizes give empty axes, as arange does)
template <class T>
Array<T, 2> tri(index_t n, index_t m, index_t k) {
  n = std::max<index_t>(n, 0), m = std::max<index_t>(m, 0);
  Array<T, 2> out = empty<T, 2>({n, m});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) out.data[i * m + j] = elem_cast<T>(j <= i + k ? 1 : 0);
  return out;
}

// tril (Lower) keeps j <= i + k, triu keeps j >= i + k, on the last two axes; a 1-d
// input is broadcast to a square (n, n) first, as NumPy's where(mask, m, 0) does.
template <bool Lower, class T, int N>
Array<T, (N < 2 ? 2 : N)> tri_part(const Array<T, N>& a, index_t k) {
  constexpr int M = N < 2 ? 2 : N;
  Array<T, M> src;
  if constexpr (N == 1) {
    src.data = a.data, src.owner = a.owner;
    src.shape = {a.shape[0], a.shape[0]};
    src.strides = {0, a.strides[0]};
  } else {
    src = a;
  }
  Array<T, M> out = copy(src);
  const index_t rows = out.shape[M - 2], cols = out.shape[M - 1];
  const index_t mats = rows * cols ? out.size() / (rows * cols) : 0;
  for (index_t q = 0; q < mats; ++q) {
    T* p = out.data + q * rows * cols;
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j)
        if (Lower ? j > i + k : j < i + k) p[i * cols + j] = T(0);
  }
  return out;
}

// ---- diag / diagonal / diagflat ---------------------------------------------------
// the k-th diagonal of a 2-d (n+|k|, n+|k|) zero array holds v
template <class T>
Array<T, 2> diag_from(const Array<T, 1>& v, index_t k) {
  const index_t len = v.shape[0], n = len + (k < 0 ? -k : k);
  Array<T, 2> out = full<T, 2>({n, n}, T(0));
  for (index_t i = 0; i < len; ++i) {
    const index_t r = k >= 0 ? i : i - k, c = k >= 0 ? i + k : i;
    out.data[r * n + c] = v.data[i * v.strides[0]];
  }
  return out;
}

// a.diagonal(offset, A1, A2): a view; the other axes first, the diagonal last
template <int A1, int A2, class T, int N>
Array<T, N - 1> diagonal(const Array<T, N>& a, index_t offset) {
  static_assert(N >= 2 && A1 != A2);
  const index_t n1 = a.shape[A1], n2 = a.shape[A2];
  index_t len, start = 0;
  if (offset >= 0) {
    len = std::max<index_t>(0, std::min(n1, n2 - offset));
    start = offset * a.strides[A2];
  } else {
    len = std::max<index_t>(0, std::min(n1 + offset, n2));
    start = -offset * a.strides[A1];
  }
  Array<T, N - 1> out;
  out.owner = a.owner;
  out.data = len > 0 ? a.data + start : a.data;
  for (int k = 0, j = 0; k < N; ++k)
    if (k != A1 && k != A2) out.shape[j] = a.shape[k], out.strides[j] = a.strides[k], ++j;
  out.shape[N - 2] = len;
  out.strides[N - 2] = a.strides[A1] + a.strides[A2];
  return out;
}

template <class T, int N>
Array<T, 2> diagflat(const Array<T, N>& v, index_t k) {
  return diag_from(ravel(v), k);
}

// ---- vander -----------------------------------------------------------------------
// columns x^(N-1) ... x^0 (or increasing), by the running product NumPy accumulates
template <class R, class T>
Array<R, 2> vander(const Array<T, 1>& x, index_t n, bool increasing) {
  const index_t rows = x.shape[0];
  Array<R, 2> out = empty<R, 2>({rows, n});
  for (index_t i = 0; i < rows; ++i) {
    const R xi = elem_cast<R>(x.data[i * x.strides[0]]);
    R acc = R(1);
    for (index_t j = 0; j < n; ++j) {
      out.data[i * n + (increasing ? j : n - 1 - j)] = acc;
      acc = sc::mul(acc, xi);
    }
  }
  return out;
}

template <class R, class T>
Array<R, 2> vander(const Array<T, 1>& x, None, bool increasing) {
  return vander<R>(x, x.shape[0], increasing);
}

// ---- indices ----------------------------------------------------------------------
template <class T, int N, class S>
Array<T, N + 1> indices(const S& dims_in) {
  const std::array<index_t, N> dims = to_shape<N>(dims_in);
  std::array<index_t, N + 1> shape{};
  shape[0] = N;
  for (int k = 0; k < N; ++k) shape[k + 1] = dims[k];
  Array<T, N + 1> out = empty<T, N + 1>(shape);
  const index_t each = out.size() / (N ? N : 1);
  for (int a = 0; a < N; ++a) {
    index_t inner = 1;
    for (int k = a + 1; k < N; ++k) inner *= dims[k];
    T* p = out.data + a * each;
    for (index_t q = 0; q < each; ++q) p[q] = elem_cast<T>((q / inner) % dims[a]);
  }
  return out;
}

// sparse=True: item A is arange(dims[A]) shaped (1, ..., dims[A], ..., 1)
template <class T, int N, int A, class S>
Array<T, N> index_axis(const S& dims_in) {
  const std::array<index_t, N> dims = to_shape<N>(dims_in);
  std::array<index_t, N> shape;
  shape.fill(1);
  shape[A] = dims[A];
  Array<T, N> out = empty<T, N>(shape);
  for (index_t i = 0; i < dims[A]; ++i) out.data[i] = elem_cast<T>(i);
  return out;
}

// ---- meshgrid -----------------------------------------------------------------------
// Output of one input: its values along axis Pos of the grid shape (broadcast, or
// sparse: ones elsewhere); Copy: a new array, else a broadcast view as NumPy's.
template <int D, int Pos, bool Sparse, bool Copy, class T, int N>
Array<T, D> mesh_item(const Array<T, N>& x, const std::array<index_t, D>& grid) {
  const Array<T, 1> flat = reshape<1>(x, int64_t{-1});  // a view whenever NumPy's reshape is one
  Array<T, D> out;
  out.data = flat.data;
  out.owner = flat.owner;
  for (int k = 0; k < D; ++k) {
    out.shape[k] = k == Pos ? flat.shape[0] : (Sparse ? 1 : grid[k]);
    out.strides[k] = k == Pos ? flat.strides[0] : 0;
  }
  if constexpr (Copy) return copy(out);
  else return out;
}

// ---- logspace / geomspace ----------------------------------------------------------
// Y: linspace's dtype, P: power's, R: the result's
template <class R, class Y, class P, class A, class B, class Base>
Array<R, 1> logspace(A start, B stop, index_t num, bool endpoint, Base base) {
  const Array<Y, 1> y = linspace<Y, Y>(start, stop, num, endpoint);
  Array<R, 1> out = empty<R, 1>({num});
  const P b = elem_cast<P>(base);
  for (index_t i = 0; i < num; ++i) out.data[i] = elem_cast<R>(sc::power(b, elem_cast<P>(y.data[i])));
  return out;
}

// D: the dtype NumPy computes in (result_type of start, stop, float(num), dtype)
template <class R, class D, class A, class B>
Array<R, 1> geomspace(A start_in, B stop_in, index_t num, bool endpoint) {
  if (start_in == A(0) || stop_in == B(0)) raise("ValueError", "Geometric sequence cannot include zero");
  D start = elem_cast<D>(start_in), stop = elem_cast<D>(stop_in);
  const D sign = sc::sign(start);
  start = sc::truediv(start, sign);
  stop = sc::truediv(stop, sign);
  const Array<D, 1> r = logspace<D, D, D>(sc::log10(start), sc::log10(stop), num, endpoint, 10.0);
  if (num > 0) {
    r.data[0] = start;
    if (num > 1 && endpoint) r.data[num - 1] = stop;
  }
  Array<R, 1> out = empty<R, 1>({num});
  for (index_t i = 0; i < num; ++i) out.data[i] = elem_cast<R>(sc::mul(r.data[i], sign));
  return out;
}

}  // namespace ep
