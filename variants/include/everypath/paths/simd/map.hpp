// The simd path of fused element-wise expressions: explicit vectorisation with
// xsimd (AVX2 / AVX-512 on x86-64, NEON on arm64, SIMD128 on wasm from the same
// source). The emitter offers this path only for expressions whose operands and
// result share one floating dtype and whose operations all appear in ep::vsc
// (lowering/simd_body.py), so every lambda here is callable with batches and
// with scalars: contiguous data runs in batches, the tail and strided operands
// with the same lambda on scalars.
#pragma once

#include "../../map.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

namespace ep {
namespace vsc {

template <class V>
inline constexpr bool is_batch_v = xsimd::is_batch<V>::value;

template <class V> inline V add(V a, V b) { return a + b; }
template <class V> inline V sub(V a, V b) { return a - b; }
template <class V> inline V mul(V a, V b) { return a * b; }
template <class V> inline V truediv(V a, V b) { return a / b; }
template <class V> inline V negative(V a) { return -a; }
template <class V> inline V positive(V a) { return a; }
template <class V> inline V square(V a) { return a * a; }
template <class V> inline V reciprocal(V a) { return V(1) / a; }
template <class V> inline V absolute(V a) { return xsimd::abs(a); }
template <class V> inline V fabs(V a) { return xsimd::abs(a); }
template <class V> inline V sqrt(V a) { return xsimd::sqrt(a); }
template <class V> inline V cbrt(V a) { return xsimd::cbrt(a); }
template <class V> inline V exp(V a) { return xsimd::exp(a); }
template <class V> inline V exp2(V a) { return xsimd::exp2(a); }
template <class V> inline V expm1(V a) { return xsimd::expm1(a); }
template <class V> inline V log(V a) { return xsimd::log(a); }
template <class V> inline V log2(V a) { return xsimd::log2(a); }
template <class V> inline V log10(V a) { return xsimd::log10(a); }
template <class V> inline V log1p(V a) { return xsimd::log1p(a); }
template <class V> inline V sin(V a) { return xsimd::sin(a); }
template <class V> inline V cos(V a) { return xsimd::cos(a); }
template <class V> inline V tan(V a) { return xsimd::tan(a); }
template <class V> inline V arcsin(V a) { return xsimd::asin(a); }
template <class V> inline V arccos(V a) { return xsimd::acos(a); }
template <class V> inline V arctan(V a) { return xsimd::atan(a); }
template <class V> inline V sinh(V a) { return xsimd::sinh(a); }
template <class V> inline V cosh(V a) { return xsimd::cosh(a); }
template <class V> inline V tanh(V a) { return xsimd::tanh(a); }
template <class V> inline V arcsinh(V a) { return xsimd::asinh(a); }
template <class V> inline V arccosh(V a) { return xsimd::acosh(a); }
template <class V> inline V arctanh(V a) { return xsimd::atanh(a); }
template <class V> inline V floor(V a) { return xsimd::floor(a); }
template <class V> inline V ceil(V a) { return xsimd::ceil(a); }
template <class V> inline V trunc(V a) { return xsimd::trunc(a); }
template <class V> inline V rint(V a) { return xsimd::nearbyint(a); }
template <class V> inline V arctan2(V a, V b) { return xsimd::atan2(a, b); }
template <class V> inline V hypot(V a, V b) { return xsimd::hypot(a, b); }
// no power: xsimd::pow is exp(y log x), off by ulps where NumPy's pow is exact (-2.0 ** 3)
template <class V> inline V copysign(V a, V b) { return xsimd::copysign(a, b); }
template <class V> inline V fmax(V a, V b) { return xsimd::fmax(a, b); }
template <class V> inline V fmin(V a, V b) { return xsimd::fmin(a, b); }
// np.maximum / np.minimum propagate NaN from either side (xsimd::max does not)
template <class V>
inline V maximum(V a, V b) {
  if constexpr (is_batch_v<V>) return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::max(a, b)));
  else return sc::maximum<V>(a, b);
}
template <class V>
inline V minimum(V a, V b) {
  if constexpr (is_batch_v<V>) return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::min(a, b)));
  else return sc::minimum<V>(a, b);
}
// comparisons give masks (batch_bool / bool); they only feed where()
template <class V> inline auto lt(V a, V b) { return a < b; }
template <class V> inline auto le(V a, V b) { return a <= b; }
template <class V> inline auto gt(V a, V b) { return a > b; }
template <class V> inline auto ge(V a, V b) { return a >= b; }
template <class V> inline auto eq(V a, V b) { return a == b; }
template <class V> inline auto ne(V a, V b) {  // unordered: NaN != x is true, as in NumPy
  if constexpr (is_batch_v<V>) return !(a == b);
  else return a != b;
}
template <class M> inline M logical_and(M a, M b) { return a && b; }
template <class M> inline M logical_or(M a, M b) { return a || b; }
template <class M> inline M logical_not(M a) { return !a; }
template <class M, class V>
inline V where(M c, V a, V b) {
  if constexpr (is_batch_v<V>) return xsimd::select(c, a, b);
  else return c ? a : b;
}
template <class V> inline V sign(V a) {
  if constexpr (is_batch_v<V>) {
    return xsimd::select(a > V(0), V(1), xsimd::select(a < V(0), V(-1), xsimd::select(xsimd::isnan(a), a, V(0))));
  } else {
    return a > V(0) ? V(1) : (a < V(0) ? V(-1) : (a != a ? a : V(0)));
  }
}

}  // namespace vsc

