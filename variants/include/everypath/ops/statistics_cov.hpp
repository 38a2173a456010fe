// np.cov and np.corrcoef, step for step as numpy/lib/_function_base_impl.py:
// observations as rows of X (dtype D), the row means (pairwise sums / n),
// X - mean, X @ X^H, times 1 / (n - ddof) in float64, and for corrcoef the two
// divisions by the standard deviations and the clip to [-1, 1].
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"

namespace ep {
namespace covr {

template <class D>
inline D conj(const D& x) {
  if constexpr (is_complex_v<D>) return std::conj(x);
  else return x;
}

// the variables of m as rows of a new (k, n) array of D (np.array(m, ndmin=2, dtype=D))
template <class D, class T, int N>
Array<D, 2> rows(const Array<T, N>& m, bool transpose) {
  static_assert(N == 1 || N == 2, "np.cov takes 1-d or 2-d arrays");
  Array<T, 2> v;
  v.data = m.data;
  if constexpr (N == 1) {
    v.shape = {1, m.shape[0]};
    v.strides = {0, m.strides[0]};
  } else if (transpose) {
    v.shape = {m.shape[1], m.shape[0]};
    v.strides = {m.strides[1], m.strides[0]};
  } else {
    v.shape = m.shape;
    v.strides = m.strides;
  }
  Array<D, 2> out = empty<D, 2>(v.shape);
  index_t j = 0;
  for_each_offset(v, [&](index_t off) { out.data[j++] = elem_cast<D>(v.data[off]); });
  return out;
}

inline Array<double, 2> no_variables() { return empty<double, 2>({0, 0}); }

template <class D>
Array<D, 2> stack_rows(const Array<D, 2>& x, const Array<D, 2>& y) {
  if (x.shape[1] != y.shape[1])
    raise("ValueError", "all the input array dimensions except for the concatenation axis must match exactly, but "
                        "along dimension 1, the array at index 0 has size " + std::to_string(x.shape[1]) +
                        " and the array at index 1 has size " + std::to_string(y.shape[1]));
  Array<D, 2> out = empty<D, 2>({x.shape[0] + y.shape[0], x.shape[1]});
  std::copy(x.data, x.data + x.size(), out.data);
  std::copy(y.data, y.data + y.size(), out.data + x.size());
  return out;
}

template <class D, class I>
double ddof_value(I ddof, bool given, bool bias) {
  if (!given) return bias ? 0.0 : 1.0;
  const double d = static_cast<double>(ddof);
  if (d != std::trunc(d)) raise("ValueError", "ddof must be integer");
  return d;
}

// the (k, k) covariance of the rows of X (X is consumed: centred in place)
template <class D>
Array<D, 2> covariance(Array<D, 2> x, double ddof) {
  const index_t k = x.shape[0], n = x.shape[1];
  Array<D, 2> avg = red::reduce_keep<red::Sum<D>, 2u>(x);
  for (index_t i = 0; i < k; ++i) avg.data[i] = red::div_count<D>(avg.data[i], static_cast<double>(n));
  double fact = static_cast<double>(n) - ddof;
  if (fact <= 0) fact = 0.0;
  for (index_t i = 0; i < k; ++i)
    for (index_t l = 0; l < n; ++l) x.data[i * n + l] = x.data[i * n + l] - avg.data[i];
  using W = std::conditional_t<is_complex_v<D>, std::complex<double>, double>;
  const W scale = W(1.0 / fact);
  Array<D, 2> c = empty<D, 2>({k, k});
  for (index_t i = 0; i < k; ++i) {
    const D* xi = x.data + i * n;
    for (index_t j = i; j < k; ++j) {
      const D* xj = x.data + j * n;
      D acc[4] = {D(0), D(0), D(0), D(0)};
      index_t l = 0;
      for (; l + 4 <= n; l += 4)
        for (int q = 0; q < 4; ++q) acc[q] += sc::mul<D>(xi[l + q], conj(xj[l + q]));
      D s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
      for (; l < n; ++l) s += sc::mul<D>(xi[l], conj(xj[l]));
      const D v = elem_cast<D>(sc::mul<W>(elem_cast<W>(s), scale));  // c *= np.true_divide(1, fact)
      c.data[i * k + j] = v;
      c.data[j * k + i] = conj(v);
    }
  }
  return c;
}

[[noreturn]] inline void single_variable(const char* fn) {
  raise("ValueError", std::string("np.") + fn + " of a single variable given as a 2-d array is a 0-d array in NumPy "
                      "(squeezed); compiled code needs the rank at compile time: pass the variable as a 1-d array");
}

// corrcoef from the covariance: c / stddev[:, None] / stddev[None, :], clipped
template <class D>
Array<D, 2> correlation(Array<D, 2> c) {
  const index_t k = c.shape[0];
  using V = decltype(sc::absolute(D{}));
  std::vector<V> sd(static_cast<size_t>(k));
  for (index_t i = 0; i < k; ++i) sd[i] = std::sqrt(elem_cast<V>(c.data[i * k + i]));
  for (index_t i = 0; i < k; ++i)
    for (index_t j = 0; j < k; ++j) {
      D v = c.data[i * k + j];
      v = sc::truediv<D>(v, elem_cast<D>(sd[i]));
      v = sc::truediv<D>(v, elem_cast<D>(sd[j]));
      if constexpr (is_complex_v<D>) v = D(sc::clip<V>(v.real(), V(-1), V(1)), sc::clip<V>(v.imag(), V(-1), V(1)));
      else v = sc::clip<D>(v, D(-1), D(1));
      c.data[i * k + j] = v;
    }
  return c;
}

// RN: result rank (0: one variable given as a 1-d array, NumPy's squeezed 0-d result)
template <class D, int RN, bool Corr, class T, int N, class Y, class I>
auto cov_corr(const Array<T, N>& m, const Y& y, bool rowvar, bool bias, I ddof, bool ddof_given) {
  const double dd = ddof_value<D>(ddof, ddof_given, bias);
  Array<D, 2> x = rows<D>(m, !rowvar && N != 1);
  if constexpr (RN == 2) {
    if (x.shape[0] == 0) {
      if constexpr (std::is_same_v<D, double>) return no_variables();
      else return empty<D, 2>({0, 0});
    }
  }
  if constexpr (is_array_v<Y>) {
    constexpr int YN = std::decay_t<Y>::ndim;
    const bool ty = !rowvar && (YN == 2 ? y.shape[0] != 1 : false);
    x = stack_rows<D>(x, rows<D>(y, ty));
  }
  Array<D, 2> c = covariance<D>(x, dd);
  if constexpr (RN == 0) {
    if constexpr (Corr) return sc::truediv<D>(c.data[0], c.data[0]);  // c / c of the 0-d covariance
    else return scalar_array<D>(c.data[0]);
  } else {
    if (c.shape[0] == 1) single_variable(Corr ? "corrcoef" : "cov");
    if constexpr (Corr) return correlation<D>(c);
    else return c;
  }
}

}  // namespace covr
}  // namespace ep
