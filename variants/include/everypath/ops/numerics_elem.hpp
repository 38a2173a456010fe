// Element-wise helpers with keyword options (so ordinary operators, each one
// pass over the data): np.isclose, np.allclose, np.array_equal, np.array_equiv,
// np.nan_to_num, np.round / np.around / ndarray.round and np.angle.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../array.hpp"
#include "../map.hpp"
#include "../scalar.hpp"
#include "creation.hpp"

namespace ep {
namespace nume {

template <class T>
struct real_of {
  using type = T;
};
template <class V>
struct real_of<std::complex<V>> {
  using type = V;
};

// ---- isclose / allclose ------------------------------------------------------------------------
// NumPy's formula, each step in NumPy's dtype: YP = result_type(y, 1.0), D = dtype of x - YP,
// RD = |D|, RHS = dtype of atol + rtol * |YP|, CMP = less_equal's loop, EQ = equal's loop
template <class YP, class D, class RD, class RHS, class CMP, class EQ>
struct Close {
  template <class X, class Y, class A, class R>
  static bool one(X x, Y y, A atol, R rtol, bool equal_nan) {
    const YP yv = elem_cast<YP>(y);
    const D d = sc::sub<D>(elem_cast<D>(x), elem_cast<D>(yv));
    const RD ad = elem_cast<RD>(sc::absolute(d));
    const RHS r = sc::add<RHS>(elem_cast<RHS>(atol), sc::mul<RHS>(elem_cast<RHS>(rtol), elem_cast<RHS>(sc::absolute(yv))));
    bool res = (sc::le<CMP>(elem_cast<CMP>(ad), elem_cast<CMP>(r)) & sc::isfinite(yv)) |
               sc::eq<EQ>(elem_cast<EQ>(x), elem_cast<EQ>(yv));
    if (equal_nan) res = res | (sc::isnan(x) & sc::isnan(yv));
    return res;
  }
};

template <class C, int N, class X, class Y, class A, class R>
auto isclose(const X& x, const Y& y, A atol, R rtol, bool equal_nan) {
  if constexpr (N == -1) {  // two scalars: a NumPy bool
    return C::one(x, y, atol, rtol, equal_nan);
  } else {
    return map<bool, N>([&](auto a, auto b) { return C::one(a, b, atol, rtol, equal_nan); }, x, y);
  }
}

template <class C, int N, class X, class Y, class A, class R>
bool allclose(const X& x, const Y& y, A atol, R rtol, bool equal_nan) {
  const auto shape = broadcast_shape<N>(x, y);
  bool ok = true;
  walk<N>(shape, std::array<index_t, N>{}, [&](index_t, const std::array<index_t, 2>& offs) {
    if (ok) ok = C::one(off_get(x, offs[0]), off_get(y, offs[1]), atol, rtol, equal_nan);
  }, x, y);
  return ok;
}

// ---- array_equal / array_equiv -------------------------------------------------------------------
template <class EQ, class A, class B>
inline bool equal_one(const A& x, const B& y, bool equal_nan) {
  if (equal_nan) {
    const bool xn = sc::isnan(x), yn = sc::isnan(y);
    if (xn != yn) return false;
    if (xn) return true;
  }
  return sc::eq<EQ>(elem_cast<EQ>(x), elem_cast<EQ>(y));
}

template <class EQ, int N, class A, int NA, class B, int NB>
bool all_equal(const Array<A, NA>& a, const Array<B, NB>& b, bool equal_nan) {
  const auto shape = broadcast_shape<N>(a, b);
  bool ok = true;
  walk<N>(shape, std::array<index_t, N>{}, [&](index_t, const std::array<index_t, 2>& offs) {
    if (ok) ok = equal_one<EQ>(a.data[offs[0]], b.data[offs[1]], equal_nan);
  }, a, b);
  return ok;
}

template <class EQ, class A, int NA, class B, int NB>
bool array_equal(const Array<A, NA>& a, const Array<B, NB>& b, bool equal_nan) {
  if constexpr (NA != NB) {
    return false;
  } else {
    if (a.shape != b.shape) return false;
    return all_equal<EQ, NA>(a, b, equal_nan);
  }
}

template <class EQ, class A, int NA, class B, int NB>
bool array_equiv(const Array<A, NA>& a, const Array<B, NB>& b) {
  constexpr int N = NA > NB ? NA : NB;
  std::array<index_t, N> shape;
  shape.fill(1);
  bool ok = true;
  broadcast_into<N>(shape, a, ok);
  broadcast_into<N>(shape, b, ok);
  return ok && all_equal<EQ, N>(a, b, false);
}

// ---- nan_to_num ------------------------------------------------------------------------------
template <class V, class G>
inline V given_or(const G& g, V dflt) {
  if constexpr (std::is_same_v<G, None>) return dflt;
  else return static_cast<V>(g);
}

template <class V>
inline V fix_part(V x, V nan, V pinf, V ninf) {
  if (std::isnan(x)) return nan;
  if (std::isinf(x)) return x > 0 ? pinf : ninf;
  return x;
}

template <class T, class Nn, class Pi, class Ni>
inline T fix_value(T x, const Nn& nan, const Pi& posinf, const Ni& neginf) {
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    using V = typename real_of<T>::type;
    const V n = given_or<V>(nan, V(0));
    const V p = given_or<V>(posinf, std::numeric_limits<V>::max());
    const V m = given_or<V>(neginf, std::numeric_limits<V>::lowest());
    if constexpr (is_complex_v<T>) return T(fix_part(x.real(), n, p, m), fix_part(x.imag(), n, p, m));
    else return fix_part(x, n, p, m);
  } else {
    return x;
  }
}

template <class T, int N, class Nn, class Pi, class Ni>
Array<T, N> nan_to_num(const Array<T, N>& a, bool copy_, const Nn& nan, const Pi& posinf, const Ni& neginf) {
  Array<T, N> out = copy_ ? copy(a) : a;
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>)
    for_each_offset(out, [&](index_t off) { out.data[off] = fix_value(out.data[off], nan, posinf, neginf); });
  return out;
}