namespace simd {

// f(x...) over contiguous operands in batches of T; scalars broadcast
template <class T, class A>
inline auto vload(const A& a, index_t i) {
  if constexpr (is_array_v<A>) return xsimd::batch<T>::load_unaligned(a.data + i);
  else return xsimd::batch<T>(static_cast<T>(a));
}

template <class T, class A>
inline T sload(const A& a, index_t i) {
  if constexpr (is_array_v<A>) return a.data[i];
  else return static_cast<T>(a);
}

template <class T, class F, class... Ops>
inline void run_contiguous(T* __restrict o, index_t n, F& f, const Ops&... ops) {
  using B = xsimd::batch<T>;
  constexpr index_t W = static_cast<index_t>(B::size);
  index_t i = 0;
  for (; i + W <= n; i += W) f(vload<T>(ops, i)...).store_unaligned(o + i);
  for (; i < n; ++i) o[i] = f(sload<T>(ops, i)...);
}

// scalars enter the body in the expression's dtype (Python scalars are weak: NEP 50)
template <class T, class A>
inline decltype(auto) as_elem(const A& a) {
  if constexpr (is_array_v<A>) return (a);
  else return static_cast<T>(a);
}

template <class Out, int N, class F, class... Ops>
Array<Out, N> map(F f, const Ops&... ops) {
  static_assert(std::is_floating_point_v<Out>, "the simd path covers floating expressions");
  auto shape = broadcast_shape<N>(ops...);
  if constexpr (N >= 2) {  // views walked in memory order (ep::map's memory_order): batches again
    const std::array<int, N> perm = memory_order<N>(shape, ops...);
    if (!is_identity<N>(perm)) {
      const std::array<index_t, N> pshape = permuted_shape<N>(shape, perm);
      if ((same_contiguous<Ops, N>(permuted<N>(ops, perm), pshape) && ...)) {
        Array<Out, N> out = empty<Out, N>(pshape);
        run_contiguous<Out>(out.data, out.size(), f, permuted<N>(ops, perm)...);
        return unpermuted<Out, N>(out, perm);
      }
    }
  }
  if ((same_contiguous<Ops, N>(ops, shape) && ...)) {
    Array<Out, N> out = empty<Out, N>(shape);
    run_contiguous<Out>(out.data, out.size(), f, ops...);
    return out;
  }
  // broadcast or strided operands: the same lambda on scalars, row by row
  return ep::map<Out, N>(f, as_elem<Out>(ops)...);
}

}  // namespace simd
}  // namespace ep
#endif
