// Numerical helpers with NumPy's exact formulas: np.cross, np.convolve,
// np.correlate, np.interp, np.gradient, np.trapezoid and np.ediff1d. Each
// computes in the dtypes NumPy computes in (the lowering passes them as
// template arguments) and raises NumPy's errors with NumPy's messages.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../fused_reduce.hpp"
#include "../map.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"

namespace ep {
namespace num {

// ---- cross -----------------------------------------------------------------------------
template <class T, int N>
Array<T, N - 1> lead(const Array<T, N>& a) {  // a[..., 0] (the components are a stride apart)
  Array<T, N - 1> v;
  v.data = a.data;
  v.owner = a.owner;
  for (int k = 0; k < N - 1; ++k) v.shape[k] = a.shape[k], v.strides[k] = a.strides[k];
  return v;
}

template <int L, class A, class B>
std::array<index_t, L> cross_shape(const A& a, const B& b) {
  std::array<index_t, L> out;
  out.fill(1);
  bool ok = true;
  broadcast_into<L>(out, a, ok);
  broadcast_into<L>(out, b, ok);
  if (!ok)
    raise("ValueError", "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 "
                        "with shape " + shape_str(a) + " and arg 1 with shape " + shape_str(b) + ".");
  return out;
}

// D: promote_types(a, b); RN: the result rank (a trailing 3 unless both operands were
// known at compile time to hold 2-vectors)
template <class D, int RN, class A, int NA, class B, int NB>
Array<D, RN> cross(const Array<A, NA>& a, const Array<B, NB>& b) {
  constexpr int L = (NA > NB ? NA : NB) - 1;
  const index_t la = a.shape[NA - 1], lb = b.shape[NB - 1];
  if ((la != 2 && la != 3) || (lb != 2 && lb != 3))
    raise("ValueError", "incompatible dimensions for cross product\n(dimension must be 2 or 3)");
  const auto av = lead(a);
  const auto bv = lead(b);
  const std::array<index_t, L> shape = cross_shape<L>(av, bv);
  const bool three = la == 3 || lb == 3;
  if (three != (RN == L + 1))
    raise("ValueError", "np.cross: the vectors' lengths (2 or 3) decide the result's rank; compiled code typed this "
                        "call for " + std::string(RN == L ? "2-vectors" : "3-vectors") + " (write the vectors with "
                        "their final length, e.g. append a 0 to 2-vectors)");
  std::array<index_t, RN> oshape{};
  for (int k = 0; k < L; ++k) oshape[k] = shape[k];
  if constexpr (RN == L + 1) oshape[L] = 3;
  Array<D, RN> out = empty<D, RN>(oshape);
  std::array<index_t, L> dst{};
  for (int k = 0; k < L; ++k) dst[k] = out.strides[k];
  const index_t sa = a.strides[NA - 1], sb = b.strides[NB - 1];
  const index_t so = RN == L + 1 ? out.strides[RN - 1] : 0;
  walk<L>(shape, dst, [&](index_t o, const std::array<index_t, 2>& offs) {
    const A* p = a.data + offs[0];
    const B* q = b.data + offs[1];
    const D a0 = elem_cast<D>(p[0]), a1 = elem_cast<D>(p[sa]), b0 = elem_cast<D>(q[0]), b1 = elem_cast<D>(q[sb]);
    const D z = sc::sub<D>(sc::mul<D>(a0, b1), sc::mul<D>(a1, b0));
    if constexpr (RN == L) {
      out.data[o] = z;
    } else {
      D c0, c1;
      if (la == 3 && lb == 3) {
        const D a2 = elem_cast<D>(p[2 * sa]), b2 = elem_cast<D>(q[2 * sb]);
        c0 = sc::sub<D>(sc::mul<D>(a1, b2), sc::mul<D>(a2, b1));
        c1 = sc::sub<D>(sc::mul<D>(a2, b0), sc::mul<D>(a0, b2));
      } else if (la == 2) {  // a2 = 0
        const D b2 = elem_cast<D>(q[2 * sb]);
        c0 = sc::mul<D>(a1, b2);
        c1 = sc::negative<D>(sc::mul<D>(a0, b2));
      } else {  // b2 = 0
        const D a2 = elem_cast<D>(p[2 * sa]);
        c0 = sc::negative<D>(sc::mul<D>(a2, b1));
        c1 = sc::mul<D>(a2, b0);
      }
      out.data[o] = c0;
      out.data[o + so] = c1;
      out.data[o + 2 * so] = z;
    }
  }, av, bv);
  return out;
}

// ---- convolve / correlate ----------------------------------------------------------------
// NumPy's dot: integer products summed in (u)int64, the rest in the dtype, in order
template <class D>
using dot_acc_t = std::conditional_t<std::is_integral_v<D> && !std::is_same_v<D, bool>,
                                     std::conditional_t<std::is_signed_v<D>, int64_t, uint64_t>, D>;

// _pyarray_correlate: x the longer operand, y the other (already conjugated);
// out[t] = sum_j x[t - n_left + j] * y[j] over the overlap
template <class D>
Array<D, 1> correlate_core(const std::vector<D>& x, const std::vector<D>& y, int mode) {
  const index_t n1 = static_cast<index_t>(x.size()), n2 = static_cast<index_t>(y.size());
  index_t length = n1, n_left = 0;
  if (mode == 0) length = n1 - n2 + 1;
  else if (mode == 1) n_left = n2 / 2;
  else n_left = n2 - 1, length = n1 + n2 - 1;
  using Acc = dot_acc_t<D>;
  Array<D, 1> out = empty<D, 1>({length});
  for (index_t t = 0; t < length; ++t) {
    const index_t lag = t - n_left;
    const index_t j0 = std::max<index_t>(0, -lag), j1 = std::min<index_t>(n2, n1 - lag);
    Acc acc = Acc(0);
    for (index_t j = j0; j < j1; ++j) {
      if constexpr (std::is_same_v<D, bool>) acc = acc || (x[lag + j] && y[j]);
      else if constexpr (std::is_same_v<Acc, D>) acc = acc + sc::mul<D>(x[lag + j], y[j]);
      else acc += static_cast<Acc>(x[lag + j]) * static_cast<Acc>(y[j]);
    }
    out.data[t] = static_cast<D>(acc);
  }
  return out;
}

template <class D, class T>
std::vector<D> to_vector(const Array<T, 1>& a, bool reverse, bool conjugate) {
  std::vector<D> v(static_cast<size_t>(a.shape[0]));
  for (index_t i = 0; i < a.shape[0]; ++i) {
    D x = elem_cast<D>(a.data[(reverse ? a.shape[0] - 1 - i : i) * a.strides[0]]);
    if constexpr (is_complex_v<D>) x = conjugate ? std::conj(x) : x;
    v[i] = x;
  }
  return v;
}

inline int check_mode(int64_t mode) {
  if (mode < 0 || mode > 2) raise("ValueError", "mode must be 0, 1, or 2");
  return static_cast<int>(mode);
}

template <class D, class A, class V>
Array<D, 1> convolve(const Array<A, 1>& a, const Array<V, 1>& v, int64_t mode) {
  if (a.shape[0] == 0) raise("ValueError", "a cannot be empty");
  if (v.shape[0] == 0) raise("ValueError", "v cannot be empty");
  if (v.shape[0] > a.shape[0]) return correlate_core<D>(to_vector<D>(v, false, false), to_vector<D>(a, true, false), check_mode(mode));
  return correlate_core<D>(to_vector<D>(a, false, false), to_vector<D>(v, true, false), check_mode(mode));
}

template <class D, class A, class V>
Array<D, 1> correlate(const Array<A, 1>& a, const Array<V, 1>& v, int64_t mode) {
  if (a.shape[0] == 0) raise("ValueError", "first array argument cannot be empty");
  if (v.shape[0] == 0) raise("ValueError", "second array argument cannot be empty");
  const int m = check_mode(mode);
  if (a.shape[0] >= v.shape[0]) return correlate_core<D>(to_vector<D>(a, false, false), to_vector<D>(v, false, true), m);
  Array<D, 1> r = correlate_core<D>(to_vector<D>(v, false, true), to_vector<D>(a, false, false), m);
  std::reverse(r.data, r.data + r.shape[0]);  // the inverted order, reverted
  return r;
}

// ---- interp ---------------------------------------------------------------------------------
inline index_t linear_search(double key, const double* arr, index_t len, index_t i0) {
  index_t i = i0;
  for (; i < len && key >= arr[i]; ++i) {
  }
  return i - 1;
}

// NumPy's binary_search_with_guess (the guess decides ties among repeated xp values)
inline index_t search_with_guess(double key, const double* arr, index_t len, index_t guess) {
  constexpr index_t cache = 8;
  index_t imin = 0, imax = len;
  if (key > arr[len - 1]) return len;
  if (key < arr[0]) return -1;
  if (len <= 4) return linear_search(key, arr, len, 1);
  if (guess > len - 3) guess = len - 3;
  if (guess < 1) guess = 1;
  if (key < arr[guess]) {
    if (key < arr[guess - 1]) {
      imax = guess - 1;
      if (guess > cache && key >= arr[guess - cache]) imin = guess - cache;
    } else {
      return guess - 1;
    }
  } else {
    if (key < arr[guess + 1]) return guess;
    if (key < arr[guess + 2]) return guess + 1;
    imin = guess + 2;
    if (guess < len - cache - 1 && key < arr[guess + cache]) imax = guess + cache;
  }
  while (imin < imax) {
    const index_t imid = imin + ((imax - imin) >> 1);
    if (key >= arr[imid]) imin = imid + 1;
    else imax = imid;
  }
  return imin - 1;
}

// one part (real or imaginary) of an interpolated value, with NumPy's NaN fallbacks
inline double interp_part(double slope, double x, double x0, double x1, double y0, double y1) {
  double r = slope * (x - x0) + y0;
  if (std::isnan(r)) {
    r = slope * (x - x1) + y1;
    if (std::isnan(r) && y0 == y1) r = y0;
  }
  return r;
}

template <class V>  // V: double or std::complex<double>
V interp_one(double x, const std::vector<double>& xp, const std::vector<V>& fp, const std::vector<V>& slopes, V lval,
             V rval, index_t& j) {
  const index_t n = static_cast<index_t>(xp.size());
  if (n == 1) return x < xp[0] ? lval : (x > xp[0] ? rval : fp[0]);  // NumPy: no NaN test here
  if (std::isnan(x)) return V(x);
  j = search_with_guess(x, xp.data(), n, j);
  if (j == -1) return lval;
  if (j == n) return rval;
  if (j == n - 1 || xp[j] == x) return fp[j];
  V slope;
  if (!slopes.empty()) {
    slope = slopes[j];
  } else if constexpr (is_complex_v<V>) {
    const double inv = 1.0 / (xp[j + 1] - xp[j]);
    slope = V((fp[j + 1].real() - fp[j].real()) * inv, (fp[j + 1].imag() - fp[j].imag()) * inv);
  } else {
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  }
  if constexpr (is_complex_v<V>)
    return V(interp_part(slope.real(), x, xp[j], xp[j + 1], fp[j].real(), fp[j + 1].real()),
             interp_part(slope.imag(), x, xp[j], xp[j + 1], fp[j].imag(), fp[j + 1].imag()));
  else
    return interp_part(slope, x, xp[j], xp[j + 1], fp[j], fp[j + 1]);
}

template <class V, class T, int N>
std::vector<V> flat_values(const Array<T, N>& a) {
  std::vector<V> v;
  v.reserve(static_cast<size_t>(a.size()));
  for_each_offset(a, [&](index_t off) { v.push_back(elem_cast<V>(a.data[off])); });
  return v;
}

template <class V, class L>
V fill_value(const L& given, V dflt) {
  if constexpr (std::is_same_v<L, None>) return dflt;
  else return elem_cast<V>(given);
}

// np.interp(x, xp, fp, left, right, period): V is float64 or complex128 (fp's kind)
template <class V, int NX, class X, class XP, int NP, class FP, int NF, class Lf, class Rt, class Pd>
Array<V, NX> interp(const Array<X, NX>& x, const Array<XP, NP>& xp_in, const Array<FP, NF>& fp_in, const Lf& left,
                    const Rt& right, const Pd& period) {
  std::vector<double> xp = flat_values<double>(xp_in);
  std::vector<V> fp = flat_values<V>(fp_in);
  std::vector<double> xs = flat_values<double>(x);
  constexpr bool periodic = !std::is_same_v<Pd, None>;
  if constexpr (periodic) {
    const double p0 = static_cast<double>(period);
    if (p0 == 0) raise("ValueError", "period must be a non-zero value");
    if (NP != 1 || NF != 1) raise("ValueError", "Data points must be 1-D sequences");
    if (xp.size() != fp.size()) raise("ValueError", "fp and xp are not of the same length");
    const double p = std::fabs(p0);
    for (double& v : xs) v = sc::mod<double>(v, p);
    for (double& v : xp) v = sc::mod<double>(v, p);
    std::vector<index_t> order(xp.size());
    std::iota(order.begin(), order.end(), index_t(0));
    std::stable_sort(order.begin(), order.end(), [&](index_t i, index_t k) { return xp[i] < xp[k]; });
    std::vector<double> xs2;
    std::vector<V> fs2;
    if (!xp.empty()) {
      xs2.push_back(xp[order.back()] - p);
      fs2.push_back(fp[order.back()]);
    }
    for (index_t i : order) xs2.push_back(xp[i]), fs2.push_back(fp[i]);
    if (!xp.empty()) {
      xs2.push_back(xp[order.front()] + p);
      fs2.push_back(fp[order.front()]);
    }
    xp.swap(xs2);
    fp.swap(fs2);
  }
  if (xp.empty()) raise("ValueError", "array of sample points is empty");
  if (fp.size() != xp.size()) raise("ValueError", "fp and xp are not of the same length.");
  V lval = fp.front(), rval = fp.back();
  if constexpr (!periodic) {
    lval = fill_value<V>(left, lval);
    rval = fill_value<V>(right, rval);
  }
  const index_t n = static_cast<index_t>(xp.size()), lenx = static_cast<index_t>(xs.size());
  std::vector<V> slopes;
  if (n > 1 && n <= lenx) {  // NumPy precomputes slopes when there are few of them
    slopes.resize(static_cast<size_t>(n - 1));
    for (index_t i = 0; i + 1 < n; ++i) {
      if constexpr (is_complex_v<V>) {
        const double inv = 1.0 / (xp[i + 1] - xp[i]);
        slopes[i] = V((fp[i + 1].real() - fp[i].real()) * inv, (fp[i + 1].imag() - fp[i].imag()) * inv);
      } else {
        slopes[i] = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i]);
      }
    }
  }
  Array<V, NX> out = empty<V, NX>(x.shape);
  index_t j = 0;
  for (index_t i = 0; i < lenx; ++i) out.data[i] = interp_one<V>(xs[i], xp, fp, slopes, lval, rval, j);
  return out;
}

}  // namespace num
}  // namespace ep

#include "numerics_calc.hpp"
