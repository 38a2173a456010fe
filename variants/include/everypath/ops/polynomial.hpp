// np.polyval (variants/ops/polynomials.py): Horner's rule exactly as NumPy runs it,
//   y = zeros_like(x); for pv in p: y = y * x + pv
// so the first step multiplies 0 by x (0 * inf is nan there too) in x's dtype, and every later one
// works in the promoted dtype R; bools multiply with & and add with |, as NumPy's do.
#pragma once

#include <string>

#include "../array.hpp"
#include "../map.hpp"
#include "../scalar.hpp"

namespace ep {

template <class R, class X, class P>
inline R polyval_one(X x, const Array<P, 1>& p) {
  const index_t n = p.shape[0];
  if (n == 0) return static_cast<R>(X(0));
  R y = sc::add<R>(static_cast<R>(sc::mul<X>(X(0), x)), static_cast<R>(p.data[0]));
  for (index_t i = 1; i < n; ++i) y = sc::add<R>(sc::mul<R>(y, static_cast<R>(x)), static_cast<R>(p.data[i * p.strides[0]]));
  return y;
}

// An empty p gives zeros of x's dtype in NumPy; the result's dtype is fixed when compiling, so an
// empty p is an error when that dtype is not x's (SameDtype: R is X)
template <class R, bool SameDtype, class P>
inline void polyval_check(const Array<P, 1>& p) {
  if (!SameDtype && p.shape[0] == 0)
    raise("ValueError", "np.polyval with an empty coefficient array returns x's dtype, not the promoted dtype "
                        "everypath compiled for; pass at least one coefficient");
}

// Blocks of x, the coefficients outermost within a block: NumPy's order of operations for every
// element (one pass of y = y * x + pv per coefficient), with the independent elements in the inner,
// vectorisable loop instead of a chain of dependent multiply-adds per element
template <class R, bool SameDtype, class P, class X, int N>
Array<R, N> polyval(const Array<P, 1>& p, const Array<X, N>& x) {
  polyval_check<R, SameDtype>(p);
  const Array<X, N> xc = ep::map<X, N>([](X v) { return v; }, x);  // dense (a view is copied once)
  Array<R, N> out = ep::empty<R, N>(x.shape);
  const index_t n = xc.size(), m = p.shape[0];
  constexpr index_t B = 1024;
  for (index_t lo = 0; lo < n; lo += B) {
    const index_t hi = lo + B < n ? lo + B : n;
    const X* xs = xc.data;
    R* y = out.data;
    if (m == 0) {
      for (index_t j = lo; j < hi; ++j) y[j] = static_cast<R>(X(0));
      continue;
    }
    const R p0 = static_cast<R>(p.data[0]);
    for (index_t j = lo; j < hi; ++j) y[j] = sc::add<R>(static_cast<R>(sc::mul<X>(X(0), xs[j])), p0);
    for (index_t i = 1; i < m; ++i) {
      const R pi = static_cast<R>(p.data[i * p.strides[0]]);
      for (index_t j = lo; j < hi; ++j) y[j] = sc::add<R>(sc::mul<R>(y[j], static_cast<R>(xs[j])), pi);
    }
  }
  return out;
}

template <class R, bool SameDtype, class P, class X>
R polyval_scalar(const Array<P, 1>& p, X x) {
  polyval_check<R, SameDtype>(p);
  return polyval_one<R>(x, p);
}

}  // namespace ep