// ---- round ----------------------------------------------------------------------------------
// PyArray_Round's scale factor: exact powers of ten up to 1e8, then repeated * 10
inline double power_of_ten(int64_t n) {
  static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n < 9) return p10[n];
  double r = 1e9;
  while (n-- > 9) r *= 10.;
  return r;
}

// x * 10**d, rint, / 10**d (or / then * for d < 0), in the float dtype: NumPy's method
template <class V>
inline V round_real(V x, int64_t d) {
  if (d == 0) return std::nearbyint(x);
  if (d > 0) {
    const V f = static_cast<V>(power_of_ten(d));
    return std::nearbyint(x * f) / f;
  }
  const V f = static_cast<V>(power_of_ten(-d));
  return std::nearbyint(x / f) * f;
}

template <class T>
inline T round_value(T x, int64_t d) {
  if constexpr (is_complex_v<T>) {
    return T(round_real(x.real(), d), round_real(x.imag(), d));
  } else if constexpr (std::is_floating_point_v<T>) {
    return round_real(x, d);
  } else {  // integers: unchanged for d >= 0, else rounded in float64 and cast back
    if (d >= 0) return x;
    return static_cast<T>(round_real<double>(static_cast<double>(x), d));
  }
}

template <class T, int N>
Array<T, N> round(const Array<T, N>& a, int64_t d) {
  if constexpr (std::is_floating_point_v<T>) {  // the factor hoisted: each case is a vector loop
    if (d == 0) return map<T, N>([](T x) { return std::nearbyint(x); }, a);
    const T f = static_cast<T>(power_of_ten(d > 0 ? d : -d));
    if (d > 0) return map<T, N>([f](T x) { return std::nearbyint(x * f) / f; }, a);
    return map<T, N>([f](T x) { return std::nearbyint(x / f) * f; }, a);
  } else {
    return map<T, N>([d](T x) { return round_value(x, d); }, a);
  }
}

// ---- angle ----------------------------------------------------------------------------------
template <class R, class T>
inline R angle_value(T z, bool deg) {
  R a;
  if constexpr (is_complex_v<T>) a = std::atan2(static_cast<R>(z.imag()), static_cast<R>(z.real()));
  else a = std::atan2(R(0), elem_cast<R>(z));
  if (deg) a = a * static_cast<R>(180.0 / M_PI);
  return a;
}

template <class R, class T, int N>
Array<R, N> angle(const Array<T, N>& a, bool deg) {
  return map<R, N>([deg](T z) { return angle_value<R>(z, deg); }, a);
}

}  // namespace nume
}  // namespace ep
